"""``paipu simulate``: complete hands played by the heuristic bot, reproducible by seed."""

from __future__ import annotations

import random
from collections.abc import Iterator

from .games import find_engine, find_rules


def simulate(game: str, variant: str | None = None, hands: int = 100, seed: int = 0,
             escape_rate: float = 0.0, params: dict | None = None, prefix: str | None = None) -> Iterator[dict]:
    """*hands* simulated records of *game*/*variant*; the same seed gives the same hands."""
    rules = find_rules(game, variant).with_params(params)
    engine = find_engine(rules.game)
    if not hasattr(engine, "simulate_hand"):
        raise ValueError(f"simulation of {rules.game} is not implemented yet")
    prefix = prefix or f"{rules.game}-{rules.variant}-s{seed}"
    if hasattr(engine, "simulate_match_hands"):  # whole matches: hands follow from each other
        for record in engine.simulate_match_hands(lambda k: random.Random(f"{seed}:{k}"), rules, prefix, hands,
                                                  escape_rate):
            if params:
                record["params"] = params
            yield record
        return
    for k in range(hands):
        rng = random.Random(f"{seed}:{k}")
        record = engine.simulate_hand(rng, rules, f"{prefix}-{k:06d}", escape_rate=escape_rate)
        if params:
            record["params"] = params
        yield record
