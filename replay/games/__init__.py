"""The registry of games: every other module reaches a game only here, through its
declaration (:class:`replay.game.Game`).

Built in: Dou Dizhu, Paodekuai, Guandan, Shuangkou. More games register themselves with
:func:`register`, or are named in the ``PAIPU_GAMES`` environment variable (modules
with a ``GAME`` declaration, comma-separated; worker processes see it too), or come
from installed packages' ``paipu.games`` entry points.

>>> find_rules("斗地主", "huopin").game
'doudizhu'
>>> find_rules("ddz", "nope")
Traceback (most recent call last):
...
paipu.replay.games.UnknownGame: unknown variant 'nope' of doudizhu (known: huopin, openspiel, douzero)
"""

from __future__ import annotations

import os
from importlib import import_module
from importlib.metadata import entry_points
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the games' modules import this registry: it imports none of them by name
    from ..game import Game
    from ..rules import Rules

#: the modules under replay.games that declare the built-in games, in listing order
BUILTIN = ("doudizhu", "paodekuai", "guandan", "shuangkou")

_games: dict[str, Game] = {}
_aliases: dict[str, str] = {}


class UnknownGame(ValueError):
    """Game or variant not known (verdict ``unknown_game``)."""


def register(game: Game) -> Game:
    """Add *game* to the registry (again: replaced); returns it."""
    _load()
    _add(game)
    return game


def _load() -> None:
    if _games:
        return
    modules = [f"{__name__}.{m}" for m in BUILTIN]
    modules += [m.strip() for m in os.environ.get("PAIPU_GAMES", "").split(",") if m.strip()]
    for module in modules:
        _add(import_module(module).GAME)
    for ep in entry_points(group="paipu.games"):
        _add(ep.load())


def _add(game: Game) -> None:
    _games[game.name] = game
    for name in (game.name, *game.aliases):
        _aliases[name.lower()] = game.name


def games() -> list[Game]:
    """Every registered game, built-in ones first."""
    _load()
    return list(_games.values())


def game_name(name: str) -> str:
    """The registry name of a game, from its name or an alias."""
    _load()
    key = name.strip().lower() if isinstance(name, str) else name
    found = _aliases.get(key)
    if found is None:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(_games)})")
    return found


def find_game(name: str) -> Game:
    """The declaration of *name* (registry name or alias)."""
    return _games[game_name(name)]


def find_rules(game: str, variant: str | None = None) -> Rules:
    """The rules of *game* (name or alias) and *variant* (default: the game's usual one)."""
    g = find_game(game)
    variant = variant or g.default_variant
    if variant not in g.variants:
        raise UnknownGame(f"unknown variant {variant!r} of {g.name} (known: {', '.join(g.variants)})")
    return g.variants[variant]
