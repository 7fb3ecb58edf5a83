"""The hand record of format.md: structural checks, nothing about the rules of play.

A record stays the JSON object it was read as (a ``dict``): it is what round-trips through
the text format and what the engines read.  :func:`check_record` raises
:class:`RecordError` with the verdict code (``bad_record``, ``bad_card``,
``unknown_game``), the field path and what was expected.

>>> check_record({"paipu": 1, "id": "x", "game": "ddz", "variant": "huopin",
...               "players": ["a", "b", "c"], "deal": [[], [], ["3h", "1x"]], "actions": []})
Traceback (most recent call last):
...
paipu.replay.verdicts.RecordError: bad_card: field "deal[2][1]": expected a card like '3h', 'Ts' or 'BJ', got '1x'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from hashlib import blake2b
from typing import Any

import orjson

from .cards import CARD_OF, RANK_NAMES
from .games import UnknownGame, find_game
from .kernel import compiled
from .verdicts import Code, RecordError

FORMAT_VERSION = 1
ACTS = ("play", "pass", "bid", "grab", "show", "peek", "tribute", "return", "resist", "escape")
#: known top-level fields, in the order the writers put them
FIELDS = (
    "paipu", "id", "game", "variant", "players", "deal", "bottom", "actions", "result",
    "time", "room", "stacks", "match", "levels", "level", "leader", "lead_card", "params",
)
_TYPE_NAMES = {str: "a string", int: "an integer", list: "a list", dict: "an object", bool: "true or false"}

# What the dataset's columns hold (docs/format.md, "Ranges"): a record outside these is
# bad_record here, so that no value can fail a batch when it is written.
#: doubles (t, stacks, room numbers) hold integers exactly up to 2^53
MAX_EXACT = 2 ** 53
#: show factors are int32, match.hand int64
INT32 = (-2 ** 31, 2 ** 31 - 1)
INT64_MAX = 2 ** 63 - 1
#: room fields that are numbers (settlement)
ROOM_NUMBERS = ("base", "coef", "fee", "multiplier", "xiqian")
#: level ranks (levels, level): 2..A, also 10, any case
LEVEL_NAMES = frozenset(RANK_NAMES[:13]) | {"10"}
#: lists and objects nest at most this deep, the record itself counting as one
MAX_DEPTH = 254
#: the most actions a hand may have (docs/format.md): far above any real hand (a few
#: hundred), so that one hostile hand cannot take the memory of its neighbours
MAX_ACTIONS = 100_000


def json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words (not Python's: null, not NoneType)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def _bad(field: str, expected: str, got: Any, code: Code = Code.BAD_RECORD) -> RecordError:
    shown = repr(got)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return RecordError(code, field, f"expected {expected}, got {shown}")


def _need(obj: dict, key: str, kind: type, path: str = "") -> Any:
    field = f"{path}{key}"
    if key not in obj:
        raise RecordError(Code.BAD_RECORD, field, f"required field missing (expected {_TYPE_NAMES[kind]})")
    value = obj[key]
    if not _is(value, kind):
        raise _bad(field, _TYPE_NAMES[kind], value)
    return value


def _is(value: Any, kind: type) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _opt(obj: dict, key: str, kind: type) -> Any:
    value = obj.get(key)
    if value is not None and not _is(value, kind):
        raise _bad(key, _TYPE_NAMES[kind], value)
    return value


def _cards(value: Any, field: str, nonempty: bool = False) -> None:
    if not isinstance(value, list):
        raise _bad(field, "a list of cards", value)
    if nonempty and not value:
        raise _bad(field, "at least one card", value)
    for i, token in enumerate(value):
        if not isinstance(token, str) or token not in CARD_OF:
            raise _bad(f"{field}[{i}]", "a card like '3h', 'Ts' or 'BJ'", token, Code.BAD_CARD)


def _strings(value: Any, field: str, nonempty: bool = False) -> None:
    if not isinstance(value, list) or (nonempty and not value):
        raise _bad(field, "a list of cards" + (" (at least one)" if nonempty else ""), value)
    for i, token in enumerate(value):
        if not isinstance(token, str):
            raise _bad(f"{field}[{i}]", "a card like '3h', 'Ts' or 'BJ'", token, Code.BAD_CARD)


def _string(value: Any, field: str) -> None:
    if not isinstance(value, str):
        raise _bad(field, "a card like '3h', 'Ts' or 'BJ'", value, Code.BAD_CARD)


def _card(value: Any, field: str) -> None:
    if not isinstance(value, str) or value not in CARD_OF:
        raise _bad(field, "a card like '3h', 'Ts' or 'BJ'", value, Code.BAD_CARD)


def check_record(obj: Any, action_cards: bool = True) -> dict:
    """Check the structure of a hand record; return it (game name canonicalised).

    With ``action_cards=False`` card tokens inside actions are only checked to be strings:
    the replay reports a misspelt card as ``bad_card`` at its action, after the turn check.
    """
    _check_fields(obj, action_cards)
    try:
        orjson.dumps(obj)  # every value storable as JSON: strings, 64-bit integers, depth
    except (orjson.JSONEncodeError, TypeError, ValueError, OverflowError):
        raise _unstorable(obj) from None
    return obj


def check_and_hash(obj: Any, action_cards: bool = True) -> tuple[dict, int]:
    """:func:`check_record` and the record's :func:`content_hash` at once (what ingest
    needs): the hash's JSON is the storability probe, so the record is serialised once.
    The same errors as check_record (the sorted and the plain JSON of a record fail alike)."""
    _check_fields(obj, action_cards)
    try:
        data = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    except (orjson.JSONEncodeError, TypeError, ValueError, OverflowError):
        raise _unstorable(obj) from None
    return obj, _hash_of(data)


def content_hash(record: dict) -> int:
    """A 63-bit hash of the record's content (key order does not matter): what tells a
    hand seen again from a different hand under the same id, in every dataset."""
    return _hash_of(orjson.dumps(record, option=orjson.OPT_SORT_KEYS))


def _hash_of(data: bytes) -> int:
    """The content hash of a record's sorted JSON (:func:`content_hash`)."""
    return int.from_bytes(blake2b(data, digest_size=8).digest(), "little") >> 1


