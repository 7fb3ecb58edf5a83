"""paipu's readable text format for hand histories (see docs/format.md).

One line per fact or action, ``#`` comments, easy to write by hand for a bug report:

>>> text = '''
... hand demo-1          # a hand starts here
... game doudizhu huopin
... seat 0 张三: 3s 4s
... seat 1 李四: 5s
... seat 2 王五: 6s
... bottom: 7s 8s 9s
... 0 bid yes @120
... 1 play 5s as 5s {"note": "x"}
... '''
>>> rec = parse_text(text)[0].record
>>> rec["players"], rec["actions"][0], rec["actions"][1]
(['张三', '李四', '王五'], {'seat': 0, 'act': 'bid', 't': 120, 'call': True}, {'seat': 1, 'act': 'play', 'cards': ['5s'], 'as': ['5s'], 'note': 'x'})
>>> parse_text("hand x\\ngame doudizhu\\n")[0].message
'line 2, column 14: expected the variant after the game (like "game doudizhu huopin")'
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import repeat
from typing import Any

from ..kernel import compiled
from ..record import FIELDS, MAX_ACTIONS, check_and_hash
from ..verdicts import Code, RecordError
from .sources import RAW_LIMIT, Item, LongLine, ReadError, decode_line, file_encoding, id_of, iter_blocks, short

_BOOL_WORDS = {"yes": True, "no": False, "true": True, "false": False}
_PLAIN_ACTS = ("pass", "peek", "resist", "escape")
_ACT_KEYS = {
    "play": ("cards", "as"), "bid": ("call",), "grab": ("grab",), "show": ("factor",),
    "tribute": ("card", "to"), "return": ("card", "to"),
}
_FLAG_OF = {"bid": "call", "grab": "grab"}
_NUMBER = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$")
_NAME_UNSAFE = re.compile(r'[\s:"#\x00-\x1f\x7f]')
#: characters a bare value cannot hold: control characters (a NUL makes the line binary,
#: which the reader refuses); JSON escapes them
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_KEY = re.compile(r"[A-Za-z_][\w.-]*")
_SEAT = re.compile(r"seat\s+(\d+)\s*")
_PLAIN_SEAT = re.compile(r'seat\s+(\d+)\s+([^\s:"][^\s:]*):(.*)')


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is too large for a number")
    return value


#: JSON as the standard has it: no NaN or Infinity (Python's json takes them), no 1e400
_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)


def _json_loads(text: str, n: int, col: int, what: str) -> Any:
    """A JSON value from the text format; a TextError at *col* when it is not one."""
    try:
        value, end = _DECODER.raw_decode(text)
        if text[end:].strip():
            raise json.JSONDecodeError("Extra data", text, end)
        return value
    except json.JSONDecodeError as e:
        raise TextError(n, col + e.colno - 1, f"expected {what} ({e.msg})") from None
    except ValueError as e:
        raise TextError(n, col, f"expected {what} ({e})") from None
    except RecursionError:
        raise TextError(n, col, f"expected {what} (nested too deep)") from None


class TextError(ValueError):
    """A line that does not parse: line, column (from 1) and what was expected."""

    def __init__(self, line: int, column: int, expected: str):
        self.line, self.column, self.expected = line, column, expected
        super().__init__(f"line {line}, column {column}: {expected}")


# ---------------------------------------------------------------- writing


_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _json_text(value: Any, separators: tuple[str, str] | None = None) -> str:
    """JSON on one line: characters that some readers take as line breaks are escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=separators)
    for ch, escaped in _LINE_BREAKS.items():
        text = text.replace(ch, escaped)
    return text


def _value_text(value: Any) -> str:
    """A field value: a bare word or string when it reads back the same, else JSON."""
    if isinstance(value, str) and _is_bare(value):
        return value
    return _json_text(value, (", ", ": "))


def _is_bare(s: str) -> bool:
    return (
        bool(s) and s == s.strip() and s[0] not in '{["@' and "#" not in s and len(s.splitlines()) == 1
        and not _CONTROL.search(s)
        and s not in ("true", "false", "null") and not _NUMBER.match(s)
    )


def _word(s: str) -> str:
    """A name or id: as it is when safe, else a JSON string."""
    return s if s and not _NAME_UNSAFE.search(s) and s[0] not in '"{[' and len(s.splitlines()) == 1 else _json_text(s)


