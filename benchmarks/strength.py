"""The search bot's strength (``paipu simulate --bot search``, docs/review.md): duplicate
deals, ``search`` against ``fast`` in every role, against RLCard's rule agent (Dou Dizhu),
and the landlord's win rate with ``search`` everywhere.

    python benchmarks/strength.py [--games doudizhu,paodekuai,guandan,shuangkou] [--deals 500]
                                  [--budget 50] [--rlcard 0] [--everywhere 0] [--screen N]

Every deal is played once with ``fast`` in every seat (the baseline) and once for each
role with ``search`` in that role and ``fast`` elsewhere; the figure of a role is the win
rate of the side in that role with ``search`` minus its win rate with ``fast``, on the same
deals (paired: the 95% interval is that of the per-deal differences), in percentage points.

- Dou Dizhu: the landlord; the two farmers together. Bids are the default bot's in every
  play of a deal, so the landlord is the same (deals without a landlord are left out).
- Paodekuai: each seat in turn alone with ``search``, split by whether it leads first.
- Guandan, Shuangkou: the team of seats 0+2, the team of seats 1+3 (seats rotated). Each
  Guandan deal is the first hand of its match (level 2, no tribute), so that the plays of
  a deal are dealt the same and start alike.
- ``--rlcard N``: Dou Dizhu on N deals against ``DouDizhuRuleAgentV1`` (the ``rlcard``
  package): ``search`` and ``fast`` each as landlord against RLCard farmers and as farmers
  against an RLCard landlord, on the same deals; the figure is search's win rate minus
  fast's.
- ``--everywhere N``: the Dou Dizhu landlord's win rate with ``search`` in every seat.

One process per game (``--jobs`` at most at once); CPU time per search decision is printed.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# run as a script, this folder is first on the path and this file would shadow the package
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]

from benchmarks._common import paired as paired_mean  # noqa: E402
from paipu.analysis.inference import wilson  # noqa: E402

VARIANTS = {"doudizhu": "huopin", "paodekuai": "huopin", "guandan": "standard", "shuangkou": "huopin"}
SEED = 26


def paired(diffs: list[float]) -> str:
    """The mean of per-deal differences in points, with its 95% t interval (``_common.paired``)."""
    n = len(diffs)
    if n < 2:
        return f"– (n={n})"
    mean, lo, hi = paired_mean(diffs)
    return f"{100 * mean:+6.1f} points [{100 * lo:+.1f}, {100 * hi:+.1f}] over {n} deals"


def rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{100 * k / n:5.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] (n={n})" if n else "–"


class Counted:
    """A policy that counts its own CPU time and searched decisions (for the time per decision)."""

    def __init__(self, inner):
        self.inner, self.seconds, self.decisions = inner, 0.0, 0

    def bid(self, *a):
        return self.inner.bid(*a)

    def play(self, table, rng, moves, hints):
        t = time.process_time()
        out = self.inner.play(table, rng, moves, hints)
        self.seconds += time.process_time() - t
        self.decisions += 1
        return out


def play(game: str, k: int, policies: list) -> dict:
    """Deal *k* of the run played by *policies* (one per seat)."""
    from paipu.replay.sim import Seat, simulate

    return next(simulate(game, VARIANTS[game], 1, SEED, seats_for=lambda _: [Seat(None, p) for p in policies], start=k))


def progress(game: str, k: int, **figures: list) -> None:
    """Partial figures every 25 deals on stderr (a run stopped early still says something)."""
    if (k + 1) % 25 == 0:
        parts = "; ".join(f"{name} {paired(xs)}" for name, xs in figures.items())
        print(f"[{game} {k + 1} deals, {time.process_time():.0f} s CPU] {parts}", file=sys.stderr, flush=True)


def winners(record: dict) -> int | None:
    order = record["result"].get("order")
    return order[0] if order else None


def run_game(game: str, deals: int, budget: float, rlcard: int, everywhere: int, screen: int | None = None) -> str:
    from paipu.replay.sim.planner import FAST
    from paipu.replay.sim.rlcard_agent import ByRole
    from paipu.replay.sim.search import Search

    bot = Search(budget, screen=screen)
    search = Counted(bot)
    start = time.process_time()
    first = bot.screen_for(game)
    looks = f", two looks, {first} deals first" if first else ", one look"
    out = [f"{game}/{VARIANTS[game]}: search (budget {budget:g} ms{looks}) against fast, {deals} duplicate deals"]
    if game == "doudizhu":
        land, farm = [], []
        for k in range(deals):
            ff = play(game, k, [FAST] * 3)
            lord = ff["result"].get("landlord")
            if lord is None or winners(ff) is None:
                continue
            base = int(winners(ff) == lord)
            sf = play(game, k, [ByRole(search, FAST)] * 3)
            fs = play(game, k, [ByRole(FAST, search)] * 3)
            land.append(int(winners(sf) == lord) - base)
            farm.append((1 - int(winners(fs) == lord)) - (1 - base))
            progress(game, k, landlord=land, farmers=farm)
        if deals:
            out.append(f"  as landlord (its win rate − fast's):  {paired(land)}")
            out.append(f"  as farmers (their win rate − fast's): {paired(farm)}")
        if rlcard:
            out += against_rlcard(search, rlcard)
        if everywhere:
            won = []
            for k in range(everywhere):
                r = play(game, k, [search] * 3)
                if r["result"].get("landlord") is not None and winners(r) is not None:
                    won.append(int(winners(r) == r["result"]["landlord"]))
                if (k + 1) % 25 == 0:
                    print(f"[everywhere {k + 1} deals] landlord wins {rate(sum(won), len(won))}", file=sys.stderr, flush=True)
            out.append(f"  search in every seat: landlord wins {rate(sum(won), len(won))}")
    elif game == "paodekuai":
        first, other = [], []
        for k in range(deals):
            ff = play(game, k, [FAST] * 3)
            leader = ff["actions"][0]["seat"]
            for s in range(3):
                seats = [FAST] * 3
                seats[s] = search
                r = play(game, k, seats)
                (first if s == leader else other).append(int(winners(r) == s) - int(winners(ff) == s))
            progress(game, k, first=first, other=other)
        out.append(f"  leading first (win rate − fast's):   {paired(first)}")
        out.append(f"  the other seats (win rate − fast's): {paired(other)}")
        out.append(f"  every seat:                          {paired(first + other)}")
    else:
        even, odd, both = [], [], []
        for k in range(deals):
            ff = play(game, k, [FAST] * 4)
            if winners(ff) is None:
                continue
            base = int(winners(ff) % 2 == 0)
            sf = play(game, k, [search, FAST, search, FAST])
            fs = play(game, k, [FAST, search, FAST, search])
            a = int(winners(sf) % 2 == 0) - base
            b = (1 - int(winners(fs) % 2 == 0)) - (1 - base)
            even.append(a)
            odd.append(b)
            both.append((a + b) / 2)
            progress(game, k, team=both)
        out.append(f"  team 0+2 (win rate − fast's): {paired(even)}")
        out.append(f"  team 1+3 (win rate − fast's): {paired(odd)}")
        out.append(f"  as a team, seats rotated:     {paired(both)}")
    per = 1000 * search.seconds / max(1, search.decisions)
    out.append(f"  search: {search.decisions} decisions (one-option turns included), {per:.1f} ms CPU each; "
               f"{time.process_time() - start:.0f} s CPU for the game")
    return "\n".join(out)


def against_rlcard(search, deals: int) -> list[str]:
    from paipu.replay.sim.planner import FAST
    from paipu.replay.sim.rlcard_agent import ByRole, RLCardRule

    rl = RLCardRule()
    land: dict[str, list[int]] = {"search": [], "fast": []}
    farm: dict[str, list[int]] = {"search": [], "fast": []}
    for k in range(deals):
        lord = play("doudizhu", k, [FAST] * 3)["result"].get("landlord")
        if lord is None:
            continue
        rows = {}
        for name, bot in (("search", search), ("fast", FAST)):
            a, b = play("doudizhu", k, [ByRole(bot, rl)] * 3), play("doudizhu", k, [ByRole(rl, bot)] * 3)
            if winners(a) is None or winners(b) is None:
                break
            rows[name] = (int(winners(a) == lord), 1 - int(winners(b) == lord))
        if len(rows) == 2:
            for name, (x, y) in rows.items():
                land[name].append(x)
                farm[name].append(y)
        progress("rlcard", k, landlord=[a - b for a, b in zip(land["search"], land["fast"])],
                 farmers=[a - b for a, b in zip(farm["search"], farm["fast"])])
    n = len(land["fast"])
    out = [f"  against RLCard's DouDizhuRuleAgentV1, {deals} deals ({n} with a landlord and an end):"]
    for name in ("search", "fast"):
        out.append(f"    {name:6s} as landlord wins {rate(sum(land[name]), n)}; as farmers {rate(sum(farm[name]), n)}")
    out.append("    search − fast as landlord: " + paired([a - b for a, b in zip(land["search"], land["fast"])]))
    out.append("    search − fast as farmers:  " + paired([a - b for a, b in zip(farm["search"], farm["fast"])]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=",".join(VARIANTS))
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--budget", type=float, default=50.0, help="the search bot's budget per decision, ms")
    ap.add_argument("--rlcard", type=int, default=0, help="Dou Dizhu deals against RLCard's rule agent")
    ap.add_argument("--everywhere", type=int, default=0, help="Dou Dizhu deals with search in every seat")
    ap.add_argument("--jobs", type=int, default=1, help="games played at once (processes)")
    ap.add_argument("--screen", type=int, default=None,
                    help="the search bot's two looks: every option on this many deals first (Search.screen; 0: one "
                         "look; default: the game's, search.SCREEN)")
    args = ap.parse_args()
    games = [g for g in args.games.split(",") if g]
    jobs = [(g, args.deals, args.budget, args.rlcard, args.everywhere, args.screen) for g in games]
    if args.jobs > 1:
        with multiprocessing.get_context("fork").Pool(min(args.jobs, len(jobs))) as pool:
            for text in pool.starmap(run_game, jobs):
                print(text, flush=True)
    else:
        for job in jobs:
            print(run_game(*job), flush=True)


if __name__ == "__main__":
    main()