def _check_fields(obj: Any, action_cards: bool) -> None:
    """check_record without the final probe that every value is storable."""
    if not isinstance(obj, dict):
        raise RecordError(Code.BAD_RECORD, None, f"expected a JSON object per hand, got {json_kind(obj)}")
    # each field's usual exact type is taken at once; anything else goes to _need or _opt,
    # which accept it (a subclass) or raise the error naming the field
    get = obj.get
    version = get("paipu")
    if type(version) is not int:
        version = _need(obj, "paipu", int)
    if version != FORMAT_VERSION:
        raise _bad("paipu", f"format version {FORMAT_VERSION}", version)
    hand_id = get("id")
    if type(hand_id) is not str:
        hand_id = _need(obj, "id", str)
    if not hand_id:
        raise _bad("id", "a non-empty string", hand_id)
    game, variant = get("game"), get("variant")
    if type(game) is not str:
        game = _need(obj, "game", str)
    if type(variant) is not str:
        variant = _need(obj, "variant", str)
    try:
        declared = find_game(game)
    except UnknownGame as e:
        raise RecordError(Code.UNKNOWN_GAME, "game", str(e)) from None
    canonical_game, variants = declared.name, declared.variants
    if variant not in variants:
        known = ", ".join(variants)
        raise RecordError(Code.UNKNOWN_GAME, "variant", f"unknown variant {variant!r} of {canonical_game} (known: {known})")
    if canonical_game != game:
        obj["game"] = canonical_game
    players = get("players")
    if type(players) is not list:
        players = _need(obj, "players", list)
    if not 2 <= len(players) <= 4:
        raise _bad("players", "2 to 4 player names", players)
    for i, name in enumerate(players):
        if not isinstance(name, str):
            raise _bad(f"players[{i}]", "a string", name)
    n = len(players)
    deal = get("deal")
    if type(deal) is not list:
        deal = _need(obj, "deal", list)
    if len(deal) != n:
        raise _bad("deal", f"one list of cards per seat ({n})", f"{len(deal)} lists")
    for s, hand in enumerate(deal):
        if not _all_cards(hand):
            _cards(hand, f"deal[{s}]")
    if variants[variant].bottom:
        _cards(_need(obj, "bottom", list), "bottom")
    elif obj.get("bottom") is not None:
        _cards(obj["bottom"], "bottom")
    actions = get("actions")
    if type(actions) is not list:
        actions = _need(obj, "actions", list)
    if len(actions) > MAX_ACTIONS:
        raise RecordError(Code.BAD_RECORD, "actions", f"expected at most {MAX_ACTIONS:,} actions, got {len(actions):,}")
    CHECK_ACTIONS(actions, n, action_cards, _CARD_SET, _check_action)
    for key, kind in _OPTIONAL_FIELDS:
        value = get(key)
        if value is not None and type(value) is not kind:
            _opt(obj, key, kind)
    room = get("room")
    if room:
        for key in ROOM_NUMBERS:
            if key in room and not _number(room[key]):
                raise _bad(f"room.{key}", "a number from -2^53 to 2^53", room[key])
    stacks = get("stacks")
    if stacks is not None and type(stacks) is not list:
        stacks = _opt(obj, "stacks", list)
    if stacks is not None:
        if len(stacks) != n:
            raise _bad("stacks", f"{n} numbers (coins per seat)", stacks)
        for i, x in enumerate(stacks):
            if not _number(x):
                raise _bad(f"stacks[{i}]", "a number from -2^53 to 2^53 (coins)", x)
    match = get("match")
    if match is not None and type(match) is not dict:
        match = _opt(obj, "match", dict)
    if match is not None:
        _need(match, "id", str, "match.")
        hand = _need(match, "hand", int, "match.")
        if not 0 <= hand <= INT64_MAX:
            raise _bad("match.hand", "a hand number from 0 to 2^63 - 1", hand)
    levels = get("levels")
    if levels is not None and type(levels) is not list:
        levels = _opt(obj, "levels", list)
    if levels is not None and (len(levels) != 2 or not all(_level(x) for x in levels)):
        raise _bad("levels", 'two level ranks like ["2", "5"]', levels)
    level = get("level")
    if level is not None and type(level) is not str:
        level = _opt(obj, "level", str)
    if level is not None and not _level(level):
        raise _bad("level", "a level rank 2..10, J, Q, K or A", level)
    leader = get("leader")
    if leader is not None and type(leader) is not int:
        leader = _opt(obj, "leader", int)
    if leader is not None and not 0 <= leader < n:
        raise _bad("leader", f"a seat 0..{n - 1}", leader)
    if get("lead_card") is not None:
        _card(obj["lead_card"], "lead_card")
    if get("params") is not None and type(obj["params"]) is not dict:
        _opt(obj, "params", dict)


