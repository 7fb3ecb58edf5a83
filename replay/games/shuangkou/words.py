"""Shuangkou's words for people, in English and Chinese: those of the balance report
(:data:`REPORT`, what its charts and rates are called; ``paipu report`` adds them to its own).
"""

from __future__ import annotations

#: the report's words of this game's charts, rates and categories, by language
REPORT: dict[str, dict[str, str]] = {
    "en": {
        "kou": "扣: winning margin", "m_kou_double": "双扣 (double kou)", "double": "双扣 double (×3)",
        "single": "单扣 single (×2)", "flat": "平扣 flat (×1)",
    },
    "zh": {
        "kou": "扣：胜负差距", "m_kou_double": "双扣", "double": "双扣 (×3)", "single": "单扣 (×2)", "flat": "平扣 (×1)",
    },
}