def action_to_text(action: dict) -> str:
    act = action["act"]
    parts = [str(action["seat"]), act]
    used = {"seat", "act", "t"}
    if act == "play":
        parts += action["cards"]
        if "as" in action:
            parts += ["as", *action["as"]]
        used |= {"cards", "as"}
    elif act in ("bid", "grab"):
        key = "call" if act == "bid" else "grab"
        parts.append("yes" if action[key] else "no")
        used.add(key)
    elif act == "show":
        parts.append(str(action["factor"]))
        used.add("factor")
    elif act in ("tribute", "return"):
        parts += [action["card"], "to", str(action["to"])]
        used |= {"card", "to"}
    if "t" in action:
        parts.append("@" + json.dumps(action["t"]))
    extra = {k: v for k, v in action.items() if k not in used}
    if extra:
        parts.append(_json_text(extra))
    return " ".join(parts)


def record_to_text(record: dict) -> str:
    """The text form of one (checked) record, ending with a newline."""
    lines = [f"hand {_word(record['id'])}", f"game {record['game']} {record['variant']}"]
    for seat, (name, hand) in enumerate(zip(record["players"], record["deal"])):
        lines.append(f"seat {seat} {_word(name)}: {' '.join(hand)}".rstrip())
    if "bottom" in record:
        lines.append(f"bottom: {' '.join(record['bottom'])}".rstrip())
    done = {"paipu", "id", "game", "variant", "players", "deal", "bottom", "actions"}
    keys = [k for k in FIELDS if k in record and k not in done] + [k for k in record if k not in FIELDS]
    fields = [k for k in keys if k != "result"]
    for key in fields:
        if not _KEY.fullmatch(key):
            raise ValueError(f"field name {key!r} cannot be written in the text format")
        lines.append(f"{key}: {_value_text(record[key])}")
    lines += [action_to_text(a) for a in record["actions"]]
    if "result" in record:  # the outcome reads best after the play
        lines.append(f"result: {_value_text(record['result'])}")
    return "\n".join(lines) + "\n"


def write_text(records: Iterable[dict]) -> str:
    return "\n".join(record_to_text(r) for r in records)


# ---------------------------------------------------------------- reading


def strip_comment(line: str) -> str:
    """*line* without its ``#`` comment (a ``#`` inside a JSON string does not count)."""
    in_string = escaped = False
    for i, ch in enumerate(line):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def _read_word(line: str, pos: int, n: int, what: str) -> tuple[str, int]:
    """A bare word or a JSON string starting at *pos*; returns it and the position after."""
    while pos < len(line) and line[pos] in " \t":
        pos += 1
    if pos >= len(line):
        raise TextError(n, pos + 1, f"expected {what}")
    if line[pos] == '"':
        try:
            value, end = json.JSONDecoder().raw_decode(line, pos)
        except json.JSONDecodeError:
            raise TextError(n, pos + 1, f"expected {what} as a closed JSON string") from None
        return value, end
    end = pos
    while end < len(line) and not line[end].isspace() and line[end] != ":":
        end += 1
    return line[pos:end], end


def _parse_value(text: str, n: int, col: int) -> Any:
    v = text.strip()
    if v and (v[0] in '{["' or v in ("true", "false", "null") or _NUMBER.match(v)):
        return _json_loads(v, n, col + len(text) - len(text.lstrip()), "a JSON value")
    return v


def _parse_action(line: str, n: int) -> dict:
    """``SEAT ACT [args] [as CARDS] [@T] [{json}]`` (*line* stripped).

    The common lines (a play, a pass, a bid or grab, with or without ``@T``) are read here
    with one ``str.split``; anything else, every malformed line included, goes to
    :func:`_parse_action_full`, which reads it or raises the error naming the column.
    """
    if "{" not in line:
        tokens = line.split()
        seat = int(tokens[0])
        if len(tokens) > 1:
            act, rest = tokens[1], tokens[2:]
            action: dict[str, Any] = {"seat": seat, "act": act}
            if rest and rest[-1][0] == "@":
                digits = rest[-1][1:]
                if not (digits.isdigit() and digits.isascii() and (digits[0] != "0" or len(digits) == 1)):
                    return _parse_action_full(line, n)
                action["t"] = int(digits)
                del rest[-1]
            if act == "play":
                if "as" in rest:
                    k = rest.index("as")
                    if k:
                        action["cards"], action["as"] = rest[:k], rest[k + 1:]
                        return action
                elif rest:
                    action["cards"] = rest
                    return action
            elif act in _PLAIN_ACTS:
                if not rest:
                    return action
            elif act in _FLAG_OF and len(rest) == 1 and rest[0] in _BOOL_WORDS:
                action[_FLAG_OF[act]] = _BOOL_WORDS[rest[0]]
                return action
    return _parse_action_full(line, n)


