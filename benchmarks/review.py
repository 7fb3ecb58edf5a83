"""The evaluator's speed and accuracy (``paipu.evaluate``, docs/review.md), per game.

    python benchmarks/review.py [--hands 3] [--samples 64] [--budget 50]
                                [--agreement 40] [--agree-hands 200] [--gap 5]

Speed: --hands simulated hands of each game (seed 1) are reviewed whole: every play and
pass of every seat evaluated at --samples deals at most and a budget of --budget ms (the
defaults of ``evaluate``). Prints per game: the decisions, decisions per second, the
median and 90th-percentile time per decision, the largest, the median and largest time of
a whole hand, the median options, the options left out by the shortlist, the median of
samples reached and the deals solved exactly. Every time is the process's CPU time, and
the budget counts it too (``evaluate(clock=time.process_time)``): a loaded machine reaches
the samples, and prints the times, that one idle core would (issue 26's targets, one core:
median decision ≤ 50 ms, a whole hand ≤ 3 s in Dou Dizhu and Paodekuai, ≤ 10 s in Guandan
and Shuangkou).

Accuracy (--agreement N, 0 to skip): N decisions with two options or more, drawn evenly
from --agree-hands other hands (seed 2), are evaluated at the default budget and again at
10x the samples and the budget (another seed). Printed: the median standard error of an
option's win probability at the default budget, the decisions whose two best options at
10x differ by more than --gap points of win probability, and the share of those where the
best option at the default budget is the best at 10x (the target: at least 90%).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# run as a script, this folder is first on the path and this file would shadow the package
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]

GAMES = (("doudizhu", "huopin"), ("paodekuai", "huopin"), ("paodekuai", "classic"), ("guandan", "standard"),
         ("shuangkou", "huopin"))


#: the budget counts CPU time (evaluate(clock=…)): a loaded machine reaches the samples an idle core does
CLOCK = time.process_time


def decisions(record: dict, previous: dict | None = None) -> list[int]:
    """The indexes of the hand's plays and passes that the evaluator takes."""
    from paipu.replay.evaluate import decision_state

    out = []
    for i, a in enumerate(record["actions"]):
        if a["act"] in ("play", "pass"):
            try:
                decision_state(record, i, previous)
            except ValueError:
                continue
            out.append(i)
    return out


def first_hands(game: str, variant: str, n: int, seed: int) -> list[dict]:
    """*n* hands; in Guandan each the first of its match (no previous hand needed to replay it)."""
    import paipu

    if game != "guandan":
        return list(paipu.simulate(game, variant, hands=n, seed=seed))
    return [next(paipu.simulate(game, variant, hands=1, seed=seed, start=k)) for k in range(n)]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def speed(game: str, variant: str, args: argparse.Namespace) -> str:
    import paipu

    times, hand_times, options, dropped, samples, solved = [], [], [], 0, [], 0
    for record in first_hands(game, variant, args.hands, 1):
        start = time.process_time()
        for i in decisions(record):
            t = CLOCK()
            ev = paipu.evaluate(record, i, samples=args.samples, budget_ms=args.budget, clock=CLOCK)
            times.append((CLOCK() - t) * 1000)
            options.append(len(ev.options) + ev.dropped)
            dropped += ev.dropped
            samples.append(ev.samples)
            solved += ev.solved
        hand_times.append(time.process_time() - start)
    total = sum(times) / 1000
    return (f"{game + '/' + variant:20} {len(times):9d} {len(times) / total:6.1f} {statistics.median(times):8.1f} "
            f"{pct(times, 0.9):6.1f} {max(times):7.1f} "
            f"{statistics.median(hand_times):7.2f} {max(hand_times):7.2f} "
            f"{statistics.median(options):7.0f} {dropped:7d} {statistics.median(samples):7.0f} {solved:6d}")


def agreement(game: str, variant: str, args: argparse.Namespace) -> str:
    import paipu

    records = first_hands(game, variant, args.agree_hands, 2)
    points = []
    for r in records:
        for i in decisions(r):
            points.append((r, i))
    step = max(1, len(points) // max(1, 4 * args.agreement))
    ses, clear, agree, seen = [], 0, 0, 0
    start = CLOCK()
    for record, i in points[::step]:
        if seen == args.agreement:
            break
        ev = paipu.evaluate(record, i, samples=args.samples, budget_ms=args.budget, clock=CLOCK)
        if len(ev.options) < 2:
            continue
        seen += 1
        ses += [o.win.se for o in ev.options if o.win.se == o.win.se]
        big = paipu.evaluate(record, i, samples=10 * args.samples, budget_ms=10 * args.budget, seed=1,
                             clock=CLOCK)
        top = sorted(big.options, key=lambda o: -o.win.mean)
        if top[0].win.mean - top[1].win.mean > args.gap / 100:
            clear += 1
            agree += ev.best("win").cards == big.best("win").cards
    share = f"{agree / clear:6.0%}" if clear else f"{'-':>6}"
    return (f"{game + '/' + variant:20} {seen:9d} {100 * statistics.median(ses) if ses else float('nan'):9.1f} "
            f"{clear:5d} {share} {CLOCK() - start:7.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=3)
    ap.add_argument("--samples", type=int, default=64)
    ap.add_argument("--budget", type=float, default=50.0)
    ap.add_argument("--agreement", type=int, default=40, help="decisions to evaluate at 10x (0: skip)")
    ap.add_argument("--agree-hands", type=int, default=200)
    ap.add_argument("--gap", type=float, default=5.0)
    ap.add_argument("--games", default="", help="only these games (comma-separated names)")
    args = ap.parse_args()
    games = [g for g in GAMES if not args.games or g[0] in args.games.split(",")]
    if args.hands:
        print(f"{'game':20} {'decisions':>9} {'per s':>6} {'median':>8} {'p90':>6} {'max ms':>7} "
              f"{'hand s':>7} {'max s':>7} {'options':>7} {'dropped':>7} {'samples':>7} {'solved':>6}", flush=True)
        for game, variant in games:
            print(speed(game, variant, args), flush=True)
    if args.agreement:
        print(f"\n{'game':20} {'decisions':>9} {'SE points':>9} {'clear':>5} {'agree':>6} {'s':>7}", flush=True)
        for game, variant in games:
            print(agreement(game, variant, args), flush=True)


if __name__ == "__main__":
    main()
