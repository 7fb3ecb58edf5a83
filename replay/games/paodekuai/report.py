"""Paodekuai's part of the balance report (``paipu report``): its rates and charts, found
by the report through the game's declaration (``Game.part("report")``, ``Game.report``
chooses which are shown); its words are in :mod:`.words`, its statistics in ``sql/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paipu.analysis.report import Section

#: the game's own rates (summary and comparisons): (statistic, row filter, successes column, trials column)
METRICS: dict[str, tuple[str, dict[str, str], str, str]] = {
    "let_go": ("paodekuai_events", {"event": "let_go"}, "k", "hands"),
    "let_go_paid": ("paodekuai_events", {"event": "let_go_paid"}, "k", "hands"),
    "xiqian": ("paodekuai_events", {"event": "xiqian"}, "k", "hands"),
}


def chart_paodekuai_events(s: Section) -> None:
    s.measure_chart("paodekuai_events", "paodekuai_events", "event", "", s.t["paodekuai_events"])
