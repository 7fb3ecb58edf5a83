"""The audit rows of a replayed hand: the hand as the ``plays``, ``seats`` and ``outcomes``
tables see it (:func:`summary`), the pipeline's side of the engine (:mod:`replay.derive`
writes the rows as Arrow columns; the state machine, :class:`replay.table.Table`, holds
none of this).

What a game's rows say in its own words (a seat's role, who won, the game's own
``outcomes`` columns, a bomb's stars) is its package's ``rows.py``: a ``Rows`` subclass of
:class:`HandRows`; the shared defaults are here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .game import game_of
from .rules import Rules, per_rules
from .table import BOMB_EVENTS
from .words import key_names

if TYPE_CHECKING:
    from .combos import Combo
    from .replayer import Replay
    from .table import Table


@dataclass(slots=True)
class PlayColumns:
    """The plays of a replayed hand as columns (one list per field of the ``plays`` table):
    columns, not an object per play, because the audit writes them column-wise.

    (This and the other summary classes are not frozen: a frozen dataclass is built 4×
    slower, one ``object.__setattr__`` per field, and the audit builds five per hand.)"""

    action: list[int]
    seat: list[int]
    kind: list[str]
    rank: list[str | None]
    key: list[int]
    size: list[int]
    tier: list[int]
    stars: list[int | None]
    led: list[bool]
    multiplier: list[int | None]

    def __len__(self) -> int:
        return len(self.action)


@dataclass(slots=True)
class SeatSummary:
    """One seat at the end of a replayed hand, as the ``seats`` table keeps it."""

    seat: int
    role: str | None
    cards_left: int
    cards_played: int
    plays: int
    bombs_played: int
    bombs_held: int


@dataclass(slots=True)
class HandSummary:
    """What the audit tables need of a replayed hand: read from here, never from the
    engine's attributes (:func:`summary`)."""

    tricks: int
    plays: PlayColumns
    seats: list[SeatSummary]
    bombs: int
    rockets: int
    first_leader: int | None
    #: who won, in the game's words ("landlord", "team 1", "seat 2"); None before an end
    winning_side: str | None
    #: the game's own ``outcomes`` columns (its declaration names them)
    game_columns: dict[str, Any]


class HandRows:
    """What the rows of every game say (a game's ``Rows`` overrides what it says otherwise)."""

    #: True when bombs are measured in stars (Shuangkou); otherwise a bomb's stars are its size
    counts_stars: ClassVar[bool] = False

    @staticmethod
    def bomb_stars(c: Combo) -> int:
        """The stars of a bomb reading (its size unless the game counts stars; 0 for other plays)."""
        return c.size if c.tier else 0

    @staticmethod
    def seat_role(table: Table, seat: int) -> str | None:
        """The role of *seat* so far (games with roles override), else its team as
        ``team K`` (games with fixed partners), else None."""
        team = game_of(table.rules).team_of(seat)
        return None if team is None else f"team {team}"

    @staticmethod
    def winning_side(outcome: dict[str, Any]) -> str | None:
        """Who won, in the game's words (games with roles override; else team or seat)."""
        return None

    @staticmethod
    def outcome_columns(table: Table, outcome: dict[str, Any]) -> dict[str, Any]:
        """The values of the game's own ``outcomes`` columns (its declaration names them):
        by default the outcome's fields of the same names."""
        return {name: outcome.get(name) for name in game_of(table.rules).outcome_columns}


def rows_of(rules: Rules) -> type[HandRows]:
    """The rows of the game *rules* belong to (its package's ``rows.Rows``, else the shared
    ones), found once per rules object."""
    found: type[HandRows] | None = rules.__dict__.get("_kept_rows")
    if found is None:
        found = per_rules(rules, "rows", _find, rules)
    return found


def _find(rules: Rules) -> type[HandRows]:
    module = game_of(rules).part("rows")
    found: type[HandRows] = getattr(module, "Rows", HandRows)
    return found


def summary(table: Table, outcome: dict[str, Any]) -> HandSummary:
    """The hand of *table* as the audit tables see it (plays need ``detail``), given its
    *outcome* (empty when the hand broke a rule)."""
    game = rows_of(table.rules)
    n = table.n
    bombs_played = [0] * n
    bombs = rockets = 0
    for e in table.events:
        if e.kind in BOMB_EVENTS:
            if e.kind == "rocket":
                rockets += 1
            else:
                bombs += 1
            if e.seat is not None:
                bombs_played[e.seat] += 1
    rows = table.plays
    if rows:
        action, seat, combos, led, multiplier = map(list, zip(*rows))
        kind, size, key, tier = map(list, zip(*combos))
        stars = game.bomb_stars
        plays = PlayColumns(action, seat, kind, key_names(table, combos), key, size, tier,
                            [stars(c) if c.tier else None for c in combos], led, multiplier)
    else:
        plays = PlayColumns([], [], [], [], [], [], [], [], [], [])
    role = game.seat_role
    seats = [SeatSummary(s, role(table, s), table.left[s], table.cards_played[s], table.plays_by[s],
                         bombs_played[s], table.held_bombs(s)) for s in range(n)]
    order = outcome.get("order") or []
    side = None
    if order:
        side = game.winning_side(outcome)
        if side is None:
            team = game_of(table.rules).team_of(order[0])
            side = f"team {team}" if team is not None else f"seat {order[0]}"
    return HandSummary(table.tricks, plays, seats, bombs, rockets, rows[0][1] if rows else None, side,
                       game.outcome_columns(table, outcome) if outcome else {})


def of_replay(r: Replay) -> HandSummary | None:
    """The replayed hand *r* as the audit tables see it (None when no table was set up)."""
    return None if r.table is None else summary(r.table, r.outcome if r.ok else {})
