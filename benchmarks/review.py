"""The evaluator's speed (``paipu.evaluate``, docs/review.md): decisions evaluated per
second and the median time per decision at the default budget, per game.

    python benchmarks/review.py [--hands 2] [--decisions 20] [--samples 64] [--budget 50] [--agreement [--gap 5]]

Simulates --hands hands of each game (seed 1), then evaluates up to --decisions of their
plays and passes (spread evenly over the hands' decisions), each with --samples deals at
most and a budget of --budget ms (the defaults of ``evaluate``). Prints per game: the
decisions, decisions per second, the median and the largest time per decision, the
median of options and of samples reached, and how many deals were solved exactly. Wall
time, one process: on a loaded machine the figures are slower than the code.

With --agreement each decision is evaluated again at 10x the samples and the budget
(another seed), and the table adds: the decisions whose two best options at 10x differ by
more than --gap points, and the share of those where the best option at the default
budget is the best at 10x (issue 26's target: at least 90%).
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


def decisions(record: dict) -> list[int]:
    """The indexes of the hand's plays and passes that the evaluator takes."""
    from paipu.replay.evaluate import decision_state

    out = []
    for i, a in enumerate(record["actions"]):
        if a["act"] in ("play", "pass"):
            try:
                decision_state(record, i)
            except ValueError:
                continue
            out.append(i)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--decisions", type=int, default=20)
    ap.add_argument("--samples", type=int, default=64)
    ap.add_argument("--budget", type=float, default=50.0)
    ap.add_argument("--agreement", action="store_true")
    ap.add_argument("--gap", type=float, default=5.0)
    args = ap.parse_args()
    import paipu

    print(f"{'game':22} {'decisions':>9} {'per s':>7} {'median ms':>9} {'max ms':>7} {'options':>7} "
          f"{'samples':>7} {'solved':>6}" + (f" {'clear':>5} {'agree':>6}" if args.agreement else ""))
    for game, variant in GAMES:
        records = list(paipu.simulate(game, variant, hands=args.hands, seed=1))
        points = [(r, i) for r in records for i in decisions(r)]
        step = max(1, len(points) // max(1, args.decisions))
        chosen = points[::step][:args.decisions]
        times, options, samples, solved, clear, agree = [], [], [], 0, 0, 0
        for record, i in chosen:
            start = time.perf_counter()
            ev = paipu.evaluate(record, i, samples=args.samples, budget_ms=args.budget)
            times.append((time.perf_counter() - start) * 1000)
            options.append(len(ev.options))
            samples.append(ev.samples)
            solved += ev.solved
            if args.agreement and len(ev.options) > 1:
                big = paipu.evaluate(record, i, samples=10 * args.samples, budget_ms=10 * args.budget, seed=1)
                top = sorted(big.options, key=lambda o: -o.score.mean)
                if top[0].score.mean - top[1].score.mean > args.gap:
                    clear += 1
                    agree += ev.best().cards == big.best().cards
        total = sum(times) / 1000
        line = (f"{game + '/' + variant:22} {len(times):9d} {len(times) / total:7.1f} {statistics.median(times):9.1f} "
                f"{max(times):7.1f} {statistics.median(options):7.0f} {statistics.median(samples):7.0f} {solved:6d}")
        if args.agreement:
            line += f" {clear:5d} " + (f"{agree / clear:6.0%}" if clear else f"{'-':>6}")
        print(line)


if __name__ == "__main__":
    main()
