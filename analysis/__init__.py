"""paipu's analysis side: DuckDB queries over the dataset, detectors and reports."""

#: the statistics of every game, in report order (file names in sql/)
COMMON_STATS = (
    "overview", "violations", "bombs", "bombs_by_size", "bombs_by_seat", "multiplier",
    "seat_advantage", "first_lead", "hand_length", "scores", "players", "ends", "coins_tail", "review_rating",
)


def stat_names() -> tuple[str, ...]:
    """:data:`COMMON_STATS` and those the registered games declare as their own (kept out
    of :mod:`analysis.queries` so that ``paipu stats --help`` does not load duckdb)."""
    from paipu.replay.games import games

    return COMMON_STATS + tuple(dict.fromkeys(s for g in games() for s in g.stats if s not in COMMON_STATS))


#: statistics over tables other commands write (``paipu review DS``): run only when the
#: dataset has them all, empty otherwise
NEEDS: dict[str, tuple[str, ...]] = {"review_rating": ("reviewed", "players")}

#: queries in sql/ that are not statistics (``paipu hands``, ``paipu compare``, the review rating)
NOT_STATS = frozenset({"hands", "compare", "rating"})


def stat_files() -> tuple[str, ...]:
    """The statistics as the ``sql/`` folders hold them (this package's, and each built-in
    game package's, ``replay/games/*/sql/``), common ones first: what ``paipu stats --help``
    lists without loading the games (a test keeps it equal to :func:`stat_names` for the
    built-in games)."""
    from importlib.util import find_spec
    from pathlib import Path

    games = find_spec("paipu.replay.games")
    assert games is not None and games.submodule_search_locations
    folders = [Path(__file__).with_name("sql"), *(p for d in games.submodule_search_locations
                                                  for p in Path(d).glob("*/sql"))]
    names = {p.stem for folder in folders for p in folder.glob("*.sql") if not p.stem.startswith("_")}
    return COMMON_STATS + tuple(sorted(names - set(COMMON_STATS) - NOT_STATS))
