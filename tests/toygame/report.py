"""The toy game's part of the balance report, from this folder alone: a rate (the share of
hands won by 5 cards or more) and a chart (the winning margin) of its own statistic
``sql/toy_margin.sql``."""

METRICS = {"big_margin": ("toy_margin", {"measure": "big"}, "k", "hands")}


def chart_margin(s) -> None:
    s.measure_chart("margin", "toy_margin", "measure", "margin", s.t["margin"], cat=lambda r: f"+{r['margin']}")