#: the first optional fields checked, in this order, with their type
_OPTIONAL_FIELDS = (("result", dict), ("time", str), ("room", dict))


def _number(x: Any) -> bool:
    """A number a double holds exactly (finite, |x| <= 2^53), not a boolean."""
    t = type(x)
    return (t is int and -MAX_EXACT <= x <= MAX_EXACT) or (t is float and math.isfinite(x) and abs(x) <= MAX_EXACT)


def _level(x: Any) -> bool:
    return isinstance(x, str) and x.strip().upper() in LEVEL_NAMES


def _unstorable(obj: dict) -> RecordError:
    """The first value of *obj* that JSON (and so the dataset) cannot hold, as an error."""
    stack: list[tuple[str, Any, int]] = [("", obj, 1)]
    while stack:
        path, value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                return RecordError(Code.BAD_RECORD, path, f"expected lists and objects nested at most {MAX_DEPTH} deep")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            children = []
            for key, child in items:
                if isinstance(value, dict):
                    if not isinstance(key, str) or not _utf8(key):
                        return RecordError(Code.BAD_RECORD, path or None, f"keys that are valid Unicode text, got {key!r}")
                    children.append((f"{path}.{key}" if path else key, child, depth + 1))
                else:
                    children.append((f"{path}[{key}]", child, depth + 1))
            stack += reversed(children)
        elif isinstance(value, str):
            if not _utf8(value):
                return _bad(path, "valid Unicode text (a lone surrogate is not)", value)
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int):
            if not -2 ** 63 <= value < 2 ** 64:
                return _bad(path, "an integer of at most 64 bits", value)
        elif isinstance(value, float):
            if not math.isfinite(value):
                return _bad(path, "a finite number", value)
        else:
            return _bad(path, "a JSON value", value)
    return RecordError(Code.BAD_RECORD, None, "a value that JSON cannot hold")


