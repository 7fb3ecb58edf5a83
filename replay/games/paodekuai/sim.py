"""Paodekuai hands played by simulated seats (must-play and 报单 respected)."""

from __future__ import annotations

import random
from typing import Any

from ...cards import card_name
from . import Paodekuai, PaodekuaiRules
from ...sim.bots import HEURISTIC
from ...sim.core import Recorder, Room, Seat, deal as deal_cards, play_to_end, seat_names

ROOMS: tuple[Room, ...] = (
    {"name": "新手场", "base": 1, "coef": 100, "fee": 10},
    {"name": "初级场", "base": 1, "coef": 300, "fee": 50},
    {"name": "中级场", "base": 1, "coef": 1000, "fee": 200},
)


def simulate_hand(rng: random.Random, rules: PaodekuaiRules, hand_id: str, escape_rate: float = 0.0,
                  seats: list[Seat] | None = None) -> dict[str, Any]:
    """One complete hand played by *seats* (default: the heuristic bot)."""
    deal, _ = deal_cards(rng, rules)
    room = rng.choice(ROOMS).copy()
    record: dict[str, Any] = {
        "paipu": 1, "id": hand_id, "game": rules.game, "variant": rules.variant,
        "players": seat_names(rng, seats, rules.players),
        "deal": [[card_name(c) for c in hand] for hand in deal],
        "actions": [], "room": room,
        "stacks": [rng.choice((300, 2000, 10_000, 50_000)) * room["coef"] // 10 for _ in range(rules.players)],
    }
    policies = [s.policy for s in seats] if seats else [HEURISTIC] * rules.players
    table = Paodekuai(rules, record)
    table.setup()
    act = Recorder(rng, table, record, seats=seats)
    escape_at = rng.randrange(3, 30) if rng.random() < escape_rate else -1
    play_to_end(table, rng, act, policies, play_hints, escape_at)
    outcome = table.outcome()
    record["result"] = {k: outcome[k] for k in ("order", "scores", "coins") if k in outcome}
    return record


def play_hints(table: Paodekuai, rng: random.Random) -> dict[str, Any]:
    """The advice to the policy of the seat to act: 有出必出 and 报单."""
    rules = table.rules
    nxt = table.next_active(table.turn)
    # 报单: the highest single; under 放走包赔 nine times in ten (some let-goes for the data)
    return {"must_play": rules.must_play,
            "high_single": table.left[nxt] == 1 and (not rules.let_go or rng.random() < 0.9)}
