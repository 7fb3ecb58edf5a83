"""Shuangkou hands played by simulated seats (partners 0+2 and 1+3)."""

from __future__ import annotations

import random
from typing import Any

from ...cards import card_name
from . import PARTNERS, Shuangkou, ShuangkouRules
from ...sim.bots import HEURISTIC
from ...sim.core import Recorder, Seat, play_to_end, seat_names

ROOMS = ({"name": "新手场", "base": 1, "coef": 100, "fee": 10}, {"name": "初级场", "base": 5, "coef": 100, "fee": 20})


def simulate_hand(rng: random.Random, rules: ShuangkouRules, hand_id: str, escape_rate: float = 0.0,
                  seats: list[Seat] | None = None) -> dict[str, Any]:
    """One complete hand played by *seats* (default: the heuristic bot)."""
    deck = list(rules.deck)
    rng.shuffle(deck)
    deal = [sorted(deck[27 * s:27 * (s + 1)]) for s in range(4)]
    lead = rng.choice(deck)
    holders = [s for s in range(4) if lead in deal[s]]
    record: dict[str, Any] = {
        "paipu": 1, "id": hand_id, "game": rules.game, "variant": rules.variant,
        "players": seat_names(rng, seats, 4),
        "deal": [[card_name(c) for c in hand] for hand in deal], "actions": [], "room": dict(rng.choice(ROOMS)),
        "lead_card": card_name(lead),
    }
    if len(holders) > 1:
        record["leader"] = rng.choice(holders)
    policies = [s.policy for s in seats] if seats else [HEURISTIC] * 4
    table = Shuangkou(rules, record)
    assert table.setup() is None
    act = Recorder(rng, table, record, (300, 5000), seats)
    escape_at = rng.randrange(10, 60) if rng.random() < escape_rate else -1
    play_to_end(table, rng, act, policies, play_hints, escape_at)
    outcome = table.outcome()
    record["result"] = {k: outcome[k] for k in ("order", "kou", "scores", "coins") if k in outcome}
    return record


def play_hints(table: Shuangkou, rng: random.Random) -> dict[str, Any]:
    """The advice to the policy of the seat to act (its partner)."""
    return {"partners": PARTNERS[table.turn], "bomb_chance": 0.15}