def _parse_action_full(line: str, n: int) -> dict:
    """Any action line: the reading of :func:`_parse_action`, or a TextError at the column."""
    body, extra = line, None
    brace = line.find("{")
    if brace >= 0:
        body = line[:brace]
        extra = _json_loads(line[brace:], n, brace + 1, "a JSON object of extra fields")
        if not isinstance(extra, dict):
            raise TextError(n, brace + 1, "expected a JSON object of extra fields")
    tokens, cols = [], []
    for m in re.finditer(r"\S+", body):
        tokens.append(m.group())
        cols.append(m.start() + 1)
    seat = int(tokens[0])
    if len(tokens) < 2:
        raise TextError(n, len(line) + 1, "expected an act after the seat (play, pass, bid, grab, show, ...)")
    act = tokens[1]
    action: dict[str, Any] = {"seat": seat, "act": act}
    rest, rest_cols = tokens[2:], cols[2:]
    if rest and rest[-1].startswith("@"):
        action["t"] = _json_loads(rest[-1][1:], n, rest_cols[-1] + 1, "milliseconds after @ (like @1200)")
        rest, rest_cols = rest[:-1], rest_cols[:-1]
    col_end = rest_cols[-1] if rest_cols else (cols[1] + len(act))

    def need(count: int, what: str) -> None:
        if len(rest) != count:
            at = rest_cols[count] if len(rest) > count else col_end + 1
            raise TextError(n, at, f"expected {what} after {act!r}")

    if act == "play":
        if "as" in rest:
            k = rest.index("as")
            action["cards"], action["as"] = rest[:k], rest[k + 1:]
        else:
            action["cards"] = rest
        if not action["cards"]:
            raise TextError(n, col_end + 1, "expected the cards played (like 0 play 3s 3h)")
    elif act in ("bid", "grab"):
        need(1, "yes or no")
        if rest[0] not in _BOOL_WORDS:
            raise TextError(n, rest_cols[0], f"expected yes or no after {act!r}")
        action["call" if act == "bid" else "grab"] = _BOOL_WORDS[rest[0]]
    elif act == "show":
        need(1, "the factor (5, 4, 3 or 2)")
        if not rest[0].lstrip("-").isdigit():
            raise TextError(n, rest_cols[0], "expected the factor as a whole number (5, 4, 3 or 2)")
        action["factor"] = int(rest[0])
    elif act in ("tribute", "return"):
        need(3, "a card, 'to' and a seat (like 'tribute BJ to 0')")
        if rest[1] != "to" or not rest[2].isdigit():
            raise TextError(n, rest_cols[1], "expected 'to SEAT' after the card")
        action["card"], action["to"] = rest[0], int(rest[2])
    elif act in _PLAIN_ACTS:
        if rest:
            raise TextError(n, rest_cols[0], f"expected nothing after {act!r}")
    else:
        raise TextError(n, cols[1], "expected an act: play, pass, bid, grab, show, peek, tribute, return, resist, escape")
    if extra:
        again = [k for k in extra if k in action]
        if again:  # (it silently replaced what the line says: "1 pass {"act": "play", ...}" was a play)
            raise TextError(n, brace + 1, f"the extra fields repeat the line's own {again[0]!r}; "
                                          f"write it once, on the line or in the braces")
        action.update(extra)
    return action


