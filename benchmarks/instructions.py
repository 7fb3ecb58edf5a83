"""Instructions per hand of ``replay()``, counted by callgrind (valgrind), this checkout
against others on the same hands: the speed figure the load of a shared machine does not move.

    python benchmarks/instructions.py --ref OTHER_CHECKOUT [--ref ANOTHER] [--hands 100] [--pure]

Hands of every variant are simulated once; only those every ``--ref`` checkout replays
without a violation are kept (an older checkout that judges a hand wrongly stops early
and would look faster: 780fa0b and the hands after a 双下). Each checkout replays them
in one process under callgrind (``PYTHONHASHSEED=0``): per variant, a warm-up pass over
its hands (a game's tables are built on first use, Guandan's once per level: a
once-per-process cost), then a second pass between two calls of ``os.getppid`` that make
callgrind dump its counts. ``--pure``: every checkout
without its compiled kernel (``PAIPU_PURE=1``). Prints instructions per hand and each
variant's ratio this checkout / ref (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]
from benchmarks._common import callgrind, run_child, write_hands  # noqa: E402

VARIANTS = (("doudizhu", "huopin"), ("paodekuai", "huopin"), ("paodekuai", "classic"),
            ("guandan", "standard"), ("shuangkou", "huopin"))

#: the ids of the hands in the file argv[1] that replay without a violation
LEGAL = r"""
import json, sys
from paipu.replay.replayer import replay
print(json.dumps([r["id"] for r in map(json.loads, open(sys.argv[1], encoding="utf-8")) if replay(r).ok]))
"""

#: per file: a warm-up pass over every hand, then a second pass between two dumps
CHILD = r"""
import json, os, sys
from paipu.replay.replayer import replay
for path in sys.argv[1:]:
    records = [json.loads(line) for line in open(path, encoding="utf-8")]
    for r in records:
        replay(r)
    os.getppid()
    for r in records:
        replay(r)
    os.getppid()
"""


def legal_ids(checkout: str, path: str) -> set[str]:
    code = f"import sys; sys.argv[1:] = [{path!r}]\n" + LEGAL
    return set(json.loads(run_child(code, cwd=checkout)[2]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ref", action="append", required=True, help="another checkout of paipu (repeatable)")
    ap.add_argument("--hands", type=int, default=100)
    ap.add_argument("--pure", action="store_true", help="without the compiled kernels (PAIPU_PURE=1)")
    args = ap.parse_args()
    here = os.path.dirname(HERE)
    env = {"PAIPU_PURE": "1"} if args.pure else None
    with tempfile.TemporaryDirectory() as folder:
        kept = []
        for (game, variant), path in zip(VARIANTS, write_hands(folder, VARIANTS, args.hands)):
            ok = set.intersection(*(legal_ids(c, path) for c in [here, *args.ref]))
            with open(path, encoding="utf-8") as f:
                lines = [line for line in f if json.loads(line)["id"] in ok]
            with open(path, "w", encoding="utf-8") as f:
                f.writelines(lines)
            kept.append((f"{game}/{variant}", path, len(lines)))
        counts = {}
        for checkout in [here, *args.ref]:
            dumps = callgrind(checkout, CHILD, [p for _, p, _ in kept], env)[1]
            counts[checkout] = [dumps[2 * k + 1] for k in range(len(kept))]
    print(f"replay() instructions per hand, the second pass ({'pure Python' if args.pure else 'compiled kernel'})")
    print(f"{'variant':>18} {'hands':>6} {'this checkout':>14} " + " ".join(f"{os.path.basename(r):>14} {'ratio':>6}"
                                                                       for r in args.ref))
    for k, (name, _, n) in enumerate(kept):
        mine = counts[here][k] / n
        row = " ".join(f"{counts[r][k] / n:14,.0f} {mine / (counts[r][k] / n):6.3f}" for r in args.ref)
        print(f"{name:>18} {n:6d} {mine:14,.0f} {row}")


if __name__ == "__main__":
    main()
