"""What a game is, declared once: the registry, the CLI, the audit tables, the views and
the report ask a :class:`Game` and never name one.

A game's package (its ``__init__.py``) ends with its declaration::

    GAME = Game(name="doudizhu", title="Dou Dizhu", title_zh="斗地主", aliases=("ddz", "斗地主"),
                variants={"huopin": HUOPIN}, engine=Doudizhu, kinds=KINDS,
                roles={"landlord": "地主", "farmer": "农民"}, ...)

and :mod:`replay.games` lists the packages (:func:`replay.games.register` adds one more,
as the toy game of the tests does). The rest of a game is in its package beside the
engine, found through the declaration (:meth:`Game.part`, :meth:`Game.sql_file`; see
docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from importlib.resources import files
from importlib.resources.abc import Traversable
from types import ModuleType
from typing import TYPE_CHECKING

from .cards import pack
from .games import find_game
from .rules import per_rules

if TYPE_CHECKING:
    from .combos import Combo
    from .rules import Rules
    from .table import Table


def _lookup(rules: Rules, ids: list[int], level: str | None) -> tuple[Combo, ...]:
    """The plain games' classification: one lookup of the packed rank counts."""
    return Game.of(rules).engine.combo_table(rules).classify(pack(ids))


@dataclass(frozen=True)
class Game:
    """The declaration of one climbing game."""

    #: registry name (lower case, ASCII): the ``game`` of records and the dataset partition
    name: str
    #: English and Chinese titles
    title: str
    title_zh: str
    #: other names users type (abbreviations, Chinese, traditional characters)
    aliases: tuple[str, ...]
    #: variant name -> rules; the first is the default
    variants: Mapping[str, Rules]
    #: the hand state machine (a :class:`~replay.table.Table` subclass)
    engine: type[Table]
    #: combination kind -> Chinese name, in the order tables and legends list them
    kinds: Mapping[str, str]
    #: role -> Chinese name, for games with roles (Dou Dizhu's landlord and farmers)
    roles: Mapping[str, str] = field(default_factory=dict)
    #: fixed partnerships as tuples of seats (() when each plays for himself)
    teams: tuple[tuple[int, ...], ...] = ()
    #: True when hands chain into matches (the previous hand's outcome is needed)
    matches: bool = False
    #: games played at a level: the level's name -> rank (``--level`` of ``paipu combo``)
    parse_level: Callable[[str | None], int] | None = None
    #: outcome columns the game adds to the ``outcomes`` table: name -> Arrow type by its
    #: name (``int8``, ``bool``, ``string``, ``list<float64>``: the engine holds no Arrow)
    outcome_columns: Mapping[str, str] = field(default_factory=dict)
    #: statistics that apply to this game only: ``sql/NAME.sql`` of the game's package
    stats: tuple[str, ...] = ()
    #: what the HTML report shows for the game: "metrics" (summary rates) and "charts" (in
    #: order), the report's shared ones (analysis/report.py) or the game's own (``METRICS``
    #: and ``chart_NAME`` of its package's ``report`` module); "figures", those compared on
    #: shared deals (``paipu compare``: analysis/compare.py's or the game's own, ``FIGURES``
    #: of its ``report`` module); what is missing takes the default
    report: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: the simulation driver module (the ``sim`` module of the game's package when None)
    simulation: str | None = None
    #: the package that holds the game's parts beside its engine (``sim``, ``words``,
    #: ``report``, the ``sql/`` folder of its statistics): the engine's module when None
    home: str | None = None
    #: classify cards outside a hand: (rules, card ids, level or None) -> readings
    classify: Callable[[Rules, list[int], str | None], tuple[Combo, ...]] = _lookup

    def __post_init__(self) -> None:
        if not self.variants:
            raise ValueError(f"{self.name}: a game needs at least one variant")
        for vname, rules in self.variants.items():
            if rules.game != self.name or rules.variant != vname:
                raise ValueError(f"{self.name}: variant {vname!r} has rules of {rules.game}/{rules.variant}")

    @property
    def default_variant(self) -> str:
        return next(iter(self.variants))

    @property
    def players(self) -> int:
        return next(iter(self.variants.values())).players

    def team_of(self, seat: int) -> int | None:
        """The team index of *seat* (None when each plays for himself)."""
        for k, team in enumerate(self.teams):
            if seat in team:
                return k
        return None

    def partners_of(self, seat: int) -> tuple[int, ...]:
        """The other seats of *seat*'s team (empty when each plays for himself)."""
        team = self.team_of(seat)
        return () if team is None else tuple(s for s in self.teams[team] if s != seat)

    def seat_teams(self) -> tuple[int, ...]:
        """Each seat's team index, seat by seat, for games of fixed partnerships: what the
        games index on their hot paths (computed once from :attr:`teams`)."""
        team = {s: k for k, seats in enumerate(self.teams) for s in seats}
        return tuple(team[s] for s in range(len(team)))

    def seat_partners(self) -> tuple[frozenset[int], ...]:
        """Each seat's partners, seat by seat (computed once from :attr:`teams`)."""
        return tuple(frozenset(self.partners_of(s)) for s in range(len(self.seat_teams())))

    @property
    def levels(self) -> bool:
        return self.parse_level is not None

    def title_in(self, lang: str) -> str:
        return self.title_zh if lang == "zh" else self.title

    @property
    def package(self) -> str:
        """The game's package (:attr:`home`, else the module that defines its engine)."""
        return self.home or self.engine.__module__

    def part(self, name: str) -> ModuleType | None:
        """The module *name* of the game's package (``sim``, ``report``), None when it has none."""
        module = self.simulation if name == "sim" and self.simulation else f"{self.package}.{name}"
        try:
            return import_module(module)
        except ModuleNotFoundError as e:
            if e.name != module:
                raise
            return None

    def sql_file(self, stat: str) -> Traversable:
        """The SQL of the game's own statistic *stat* (``sql/STAT.sql`` of its package)."""
        return files(self.package) / "sql" / f"{stat}.sql"

    @staticmethod
    def of(rules: Rules) -> Game:
        """The declaration of the game *rules* belong to."""
        return find_game(rules.game)


def names_of(games: Sequence[Game]) -> str:
    """``doudizhu, paodekuai, …``: the registry names, for help texts and errors."""
    return ", ".join(g.name for g in games)


def game_of(rules: Rules) -> Game:
    """``Game.of(rules)``, kept on the rules object (the audit asks for it per seat)."""
    found: Game | None = rules.__dict__.get("_kept_game")
    if found is None:
        found = per_rules(rules, "game", Game.of, rules)
    return found
