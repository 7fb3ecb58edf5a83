"""Guandan's part of the balance report (``paipu report``): its rates and charts, found
by the report through the game's declaration (``Game.part("report")``, ``Game.report``
chooses which are shown); its words are in :mod:`.words`, its statistics in ``sql/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paipu.analysis.compare import Figure

if TYPE_CHECKING:
    from paipu.analysis.report import Section

#: the game's own rates (summary and comparisons): (statistic, row filter, successes column, trials column)
METRICS: dict[str, tuple[str, dict[str, str], str, str]] = {
    "double_down": ("guandan", {"measure": "double_down"}, "k", "hands"),
}

# --- compared on shared deals (paipu compare; issue #25 item 3) ---------------------------
#: the game's own figures of the setting comparisons (``paipu compare``, the report's section):
#: per hand in ``sql/compare.sql``, compared after those of every game
FIGURES: dict[str, Figure] = {
    "double_down": Figure("双下 rate", "双下比例", "rate"),
    "upgrade": Figure("levels gained", "升级数"),
}


def chart_double_down(s: Section) -> None:
    s.measure_chart("double_down", "guandan", "measure", "double_down", s.t["double_down"],
                    cat=lambda r: s.t["m_double_down"])


def chart_upgrade(s: Section) -> None:
    s.measure_chart("upgrade", "guandan", "measure", "upgrade", s.t["upgrade"],
                    cat=lambda r: f"+{r['level']}")


def chart_tribute(s: Section) -> None:
    s.measure_chart("tribute", "guandan", "measure", "tribute", s.t["tribute"],
                    cat=lambda r: s.t[f"m_tribute_{r['level']}"])
