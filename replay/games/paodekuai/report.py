"""Paodekuai's part of the balance report (``paipu report``): its rates and charts, found
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
    "let_go": ("paodekuai_events", {"event": "let_go"}, "k", "hands"),
    "let_go_paid": ("paodekuai_events", {"event": "let_go_paid"}, "k", "hands"),
    "xiqian": ("paodekuai_events", {"event": "xiqian"}, "k", "hands"),
}

# --- compared on shared deals (paipu compare; issue #25 item 3) ---------------------------
#: the game's own figures of the setting comparisons (``paipu compare``, the report's section):
#: per hand in ``sql/compare.sql``, compared after those of every game
FIGURES: dict[str, Figure] = {
    "let_goes": Figure("let-go (放走) a hand", "每局放走次数"),
    "xiqian_bombs": Figure("喜钱 bombs a hand", "每局喜钱炸弹数"),
}


def chart_paodekuai_events(s: Section) -> None:
    s.measure_chart("paodekuai_events", "paodekuai_events", "event", "", s.t["paodekuai_events"])
