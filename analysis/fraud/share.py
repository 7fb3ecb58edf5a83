"""The card-sharing screen (``card_sharing``, issue #27 item 1): partners who play as if
they saw each other's cards, found by two signatures that need no evaluator.

- **A pass left to a partner who could beat** (``leave``; ``block`` when the partner's own
  play is on the table): the seat could beat the table and passed, when its partner holds
  a play that beats it and acts before the trick returns to whoever played.
- **A lead only the partner could beat** (``lead``): after the seat's lead, its partner
  could beat it and no other seat could.

Honest players do not see their partner's hand, so whether the partner can beat moves
their choice only through what the table shows; a card sharer acts on it. Each signature
is counted per kind of decision (``share_chances.sql``: the signature, where the partner
and the player sit, the cards left), the null rate of each kind is the population's
(every other pair's chances of that kind), and a pair's hits of each signature are
tested against the sum of its chances' null rates by a binomial tail on a sample shrunk
by the population's over-dispersion (:func:`population_phi`, :func:`shared_p`); the signatures' p's are
combined by Fisher's method. One test per pair, both ways. docs/fraud.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import polars as pl

#: least chances (both ways, all signatures) for a pair to be tested
MIN_SHARE = 20
#: the median of a chi-square with one degree of freedom (the robust over-dispersion's target)
CHI2_1_MEDIAN = 0.454936
SIGNATURES = ("leave", "block", "lead")
#: a signature enters a pair's combination only where the population's rate of it lies
#: within these: a hit that (almost) everyone makes (partners against a declarer let each
#: other's play stand 99.6% of the time) or no one can make (a pass where the rules force a
#: seat that can beat to play) cannot show a
#: sharer, and its p near 1 would only dilute Fisher's combination
INFORMATIVE = (0.005, 0.95)


@dataclass(frozen=True)
class Shared:
    """A pair's hits of one signature against the null of its chances (:func:`pair_counts`)."""

    k: int
    n: int
    expected: float
    var: float  # the Poisson-binomial variance of the hits under the null rates

    @property
    def z0(self) -> float:
        """(hits − expected) / √variance, before any over-dispersion."""
        return (self.k - self.expected) / math.sqrt(self.var) if self.var > 0 else 0.0


def pair_counts(rows: pl.DataFrame) -> dict[tuple[str, str, str, str], dict[str, Shared]]:
    """The rows of ``share_counts.sql`` (game, variant, a, b, sig, stratum, n, k) as a
    :class:`Shared` per signature of each unordered pair (game, variant, a, b; a < b), both
    directions together. Each kind's null rate leaves the pair out: the population's hits
    of that kind over its chances, without the pair's own."""
    total: dict[tuple[str, str, str], list[int]] = {}
    for r in rows.iter_rows(named=True):
        acc = total.setdefault((r["game"], r["variant"], r["stratum"]), [0, 0])
        acc[0] += r["n"]
        acc[1] += r["k"]
    parts: dict[tuple[str, str, str, str], list[tuple[str, str, int, int]]] = {}
    for r in rows.iter_rows(named=True):
        if r["sig"] not in SIGNATURES:
            continue  # (the control chances only tell thrown hands, in the SQL)
        a, b = sorted((r["a"], r["b"]))
        parts.setdefault((r["game"], r["variant"], a, b), []).append((r["sig"], r["stratum"], r["n"], r["k"]))
    out = {}
    for key, strata in parts.items():
        game, variant = key[0], key[1]
        own: dict[str, list[int]] = {}
        for _, stratum, n, k in strata:
            acc = own.setdefault(stratum, [0, 0])
            acc[0] += n
            acc[1] += k
        by_sig: dict[str, list[float]] = {}
        for sig, stratum, n, k in strata:
            n_all, k_all = total[(game, variant, stratum)]
            n_rest, k_rest = n_all - own[stratum][0], k_all - own[stratum][1]
            if n_rest <= 0:
                continue  # no one else met this kind of decision: no null for it
            rate = k_rest / n_rest
            acc2 = by_sig.setdefault(sig, [0, 0, 0.0, 0.0])
            acc2[0] += k
            acc2[1] += n
            acc2[2] += n * rate
            acc2[3] += n * rate * (1 - rate)
        if by_sig:
            out[key] = {s: Shared(int(v[0]), int(v[1]), float(v[2]), float(v[3])) for s, v in by_sig.items()}
    return out


def population_phi(counts: Iterable[Shared]) -> float:
    """The over-dispersion φ of a signature's hits over the population's pairs (each pair's
    variance φ times its Poisson-binomial one: a pair's chances come in runs within the
    hands it shared, and one hand's decisions move together): the median of z0² over the
    pairs with at least MIN_SHARE chances, over the median of a chi-square with one degree
    of freedom, at least 1. The median, not the mean: a few card-sharing pairs in the
    population would otherwise set the null's spread themselves."""
    z2 = [c.z0 ** 2 for c in counts if c.var > 0 and c.n >= MIN_SHARE]
    if len(z2) < 5:
        return 1.0
    return max(1.0, float(np.median(z2)) / CHI2_1_MEDIAN)