class _HandBuilder:
    def __init__(self, hand_id: str, line: int):
        self.line = line
        self.record: dict[str, Any] = {"paipu": 1, "id": hand_id}
        self.seats: dict[int, tuple[str, list[str]]] = {}
        self.actions: list[dict] = []
        self.action_lines: list[int] = []
        self.lines: list[str] = []

    def feed(self, line: str, stripped: str, n: int) -> None:
        """One line (an action or not): *line* without its comment, *stripped* also stripped."""
        if stripped[0].isdigit():
            self.actions.append(_parse_action(stripped, n))
            self.action_lines.append(n)
            return
        indent = len(line) - len(line.lstrip())
        if stripped.startswith("game") and (len(stripped) == 4 or stripped[4] in " \t"):
            words = stripped.split()
            if len(words) != 3:
                raise TextError(n, indent + len(stripped) + 1 if len(words) < 3 else indent + 1,
                                'expected the variant after the game (like "game doudizhu huopin")'
                                if len(words) < 3 else 'expected "game GAME VARIANT"')
            if "game" in self.record:  # (the second won, silently)
                raise TextError(n, indent + 1, "game given twice")
            self.record["game"], self.record["variant"] = words[1], words[2]
            return
        if stripped.startswith("seat") and (len(stripped) > 4 and stripped[4] in " \t"):
            m = _PLAIN_SEAT.fullmatch(stripped)  # a bare name right before ':', read as below
            if m and int(m.group(1)) not in self.seats:
                self.seats[int(m.group(1))] = (m.group(2), m.group(3).split())
                return
            m = _SEAT.match(stripped)
            if not m:
                raise TextError(n, indent + 6, "expected a seat number (like 'seat 0 张三: 3s 4h')")
            seat = int(m.group(1))
            name, end = _read_word(stripped, m.end(), n, "the player's name")
            rest = stripped[end:].lstrip()
            if not rest.startswith(":"):
                raise TextError(n, indent + len(stripped) - len(rest) + 1, "expected ':' and the cards dealt after the name")
            if seat in self.seats:
                raise TextError(n, indent + 1, f"seat {seat} given twice")
            self.seats[seat] = (name, rest[1:].split())
            return
        key, sep, value = stripped.partition(":")
        key = key.strip()
        if not sep or not _KEY.fullmatch(key):
            raise TextError(n, indent + 1, "expected 'hand ID', 'game G V', 'seat N NAME: CARDS', 'KEY: VALUE' or an action 'SEAT ACT ...'")
        if key in self.record or key in ("players", "deal", "actions"):
            raise TextError(n, indent + 1, f"field {key!r} given twice or not writable as a field line")
        col = indent + len(key) + 2
        self.record[key] = value.split() if key == "bottom" else _parse_value(value, n, col)

    def finish(self) -> dict:
        seats = sorted(self.seats)
        if seats != list(range(len(seats))):
            raise TextError(self.line, 1, f"expected seats 0..{len(seats) - 1} each once, got {seats}")
        self.record["players"] = [self.seats[s][0] for s in seats]
        self.record["deal"] = [self.seats[s][1] for s in seats]
        self.record["actions"] = self.actions
        for key in ("game", "variant"):
            if key not in self.record:
                raise TextError(self.line, 1, "expected a 'game GAME VARIANT' line in this hand")
        return self.record


