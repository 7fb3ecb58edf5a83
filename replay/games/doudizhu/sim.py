"""Dou Dizhu hands played by simulated seats: show, peek, bidding, play, escapes."""

from __future__ import annotations

import random
from typing import Any
from collections.abc import Callable, Sequence

from ...cards import RANK_2, RANK_A, RANK_BIG_JOKER, RANK_SMALL_JOKER, card_name, counts
from . import SHOW_FACTOR_LANDLORD, SHOW_FACTORS_BEFORE, Doudizhu, DoudizhuRules
from ...sim.bots import HEURISTIC
from ...sim.core import Policy, Recorder, Room, Seat, deal as deal_cards, play_to_end, seat_names

#: the landlord's win rate with the default bot in every seat (benchmarks/simulate.py,
#: 2026-11-30: 64.6% [61.5, 67.7])
BOT_LANDLORD_WINS = 0.646
#: a redeal's win for a seat in the evaluator (``paipu.evaluate``, docs/review.md): the hand
#: is dealt again, and in a new hand a seat, not knowing its role yet, is on the winning
#: side with probability (landlord wins + 2 x farmers' wins) / 3 under the bots that play
#: the deals out; its points, zero (the seats' scores sum to zero, and no seat is favoured)
REDEAL_WIN = (BOT_LANDLORD_WINS + 2 * (1 - BOT_LANDLORD_WINS)) / 3

ROOMS: tuple[Room, ...] = (
    {"name": "新手场", "base": 1, "coef": 100, "fee": 10},
    {"name": "初级场", "base": 1, "coef": 1200, "fee": 500},
    {"name": "中级场", "base": 2, "coef": 3000, "fee": 1500},
)


def strength(packed: int) -> float:
    """A rough bidding strength: bombs, jokers, twos and aces."""
    c = counts(packed)
    bombs = sum(1 for r in range(13) if c[r] == 4)
    return 3 * bombs + 2 * c[RANK_BIG_JOKER] + 1.5 * c[RANK_SMALL_JOKER] + c[RANK_2] + 0.5 * c[RANK_A] \
        + (2 if c[RANK_SMALL_JOKER] and c[RANK_BIG_JOKER] else 0)


def simulate_hand(rng: random.Random, rules: DoudizhuRules, hand_id: str, escape_rate: float = 0.0,
                  seats: list[Seat] | None = None) -> dict[str, Any]:
    """One complete hand (bidding included) played by *seats* (default: the heuristic bot)."""
    deal, bottom = deal_cards(rng, rules)
    room = rng.choice(ROOMS).copy()
    record: dict[str, Any] = {
        "paipu": 1, "id": hand_id, "game": rules.game, "variant": rules.variant,
        "players": seat_names(rng, seats, rules.players),
        "deal": [[card_name(c) for c in hand] for hand in deal],
        "bottom": [card_name(c) for c in bottom],
        "actions": [], "room": room,
        "stacks": [rng.choice((300, 2000, 10_000, 50_000, 200_000)) * room["coef"] // 100 for _ in range(rules.players)],
        "leader": rng.randrange(rules.players),
    }
    policies = [s.policy for s in seats] if seats else [HEURISTIC] * rules.players
    table = Doudizhu(rules, record)
    table.setup()
    act = Recorder(rng, table, record, seats=seats)

    power = [strength(table.packed[s]) for s in range(rules.players)]
    for s in range(rules.players):  # 明牌 before bidding: rare, on strong hands
        if power[s] >= 7 and rng.random() < 0.3:
            act({"seat": s, "act": "show", "factor": rng.choice(SHOW_FACTORS_BEFORE)})
    escape_at = rng.randrange(5, 40) if rng.random() < escape_rate else -1
    bid_out(table, rng, act, policies, record["leader"])
    play_to_end(table, rng, act, policies, play_hints, escape_at)
    outcome = table.outcome()
    record["result"] = {k: outcome[k] for k in ("order", "landlord", "multiplier", "spring", "scores", "coins", "redeal") if k in outcome}
    return record


def bid_out(table: Doudizhu, rng: random.Random, act: Callable[..., None], policies: Sequence[Policy],
            leader: int) -> None:
    """The bidding from where *table* stands to its end (the peeks, the calls and grabs as
    the *policies* decide), then the landlord's show; *act(action, options)* records and
    takes each action; *leader*: who bids first (the record's)."""
    rules = table.rules
    power = [strength(table.packed[s]) for s in range(rules.players)]
    while table.phase == "bidding" and not table.over:
        seat = table.turn if table.stage != "before" else (
            table.first_shower if table.first_shower is not None else leader)
        if rng.random() < 0.05 and table.peeks[seat] < rules.peek_limit:
            act({"seat": seat, "act": "peek"})
        if table.stage in ("before", "call"):
            act({"seat": seat, "act": "bid", "call": policies[seat].bid(table, rng, seat, power[seat], "call")}, 2)
        else:
            act({"seat": seat, "act": "grab", "grab": policies[seat].bid(table, rng, seat, power[seat], "grab")}, 2)
    landlord = table.landlord  # None until the bidding names one
    if table.phase == "play" and landlord is not None and strength(table.packed[landlord]) >= 9 and rng.random() < 0.3:
        act({"seat": landlord, "act": "show", "factor": SHOW_FACTOR_LANDLORD})


def play_hints(table: Doudizhu, rng: random.Random) -> dict[str, Any]:
    """The advice to the policy of the seat to act (its partners: the other farmer)."""
    seat = table.turn
    partners = frozenset() if seat == table.landlord else frozenset(
        s for s in range(table.n) if s not in (seat, table.landlord))
    return {"partners": partners}
