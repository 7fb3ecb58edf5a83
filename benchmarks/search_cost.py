"""The search bot's cost: CPU seconds per whole hand with ``search`` in every seat, against
``fast`` in every seat on the same deals (docs/designers.md).

    python benchmarks/search_cost.py [--hands 3] [--budget 50]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# run as a script, this folder is first on the path and this file would shadow the package
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]

GAMES = (("doudizhu", "huopin", 3), ("paodekuai", "huopin", 3), ("guandan", "standard", 4), ("shuangkou", "huopin", 4))


def main() -> None:
    from paipu.replay.sim import Seat, simulate
    from paipu.replay.sim.planner import FAST
    from paipu.replay.sim.search import Search

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=3)
    ap.add_argument("--budget", type=float, default=50.0)
    args = ap.parse_args()
    print(f"{'game':20} {'hands':>5} {'search s/hand':>13} {'fast ms/hand':>12} {'ratio':>7}")
    for game, variant, players in GAMES:
        cost = {}
        for name, bot in (("search", Search(args.budget)), ("fast", FAST)):
            t = time.process_time()
            for k in range(args.hands):  # (Guandan: each the first hand of a match)
                seats = [Seat(None, bot)] * players
                next(simulate(game, variant, 1, 1, seats_for=lambda _, seats=seats: seats, start=k))
            cost[name] = (time.process_time() - t) / args.hands
        print(f"{game + '/' + variant:20} {args.hands:5d} {cost['search']:13.2f} {1000 * cost['fast']:12.2f} "
              f"{cost['search'] / cost['fast']:7.0f}", flush=True)


if __name__ == "__main__":
    main()
