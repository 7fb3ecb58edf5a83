"""What the importers of other tools' logs share (docs/formats.md): reading a file as JSON
documents, the reject that names file, line and field, and the Dou Dizhu record that a
game without suits or without 叫/抢 bidding becomes.

A foreign file is either JSON lines (one game per line) or one JSON document (an object,
or a list of them: one game each), possibly pretty-printed over many lines.  Each
importer turns one document into one hand record, or raises :class:`FormatError` naming
the field; the record is then checked like any other (``check_record``).

>>> [d.value for d in documents([(1, b'{"a": 1}'), (2, b''), (3, b'{"a": 2}')])]
[{'a': 1}, {'a': 2}]
>>> [(d.line, d.field) for d in documents([(1, b'['), (2, b'{"a": 1},'), (3, b'{"a": 2}]')])]
[(1, 'entry[0]'), (1, 'entry[1]')]
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from ..record import check_record
from ..verdicts import Code, RecordError
from .sources import Item, LongLine, ReadError, id_of, iter_lines, open_binary, short


class CannotHold(ValueError):
    """A record the format cannot hold (the reason says what)."""


class FormatError(ValueError):
    """A value of the foreign log that has no meaning in a hand record."""

    def __init__(self, field: str, expected: str):
        self.field, self.expected = field, expected
        super().__init__(f'field "{field}": expected {expected}')


@dataclass(slots=True)
class Doc:
    """One game's JSON value, the line it starts on, and its place in the file
    (``entry[k]`` when the file is one list of games)."""

    line: int
    value: object
    raw: str
    field: str = ""
    #: why the text is not JSON (then value is None)
    error: str | None = None

    def at(self, field: str) -> str:
        """*field* as the reject names it: inside the file's entry when it has one."""
        return f"{self.field}.{field}" if self.field and field else self.field or field


def documents(lines: Iterable[tuple[int, bytes]]) -> Iterator[Doc]:
    """The JSON documents of a file's lines: one per line when each line is JSON on its
    own (JSON lines), else the whole file as one document (a list: one per entry)."""
    lines = list(lines)
    body = [(n, d) for n, d in lines if type(d) is LongLine or d.strip()]
    if not body:
        return
    first = body[0][1].lstrip(b"\xef\xbb\xbf")
    whole = False
    if type(body[0][1]) is not LongLine:
        try:
            orjson.loads(first)
        except orjson.JSONDecodeError:
            whole = len(body) > 1
    if not whole:
        for n, data in body:
            if type(data) is LongLine:
                yield Doc(n, None, short(data.decode("utf-8", "replace")), error=data.message)
                continue
            data = data.lstrip(b"\xef\xbb\xbf") if n == body[0][0] else data
            try:
                yield Doc(n, orjson.loads(data), short(data.decode("utf-8", "replace")))
            except orjson.JSONDecodeError as e:
                yield Doc(n, None, short(data.decode("utf-8", "replace")), error=f"not valid JSON ({e})")
        return
    text = b"\n".join(d for _, d in lines).lstrip(b"\xef\xbb\xbf")
    start = body[0][0]
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as e:
        yield Doc(start, None, short(text.decode("utf-8", "replace")), error=f"not valid JSON ({e})")
        return
    if isinstance(value, list):
        for k, v in enumerate(value):
            yield Doc(start, v, short(orjson.dumps(v).decode()), f"entry[{k}]")
    else:
        yield Doc(start, value, short(text.decode("utf-8", "replace")))


#: an importer: one document -> one record (raises FormatError); gets the file's name
Convert = Callable[[object, str, Doc], dict]


def items_of_documents(docs: Iterable[Doc], source: str, convert: Convert, strict: bool = True) -> Iterator[Item]:
    """Each document as an :class:`Item`: the record, or the reject naming its field."""
    for doc in docs:
        if doc.error is not None:
            yield Item(source, doc.line, "utf-8", code=Code.BAD_RECORD, message=doc.error, raw=doc.raw)
            continue
        record = None
        try:
            record = check_record(convert(doc.value, source, doc), action_cards=strict)
        except FormatError as e:
            yield Item(source, doc.line, "utf-8", code=Code.BAD_RECORD, message=f'field "{doc.at(e.field)}": expected {e.expected}',
                       raw=doc.raw, hand_id=id_of(doc.value))
            continue
        except RecordError as e:
            yield Item(source, doc.line, "utf-8", code=e.code, message=e.detail, raw=doc.raw,
                       hand_id=id_of(record), action=e.action)
            continue
        yield Item(source, doc.line, "utf-8", record=record)


