"""RLCard's rule-based Dou Dizhu agent (``DouDizhuRuleAgentV1``) as a paipu policy: the
anchor the default bot is measured against (``benchmarks/simulate.py``).

The agent sees what RLCard's environment would give it (``raw_obs``): its hand and every
play as rank strings in RLCard's order (``3…A2BR``, B the small joker), the trace of plays
and passes since bidding as ``(seat, "cards" or "pass")``, the legal actions, the
landlord and its own seat. RLCard has no bidding: bids are the default bot's, so every
pairing of policies on a deal has the same landlord. The agent's one random choice uses
NumPy's global generator, seeded from the hand's own random stream for reproducibility.

Needs the ``rlcard`` package (the test extra).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from ..cards import CARD_OF, RANK, pack
from .planner import FAST

ORDER = "3456789TJQKA2BR"


def rank_string(packed: int) -> str:
    """Packed rank counts as RLCard writes a play: ``'3334'``, ``'BR'``."""
    return "".join(ORDER[r] * ((packed >> (5 * r)) & 31) for r in range(15))


def packed_of(text: str) -> int:
    return sum(1 << (5 * ORDER.index(ch)) for ch in text)


def trace_of(actions: list[dict]) -> list[tuple[int, str]]:
    """The plays and passes so far (the hand's *actions*) as RLCard's trace."""
    out = []
    for a in actions:
        if a["act"] == "play":
            out.append((a["seat"], rank_string(sum(1 << (5 * RANK[CARD_OF[t]]) for t in a["cards"]))))
        elif a["act"] == "pass":
            out.append((a["seat"], "pass"))
    return out


@dataclass
class RLCardRule:
    """``DouDizhuRuleAgentV1`` choosing paipu's Dou Dizhu plays; bids as the default bot."""

    agent: Any = field(default=None)

    def __post_init__(self) -> None:
        if self.agent is None:
            from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1

            self.agent = DouDizhuRuleAgentV1()

    def bid(self, table: Any, rng: random.Random, seat: int, power: float, stage: str) -> bool:
        return FAST.bid(table, rng, seat, power, stage)

    def play(self, table: Any, rng: random.Random, moves: Any, hints: dict[str, Any]) -> list[int] | None:
        import numpy as np

        seat = table.turn
        legal: dict[str, list[int]] = {}
        if table.last is not None:  # the agent reads the legal actions only when following
            legal = {rank_string(pack(ids)): ids for ids, _ in moves}
        obs = {"trace": trace_of(hints["actions"]), "current_hand": rank_string(table.packed[seat]),
               "actions": list(legal) + (["pass"] if table.last is not None else []),
               "landlord": table.landlord, "self": seat}
        np.random.seed(rng.randrange(2 ** 32))
        action = self.agent.step({"raw_obs": obs})
        if action == "pass" and table.last is not None:
            return None
        if action in legal:
            return legal[action]
        if table.last is None and action:
            packed = packed_of(action)
            if table.combos.readings.get(packed):
                return table.cards_for(seat, packed)
        # the agent found nothing it can play (it has no reading for this lead): the lowest legal play
        return min(moves, key=lambda m: (m[1][0].tier, m[1][0].key, -len(m[0])))[0] if table.last is None else None


@dataclass(frozen=True)
class ByRole:
    """One policy for the landlord, another for the farmers (bids: the default bot's)."""

    landlord: Any
    farmers: Any

    def bid(self, table: Any, rng: random.Random, seat: int, power: float, stage: str) -> bool:
        return FAST.bid(table, rng, seat, power, stage)

    def play(self, table: Any, rng: random.Random, moves: Any, hints: dict[str, Any]) -> list[int] | None:
        who = self.landlord if table.turn == table.landlord else self.farmers
        return who.play(table, rng, moves, hints)
