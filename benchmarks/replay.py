"""Validation speed on simulated hands: µs per action, hands/s (one core), peak memory.

    python benchmarks/replay.py [--hands 2000] [--rounds 5]

Simulates the hands once, then replays them --rounds times in a fresh process; only the
replay is timed (including Paodekuai's must-play check at every pass). Also times
legal-move generation for the seat to act ("gen µs").
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
from benchmarks._common import base_hands, dump, peak_of  # noqa: E402

GAMES = (("doudizhu", "huopin"), ("paodekuai", "huopin"), ("paodekuai", "classic"), ("guandan", "standard"),
         ("shuangkou", "huopin"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"{'game':20} {'hands':>7} {'actions':>9} {'µs/action':>10} {'hands/s':>9} {'gen µs':>8} {'peak MB':>8}")
    for game, variant in GAMES:
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
            slow = game in ("guandan", "shuangkou")  # their bots search wild-card moves: fewer hands
            for record in base_hands(game, max(1, args.hands // 10) if slow else args.hands, variant=variant):
                f.write(dump(record) + "\n")
            path = f.name
        code = f"""
import json, time
from replay.replayer import make_table, replay
records = [json.loads(line) for line in open({path!r}, encoding="utf-8")]
for r in records[:50]:
    replay(r)            # build the combination table outside the timing
actions = sum(len(r["actions"]) for r in records)
t = time.perf_counter()
for _ in range({args.rounds}):
    for r in records:
        assert replay(r).ok
seconds = time.perf_counter() - t
# legal-move generation at every play/pass position of the first 200 hands
gens, gt = 0, 0.0
for r in records[:200]:
    table = make_table(r)
    table.setup()
    for i, a in enumerate(r["actions"]):
        if table.phase == "play" and not table.over:
            t0 = time.perf_counter()
            table.legal_moves()
            gt += time.perf_counter() - t0; gens += 1
        table.step(i, a)
print("RESULT", json.dumps([len(records), actions, seconds, {args.rounds}, gt / max(gens, 1)]))
"""
        seconds, peak, out = peak_of(code)
        hands, actions, replay_s, rounds, gen = json.loads([x for x in out.splitlines() if x.startswith("RESULT")][0][7:])
        os.unlink(path)
        us = replay_s / (actions * rounds) * 1e6
        print(f"{game + '/' + variant:20} {hands:7d} {actions:9d} {us:10.2f} {hands * rounds / replay_s:9.0f} {gen * 1e6:8.0f} {peak:8.0f}")
    four_jokers()
    print("\nreference (same kind of recorded random games): RLCard ~72 µs/action, DouZero ~90, OpenSpiel C++ ~1.1; target ≤ 3")


def four_jokers() -> None:
    """Legal-move generation for a Shuangkou seat holding all four jokers."""
    import time

    from replay.replayer import make_table
    from replay.sim import simulate

    times = []
    for record in simulate("shuangkou", None, 20, 5):
        table = make_table(record)
        table.setup()
        seat = table.turn
        for c in (52, 53):
            for s in range(4):
                while s != seat and table.hands[s][c]:
                    table.hands[s][c] -= 1
                    table.hands[seat][c] += 1
        t = time.perf_counter()
        table.legal_moves(seat)
        times.append(time.perf_counter() - t)
    print(f"shuangkou: legal moves of a leader holding all four jokers: {1e6 * sum(times) / len(times):.0f} µs per generation")


if __name__ == "__main__":
    main()
