"""Validation speed on simulated hands, one core: µs per action, the Paodekuai must-play
pass, the fixed cost per hand, the beating-play check and legal-move generation.

    python benchmarks/replay.py [--hands 1000] [--rounds 3] [--ref OTHER_CHECKOUT]

Simulates the hands once (this checkout's simulator), writes them to a file, then times
each variant in a fresh process (the minimum over --rounds passes, after a warm-up):

- µs/action: ``replay(record)`` for every hand, divided by the actions;
- fixed µs/hand: building the table and checking the deal (``make_table`` + ``setup``)
  plus the settlement and the result check (``outcome`` + ``compare_result``), each timed
  in a tight loop over the first 100 hands (tables played beforehand for the second), no
  clock read per hand; the median of the passes, the garbage collector on. The same 100
  hands whatever --hands is: timed over all hands, the figure grew with their number
  (Paodekuai 6.7 µs at 100 hands, 8.9 at 1,000, the collector on or off alike: their
  records and tables read from memory rather than the cache; see docs/benchmarks.md);
- fixed replay µs: the same parts timed hand by hand as a replay goes (the record read
  from its line, the table set up, the actions played untimed, then the settlement),
  less the clock's cost of each interval; the median of the passes. Higher than the
  tight loop: the parts run once a hand, between the reading and the play of the hand,
  with the caches as those leave them;
- pass µs: one ``step`` of a pass (Paodekuai huopin: the 有出必出 check);
- can_beat µs: ``Table.can_beat`` at every position where a play is on the table;
- gen median µs: ``Table.legal_moves`` at every play/pass position of the first hands;
- wild gen: the median with two wild hearts (Guandan) / all four jokers (Shuangkou) moved
  into the hand of the seat to act.

The single-call figures (pass, can_beat, gen) are timed one call at a time, less the cost
of reading the clock (~0.6 µs for ``process_time``, measured as the mean empty interval).

Each figure is measured for this checkout with its compiled kernel (``new``; see
replay/kernel.py) and without it (``pure``: ``PAIPU_PURE=1``), and the ratio new/pure
printed; the pass figure is the kernel's step where it is built. With ``--ref`` the same
measurements run on another checkout of paipu (for example the commit before a change,
from ``git worktree add``; imported from that folder) on the same hands in the same run,
and the ratio new/ref is printed. Each checkout times the hands it finds legal (the hands
column): an older checkout may reject hands of rules added since.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# run as a script, this folder is first on the path and this file would shadow the package
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]
from benchmarks._common import base_hands, dump, run_child  # noqa: E402

GAMES = (("doudizhu", "huopin"), ("paodekuai", "huopin"), ("paodekuai", "classic"), ("guandan", "standard"),
         ("shuangkou", "huopin"))

CHILD = r"""
import json, statistics, sys, time
from paipu.replay.replayer import make_table, replay
from paipu.replay.cards import RANK_BIT
from paipu.replay.table import compare_result
try:  # the compiled kernel's step where it is built (a checkout before it has none)
    from paipu.replay.kernel import compiled
except ImportError:
    compiled = None
records = [json.loads(line) for line in open(PATH, encoding="utf-8")]
# only the hands this checkout finds legal (an older checkout may not know a newer rule)
records = [r for r in records if replay(r).ok]
now = time.process_time  # CPU time: the machine may be shared

def best(fn):
    fn()  # warm-up: combination tables, caches
    return min(fn() for _ in range(ROUNDS))


def replay_all():
    t = now()
    for r in records:
        replay(r)
    return now() - t

def clock():
    # what one timed interval adds by reading the clock (~0.6 µs for process_time), the
    # mean of empty intervals: taken off the single-call figures below
    total = 0.0
    for _ in range(20000):
        t = now()
        total += now() - t
    return total / 20000

EMPTY = clock()

def play(r):
    table = make_table(r)
    table.setup()
    for i, a in enumerate(r["actions"]):
        table.step(i, a)
    return table

