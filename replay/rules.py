"""Rules as data: a frozen dataclass per game, one instance per variant.

Changing a rule is ``dataclasses.replace(rules, ...)``: designers ask "what if four+two
were not allowed?" and get ``replace(DOUDIZHU_HUOPIN, kinds=... - {"four_two"})``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

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

    def __getstate__(self) -> dict[str, Any]:
        # values the engine keeps on a rules object (table.per_rules) are rebuilt, not pickled
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_kept_")}

    def hand_sizes(self) -> list[int]:
        """Cards dealt to each seat: round-robin from seat 0, remainder to the first seats."""
        n = len(self.deck) - self.bottom
        base, extra = divmod(n, self.players)
        return [base + (1 if s < extra else 0) for s in range(self.players)]

    def with_params(self, params: dict[str, Any] | None) -> "Rules":
        """These rules with a record's ``params`` applied; raises ValueError on unknown names."""
        if not params:
            return self
        names = {f.name for f in fields(self)}
        changes: dict[str, Any] = {}
        for key, value in params.items():
            if key == "deck":
                changes.update(self.deck_param(value))
            elif key in names and key not in ("game", "variant"):
                default = getattr(self, key)
                if isinstance(default, bool) and not isinstance(value, bool):
                    raise ValueError(f"params.{key}: expected true or false, got {value!r}")
                if isinstance(default, int) and not isinstance(default, bool) and (
                    isinstance(value, bool) or not isinstance(value, int)
                ):
                    raise ValueError(f"params.{key}: expected an integer, got {value!r}")
                changes[key] = value
            else:
                raise ValueError(f"params.{key}: not a parameter of {self.game}/{self.variant}")
        return replace(self, **changes)

    def deck_param(self, value: Any) -> dict[str, Any]:
        raise ValueError(f"params.deck: {self.game}/{self.variant} has a fixed deck")
