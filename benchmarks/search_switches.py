"""How often the search bot plays something other than the default bot's choice, and on
how many deals (docs/review.md, "Why Guandan's search is no better than fast").

    python benchmarks/search_switches.py --game guandan --deals 4 [--screen N]

Plays the deals of benchmarks/strength.py with ``search`` in seats 0 and 2 (0 and 1 in
the three-seat games) and ``fast`` elsewhere, and counts per decision with a choice: the
deals valued, whether the best option of those deals differs from ``fast``'s choice, and
whether the bot played it (it passed the gate, ``search.choice``). CPU time at the end.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]
sys.path.append(HERE)


def main() -> None:
    import strength

    from paipu.replay.sim import search
    from paipu.replay.sim.planner import FAST

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="guandan")
    ap.add_argument("--deals", type=int, default=4)
    ap.add_argument("--screen", type=int, default=None, help="two looks (Search.screen)")
    args = ap.parse_args()
    log: list[tuple[int, bool, bool]] = []
    gate = search.choice

    def counted(ev):
        best = gate(ev)
        top = max(ev.options, key=lambda o: (o.win.mean, o.score.mean, o.chosen))
        log.append((ev.samples, top is not ev.chosen, best is not ev.chosen))
        return best

    search.choice = counted
    bot = search.Search(screen=args.screen)
    n = 4 if args.game in ("guandan", "shuangkou") else 3
    seats = [bot if s in ((0, 2) if n == 4 else (0, 1)) else FAST for s in range(n)]
    start = time.process_time()
    for k in range(args.deals):
        strength.play(args.game, k, seats)
    print(f"{args.game}: {len(log)} gate decisions on {args.deals} deals, {time.process_time() - start:.1f} s CPU")
    print("  deals valued:", sorted(collections.Counter(s for s, _, _ in log).items()))
    for lo, hi in ((2, 4), (5, 8), (9, 16), (17, 64)):
        part = [x for x in log if lo <= x[0] <= hi]
        print(f"  {lo}-{hi} deals: {len(part)} decisions, best of the deals not fast's {sum(x[1] for x in part)}, "
              f"played {sum(x[2] for x in part)}")


if __name__ == "__main__":
    main()
