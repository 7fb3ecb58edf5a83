"""Rules as data: a frozen dataclass per game, one instance per variant.

Changing a rule is ``dataclasses.replace(rules, ...)``: designers ask "what if four+two
were not allowed?" and get ``replace(DOUDIZHU_HUOPIN, kinds=... - {"four_two"})``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar, TypeVar

from .cards import CARD_OF
from .games import find_game

T = TypeVar("T")


@dataclass(frozen=True)
class Rules:
    game: str
    variant: str
    players: int
    deck: tuple[int, ...]
    #: cards set aside (the Dou Dizhu bottom)
    bottom: int = 0
    #: combination kinds allowed (names from :mod:`replay.combos`)
    kinds: frozenset[str] = frozenset()
    #: most cards in one play
    max_play: int = 20

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 4:
            raise ValueError(f"players must be 2..4, got {self.players}")
        if len(self.deck) < self.players:
            raise ValueError("deck smaller than the number of seats")
        if len(self.deck) - self.bottom < self.players:  # every seat is dealt a card
            raise ValueError(f"params.bottom: expected at most {len(self.deck) - self.players} "
                             f"({len(self.deck)} cards, {self.players} seats), got {self.bottom}")
        self._own_dict(self.__dict__)

    def _own_dict(self, values: dict[str, Any]) -> None:
        # the attributes in a dict of the instance's own: CPython 3.11 keeps them in line at
        # first and, once __dict__ is asked for (per_rules reads it), in a dict sharing
        # the class's keys, which its attribute caches do not take (each read of a rule then
        # cost ~275 more instructions, many times a hand)
        object.__setattr__(self, "__dict__", dict(values))

    def __getstate__(self) -> dict[str, Any]:
        # values the engine keeps on a rules object (per_rules) are rebuilt, not pickled
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_kept_")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._own_dict(state)

    def hand_sizes(self) -> list[int]:
        """Cards dealt to each seat: round-robin from seat 0, remainder to the first seats."""
        n = len(self.deck) - self.bottom
        base, extra = divmod(n, self.players)
        return [base + (1 if s < extra else 0) for s in range(self.players)]

    #: the least value of an integer rule that has one (a chain's length, the cards of a play)
    PARAM_LEAST: ClassVar[dict[str, int]] = {"straight_min": 2, "pair_chain_min": 2, "triple_chain_min": 2,
                                             "max_play": 1}

    def with_params(self, params: dict[str, Any] | None) -> Rules:
        """These rules with a record's ``params`` applied; raises ValueError on unknown
        names or values of the wrong type. JSON values: sets of names (``kinds``) and
        pairs (``escape_landlord``) as lists, cards (``opening_card``) by name."""
        if not params:
            return self
        if not isinstance(params, dict):
            raise ValueError(f"params: expected an object of rule names and values, got {params!r}")
        names = {f.name for f in fields(self)}
        changes: dict[str, Any] = {}
        for key, value in params.items():
            if key == "deck":
                changes.update(self.deck_param(value))
            elif key in names and key not in ("game", "variant"):
                changes[key] = self.param_value(key, value)
            else:
                raise ValueError(f"params.{key}: not a parameter of {self.game}/{self.variant} "
                                 f"(known: {', '.join(self.param_names())})")
        return replace(self, **changes)  # (the rules check themselves: __post_init__)

    def param_names(self) -> list[str]:
        """The rule names a setting may change (every field but the game and variant)."""
        return [f.name for f in fields(self) if f.name not in ("game", "variant")]

    def kind_names(self) -> tuple[str, ...]:
        """Every combination kind the game knows (its declaration's ``kinds``)."""
        return tuple(find_game(self.game).kinds)

    def param_value(self, key: str, value: Any) -> Any:
        """A JSON value of rule *key* as the rules hold it; ValueError naming what was expected."""
        default = getattr(self, key)
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError(f"params.{key}: expected true or false, got {value!r}")
            return value
        if isinstance(default, int):
            if key.endswith("_card") and isinstance(value, str):
                if value not in CARD_OF:
                    raise ValueError(f"params.{key}: expected a card such as 3d, got {value!r}")
                return CARD_OF[value]
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"params.{key}: expected an integer, got {value!r}")
            least = self.PARAM_LEAST.get(key, 0)  # (no rule counts below nothing)
            if value < least:  # a chain of 1 (or 0) ranks is no chain: the tables cannot be built
                raise ValueError(f"params.{key}: expected {least} or more, got {value!r}")
            return value
        if isinstance(default, frozenset):
            known = self.kind_names() if key == "kinds" else tuple(sorted(default))
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"params.{key}: expected a list of names, got {value!r}")
            bad = [v for v in value if v not in known]
            if bad:
                raise ValueError(f"params.{key}: {bad[0]!r} is not one of {', '.join(known)}")
            return frozenset(value)
        if isinstance(default, tuple):
            if not isinstance(value, list) or len(value) != len(default) or not all(
                    type(v) is type(d) for v, d in zip(value, default)):
                raise ValueError(f"params.{key}: expected a list like {list(default)!r}, got {value!r}")
            return tuple(value)
        if isinstance(default, str):  # which strings are allowed, the rules class checks (__post_init__)
            if not isinstance(value, str):
                raise ValueError(f"params.{key}: expected a string, got {value!r}")
            return value
        raise ValueError(f"params.{key}: cannot be changed")

    def deck_param(self, value: Any) -> dict[str, Any]:
        raise ValueError(f"params.deck: {self.game}/{self.variant} has a fixed deck")


def per_rules(rules: Rules, name: str, make: Callable[..., T], *args: Any) -> T:
    """A value derived from *rules* alone (``make(*args)``), kept on the rules object
    itself as the attribute ``_kept_`` + *name*: looking it up by the rules in a dict would
    hash every field (the deck) for every hand. Rules are frozen; the kept values are no
    fields (equality, hashing and replace() ignore them). The hot paths read the attribute
    itself first (an attribute read is the cheapest lookup there is), and call this when
    it is not there yet. (*args*, not a closure: a function that makes a closure pays for
    its cells at every call, made or not.)"""
    name = "_kept_" + name  # never a field's or a method's name
    found: T | None = rules.__dict__.get(name)
    if found is None:
        found = make(*args)
        object.__setattr__(rules, name, found)
    return found
