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


# ---------------------------------------------------------------- helpers the games' bots share

#: player names the simulated tables draw from (Chinese and Latin, to exercise both)
NAMES = ("张三", "李四", "王五", "赵六", "钱七", "孙八", "周九", "吴十", "Alice", "Bob", "小红", "老王")


def deal(rng: random.Random, rules) -> tuple[list[list[int]], list[int]]:
    """A shuffled deal in the variant's hand sizes (sorted hands) and what is left over."""
    deck = list(rules.deck)
    rng.shuffle(deck)
    hands, k = [], 0
    for size in rules.hand_sizes():
        hands.append(sorted(deck[k:k + size]))
        k += size
    return hands, sorted(deck[k:])


class Recorder:
    """Appends a bot's actions to a record, with times, and replays each one on the table:
    a simulated hand that breaks a rule is a bug in the bot or the engine."""

    def __init__(self, rng: random.Random, table, record: dict, gap: tuple[int, int] = (300, 6000)):
        self.rng, self.table, self.record, self.gap = rng, table, record, gap
        self.clock = 0

    def __call__(self, action: dict) -> None:
        self.clock += self.rng.randint(*self.gap)
        action["t"] = self.clock
        actions = self.record["actions"]
        actions.append(action)
        v = self.table.step(len(actions) - 1, action)
        assert v is None, (v, action, self.record["id"])

    def __len__(self) -> int:
        return len(self.record["actions"])
