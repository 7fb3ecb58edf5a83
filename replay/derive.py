"""Rows of the audit tables from a replay: ``verdicts``, ``plays``, ``outcomes``, ``seats``.

Each table is keyed by hand id (+ action index or seat); the game comes from the
partition folder.  Schemas are fixed here so that DuckDB sees the same columns in every
part file, whatever game wrote it.
"""

from __future__ import annotations

import pyarrow as pa

from .games import games
from .replayer import Replay
from .rows import of_replay
from .table import Table, _same

VERDICTS = pa.schema([
    ("hand_id", pa.string()), ("variant", pa.string()), ("ok", pa.bool_()), ("code", pa.string()),
    ("action", pa.int32()), ("seat", pa.int8()), ("message", pa.string()),
])
PLAYS = pa.schema([
    ("hand_id", pa.string()), ("variant", pa.string()), ("idx", pa.int32()), ("seat", pa.int8()),
    ("kind", pa.string()), ("rank", pa.string()), ("key", pa.int64()), ("size", pa.int16()),
    ("bomb", pa.bool_()), ("tier", pa.int16()), ("stars", pa.int16()), ("led", pa.bool_()), ("beat", pa.bool_()),
    ("multiplier", pa.int64()),
])
#: the outcome columns every game fills (AuditRows.add writes a row's values in this order)
OUTCOME_BASE = [
    ("hand_id", pa.string()), ("variant", pa.string()), ("ok", pa.bool_()), ("n_actions", pa.int32()),
    ("n_tricks", pa.int32()), ("finish_order", pa.list_(pa.int8())), ("winner", pa.int8()), ("winning_side", pa.string()),
    ("first_leader", pa.int8()), ("multiplier", pa.int64()), ("bombs", pa.int16()), ("rockets", pa.int16()), ("escape", pa.int8()),
    ("scores", pa.list_(pa.float64())), ("coins", pa.list_(pa.float64())), ("mismatched", pa.list_(pa.string())),
    ("params", pa.string()),
]


def arrow_type(name: str | pa.DataType) -> pa.DataType:
    """The Arrow type of a game's outcome column by its name (:attr:`Game.outcome_columns
    <replay.game.Game.outcome_columns>`: the engine holds no Arrow): an alias of
    ``pa.type_for_alias`` or ``list<...>`` of one; an Arrow type is itself.

    >>> arrow_type("int8"), arrow_type("list<float64>")
    (DataType(int8), ListType(list<item: double>))
    """
    if isinstance(name, pa.DataType):
        return name
    if name.startswith("list<") and name.endswith(">"):
        return pa.list_(arrow_type(name[5:-1]))
    return pa.type_for_alias(name)


def outcomes_schema() -> pa.Schema:
    """The ``outcomes`` columns: the common ones, then every registered game's own (each part
    file has them all, so that a query naming one game's column runs on any dataset)."""
    cols = dict(OUTCOME_BASE)
    for game in games():
        for name, kind_name in game.outcome_columns.items():
            kind = arrow_type(kind_name)
            if cols.setdefault(name, kind) != kind:
                raise TypeError(f"outcome column {name!r} of {game.name} is {kind}, another game has {cols[name]}")
    return pa.schema(list(cols.items()))


OUTCOMES = outcomes_schema()
SEATS = pa.schema([
    ("hand_id", pa.string()), ("variant", pa.string()), ("seat", pa.int8()), ("player", pa.string()),
    ("role", pa.string()), ("place", pa.int8()), ("cards_left", pa.int16()), ("cards_played", pa.int16()),
    ("plays", pa.int16()), ("bombs_played", pa.int16()), ("bombs_held", pa.int16()), ("score", pa.float64()),
    ("coin", pa.float64()),
])
AUDIT_TABLES = {"verdicts": VERDICTS, "plays": PLAYS, "outcomes": OUTCOMES, "seats": SEATS}


#: the outcome columns only some games fill (each part file has them all)
_GAME_COLUMNS = tuple(OUTCOMES.names[len(OUTCOME_BASE):])
_BASE_NAMES = tuple(name for name, _ in OUTCOME_BASE)
_BASE_COLUMNS = frozenset(_BASE_NAMES)