def iter_text_lines(lines: Iterable[tuple[int, str, str]], source: str, strict: bool = True,
                    encoding: str = "utf-8") -> Iterator[Item]:
    """Hands from (line number, text, encoding) triples. An item's encoding is its own
    lines': ``gb18030`` when one of them was read so, else the file's (*encoding*, or
    ``utf-8-sig`` from a line 1 with a byte-order mark): the same whatever lines came
    before, so that batches and blocks give the same."""
    builder: _HandBuilder | None = None
    failed: Item | None = None
    base = encoding  # the file's

    def close() -> Item | None:
        nonlocal builder, failed
        if failed is not None:
            item, failed, builder = failed, None, None
            item.raw = short(item.raw or "")
            return item
        if builder is None:
            return None
        b, builder = builder, None
        try:
            record, digest = check_and_hash(b.finish(), action_cards=strict)
        except TextError as e:
            return Item(source, e.line, encoding, code=Code.BAD_RECORD, message=str(e), raw=short("\n".join(b.lines)),
                        hand_id=id_of(b.record))
        except RecordError as e:
            raw = short("\n".join(b.lines))
            line = b.line
            if e.action is not None and e.action < len(b.action_lines):
                line = b.action_lines[e.action]
            return Item(source, line, encoding, code=e.code, message=e.detail, raw=raw,
                        hand_id=id_of(b.record), action=e.action)
        return Item(source, b.line, encoding, record=record, digest=digest)

    for n, raw_line, enc in lines:
        if enc == "utf-8-sig":  # line 1's byte-order mark: the file's encoding
            base = enc
        mine = "gb18030" if enc == "gb18030" else base  # the encoding of an item this line starts
        if type(raw_line) is _BadLine:
            if HAND_TEXT.match(raw_line):  # a hand starts here, and fails at once
                item = close()
                if item:
                    yield item
                encoding = mine
                failed = Item(source, n, encoding, code=Code.BAD_RECORD, message=raw_line.message, raw=raw_line)
            elif failed is not None:
                _add_raw(failed, raw_line)
                if enc == "gb18030":
                    failed.encoding = encoding = enc
            elif builder is not None:
                builder.lines.append(raw_line)
                encoding = "gb18030" if enc == "gb18030" else encoding
                failed = Item(source, n, encoding, code=Code.BAD_RECORD, message=raw_line.message,
                              raw="\n".join(builder.lines))
                builder = None
            else:
                yield Item(source, n, mine, code=Code.BAD_RECORD, message=raw_line.message, raw=short(raw_line))
            continue
        line = strip_comment(raw_line) if "#" in raw_line else raw_line
        stripped = line.strip()
        if not stripped:
            continue
        if stripped[0] == "h" and stripped.startswith("hand") and (len(stripped) == 4 or stripped[4] in " \t"):
            item = close()
            if item:
                yield item
            encoding = mine
            try:
                hand_id, end = _read_word(stripped, 4, n, "the hand id (like 'hand dz-0001')")
                if stripped[end:].strip():
                    raise TextError(n, end + 1, "expected nothing after the hand id")
                builder = _HandBuilder(hand_id, n)
                builder.lines.append(raw_line)
            except TextError as e:
                failed = Item(source, n, encoding, code=Code.BAD_RECORD, message=str(e), raw=raw_line)
            continue
        if failed is not None:
            _add_raw(failed, raw_line)
            if enc == "gb18030":
                failed.encoding = encoding = enc
            continue
        if builder is None:  # lines before the first hand: one reject for the run, at its first line
            encoding = mine
            failed = Item(source, n, encoding, code=Code.BAD_RECORD,
                          message=str(TextError(n, 1, "expected 'hand ID' before anything else")), raw=raw_line)
            continue
        builder.lines.append(raw_line)
        if enc == "gb18030":
            encoding = enc
        if n - builder.line >= MAX_HAND_LINES:  # as _items_of_text: refused, its lines no longer held
            failed = Item(source, builder.line, encoding, code=Code.BAD_RECORD, message=_TOO_LONG,
                          raw=short("\n".join(builder.lines)), hand_id=id_of(builder.record))
            builder = None
            continue
        try:
            builder.feed(line, stripped, n)
        except TextError as e:
            failed = Item(source, n, encoding, code=Code.BAD_RECORD, message=str(e), raw="\n".join(builder.lines),
                          hand_id=id_of(builder.record))
            builder = None
        except (ValueError, IndexError) as e:  # e.g. a seat number too large for int()
            failed = Item(source, n, encoding, code=Code.BAD_RECORD, message=f"line {n}: {e}", raw="\n".join(builder.lines),
                          hand_id=id_of(builder.record))
            builder = None
    item = close()
    if item:
        yield item


def _add_raw(item: Item, line: str) -> None:
    """One more line of a failed hand's raw text, while the text is within what
    :func:`~replay.io.sources.short` keeps (so that a hand followed by a million other
    lines costs their count, not their square)."""
    if len(item.raw or "") <= RAW_LIMIT:
        item.raw = (item.raw or "") + "\n" + line


def parse_text(text: str, source: str = "<text>") -> list[Item]:
    lines = (line.rstrip("\r") for line in text.split("\n"))  # as files are read: lines end at \n only
    return list(iter_text_lines(((n, line, "utf-8") for n, line in enumerate(lines, 1)), source))


class _BadLine(str):
    """A line that cannot be text (a NUL byte, too long): the hand it is in is rejected."""

    message: str = ""


def _bad_line(text: str, message: str) -> _BadLine:
    line = _BadLine(text)
    line.message = message
    return line


def items_of_text_lines(lines: Iterable[tuple[int, bytes]], source: str, strict: bool = True) -> Iterator[Item]:
    """Items of (line number, bytes) pairs of a text-format file (whole hands)."""
    yield from iter_text_lines(_decoded(lines), source, strict)


