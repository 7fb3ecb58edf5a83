"""The registry of games and variants: the reader and the CLI reach a game only here.

>>> find_rules("斗地主", "huopin").game
'doudizhu'
>>> find_rules("ddz", "nope")
Traceback (most recent call last):
...
replay.games.UnknownGame: unknown variant 'nope' of doudizhu (known: huopin)
"""

from __future__ import annotations

from importlib import import_module

from ..rules import Rules

#: game -> its module under replay.games, and the variants (name -> attribute)
GAMES: dict[str, tuple[str, dict[str, str]]] = {
    "doudizhu": ("doudizhu", {"huopin": "HUOPIN"}),
    "paodekuai": ("paodekuai", {"huopin": "HUOPIN", "classic": "CLASSIC"}),
    "guandan": ("guandan", {"standard": "STANDARD", "no_tribute": "NO_TRIBUTE"}),
    "shuangkou": ("shuangkou", {"huopin": "HUOPIN"}),
}

ALIASES: dict[str, str] = {
    "ddz": "doudizhu", "斗地主": "doudizhu", "鬥地主": "doudizhu", "dou_dizhu": "doudizhu",
    "pdk": "paodekuai", "跑得快": "paodekuai", "扑克王": "paodekuai",
    "gd": "guandan", "掼蛋": "guandan", "摜蛋": "guandan",
    "sk": "shuangkou", "双扣": "shuangkou", "雙扣": "shuangkou",
}

#: the variant a game means when none is named (the CLI's default)
DEFAULT_VARIANT = {"doudizhu": "huopin", "paodekuai": "huopin", "guandan": "standard", "shuangkou": "huopin"}


class UnknownGame(ValueError):
    """Game or variant not known (verdict ``unknown_game``)."""


def game_name(name: str) -> str:
    """The registry name of a game, from its name or an alias."""
    key = name.strip().lower() if isinstance(name, str) else name
    key = ALIASES.get(key, key)
    if key not in GAMES:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(GAMES)})")
    return key


def find_rules(game: str, variant: str | None = None) -> Rules:
    """The rules of *game* (name or alias) and *variant* (default: the game's usual one)."""
    key = game_name(game)
    module, variants = GAMES[key]
    variant = variant or DEFAULT_VARIANT[key]
    if variant not in variants:
        raise UnknownGame(f"unknown variant {variant!r} of {key} (known: {', '.join(variants)})")
    return getattr(import_module(f"{__name__}.{module}"), variants[variant])


def find_engine(game: str):
    """The engine module of *game*: it has ``replay_hand(record, rules)``."""
    return import_module(f"{__name__}.{GAMES[game_name(game)][0]}")
