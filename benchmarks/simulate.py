"""Simulation: hands/s per game and bot level (one core), and how well the default bot plays.

    python benchmarks/simulate.py                 # speed + 2,000 duplicate deals against RLCard
    python benchmarks/simulate.py --deals 300 --hands 0.2   # a quick look

Speed is CPU time of one process (``time.process_time``) over whole hands (bidding,
tribute, settlement, the recorder's replay of every action), after a warm-up that builds
the combination tables (Guandan has one per level: a block of 120 hands); ``simple`` (the first heuristic, which asks the engine for
every legal play) is the reference measured in the same run. Targets (issue 12): Dou
Dizhu and both Paodekuai variants ≥ 500 hands/s, Guandan and Shuangkou ≥ 100.

Strength: each deal is played four times — the landlord's seat by paipu's default bot or
by RLCard's ``DouDizhuRuleAgentV1``, the farmers likewise — with the same bidding (the
default bot's), so the same landlord. Win rates have 95% Wilson intervals; a role's
difference is paired by deal with a 95% normal interval. The same for ``--bot strong``
against the default.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]

from paipu.replay.sim import BLOCK, Seat, simulate  # noqa: E402
from paipu.replay.sim.bots import BOTS  # noqa: E402

GAMES = (("doudizhu", "huopin", 3, 500, 1000), ("paodekuai", "huopin", 3, 500, 1000),
         ("paodekuai", "classic", 3, 500, 1000), ("guandan", "standard", 4, 100, 240),
         ("shuangkou", "huopin", 4, 100, 240))
Z = 1.959964


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return float("nan"), float("nan")
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{100 * k / n:5.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] (n={n})" if n else "–"


def paired(diffs: list[int]) -> str:
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    half = Z * sd / math.sqrt(n) if n else 0.0
    return f"{100 * mean:+.1f} points [{100 * (mean - half):+.1f}, {100 * (mean + half):+.1f}] over {n} deals"


def seats_of(policy, players: int):
    return lambda k: [Seat(None, policy) for _ in range(players)]


def speed(scale: float) -> list[dict]:
    rows = []
    for game, variant, players, target, hands in GAMES:
        n = max(10, int(hands * scale))
        per = {}
        # warm-up: the combination tables (a whole block of a match game meets most levels)
        for _ in simulate(game, variant, BLOCK if players == 4 else 5, 10_000):
            pass
        for level, policy in BOTS.items():
            if level == "search":
                continue  # thousands of times slower: its strength and time are benchmarks/strength.py's
            t = time.process_time()
            records = list(simulate(game, variant, n, 1, seats_for=seats_of(policy, players)))
            per[level] = (n / (time.process_time() - t), records)
        ref = per["simple"][0]
        for level, (hps, records) in per.items():
            rows.append({"game": f"{game}/{variant}", "bot": level, "hands_s": hps, "ratio": hps / ref,
                         "target": target, "records": records})
    return rows


def landlord_rate(records: list[dict]) -> tuple[int, int]:
    decided = [r["result"] for r in records if r["result"].get("landlord") is not None and r["result"].get("order")]
    return sum(r["order"][0] == r["landlord"] for r in decided), len(decided)


def anchor(deals: int) -> None:
    from paipu.replay.sim.planner import FAST
    from paipu.replay.sim.rlcard_agent import ByRole, RLCardRule

    rl = RLCardRule()
    pairings = {"paipu landlord, paipu farmers": ByRole(FAST, FAST), "paipu landlord, RLCard farmers": ByRole(FAST, rl),
                "RLCard landlord, paipu farmers": ByRole(rl, FAST), "RLCard landlord, RLCard farmers": ByRole(rl, rl)}
    wins: dict[str, dict[int, int]] = {}
    print(f"\nDou Dizhu against RLCard's DouDizhuRuleAgentV1: {deals} duplicate deals, each played 4 times")
    for name, policy in pairings.items():
        t = time.process_time()
        won = {}
        for k, r in enumerate(simulate("doudizhu", None, deals, 7, seats_for=seats_of(policy, 3))):
            res = r["result"]
            if res.get("landlord") is not None and res.get("order"):
                won[k] = int(res["order"][0] == res["landlord"])
        wins[name] = won
        k = sum(won.values())
        print(f"  {name:34s} landlord wins {rate(k, len(won))}   "
              f"({deals / (time.process_time() - t):.0f} hands/s)")
    pp, pr, rp, rr = (wins[n] for n in pairings)
    common = sorted(set(pr) & set(rr) & set(rp))
    print("  as landlord, against RLCard farmers (paipu's landlord win rate − RLCard's):")
    print("    " + paired([pr[k] - rr[k] for k in common]))
    print("  as farmers, against an RLCard landlord (paipu farmers' win rate − RLCard farmers'):")
    print("    " + paired([(1 - rp[k]) - (1 - rr[k]) for k in common]))
    lw = sum(pr[k] for k in common) / len(common), sum(rr[k] for k in common) / len(common)
    fw = sum(1 - rp[k] for k in common) / len(common), sum(1 - rr[k] for k in common) / len(common)
    print(f"  landlord role: paipu {100 * lw[0]:.1f}% vs RLCard {100 * lw[1]:.1f}%; "
          f"farmer role: paipu {100 * fw[0]:.1f}% vs RLCard {100 * fw[1]:.1f}% — "
          + ("paipu wins more in both roles" if lw[0] > lw[1] and fw[0] > fw[1] else "TARGET MISSED"))


def levels(deals: int) -> None:
    """--bot strong against the default on the same deals, in each role."""
    from paipu.replay.sim.planner import FAST, STRONG
    from paipu.replay.sim.rlcard_agent import ByRole

    pairings = {"fast landlord, fast farmers": ByRole(FAST, FAST), "strong landlord, fast farmers": ByRole(STRONG, FAST),
                "fast landlord, strong farmers": ByRole(FAST, STRONG)}
    wins = {}
    print(f"\nDou Dizhu, strong against fast: {deals} duplicate deals, each played 3 times")
    for name, policy in pairings.items():
        won = {}
        for k, r in enumerate(simulate("doudizhu", None, deals, 8, seats_for=seats_of(policy, 3))):
            res = r["result"]
            if res.get("landlord") is not None and res.get("order"):
                won[k] = int(res["order"][0] == res["landlord"])
        wins[name] = won
        print(f"  {name:34s} landlord wins {rate(sum(won.values()), len(won))}")
    ff, sf, fs = wins.values()
    common = sorted(set(ff) & set(sf) & set(fs))
    print("  strong as landlord (its win rate − fast's): " + paired([sf[k] - ff[k] for k in common]))
    print("  strong as farmers (their win rate − fast's): " + paired([ff[k] - fs[k] for k in common]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=float, default=1.0, help="scale of the hands timed per game (1: 1,000 / 240)")
    ap.add_argument("--deals", type=int, default=2300, help="duplicate deals against RLCard (0: skip); about 9 in 10 get a landlord")
    args = ap.parse_args()
    print("Hands per second, one core (CPU time), whole hands; ratio: against the simple bot in this run")
    rows = speed(args.hands)
    for r in rows:
        mark = "" if r["bot"] == "simple" else ("  ok" if r["hands_s"] >= r["target"] else f"  MISSES {r['target']}")
        print(f"  {r['game']:20s} {r['bot']:7s} {r['hands_s']:8.0f} hands/s  x{r['ratio']:5.2f}{mark}")
    print("\nBot against itself, Dou Dizhu landlord win rate (hands with a landlord):")
    for r in rows:
        if r["game"].startswith("doudizhu"):
            print(f"  {r['bot']:7s} {rate(*landlord_rate(r['records']))}")
    if args.deals:
        anchor(args.deals)
        levels(args.deals)


if __name__ == "__main__":
    main()
