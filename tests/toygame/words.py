"""The toy game's words in the report, in English and Chinese."""

REPORT = {"en": {"margin": "Winning margin", "m_big_margin": "won by 5 cards or more"},
          "zh": {"margin": "胜负差距", "m_big_margin": "赢 5 张以上"}}
#: its variant in words (the report's tables and groups)
VARIANT_WORDS = {"plain": ("plain", "普通")}
