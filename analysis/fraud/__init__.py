"""Fraud screens over an audited dataset (``paipu fraud``): player profiles, pair screens
(co-seating, soft play, chip flow), a bot-timing screen, ranked suspects.

Counting is SQL (``sql/`` beside this file, run by DuckDB with bound parameters); the
tests and their p-values are here; all p-values of one run go through Benjamini–Hochberg
together, so that the share of false suspects among those flagged stays near *alpha*.
See docs/fraud.md for each screen's statistic, assumptions and blind spots.
"""

from __future__ import annotations

import functools
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

import numpy as np
import polars as pl

from .. import inference
from ..queries import connect, frame, sql_text
from . import share

SQL_DIR = Path(__file__).with_name("sql")
#: half-width (seconds) of the time window that says who was available to sit with a player
WINDOW = 1800
#: a sitting: a player's consecutive hands with the same players, at most this far apart (s)
SITTING_GAP = 1800
#: timing features of the bot screen: (profile column, +1 when a high value is bot-like)
BOT_FEATURES = (("regularity", 1), ("long_pause_rate", -1), ("think_options_corr", -1),
                ("hours_of_day", 1), ("longest_session_h", 1))
#: variance-stabilising transforms of the features (value, decisions) before their robust z:
#: skewed counts, durations and proportions would otherwise give honest players long upper
#: tails; the long-pause rate on a log scale with half a pause added (log((k + 0.5)/(n + 1))),
#: so that none in thousands of decisions stands out from a few in a hundred
BOT_TRANSFORMS = {"long_pause_rate": lambda r, n: np.log((np.maximum(r, 0) * n + 0.5) / (n + 1)),
                  "hours_of_day": lambda x, n: np.log(np.maximum(x, 1)),
                  "longest_session_h": lambda x, n: np.log1p(np.maximum(x, 0))}
#: bot-like features a player needs before the screen calls it a bot (all of them when fewer)
BOT_SIGNS = 3
#: least chances of sparing (soft play), hands as opponents (chip flow) for a pair to be tested
MIN_SOFT, MIN_FLOW = 10, 20
#: least hands as opponents for chip flow's stake reading (a dumper met at chance shares ~10)
MIN_STAKE = 8
KINDS = ("co_seating", "soft_play", "feeding", "chip_flow", "bot_timing", "card_sharing")
#: the watch list: tests not flagged with q at most this, or whose p times the tests of the
#: run (K kinds x m of its kind) is at most 1: fewer than one test that strong is expected by
#: chance in the whole run (strong evidence, not yet significant)
WATCH_Q = 0.25


def _frame(con, name: str, params: dict) -> pl.DataFrame:
    text = sql_text(name, SQL_DIR)
    return frame(con.sql(text, params={k: v for k, v in params.items() if f"${k}" in text}))


@dataclass
class Test:
    """One screen's test of a player or a pair."""

    kind: str
    game: str
    variant: str
    player: str
    other: str | None
    p: float
    effect: float  # the kind's effect size (observed / expected, a rate difference, a z ...)
    n: int  # sample size: sittings, opportunities, hands, decisions
    evidence: dict = field(default_factory=dict)
    q: float = 1.0
    hands: list[str] = field(default_factory=list)
    watch: bool = False  # on the watch list (:func:`watch_list`)
    #: soft play: the direction's own p, before the both-ways correction (:func:`soft_play`;
    #: what :func:`dumping` combines: the giver spared the receiver, not the other way)
    one_way: float | None = None
    more: int | None = None  # of the watched: about how many more of its units (n) would flag it


class FraudJson(TypedDict):
    """:meth:`FraudResult.to_json`: the suspects listed and the watched (rows of
    :meth:`FraudResult.suspects`), the flagged, tests and player profiles counted, the
    false discovery rate."""

    suspects: list[dict[str, Any]]
    watch: list[dict[str, Any]]
    flagged: int
    tests: int
    players: int
    fdr: float


@dataclass
class FraudResult:
    players: pl.DataFrame
    tests: list[Test]
    alpha: float

    @property
    def flagged(self) -> list[Test]:
        return [t for t in self.tests if t.q <= self.alpha]

    @property
    def watched(self) -> list[Test]:
        return [t for t in self.tests if t.watch]

    def listed(self, top: int = 0) -> tuple[list[tuple[int, Test]], list[tuple[int, Test]]]:
        """What ``paipu fraud`` lists, each test with its rank (that of :meth:`suspects`):
        the flagged tests and *top* more of the best ranked, then the watched ones not among
        them."""
        ranked = list(enumerate(self.tests, 1))
        shown = ranked[:len(self.flagged) + top]
        return shown, [(k, t) for k, t in ranked[len(shown):] if t.watch]  # (those within *top* are listed there)

    def to_json(self, top: int = 0) -> FraudJson:
        """``paipu fraud --json``: the rows of :meth:`suspects` listed (:meth:`listed`),
        each test's evidence as data, and the counts."""
        every = self.suspects().to_dicts()
        for row in every:
            row["evidence"] = json.loads(row["evidence"])
        shown = len(self.listed(top)[0])
        return {"suspects": every[:shown], "watch": [row for row in every[shown:] if row["watch"]],
                "flagged": len(self.flagged), "tests": len(self.tests), "players": self.players.height,
                "fdr": self.alpha}

    def suspects(self) -> pl.DataFrame:
        """Every test as a row, ranked (flagged first, then by q and p)."""
        rows = [{
            "rank": k + 1, "kind": t.kind, "game": t.game, "variant": t.variant, "player": t.player, "other": t.other,
            "score": round(-math.log10(max(t.q, 1e-300)), 3), "q": t.q, "p": t.p, "flagged": t.q <= self.alpha,
            "effect": t.effect, "n": t.n, "evidence": json.dumps(t.evidence, ensure_ascii=False, sort_keys=True),
            "hands": t.hands, "watch": t.watch, "more": t.more,
        } for k, t in enumerate(self.tests)]
        schema: dict[str, pl.DataType | type[pl.DataType]] = {
            "rank": pl.Int64, "kind": pl.Utf8, "game": pl.Utf8, "variant": pl.Utf8, "player": pl.Utf8,
            "other": pl.Utf8, "score": pl.Float64, "q": pl.Float64, "p": pl.Float64, "flagged": pl.Boolean,
            "effect": pl.Float64, "n": pl.Int64, "evidence": pl.Utf8, "hands": pl.List(pl.Utf8),
            "watch": pl.Boolean, "more": pl.Int64}
        return pl.DataFrame(rows, schema=schema)


# ----------------------------------------------------------------------------- statistics


#: a soft-play test this strong explains the sparer's passes on that opponent's plays: card
#: sharing leaves them out of its pass chances (``share_chances.sql``, ``spared_pairs``)
SPARING_P = 1e-3

#: the pair screens whose family is filtered before Benjamini–Hochberg (:func:`in_family`)
FILTERED = ("soft_play", "feeding", "chip_flow", "dumping", "card_sharing")


def in_family(tests: list) -> list[bool]:
    """Which *tests* enter their screen's Benjamini–Hochberg family (independent filtering,
    Bourgon, Gentleman & Huber 2010): of each pair screen in FILTERED, the tests whose n
    (chances, hands as opponents) is at least the median n of that screen's tests (ties
    kept); every test of the other screens. Each of these p's is computed given its n
    (the null's tail at that n), so under the null it stays uniform or conservative
    whatever n is, and a rule on n alone leaves the kept p's valid; half the family means
    half the correction. The blind spot: a pair below the median is not tested (q = 1),
    only its p can put it on the watch list. The rule is fixed (the median, not a cut
    chosen to flag more). docs/fraud.md."""
    keep = [True] * len(tests)
    for kind in FILTERED:
        idx = [i for i, t in enumerate(tests) if t.kind == kind]
        if not idx:
            continue
        cut = float(np.median([tests[i].n for i in idx]))
        for i in idx:
            keep[i] = tests[i].n >= cut
    return keep


