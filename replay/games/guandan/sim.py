"""Guandan matches played by simulated seats: tribute and return, play, levels carried on."""

from __future__ import annotations

import random
from typing import Any
from collections.abc import Callable, Iterator

from ...cards import RANK, RANK_2, card_name
from . import (
    BIG_JOKER, PARTNERS, TEAM, GuandanHand, GuandanRules, level_name, parse_level, tribute_seats, value,
)
from ...sim.bots import HEURISTIC
from ...sim.core import Recorder, Seat, play_to_end, seat_names

ROOMS = ({"name": "新手场", "base": 1, "coef": 100, "fee": 10}, {"name": "初级场", "base": 1, "coef": 500, "fee": 50})


def simulate_hand(rng: random.Random, rules: GuandanRules, hand_id: str, escape_rate: float = 0.0,
                  state: dict[str, Any] | None = None, seats: list[Seat] | None = None) -> dict[str, Any]:
    """One hand of a match played by *seats* (default: the heuristic bot); *state* carries
    the match along (levels, the previous finishing order, players, match id, seats)."""
    state = state if state is not None else {}
    # the deal first: hand k gets the same cards whether or not a match starts with it (a
    # match won earlier under one rule setting than another)
    deck = list(rules.deck)
    rng.shuffle(deck)
    deal = [sorted(deck[27 * s:27 * (s + 1)]) for s in range(4)]
    if not state:
        state.update(levels=[RANK_2, RANK_2], order=None, players=seat_names(rng, seats, 4), match=hand_id,
                     number=0, room=dict(rng.choice(ROOMS)), seats=seats)
    seats = state["seats"]
    state["number"] += 1
    prev = state["order"]
    level = state["levels"][TEAM[prev[0]]] if prev else RANK_2
    record: dict[str, Any] = {
        "paipu": 1, "id": hand_id, "game": rules.game, "variant": rules.variant, "players": list(state["players"]),
        "deal": [[card_name(c) for c in hand] for hand in deal], "actions": [], "room": state["room"],
        "match": {"id": state["match"], "hand": state["number"]},
        "levels": [level_name(x) for x in state["levels"]], "level": level_name(level),
    }
    if not prev or not rules.tribute:
        record["leader"] = prev[0] if prev else rng.randrange(4)
    policies = [s.policy for s in seats] if seats else [HEURISTIC] * 4
    table = GuandanHand(rules, record)
    table.previous = state.get("outcome")
    v = table.setup()
    assert v is None, v
    actions = record["actions"]
    act = Recorder(rng, table, record, (300, 5000), seats)

    if prev and rules.tribute:
        # the losers pay: both after 双下 (the previous order lists the winners only), else
        # the lowest-placed seat of the losing team
        givers, receivers = tribute_seats(prev)
        if sum(table.hands[g][BIG_JOKER] for g in givers) >= 2:
            act({"seat": givers[0], "act": "resist"})
        else:
            # the larger tribute to the first place (equal ones: the lower seat's)
            gifts = sorted(((tribute_card(table, g), g) for g in givers), key=lambda x: -value(RANK[x[0]], level))
            pairs = [(g, r, c) for (c, g), r in zip(gifts, receivers)]
            for g, r, c in pairs:
                act({"seat": g, "act": "tribute", "card": card_name(c), "to": r})
            for g, r, _ in pairs:
                act({"seat": r, "act": "return", "card": card_name(return_card(table, r)), "to": g})
    if table.turn < 0:
        table.turn = record.get("leader", 0)
    table.start_play(len(actions), table.turn)
    escape_at = rng.randrange(10, 80) if rng.random() < escape_rate else -1
    play_to_end(table, rng, act, policies, play_hints, escape_at)
    outcome = table.outcome()
    record["result"] = {k: outcome[k] for k in ("order", "levels", "upgrade", "scores", "coins") if k in outcome}
    if table.end_reason == "escape" or outcome.get("match_over"):
        state.clear()  # a match ends with an escape, or won at level A (过A)
    else:
        state["levels"] = [parse_level(x) for x in outcome["levels"]]
        state["order"] = outcome["order"]
        state["outcome"] = outcome
    return record


def tribute_card(table: GuandanHand, seat: int) -> int:
    """The tribute the bots pay: the highest card (never the wild heart), of the lowest id."""
    return min(table.handing_options(seat, "tribute"))


def return_card(table: GuandanHand, seat: int) -> int:
    """The card the bots return: by :func:`return_order`."""
    return min(table.handing_options(seat, "return"), key=lambda c: return_order(table.hands[seat], c, table.level))


def return_order(hand: bytearray, card: int, level: int) -> tuple[int, int, int]:
    """How readily a card is given back: a lone card before one that breaks a pair or more,
    then the lowest."""
    held = sum(hand[c] for c in range(54) if RANK[c] == RANK[card])
    return (held > 1, value(RANK[card], level), card)


def simulate_match_hands(rng_for: Callable[[int], random.Random], rules: GuandanRules, prefix: str, hands: int,
                         escape_rate: float = 0.0,
                         seats_for: Callable[[int], list[Seat] | None] | None = None,
                         start: int = 0) -> Iterator[dict[str, Any]]:
    """Hands *start*.. of consecutive matches (a match goes on until it is won, an escape or
    12 hands; the first starts at *start*); a new match is seated by ``seats_for(k)`` (k:
    the hand's number in the run)."""
    state: dict[str, Any] = {}
    for k in range(start, start + hands):
        if state and state["number"] >= 12:
            state = {}
        seats = seats_for(k) if seats_for is not None and not state else None
        yield simulate_hand(rng_for(k), rules, f"{prefix}-{k:06d}", escape_rate, state, seats)


def play_hints(table: GuandanHand, rng: random.Random) -> dict[str, Any]:
    """The advice to the policy of the seat to act (its partner; keep the top cards longer)."""
    return {"partners": PARTNERS[table.turn], "strong": 13, "bomb_chance": 0.15}