class AuditRows:
    """The four audit tables for a batch of hands: ``plays`` as columns (one list per
    column, extended hand by hand: the big one), the others as one tuple per row in the
    schema's column order, turned into columns at once (``zip``) when the batch is done."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple]] = {name: [] for name in AUDIT_TABLES if name != "plays"}
        self.plays: dict[str, list] = {name: [] for name in PLAYS.names}

    def add(self, record: dict, r: Replay) -> None:
        hand_id, variant = record.get("id"), record.get("variant")
        v = r.violation
        self.rows["verdicts"].append((hand_id, variant, True, None, None, None, None) if v is None else
                                     (hand_id, variant, False, str(v.code), v.action, v.seat, v.message))
        n_actions = len(record.get("actions") or ())
        hand = of_replay(r)
        if hand is None:
            self.rows["outcomes"].append(_failed_outcome(hand_id, variant, n_actions, record))
            return
        plays = hand.plays
        if plays:
            p = self.plays
            count = len(plays)
            p["hand_id"] += [hand_id] * count
            p["variant"] += [variant] * count
            p["idx"] += plays.action
            p["seat"] += plays.seat
            p["kind"] += plays.kind
            p["rank"] += plays.rank
            p["key"] += plays.key
            p["size"] += plays.size
            p["bomb"] += [t > 0 for t in plays.tier]
            p["tier"] += plays.tier
            p["stars"] += plays.stars
            p["led"] += plays.led
            p["beat"] += [not x for x in plays.led]
            p["multiplier"] += plays.multiplier
        if not r.ok:
            self.rows["outcomes"].append(_failed_outcome(hand_id, variant, n_actions, record))
            return
        out = r.outcome
        declared = result if isinstance(result := record.get("result"), dict) else {}
        assert r.table is not None  # of_replay(r) is None exactly when no table was set up
        if type(r.table).canonical_result is Table.canonical_result:
            mismatched = []  # the replay compared the declared result as it is: a legal hand matched it
        else:
            mismatched = [k for k, value in declared.items() if k in out and not _same(value, out[k])]
        order = out.get("order") or []
        scores, coins = out.get("scores"), out.get("coins")
        row: tuple[object, ...] = (hand_id, variant, True, n_actions, hand.tricks, order, order[0] if order else None, hand.winning_side,
               hand.first_leader, out.get("multiplier"), hand.bombs, hand.rockets, out.get("escape"), scores, coins,
               mismatched, _params(record))
        game_columns = hand.game_columns
        common = game_columns.keys() & _BASE_COLUMNS
        if common:  # a game's own value for a common column wins
            row = tuple(game_columns[name] if name in common else value for name, value in zip(_BASE_NAMES, row))
        self.rows["outcomes"].append(row + tuple(map(game_columns.get, _GAME_COLUMNS)))
        scores, coins = scores or [], coins or []
        players = record.get("players") or []
        self.rows["seats"] += [
            (hand_id, variant, k, players[k] if k < len(players) else None, seat.role,
             order.index(k) + 1 if k in order else None, seat.cards_left, seat.cards_played, seat.plays,
             seat.bombs_played, seat.bombs_held, scores[k] if k < len(scores) else None,
             coins[k] if k < len(coins) else None)
            for seat in hand.seats for k in (seat.seat,)]

    def tables(self) -> tuple[dict[str, pa.Table], list[tuple[str, str | None]]]:
        """The four tables, and the hands with a value no column can hold (e.g. coins
        beyond what a double holds exactly) as (id, their verdict code before, None if
        ok): those get a ``bad_record`` verdict naming the column instead of their rows,
        and the rest of the batch is kept."""
        try:
            return self._convert(), []
        except _CONVERSION_ERRORS:
            pass
        # the rare slow path: find the hands with a bad value, value by value
        rows = {name: [dict(zip(AUDIT_TABLES[name].names, row)) for row in table_rows]
                for name, table_rows in self.rows.items()}
        bad: dict[str, str] = {}
        for name, table_rows in rows.items():
            for row in table_rows:
                for column, value in row.items():
                    try:
                        pa.array([value], AUDIT_TABLES[name].field(column).type)
                    except _CONVERSION_ERRORS as e:
                        bad.setdefault(row["hand_id"], f"{name}.{column}: {e}")
        for column, values in self.plays.items():
            kind = PLAYS.field(column).type
            try:
                pa.array(values, kind)
            except _CONVERSION_ERRORS:
                for hand_id, value in zip(self.plays["hand_id"], values):
                    try:
                        pa.array([value], kind)
                    except _CONVERSION_ERRORS as e:
                        bad.setdefault(hand_id, f"plays.{column}: {e}")
        before: dict[str, str | None] = {}
        for name, table_rows in rows.items():
            kept = []
            for row in table_rows:
                hand_id = row["hand_id"]
                if hand_id not in bad:
                    kept.append(row)
                elif name == "verdicts":
                    before[hand_id] = row["code"]
                    kept.append(dict(row, ok=False, code="bad_record", action=None, seat=None,
                                     message=f"a value does not fit the audit tables ({bad[hand_id]})"))
                elif name == "outcomes":
                    kept.append({k: row.get(k) for k in ("hand_id", "variant", "n_actions", "params")} | {"ok": False})
            self.rows[name] = [tuple(row.get(c) for c in AUDIT_TABLES[name].names) for row in kept]
        keep = [h not in bad for h in self.plays["hand_id"]]
        self.plays = {k: [x for x, ok in zip(v, keep) if ok] for k, v in self.plays.items()}
        return self._convert(), [(h, before.get(h)) for h in bad]

    def _convert(self) -> dict[str, pa.Table]:
        out = {}
        for name, rows in self.rows.items():
            schema = AUDIT_TABLES[name]
            columns = list(zip(*rows)) if rows else [()] * len(schema)
            out[name] = pa.table([pa.array(column, f.type) for column, f in zip(columns, schema)], schema=schema)
        out["plays"] = pa.table({k: pa.array(v, PLAYS.field(k).type) for k, v in self.plays.items()}, schema=PLAYS)
        return out


_CONVERSION_ERRORS = (pa.ArrowException, OverflowError, ValueError, TypeError)


def _failed_outcome(hand_id, variant, n_actions: int, record: dict) -> tuple:
    """The outcome row of a hand that broke a rule: its id, size and parameters only."""
    known = {"hand_id": hand_id, "variant": variant, "ok": False, "n_actions": n_actions, "params": _params(record)}
    return tuple(map(known.get, OUTCOMES.names))


def _params(record: dict) -> str | None:
    """The record's rule parameters as canonical JSON (a simulated rule setting), or None."""
    import json

    params = record.get("params")
    return json.dumps(params, sort_keys=True, ensure_ascii=False) if params else None