def _decoded(lines: Iterable[tuple[int, bytes]]) -> Iterator[tuple[int, str, str]]:
    """(line number, text, encoding) of (line number, bytes) pairs; a line that cannot be
    text (too long, a NUL byte) as a :class:`_BadLine`."""
    for n, data in lines:
        if type(data) is LongLine:
            yield n, _bad_line(data.decode("utf-8", "replace") + "…", f"line {n}: {data.message}"), "unknown"
            continue
        try:
            text, enc = decode_line(data, n == 1)
        except UnicodeDecodeError:
            text, enc = data.decode("utf-8", "replace"), "unknown"
        if "\x00" in text:
            text = _bad_line(text.replace("\x00", "\\0"), str(TextError(
                n, text.index("\x00") + 1, "expected text, found a NUL byte (a binary file?)")))
        yield n, text, enc


def items_of_text_blocks(blocks: list[tuple[int, bytes]], source: str, strict: bool = True,
                         base: str = "utf-8") -> Iterator[Item]:
    """Items of consecutive blocks of lines (number of the first line, bytes) as from
    :func:`~replay.io.sources.iter_blocks`: what :func:`items_of_text_lines` gives for
    their lines.  Blocks that are all UTF-8 without NUL bytes or long lines (the usual case)
    are read as one text, hand by hand (:func:`_items_of_text`); else line by line."""
    if all(type(data) is not LongLine for _, data in blocks):
        data = blocks[0][1] if len(blocks) == 1 else b"".join(data for _, data in blocks)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = "\x00"
        if "\x00" not in text:
            if blocks:
                yield from _items_of_text(text, blocks[0][0], source, strict, base)
            return
    lines = (line for first, data in blocks for line in _lines_of_block(first, data))
    yield from iter_text_lines(_decoded(lines), source, strict, base)


#: a line that may start a hand (iter_text_lines decides: comments, 'hand:' fields, ...)
_MAYBE_HAND = re.compile(r"\n[^\S\n]*hand")  # after a line end (the first line: below)
#: a hand id that _read_word reads as a bare word to the end of the line
_BARE_ID = re.compile(r'[^\s:"][^\s:]*')


def _items_of_text(text: str, first: int, source: str, strict: bool, base: str = "utf-8") -> Iterator[Item]:
    """The items of :func:`iter_text_lines` for *text*, lines numbered from *first*.

    Each hand is first read by :func:`_plain_hand`, which takes only a hand without
    comments that reads without error; any other hand, and any line before the first, is
    read by iter_text_lines alone (a hand's reading does not depend on the lines before
    its ``hand`` line).
    """
    encoding = base  # the file's, told by the caller after line 1
    if text.startswith("\ufeff"):  # a block starts at a line start: a mark there is skipped
        text = text[1:]
        if first == 1:
            encoding = "utf-8-sig"  # the encoding of line 1 holds for the rest, as there
    if "\n\ufeff" in text:  # files concatenated, each with its mark: skipped (decode_line)
        text = text.replace("\n\ufeff", "\n")
    starts: list[tuple[int, int]] = []  # (line index, text position) of each hand line
    index = at = 0
    maybe = [0] if text.lstrip().startswith("hand") else []
    for pos in maybe + [m.start() + 1 for m in _MAYBE_HAND.finditer(text)]:
        index += text.count("\n", at, pos)
        at = pos
        eol = text.find("\n", pos)
        line = text[pos:eol if eol >= 0 else len(text)]
        stripped = (strip_comment(line) if "#" in line else line).strip()
        if len(stripped) == 4 or stripped[4] in " \t":  # as iter_text_lines tells a hand line
            starts.append((index, at))
    starts.append((index + text.count("\n", at) + (not text.endswith("\n")), len(text)))

    def lines_of(pos: int, next_pos: int) -> list[str]:
        """The lines of text[pos:next_pos] (whole lines), split only now: a hand at a time."""
        lines = text[pos:next_pos].split("\n")
        if text.endswith("\n", pos, next_pos) or not lines[-1]:
            lines.pop()
        return [line.rstrip("\r") for line in lines] if "\r" in text else lines

    def plain(begin: int, lines: list[str]) -> Iterator[Item]:
        yield from iter_text_lines(zip(range(first + begin, first + begin + len(lines)), lines, repeat("utf-8")),
                                   source, strict, encoding)

    if starts[0][0] > 0:
        yield from plain(0, lines_of(0, starts[0][1]))
    for (begin, pos), (end, next_pos) in zip(starts, starts[1:]):
        if end - begin > MAX_HAND_LINES:  # refused unread: its lines and actions would cost their number
            head = text[pos:min(next_pos, pos + RAW_LIMIT + 1)]
            yield Item(source, first + begin, encoding, code=Code.BAD_RECORD, message=_TOO_LONG, raw=short(head),
                       hand_id=id_of({"id": head.split("\n", 1)[0].strip()[4:].strip()}))
            continue
        lines = lines_of(pos, next_pos)
        item = None if text.find("#", pos, next_pos) >= 0 else _plain_hand(lines, 0, len(lines), first + begin,
                                                                            source, strict)
        if item is None:
            yield from plain(begin, lines)
        else:
            item.encoding = encoding
            yield item


