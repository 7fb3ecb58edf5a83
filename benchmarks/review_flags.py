"""How sure the review's flags are: each mistake or blunder flagged at the default budget
(64 deals, 50 ms) valued again at 10× (640 deals, 500 ms, another seed), per game.

Prints, per game: the hands and decisions reviewed, the flags, and of the flags the share
whose loss at 10× is still at least a mistake's (``MISTAKE``) and the share flagged at 10×
too, each with its count and a 95% Wilson interval; then, as a check on the other side,
decisions with a loss of at least ``MISTAKE`` left unflagged at the default budget and the
share of them that the 10× run flags.

    python benchmarks/review_flags.py [--hands 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

from _common import base_hands

from paipu.analysis.inference import wilson
from paipu.replay.evaluate import evaluate
from paipu.replay.review import MISTAKE, DecisionReview, review_hand

GAMES = [("doudizhu", None), ("paodekuai", "huopin"), ("paodekuai", "classic"), ("guandan", "standard"),
         ("shuangkou", "huopin")]


def again(record: dict, d: DecisionReview, seed: int) -> DecisionReview:
    """The decision valued at 10× the deals and the budget, with another seed."""
    ev = evaluate(record, d.index, samples=640, budget_ms=500.0, seed=seed + 1)
    return DecisionReview.of(ev, d.kind)


def share(k: int, n: int) -> str:
    if not n:
        return "–"
    lo, hi = wilson(k, n)
    return f"{k}/{n} = {100 * k / n:.0f}% [{100 * lo:.0f}, {100 * hi:.0f}]"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print("| game | hands | decisions | flagged | still ≥ mistake at 10× | flagged at 10× | unflagged ≥ 5 | "
          "flagged at 10× | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for game, variant in GAMES:
        start = time.perf_counter()
        decisions = flagged = kept = reflagged = loose = caught = 0
        hands = base_hands(game, args.hands, seed=args.seed + 1, variant=variant)
        for record in hands:
            review = review_hand(record, seed=args.seed)
            decisions += len(review.decisions)
            for d in review.decisions:
                if d.flag is None and d.loss < MISTAKE:
                    continue
                big = again(record, d, args.seed)
                if d.flag is not None:
                    flagged += 1
                    kept += big.loss >= MISTAKE
                    reflagged += big.flag is not None
                else:
                    loose += 1
                    caught += big.flag is not None
        name = f"{game}/{variant}" if variant else game
        print(f"| {name} | {len(hands)} | {decisions} | {flagged} | {share(kept, flagged)} | {share(reflagged, flagged)} "
              f"| {loose} | {share(caught, loose)} | {time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()
