"""Replay a hand record: re-validate every action, return verdict, events and outcome.

>>> from paipu.replay.io.text import parse_text
>>> rec = parse_text(open("sample_logs/doudizhu_handmade.paipu", encoding="utf-8").read())[0].record
>>> r = replay(rec)
>>> r.ok, r.outcome["landlord"], r.outcome["multiplier"], r.outcome["scores"]
(True, 0, 8, [16, -8, -8])
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from typing import Any

from .games import UnknownGame, find_game, find_rules
from .kernel import compiled
from .rules import Rules
from .table import Table, compare_result
from .verdicts import Code, Event, Violation


@dataclass
class Replay:
    # as the record spells them (a record that fails its structural check may lack them)
    id: Any
    game: Any
    variant: Any
    violation: Violation | None
    events: list[Event] = field(default_factory=list)
    outcome: dict[str, Any] = field(default_factory=dict)
    table: Table | None = None

    @property
    def ok(self) -> bool:
        return self.violation is None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "ok": self.ok, "violations": [self.violation.to_json()] if self.violation else []}


def make_table(record: dict[str, Any], detail: bool = False, previous: dict[str, Any] | None = None) -> Table:
    """The game's table for *record* (rules with the record's params applied).

    *previous*: the outcome of the previous hand of the same match, when known.
    """
    key = (record["game"], record["variant"])
    try:
        found = _ENGINES.get(key)  # only names (str, and None for the default variant) are kept
    except TypeError:  # a list or a dict for a name
        found = None
    if found is None:
        found = (find_rules(*key), find_game(key[0]).engine)
        if isinstance(key[0], str) and isinstance(key[1], (str, type(None))):
            _ENGINES[key] = found
    rules, engine = found
    params = record.get("params")
    table = engine(rules.with_params(params) if params else rules, record, detail)
    if previous is not None:  # (None is the class's default: no store)
        table.previous = previous
    return table


def table_or_violation(record: dict[str, Any], detail: bool = False,
                       previous: dict[str, Any] | None = None) -> tuple[Table | None, Violation | None]:
    """:func:`make_table`, or the verdict of a record whose game is unknown (``unknown_game``)
    or whose params do not fit its rules (``bad_record``), as the audit gives it."""
    try:
        return make_table(record, detail, previous), None
    except UnknownGame as e:
        return None, Violation(Code.UNKNOWN_GAME, None, str(e))
    except ValueError as e:
        return None, Violation(Code.BAD_RECORD, None, str(e))


#: (game, variant) as a record names them -> (rules, engine class): the lookup once per name
_ENGINES: dict[tuple[str, str | None], tuple[Rules, type[Table]]] = {}


def run(table: Table, actions: list[dict[str, Any]]) -> Violation | None:
    """Set the hand up and replay every action: the first violation, or None when legal.

    The replayer owns the action loop; the table answers one action at a time (the
    compiled kernel's loop where it is built, the same loop in Python otherwise).
    """
    v = table.setup()
    if v is not None:
        return v
    if KERNEL is not None:
        done: tuple[int, Violation | None] = KERNEL.run(table, actions)
        reached, v = done
        if v is not None:
            return v
        if reached < len(actions):
            return after_end(table, reached, actions[reached])
    else:
        step, play, pass_ = table.step, table.do_play, table.do_pass
        if table.own_step:
            play = pass_ = step
        for i, action in enumerate(actions):
            if table.over:
                return after_end(table, i, action)
            act = action["act"]
            v = play(i, action) if act == "play" else pass_(i, action) if act == "pass" else step(i, action)
            if v is not None:
                return v
    if not table.over:
        return Violation(Code.INCOMPLETE, None,
                         f"the actions stop before the hand is over ({len(actions)} actions, {table.phase} phase)")
    return None


#: the compiled kernel's loop (None: the Python loop above; tests switch it off to compare)
KERNEL = compiled


def after_end(table: Table, i: int, action: dict[str, Any]) -> Violation:
    return Violation(Code.AFTER_END, i, f"the hand was over ({table.end_reason}) before this {action['act']}", action["seat"])


def replay(record: dict[str, Any], detail: bool = False, previous: dict[str, Any] | None = None) -> Replay:
    """Replay one structurally checked record. Engine bugs become ``engine_error`` verdicts.

    *previous* is the replayed outcome of the previous hand of the record's match, which
    Guandan needs to check levels, tribute and the leader (see :class:`Matches`).
    """
    hand_id, game, variant = record.get("id"), record.get("game"), record.get("variant")
    table, bad = table_or_violation(record, detail, previous)
    if table is None:
        return Replay(hand_id, game, variant, bad)
    try:
        violation = run(table, record["actions"])
        outcome = table.outcome() if violation is None else {}
        if violation is None and isinstance(record.get("result"), dict):
            violation = compare_result(table.canonical_result(record["result"]), outcome)
    except Exception:  # noqa: BLE001 - an engine bug must not stop an audit run
        return Replay(hand_id, game, variant, Violation(Code.ENGINE_ERROR, None, traceback.format_exc(limit=8)), table=table)
    return Replay(hand_id, game, variant, violation, table.events, outcome, table)


def plays_matches(game: Any) -> bool:
    """True when hands of *game* chain into matches (each checked against the previous)."""
    try:
        return find_game(game).matches
    except (UnknownGame, AttributeError):
        return False


class Matches:
    """Follows matches through a stream of hands: hands with the same ``match.id`` are
    checked against the previous hand of their match when it came just before in order."""

    def __init__(self) -> None:
        self.last: dict[str, tuple[int, dict[str, Any] | None]] = {}

    def previous(self, record: dict[str, Any]) -> dict[str, Any] | None:
        match = record.get("match")
        if not isinstance(match, dict) or not plays_matches(record.get("game")):
            return None
        seen = self.last.get(match["id"])
        if seen is not None and seen[1] is not None and seen[1].get("match_over"):
            return seen[1]  # whatever its number, a hand after the match was won is bad_match
        if seen is None or seen[0] != match["hand"] - 1:
            return None
        return seen[1]

    def replay(self, record: dict[str, Any], detail: bool = False) -> Replay:
        r = replay(record, detail, self.previous(record))
        match = record.get("match")
        if isinstance(match, dict):
            seen = self.last.get(match["id"])
            if seen is not None and seen[1] is not None and seen[1].get("match_over"):
                return r  # the match stays over
            self.last[match["id"]] = (match["hand"], r.outcome if r.ok and r.outcome.get("levels") else None)
        return r
