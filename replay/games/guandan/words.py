"""Guandan's words for people, in English and Chinese: those of the balance report
(:data:`REPORT`, what its charts and rates are called; ``paipu report`` adds them to its own).
"""

from __future__ import annotations

#: the report's words of this game's charts, rates and categories, by language
REPORT: dict[str, dict[str, str]] = {
    "en": {
        "double_down": "双下 double-down rate", "upgrade": "Levels the winning team goes up",
        "tribute": "Tribute (进贡): single, double after 双下, resisted", "m_tribute_single": "single tribute",
        "m_tribute_double": "double tribute (after 双下)", "m_tribute_resisted": "resisted (抗贡)",
        "m_tribute_none": "no tribute", "m_double_down": "双下 double down",
    },
    "zh": {
        "double_down": "双下比例", "upgrade": "获胜队升级数", "tribute": "进贡：单贡、双下后的双贡、抗贡", "m_tribute_single": "单贡",
        "m_tribute_double": "双贡（双下后）", "m_tribute_resisted": "抗贡", "m_tribute_none": "不进贡", "m_double_down": "双下",
    },
}
