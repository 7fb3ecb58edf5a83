"""The evaluator's speed (``paipu.evaluate``, docs/review.md): decisions evaluated per
second and the median time per decision at the default budget, per game.

    python benchmarks/review.py [--hands 2] [--decisions 20] [--samples 64] [--budget 50] [--agreement [--gap 5]]
    python benchmarks/review.py --separation [--hands 300] [--game doudizhu] [--samples 16] [--budget 20] [--workers 2]

Simulates --hands hands of each game (seed 1), then evaluates up to --decisions of their
plays and passes (spread evenly over the hands' decisions), each with --samples deals at
most and a budget of --budget ms (the defaults of ``evaluate``). Prints per game: the
decisions, decisions per second, the median and the largest time per decision, the
median of options and of samples reached, and how many deals were solved exactly. Wall
time, one process: on a loaded machine the figures are slower than the code.

With --separation (``--hands 300 --game doudizhu``): populations of players at known levels
(random legal moves, ``simple``, ``fast``, and ``search`` when that bot exists), each one
player sitting at every seat in turn against ``fast`` bots on the same deals, reviewed
with ``paipu.review_hand`` (its seat only; --samples, --budget): each level's match rate
(95% Wilson) and mean loss (95% t, clustered by hand: analysis/rating.py), and whether
the levels come in order with intervals apart (issue 26's target at 300 hands).

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
    ap.add_argument("--separation", action="store_true")
    ap.add_argument("--game", default="doudizhu")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    if args.separation:
        separation(args.game, args.hands, args.samples, args.budget or None, args.workers)
        return
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


# ---------------------------------------------------------------------------- separation


class RandomLegal:
    """A player at the lowest level: a legal play or the pass (when legal) at random, bids at random."""

    def play(self, table, rng, moves, hints):
        from paipu.replay.evaluate import pass_legal

        options = [ids for ids, _ in moves] + ([None] if pass_legal(table) else [])
        return rng.choice(options)

    def bid(self, table, rng, seat, power, stage):
        return rng.random() < 0.5


def levels() -> list[tuple[str, object]]:
    """The levels measured, weakest first (``search`` only where the bot exists)."""
    from paipu.replay.sim.bots import BOTS

    out: list[tuple[str, object]] = [("random", RandomLegal()), ("simple", BOTS["simple"]), ("fast", BOTS["fast"])]
    if "search" in BOTS:
        out.append(("search", BOTS["search"]))
    else:
        print("search: skipped (no search bot in this checkout: paipu simulate --bot lists none)")
    return out


def population(game: str, level: str, policy, hands: int, seed: int = 1) -> list[dict]:
    """*hands* hands in which the player *level* sits at seat k % n of hand k, ``fast`` elsewhere."""
    import paipu
    from paipu.replay.games import find_rules
    from paipu.replay.sim import Seat
    from paipu.replay.sim.bots import BOTS

    n = find_rules(game).players

    def seats_for(k: int):
        return [Seat(level, policy) if s == k % n else Seat(f"fast-{s}", BOTS["fast"]) for s in range(n)]

    return list(paipu.simulate(game, hands=hands, seed=seed, seats_for=seats_for))


def _review_seat(job: tuple) -> tuple[int, int, float, int, int, float]:
    """(decisions, matches, summed loss, mistakes, blunders, seconds) of one hand's seat."""
    import paipu

    record, seat, samples, budget = job
    start = time.perf_counter()
    review = paipu.review_hand(record, seats=[seat], samples=samples, budget_ms=budget, seed=0)
    ds = review.decisions
    return (len(ds), sum(d.chosen == d.best or d.loss <= 0 for d in ds), sum(d.loss for d in ds),
            sum(d.flag == "mistake" for d in ds), sum(d.flag == "blunder" for d in ds), time.perf_counter() - start)


def separation(game: str, hands: int, samples: int, budget: float | None, workers: int) -> None:
    from paipu.analysis.inference import wilson
    from paipu.analysis.rating import loss_interval
    from paipu.replay.games import find_rules

    n = find_rules(game).players
    measured = levels()
    print(f"separation: {game}, {hands} hands per level (the level's player at each seat in turn, fast bots "
          f"elsewhere, the same deals), its decisions reviewed at {samples} samples, budget "
          f"{'none' if budget is None else f'{budget:g} ms'}; {workers} worker(s)")
    print(f"{'level':8} {'hands':>5} {'decisions':>9} {'match %':>7} {'95% interval':>14} {'mean loss':>9} "
          f"{'95% interval':>14} {'mistake %':>9} {'blunder %':>9} {'s':>6}")
    rows = []
    for level, policy in measured:
        records = population(game, level, policy, hands)
        from paipu.replay.distributed import run_parts

        # (paipu's pool: its workers die with this process, however it ends)
        per_hand = run_parts(_review_seat, [((r, k % n, samples, budget),) for k, r in enumerate(records)],
                             workers=workers)
        d = sum(x[0] for x in per_hand)
        m = sum(x[1] for x in per_hand)
        counted = [(x[0], x[2]) for x in per_hand if x[0]]
        mean, llo, lhi = loss_interval([k for k, _ in counted], [x for _, x in counted])
        mlo, mhi = wilson(m, d)
        mistakes, blunders = sum(x[3] for x in per_hand), sum(x[4] for x in per_hand)
        rows.append((level, m / d, mlo, mhi, mean, llo, lhi))
        print(f"{level:8} {len(records):5d} {d:9,d} {100 * m / d:7.1f} {f'{100 * mlo:.1f}-{100 * mhi:.1f}':>14} "
              f"{mean:9.2f} {f'{llo:.2f}-{lhi:.2f}':>14} {100 * mistakes / d:9.1f} {100 * blunders / d:9.1f} "
              f"{sum(x[5] for x in per_hand):6.0f}", flush=True)
    for name, value, lo, hi, better in (("match rate", 1, 2, 3, 1), ("mean loss", 4, 5, 6, -1)):
        ordered = all(better * (b[value] - a[value]) > 0 for a, b in zip(rows, rows[1:]))
        apart = all((b[lo] > a[hi]) if better > 0 else (b[hi] < a[lo]) for a, b in zip(rows, rows[1:]))
        print(f"{name}: levels {'in order' if ordered else 'NOT in order'}, "
              f"95% intervals {'apart' if apart else 'overlapping'} between neighbours")


if __name__ == "__main__":
    main()