FIXED_HANDS = 100  # the hands of the fixed cost's tight loop (see fixed())

def fixed():
    # the fixed parts of the first FIXED_HANDS hands in two loops, no clock read per hand:
    # tables built and set up (then dropped), and the settlement and result check of
    # tables played beforehand. The same hands whatever --hands is: over all of them the
    # figure grew with their number (their records and tables no longer in the cache)
    t = now()
    for r in first:
        make_table(r).setup()
    total = now() - t
    t = now()
    for table, r in zip(played, first):
        compare_result(r.get("result") or {}, table.outcome())
    return (total + now() - t) / len(first)

LINES = [json.dumps(r, ensure_ascii=False) for r in records]
try:  # the loop of a hand's actions replay() runs: its seam (the kernel's where it is built)
    from paipu.replay.replayer import RUN
except ImportError:  # a checkout before the seams: the kernel's loop, where it is built
    try:
        from paipu.replay.replayer import KERNEL
        RUN = KERNEL.run if KERNEL is not None else None
    except ImportError:
        RUN = None

def fixed_in_replay():
    # hand by hand as a replay goes: the record read from its line (untimed), the table
    # built and set up (timed), the actions played (untimed), the settlement and the
    # result check (timed), less the clock's cost of each interval: the fixed parts with
    # the caches as the hand's own reading and play leave them
    total = 0.0
    for line in LINES:
        r = json.loads(line)
        t = now()
        table = make_table(r)
        table.setup()
        total += now() - t
        if RUN is not None:  # the actions as replay() plays them
            RUN(table, r["actions"])
        else:
            for i, a in enumerate(r["actions"]):
                table.step(i, a)
        t = now()
        compare_result(r.get("result") or {}, table.outcome())
        total += now() - t
    return total / len(LINES) - 2 * EMPTY

def median_of(fn):
    fn()  # warm-up
    return statistics.median(fn() for _ in range(ROUNDS))

first = records[:FIXED_HANDS]
played = [play(r) for r in first]

def positions(limit):
    # (table, action index) at each play/pass position, the table stepped to it (a generator)
    for r in records[:limit]:
        table = make_table(r)
        table.setup()
        for i, a in enumerate(r["actions"]):
            if getattr(table, "phase", "") == "tribute" and a["act"] in ("play", "pass"):
                table.start_play(i, a["seat"])
            if table.phase == "play" and not table.over and a["act"] in ("play", "pass"):
                yield table, i, a
            table.step(i, a)

def passes():
    total, n = 0.0, 0
    for table, i, a in positions(len(records)):
        if a["act"] == "pass":
            snapshot = (table.passes, table.turn, table.last, table.tricks)
            if compiled is not None:
                compiled.prepare(table)
            t = now()
            if compiled is not None:
                compiled.step(table, i, a)
            else:
                table.step(i, a)
            total += now() - t
            n += 1
            table.passes, table.turn, table.last, table.tricks = snapshot
    return total / max(n, 1) - EMPTY

def can_beat():
    if not hasattr(make_table(records[0]), "can_beat"):
        return None
    total, n = 0.0, 0
    for table, i, a in positions(len(records)):
        if table.last is not None:
            t = now()
            table.can_beat(table.turn)
            total += now() - t
            n += 1
    return total / max(n, 1) - EMPTY

def generation(wild):
    times = []
    for table, i, a in positions(GEN_HANDS):
        seat = table.turn
        if wild:
            saved = [bytearray(h) for h in table.hands], list(table.packed), list(table.left)
            ids = [table.wild] * 2 if hasattr(table, "wild") else [52, 52, 53, 53]
            for c in ids:
                giver = next((s for s in range(table.n) if table.hands[s][c] and s != seat), None) \
                    if table.hands[seat][c] < ids.count(c) else None
                if giver is not None:
                    table.hands[giver][c] -= 1; table.hands[seat][c] += 1
                    table.packed[giver] -= RANK_BIT[c]; table.packed[seat] += RANK_BIT[c]
                    table.left[giver] -= 1; table.left[seat] += 1
        t = now()
        table.legal_moves(seat)
        times.append(now() - t)
        if wild:
            table.hands[:] = saved[0]; table.packed[:] = saved[1]; table.left[:] = saved[2]
    return statistics.median(times) - EMPTY

