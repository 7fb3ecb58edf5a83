"""双扣 Shuangkou: shuangkou/huopin (火拼双扣).

Rule data only so far (two decks, four seats); the rules of play come with the Shuangkou issue.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import DECK_108
from ..rules import Rules


@dataclass(frozen=True)
class ShuangkouRules(Rules):
    pass


HUOPIN = ShuangkouRules(game="shuangkou", variant="huopin", players=4, deck=DECK_108, max_play=27)
