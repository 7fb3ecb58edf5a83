"""Importer for the Guandan AI competition platform's logs (DanZero, OpenGuanDan speak it).

One JSON object per line is one deal (an episode) of a match; the lines of a file, in
order, are the episodes of one match (or several, with a ``match`` field). A deal holds:

- the seats' starting hands, before tribute: ``"beginning": [[cards of seat 0], …]``
  (or ``{"0": [...], …}``), or the platform's own ``{"stage": "beginning", "myPos": s,
  "handCards": [...]}`` messages among the others;
- ``"messages"`` (also ``"notify"``): the notify messages in order —
  ``{"stage": "play", "curPos": 3, "curAction": ["Pair", "A", ["H2", "SA"]]}`` (a pass is
  ``["PASS", "PASS", "PASS"]``), ``{"stage": "tribute", "result": [[from, to, card]]}``,
  ``{"stage": "back", "result": [[from, to, card]]}``, ``{"stage": "anti-tribute",
  "antiNum": 1, "antiPos": [seat]}`` (also ``antiNums``), and ``{"stage": "episodeOver",
  "order": [...], "curRank": "3", "restCards": [[seat, [cards]]]}``;
- optionally ``match`` (id), ``players``, ``leader`` (the first hand's first player).

A deal's id is its ``id``, else ``MATCH-NNN`` with NNN its place among the match's deal
lines, read or not (:meth:`MatchState.count`); ``match`` and ``id`` are a string or an
integer, anything else a ``bad_record`` naming the field.

Cards are suit ``S H C D`` + rank ``23456789TJQKA``; ``SB`` is the small joker, ``HR`` the
big one. The level of each deal is the ``episodeOver`` message's ``curRank``; the levels
before it follow from the previous deal's finishing order (rules.md's upgrade), so that
``paipu audit`` checks the file's own ranks against the rules.

>>> item = next(items_of_competition_lines([(1, b'{"beginning": [["SB"], [], [], []], "messages": []}')], "x"))
>>> item.message
'field "messages": expected an episodeOver message with the finishing order'
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

import orjson

from ..record import check_record
from ..verdicts import Code, RecordError
from .sources import Item, LongLine, ReadError, id_of, iter_lines, short

_SUITS = {"S": "s", "H": "h", "C": "c", "D": "d"}


class CompetitionError(ValueError):
    def __init__(self, field: str, expected: str):
        self.field, self.expected = field, expected
        super().__init__(f'field "{field}": expected {expected}')


def card(token: object, field: str) -> str:
    """``H2`` -> ``2h``, ``SB`` -> ``SJ``, ``HR`` -> ``BJ``."""
    if token == "SB":
        return "SJ"
    if token == "HR":
        return "BJ"
    if isinstance(token, str) and len(token) == 2 and token[0] in _SUITS and token[1] in "23456789TJQKA":
        return token[1] + _SUITS[token[0]]
    raise CompetitionError(field, f"a card like 'H2', 'SA', 'SB' or 'HR', got {token!r}")


def _cards(tokens: object, field: str) -> list[str]:
    if not isinstance(tokens, list):
        raise CompetitionError(field, "a list of cards")
    return [card(t, f"{field}[{k}]") for k, t in enumerate(tokens)]


def _seat(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 4:
        raise CompetitionError(field, f"a seat 0..3, got {value!r}")
    return value


class MatchState:
    """Levels carried from one deal of a match to the next, and the deals counted so far."""

    def __init__(self) -> None:
        self.matches: dict[str, dict] = {}
        self.last: str | None = None  # the match of the line before

    def start(self, match_id: str) -> dict:
        return self.matches.setdefault(match_id, {"levels": ["2", "2"], "hand": 0})

    def count(self, match_id: str | None, source: str) -> dict:
        """One more deal line of *match_id* (None: a line that cannot tell its match counts
        for the match of the line before, or the file's): its match's state, whose ``hand``
        is the deal's number. Every line counts, read or not, so that a deal's number (and
        id) is its position in the match, not how many deals before it could be read."""
        match_id = match_id if match_id is not None else self.last if self.last is not None else _file_match(source)
        m_state = self.start(match_id)
        m_state["hand"] += 1
        self.last = match_id
        return m_state


def _file_match(source: str) -> str:
    return os.path.splitext(os.path.basename(source))[0]


def _name(obj: dict, field: str) -> str | None:
    """The ``id`` or ``match`` of a deal as text (a string or an integer), None when absent."""
    value = obj.get(field)
    if value is None or value == "":
        return None
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    what = "the match id" if field == "match" else "the deal's id"
    raise CompetitionError(field, f"{what}, a string or an integer, got {value!r}")


def deal_to_record(obj: object, line: int, source: str, state: MatchState) -> dict:
    """One competition deal as a hand record (raises CompetitionError or RecordError)."""
    from ..games.guandan import GAME, STANDARD, level_name, levels_after, parse_level

    if not isinstance(obj, dict):
        state.count(None, source)
        raise CompetitionError("(line)", "a JSON object per deal")
    try:
        match_id = _name(obj, "match") or _file_match(source)
        hand_id = _name(obj, "id")
    except CompetitionError:
        state.count(None, source)
        raise
    m_state = state.count(match_id, source)
    messages = obj.get("messages", obj.get("notify"))
    if not isinstance(messages, list):
        raise CompetitionError("messages", "a list of notify messages")
    hands: list[list[str] | None] = [None] * 4
    begin = obj.get("beginning")
    if isinstance(begin, dict):
        begin = [begin.get(str(s), begin.get(s)) for s in range(4)]
    if begin is not None:
        if not isinstance(begin, list) or len(begin) != 4:
            raise CompetitionError("beginning", "the four seats' starting hands")
        hands = [_cards(h, f"beginning[{s}]") for s, h in enumerate(begin)]
    actions: list[dict] = []
    declared: list[tuple[dict, list[str]]] = []
    over = None
    for k, m in enumerate(messages):
        field = f"messages[{k}]"
        if not isinstance(m, dict):
            raise CompetitionError(field, "a notify message object")
        stage = m.get("stage")
        if stage == "beginning":
            hands[_seat(m.get("myPos"), f"{field}.myPos")] = _cards(m.get("handCards"), f"{field}.handCards")
        elif stage == "play":
            seat = _seat(m.get("curPos"), f"{field}.curPos")
            act = m.get("curAction")
            if not isinstance(act, list) or len(act) != 3:
                raise CompetitionError(f"{field}.curAction", '[type, rank, cards], e.g. ["Pair", "A", ["H2", "SA"]]')
            if act[0] == "PASS":
                actions.append({"seat": seat, "act": "pass"})
            else:
                play = {"seat": seat, "act": "play", "cards": _cards(act[2], f"{field}.curAction[2]")}
                if act[0] != "?":  # our own writer's "not declared"
                    declared.append((play, declaration(act[0], act[1], f"{field}.curAction")))
                actions.append(play)
        elif stage in ("tribute", "back"):
            result = m.get("result")
            if not isinstance(result, list):
                raise CompetitionError(f"{field}.result", "[[from, to, card], ...]")
            for j, entry in enumerate(result):
                if not isinstance(entry, list) or len(entry) != 3:
                    raise CompetitionError(f"{field}.result[{j}]", "[from, to, card]")
                actions.append({"seat": _seat(entry[0], f"{field}.result[{j}][0]"),
                                "act": "tribute" if stage == "tribute" else "return",
                                "card": card(entry[2], f"{field}.result[{j}][2]"),
                                "to": _seat(entry[1], f"{field}.result[{j}][1]")})
        elif stage == "anti-tribute":
            seats = m.get("antiPos") or []
            if not isinstance(seats, list) or not seats:
                raise CompetitionError(f"{field}.antiPos", "the resisting seats")
            actions.append({"seat": _seat(seats[0], f"{field}.antiPos[0]"), "act": "resist"})
        elif stage == "episodeOver":
            over = m
    if any(h is None for h in hands):
        raise CompetitionError("beginning", "the starting hands of all four seats")
    if over is None:
        raise CompetitionError("messages", "an episodeOver message with the finishing order")
    order = over.get("order")
    if not isinstance(order, list) or sorted(order) != [0, 1, 2, 3]:
        raise CompetitionError("episodeOver.order", "the four seats in finishing order")
    rank = over.get("curRank")
    try:
        level = parse_level(rank)
    except ValueError:
        raise CompetitionError("episodeOver.curRank", f"the level rank played, 2..A, got {rank!r}") from None
    keep_declarations(declared, level)
    # our finishing order stops when a team is out: after a double-down, the first two
    stop = 2 if GAME.team_of(order[0]) == GAME.team_of(order[1]) else 4
    outcome: dict[str, object] = {"order": order[:stop]}
    record = {
        "paipu": 1, "id": hand_id or f"{match_id}-{m_state['hand']:03d}", "game": "guandan",
        "variant": str(obj.get("variant") or "standard"),
        "players": obj.get("players") or [f"seat {s}" for s in range(4)], "deal": hands, "actions": actions,
        "match": {"id": match_id, "hand": m_state["hand"]}, "levels": list(m_state["levels"]),
        "level": level_name(level), "result": outcome,
    }
    if "leader" in obj:
        record["leader"] = obj["leader"]
    elif m_state["hand"] == 1 and actions:
        first = next((a for a in actions if a["act"] in ("play", "pass")), None)
        if first is not None:
            record["leader"] = first["seat"]
    # the levels after this deal, by the upgrade rule, carry into the next deal
    after = levels_after(STANDARD, [parse_level(x) for x in m_state["levels"]], level, order, m_state.get("a_fails"))
    m_state["levels"] = [level_name(x) for x in after.levels]
    m_state["a_fails"] = after.a_fails
    outcome["levels"] = list(m_state["levels"])
    return record


#: the platform's combination types (OpenGuanDan's FourKings too) as rules.md's kinds
KIND_OF_TYPE = {
    "Single": "single", "Pair": "pair", "Trips": "triple", "ThreeWithTwo": "full_house", "Straight": "straight",
    "StraightFlush": "straight_flush", "ThreePair": "pair_chain", "TwoTrips": "plate", "Bomb": "bomb",
    "FourKings": "joker_bomb",
}
#: sequence kinds: the platform names their lowest card (A for A2345), paipu their top card
_LENGTH = {"straight": 5, "straight_flush": 5, "pair_chain": 3, "plate": 2}
_LOW = "A23456789TJQK"


def declaration(kind_text: object, rank: object, field: str) -> list[str]:
    """The platform's ``[type, rank]`` as a record's ``declared`` ``[kind, key]`` (the key as
    ``paipu combo`` names it: a sequence by its top card, a joker by SJ/BJ, the four jokers
    ``jokers``).

    >>> declaration("Straight", "A", "x"), declaration("ThreeWithTwo", "T", "x"), declaration("Bomb", "JOKER", "x")
    (['straight', '5'], ['full_house', 'T'], ['joker_bomb', 'jokers'])
    """
    from ..games.guandan import POSITION_RANK
    from ..cards import RANK_NAMES

    kind = KIND_OF_TYPE.get(kind_text) if isinstance(kind_text, str) else None
    if kind is None:
        raise CompetitionError(f"{field}[0]", "a combination type (" + ", ".join(KIND_OF_TYPE) + f" or PASS), got {kind_text!r}")
    rank = "T" if rank == "10" else rank
    if kind == "joker_bomb" or (kind == "bomb" and rank == "JOKER"):
        return ["joker_bomb", "jokers"]
    if kind in _LENGTH:
        low = _LOW.find(rank) if isinstance(rank, str) and len(rank) == 1 else -1
        top = low + _LENGTH[kind] - 1
        if low < 0 or top >= len(POSITION_RANK):
            raise CompetitionError(f"{field}[1]", f"the lowest card of the {kind}, A..{_LOW[len(POSITION_RANK) - _LENGTH[kind]]}, got {rank!r}")
        return [kind, RANK_NAMES[POSITION_RANK[top]]]
    names = {"B": "SJ", "R": "BJ"} if kind in ("single", "pair") else {}
    if not (isinstance(rank, str) and (rank in names or (len(rank) == 1 and rank in "23456789TJQKA"))):
        raise CompetitionError(f"{field}[1]", f"a rank 2..A{' or B, R' if names else ''}, got {rank!r}")
    return [kind, names.get(rank, rank)]


def keep_declarations(declared: list[tuple[dict, list[str]]], level: int) -> None:
    """Each declared play keeps its declaration (``declared``) and, when its cards can
    form it, what its wild hearts stand for (``as``); a declaration the cards cannot form
    stays without ``as`` and the replay reports it (``invalid_combo`` naming it)."""
    from ..cards import CARD_NAMES, CARD_OF, HEARTS, card_id
    from ..games.guandan import STANDARD, Guandan, stand_for

    table, wild = Guandan.combo_table(STANDARD, level), card_id(level, HEARTS)
    for play, named in declared:
        play["declared"] = named
        ids = [CARD_OF[t] for t in play["cards"]]
        if wild not in ids:
            continue  # natural cards read as themselves
        stand = stand_for(table, ids, wild, level, *named)
        if stand is not None and stand != ids:
            play["as"] = [CARD_NAMES[c] for c in stand]


def items_of_competition_lines(lines: Iterable[tuple[int, bytes]], source: str, strict: bool = True) -> Iterator[Item]:
    state = MatchState()
    for number, data in lines:
        if not data.strip():
            continue
        raw = short(data.decode("utf-8", "replace"))
        if type(data) is LongLine:
            state.count(None, source)
            yield Item(source, number, "unknown", code=Code.BAD_RECORD, message=data.message, raw=raw)
            continue
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError as e:
            state.count(None, source)
            yield Item(source, number, "utf-8", code=Code.BAD_RECORD, message=f"not valid JSON ({e})", raw=raw)
            continue
        record = None
        try:
            record = deal_to_record(obj, number, source, state)
            record = check_record(record, action_cards=strict)
        except CompetitionError as e:
            yield Item(source, number, "utf-8", code=Code.BAD_RECORD, message=str(e), raw=raw, hand_id=id_of(obj))
            continue
        except RecordError as e:
            yield Item(source, number, "utf-8", code=e.code, message=e.detail, raw=raw,
                       hand_id=id_of(record), action=e.action)
            continue
        yield Item(source, number, "utf-8", record=record)


def iter_competition(path: str, source: str | None = None, strict: bool = True) -> Iterator[Item]:
    source = source or path
    try:
        yield from items_of_competition_lines(iter_lines(path), source, strict)
    except ReadError as e:
        yield Item(source, e.line, "unknown", code=Code.BAD_RECORD, message=e.message, unreadable=e.line == 0)


def platform_card(token: str) -> str:
    """A canonical card as the platform writes it (the inverse of :func:`card`)."""
    if token == "SJ":
        return "SB"
    if token == "BJ":
        return "HR"
    return {"s": "S", "h": "H", "c": "C", "d": "D"}[token[1]] + token[0]


def platform_declaration(kind: str, key: str) -> list[str]:
    """rules.md's kind and key name as the platform's ``[type, rank]`` (the inverse of
    :func:`declaration`).

    >>> platform_declaration("straight", "5"), platform_declaration("pair", "BJ"), platform_declaration("joker_bomb", "jokers")
    (['Straight', 'A'], ['Pair', 'R'], ['Bomb', 'JOKER'])
    """
    from ..games.guandan import POSITION_RANK
    from ..cards import RANK_NAMES

    if kind == "joker_bomb":
        return ["Bomb", "JOKER"]
    platform = next(t for t, k in KIND_OF_TYPE.items() if k == kind)
    if kind in _LENGTH:
        top = max(p for p in range(len(POSITION_RANK)) if RANK_NAMES[POSITION_RANK[p]] == key)
        return [platform, _LOW[top - _LENGTH[kind] + 1]]
    return [platform, {"SJ": "B", "BJ": "R"}.get(key, key)]


def record_to_deal(record: dict, previous: dict | None = None) -> dict:
    """A hand record written back in the competition format (for tests and exchange):
    each play with the reading the replay gives it as ``[type, rank, cards]`` (``["?", "?",
    cards]`` when the record does not replay), then ``episodeOver`` when it is finished.
    *previous*: the replayed outcome of the match's previous hand."""
    from ..replayer import replay
    from ..words import key_name

    r = replay(record, detail=True, previous=previous)
    named: dict[int, list[str]] = {}
    if r.ok and r.table is not None:  # (a replay without a table has a violation)
        for i, _, c, _, _ in r.table.plays:
            key = key_name(r.table, c)
            assert key is not None, "Guandan names the key of every combination"
            named[i] = platform_declaration(c.kind, key)

    comp = platform_card
    messages = []
    for i, a in enumerate(record["actions"]):
        if a["act"] == "play":
            messages.append({"stage": "play", "curPos": a["seat"],
                             "curAction": [*named.get(i, ("?", "?")), [comp(t) for t in a["cards"]]]})
        elif a["act"] == "pass":
            messages.append({"stage": "play", "curPos": a["seat"], "curAction": ["PASS", "PASS", "PASS"]})
        elif a["act"] in ("tribute", "return"):
            messages.append({"stage": "tribute" if a["act"] == "tribute" else "back",
                             "result": [[a["seat"], a["to"], comp(a["card"])]]})
        elif a["act"] == "resist":
            messages.append({"stage": "anti-tribute", "antiNum": 1, "antiPos": [a["seat"]]})
    if r.ok and r.outcome.get("levels"):
        order = r.outcome["order"]
        messages.append({"stage": "episodeOver", "order": order + [s for s in range(4) if s not in order],
                         "curRank": record.get("level", "2"), "restCards": []})
    return {"match": record["match"]["id"], "beginning": [[comp(t) for t in h] for h in record["deal"]],
            "messages": messages, "players": record["players"], "variant": record["variant"],
            **({"leader": record["leader"]} if "leader" in record else {})}
