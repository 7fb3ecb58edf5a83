"""跑得快 Paodekuai: paodekuai/huopin (火拼跑得快) and paodekuai/classic (扑克王).

Rule data only so far: the deck and the seats, so records are recognised and their deal
checked. The rules of play come with the Paodekuai issue.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cards import DECK_48, DECK_52, DECK_54
from ..rules import Rules


@dataclass(frozen=True)
class PaodekuaiRules(Rules):
    def deck_param(self, value: Any) -> dict[str, Any]:
        if self.variant == "classic" and value in (52, 54):
            return {"deck": DECK_54 if value == 54 else DECK_52}
        raise ValueError(f"params.deck: expected 52 or 54 (classic only), got {value!r}")


HUOPIN = PaodekuaiRules(game="paodekuai", variant="huopin", players=3, deck=DECK_48)
CLASSIC = PaodekuaiRules(game="paodekuai", variant="classic", players=3, deck=DECK_54)
