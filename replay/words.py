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

from typing import TYPE_CHECKING

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
