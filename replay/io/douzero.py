"""Importer of DouZero's Dou Dizhu games (docs/formats.md).

One game per line (or a JSON list): DouZero's deal (``card_play_data``) and the game its
``GameEnv`` played from it::

    {"landlord": [3, 3, 4, …, 17, 20], "landlord_down": […], "landlord_up": […],
     "three_landlord_cards": [5, 14, 30], "card_play_action_seq": [[3, 3], [], …],
     "winner": "landlord"}

Cards are codes 3..14 (3 .. A), 17 the 2, 20 the small and 30 the big joker; no suits.
The landlord's list holds its 20 cards, the three landlord cards among them.  Seats: 0 the
landlord, 1 ``landlord_down`` (plays after it), 2 ``landlord_up``; a move ``[]`` is a pass.
DouZero has no bidding: the landlord is given.  The record's variant is ``douzero``, the
rules of DouZero's engine (docs/rules.md §2.10).  ``winner`` (``landlord`` / ``farmer``)
gives ``result.winner``; ``bomb_num`` (optional) is kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .foreign import (
    DDZ_RANKS, Doc, FormatError, Holdings, ddz_record, documents, given_bidding, hand_id, items_of_documents,
    items_of_file, need, suited_deal, winner_result,
)
from .sources import Item

#: DouZero's card codes as paipu's rank names
RANK_OF = {**{3 + k: DDZ_RANKS[k] for k in range(12)}, 17: "2", 20: "SJ", 30: "BJ"}
CODE_OF = {r: c for c, r in RANK_OF.items()}
POSITIONS = ("landlord", "landlord_down", "landlord_up")
#: the rules DouZero's engine plays by (docs/rules.md §2.10): its games are judged by them
VARIANT = "douzero"


def codes(value: object, field: str) -> list[str]:
    if not isinstance(value, list):
        raise FormatError(field, f"a list of card codes (3..14, 17, 20, 30), got {value!r}")
    out = []
    for k, c in enumerate(value):
        if type(c) is not int or c not in RANK_OF:
            raise FormatError(f"{field}[{k}]", f"a card code 3..14, 17 (the 2), 20 or 30 (the jokers), got {c!r}")
        out.append(RANK_OF[c])
    return out


def game_to_record(obj: object, source: str, doc: Doc) -> dict:
    """One DouZero game as a hand record (raises FormatError)."""
    if not isinstance(obj, dict):
        raise FormatError("(game)", "a JSON object per game")
    by_rank = [codes(need(obj, p, list, p, f"the {p}'s cards"), p) for p in POSITIONS]
    three = codes(need(obj, "three_landlord_cards", list, "three_landlord_cards", "the three landlord cards"),
                  "three_landlord_cards")
    for r in three:
        if r not in by_rank[0]:
            raise FormatError("landlord", f"the landlord's 20 cards, the three landlord cards among them (no {r})")
        by_rank[0].remove(r)
    hands, bottom = suited_deal(by_rank, three)
    leader, actions = given_bidding(0, "given")
    holdings = Holdings(hands)
    holdings.give(0, bottom)
    seq = need(obj, "card_play_action_seq", list, "card_play_action_seq", "the moves, a list of card-code lists")
    for k, move in enumerate(seq):
        seat = k % 3  # (moves alternate landlord, landlord_down, landlord_up: DouZero passes too)
        played = codes(move, f"card_play_action_seq[{k}]")
        if played:
            actions.append({"seat": seat, "act": "play", "cards": holdings.take(seat, played)})
        else:
            actions.append({"seat": seat, "act": "pass"})
    winner = obj.get("winner")
    if winner not in (None, "landlord", "farmer"):
        raise FormatError("winner", f"'landlord' or 'farmer', got {winner!r}")
    extra = {"douzero": {"bomb_num": obj["bomb_num"]}} if "bomb_num" in obj else {}
    return ddz_record(hand_id(obj, source, doc, "douzero"), list(POSITIONS), hands, bottom, leader, actions,
                      winner_result(0, None if winner is None else winner == "landlord"), variant=VARIANT, **extra)


def items_of_douzero_lines(lines: Iterable[tuple[int, bytes]], source: str, strict: bool = True) -> Iterator[Item]:
    return items_of_documents(documents(lines), source, game_to_record, strict)


def iter_douzero(path: str, source: str | None = None, strict: bool = True) -> Iterator[Item]:
    yield from items_of_file(path, source or path, items_of_douzero_lines, strict)
