"""A hand's words for people: what a combination is called (:meth:`HandWords.describe`, in
messages), the rank its key stands for (:meth:`HandWords.name_key`: the views, the audit's
``plays.rank`` and the spelling of a record's ``declared`` key), the level a hand is played
at (:meth:`HandWords.level_text`).

The defaults are here; a game whose combinations read otherwise has a ``words.py`` in its
package with a ``Words`` subclass of :class:`HandWords` (its report words beside it). The
state machine (:class:`replay.table.Table`) holds none of them: it asks :func:`words_of`
when it builds a message, which is off the hot path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .cards import RANK_NAMES
from .rules import Rules, per_rules

if TYPE_CHECKING:
    from .combos import Combo
    from .table import Table


class HandWords:
    """The words every game shares (a game's ``Words`` overrides what it names otherwise)."""

    @staticmethod
    def describe(table: Table, readings: tuple[Combo, ...]) -> str:
        """A reading of a play in a message (``pair of 2``)."""
        c = readings[0]
        return f"{c.kind} of {c.size}"

    @staticmethod
    def name_key(c: Combo, rules: Rules, level: int | None = None) -> str | None:
        """The rank a combination's key stands for (its top card, or the rank of a bomb),
        for *rules* at *level* (games played at a level)."""
        return RANK_NAMES[c.key] if 0 <= c.key < len(RANK_NAMES) else None

    @staticmethod
    def level_text(table: Table) -> str | None:
        """The level the hand is played at (games with levels), for display."""
        return None


def words_of(rules: Rules) -> type[HandWords]:
    """The words of the game *rules* belong to (its package's ``words.Words``, else the
    shared ones), found once per rules object."""
    found: type[HandWords] | None = rules.__dict__.get("_kept_words")
    if found is None:
        found = per_rules(rules, "words", _find, rules)
    return found


def _find(rules: Rules) -> type[HandWords]:
    from .game import Game

    module = Game.of(rules).part("words")
    found: type[HandWords] = getattr(module, "Words", HandWords)
    return found


def key_name(table: Table, c: Combo) -> str | None:
    """The rank the key of *c*, played in *table*'s hand, stands for (:meth:`HandWords.name_key`)."""
    return words_of(table.rules).name_key(c, table.rules, getattr(table, "level", None))


def key_names(table: Table, combos: list[Combo]) -> list[str | None]:
    """:func:`key_name` of each combination: a name depends on the rules and the level
    alone, so each is found once per rules object and level (kept on the rules), then
    looked up (the audit names every play of every hand)."""
    rules = table.rules
    level = getattr(table, "level", None)
    by_level: dict[int | None, dict[Combo, str | None]] = per_rules(rules, "key_names", dict)
    names = by_level.get(level)
    if names is None:
        names = by_level[level] = {}
    name_key = words_of(rules).name_key
    for c in combos:
        if c not in names:
            names[c] = name_key(c, rules, level)
    return [names[c] for c in combos]


class ShownWords:
    """What the views show of a game in its own words, beyond the words every game shares
    (``replay/view.py``, ``replay/html.py``, ``replay/review_view.py`` ask
    :func:`shown_of`; they name no game). The defaults here are a game's with no roles, no
    bidding and no words of its own (the toy game of the tests); a game whose hands say
    more has a ``Shown`` subclass in its ``words.py``.

    Every mapping is data: the views merge it over their shared words."""

    #: the view's words of this game's acts, events and outcome values, by language
    #: (``{"en": {"bid_yes": "calls the landlord", ...}, "zh": {...}}``)
    words: dict[str, dict[str, str]] = {}
    #: the role one seat takes in the bidding (and with it the bottom), as the game's rows
    #: name it (:attr:`replay.game.Game.roles` has its Chinese); None in a game without one
    declared_role: str | None = None
    #: the outcome fields the page's settlement shows, in order: field -> (English, Chinese)
    result_fields: dict[str, tuple[str, str]] = {"multiplier": ("multiplier", "倍数"),
                                                 "winning_team": ("winning team", "获胜队"),
                                                 "escape": ("escaped seat", "逃跑座位")}
    #: the outcome fields the terminal's settlement shows (after the winner), and those it
    #: shows per seat between the scores and the coins
    result_lines: tuple[str, ...] = ("multiplier",)
    seat_lines: tuple[str, ...] = ()
    #: the Chinese of the engine's words in this game's messages: verdict codes (what each
    #: means), acts, phases, the moments of an act, opening rules (``Table.opening_rule``),
    #: the fields of a result, the values it holds (as Python writes them)
    zh_codes: dict[str, str] = {}
    zh_acts: dict[str, str] = {}
    zh_phases: dict[str, str] = {}
    zh_when: dict[str, str] = {}
    zh_rules: dict[str, str] = {}
    zh_result: dict[str, str] = {}
    zh_values: dict[str, str] = {}
    #: the engine's messages only this game writes, for people reading Chinese: (pattern,
    #: template), in the form of ``replay.view.ZH_MESSAGES`` (which they join, after the shared ones)
    zh_messages: tuple[tuple[str, str], ...] = ()
    #: events of this game shown as bombs are (喜钱, paid for a bomb)
    highlighted: frozenset[str] = frozenset()
    #: the outcome field that names the cause of the multiplier's last step, which only the
    #: end decides (a spring's ×2); None when the end only shows the step
    end_cause: str | None = None

    @staticmethod
    def declarer(table: Table) -> int | None:
        """The seat that took :attr:`declared_role` (and the bottom), None before the
        bidding gives it or in a game without one."""
        return None

    @staticmethod
    def act_text(action: Mapping[str, Any], w: Mapping[str, str], cards: Callable[[object], str]) -> str | None:
        """One of this game's acts (neither a play nor a pass) in the view's words *w*; None
        for an act it names by its word alone (``w[act]``) or does not have. *cards*: a
        record's card tokens as people read them."""
        return None

    @staticmethod
    def event_text(e: Any, w: Mapping[str, str], name: Callable[[int], str]) -> str | None:
        """One of this game's events (:class:`replay.table.Event`) in the view's words *w*,
        None for an event it does not have; *name*: a seat as the view names it."""
        return None


def shown_of(game: object) -> type[ShownWords]:
    """The views' words of *game* (a :class:`replay.game.Game`, or None for a game this
    installation does not know): its package's ``words.Shown``, else the defaults."""
    from .game import Game

    if not isinstance(game, Game):
        return ShownWords
    module = game.part("words")
    found: type[ShownWords] = getattr(module, "Shown", ShownWords)
    return found
