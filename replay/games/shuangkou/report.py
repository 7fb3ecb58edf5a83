"""Shuangkou's part of the balance report (``paipu report``): its rates and charts, found
by the report through the game's declaration (``Game.part("report")``, ``Game.report``
chooses which are shown); its words are in :mod:`.words`, its statistics in ``sql/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paipu.analysis.report import Section

#: the game's own rates (summary and comparisons): (statistic, row filter, successes column, trials column)
METRICS: dict[str, tuple[str, dict[str, str], str, str]] = {
    "kou_double": ("shuangkou", {"measure": "kou", "level": "double"}, "k", "hands"),
}


def chart_kou(s: Section) -> None:
    s.measure_chart("kou", "shuangkou", "measure", "kou", s.t["kou"],
                    cat=lambda r: s.t.get(r["level"], r["level"]))