#: the most lines a hand of the text format may have (docs/format.md): the most actions a
#: hand may have (record.MAX_ACTIONS) and as many lines again for the rest; a longer
#: hand is refused without being read
MAX_HAND_LINES = 2 * MAX_ACTIONS
_TOO_LONG = (f"a hand of more than {MAX_HAND_LINES:,} lines (a hand has at most {MAX_ACTIONS:,} actions): "
             "not read, nor its lines up to the next hand")



def _plain_hand(lines: list[str], begin: int, end: int, first: int, source: str, strict: bool) -> Item | None:
    """The hand in ``lines[begin:end]`` (no comments) as iter_text_lines reads it, when it
    is a good record with a bare id; else None (iter_text_lines then says what is wrong)."""
    hand_id = lines[begin].strip()[4:].lstrip(" \t")
    if not _BARE_ID.fullmatch(hand_id):
        return None
    builder = _HandBuilder(hand_id, first + begin)
    try:
        LINES(lines, begin + 1, end, first + begin + 1, builder)
        record, digest = check_and_hash(builder.finish(), action_cards=strict)
    except (TextError, RecordError, ValueError, IndexError):
        return None
    return Item(source, first + begin, "utf-8", record=record, digest=digest)


def _lines(lines: list[str], begin: int, end: int, n: int, builder: _HandBuilder) -> None:
    """The lines ``lines[begin:end]`` of a hand without comments (line *begin* is line
    number *n*) into *builder*: action lines read by :func:`_parse_action`, others by
    ``builder.feed``. The reference of the compiled kernel's loop, which reads the usual
    game, seat and field lines itself."""
    add, feed = builder.actions.append, builder.feed
    for line in lines[begin:end]:
        stripped = line.strip()
        if stripped:
            if stripped[0].isdigit():
                add(_parse_action(stripped, n))
            else:
                feed(line, stripped, n)
        n += 1


#: the compiled kernel's seam: the loop of _plain_hand, the kernel's (replay/_kernel.pyx,
#: given this module's readers for the lines it leaves to them) where it is built, which
#: gives the same record or the same exception; _lines, the reference, otherwise
LINES: Callable[[list[str], int, int, int, _HandBuilder], None]
if compiled is None:
    LINES = _lines
else:
    compiled.text_setup(_parse_action_full, _PLAIN_SEAT.fullmatch, _KEY.fullmatch, _NUMBER.match)
    LINES = compiled.text_lines


def _lines_of_block(first: int, data: bytes) -> Iterator[tuple[int, bytes]]:
    if type(data) is LongLine:
        yield first, data
        return
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    for n, line in enumerate(lines, first):
        yield n, line.rstrip(b"\r")


#: a line that starts a hand (comments start with '#', so they never match)
HAND_LINE = re.compile(rb"^\s*hand(\s|$)")
#: HAND_LINE on the lines after the first of a block (a line has no \\n); the leading
#: \\n lets the regex engine skip from line end to line end
_NEXT_HAND_LINE = re.compile(rb"\n(?:\xef\xbb\xbf)?[ \t\r\f\v]*hand(?=[ \t\r\f\v\n]|$)")


def hand_starts(block: bytes, first: int) -> list[int]:
    """Where the lines of *block* that start a hand (:data:`HAND_LINE`) begin; *first* is
    the number of its first line (line 1 may begin with a byte-order mark)."""
    end = block.find(b"\n")
    head = block[:end] if end >= 0 else block
    if head.startswith(b"\xef\xbb\xbf"):  # a byte-order mark at a line start is skipped
        head = head[3:]
    starts = [0] if HAND_LINE.match(head) else []
    if end >= 0:
        starts += [m.start() + 1 for m in _NEXT_HAND_LINE.finditer(block, end)]
    return starts
HAND_TEXT = re.compile(r"^\s*hand(\s|$)")


#: a batch of :func:`text_batches` is cut at this many bytes of input too (memory stays
#: bounded with long lines, and with lines outside any hand)
CHUNK_BYTES = 64 * 1024 * 1024


