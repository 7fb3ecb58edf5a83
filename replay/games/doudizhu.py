"""斗地主 Dou Dizhu: doudizhu/huopin (火拼斗地主)."""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import DECK_54
from ..rules import Rules


@dataclass(frozen=True)
class DoudizhuRules(Rules):
    pass


HUOPIN = DoudizhuRules(game="doudizhu", variant="huopin", players=3, deck=DECK_54, bottom=3)
