"""A minimal per-hand review on :func:`replay.evaluate.evaluate`, with the interface of the
review branch's ``replay/review.py`` (``review_hand``, ``DecisionReview``, ``HandReview``):
the dataset pass (:mod:`replay.review_pass`) is built on it until that branch lands, then
this module goes."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .evaluate import Evaluation, evaluate

#: a loss (points of win probability) from which a decision is a mistake, a blunder,
#: when it is also more than two standard errors above zero
MISTAKE, BLUNDER = 5.0, 15.0


@dataclass(frozen=True)
class DecisionReview:
    hand_id: str
    index: int
    seat: int
    kind: str
    chosen: str
    best: str
    options: int
    loss: float
    loss_se: float
    flag: str | None
    samples: int
    exact: bool
    relaxed: bool
    evaluation: Evaluation

    def row(self) -> dict[str, Any]:
        return {"hand_id": self.hand_id, "index": self.index, "seat": self.seat, "kind": self.kind,
                "chosen": self.chosen, "best": self.best, "options": self.options, "loss": self.loss,
                "loss_se": self.loss_se, "flag": self.flag, "samples": self.samples, "exact": self.exact,
                "relaxed": self.relaxed}


@dataclass(frozen=True)
class HandReview:
    hand_id: str
    game: str
    decisions: tuple[DecisionReview, ...]


def review_hand(record: dict[str, Any], *, seats=None, samples: int = 64, budget_ms: float | None = 50.0,
                seed: int = 0, previous: dict[str, Any] | None = None) -> HandReview:
    out = []
    for i, a in enumerate(record["actions"]):
        if a.get("act") not in ("play", "pass", "bid", "grab") or seats is not None and a.get("seat") not in seats:
            continue
        try:
            ev = evaluate(record, i, samples=samples, budget_ms=budget_ms, seed=seed, previous=previous)
        except ValueError:
            continue
        chosen = ev.chosen
        if chosen is None:
            continue
        best = ev.best(by="win")
        d = ev.difference(best, chosen, by="win")
        loss, se = 100 * d.mean, 100 * d.se
        beyond = not math.isnan(se) and loss - 2 * se > 0
        flag = "blunder" if beyond and loss >= BLUNDER else "mistake" if beyond and loss >= MISTAKE else None
        out.append(DecisionReview(record["id"], i, a["seat"], a["act"], chosen.label(), best.label(), len(ev.options),
                                  loss, se, flag, ev.samples, ev.solved == ev.samples, ev.relaxed > 0, ev))
    return HandReview(record["id"], record["game"], tuple(out))