def items_of_file(path: str, source: str, items: Callable[[Iterable[tuple[int, bytes]], str, bool], Iterator[Item]],
                  strict: bool = True) -> Iterator[Item]:
    """Every hand of *path* by the importer's *items* (lines -> items), read errors as rejects."""
    lines: list[tuple[int, bytes]] = []
    try:
        lines.extend(iter_lines(path))
    except ReadError as e:
        yield from items(lines, source, strict)  # the games before the line where reading stopped
        yield Item(source, e.line, "unknown", code=Code.BAD_RECORD, message=e.message, unreadable=e.line == 0)
        return
    yield from items(lines, source, strict)


#: what tells each format in a file's first bytes (after the first line that is no paipu record)
_MARKS = (
    ("openspiel", (b"SerializeGameAndState", b"[Meta]")),
    ("rlcard-showdown", (b'"initHands"', b'"moveHistory"')),
    ("douzero", (b'"card_play_action_seq"', b'"three_landlord_cards"')),
    ("rlcard", (b'"seen_cards"', b'"trace"')),
    ("botzone", (b'"log"', b'"verdict"')),
)
#: bytes of a file's start that sniffing looks at
SNIFF_BYTES = 1 << 14


def sniff_foreign(path: str) -> str | None:
    """The foreign format a file says it is in (its first bytes hold the format's own
    marks: OpenSpiel's header or ``[Meta]``, Showdown's ``initHands``, DouZero's
    ``card_play_action_seq``, RLCard's ``seen_cards`` and ``trace``, Botzone's ``log``
    with its bots' ``verdict``), or None.  A file
    whose first line is a paipu record (``"paipu"``) is none of them."""
    chunks, size = [], 0
    try:
        with open_binary(path) as f:  # (by lines: a UTF-16 file is read as UTF-8 lines)
            while size < SNIFF_BYTES:
                line = f.readline(SNIFF_BYTES)
                if not line:
                    break
                chunks.append(line)
                size += len(line)
    except (OSError, EOFError, zlib.error, UnicodeDecodeError):
        return None
    head = b"".join(chunks)
    head = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if b'"paipu"' in head.split(b"\n", 1)[0]:
        return None
    first = head[:1]
    for fmt, marks in _MARKS:
        if fmt == "openspiel":
            if first in (b"#", b"[") and any(m in head[:400] for m in marks) and b"[State]" in head:
                return fmt
        elif first in (b"{", b"[") and all(m in head for m in marks):
            return fmt
    return None


def hand_id(obj: dict, source: str, doc: Doc, prefix: str) -> str:
    """The game's own id when it has one, else ``<file name>-<line>`` (``-<entry>`` too)."""
    given = obj.get("id") if isinstance(obj, dict) else None
    if isinstance(given, (str, int)) and not isinstance(given, bool) and str(given):
        return str(given)
    stem = os.path.basename(source).split(".")[0] or prefix
    return f"{stem}-{doc.line}" + (f"-{doc.field.rsplit('[', 1)[1][:-1]}" if doc.field.endswith("]") else "")


