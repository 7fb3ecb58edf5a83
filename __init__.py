"""paipu 牌谱: replay, audit and analyse recorded hands of Chinese climbing card games.

The public API, documented in ``docs/api.md``: read records, replay one, classify cards,
legal moves, find rules, open a dataset, run a statistic. Everything else is internal
and may change. Names are imported lazily, so ``import paipu`` is cheap.

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
    "open_dataset": ".analysis.queries", "run_stat": ".analysis.queries",
    "replay_hand": ".replay.api", "previous_hand": ".replay.api", "Replay": ".replay.replayer",
    "find_rules": ".replay.games", "find_game": ".replay.games", "games": ".replay.games",
    "register": ".replay.games", "UnknownGame": ".replay.games",
    "Game": ".replay.game", "Rules": ".replay.rules", "Combo": ".replay.combos",
    "Violation": ".replay.verdicts", "Code": ".replay.verdicts",
    "simulate": ".replay.sim", "evaluate": ".replay.evaluate", "Evaluation": ".replay.evaluate",
    "review_hand": ".replay.review", "HandReview": ".replay.review", "DecisionReview": ".replay.review",
    "SeatSummary": ".replay.review",
}
__all__ = sorted(_EXPORTS)

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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'paipu' has no attribute {name!r}")
    module, _, attr = module.partition(":")
    value = getattr(import_module(module, __name__), attr or name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
