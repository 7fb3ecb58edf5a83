"""Paodekuai's words for people, in English and Chinese: those of the balance report
(:data:`REPORT`, what its charts and rates are called; ``paipu report`` adds them to its own).
"""

from __future__ import annotations

#: the report's words of this game's charts, rates and categories, by language
REPORT: dict[str, dict[str, str]] = {
    "en": {
        "paodekuai_events": "Let-go (放走), paid let-go (包赔) and 喜钱", "m_let_go": "let-go (放走)",
        "m_let_go_paid": "paid let-go (包赔)", "m_xiqian": "hands with 喜钱",
    },
    "zh": {
        "paodekuai_events": "放走、包赔与喜钱", "m_let_go": "放走", "m_let_go_paid": "包赔", "m_xiqian": "有喜钱的牌局",
    },
}