def cut_hand(blocks: list[tuple[int, bytes]], error: ReadError, source: str) -> tuple[list[tuple[int, bytes]], Item | None]:
    """Blocks of a text file read up to *error*: the blocks before the file's last hand
    line, and that hand as a rejected :class:`Item` (the error may have cut it short: its
    end is unknown, so it is not taken as whole). No hand line in the blocks: all of
    them, and None."""
    for k in range(len(blocks) - 1, -1, -1):
        first, data = blocks[k]
        starts = hand_starts(data, first)
        if starts:
            at = starts[-1]
            head = data[at:].split(b"\n", 1)[0].rstrip(b"\r")
            line = first + data.count(b"\n", 0, at)
            kept = blocks[:k] + ([(first, data[:at])] if at else [])
            text = head.decode("utf-8", "replace").strip()
            item = Item(source, line, "unknown", code=Code.BAD_RECORD, raw=short(text),
                        message=f"hand cut short: the file cannot be read past line {error.line - 1}, so its end is "
                                "unknown (not taken)",
                        hand_id=text[4:].strip() or None)
            return kept, item
    return blocks, None


@dataclass
class TextBatch:
    """Whole hands of a text file as blocks of lines (number of the first, bytes), what
    :func:`items_of_text_blocks` reads; the file's encodings; the read error that ended
    the file, and the hand it may have cut short (:func:`cut_hand`)."""

    blocks: list[tuple[int, bytes]]
    size: int
    base: str  # the encoding line 1 tells for the file's UTF-8 lines
    encoding: str | None  # the file's when it is not told line by line (UTF-16)
    error: ReadError | None = None
    cut: Item | None = None


def text_batches(path: str, source: str, batch_size: int, batch_bytes: int) -> Iterator[TextBatch]:
    """The blocks of a text-format file (plain or gzip) in batches of at most *batch_size*
    hands, cut where a hand starts (the ``hand`` lines found by one search per block, not
    line by line) or at *batch_bytes*. Lines outside any hand are cut at the end of the
    block that reaches *batch_bytes*, and so is a "hand" four times as long (no real hand
    is), so that memory stays bounded whatever the file holds. A read error ends the last
    batch: the hand it may have cut short is taken out of its blocks (:func:`cut_hand`)."""
    blocks: list[tuple[int, bytes]] = []
    hands = size = 0
    encoding: list[str] = []
    base = "utf-8"

    def batch(**kw: Any) -> TextBatch:
        return TextBatch(blocks, size, base, encoding[0] if encoding else None, **kw)

    try:
        for first, block in iter_blocks(path, encoding):
            if first == 1:
                base = file_encoding(block)
            starts = hand_starts(block, first)  # a LongLine starts a hand if its head does
            at = 0  # the part of the block before *at* is in a batch already
            for start in starts:
                if hands >= batch_size or size + start - at >= batch_bytes:
                    if start > at:
                        blocks.append((first, block[at:start]))
                        size += start - at
                        first += block.count(b"\n", at, start)
                        at = start
                    if blocks:
                        yield batch()
                    blocks, hands, size = [], 0, 0
                hands += 1
            blocks.append((first, block[at:] if at else block))
            size += len(block) - at
            if size >= batch_bytes and (hands == 0 or size >= 4 * batch_bytes):
                yield batch()
                blocks, hands, size = [], 0, 0
    except ReadError as e:
        blocks, cut = cut_hand(blocks, e, source) if e.line else (blocks, None)
        yield batch(error=e, cut=cut)
        return
    if blocks:
        yield batch()


#: hands read at a time by :func:`iter_text`
ITER_HANDS = 1_000


def iter_text(path: str, source: str | None = None, strict: bool = True) -> Iterator[Item]:
    """Every hand of a text-format file (plain or gzip) as an :class:`Item`: read in the
    batches ingest reads (:func:`text_batches`), so that both give the same items; a hand a
    read error may have cut short is rejected, then the error."""
    source = source or path
    for b in text_batches(path, source, ITER_HANDS, CHUNK_BYTES):
        for item in items_of_text_blocks(b.blocks, source, strict, b.base):
            if b.encoding and item.record is not None:
                item.encoding = b.encoding
            yield item
        if b.cut is not None:
            yield b.cut
        if b.error is not None:
            e = b.error
            yield Item(source, e.line, "unknown", code=Code.BAD_RECORD, message=e.message, unreadable=e.line == 0)
