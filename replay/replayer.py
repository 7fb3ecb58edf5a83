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
from .verdicts import Code, Event, VerdictJson, Violation, verdict_json


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

    def to_json(self) -> VerdictJson:
        return verdict_json(self.id, self.violation)


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


class Visitor:
    """What :func:`walk` tells as it goes through a hand; a subclass overrides the hooks
    it needs (each does nothing here). The walk calls only the hooks a visitor overrides."""

    def start(self, table: Table) -> None:
        """The hand is set up (its deal checked): *table* before the first action."""

    def before(self, table: Table, i: int, action: dict[str, Any]) -> None:
        """Action *i* is about to be taken (the hand is not over)."""

    def after(self, table: Table, i: int, action: dict[str, Any], violation: Violation | None) -> None:
        """Action *i* was taken; *violation*: the rule it broke (the walk stops there)."""

    def end(self, replay: Replay) -> None:
        """The walk is over: its verdict (``replay.table`` None when no table was set up)."""


def _hooks(visitors: tuple[Visitor, ...], name: str) -> list[Any]:
    """The bound *name* hooks of the visitors that override it."""
    plain = getattr(Visitor, name)
    return [getattr(v, name) for v in visitors if getattr(type(v), name, plain) is not plain]


class _VisitorFailed(Exception):
    """A visitor's own exception, carried past the walk's catching of engine errors."""


class Walk:
    """A hand walked one action at a time: what :func:`walk` does for each action of a
    record, and what the drivers that make a hand as they go (the simulator's recorder,
    the evaluator's playouts) call for each action they make. *table* is set up."""

    __slots__ = ("table", "take", "before", "after")

    def __init__(self, table: Table, visitors: tuple[Visitor, ...] = ()):
        self.table = table
        #: the table's step: the compiled kernel's where it is built
        self.take: Any = LOOP(table).take
        self.before = _hooks(visitors, "before")
        self.after = _hooks(visitors, "after")

    def __call__(self, i: int, action: dict[str, Any]) -> Violation | None:
        """Take action *i*: its violation, or None when it is legal."""
        table = self.table
        if table.over:
            return after_end(table, i, action)
        try:
            for hook in self.before:
                hook(table, i, action)
        except Exception as e:
            raise _VisitorFailed(e) from e
        v: Violation | None = self.take(i, action)
        try:
            for hook in self.after:
                hook(table, i, action, v)
        except Exception as e:
            raise _VisitorFailed(e) from e
        return v


def walk(record: dict[str, Any], *visitors: Visitor, previous: dict[str, Any] | None = None,
         detail: bool = False, upto: int | None = None, table: Table | None = None) -> Replay:
    """Walk through one structurally checked record, the only loop over a hand's actions:
    every action re-validated, the *visitors* told as it goes (:class:`Visitor`), the
    verdict, events and outcome returned. Engine bugs become ``engine_error`` verdicts (a
    visitor's own exception is raised). When no visitor looks at each action, the compiled
    kernel's loop takes them (where it is built).

    *previous* is the replayed outcome of the previous hand of the record's match, which
    Guandan needs to check levels, tribute and the leader (see :class:`Matches`); *detail*
    keeps what the audit's plays table needs; *upto*: stop before action *upto* (no check
    of the end then: the verdict is that of the actions before it); *table*: one made for
    the record already (under other rules than its own: the search bot's), not set up.
    """
    hand_id, game, variant = record.get("id"), record.get("game"), record.get("variant")
    bad = None
    if table is None:
        table, bad = table_or_violation(record, detail, previous)
    if table is None:
        r = Replay(hand_id, game, variant, bad)
    else:
        try:
            r = _walked(record, table, visitors, upto)
        except _VisitorFailed as e:
            raise e.args[0] from None
        except Exception:  # noqa: BLE001 - an engine bug must not stop an audit run
            r = Replay(hand_id, game, variant, Violation(Code.ENGINE_ERROR, None, traceback.format_exc(limit=8)), table=table)
    if visitors:
        for hook in _hooks(visitors, "end"):
            hook(r)
    return r


