"""paipu's analysis side: DuckDB queries over the dataset, detectors and reports."""

#: the statistics of every game, in report order (file names in sql/)
COMMON_STATS = (
    "overview", "violations", "bombs", "bombs_by_size", "bombs_by_seat", "multiplier", "multiplier_drivers",
    "seat_advantage", "first_lead", "hand_length", "scores", "players", "ends", "coins_tail",
)


def stat_names() -> tuple[str, ...]:
    """:data:`COMMON_STATS` and those the registered games declare as their own (kept out
    of :mod:`analysis.queries` so that ``paipu stats --help`` does not load duckdb)."""
    from paipu.replay.games import games

    return COMMON_STATS + tuple(dict.fromkeys(s for g in games() for s in g.stats if s not in COMMON_STATS))


#: queries in sql/ that are not statistics (``paipu hands``, ``paipu compare``, the review rating)
NOT_STATS = frozenset({"hands", "compare", "rating"})


def stat_files() -> tuple[str, ...]:
    """The statistics as the ``sql/`` folder holds them, common ones first: what
    ``paipu stats --help`` lists without loading the games (a test keeps it equal to
    :func:`stat_names` for the built-in games)."""
    from pathlib import Path

    names = {p.stem for p in Path(__file__).with_name("sql").glob("*.sql") if not p.stem.startswith("_")}
    return COMMON_STATS + tuple(sorted(names - set(COMMON_STATS) - NOT_STATS))
