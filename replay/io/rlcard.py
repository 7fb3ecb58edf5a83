"""Importers of RLCard's Dou Dizhu games and of RLCard-Showdown's replays (docs/formats.md).

``rlcard``: one game per line (or a JSON list), what RLCard's game holds when it ends::

    {"id": "g1", "landlord": 0, "initial_hands": ["33456…", "…", "…"], "seen_cards": "9TK",
     "trace": [[0, "8222"], [1, "pass"], …], "payoffs": [1, 0, 0]}

``initial_hands`` are each player's ``initial_hand`` (the landlord's 20 cards, with the three
``seen_cards``), ranks ``3…9TJQKA2`` and ``B`` / ``R`` for the black and red joker, no suits;
instead of them, ``hands`` may give RLCard's suited cards (``Card.get_index()``: ``S3``,
``HT``, ``BJ``, ``RJ``), and ``seen_cards`` then the three suited cards (the dealer's
``deck[-3:]``).  Players are seats in turn order; RLCard's dealer makes player 0 the
landlord (``landlord`` says which).  ``payoffs`` (1 for the winners) give ``result.winner``;
``winner_id`` (optional) ``result.order``.

``rlcard-showdown``: RLCard-Showdown's replay JSON, one per line or one per file::

    {"playerInfo": [{"id": 0, "index": 0, "role": "landlord"}, …],
     "initHands": ["S3 H3 …", …], "moveHistory": [{"playerIdx": 0, "move": "33",
     "info": {"probs": {…}}}, …]}

The landlord's ``initHands`` hold its 20 cards; the three bottom cards are
``threeLandlordCards`` when given, else the landlord's last three (the replay does not say).
Each move's ``info`` (probs or values) stays on its action.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .foreign import (
    DDZ_RANKS, CannotHold, Doc, FormatError, Holdings, ddz_record, documents, given_bidding, hand_id, items_of_documents,
    items_of_file, landlord_of, need, seat_of, suited_deal, winner_result,
)
from .sources import Item

#: RLCard's rank characters as paipu's rank names
RANK_OF = {**{r: r for r in DDZ_RANKS[:13]}, "B": "SJ", "R": "BJ"}
#: RLCard's suited cards: suit letter + rank, the jokers BJ (black) and RJ (red)
_SUIT = {"S": "s", "H": "h", "D": "d", "C": "c"}


def ranks(text: object, field: str) -> list[str]:
    """``'8222'`` -> ``['8', '2', '2', '2']``, ``'BR'`` -> ``['SJ', 'BJ']``."""
    if not isinstance(text, str):
        raise FormatError(field, f"a string of ranks like '8222' (3..9 T J Q K A 2 B R), got {text!r}")
    out = []
    for k, ch in enumerate(text):
        if ch not in RANK_OF:
            raise FormatError(field, f"ranks 3..9 T J Q K A 2 B R, got {ch!r} at {k} in {text!r}")
        out.append(RANK_OF[ch])
    return out


def suited(token: object, field: str) -> str:
    """RLCard's ``S3`` / ``HT`` / ``BJ`` / ``RJ`` (Showdown's too) -> ``3s`` / ``Th`` / ``SJ`` / ``BJ``."""
    if token == "BJ":
        return "SJ"
    if token == "RJ":
        return "BJ"
    if isinstance(token, str) and len(token) == 2 and token[0] in _SUIT and token[1] in DDZ_RANKS[:13]:
        return token[1] + _SUIT[token[0]]
    raise FormatError(field, f"a card like 'S3', 'HT', 'BJ' or 'RJ', got {token!r}")


def rlcard_card(token: str) -> str:
    """The inverse of :func:`suited`."""
    if token == "SJ":
        return "BJ"
    if token == "BJ":
        return "RJ"
    return token[1].upper() + token[0]


def _remove(cards: list[str], taken: list[str], field: str) -> list[str]:
    rest = list(cards)
    for c in taken:
        if c not in rest:
            raise FormatError(field, f"the landlord's cards to hold the seen card {c}")
        rest.remove(c)
    return rest


def game_to_record(obj: object, source: str, doc: Doc) -> dict:
    """One RLCard game as a hand record (raises FormatError)."""
    if not isinstance(obj, dict):
        raise FormatError("(game)", "a JSON object per game")
    landlord = seat_of(obj.get("landlord", 0), "landlord")
    seen_given = need(obj, "seen_cards", (str, list), "seen_cards", "the three seen cards, e.g. '9TK' or ['S9', 'HT', 'DK']")
    if isinstance(seen_given, list):
        seen_suited = [suited(t, f"seen_cards[{k}]") for k, t in enumerate(seen_given)]
        seen = [c if c in ("SJ", "BJ") else c[:-1] for c in seen_suited]
    else:
        seen = ranks(seen_given, "seen_cards")
    if len(seen) != 3:
        raise FormatError("seen_cards", f"the three seen cards, got {len(seen)}")
    if "hands" in obj:
        given = need(obj, "hands", list, "hands", "the three players' suited cards")
        if len(given) != 3 or not all(isinstance(h, list) for h in given):
            raise FormatError("hands", "the three players' suited cards")
        hands = [[suited(t, f"hands[{s}][{k}]") for k, t in enumerate(h)] for s, h in enumerate(given)]
        if isinstance(seen_given, list):
            bottom = seen_suited
            hands[landlord] = _remove(hands[landlord], bottom, f"hands[{landlord}]")
        else:
            bottom = []
            for r in seen:  # the landlord's cards of the seen ranks, by the suit rule
                bottom += Holdings([hands[landlord]]).take(0, [r])
                hands[landlord].remove(bottom[-1])
    else:
        if isinstance(seen_given, list):
            raise FormatError("seen_cards", "ranks as a string, e.g. '9TK', with initial_hands (suited cards go with hands)")
        given = need(obj, "initial_hands", list, "initial_hands", "the three players' initial_hand strings")
        if len(given) != 3:
            raise FormatError("initial_hands", "the three players' initial_hand strings")
        by_rank = [ranks(h, f"initial_hands[{s}]") for s, h in enumerate(given)]
        by_rank[landlord] = _remove(by_rank[landlord], seen, f"initial_hands[{landlord}]")
        hands, bottom = suited_deal(by_rank, seen)
    leader, actions = given_bidding(landlord, "dealer")
    holdings = Holdings(hands)
    holdings.give(landlord, bottom)
    trace = need(obj, "trace", list, "trace", "the moves, [[player, action], ...]")
    for k, move in enumerate(trace):
        if not isinstance(move, list) or len(move) != 2:
            raise FormatError(f"trace[{k}]", f"[player, action], got {move!r}")
        seat = seat_of(move[0], f"trace[{k}][0]")
        if move[1] == "pass":
            actions.append({"seat": seat, "act": "pass"})
        else:
            actions.append({"seat": seat, "act": "play", "cards": holdings.take(seat, ranks(move[1], f"trace[{k}][1]"))})
    payoffs = obj.get("payoffs")
    won = None
    if payoffs is not None:
        if not isinstance(payoffs, list) or len(payoffs) != 3 or not all(isinstance(p, (int, float)) for p in payoffs):
            raise FormatError("payoffs", f"the three players' payoffs, got {payoffs!r}")
        won = payoffs[landlord] > 0
    first_out = obj.get("winner_id")
    if first_out is not None:
        first_out = seat_of(first_out, "winner_id")
    players: list[str] = obj["players"] if isinstance(obj.get("players"), list) else [f"player {s}" for s in range(3)]
    extra: dict = {"rlcard": {"payoffs": payoffs}} if payoffs is not None else {}
    return ddz_record(hand_id(obj, source, doc, "rlcard"), players, hands, bottom, leader, actions,
                      winner_result(landlord, won, first_out), **extra)


def replay_to_record(obj: object, source: str, doc: Doc) -> dict:
    """One RLCard-Showdown replay as a hand record (raises FormatError)."""
    if not isinstance(obj, dict):
        raise FormatError("(replay)", "a JSON object per replay")
    info = need(obj, "playerInfo", list, "playerInfo", "the three players, [{index, role}, ...]")
    landlord = None
    players = [f"player {s}" for s in range(3)]
    for k, p in enumerate(info):
        if not isinstance(p, dict):
            raise FormatError(f"playerInfo[{k}]", "{index, role}")
        seat = seat_of(p.get("index", p.get("id", k)), f"playerInfo[{k}].index")
        if p.get("role") == "landlord":
            landlord = seat
        agent = p.get("agentInfo")
        if isinstance(agent, dict) and isinstance(agent.get("name"), str):
            players[seat] = agent["name"]
    if landlord is None:
        raise FormatError("playerInfo", 'one player with "role": "landlord"')
    texts = need(obj, "initHands", list, "initHands", 'the three hands, e.g. ["S3 H3 ...", ...]')
    if len(texts) != 3 or not all(isinstance(t, str) for t in texts):
        raise FormatError("initHands", 'the three hands as strings, e.g. ["S3 H3 ...", ...]')
    hands = [[suited(t, f"initHands[{s}][{k}]") for k, t in enumerate(h.split())] for s, h in enumerate(texts)]
    if "threeLandlordCards" in obj:
        tokens = obj["threeLandlordCards"]
        tokens = tokens.split() if isinstance(tokens, str) else tokens
        if not isinstance(tokens, list):
            raise FormatError("threeLandlordCards", 'the three bottom cards, e.g. "S3 H3 BJ"')
        bottom = [suited(t, f"threeLandlordCards[{k}]") for k, t in enumerate(tokens)]
        for c in bottom:
            if c not in hands[landlord]:
                raise FormatError("threeLandlordCards", f"cards of the landlord's initHands, not {c}")
            hands[landlord].remove(c)
        extra: dict = {}
    else:
        hands[landlord], bottom = hands[landlord][:-3], hands[landlord][-3:]
        extra = {"showdown": {"bottom": "assumed: the landlord's last three initHands"}}
    leader, actions = given_bidding(landlord, "showdown")
    holdings = Holdings(hands)
    holdings.give(landlord, bottom)
    moves = need(obj, "moveHistory", list, "moveHistory", "the moves, [{playerIdx, move}, ...]")
    for k, m in enumerate(moves):
        if not isinstance(m, dict):
            raise FormatError(f"moveHistory[{k}]", "{playerIdx, move}")
        seat = seat_of(m.get("playerIdx"), f"moveHistory[{k}].playerIdx")
        move = m.get("move")
        if move in ("pass", ""):
            action: dict = {"seat": seat, "act": "pass"}
        else:
            action = {"seat": seat, "act": "play", "cards": holdings.take(seat, ranks(move, f"moveHistory[{k}].move"))}
        if "info" in m:
            action["info"] = m["info"]
        actions.append(action)
    return ddz_record(hand_id(obj, source, doc, "showdown"), players, hands, bottom, leader, actions,
                      {"landlord": landlord}, **extra)


def items_of_rlcard_lines(lines: Iterable[tuple[int, bytes]], source: str, strict: bool = True) -> Iterator[Item]:
    return items_of_documents(documents(lines), source, game_to_record, strict)


def items_of_showdown_lines(lines: Iterable[tuple[int, bytes]], source: str, strict: bool = True) -> Iterator[Item]:
    return items_of_documents(documents(lines), source, replay_to_record, strict)


def iter_rlcard(path: str, source: str | None = None, strict: bool = True) -> Iterator[Item]:
    yield from items_of_file(path, source or path, items_of_rlcard_lines, strict)


def iter_showdown(path: str, source: str | None = None, strict: bool = True) -> Iterator[Item]:
    yield from items_of_file(path, source or path, items_of_showdown_lines, strict)


def record_to_showdown(record: dict) -> dict:
    """A Dou Dizhu record as an RLCard-Showdown replay (the inverse of the importer for the
    records it makes: the bottom is kept as ``threeLandlordCards``, the id as ``id``; 叫/抢
    bidding is lost, the landlord stays)."""
    if record.get("game") != "doudizhu":
        raise CannotHold(f"RLCard-Showdown holds Dou Dizhu hands only, not {record.get('game')!r}")
    landlord = landlord_of(record)
    if landlord is None:
        raise CannotHold("RLCard-Showdown holds played hands only (this one was redealt)")
    hands = [list(h) for h in record["deal"]]
    hands[landlord] += record["bottom"]
    moves = []
    for a in record["actions"]:
        if a["act"] not in ("play", "pass"):
            continue
        ranks_ = "".join({"SJ": "B", "BJ": "R"}.get(c, c[:-1]) for c in a.get("cards", ()))
        move: dict = {"playerIdx": a["seat"], "move": ranks_ if a["act"] == "play" else "pass"}
        if "info" in a:
            move["info"] = a["info"]
        moves.append(move)
    names = record["players"]
    return {"id": record["id"],
            "playerInfo": [{"id": s, "index": s, "role": "landlord" if s == landlord else "peasant",
                            "agentInfo": {"name": names[s]}} for s in range(3)],
            "initHands": [" ".join(rlcard_card(c) for c in h) for h in hands],
            "threeLandlordCards": " ".join(rlcard_card(c) for c in record["bottom"]),
            "moveHistory": moves}
