"""The toy game's part of the balance report, from this folder alone: a rate (the share of
hands won by 5 cards or more) and a chart (the winning margin) of its own statistic
``sql/toy_margin.sql``, and a figure of its own compared on shared deals (``paipu
compare``: the margin a hand, ``sql/compare.sql``)."""

from paipu.analysis.compare import Figure

METRICS = {"big_margin": ("toy_margin", {"measure": "big"}, "k", "hands")}

#: compared on shared deals, after the figures of every game
FIGURES = {"margin": Figure("winning margin (cards)", "胜负差距（张）")}


def chart_margin(s) -> None:
    s.measure_chart("margin", "toy_margin", "measure", "margin", s.t["margin"], cat=lambda r: f"+{r['margin']}")
