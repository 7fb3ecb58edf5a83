"""A recorded hand reviewed decision by decision (``paipu.review_hand``, ``paipu review``).

Every decision of the hand that has more than one legal option (a play or a pass, a Dou
Dizhu bid or grab, a Guandan tribute or return) is valued by :func:`paipu.evaluate`; the
review keeps, per decision, the option played, the best option (by win probability, ties
by points; a bid or grab by points, :data:`STAKES`), the *loss* (best minus chosen, in
points of win probability, 0..100, 0 where a bid's best wins less often, with its
standard error over the same deals) and a flag, ``"mistake"`` or ``"blunder"``, only when
the loss is beyond its standard error (:func:`flag_of`, docs/review.md "Flags").

>>> hand = next(__import__("paipu").read_records("sample_logs/doudizhu_handmade.paipu"))
>>> review = review_hand(hand, seats=[1], samples=8, budget_ms=None)  # the farmer 李四
>>> [(d.index, d.kind, d.chosen, d.best, d.loss, d.flag) for d in review.decisions]
[(1, 'grab', 'grab no', 'grab no', 0.0, None), (10, 'pass', 'pass', '4h 4d', 100.0, 'blunder')]
>>> s = review.seats()[0]
>>> (s.player, s.decisions, s.matches, s.mean_loss, s.mistakes, s.blunders, review.skipped)
('李四', 2, 1, 50.0, 0, 1, 2)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypedDict

from .evaluate import Evaluation, Option, Value, decision_options, decision_state, evaluate

#: a loss of at least this many points of win probability is a mistake ...
MISTAKE = 5.0
#: ... and of at least this many a blunder (see :func:`flag_of`)
BLUNDER = 15.0
#: standard errors the loss must stand clear by (about a 97.5% one-sided bound)
Z = 2.0
#: deals a decision needs for a flag: fewer give a standard error too unsure to trust (two
#: deals that agree give 0)
MIN_DEALS = 8

#: the acts that are decisions, as ``DecisionReview.kind`` names them
KINDS = ("play", "pass", "bid", "grab", "tribute", "return")


def flag_of(loss: float, se: float, deals: int = MIN_DEALS) -> str | None:
    """The flag of a decision that lost *loss* points of win probability (standard error
    *se*, over *deals* deals): ``"blunder"`` when ``loss >= BLUNDER`` and ``loss - Z·se >=
    MISTAKE`` (the loss is large, and at least a mistake's even at its low bound), else
    ``"mistake"`` when ``loss >= MISTAKE`` and ``loss - Z·se > 0`` (the loss is real: the
    chosen option is worse beyond its noise), else None. No flag on fewer than
    :data:`MIN_DEALS` deals.

    >>> flag_of(20, 2), flag_of(20, 8), flag_of(6, 2), flag_of(6, 3), flag_of(100, 0), flag_of(100, 0, deals=2)
    ('blunder', 'mistake', 'mistake', None, 'blunder', None)
    """
    if deals < MIN_DEALS or not (math.isfinite(loss) and math.isfinite(se)):
        return None
    low = loss - Z * se
    if loss >= BLUNDER and low >= MISTAKE:
        return "blunder"
    if loss >= MISTAKE and low > 0:
        return "mistake"
    return None


#: the acts that set the side and the stake (a Dou Dizhu bid or grab): their best option is
#: the one with the highest expected points, since a grab doubles the stake and a call
#: makes the seat the landlord, who wins or loses twice what a farmer does, and win
#: probability sees neither (docs/review.md)
STAKES = ("bid", "grab")


def _key(o: Option) -> tuple[float, float]:
    return o.win.mean, o.score.mean


def _points_key(o: Option) -> tuple[float, float]:
    return o.score.mean, o.win.mean


def rank_key(kind: str) -> Callable[[Option], tuple[float, float]]:
    """How a decision of act *kind* ranks its options, highest first: by win probability,
    then points; a bid or grab (:data:`STAKES`) by points, then win probability."""
    return _points_key if kind in STAKES else _key


@dataclass(frozen=True)
class DecisionReview:
    """One decision reviewed (see the module's text)."""

    hand_id: str
    index: int
    seat: int
    #: the act recorded: "play" | "pass" | "bid" | "grab" | "tribute" | "return"
    kind: str
    #: label of the option played (``Option.label()``)
    chosen: str
    #: label of the best option (by win probability; ties by points; a bid or grab by
    #: points, ties by win probability, :data:`STAKES`; the chosen one when it ties)
    best: str
    #: number of legal options valued
    options: int
    #: best minus chosen, in points of win probability (0..100; 0 for a bid or grab whose
    #: best by points wins less often than the chosen one)
    loss: float
    #: its standard error (paired: the differences over the same deals; where the loss is
    #: floored at 0, the difference's)
    loss_se: float
    #: "mistake" | "blunder" | None (:func:`flag_of`)
    flag: str | None
    #: deals valued
    samples: int
    #: every deal solved exactly
    exact: bool
    #: some deal broke a pass constraint (``Evaluation.relaxed``)
    relaxed: bool
    #: the full values, for display (not stored in tables)
    evaluation: Evaluation

    def row(self) -> ReviewRow:
        """The flat row for a ``reviews`` table (no evaluation)."""
        return {"hand_id": self.hand_id, "index": self.index, "seat": self.seat, "kind": self.kind,
                "chosen": self.chosen, "best": self.best, "options": self.options, "loss": self.loss,
                "loss_se": self.loss_se, "flag": self.flag, "samples": self.samples, "exact": self.exact,
                "relaxed": self.relaxed}

    @property
    def matched(self) -> bool:
        """The best option was played."""
        return self.chosen == self.best

    @classmethod
    def of(cls, ev: Evaluation, kind: str) -> DecisionReview:
        """The review of one evaluated decision."""
        chosen = ev.chosen
        assert chosen is not None, "the recorded option is always among the options"
        key = rank_key(kind)
        best = max(ev.options, key=key)
        if key(best) == key(chosen):
            best = chosen  # a tie: the seat chose a best option
        if best is chosen:
            loss, se = 0.0, 0.0
        else:
            d = ev.difference(best, chosen, by="win")
            loss, se = 100 * d.mean, 100 * d.se
            if loss < 0:  # (a bid or grab: the best by points wins less often; no loss in win probability)
                loss = 0.0
        return cls(str(ev.hand_id), ev.index, ev.seat, kind, chosen.label(), best.label(), len(ev.options),
                   loss, se, flag_of(loss, se, ev.samples), ev.samples, ev.samples > 0 and ev.solved == ev.samples,
                   ev.relaxed > 0, ev)


class ValueJson(TypedDict):
    """A mean and its standard error (None where it is not finite: JSON has no NaN)."""

    mean: float | None
    se: float | None


class OptionJson(TypedDict):
    """One option of a decision valued: its label, cards (None: a pass or a bid) and kind,
    whether it was played, and its win probability (0..1), points and coins."""

    label: str
    cards: list[str] | None
    kind: str | None
    chosen: bool
    win: ValueJson | None
    points: ValueJson | None
    coins: ValueJson | None


class ReviewRow(TypedDict):
    """One decision reviewed, flat (:meth:`DecisionReview.row`: a row of the ``reviews`` table)."""

    hand_id: str
    index: int
    seat: int
    kind: str
    chosen: str
    best: str
    options: int
    loss: float | None
    loss_se: float | None
    flag: str | None
    samples: int
    exact: bool
    relaxed: bool


class DecisionJson(ReviewRow):
    """One decision reviewed with its options' values (:meth:`HandReview.to_json`)."""

    solved: int
    elapsed_ms: float
    options_valued: list[OptionJson]


class SeatJson(TypedDict):
    """A seat's summary (:class:`SeatSummary`)."""

    seat: int
    player: str
    decisions: int
    matches: int
    match_rate: float | None
    mean_loss: float | None
    mistakes: int
    blunders: int


class ThresholdsJson(TypedDict):
    """The flags' thresholds: :data:`MISTAKE`, :data:`BLUNDER` (points of win probability) and :data:`Z`."""

    mistake: float
    blunder: float
    z: float


class HandReviewJson(TypedDict):
    """A hand's review as JSON (:meth:`HandReview.to_json`, ``paipu review --json``; docs/review.md)."""

    hand_id: str
    game: str
    variant: str
    players: list[str]
    seats_reviewed: list[int]
    skipped: int
    thresholds: ThresholdsJson
    decisions: list[DecisionJson]
    seats: list[SeatJson]


@dataclass(frozen=True)
class SeatSummary:
    """A seat's decisions in one hand: how many were reviewed, how many matched the best
    option, the mean loss (points of win probability) and the flags."""

    seat: int
    player: str
    decisions: int
    matches: int
    #: matches / decisions (None without decisions)
    match_rate: float | None
    #: the mean loss (None without decisions)
    mean_loss: float | None
    mistakes: int
    blunders: int

    def to_json(self) -> SeatJson:
        return {"seat": self.seat, "player": self.player, "decisions": self.decisions, "matches": self.matches,
                "match_rate": self.match_rate, "mean_loss": self.mean_loss, "mistakes": self.mistakes,
                "blunders": self.blunders}


@dataclass(frozen=True)
class HandReview:
    """A hand's decisions reviewed, in order."""

    hand_id: str
    game: str
    decisions: tuple[DecisionReview, ...]
    variant: str = ""
    players: tuple[str, ...] = ()
    #: the seats reviewed
    reviewed: tuple[int, ...] = ()
    #: decisions of those seats with a single legal option (not valued)
    skipped: int = 0

    def seats(self) -> list[SeatSummary]:
        """Per seat reviewed: decisions, matches, match rate, mean loss, mistakes, blunders."""
        out = []
        for s in self.reviewed:
            mine = [d for d in self.decisions if d.seat == s]
            n = len(mine)
            matches = sum(d.matched for d in mine)
            out.append(SeatSummary(s, self.players[s] if s < len(self.players) else str(s), n, matches,
                                   matches / n if n else None, sum(d.loss for d in mine) / n if n else None,
                                   sum(d.flag == "mistake" for d in mine), sum(d.flag == "blunder" for d in mine)))
        return out

    def to_json(self) -> HandReviewJson:
        """The review as plain data (NaN as null): the thresholds, each decision's row with
        its options' values (win probability 0..1, points, each with its standard error),
        and the per-seat summary."""
        def value(v: Value | None) -> ValueJson | None:
            return None if v is None else {"mean": v.mean, "se": v.se}

        decisions: list[DecisionJson] = []
        for d in self.decisions:
            ev = d.evaluation
            options: list[OptionJson] = [
                {"label": o.label(), "cards": o.cards, "kind": o.kind, "chosen": o.chosen, "win": value(o.win),
                 "points": value(o.score), "coins": value(o.coin)} for o in ev.options]
            decisions.append({**d.row(), "solved": ev.solved, "elapsed_ms": ev.elapsed_ms, "options_valued": options})
        out: HandReviewJson = {"hand_id": self.hand_id, "game": self.game, "variant": self.variant,
                        "players": list(self.players), "seats_reviewed": list(self.reviewed), "skipped": self.skipped,
                        "thresholds": {"mistake": MISTAKE, "blunder": BLUNDER, "z": Z},
                        "decisions": decisions, "seats": [s.to_json() for s in self.seats()]}
        finite: HandReviewJson = _finite(out)  # the same keys, every NaN or infinity None
        return finite


def _finite(x: Any) -> Any:
    """*x* with every NaN or infinity as None (JSON has neither)."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    return x


def decision_at(record: dict[str, Any], index: int, previous: dict[str, Any] | None = None) -> int | None:
    """The number of legal options of the decision at action *index*; None when the action
    is no decision :func:`evaluate` values (a show, a peek, a resist, an action after a
    rule was broken) or none the seat made: an action marked ``given``, the bidding an
    importer writes where the source log has none (docs/formats.md), is not reviewed."""
    action = record["actions"][index]
    if action.get("act") not in KINDS or action.get("given"):
        return None
    try:
        table, _ = decision_state(record, index, previous)
        return len(decision_options(table, index, action)[1])
    except ValueError:
        return None


def review_hand(record: dict[str, Any], *, seats: Iterable[int] | None = None, samples: int = 64,
                budget_ms: float | None = 50.0, seed: int = 0, previous: dict[str, Any] | None = None,
                on_decision: Callable[[int, int], None] | None = None) -> HandReview:
    """Every decision of *seats* (default: all) in *record* with more than one legal option,
    valued by :func:`evaluate` (*samples*, *budget_ms*, *seed*, *previous* as there) and
    reviewed. Decisions with a single legal option are counted in ``skipped``.
    *on_decision(done, total)*: called after each decision valued (a progress bar).

    :raises ValueError: a seat that the hand does not have.
    """
    players = tuple(str(p) for p in record.get("players") or ())
    wanted = tuple(range(len(players))) if seats is None else tuple(sorted(set(seats)))
    for s in wanted:
        if not 0 <= s < len(players):
            raise ValueError(f"seat {s}: the hand has seats 0..{len(players) - 1}")
    found = [(i, decision_at(record, i, previous)) for i, a in enumerate(record["actions"]) if a.get("seat") in wanted]
    chosen = [i for i, n in found if n is not None and n > 1]
    skipped = sum(n == 1 for _, n in found)
    decisions = []
    for index in chosen:
        ev = evaluate(record, index, samples=samples, budget_ms=budget_ms, seed=seed, previous=previous)
        decisions.append(DecisionReview.of(ev, record["actions"][index]["act"]))
        if on_decision is not None:
            on_decision(len(decisions), len(chosen))
    return HandReview(str(record.get("id")), str(record.get("game")), tuple(decisions), str(record.get("variant") or ""),
                      players, wanted, skipped)
