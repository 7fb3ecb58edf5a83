"""Instructions per hand of the fixed cost, counted by callgrind (valgrind): a figure that
the load of a shared machine does not move (two runs agree within 0.2%), where CPU time
moves by ±10-20%.

    python benchmarks/fixed_cost.py [--hands 100] [--passes 5] [--ref OTHER_CHECKOUT]

The hands of every variant are simulated once, read and played in one process under
callgrind (``PYTHONHASHSEED=0``); then, for each variant in turn, --passes passes of what
replay() does for a hand besides its actions: ``make_table`` + ``setup`` (the deal check)
and ``outcome`` + ``compare_result`` of the tables played. A call of ``os.getppid`` before
each variant's passes and after the last makes callgrind dump its counts
(``--dump-before=getppid``), so each variant's passes are counted apart; the figure is
that count over passes × hands. With --ref the same for another checkout (its compiled
kernel built in place where it has one), on the same hands.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]
from benchmarks._common import CHILD_PRELUDE, callgrind, write_hands  # noqa: E402
from benchmarks.replay import GAMES  # noqa: E402

CHILD = CHILD_PRELUDE + r"""
from paipu.replay.table import compare_result
passes, paths = int(sys.argv[1]), sys.argv[2:]
data = []
for path in paths:
    records = ok_records(path)
    played = []
    for r in records:
        table = make_table(r)
        table.setup()
        for i, a in enumerate(r["actions"]):
            table.step(i, a)
        played.append(table)
    for r, table in zip(records, played):  # warm-up: combination tables, caches
        make_table(r).setup()
        compare_result(r.get("result") or {}, table.outcome())
    data.append((records, played))
for records, played in data:
    os.getppid()  # callgrind dumps its counts here (--dump-before=getppid)
    for _ in range(passes):
        for r in records:
            make_table(r).setup()
        for table, r in zip(played, records):
            compare_result(r.get("result") or {}, table.outcome())
os.getppid()
print("HANDS", *[len(records) for records, _ in data])
"""


def count(checkout: str, paths: list[str], passes: int) -> list[float]:
    """Instructions per hand and pass of each file's hands, imported from *checkout*."""
    stdout, counts = callgrind(checkout, CHILD, [str(passes), *paths])
    hands = [int(x) for x in [x for x in stdout.splitlines() if x.startswith("HANDS")][0].split()[1:]]
    # the last len(paths) dumps before the exit's: each variant's passes
    return [c / (passes * h) for c, h in zip(counts[-len(paths):], hands)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--ref", help="another checkout of paipu to count on the same hands")
    args = parser.parse_args()
    checkouts = [("new", os.path.dirname(HERE))] + ([("ref", args.ref)] if args.ref else [])
    with tempfile.TemporaryDirectory() as folder:
        paths = write_hands(folder, GAMES, args.hands)
        results = {name: count(checkout, paths, args.passes) for name, checkout in checkouts}
    print(f"{'game':19} " + " ".join(f"{name:>10}" for name in results) + ("   new/ref" if args.ref else ""))
    for k, (game, variant) in enumerate(GAMES):
        row = [results[name][k] for name in results]
        print(f"{game + '/' + variant:19} " + " ".join(f"{x:10,.0f}" for x in row)
              + (f" {row[0] / row[1]:9.2f}" if args.ref else ""))
    print("\ninstructions per hand: make_table + setup + outcome + compare_result (callgrind)")


if __name__ == "__main__":
    main()
