"""``paipu simulate``: complete hands played by simulated seats, reproducible by seed.

Simulation lives apart from the rules: a driver per game (the ``sim`` module of its
package, ``replay.games.<game>.sim``) plays hands over the engine's legal moves; bots are
policies (:mod:`replay.sim.bots`); who sits where, with which policy and clock, is a list
of :class:`~replay.sim.core.Seat`.

>>> [r["id"] for r in simulate("ddz", hands=2, seed=1)]
['doudizhu-huopin-s1-000000', 'doudizhu-huopin-s1-000001']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from ..games import find_game, find_rules
from .core import NAMES, Clock, Policy, Recorder, Seat, UniformClock, deal

__all__ = ["simulate", "BLOCK", "driver", "NAMES", "Clock", "Policy", "Recorder", "Seat", "UniformClock", "deal"]


def driver(game: str):
    """The simulation driver module of *game* (registry name): it has ``simulate_hand``."""
    module = find_game(game).part("sim")
    if module is None:
        raise ValueError(f"simulation of {game} is not implemented yet")
    return module


#: hands simulated together: a worker's share, and (games played in matches) where a new
#: match starts whatever happened before, so that any number of workers gives the same hands
BLOCK = 120


def simulate(game: str, variant: str | None = None, hands: int = 100, seed: int = 0,
             escape_rate: float = 0.0, params: dict | None = None, prefix: str | None = None,
             seats_for: Callable[[int], list[Seat] | None] | None = None, start: int = 0) -> Iterator[dict]:
    """*hands* simulated records of *game*/*variant* (hands number *start* on); the same
    seed gives the same hands, and hand k is dealt the same cards whatever the *params*.

    *seats_for(k)*: who plays hand k (for games played in matches: the match that starts
    at hand k); None, or a None answer, seats the heuristic bot under sampled names.
    """
    rules = find_rules(game, variant).with_params(params)
    engine = driver(rules.game)
    prefix = prefix or f"{rules.game}-{rules.variant}-s{seed}"
    end = start + hands
    if hasattr(engine, "simulate_match_hands"):  # whole matches: hands follow from each other
        k = start
        while k < end:
            block_end = min(end, (k // BLOCK + 1) * BLOCK)
            for record in engine.simulate_match_hands(lambda k: random.Random(f"{seed}:{k}"), rules, prefix,
                                                      block_end - k, escape_rate, seats_for, start=k):
                if params:
                    record["params"] = params
                yield record
            k = block_end
        return
    for k in range(start, end):
        rng = random.Random(f"{seed}:{k}")
        seats = seats_for(k) if seats_for is not None else None
        record = engine.simulate_hand(rng, rules, f"{prefix}-{k:06d}", escape_rate=escape_rate, seats=seats)
        if params:
            record["params"] = params
        yield record
