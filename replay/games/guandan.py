"""掼蛋 Guandan: guandan/standard and guandan/no_tribute.

Rule data only so far (two decks, four seats); the rules of play come with the Guandan issue.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import DECK_108
from ..rules import Rules


@dataclass(frozen=True)
class GuandanRules(Rules):
    tribute: bool = True


STANDARD = GuandanRules(game="guandan", variant="standard", players=4, deck=DECK_108, max_play=10)
NO_TRIBUTE = GuandanRules(game="guandan", variant="no_tribute", players=4, deck=DECK_108, max_play=10, tribute=False)