actions = sum(len(r["actions"]) for r in records)
out = {"kernel": compiled is not None, "hands": len(records), "actions": actions, "replay": best(replay_all) / actions,
       "fixed": median_of(fixed), "fixed_replay": median_of(fixed_in_replay), "pass": passes(), "can_beat": can_beat(),
       "gen": generation(False), "wild_gen": generation(True) if WILD else None}
print("RESULT", json.dumps(out))
"""


def measure(path: str, checkout: str, rounds: int, wild: bool, gen_hands: int, pure: bool = False) -> dict:
    code = CHILD.replace("PATH", repr(path)).replace("ROUNDS", str(rounds)).replace("GEN_HANDS", str(gen_hands)) \
        .replace("WILD", str(wild))
    _, _, out = run_child(code, cwd=checkout, env={"PAIPU_PURE": "1"} if pure else None)
    return json.loads([x for x in out.splitlines() if x.startswith("RESULT")][0][7:])


def fmt(x: float | None, scale: float = 1e6) -> str:
    return "-" if x is None else f"{x * scale:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ref", help="another checkout of paipu to measure on the same hands")
    args = parser.parse_args()
    here = os.path.dirname(HERE)
    # this checkout with its compiled kernel (when built) and without (PAIPU_PURE=1), and the reference
    checkouts = [("new", here, False), ("pure", here, True)] + ([("ref", os.path.abspath(args.ref), False)] if args.ref else [])
    columns = ("µs/action", "fixed µs/hand", "fixed replay µs", "pass µs", "can_beat µs", "gen median µs", "wild gen µs")
    print(f"{'game':19} {'code':5} {'hands':>6} {'actions':>8} " + " ".join(f"{c:>13}" for c in columns))
    for game, variant in GAMES:
        wild = game in ("guandan", "shuangkou")
        hands = max(1, args.hands // 5) if wild else args.hands  # longer hands, slower bots
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
            for record in base_hands(game, hands, variant=variant):
                f.write(dump(record) + "\n")
            path = f.name
        results = {}
        for name, checkout, pure in checkouts:
            r = results[name] = measure(path, checkout, args.rounds, wild, min(hands, 40), pure)
            if name == "new" and not r["kernel"]:
                print("(the compiled kernel is not built here: new and pure are the same code)")
            row = (r["replay"], r["fixed"], r.get("fixed_replay"), r["pass"], r["can_beat"], r["gen"], r["wild_gen"])
            print(f"{game + '/' + variant:19} {name:5} {r['hands']:6d} {r['actions']:8d} "
                  + " ".join(f"{fmt(x):>13}" for x in row), flush=True)
        for name in ("pure", "ref"):  # new / other, measured in this run
            if name in results:
                new, other = results["new"], results[name]
                ratios = [None if new[k] is None or not other.get(k) else new[k] / other[k]
                          for k in ("replay", "fixed", "fixed_replay", "pass", "can_beat", "gen", "wild_gen")]
                print(f"{'':19} {'×' + name:5} {'':6} {'':8} " + " ".join(f"{fmt(x, 1):>13}" for x in ratios))
        os.unlink(path)
    print("\ntargets: ≤ 1.5 µs/action, must-play pass ≤ 1.5 µs, fixed ≤ 12 µs/hand, can_beat ≤ 3 µs, "
          "gen median ≤ 50 µs, wild gen ≤ 500 µs")


if __name__ == "__main__":
    main()