def need(obj: object, key: str, kind: type | tuple[type, ...], field: str, expected: str) -> Any:
    """``obj[key]`` when it is of *kind* (booleans are not integers), else FormatError."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None or not isinstance(value, kind) or (isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))):
        raise FormatError(field, expected + ("" if value is None else f", got {_shown(value)}"))
    return value


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def seat_of(value: object, field: str, n: int = 3) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
        raise FormatError(field, f"a seat 0..{n - 1}, got {_shown(value)}")
    return value


# ---------------------------------------------------------------------- Dou Dizhu

#: paipu's rank names of Dou Dizhu, low to high (3 .. 2, small joker, big joker)
DDZ_RANKS = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "SJ", "BJ")
#: the order in which suits are given out where a format has none (docs/formats.md)
SUIT_ORDER = "shdc"


def suited_deal(hands: list[list[str]], bottom: list[str]) -> tuple[list[list[str]], list[str]]:
    """Suits for a deal given by rank only (paipu rank names), by the one rule of
    docs/formats.md: each rank's cards get ``s h d c`` in seat order (seat 0's cards,
    seat 1's, seat 2's, then the bottom's).  More than four of a rank (or two of a
    joker) keep the last suit: the deal check then reports the deck.

    >>> suited_deal([["3", "3"], ["3"], []], ["3", "SJ"])
    ([['3s', '3h'], ['3d'], []], ['3c', 'SJ'])
    """
    given: dict[str, int] = {}

    def suit(rank: str) -> str:
        if rank in ("SJ", "BJ"):
            return rank
        k = given.get(rank, 0)
        given[rank] = k + 1
        return rank + SUIT_ORDER[min(k, 3)]

    return [[suit(r) for r in h] for h in hands], [suit(r) for r in bottom]


class Holdings:
    """The cards each seat still holds, to give a play of ranks its suits: a play of a
    rank takes the holder's cards of that rank in the suit order ``s h d c``.  A rank the
    seat does not hold (enough of) gets a suit it does not hold, so that the replay
    reports the play (``not_in_hand``) rather than the importer."""

    def __init__(self, hands: list[list[str]]):
        self.held: list[dict[str, list[str]]] = [{} for _ in hands]
        for seat, hand in enumerate(hands):
            self.give(seat, hand)

    def give(self, seat: int, cards: list[str]) -> None:
        mine = self.held[seat]
        for c in cards:
            rank = c if c in ("SJ", "BJ") else c[:-1]
            mine.setdefault(rank, []).append(c)
        for held in mine.values():
            if len(held) > 1:
                held.sort(key=_SUIT_RANK.__getitem__)

    def take(self, seat: int, ranks: list[str]) -> list[str]:
        mine = self.held[seat]
        out = []
        for rank in ranks:
            held = mine.get(rank)
            if held:
                out.append(held.pop(0))
            elif rank in ("SJ", "BJ"):
                out.append(rank)
            else:  # not held: a suit not yet in this play
                out.append(next((rank + s for s in SUIT_ORDER if rank + s not in out), rank + "s"))
        return out


#: a card's place in the suit order (jokers first: one of each)
_SUIT_RANK = {**{r + s: k for r in DDZ_RANKS[:13] for k, s in enumerate(SUIT_ORDER)}, "SJ": 0, "BJ": 0}


def given_bidding(landlord: int, how: str) -> tuple[int, list[dict]]:
    """The bidding of a hand whose landlord the source names without 叫/抢 bidding
    (docs/formats.md): the landlord bids first and calls, the two others do not grab;
    each action carries ``"given": how`` (``dealer``, ``auction`` ...) so that it is
    told from a real bid.  Returns (leader, actions)."""
    actions = [{"seat": landlord, "act": "bid", "call": True, "given": how}]
    actions += [{"seat": (landlord + k) % 3, "act": "grab", "grab": False, "given": how} for k in (1, 2)]
    return landlord, actions


def ddz_record(hand: str, players: list[str], deal: list[list[str]], bottom: list[str], leader: int,
               actions: list[dict], result: dict | None, *, variant: str = "huopin", **extra: object) -> dict:
    """A Dou Dizhu hand record of the parts an importer read, judged by *variant*: huopin,
    or the rules of the library whose engine played it (``openspiel``, ``douzero``:
    docs/rules.md §2.10)."""
    record: dict = {"paipu": 1, "id": hand, "game": "doudizhu", "variant": variant, "players": players,
                    "deal": deal, "bottom": bottom, "actions": actions, "leader": leader}
    if result:
        record["result"] = result
    record.update(extra)
    return record


def winner_result(landlord: int, landlord_won: bool | None, first_out: int | None = None) -> dict:
    """``result`` of a played-out hand as the source recorded it (checked by the replay)."""
    result: dict = {"landlord": landlord}
    if first_out is not None:
        result["order"] = [first_out]
    if landlord_won is not None:
        result["winner"] = "landlord" if landlord_won else "farmers"
    return result


def play_ranks(record: dict) -> Iterator[tuple[dict, list[str]]]:
    """The plays of a record with their ranks (paipu rank names), for the writers."""
    for a in record["actions"]:
        if a["act"] == "play":
            yield a, [c if c in ("SJ", "BJ") else c[:-1] for c in a["cards"]]


def landlord_of(record: dict) -> int | None:
    """The landlord a record's bidding chose (None: a redeal), by replaying it; for a hand
    the replay stops in (a rule broken in its play), the landlord its result names."""
    from ..replayer import replay

    r = replay(record)
    if r.violation is None:
        return (r.outcome or {}).get("landlord")
    result = record.get("result")
    landlord = result.get("landlord") if isinstance(result, dict) else None
    if isinstance(landlord, int) and not isinstance(landlord, bool):
        return landlord
    raise CannotHold(f"the replay stops at action {r.violation.action if r.violation else '?'} and the result names no landlord")