def bh_by_kind(tests: list) -> list[float]:
    """q-values of *tests*: Benjamini–Hochberg within each screen (kind) at α/K, K the
    screens with a test (reported as K·q, capped at 1, so that q ≤ α still flags), over the
    tests :func:`in_family` keeps (the others q = 1). The false discovery rate over all of
    them stays ≤ α (V/R ≤ Σ V_k/R_k), and a screen of a few dozen player tests is not
    drowned by thousands of pair tests."""
    kinds = sorted({t.kind for t in tests})
    out = [1.0] * len(tests)
    keep = in_family(tests)
    for kind in kinds:
        idx = [i for i, t in enumerate(tests) if t.kind == kind and keep[i]]
        for i, q in zip(idx, bh([tests[i].p for i in idx])):
            out[i] = min(1.0, len(kinds) * q)
    return out


def bh(p: list[float]) -> list[float]:
    """Benjamini–Hochberg adjusted p-values (q), in the order given."""
    if not p:
        return []
    from scipy.stats import false_discovery_control

    return [float(x) for x in false_discovery_control(np.asarray(p, dtype=float), method="bh")]


def watch_list(tests: list[Test], alpha: float, watch_q: float = WATCH_Q) -> None:
    """Mark the tests not flagged whose q is at most *watch_q*, or whose p is at most
    1 / (K · m) (K the kinds with a test, m the tests of its kind: under the null about one
    test in the whole run gets there by chance, 1/K per kind), as watched, each with about
    how many more of its units (sittings, chances, hands, decisions: its n) would flag it if
    the evidence went on as measured: the p that flags it for certain is the Bonferroni
    level within its kind, α / (K · m) (m the kind's tests, K the kinds; BH flags whatever
    Bonferroni does). Co-seating scales its Poisson counts (observed and expected × f, the
    exact tail); every other kind its z (z grows as √n): f = (z needed / z now)²; more
    = ⌈(f − 1) · n⌉."""
    from scipy.stats import norm

    kinds: dict[str, int] = {}
    for t in tests:
        kinds[t.kind] = kinds.get(t.kind, 0) + 1
    for t in tests:
        t.watch, t.more = False, None
        tests_run = len(kinds) * kinds[t.kind]
        if t.q <= alpha or (t.q > watch_q and t.p * tests_run > 1) or not 0 < t.p < 1:
            continue
        target = alpha / tests_run
        t.watch = True
        if t.p <= target:
            t.more = 0
            continue
        if t.kind == "co_seating" and t.evidence.get("expected"):
            obs, exp = t.evidence["sittings_together"], float(t.evidence["expected"])
            f = 1.0
            while f < 1000 and poisson_upper(math.ceil(f * obs), f * exp) > target:
                f *= 1.05
        else:
            z_now = float(norm.isf(t.p))
            f = (float(norm.isf(target)) / z_now) ** 2 if z_now > 0 else math.inf
        t.more = math.ceil((f - 1) * t.n) if math.isfinite(f) and f < 1000 else None


def poisson_upper(observed: int, expected: float) -> float:
    """P(X >= observed) for X ~ Poisson(expected)."""
    from scipy.stats import poisson

    return float(poisson.sf(observed - 1, expected)) if observed > 0 else 1.0


def poisson_binomial_upper(observed: int, chances: np.ndarray) -> float:
    """P(X >= observed) for X the number of successes of independent Bernoulli trials with
    these *chances* (Poisson-binomial), exact: the distribution built trial by trial, every
    count from *observed* up kept as one (O(trials × observed))."""
    if observed <= 0:
        return 1.0
    pmf = np.zeros(observed + 1)
    pmf[0] = 1.0
    for c in np.asarray(chances, dtype=float):
        top = pmf[observed]
        nxt = pmf * (1 - c)
        nxt[1:] += pmf[:-1] * c
        nxt[observed] = top + pmf[observed - 1] * c  # at least *observed*: stays there
        pmf = nxt
    return float(min(max(pmf[observed], 0.0), 1.0))


def fisher_greater(k1: int, n1: int, k2: int, n2: int) -> float:
    """One-sided Fisher exact p: is the rate k1/n1 higher than k2/n2?"""
    from scipy.stats import fisher_exact

    if n1 == 0 or n2 == 0:
        return 1.0
    return float(fisher_exact(np.array([[k1, n1 - k1], [k2, n2 - k2]]), alternative="greater").pvalue)


