"""Settlement shared by the games: points to coins, with the carried-coin caps."""

from __future__ import annotations

from .kernel import compiled


def settle_coins(scores: list[int], coef: float, fee: float, stacks: list[float] | None) -> list[float]:
    """Coins per seat: points × coef, capped by what each seat carried, then the fee.

    Losers pay, winners receive; a cap on one side shrinks the other side in proportion
    (largest remainders keep whole coins zero-sum); the fee is taken from every seat but
    never past what it has left.

    >>> settle_coins([2, -1, -1], 100, 0, None)
    [200, -100, -100]
    >>> settle_coins([2, -1, -1], 100, 10, [1000, 50, 1000])   # farmer 1 can pay only 50
    [140, -50, -110]
    """
    net: list[float]
    coins = SETTLE_WHOLE(scores, coef, fee, stacks)
    if coins is not None:
        return coins
    want = [s * coef for s in scores]
    if stacks is None:
        net = want
    else:
        caps = [x if x > 0 else 0 for x in stacks]
        net = []  # wins minus pays, each capped by what the seat carried
        paid: float = 0
        won: float = 0
        for w, cap in zip(want, caps):
            if w < 0:
                x = w if -w < cap else -cap
                paid -= x
            else:
                x = w if w < cap else cap
                won += x
            net.append(x)
        total = min(paid, won)
        if paid > total or won > total:  # a cap on one side shrinks the other side
            pays = _shrink({s: -x for s, x in enumerate(net) if x < 0}, total)
            wins = _shrink({s: x for s, x in enumerate(net) if x > 0}, total)
            net = [wins.get(s, 0) - pays.get(s, 0) for s in range(len(scores))]
        if fee:
            net = [x - min(fee, max(0, caps[s] + x)) for s, x in enumerate(net)]
            fee = 0
    if fee:
        net = [x - fee for x in net]
    return [int(x) if float(x).is_integer() else x for x in net]


#: the bounds within which settle_whole's sums are exact in the kernel's 64-bit integers
_SCORE_BOUND, _STACK_BOUND = 1 << 26, 1 << 53


def _settle_whole(scores: list[int], coef: float, fee: float, stacks: list[float] | None) -> list[float] | None:
    """settle_coins' common case: whole coins, zero-sum, no cap reached (each seat's score
    × coef within what it carries), the fee taken but never past what a seat has left: the
    coins; None for anything else (ints only, not bools; |score| and |coef| at most 2**26,
    stacks and fee at most 2**53), where settle_coins works it out in full. The reference
    of the kernel's ``settle_whole`` (replay/_kernel.pyx): one pass, as this runs for every
    hand settled."""
    if type(scores) is not list or type(stacks) is not list or type(coef) is not int or type(fee) is not int \
            or not -_SCORE_BOUND <= coef <= _SCORE_BOUND or not -_STACK_BOUND <= fee <= _STACK_BOUND:
        return None
    coins: list[float] = []
    balance = 0
    for have, score in zip(stacks, scores):
        if type(have) is not int or type(score) is not int or not -_STACK_BOUND <= have <= _STACK_BOUND \
                or not -_SCORE_BOUND <= score <= _SCORE_BOUND:
            return None
        wants = score * coef
        if have < wants or have < -wants:
            return None
        balance += wants
        left = have + wants
        coins.append(wants - (fee if fee < left else left))
    return None if balance else coins


#: the compiled kernel's seam: its settle_whole where it is built, else the reference above
SETTLE_WHOLE = _settle_whole if compiled is None else compiled.settle_whole


def _shrink(amounts: dict[int, float], total: float) -> dict[int, float]:
    have = sum(amounts.values())
    if have <= total or have == 0:
        return amounts
    exact = {s: a * total / have for s, a in amounts.items()}
    if float(total).is_integer() and all(float(a).is_integer() for a in amounts.values()):
        floors: dict[int, float] = {s: int(x) for s, x in exact.items()}
        short = int(total) - int(sum(floors.values()))
        for s in sorted(exact, key=lambda s: (-(exact[s] - floors[s]), s))[:short]:
            floors[s] += 1
        return floors
    return exact
