"""An operator's own JSON logs, read by a mapping file (``paipu ingest --from mapping.toml``).

The mapping (TOML, docs/formats.md §7, examples in docs/examples/) says where each record
field lives in one game's JSON, how cards are spelled, what the action names mean, how seats
are numbered and how messages duplicated per seat collapse.  A path is keys and list
indexes joined by dots (``结果.地主``, ``players.0.name``); ``*`` takes every entry of a list
(``玩家.*.昵称``: each player's name).

>>> lookup({"a": {"b": [1, {"c": 2}]}}, "a.b.1.c"), lookup({"x": [{"n": 1}, {"n": 2}]}, "x.*.n")
(2, [1, 2])
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ..cards import CARD_OF, CARD_NAMES, RANK_NAMES
from ..games import UnknownGame, find_game
from .foreign import Doc, FormatError, documents, hand_id, items_of_documents
from .sources import Item

_MISSING = object()


class MappingError(ValueError):
    """A mapping file that cannot be used (the message names the file and the key)."""


def lookup(obj: Any, path: str, default: Any = _MISSING) -> Any:
    """The value at *path* in *obj* (``*``: every entry of a list); *default* when absent,
    else FormatError naming the path."""
    parts = path.split(".") if path else []
    value = _walk(obj, parts, path)
    if value is _MISSING:
        if default is _MISSING:
            raise FormatError(path, "a value here (the mapping's path)")
        return default
    return value


def _walk(obj: Any, parts: list[str], path: str) -> Any:
    for k, part in enumerate(parts):
        if part == "*":
            if not isinstance(obj, list):
                return _MISSING
            rest = parts[k + 1:]
            out = [_walk(x, rest, path) for x in obj]
            return _MISSING if any(x is _MISSING for x in out) else out
        if isinstance(obj, dict):
            obj = obj.get(part, _MISSING)
        elif isinstance(obj, list) and part.lstrip("-").isdigit() and -len(obj) <= int(part) < len(obj):
            obj = obj[int(part)]
        else:
            return _MISSING
        if obj is _MISSING:
            return _MISSING
    return obj


#: card notations a mapping may name (``[cards] notation``)
NOTATIONS = ("paipu", "suit-first", "int-rank-major", "int-suit-major")
#: fields of the record a mapping may place, and what kind of value each is
SEAT_FIELDS = ("leader", "result.landlord")
_SUIT_SIGNS = {"♠": "s", "♥": "h", "♦": "d", "♣": "c", "S": "s", "H": "h", "D": "d", "C": "c",
               "s": "s", "h": "h", "d": "d", "c": "c", "♤": "s", "♡": "h", "♢": "d", "♧": "c"}


@dataclass
class Mapping:
    source: str
    game: str
    variant: str | None
    records: str | None
    fields: dict[str, str]
    player_seats: str | None
    action_list: str
    action_fields: dict[str, str]
    keep: list[str]
    acts: dict[str, dict]
    notation: str
    first: int
    suits: str
    card_table: dict[str, str]
    seat_base: int
    seat_names: dict[str, int]
    duplicate_key: str | None
    #: fields in which the copies of one message may differ (the receiving seat)
    duplicate_vary: list[str]
    constants: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, data: dict, source: str) -> Mapping:
        def bad(key: str, expected: str) -> MappingError:
            return MappingError(f"{source}: {key}: expected {expected}")

        known = {"game", "variant", "records", "fields", "actions", "acts", "cards", "seats", "duplicates", "constants"}
        for key in data:
            if key not in known:
                raise bad(key, f"one of {', '.join(sorted(known))}")
        game = data.get("game")
        try:
            game = find_game(game if isinstance(game, str) else "").name
        except UnknownGame:
            raise bad("game", f"a game paipu knows (doudizhu, paodekuai, guandan, shuangkou), got {game!r}") from None
        fields = data.get("fields", {})
        if not isinstance(fields, dict) or not all(isinstance(v, str) for v in fields.values()):
            raise bad("fields", "a table of record field = path")
        allowed = {"id", "players", "deal", "bottom", "leader", "time", "level", "levels", "lead_card", "stacks",
                   "player_seats"} | {f"room.{k}" for k in ("name", "base", "coef", "fee", "multiplier", "xiqian")} \
            | {f"result.{k}" for k in ("landlord", "order", "scores", "coins", "multiplier", "spring", "winner")}
        for key in fields:
            if key not in allowed:
                raise bad(f"fields.{key}", f"a record field, one of {', '.join(sorted(allowed))}")
        if "deal" not in fields:
            raise bad("fields.deal", "the path of the dealt cards")
        actions = data.get("actions")
        if not isinstance(actions, dict) or not isinstance(actions.get("list"), str) or not isinstance(actions.get("act"), str):
            raise bad("actions", 'a table with list = path of the action messages and act = path of the action name in one')
        acts: dict[str, dict] = {}
        table = data.get("acts")
        if not isinstance(table, dict) or not table:
            raise bad("acts", 'a table of source action name = paipu act ("play", "pass", ...) or {act = "bid", call = true}')
        from ..record import ACTS

        for name, meaning in table.items():
            spec = {"act": meaning} if isinstance(meaning, str) else meaning
            if not isinstance(spec, dict) or spec.get("act") not in (*ACTS, "ignore"):
                raise bad(f"acts.{name}", f"one of {', '.join(ACTS)} or ignore, or a table with act = one of them")
            acts[str(name)] = dict(spec)
        def section(key: str, keys: tuple[str, ...]) -> dict:
            value = data.get(key, {})
            if not isinstance(value, dict):
                raise bad(key, "a table")
            for k in value:
                if k not in keys:
                    raise bad(f"{key}.{k}", f"one of {', '.join(keys)}")
            return value

        def typed(value: Any, kind: type, key: str, expected: str) -> Any:
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise bad(key, f"{expected}, got {value!r}")
            return value

        for key in ("list", "act", "seat", "cards", "t", "factor"):
            if key in actions:
                typed(actions[key], str, f"actions.{key}", "a path")
        for key in actions:
            if key not in ("list", "act", "seat", "cards", "t", "factor", "keep"):
                raise bad(f"actions.{key}", "one of list, act, seat, cards, t, factor, keep")
        keep = typed(actions.get("keep", []), list, "actions.keep", "a list of paths")
        for j, path in enumerate(keep):
            typed(path, str, f"actions.keep[{j}]", "a path")
        cards = section("cards", ("notation", "first", "suits", "table"))
        notation = cards.get("notation", "paipu")
        if notation not in NOTATIONS:
            raise bad("cards.notation", f"one of {', '.join(NOTATIONS)}, got {notation!r}")
        card_table = {str(k): v for k, v in typed(cards.get("table", {}), dict, "cards.table", "a table").items()}
        for token, v in card_table.items():
            if not isinstance(v, str) or v not in CARD_OF:
                raise bad(f"cards.table.{token}", f"a card like '3h', 'Ts' or 'BJ', got {v!r}")
        card_table = {k: CARD_NAMES[CARD_OF[v]] for k, v in card_table.items()}
        suits = cards.get("suits", "shdc")
        if not isinstance(suits, str) or sorted(suits) != sorted("shdc"):
            raise bad("cards.suits", f"the four suits s h d c in the source's order, got {suits!r}")
        first = typed(cards.get("first", 0), int, "cards.first", "an integer")
        seats = section("seats", ("base", "names"))
        base = typed(seats.get("base", 0), int, "seats.base", "an integer")
        names = {str(k): v for k, v in typed(seats.get("names", {}), dict, "seats.names", "a table").items()}
        for name, v in names.items():
            typed(v, int, f"seats.names.{name}", "a seat number from 0")
        dup = section("duplicates", ("key", "vary"))
        dup_key = dup.get("key")
        if dup_key is not None:
            typed(dup_key, str, "duplicates.key", "a path")
        vary = typed(dup.get("vary", []), list, "duplicates.vary", "a list of field names")
        for name in ("variant", "records"):
            if name in data:
                typed(data[name], str, name, "a string")
        variants = find_game(game).variants
        if "variant" in data and data["variant"] not in variants:  # (each record was rejected, exit 0)
            raise bad("variant", f"a variant of {game} ({', '.join(variants)}), got {data['variant']!r}")
        constants = typed(data.get("constants", {}), dict, "constants", "a table of record fields")
        return cls(source, game, data.get("variant"), data.get("records"), {k: v for k, v in fields.items() if k != "player_seats"},
                   fields.get("player_seats"), actions["list"],
                   {k: v for k, v in actions.items() if k in ("seat", "act", "cards", "t", "factor")}, list(keep),
                   acts, notation, first, suits, card_table, base, names, dup_key, [str(v) for v in vary], dict(constants))

    # ------------------------------------------------------------------ values

    def card(self, token: Any, where: str) -> str:
        key = str(token)
        if key in self.card_table:
            return self.card_table[key]
        if self.notation.startswith("int-"):
            if isinstance(token, bool) or not isinstance(token, int) or not 0 <= token - self.first < 54:
                raise FormatError(where, f"a card number {self.first}..{self.first + 53}, got {token!r}")
            c = token - self.first
            if c >= 52:
                return "SJ" if c == 52 else "BJ"
            rank, suit = (c // 4, c % 4) if self.notation == "int-rank-major" else (c % 13, c // 13)
            return RANK_NAMES[rank] + self.suits[suit]
        if isinstance(token, str):
            text = token.strip()
            if self.notation == "suit-first" and len(text) >= 2 and text[0] in _SUIT_SIGNS:
                text = text[1:] + _SUIT_SIGNS[text[0]]
            if text in CARD_OF:
                return CARD_NAMES[CARD_OF[text]]
        raise FormatError(where, f"a card ({self.notation} notation{' or the mapping table' if self.card_table else ''}), got {token!r}")

    def cards(self, value: Any, where: str) -> list[str]:
        if isinstance(value, str):
            value = value.replace(",", " ").split()
        if not isinstance(value, list):
            raise FormatError(where, f"a list of cards, got {value!r}")
        return [self.card(t, f"{where}[{k}]") for k, t in enumerate(value)]

    def seat(self, value: Any, where: str, n: int) -> int:
        if self.seat_names:
            if str(value) in self.seat_names:
                return self.seat_names[str(value)]
            raise FormatError(where, f"a seat ({', '.join(self.seat_names)}), got {value!r}")
        if isinstance(value, str) and value.isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value - self.seat_base < n:
            raise FormatError(where, f"a seat {self.seat_base}..{self.seat_base + n - 1}, got {value!r}")
        return value - self.seat_base

    # ------------------------------------------------------------------ one game

    def record(self, obj: Any, source: str, doc: Doc) -> dict:
        rules = find_game(self.game).variants
        variant = self.variant or next(iter(rules))
        n = rules[variant].players if variant in rules else 3
        where = {k: v for k, v in self.fields.items()}
        order = None
        if self.player_seats:
            order = [self.seat(s, f"{self.player_seats}[{k}]", n)
                     for k, s in enumerate(lookup(obj, self.player_seats))]

        def by_seat(values: list, path: str) -> list:
            if order is None:
                return values
            if len(values) != len(order) or sorted(order) != list(range(n)):
                raise FormatError(self.player_seats or path, f"each of the {n} seats once")
            out: list = [None] * n
            for s, v in zip(order, values):
                out[s] = v
            return out

        deal_value = lookup(obj, where["deal"])
        if isinstance(deal_value, dict):  # {seat: cards}
            deal_value = [deal_value[k] for k in sorted(deal_value, key=lambda k: self.seat(k, where["deal"], n))]
        if not isinstance(deal_value, list):
            raise FormatError(where["deal"], "each seat's dealt cards")
        deal = by_seat([self.cards(h, f"{where['deal']}[{k}]") for k, h in enumerate(deal_value)], where["deal"])
        record: dict = {"paipu": 1, "id": "", "game": self.game, "variant": variant}
        if "players" in where:
            players = lookup(obj, where["players"])
            if not isinstance(players, list):
                raise FormatError(where["players"], "the players' names, a list")
            record["players"] = by_seat([str(p) for p in players], where["players"])
        else:
            record["players"] = [f"seat {s}" for s in range(len(deal))]
        record["deal"] = deal
        if "bottom" in where:
            record["bottom"] = self.cards(lookup(obj, where["bottom"]), where["bottom"])
        record["actions"] = self.actions(obj, n)
        for key, path in where.items():
            if key in ("deal", "players", "bottom", "id"):
                continue
            value = lookup(obj, path, None)
            if value is None:
                continue
            if key in SEAT_FIELDS:
                value = self.seat(value, path, n)
            elif key == "result.order":
                value = [self.seat(s, f"{path}[{k}]", n) for k, s in enumerate(value)] if isinstance(value, list) else value
            elif key == "lead_card":
                value = self.card(value, path)
            head, _, tail = key.partition(".")
            if tail:
                record.setdefault(head, {})[tail] = value
            else:
                record[key] = value
        for key, value in self.constants.items():
            record.setdefault(key, value)
        ids = {"id": lookup(obj, where["id"], None)} if "id" in where else {}
        record["id"] = hand_id(ids, source, doc, "operator")
        return record

    def actions(self, obj: Any, n: int) -> list[dict]:
        path = self.action_list
        messages = lookup(obj, path)
        if not isinstance(messages, list):
            raise FormatError(path, "a list of action messages")
        f = self.action_fields
        seen: dict[str, int] = {}
        out = []
        for k, m in enumerate(messages):
            here = f"{path}[{k}]"
            if self.duplicate_key is not None:
                key = lookup(m, self.duplicate_key, None)
                if key is not None:
                    hashable = repr(key)
                    if hashable in seen:  # the same message as another seat received it
                        j = seen[hashable]
                        if self._differ(messages[j], m):
                            raise FormatError(here, f"a copy of {path}[{j}] (the same {self.duplicate_key})"
                                              + (f", differing only in {', '.join(self.duplicate_vary)}" if self.duplicate_vary else ""))
                        continue
                    seen[hashable] = k
            name = lookup(m, f["act"], None)
            spec = self.acts.get(str(name)) if name is not None else None
            if spec is None:
                raise FormatError(f"{here}.{f['act']}", f"an action name of the mapping ({', '.join(self.acts)}), got {name!r}")
            if spec["act"] == "ignore":
                continue
            action: dict = {"seat": self.seat(lookup(m, f.get("seat", "seat")), f"{here}.{f.get('seat', 'seat')}", n), **spec}
            if spec["act"] == "play":
                action["cards"] = self.cards(lookup(m, f.get("cards", "cards")), f"{here}.{f.get('cards', 'cards')}")
            elif spec["act"] in ("tribute", "return"):
                action["card"] = self.card(lookup(m, f.get("cards", "cards")), f"{here}.{f.get('cards', 'cards')}")
            for key in ("t", "factor") if spec["act"] == "show" else ("t",):
                if key in f and key not in spec:
                    value = lookup(m, f[key], None)
                    if value is not None:
                        action[key] = value
            for extra in self.keep:
                value = lookup(m, extra, None)
                if value is not None:
                    action[extra.rsplit(".", 1)[-1]] = value
            out.append(action)
        return out

    def _differ(self, a: Any, b: Any) -> bool:
        if not (isinstance(a, dict) and isinstance(b, dict)):
            return bool(a != b)
        vary = set(self.duplicate_vary)
        return {k: v for k, v in a.items() if k not in vary} != {k: v for k, v in b.items() if k not in vary}

    def items(self, lines: Iterable[tuple[int, bytes]], source: str, strict: bool = True) -> Iterator[Item]:
        docs = documents(lines)
        if self.records:
            docs = self._split(docs)
        return items_of_documents(docs, source, self.record, strict)

    def _split(self, docs: Iterable[Doc]) -> Iterator[Doc]:
        import orjson

        path = self.records or ""
        for doc in docs:
            games = _walk(doc.value, path.split("."), path) if doc.error is None else _MISSING
            if doc.error is not None or not isinstance(games, list):
                yield doc if doc.error is not None else Doc(doc.line, None, doc.raw, error=f'field "{path}": expected the list of games')
                continue
            for k, g in enumerate(games):
                yield Doc(doc.line, g, orjson.dumps(g).decode()[:100_000], f"{path}[{k}]")


@cache
def load_mapping(path: str) -> Mapping:
    """The mapping file at *path* (cached: ingest's workers load it once); MappingError
    when it cannot be read or used."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
        # UTF-8, a byte-order mark allowed (an editor's; tomllib refused it as "Invalid statement")
        data = tomllib.loads(raw.decode("utf-8-sig"))
    except OSError as e:
        raise MappingError(f"{path}: cannot read the mapping ({e.strerror or e})") from None
    except UnicodeDecodeError as e:  # (was "--from 'utf-8' codec can't decode ...", the file unnamed)
        line = raw[:e.start].count(b"\n") + 1
        raise MappingError(f"{path}: not UTF-8 text (line {line}, byte {e.start}: {e.reason}); "
                           f"save the mapping as UTF-8") from None
    except tomllib.TOMLDecodeError as e:
        raise MappingError(f"{path}: not valid TOML ({e})") from None
    return Mapping.of(data, path)


def is_mapping(fmt: str) -> bool:
    """``--from`` names a mapping file rather than a format."""
    return fmt.lower().endswith(".toml")


def items_of_mapping_lines(fmt: str, lines: Iterable[tuple[int, bytes]], source: str, strict: bool = True) -> Iterator[Item]:
    return load_mapping(fmt).items(lines, source, strict)