def _walked(record: dict[str, Any], table: Table, visitors: tuple[Visitor, ...], upto: int | None) -> Replay:
    replayed = Replay(record.get("id"), record.get("game"), record.get("variant"), table.setup(), table=table)
    replayed.events = table.events
    if replayed.violation is not None:
        return replayed
    if visitors:
        try:
            for hook in _hooks(visitors, "start"):
                hook(table)
        except Exception as e:
            raise _VisitorFailed(e) from e
    actions = record["actions"]
    v = _taken(table, actions if upto is None else actions[:upto], visitors)
    if v is None and upto is None:
        v = incomplete(table, len(actions))
        if v is None:
            replayed.outcome = table.outcome()
            if isinstance(record.get("result"), dict):
                v = compare_result(table.canonical_result(record["result"]), replayed.outcome)
    replayed.violation = v
    return replayed


def _taken(table: Table, actions: list[dict[str, Any]], visitors: tuple[Visitor, ...] = ()) -> Violation | None:
    """The loop: every action taken on the set-up *table* until one breaks a rule (its
    violation, or None). The compiled kernel's own loop when no visitor sees each action."""
    if visitors:
        step = Walk(table, visitors)
        if step.before or step.after:
            for i, action in enumerate(actions):
                v = step(i, action)
                if v is not None:
                    return v
            return None
    reached, v = RUN(table, actions)
    if v is None and reached < len(actions):
        return after_end(table, reached, actions[reached])
    return v


class _Loop:
    """The pure engine's steps of one table (the reference of the compiled kernel's Loop):
    *take* is the table's step."""

    __slots__ = ("take",)

    def __init__(self, table: Table):
        self.take = table.step


def _run(table: Table, actions: list[dict[str, Any]]) -> tuple[int, Violation | None]:
    """The actions taken on the set-up *table* until one breaks a rule or the hand is over
    (the reference of the compiled kernel's ``run``): (the index reached, the violation or
    None). The index is len(actions) when every action was taken; a smaller one with no
    violation means the hand was over before that action. The act's method is called
    directly, as the kernel's loop does."""
    other, play, pass_ = table.step, table.do_play, table.do_pass
    if table.own_step:
        play = pass_ = other
    for i, action in enumerate(actions):
        if table.over:
            return i, None
        act = action["act"]
        v = play(i, action) if act == "play" else pass_(i, action) if act == "pass" else other(i, action)
        if v is not None:
            return i, v
    return len(actions), None


def incomplete(table: Table, n_actions: int) -> Violation | None:
    """The verdict on a record whose *n_actions* actions end before the hand does, or None."""
    if table.over:
        return None
    return Violation(Code.INCOMPLETE, None,
                     f"the actions stop before the hand is over ({n_actions} actions, {table.phase} phase)")


def run(table: Table, actions: list[dict[str, Any]]) -> Violation | None:
    """Set *table* up and walk *actions* on it: the first violation, or None when legal
    (the result is not compared: :func:`walk` does)."""
    v = table.setup()
    if v is None:
        v = _taken(table, actions)
    return incomplete(table, len(actions)) if v is None else v


#: the compiled kernel's seam: its loop of a hand's actions and its step of one table where
#: it is built, else the references above (the same verdicts: tests/test_kernel.py)
LOOP, RUN = (_Loop, _run) if compiled is None else (compiled.Loop, compiled.run)


def after_end(table: Table, i: int, action: dict[str, Any]) -> Violation:
    """The verdict on an action after the hand was over (``after_end``)."""
    return Violation(Code.AFTER_END, i, f"the hand was over ({table.end_reason}) before this {action['act']}", action["seat"])


def replay(record: dict[str, Any], detail: bool = False, previous: dict[str, Any] | None = None) -> Replay:
    """Replay one structurally checked record: :func:`walk` with no visitor."""
    return walk(record, previous=previous, detail=detail)


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

    def replay(self, record: dict[str, Any], detail: bool = False, *visitors: Visitor) -> Replay:
        """:func:`walk` through *record* after the previous hand of its match (with *visitors*)."""
        r = walk(record, *visitors, previous=self.previous(record), detail=detail)
        match = record.get("match")
        if isinstance(match, dict):
            seen = self.last.get(match["id"])
            if seen is not None and seen[1] is not None and seen[1].get("match_over"):
                return r  # the match stays over
            self.last[match["id"]] = (match["hand"], r.outcome if r.ok and r.outcome.get("levels") else None)
        return r