def normal_upper(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


def robust_z(values: np.ndarray) -> np.ndarray:
    """(x - median) / (1.4826 MAD), ignoring NaN; a MAD of 0 falls back to the IQR, then 1."""
    med = np.nanmedian(values)
    mad = 1.4826 * np.nanmedian(np.abs(values - med))
    if not mad > 0:
        q75, q25 = np.nanpercentile(values, [75, 25])
        mad = (q75 - q25) / 1.349 if q75 > q25 else 1.0
    return (values - med) / mad


def wilson(k: int, n: int) -> tuple[float | None, float | None]:
    """95% Wilson interval of k in n (:func:`analysis.inference.wilson`; None without trials)."""
    return (None, None) if n == 0 else inference.wilson(k, n)


# ----------------------------------------------------------------------------- ratings


def ratings(seats: pl.DataFrame) -> pl.DataFrame:
    """OpenSkill (Plackett–Luce) ratings, hands in time order: sides are the game's roles
    (``seats.role``, as its rows name them: the seats that share one play together, a seat
    that holds its role alone by itself, each for himself where there is none), ranked by
    result.
    ``rating_jump``: the largest rise of the ordinal over 50 of the player's hands."""
    from openskill.models import PlackettLuce, PlackettLuceRating

    model = PlackettLuce()
    out = []
    for (game, variant), part in seats.sort(["game", "variant", "ts", "hand_id"]).group_by(
            ["game", "variant"], maintain_order=True):
        rating: dict[str, PlackettLuceRating] = {}
        history: dict[str, list[float]] = {}
        for hand in part.partition_by("hand_id", maintain_order=True):
            sides: dict[str, list[tuple[str, float]]] = {}
            for player, side, result in zip(hand["player"], hand["side"], hand["result"]):
                sides.setdefault(side, []).append((player, result))
            if len(sides) < 2:
                continue
            teams = list(sides.values())
            names = [[p for p, _ in team] for team in teams]
            if len({p for team in names for p in team}) != sum(map(len, names)):
                continue  # a player on two seats of a hand: not rateable
            scores = [max(r for _, r in team) for team in teams]
            ranks: list[float] = [1 + sum(1 for s in scores if s > mine) for mine in scores]
            rated = model.rate([[rating.get(p) or model.rating(name=p) for p in team] for team in names], ranks=ranks)
            for team, new in zip(names, rated):
                for p, r in zip(team, new):
                    rating[p] = r
                    history.setdefault(p, []).append(r.ordinal())
        for p, r in rating.items():
            h = history[p]
            jump = max((h[i] - h[i - 50] for i in range(50, len(h))), default=None)
            out.append({"game": game, "variant": variant, "player": p, "rating": r.ordinal(), "rating_mu": r.mu,
                        "rating_sigma": r.sigma, "rating_jump": jump})
    schema = {"game": pl.Utf8, "variant": pl.Utf8, "player": pl.Utf8, "rating": pl.Float64, "rating_mu": pl.Float64,
              "rating_sigma": pl.Float64, "rating_jump": pl.Float64}
    return pl.DataFrame(out, schema=schema)


# ----------------------------------------------------------------------------- the screens


def sittings(seat_times: pl.DataFrame) -> dict[tuple[str, str], list[tuple[float, tuple[str, ...]]]]:
    """Per game and variant, the sittings in time order: (start, players). A sitting is a
    run of hands with the same players, each within SITTING_GAP of the one before (a
    match of a game played in matches, or friends staying at a table): hands of one sitting are not
    independent chances to meet. The players of a hand are its distinct players: one name on
    two seats (a record's error, or the simulator's before 2026-12-03) is one player there,
    not a pair with itself, nor twice at its neighbours' table (co-seating's count of one
    sitting must not exceed one)."""
    out: dict[tuple[str, str], list] = {}
    for (game, variant), part in seat_times.group_by(["game", "variant"], maintain_order=True):
        hands: dict[str, tuple[float, list[str]]] = {}
        for hand_id, ts, player in zip(part["hand_id"], part["ts"], part["player"]):
            hands.setdefault(hand_id, (ts, []))[1].append(player)
        seq = sorted((ts, tuple(sorted(set(players)))) for ts, players in hands.values())
        last: dict[tuple[str, ...], float] = {}
        found = []
        for ts, players in seq:
            prev = last.get(players)
            if prev is None or ts - prev > SITTING_GAP:
                found.append((ts, players))
            last[players] = ts
        out[(game, variant)] = found
    return out


def co_seating(seat_times: pl.DataFrame, eligible: set[tuple[str, str, str]], min_pair: int) -> list[Test]:
    """Sittings shared by each pair against random seating among the players available
    then: each of A's sittings has k-1 other seats, filled in proportion to how much each
    player played within ±WINDOW of it, so that B sits there with chance
    min(1, (k-1)·B's share). The exact upper tail of the count shared, a sum of one
    Bernoulli per sitting (Poisson-binomial, :func:`poisson_binomial_upper`): the Poisson
    tail used until 2026-12-03 is its approximation for small chances, and with 3 or 4
    seats among some fifteen players online each chance is 0.1-0.3, where the Poisson's
    variance (the mean) is some 30% above the Bernoullis' (Σ p(1 - p)): on honest pairs its
    p < 0.05 came out at 0.2-0.7% instead of 5%."""
    tests = []
    for (game, variant), seq in sittings(seat_times).items():
        times = np.array([ts for ts, _ in seq])
        sizes = np.array([len(p) for _, p in seq])
        slots = np.concatenate([[0], np.cumsum(sizes)])
        by_player: dict[str, list[int]] = {}
        for k, (_, players) in enumerate(seq):
            for player in players:
                by_player.setdefault(player, []).append(k)
        t_of = {p: times[np.array(ks)] for p, ks in by_player.items()}
        together: dict[tuple[str, str], int] = {}
        for _, players in seq:
            for i, a in enumerate(players):
                for b in players[i + 1:]:
                    together[(a, b)] = together.get((a, b), 0) + 1

        def window_count(t_sorted: np.ndarray, at: np.ndarray) -> np.ndarray:
            return np.searchsorted(t_sorted, at + WINDOW, "right") - np.searchsorted(t_sorted, at - WINDOW, "left")

        lo = np.searchsorted(times, times - WINDOW, "left")
        hi = np.searchsorted(times, times + WINDOW, "right")
        slots_in = slots[hi] - slots[lo]  # seats filled within the window of each sitting
        for (a, b), observed in together.items():
            if observed < min_pair or (game, variant, a) not in eligible or (game, variant, b) not in eligible:
                continue
            ka = np.array(by_player[a])
            at = times[ka]
            na, nb = window_count(t_of[a], at), window_count(t_of[b], at)
            free = np.maximum(slots_in[ka] - na, 1)
            chance = np.minimum((sizes[ka] - 1) * np.minimum(nb / free, 1.0), 1.0)  # B at A's table
            expected = float(np.sum(chance))
            p = poisson_binomial_upper(observed, chance)
            tests.append(Test("co_seating", game, variant, a, b, p, observed / expected if expected else math.inf,
                              len(ka), {"sittings_together": observed, "expected": round(expected, 2),
                                        "sittings_a": len(by_player[a]), "sittings_b": len(by_player[b])}))
    return tests


def overdispersion(hands: pl.DataFrame, min_pair: int = MIN_SOFT) -> dict[tuple[str, str], tuple[float, float]]:
    """The population's over-dispersion of sparing, per game and variant, by the method of
    moments: (ρ_hand, ρ_pair). *hands*: every ordered pair's chances ``n`` and spares ``k``
    per sitting ``c`` (the hands the same players played at one table; a match where hands
    come in matches) and place (``soft_clusters.sql``), each chance's rate p the sparer's
    own at that place over all its opponents.

    ρ_hand, the correlation of two chances of one sitting (a hand whose shape makes a player
    keep its cards passes on the same opponent again and again, and a table's partner and
    opponents shape its play hand after hand) =
    Σ[(k_c − μ_c)² − v_c] / Σ n_c(n_c − 1) p̄_c q̄_c over the (pair, sitting) clusters, μ_c =
    Σ n·p, v_c = Σ n·p·q, p̄_c = μ_c / n_c. ρ_pair, what is left between pairs of at least
    *min_pair* chances (some opponents are easier to spare than others, whoever sits
    there) = Σ(z₀² − 1) / Σ x over the pairs, z₀ = (K − E) / √V₀ with V₀ the binomial
    variance and the hands' share, x = N(N − 1) p̄ q̄ / V₀ (each pair weighs by its share
    of the variance, not by N²: a few co-seated cheaters with hundreds of chances would
    otherwise set it); pairs with |z₀| > 4 are left out (the cheaters the screen looks
    for), and both are at least 0."""
    out: dict[tuple[str, str], tuple[float, float]] = {}
    if hands.is_empty():
        return out
    rates = hands.group_by(["game", "variant", "a", "place"]).agg(
        ((pl.col("k").sum() + 0.5) / (pl.col("n").sum() + 1)).alias("p"))
    x = hands.join(rates, on=["game", "variant", "a", "place"]).with_columns(
        (pl.col("n") * pl.col("p")).alias("mu"), (pl.col("n") * pl.col("p") * (1 - pl.col("p"))).alias("v"))
    c = x.group_by(["game", "variant", "a", "b", "c"]).agg(
        pl.col("n").sum(), pl.col("k").sum(), pl.col("mu").sum(), pl.col("v").sum()).with_columns(
        (pl.col("mu") / pl.col("n")).alias("pb"))
    c = c.with_columns(((pl.col("k") - pl.col("mu")) ** 2 - pl.col("v")).alias("num"),
                       ((pl.col("n") ** 2 - pl.col("n")) * pl.col("pb") * (1 - pl.col("pb"))).alias("den"))
    for (game, variant), part in c.group_by(["game", "variant"], maintain_order=True):
        den = float(part["den"].sum())
        rho_h = min(max(float(part["num"].sum()) / den, 0.0), 0.99) if den > 0 else 0.0
        pairs = part.group_by(["a", "b"]).agg(
            pl.col("n").sum().alias("N"), pl.col("k").sum().alias("K"), pl.col("mu").sum().alias("E"),
            (pl.col("v").sum() + rho_h * pl.col("den").sum()).alias("V0")).filter(
            (pl.col("N") >= min_pair) & (pl.col("V0") > 0))
        nn, kk, ee, v0 = (pairs[name].to_numpy().astype(float) for name in ("N", "K", "E", "V0"))
        z0 = (kk - ee) / np.sqrt(v0) if len(v0) else np.zeros(0)
        pb = ee / np.maximum(nn, 1)
        w = nn * (nn - 1) * pb * (1 - pb) / np.where(v0 > 0, v0, 1)
        keep = np.abs(z0) <= 4
        rho_p = float(np.sum(z0[keep] ** 2 - 1) / np.sum(w[keep])) if np.sum(w[keep]) > 0 else 0.0
        out[(game, variant)] = (rho_h, min(max(rho_p, 0.0), 0.99))
    return out


def beta_binomial_upper(k: float, n: int, p0: float, var: float) -> tuple[float, float]:
    """(p, ρ) of the exact one-sided beta-binomial test of *k* hits in *n* chances against
    the rate *p0*, with the variance *var* the chances' clustering gives: the beta-binomial
    of the same mean and variance, n·p0·q0·(1 + (n − 1)ρ) = var, ρ at least 0 (the
    binomial then). P(K ≥ k)."""
    from scipy.stats import betabinom, binom

    if n <= 0:
        return 1.0, 0.0
    if k <= 0:
        return 1.0, 0.0
    if p0 <= 0:
        return 0.0, 0.0
    q0 = 1 - p0
    rho = max(0.0, (var / (n * p0 * q0) - 1) / (n - 1)) if n > 1 and p0 < 1 else 0.0
    kk = math.ceil(k)
    if rho < 1e-9:
        return float(binom.sf(kk - 1, n, p0)), 0.0
    rho = min(rho, 0.99)
    s = 1 / rho - 1
    return float(betabinom.sf(kk - 1, n, p0 * s, q0 * s)), rho


def soft_play(rows: pl.DataFrame, eligible: set, hands: pl.DataFrame | None = None,
              rho: dict[tuple[str, str], tuple[float, float]] | None = None) -> list[Test]:
    """Per ordered pair: how often player A spared opponent B's plays (passed while able
    to beat) against how often A spared its other opponents playing from the same place
    (seats apart: a stratum each), in ONE exact test (issue #27): the pair's K spares of N
    chances against the beta-binomial whose mean is the expected E = Σ over places of B's
    chances times A's rate on the others there ((k + ½) / (n + 1)) and whose variance is

        V = Σ_place n·p·q·(1 + n / (n_base + 1))        (the binomial and the baseline's own)
          + ρ_hand · Σ_sittings n_h(n_h − 1)·p̄_h·q̄_h     (chances of one sitting go together)
          + ρ_pair · N(N − 1)·p̄·q̄                         (pairs differ, whoever cheats)

    with *rho* = (ρ_hand, ρ_pair) of the game and variant measured on the population
    (:func:`overdispersion`) and *hands* the pair's chances per sitting and place. The pooled
    count counts in full (a steady excess over many hands), while the hand term keeps a
    run of spares within one hand from passing for a habit (the exact tail of a
    beta-binomial with the same variance is what the p reads). Until issue #27 the p was
    the largest of a pooled test and a per-hand one, which lost the power of both.

    A acted (the sparer), B was favoured (the one spared): the pair is the suspect (a
    dumper spares everyone at the receiver's table, but only the receiver at every one;
    colluders show up in both directions). Both ways (:func:`both_ways`) when B had chances
    to spare A: each direction that spared more than its baseline gets p = 2 × the smaller
    of its own and the both-ways p; a direction that spared no more than its baseline keeps
    its own (a dumper's receiver, who spares the dumper less than others do, is not said
    to spare it because the dumper spares the receiver: until 2026-12-04 it was, and the
    receiver was flagged a dumper of its giver).

    A game and variant where no chance was spared at all, by anyone (a rule that makes a
    pass while able to beat illegal: docs/fraud.md), has no soft-play test: its
    every p would be 1, and the screen would still count among the K screens of the
    correction (:func:`bh_by_kind`), costing every other screen's q a factor K / (K − 1)."""
    by_hand = _cluster_rows(hands)
    hand_count = _hands_of_pairs(hands)
    tests = []
    parts: dict[tuple, tuple[int, int, float, float]] = {}
    spares: dict[tuple[str, str], int] = {}
    for r in rows.iter_rows(named=True):
        gv = (r["game"], r["variant"])
        spares[gv] = spares.get(gv, 0) + r["k_ab"] + r["k_other"]
    for (game, variant), part in ((gv, p) for gv, p in _group(_by_pair(rows, eligible)) if spares.get(gv)):
        rho_h, rho_p = (rho or {}).get((game, variant), (0.0, 0.0))
        for (a, b), strata in part.items():
            key = (game, variant, a, b)
            c = _beta_binomial_pair(strata, by_hand.get(key, []), rho_h, rho_p)
            if c is None:
                continue
            k, n, expected, var, n_sittings, k_base, n_base = c
            p0 = expected / n
            p, rho_eff = beta_binomial_upper(k, n, p0, var)
            lo, hi = inference.wilson(k, n)
            parts[key] = (k, n, expected, var)
            z = (k - expected) / math.sqrt(var) if var > 0 else (math.inf if k > expected else 0.0)
            tests.append(Test("soft_play", game, variant, a, b, p, k / n - p0, n, {
                "spared": k, "chances": n, "rate": round(k / n, 4), "ci95": [round(lo, 4), round(hi, 4)],
                "baseline_rate": round(p0, 4), "baseline_chances": n_base, "baseline_spared": k_base,
                "hands": hand_count.get(key, n_sittings), "sittings": n_sittings, "design_effect": round(var / (n * p0 * (1 - p0)), 3) if 0 < p0 < 1 else 1.0,
                "rho": _sig(rho_eff), "rho_hand": _sig(rho_h), "rho_pair": _sig(rho_p), "z": _finite(z)}))
    for t in tests:  # both ways: colluders spare each other
        t.one_way = t.p
        back = parts.get((t.game, t.variant, t.other, t.player))
        if back is not None:
            p_both = both_ways(parts[(t.game, t.variant, t.player, t.other)], back)
            t.evidence["p_both_ways"] = _sig(p_both)
            if t.effect > 0:
                t.p = min(1.0, 2 * min(t.p, p_both))
    return tests


def _group(pairs: dict[tuple, list[dict]]) -> list[tuple[tuple[str, str], dict[tuple[str, str], list[dict]]]]:
    """{(game, variant, a, b): rows} as [((game, variant), {(a, b): rows})]."""
    out: dict[tuple[str, str], dict[tuple[str, str], list[dict]]] = {}
    for (g, v, a, b), strata in pairs.items():
        out.setdefault((g, v), {})[(a, b)] = strata
    return list(out.items())


def _beta_binomial_pair(strata: list[dict], hands: list[tuple[str, int, int, int]], rho_h: float,
                        rho_p: float) -> tuple[int, int, float, float, int, int, int] | None:
    """(K, N, E, V, sittings, baseline spares, baseline chances) of :func:`soft_play`'s test
    of one pair; None without a baseline."""
    k = n = n_base = k_base = 0
    expected = var = 0.0
    base: dict[int, float] = {}
    for r in strata:
        nb, kb = r["n_other"], r["k_other"]
        if not nb:
            continue  # no baseline from this place
        p0 = (kb + 0.5) / (nb + 1)
        base[r["place"]] = p0
        k += r["k_ab"]
        n += r["n_ab"]
        n_base += nb
        k_base += kb
        expected += r["n_ab"] * p0
        var += r["n_ab"] * p0 * (1 - p0) * (1 + r["n_ab"] / (nb + 1))
    if n == 0:
        return None
    per: dict[str, list[float]] = {}
    for c, place, chances, _ in hands:
        if place in base:
            acc = per.setdefault(c, [0.0, 0.0])
            acc[0] += chances
            acc[1] += chances * base[place]
    for m, mu in per.values():
        pb = mu / m
        var += rho_h * (m * m - m) * pb * (1 - pb)
    pb = expected / n
    var += rho_p * (n * n - n) * pb * (1 - pb)
    return k, n, expected, var, len(per), k_base, n_base


def both_ways(ab: tuple[int, int, float, float], ba: tuple[int, int, float, float]) -> float:
    """p of a pair's sparing taken both ways, each way (spares, chances, expected,
    variance): the beta-binomial test (:func:`beta_binomial_upper`) of the summed spares
    against the summed expected, with the summed variance."""
    k, n, e, v = ab[0] + ba[0], ab[1] + ba[1], ab[2] + ba[2], ab[3] + ba[3]
    return beta_binomial_upper(k, n, e / n, v)[0] if n else 1.0


def _sig(p: float) -> float:
    """*p* to three significant digits."""
    return float(f"{p:.3g}")


def _hands_of_pairs(frame: pl.DataFrame | None) -> dict[tuple, int]:
    """The hands with chances of each ordered pair, from ``soft_clusters.sql``'s rows (each
    sitting's ``hands`` on every one of its places' rows); none without that column."""
    if frame is None or "hands" not in frame.columns:
        return {}
    per = frame.group_by("game", "variant", "a", "b", "c").agg(pl.col("hands").max())
    return {(g, v, a, b): int(h) for g, v, a, b, h in
            per.group_by("game", "variant", "a", "b").agg(pl.col("hands").sum()).iter_rows()}


def _cluster_rows(frame: pl.DataFrame | None) -> dict[tuple, list[tuple[str, int, int, int]]]:
    """Rows (game, variant, a, b, c, place, n, k) as {(game, variant, a, b): [(c, place, n, k)]}."""
    out: dict[tuple, list[tuple[str, int, int, int]]] = {}
    if frame is None:
        return out
    for r in frame.iter_rows(named=True):
        out.setdefault((r["game"], r["variant"], r["a"], r["b"]), []).append((r["c"], r["place"], r["n"], r["k"]))
    return out


def feeding(rows: pl.DataFrame, clusters: pl.DataFrame, eligible: set) -> list[Test]:
    """Per ordered pair: how often opponent B took over A's leads (made the first play
    after them) against two baselines from the same place, each compared as in
    :func:`soft_play`: A's leads taken over by its other opponents (A leads weakly to
    everyone?) and B's take-overs of other players' leads (B is strong against everyone?).
    A third test takes the sittings they shared as the units (*clusters*: a match's course,
    what passes from one of its hands to the next, moves all its leads together): d =
    take-overs minus expected at the higher baseline rate per sitting, z = Σd / √Σd², Student's t with sittings − 1
    degrees of freedom. The pair is suspect only beyond all three: p is the largest (an
    intersection-union test). A colluder who sees its friend's cards leads what the friend
    can beat and the third seat cannot; where the rules make a seat play when it can, it
    cannot spare, so this is where it shows.

    A acted (the feeder), B was favoured (the one fed): the pair is the suspect."""
    by_cluster = _cluster_rows(clusters)
    tests = []
    for (game, variant, a, b), strata in _by_pair(rows, eligible).items():
        key = (game, variant, a, b)
        by_a, by_b = _stratified(strata, "other", 1.0), _stratified(strata, "rival", 1.0)
        if by_a is None or by_b is None:
            continue
        base = {r["place"]: max(r["k_other"] / r["n_other"] if r["n_other"] else 0.0,
                                r["k_rival"] / r["n_rival"] if r["n_rival"] else 0.0) for r in strata}
        z_c, p_c, sittings = _cluster_score(by_cluster.get(key, []), base)
        lo, hi = by_a.ci95
        tests.append(Test("feeding", game, variant, a, b, max(by_a.p, by_b.p, p_c),
                          by_a.rate - max(by_a.base, by_b.base), by_a.n, {
            "taken_by_other": by_a.k, "leads": by_a.n, "rate": round(by_a.rate, 4), "ci95": [round(lo, 4), round(hi, 4)],
            "baseline_rate_leader": round(by_a.base, 4), "baseline_leads": by_a.n_base,
            "baseline_rate_taker": round(by_b.base, 4), "baseline_takes": by_b.n_base, "sittings": sittings,
            "z_leader": _finite(by_a.z), "z_taker": _finite(by_b.z), "z_sittings": _finite(z_c)}))
    return tests


def _cluster_score(rows: list[tuple[str, int, int, int]], base: dict[int, float],
                   centred: bool = False) -> tuple[float, float, int]:
    """(z, p, clusters) of a test over clusters: d per cluster = Σ (k - n·base[place]); by
    default the score test z = Σd / √Σd² (its variance taken under the null: z can be no
    larger than √clusters, so a pair seen in a few clusters is never significant); with
    *centred*, the one-sample t of the d's (a steady excess in many clusters counts as
    such). p from Student's t with clusters - 1 degrees of freedom; 1 with fewer than two."""
    from scipy.stats import t as student

    dev: dict[str, float] = {}
    for c, place, n, k in rows:
        if place in base:
            dev[c] = dev.get(c, 0.0) + k - n * base[place]
    d = np.array(list(dev.values()))
    m = len(d)
    if m < 2:
        return 0.0, 1.0, m
    if centred:
        sd = float(d.std(ddof=1))
        if sd == 0:
            return (math.inf, 0.0, m) if d.mean() > 0 else (0.0, 1.0, m)
        z = float(d.mean()) / (sd / math.sqrt(m))
    else:
        ss = float(d @ d)
        if ss == 0:
            return 0.0, 1.0, m
        z = float(d.sum()) / math.sqrt(ss)
    return z, float(student.sf(z, m - 1)), m


def _finite(z: float) -> float | None:
    return round(z, 3) if math.isfinite(z) else None


def _by_pair(rows: pl.DataFrame, eligible: set) -> dict[tuple, list[dict]]:
    """The rows (one per place) of each ordered pair (game, variant, a, b) whose players are
    both *eligible* (enough hands to be tested)."""
    pairs: dict[tuple, list[dict]] = {}
    for r in rows.iter_rows(named=True):
        g, v = r["game"], r["variant"]
        if (g, v, r["a"]) in eligible and (g, v, r["b"]) in eligible:
            pairs.setdefault((g, v, r["a"], r["b"]), []).append(r)
    return pairs


@dataclass(frozen=True)
class Stratified:
    """A pair's count against a baseline rate taken place by place (see :func:`_stratified`)."""

    k: int
    n: int
    k_base: int
    n_base: int
    expected: float
    z: float
    p: float
    var: float = 0.0  # the variance of k under the null, before the over-dispersion

    @property
    def rate(self) -> float:
        return self.k / self.n

    @property
    def base(self) -> float:
        return self.expected / self.n

    @property
    def ci95(self) -> tuple[float, float]:
        """The Wilson interval of :attr:`rate` (there are chances: :func:`_stratified` says None without)."""
        return inference.wilson(self.k, self.n)


def _stratified(strata: list[dict], baseline: str, phi: float) -> Stratified | None:
    """The pair's hits ``k_ab`` of ``n_ab`` chances against the baseline counts
    ``k_<baseline>`` of ``n_<baseline>``, place by place: expected = the sum of the pair's
    chances times the baseline rate there; z = (k - expected) / sd, the variance with the
    baseline rates' own added and inflated by *phi*; p = the normal upper tail or, when
    larger, the one-sided Fisher exact p of the pooled counts (small counts make the normal
    tail too thin; each is a valid test, so the larger p is one). None without a baseline."""
    k = n = n_base = k_base = 0
    expected = var = 0.0
    for r in strata:
        nb, kb = r[f"n_{baseline}"], r[f"k_{baseline}"]
        if not nb:
            continue  # no baseline from this place
        p0 = kb / nb
        k += r["k_ab"]
        n += r["n_ab"]
        n_base += nb
        k_base += kb
        expected += r["n_ab"] * p0
        var += r["n_ab"] * p0 * (1 - p0) * (1 + r["n_ab"] / nb)
    if n == 0:
        return None
    z = (k - expected) / math.sqrt(phi * var) if var > 0 else (math.inf if k > expected else 0.0)
    return Stratified(k, n, k_base, n_base, expected, z, max(normal_upper(z), fisher_greater(k, n, k_base, n_base)), var)


def presence_z(seats: pl.DataFrame, min_pair: int) -> dict[tuple[str, str, str, str], float]:
    """The t statistics of :func:`presence_fit`."""
    return {k: (b / se if se > 0 else 0.0) for k, (b, se) in presence_fit(seats, min_pair).items()}


def presence_fit(seats: pl.DataFrame, min_pair: int) -> dict[tuple[str, str, str, str], tuple[float, float]]:
    """For every player P and opponent X met in at least *min_pair* hands: (coefficient,
    standard error) of X's presence in a least-squares fit of P's results on the presence
    of each such opponent (with an intercept). Fitting all opponents at once keeps a third
    player who merely sat beside a dumper and his receiver from looking like a receiver."""
    out: dict[tuple[str, str, str, str], tuple[float, float]] = {}
    for (game, variant), part in seats.group_by(["game", "variant"], maintain_order=True):
        by_hand: dict[str, list[tuple[str, str, str, float]]] = {}
        for hand_id, player, side, role, u in zip(part["hand_id"], part["player"], part["side"], part["role"],
                                                   part["u"]):
            by_hand.setdefault(hand_id, []).append((player, side, role or "", u))
        rows: dict[str, list[tuple[float, str, list[str]]]] = {}
        for seated in by_hand.values():
            for player, side, role, u in seated:
                rows.setdefault(player, []).append((u, role, [x for x, s, _, _ in seated if s != side and x != player]))
        for player, hands in rows.items():
            met: dict[str, int] = {}
            played: dict[str, int] = {}
            for _, role, opponents in hands:
                played[role] = played.get(role, 0) + 1
                for x in opponents:
                    met[x] = met.get(x, 0) + 1
            cols = sorted(x for x, n in met.items() if n >= min_pair and n <= len(hands) - min_pair)
            if not cols:
                continue
            # the player's role (the game's, from the seats table) moves its results: one column per
            # role but the most played, so that meeting X mostly in one role is not read as X's doing
            roles = sorted(played, key=lambda r: (-played[r], r))[1:]
            index = {x: k + 1 + len(roles) for k, x in enumerate(cols)}
            role_col = {r: k + 1 for k, r in enumerate(roles)}
            design = np.zeros((len(hands), len(cols) + len(roles) + 1))
            design[:, 0] = 1.0
            y = np.empty(len(hands))
            for r, (u, role, opponents) in enumerate(hands):
                y[r] = u
                if role in role_col:
                    design[r, role_col[role]] = 1.0
                for x in opponents:
                    if x in index:
                        design[r, index[x]] = 1.0
            dof = len(hands) - design.shape[1]
            if dof < 10:
                continue
            beta, *_ = np.linalg.lstsq(design, y, rcond=None)
            resid = y - design @ beta
            sigma2 = float(resid @ resid) / dof
            cov = sigma2 * np.linalg.pinv(design.T @ design)
            for x, k in index.items():
                out[(game, variant, player, x)] = (float(beta[k]), math.sqrt(cov[k, k]) if cov[k, k] > 0 else 0.0)
    return out


def pair_effects(fits: dict[tuple[str, str, str, str], tuple[float, float]]) -> dict[tuple, float]:
    """t of the pair-specific part of each coefficient: X's coefficient in P's fit minus
    the mean of X's coefficients in everyone else's fits (X's general strength or
    weakness, which every opponent feels), over P's standard error."""
    total: dict[tuple[str, str, str], list[float]] = {}
    for (g, v, _, x), (b, _) in fits.items():
        acc = total.setdefault((g, v, x), [0.0, 0])
        acc[0] += b
        acc[1] += 1
    out = {}
    for (g, v, p, x), (b, se) in fits.items():
        s, n = total[(g, v, x)]
        others = (s - b) / (n - 1) if n > 1 else 0.0
        out[(g, v, p, x)] = (b - others) / se if se > 0 else 0.0
    return out


#: chip flow by stake: the prior's weight (hands of no net gain) that shrinks a pair's net gain
#: toward zero when it met few times
SHRINK_HANDS = 10


def stake_flow(r: dict, raises: bool = True) -> tuple[float, dict]:
    """The stake readings of chip flow for one ordered pair (a row of ``pair_net.sql``):

    - **net gain**: the receiver's net gain from the giver in points over the n hands they
      met (S), against what their gains from everyone else predict, μ = (the receiver's
      mean gain a hand from its other opponents) − (the giver's): a strong receiver and a
      weak giver explain some flow, skill is not fraud. z = (S − n·μ) / (σ·√(n + n₀)),
      σ² the two players' pooled variance of a hand's gain elsewhere, n₀ = SHRINK_HANDS
      hands of no gain added (the mean shrunk toward zero: a pair that met a few times is
      not judged by one ×8 hand); Student's t with n − 1 degrees of freedom (a sum of a
      few heavy-tailed hands is not yet normal).
    - **raised and lost**: the hands with the receiver where the giver raised the stake
      itself (called, grabbed or showed, or played a bomb) and then lost to it, against the
      giver's hands without the receiver where it raised and lost (one-sided Fisher exact):
      a dumper who doubles before throwing the hand.

    p = 2 × the smaller (Bonferroni over the two; the net gain alone without raises). Without
    *raises* (a game whose hands have no multiplier, :func:`raises_stake`: a bomb there raises
    no stake, and there is nothing to call or grab) the net gain alone, and the raise fields
    are left out of the evidence. (p, evidence)."""
    from scipy.stats import t as student

    n = int(r["n_with"])
    n_r, n_d = int(r["r_n_other"] or 0), int(r["d_n_other"] or 0)
    p_net, z = 1.0, 0.0
    if n_r >= 2 and n_d >= 2:
        g_r, g_d = r["r_gain_other"] / n_r, r["d_gain_other"] / n_d
        ss = (r["r_gain2_other"] - n_r * g_r ** 2) + (r["d_gain2_other"] - n_d * g_d ** 2)
        var = max(ss, 0.0) / (n_r + n_d - 2)
        if var > 0:
            z = (float(r["net"]) - n * (g_r - g_d)) / math.sqrt(var * (n + SHRINK_HANDS))
            p_net = float(student.sf(z, max(n - 1, 1)))
    net = {"net_gain": round(float(r["net"]), 2), "z_net": _finite(z), "p_net": _sig(p_net)}
    if not raises:
        return p_net, net
    k, n_other, k_other = int(r["raised_lost"]), int(r["d_hands_other"] or 0), int(r["d_raised_lost_other"] or 0)
    p_raise = fisher_greater(k, n, k_other, n_other) if k + k_other > 0 else 1.0
    p = min(1.0, 2 * min(p_net, p_raise)) if k + k_other > 0 else p_net
    return p, {**net, "raised_and_lost": k,
               "giver_raised_lost_rate_elsewhere": round(k_other / n_other, 4) if n_other else None,
               "p_raise": _sig(p_raise)}


@functools.cache
def raises_stake(game: str) -> bool:
    """Whether a seat can raise the stake of a hand of *game* (its table has a hand
    multiplier, ``multiplier_now``: calls, grabs or bombs that double it). A game whose hands
    have none (its bombs paid at once, or in stars, docs/fraud.md) moves no more for a
    raise, so chip flow's raise reading has nothing to read there (it cost the net gain a factor 2). A game not
    known here: True (the reading kept)."""
    from paipu.replay.games import find_game
    from paipu.replay.table import Table

    try:
        engine = find_game(game).engine
    except Exception:  # noqa: BLE001 - an unknown game keeps the reading
        return True
    return getattr(engine, "multiplier_now", Table.multiplier_now) is not Table.multiplier_now


def chip_flow(rows: pl.DataFrame, seats: pl.DataFrame, eligible: set, min_pair: int,
              stakes: pl.DataFrame | None = None) -> list[Test]:
    """Per ordered pair (d, r) of opponents: d did worse when r sat against it and r did
    better when d sat against it, each judged by its results with every other opponent
    accounted for (:func:`presence_fit`) and beyond what every player feels from the other
    (:func:`pair_effects`: skill is not fraud); results are shares of what each hand
    moved, so rooms and multipliers do not dominate. z = (t_receiver - t_giver) / 2: in a
    zero-sum hand the two move together, so their mean, not their √2-scaled sum, is
    standard normal at worst. Where every seat plays for itself (no side of two), what a giver
    throws may go to a third seat: there p = 2 · the smaller of that and the giver's t
    alone (``p_giver``).

    With *stakes* (``pair_net.sql``, pairs met at least MIN_STAKE times), the stake
    readings too (:func:`stake_flow`): the points that flowed, and the giver's raises lost
    to the receiver. A pair with both gets p = 2 · the smaller (Bonferroni over the two);
    a pair met too few times for the share reading has the stake readings alone."""
    zs = pair_effects(presence_fit(seats, min_pair))
    alone = set() if seats.is_empty() else {
        (g, v) for (g, v), part in seats.group_by(["game", "variant"]) if part["side"].str.starts_with("seat ").all()}
    stake = {} if stakes is None else {(r["game"], r["variant"], r["d"], r["r"]): r
                                       for r in stakes.iter_rows(named=True)}
    tests = []
    shared: set[tuple] = set()
    for r in rows.iter_rows(named=True):
        game, variant, d, rcv = r["game"], r["variant"], r["d"], r["r"]
        if (game, variant, d) not in eligible or (game, variant, rcv) not in eligible:
            continue
        zd, zr = zs.get((game, variant, d, rcv)), zs.get((game, variant, rcv, d))
        if zd is None or zr is None:
            continue
        # each t has about as many degrees of freedom as the hands the two met (its contrast
        # is the mean of those against the rest): read on the normal scale through Student's
        # t, so that 20-odd heavy-tailed results do not pass for a normal mean
        df = max(int(r["n_with"]) - 1, 1)
        z = (_t_as_z(zr, df) - _t_as_z(zd, df)) / 2  # the mean: the two are correlated (zero-sum hands), not √2
        # each for himself (no side of two): a third seat may take what is thrown, so that the giver
        # loses far more at the receiver's table while the receiver gains little: the giver alone too
        p_giver = normal_upper(-_t_as_z(zd, df))
        p = min(1.0, 2 * min(normal_upper(z), p_giver)) if (game, variant) in alone else normal_upper(z)
        extra = dict[str, object]()
        key = (game, variant, d, rcv)
        if key in stake:
            shared.add(key)
            p_s, extra = stake_flow(stake[key], raises_stake(game))
            p = min(1.0, 2 * min(p, p_s))
        tests.append(Test("chip_flow", game, variant, d, rcv, p, z, r["n_with"], {
            "hands_as_opponents": r["n_with"], "losses_of_giver": r["d_losses"],
            "giver_result_with": round(r["d_mean_with"], 4), "giver_result_elsewhere": _round(r["d_mean_other"]),
            "receiver_result_with": round(r["r_mean_with"], 4), "receiver_result_elsewhere": _round(r["r_mean_other"]),
            "giver_hands_elsewhere": r["d_n_other"], "receiver_hands_elsewhere": r["r_n_other"],
            "share_flowed": round(r["flow"], 3), "coins_flowed": round(r["coins_flow"] or 0.0, 2),
            "t_giver": round(float(zd), 3), "t_receiver": round(float(zr), 3), "t_df": df,
            **({"p_giver": _sig(p_giver)} if (game, variant) in alone else {}), **extra}))
    for key, r in stake.items():
        game, variant, d, rcv = key
        if key in shared or (game, variant, d) not in eligible or (game, variant, rcv) not in eligible:
            continue
        p_s, by_stake = stake_flow(r, raises_stake(game))
        tests.append(Test("chip_flow", game, variant, d, rcv, p_s, by_stake["z_net"] or 0.0, r["n_with"],
                          {"hands_as_opponents": r["n_with"], **by_stake}))
    return tests


def _t_as_z(t: float, df: int) -> float:
    """The normal quantile with the same upper tail as *t* under Student's t with *df*."""
    from scipy.stats import norm, t as student

    return float(norm.isf(student.sf(t, df))) if t >= 0 else -float(norm.isf(student.sf(-t, df)))


def _round(x, k: int = 4):
    return None if x is None else round(x, k)


def dumping(tests: list[Test]) -> list[Test]:
    """Dumping (issue #27): one test per ordered pair (giver → receiver) that has both a
    chip-flow test and a soft-play test the same way, their p's combined by Fisher's method
    (soft play's own p that way, before its both-ways correction)
    (χ² with 4 degrees of freedom). A dumper throws hands to its receiver in two ways
    each screen sees apart, losing to it (chip flow) and passing on its plays (soft play);
    at ~300 hands neither reading alone is always strong enough for its screen's cut
    (one planted ×4 dumper: chip flow p 2.8e-5 and soft play 1.8e-4, q 0.045 and
    0.14), together they are. The two are different facts of the same hands (results,
    passes), not independent under the null where passing on a player's plays helps it win;
    the honest-only populations measure what that costs (docs/fraud.md). n: the hands met
    as opponents (chip flow's)."""
    soft = {(t.game, t.variant, t.player, t.other): t for t in tests if t.kind == "soft_play"}
    out = []
    for t in tests:
        s = soft.get((t.game, t.variant, t.player, t.other)) if t.kind == "chip_flow" else None
        if s is None:
            continue
        spared = s.p if s.one_way is None else s.one_way  # this way only: the giver spared the receiver
        x, p = inference.fisher_combined([t.p, spared])
        evidence = {"p_chip_flow": _sig(t.p), "p_soft_play": _sig(spared), "hands_as_opponents": t.n,
                    "losses_of_giver": t.evidence.get("losses_of_giver"), "spared": s.evidence.get("spared"),
                    "chances": s.evidence.get("chances"), "rate": s.evidence.get("rate"),
                    "baseline_rate": s.evidence.get("baseline_rate")}
        out.append(Test("dumping", t.game, t.variant, t.player, t.other, p, round(x, 3), t.n, evidence))
    return out


def collusion(tests: list[Test]) -> list[Test]:
    """Collusion (issue #27): one test per pair with both a co-seating test and a soft-play
    test (either way), co-seating's p and the soft-play p of the pair (2 × the smaller of
    its two directions', each of which counts both ways already) combined by Fisher's
    method (χ² with 4 degrees of freedom). Colluders seek each other's tables and spare
    each other there; at ~300 hands, co-seated at twice chance, neither reading alone is
    always strong enough for its screen's cut (one planted pair: co-seating p 5.7e-4 and
    soft play 3.8e-5, q 1 and 0.069). Under the null the two are independent: how often
    two players sit together, and how they play once seated. n: the pair's sittings
    together (co-seating's)."""
    soft: dict[tuple, Test] = {}
    for t in tests:
        if t.kind == "soft_play" and t.other is not None:
            key = (t.game, t.variant, *sorted((t.player, t.other)))
            if key not in soft or t.p < soft[key].p:
                soft[key] = t
    out = []
    for t in tests:
        s = soft.get((t.game, t.variant, *sorted((t.player, t.other)))) if t.kind == "co_seating" and t.other else None
        if s is None:
            continue
        p_soft = min(1.0, 2.0 * s.p)
        x, p = inference.fisher_combined([t.p, p_soft])
        evidence = {"p_co_seating": _sig(t.p), "p_soft_play": _sig(p_soft),
                    "sittings_together": t.evidence.get("sittings_together"), "expected": t.evidence.get("expected"),
                    "sparer": s.player, "spared": s.evidence.get("spared"), "chances": s.evidence.get("chances"),
                    "rate": s.evidence.get("rate"), "baseline_rate": s.evidence.get("baseline_rate")}
        out.append(Test("collusion", t.game, t.variant, t.player, t.other, p, round(x, 3), t.n, evidence))
    return out


def bot_timing(players: pl.DataFrame, min_decisions: int, timed: bool) -> list[Test]:
    """Timing that does not look human, scored against the population itself: each
    feature (transformed, oriented bot-wards) as a robust z against the players of the
    same game and variant, with its normal upper-tail p; a player is called a bot only
    when BOT_SIGNS of the n features say so (Benjamini and Heller's partial conjunction:
    u of n, p = (n - u + 1) · the u-th smallest p). One or two odd habits (a regular clock
    and a narrow one, long sessions) are human; machine timing shows on several features
    at once. Without hand times the hour features drop out (then all three are needed)."""
    tests = []
    feats = BOT_FEATURES if timed else BOT_FEATURES[:3]
    n = len(feats)
    u = min(BOT_SIGNS, n)
    for (game, variant), part in players.group_by(["game", "variant"], maintain_order=True):
        part = part.filter(pl.col("n_think").fill_null(0) >= min_decisions)
        if part.height < 8:
            continue  # too few players to say what is usual
        zs = {}
        medians = {}
        decisions = part["n_think"].cast(pl.Float64).to_numpy()
        for name, sign in feats:
            raw = part[name].cast(pl.Float64).fill_null(float("nan")).to_numpy()
            medians[name] = round(float(np.nanmedian(raw)), 4)
            x = BOT_TRANSFORMS[name](raw, decisions) if name in BOT_TRANSFORMS else raw
            zs[name] = np.nan_to_num(sign * robust_z(x), nan=-np.inf)  # no value: no evidence
        table = np.column_stack([zs[name] for name, _ in feats])
        majority = -np.sort(-table, axis=1)[:, u - 1]  # the z that u of the n features reach
        for k, row in enumerate(part.iter_rows(named=True)):
            z_u = float(majority[k])
            p = min(1.0, (n - u + 1) * normal_upper(z_u)) if np.isfinite(z_u) else 1.0
            evidence: dict[str, object] = {
                name: {"value": None if row[name] is None else round(float(row[name]), 4),
                       "population_median": medians[name],
                       "z": round(float(zs[name][k]), 2) if np.isfinite(zs[name][k]) else None}
                for name, _ in feats}
            evidence["features_needed"] = f"{u} of {n}"
            evidence["decisions"] = row["n_think"]
            evidence["players_compared"] = part.height
            tests.append(Test("bot_timing", game, variant, row["player"], None, p,
                              z_u if np.isfinite(z_u) else 0.0, int(row["n_think"]), evidence))
    return tests


# ----------------------------------------------------------------------------- the run


def screen(root: str, game: str | None = None, variant: str | None = None, min_hands: int = 100,
           min_sittings: int = 3, alpha: float = 0.01, telling: int = 5) -> FraudResult:
    """Profiles and every screen over the audited dataset *root* (decisions needed)."""
    con = connect(root)
    try:
        con.execute(sql_text("_hands", SQL_DIR), {"game": game, "variant": variant})
        players = _frame(con, "profile", {})
        players = players.with_columns(
            (pl.col("think_median") / pl.col("think_iqr")).log().alias("regularity"))
        seat_rows = _frame(con, "rating_seats", {})
        players = players.join(ratings(seat_rows), on=["game", "variant", "player"], how="left")
        eligible = {(g, v, p) for g, v, p, h in players.select("game", "variant", "player", "hands").iter_rows()
                    if h >= min_hands}
        [(all_timed,)] = con.execute("select coalesce(bool_and(timed), false) from fraud_seats").fetchall()  # one row
        timed = bool(all_timed)
        tests: list[Test] = []
        tests += co_seating(_frame(con, "seat_times", {}), eligible, min_sittings)
        soft_hands = _frame(con, "soft_clusters", {})
        tests += soft_play(_frame(con, "pair_soft", {"min_pair": MIN_SOFT}), eligible, soft_hands,
                           overdispersion(soft_hands))
        con.execute(sql_text("feed_chances", SQL_DIR))
        tests += feeding(_frame(con, "pair_feed", {"min_pair": MIN_SOFT}), _frame(con, "feed_clusters", {}), eligible)
        tests += chip_flow(_frame(con, "pair_flow", {"min_pair": MIN_FLOW}), _frame(con, "flow_seats", {}),
                           eligible, MIN_FLOW, _frame(con, "pair_net", {"min_pair": MIN_STAKE}))
        tests += dumping(tests) + collusion(tests)
        tests += bot_timing(players.filter(pl.col("hands") >= min_hands), 4 * min_hands, timed)
        sparing = pl.DataFrame([(t.game, t.player, t.other) for t in tests if t.kind == "soft_play" and t.p <= SPARING_P],
                               schema=["game", "a", "t"], orient="row")
        con.register("spared_pairs", sparing.to_arrow())
        con.execute(sql_text("share_chances", SQL_DIR))
        share_counts = _frame(con, "share_counts", {})
        tests += [Test("card_sharing", f.game, f.variant, f.player, f.other, f.p, f.effect, f.n, f.evidence)
                  for f in share.card_sharing(share_counts, eligible)]
        for t, q in zip(tests, bh_by_kind(tests)):
            t.q = q
        watch_list(tests, alpha)
        tests.sort(key=lambda t: (t.q, t.p, t.kind, t.player, t.other or ""))
        for t in tests:
            if t.q > alpha and not t.watch:
                break
            t.hands = share.telling(_frame(con, "telling_share", {"a": t.player, "b": t.other, "g": t.game}),
                                    share_counts, t, telling) if t.kind == "card_sharing" else _telling(con, t, telling)
        return FraudResult(players.drop("regularity"), tests, alpha)
    finally:
        con.close()


def write_tables(root: str, result: FraudResult, game: str | None = None) -> None:
    """The ``players`` and ``suspects`` tables, one part file per game, each replaced whole
    (with *game*: only that game's): one staged batch under the dataset's writer lock, so
    a crash leaves the old tables or the new ones. ``players`` has the review columns
    (:mod:`analysis.rating`: null when no review ran)."""
    from paipu.replay.io.commit import StagedBatch, writing

    from ..rating import dataset_rating, with_rating

    suspects = result.suspects()
    players = with_rating(result.players, dataset_rating(root))
    games = [game] if game else sorted(set(players["game"].to_list()) | set(suspects["game"].to_list()))
    with writing(root):
        staged = StagedBatch(root)
        for g in games:
            for name, frame in (("players", players), ("suspects", suspects)):
                staged.write(os.path.join(name, f"game={g}", "part-0.parquet"),
                             frame.filter(pl.col("game") == g).drop("game").to_arrow())
        staged.commit()


def _telling(con, t: Test, limit: int) -> list[str]:
    """The ids of the hands that show a flagged suspicion best (for ``paipu replay --hand``)."""
    name = {"soft_play": "telling_soft", "feeding": "telling_feed", "chip_flow": "telling_flow", "dumping": "telling_flow",
            "co_seating": "telling_pair", "collusion": "telling_pair", "bot_timing": "telling_player"}[t.kind]
    params = {"a": t.player, "b": t.other, "g": t.game, "v": t.variant, "limit": limit}
    return _frame(con, name, params)["hand_id"].to_list()