def _utf8(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_CARD_SET = frozenset(CARD_OF)
_FLAG = {"bid": "call", "grab": "grab"}
_NUMBERS = (int, float)


def _all_cards(value: Any) -> bool:
    """Fast path: a list of known card tokens (False sends the caller to the precise check)."""
    try:
        return type(value) is list and _CARD_SET.issuperset(value)
    except TypeError:  # an unhashable element
        return False


def _check_actions(actions: list, n: int, action_cards: bool, card_set: frozenset[str],
                   check_action: Callable[[Any, int, int, bool], None]) -> None:
    """The actions' checks: a well-formed play, pass, bid or grab is taken here; anything
    else (every malformed action included) goes to *check_action* (:func:`_check_action`,
    which accepts it or names the field). The compiled kernel has the same loop."""
    superset, flags = card_set.issuperset, _FLAG
    for i, a in enumerate(actions):
        if type(a) is dict:
            seat, act, t = a.get("seat"), a.get("act"), a.get("t")
            if type(seat) is int and 0 <= seat < n and (t is None or (type(t) in _NUMBERS and 0 <= t <= MAX_EXACT)):
                if act == "pass":
                    continue
                if act == "play":
                    cards = a.get("cards")
                    if type(cards) is list and cards and "as" not in a and "declared" not in a:
                        try:
                            if superset(cards) if action_cards else all(type(x) is str for x in cards):
                                continue
                        except TypeError:  # an unhashable element: the slow path names it
                            pass
                elif type(act) is str and act in flags and type(a.get(flags[act])) is bool:
                    continue
        check_action(a, i, n, action_cards)


def _check_action(action: Any, i: int, n: int, strict_cards: bool = True) -> None:
    cards, card = (_cards, _card) if strict_cards else (_strings, _string)
    path = f"actions[{i}]"
    if not isinstance(action, dict):
        raise _bad(path, 'an object like {"seat": 0, "act": "play", "cards": [...]}', action)
    seat = _need(action, "seat", int, path + ".")
    if not 0 <= seat < n:
        raise _bad(f"{path}.seat", f"a seat 0..{n - 1}", seat)
    act = _need(action, "act", str, path + ".")
    if act not in ACTS:
        raise _bad(f"{path}.act", "one of " + ", ".join(ACTS), act)
    t = action.get("t")
    if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 <= t <= MAX_EXACT):
        raise _bad(f"{path}.t", "milliseconds since the hand began (a number from 0 to 2^53)", t)
    if act == "play":
        cards(action.get("cards"), f"{path}.cards", nonempty=True)
        if action.get("as") is not None:
            cards(action["as"], f"{path}.as")
            if len(action["as"]) != len(action["cards"]):
                raise _bad(f"{path}.as", f"{len(action['cards'])} cards (one per card played)", action["as"])
        named = action.get("declared")
        if named is not None and not (isinstance(named, list) and len(named) == 2 and all(isinstance(x, str) for x in named)):
            raise _bad(f"{path}.declared", 'a combination [kind, key] like ["full_house", "5"]', named)
    elif act == "bid":
        _need(action, "call", bool, path + ".")
    elif act == "grab":
        _need(action, "grab", bool, path + ".")
    elif act == "show":
        factor = _need(action, "factor", int, path + ".")
        if not INT32[0] <= factor <= INT32[1]:
            raise _bad(f"{path}.factor", "a whole number of 32 bits (5, 4, 3 or 2)", factor)
    elif act in ("tribute", "return"):
        card(action.get("card"), f"{path}.card")
        to = _need(action, "to", int, path + ".")
        if not 0 <= to < n:
            raise _bad(f"{path}.to", f"a seat 0..{n - 1}", to)


#: the actions' loop of check_record: the compiled kernel's (replay/_kernel.pyx) where it
#: is built, which accepts and rejects the same actions; _check_actions otherwise
CHECK_ACTIONS = _check_actions if compiled is None else compiled.check_actions