def shared_p(c: Shared, phi: float) -> float:
    """One-sided p of the pair's hits: the binomial upper tail at the null's mean rate
    μ = expected / chances, on an effective sample shrunk by the over-dispersion (k/f hits
    of n/f chances, continuous through the regularised incomplete beta: P(X ≥ k) =
    I_μ(k/f, (n − k)/f + 1)), f = φ·var / (n μ (1 − μ)), the factor that makes its
    variance φ times the pair's Poisson-binomial variance; at least 1 (where the kinds'
    rates differ the binomial at μ is wider already, and is then conservative). The
    quasi-binomial reading, as soft play's quasi-Poisson: the honest populations' z0² does
    not grow with a pair's chances (the three-seat game with a declarer, five seeds: mean 1.39 for pairs with 5–20
    leave chances, 1.59 for 40–80), so the spread is decisions of one hand moving together,
    not pairs with rates of their own (a beta-binomial, whose variance grows with n, has
    a tail far heavier than that: 20 of 48 at 9.5% came out at p 4e-5)."""
    from scipy.special import betainc

    if c.k <= 0:
        return 1.0
    mu = c.expected / c.n
    if mu <= 0:
        return 0.0
    if mu >= 1:
        return 1.0
    f = max(1.0, phi * c.var / (c.n * mu * (1 - mu)))
    return float(betainc(c.k / f, (c.n - c.k) / f + 1, mu))


def card_sharing(rows: pl.DataFrame, eligible: set, min_chances: int = MIN_SHARE) -> list[Found]:
    """One ``card_sharing`` test (:class:`Found`) per pair of partners with both players *eligible* and at
    least *min_chances* chances (both ways, all signatures): each signature's p from
    :func:`shared_p` with the over-dispersion of that signature over the pairs of the same
    game and variant (:func:`population_phi`), the signatures' p's combined by Fisher's
    method (their decisions differ: independent under the null; a sharer who shows one
    signature only keeps its strength), over the signatures whose population rate is
    :data:`INFORMATIVE`. Effect: the hit rate above the null's, all
    signatures together."""
    from .. import inference

    counts = pair_counts(rows)
    by_sig: dict[tuple[str, str, str], list[Shared]] = {}
    for (game, variant, _, _), sigs in counts.items():
        for sig, c in sigs.items():
            by_sig.setdefault((game, variant, sig), []).append(c)
    phi = {key: population_phi(cs) for key, cs in by_sig.items()}
    rates = {key: _rate(cs) for key, cs in by_sig.items()}
    tests = []
    for (game, variant, a, b), sigs in counts.items():
        n = sum(c.n for c in sigs.values())
        if n < min_chances or (game, variant, a) not in eligible or (game, variant, b) not in eligible:
            continue
        k = sum(c.k for c in sigs.values())
        expected = sum(c.expected for c in sigs.values())
        ps: list[float] = []
        combined: list[str] = []
        evidence: dict[str, object] = {}
        for sig in SIGNATURES:
            if sig not in sigs:
                continue
            c, f = sigs[sig], phi[(game, variant, sig)]
            p_sig = shared_p(c, f)
            if INFORMATIVE[0] <= rates[(game, variant, sig)] <= INFORMATIVE[1]:
                ps.append(p_sig)
                combined.append(sig)
            sd = math.sqrt(c.var * f)
            evidence |= {f"{sig}_hits": c.k, f"{sig}_chances": c.n, f"{sig}_expected": round(c.expected, 2),
                         f"z_{sig}": round((c.k - c.expected) / sd, 3) if sd > 0 else None,
                         f"{sig}_dispersion": round(f, 3), f"p_{sig}": _sig(p_sig)}
        p = inference.fisher_combined(ps)[1] if ps else 1.0
        lo, hi = inference.wilson(k, n)
        evidence = {"hits": k, "chances": n, "rate": round(k / n, 4), "ci95": [round(lo, 4), round(hi, 4)],
                    "baseline_rate": round(expected / n, 4), "expected": round(expected, 2), **evidence,
                    "combined": ", ".join(combined) or "none"}
        tests.append(Found(game, variant, a, b, p, (k - expected) / n, n, evidence))
    return tests


@dataclass(frozen=True)
class Found:
    """A pair's card-sharing test, as the screens' ``Test`` of kind ``card_sharing`` takes it."""

    game: str
    variant: str
    player: str
    other: str
    p: float
    effect: float
    n: int
    evidence: dict


def _sig(p: float) -> float:
    """*p* to three significant digits."""
    return float(f"{p:.3g}")


def _rate(counts: list[Shared]) -> float:
    """The population's rate of a signature: its hits over its chances, every pair."""
    n = sum(c.n for c in counts)
    return sum(c.k for c in counts) / n if n else 0.0


def telling(frame: pl.DataFrame, counts: pl.DataFrame, t, limit: int) -> list[str]:
    """The telling decisions of a card-sharing test *t*: its pair's hits (rows of
    ``telling_share.sql``), the rarest kinds first (the population's rate of the kind, from
    *counts*, ``share_counts.sql``), put in its evidence as ``telling`` ([hand id, action
    index, signature, who acted], at most *limit*); returns the ids of their hands."""
    rate: dict[str, float] = {}
    tot: dict[str, list[int]] = {}
    for r in counts.filter((pl.col("game") == t.game) & (pl.col("variant") == t.variant)).iter_rows(named=True):
        acc = tot.setdefault(r["stratum"], [0, 0])
        acc[0] += r["n"]
        acc[1] += r["k"]
    for s, (n, k) in tot.items():
        rate[s] = k / n if n else 1.0
    hits = sorted(frame.iter_rows(named=True), key=lambda r: (rate.get(r["stratum"], 1.0), r["hand_id"], r["idx"]))
    chosen = hits[:limit]
    t.evidence["telling"] = [[r["hand_id"], r["idx"], r["sig"], r["a"]] for r in chosen]
    return list(dict.fromkeys(r["hand_id"] for r in chosen))
