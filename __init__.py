"""paipu 牌谱: replay, audit and analyse recorded hands of Chinese climbing card games.

The public API, documented in ``docs/api.md``: read records, replay one, classify cards,
legal moves, find rules, open a dataset, run a statistic, and the library the command
line calls. Everything else is internal and may change. Names are imported lazily, so
``import paipu`` is cheap.

>>> import paipu
>>> hand = next(paipu.read_records("sample_logs/doudizhu_handmade.paipu"))
>>> result = paipu.replay_hand(hand)
>>> result.ok, result.outcome["scores"]
(True, [16, -8, -8])
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"

#: public name -> module that defines it (relative to this package), ":name" when it is
#: named otherwise there
_EXPORTS = {
    "read_records": ".replay.api", "legal_moves": ".replay.api", "classify": ".replay.api",
    "beats": ".replay.api", "RecordError": ".replay.api", "ingest": ".replay.api", "audit": ".replay.api",
    "open_dataset": ".analysis.queries", "run_stat": ".analysis.queries", "why_empty": ".analysis.queries",
    "replay_hand": ".replay.api", "previous_hand": ".replay.api", "Replay": ".replay.replayer",
    "find_rules": ".replay.games", "find_game": ".replay.games", "games": ".replay.games",
    "register": ".replay.games", "UnknownGame": ".replay.games",
    "Game": ".replay.game", "Rules": ".replay.rules", "Combo": ".replay.combos",
    "Violation": ".replay.verdicts", "Code": ".replay.verdicts",
    "simulate": ".replay.sim", "evaluate": ".replay.evaluate", "Evaluation": ".replay.evaluate",
    "review_hand": ".replay.review", "HandReview": ".replay.review", "DecisionReview": ".replay.review",
    "SeatSummary": ".replay.review",
    # the library behind the command line (docs/api.md, "The library behind the command line")
    "game_name": ".replay.games", "is_dataset": ".replay.api", "find_records": ".replay.api",
    "nearest_ids": ".replay.api", "unread_note": ".replay.api", "hand_ids": ".replay.api", "play_cards": ".replay.api", "readings": ".replay.api",
    "Reading": ".replay.api",
    "InputError": ".replay.io.sources", "expand_inputs": ".replay.io.sources", "read_size": ".replay.io.sources",
    "FORMATS": ".replay.io.readers", "check_format": ".replay.io.readers", "MappingError": ".replay.io.mapping",
    "convert": ".replay.io.convert", "CONVERT_TO": ".replay.io.convert:TARGETS",
    "StoreError": ".replay.io.store", "set_endpoint": ".replay.io.store", "is_uri": ".replay.io.store",
    "check_place": ".replay.io.store:place", "NotRegularFile": ".replay.io.output", "check_target": ".replay.io.output",
    "write_bytes": ".replay.io.output",
    "DatasetLocked": ".replay.io.commit", "DatasetWriteError": ".replay.io.commit", "ClusterError": ".replay.distributed",
    "ingest_files": ".replay.ingest", "follow": ".replay.follow",
    "Tally": ".replay.audit", "audit_dataset": ".replay.audit", "dataset_hands": ".replay.audit", "audited_hands": ".replay.audit", "rejects_only": ".replay.audit",
    "dataset_verdicts": ".replay.audit", "iter_verdicts": ".replay.audit", "verdict_counts": ".replay.audit",
    "BOT_LEVELS": ".replay.sim.search:LEVELS", "SettingError": ".replay.sim.settings",
    "settings_of": ".replay.sim.settings", "try_setting": ".replay.sim.settings:trial",
    "simulation_jobs": ".replay.sim.run:jobs", "job_count": ".replay.sim.run", "default_workers": ".replay.sim.run",
    "write_simulation": ".replay.sim.run:write", "simulated_format": ".replay.sim.run:output_format",
    "write_records": ".replay.sim.run", "parse_cheats": ".replay.sim.population",
    "simulate_population": ".replay.sim.population", "write_labels": ".replay.sim.population",
    "render_hand": ".replay.view:render", "step_through": ".replay.view", "write_page": ".replay.html",
    "write_index": ".replay.html", "html_name": ".replay.html", "review_lines": ".replay.review_view", "review_marks": ".replay.review_view:marks",
    "review_dataset": ".replay.review_pass", "ReviewSettings": ".replay.review_pass:Settings",
    "update_players": ".analysis.rating", "rating_table": ".analysis.rating",
    "stat_files": ".analysis", "STATS": ".analysis.queries", "connect": ".analysis.queries",
    "DatasetError": ".analysis.queries", "QueryError": ".analysis.queries", "find_hands": ".analysis.queries",
    "sql_query": ".analysis.queries", "write_parquet": ".analysis.queries", "csv_text": ".analysis.queries",
    "compare_settings": ".analysis.compare:compare", "compare_for_people": ".analysis.compare:for_people",
    "compare_sentences": ".analysis.compare:sentences", "setting_label": ".analysis.compare",
    "fraud_screen": ".analysis.fraud:screen", "write_fraud_tables": ".analysis.fraud:write_tables",
    "FraudResult": ".analysis.fraud", "WATCH_Q": ".analysis.fraud", "suspect_lines": ".analysis.fraud.words",
    "watch_lines": ".analysis.fraud.words", "report_html": ".analysis.report", "write_report": ".analysis.report",
}
#: public modules: numbers and words for people (paipu.fmt.count(3, "hand") == "3 hands")
_MODULES = {"fmt": ".replay.fmt"}
__all__ = sorted([*_EXPORTS, *_MODULES])

if TYPE_CHECKING:  # the names as mypy sees them (at run time each is imported on first use)
    from .analysis.queries import open_dataset, run_stat  # noqa: F401
    from .replay.api import (  # noqa: F401
        RecordError, audit, beats, classify, ingest, legal_moves, previous_hand, read_records, replay_hand,
    )
    from .replay.combos import Combo  # noqa: F401
    from .replay.evaluate import Evaluation, evaluate  # noqa: F401
    from .replay.game import Game  # noqa: F401
    from .replay.games import UnknownGame, find_game, find_rules, games, register  # noqa: F401
    from .replay.replayer import Replay  # noqa: F401
    from .replay.review import DecisionReview, HandReview, SeatSummary, review_hand  # noqa: F401
    from .replay.rules import Rules  # noqa: F401
    from .replay.sim import simulate  # noqa: F401
    from .replay.verdicts import Code, Violation  # noqa: F401
    from .analysis import stat_files  # noqa: F401
    from .analysis.compare import compare as compare_settings, for_people as compare_for_people  # noqa: F401
    from .analysis.compare import sentences as compare_sentences  # noqa: F401
    from .analysis.fraud import WATCH_Q, FraudResult, screen as fraud_screen, write_tables as write_fraud_tables  # noqa: F401
    from .analysis.fraud.words import suspect_lines, watch_lines  # noqa: F401
    from .analysis.queries import STATS, DatasetError, QueryError, connect, csv_text, find_hands  # noqa: F401
    from .analysis.queries import sql_query, write_parquet  # noqa: F401
    from .analysis.rating import rating_table, update_players  # noqa: F401
    from .analysis.report import report_html, write_report  # noqa: F401
    from .replay import fmt  # noqa: F401
    from .replay.api import Reading, find_records, hand_ids, is_dataset, nearest_ids, play_cards, readings, unread_note  # noqa: F401
    from .replay.audit import Tally, audit_dataset, dataset_hands, dataset_verdicts, iter_verdicts  # noqa: F401
    from .replay.audit import verdict_counts  # noqa: F401
    from .replay.distributed import ClusterError  # noqa: F401
    from .replay.follow import follow  # noqa: F401
    from .replay.games import game_name  # noqa: F401
    from .replay.html import html_name, write_index, write_page  # noqa: F401
    from .replay.ingest import ingest_files  # noqa: F401
    from .replay.io.commit import DatasetLocked, DatasetWriteError  # noqa: F401
    from .replay.io.convert import TARGETS as CONVERT_TO, convert  # noqa: F401
    from .replay.io.output import NotRegularFile, check_target, write_bytes  # noqa: F401
    from .replay.io.mapping import MappingError  # noqa: F401
    from .replay.io.readers import FORMATS, check_format  # noqa: F401
    from .replay.io.sources import InputError, expand_inputs, read_size  # noqa: F401
    from .replay.io.store import StoreError, is_uri, place as check_place, set_endpoint  # noqa: F401
    from .replay.review_pass import Settings as ReviewSettings, review_dataset  # noqa: F401
    from .replay.review_view import marks as review_marks, review_lines  # noqa: F401
    from .replay.sim.population import parse_cheats, simulate_population, write_labels  # noqa: F401
    from .replay.sim.run import default_workers, job_count, jobs as simulation_jobs, write as write_simulation  # noqa: F401
    from .replay.sim.run import output_format as simulated_format, write_records  # noqa: F401
    from .replay.sim.search import LEVELS as BOT_LEVELS  # noqa: F401
    from .replay.sim.settings import SettingError, settings_of, trial as try_setting  # noqa: F401
    from .replay.view import render as render_hand, step_through  # noqa: F401


def __getattr__(name: str) -> Any:
    """The public *name*, imported on first use and kept here (a test that replaces it for
    the command line replaces ``paipu.name``, not the name in its module)."""
    if name in _MODULES:
        value = import_module(_MODULES[name], __name__)
    else:
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module 'paipu' has no attribute {name!r}")
        module, _, attr = module.partition(":")
        value = getattr(import_module(module, __name__), attr or name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
