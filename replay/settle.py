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
    if compiled is not None:  # the common case below in C (replay/_kernel.pyx), where it applies
        coins: list[float] | None = compiled.settle_whole(scores, coef, fee, stacks)
        if coins is not None:
            return coins
    if type(coef) is int and type(fee) is int and stacks is not None:
        # the common case, whole coins, zero-sum and no cap reached: what each seat wants,
        # less the fee (never past what it has left), already whole (one pass: this runs
        # for every hand settled)
        quick: list[float] = []
        balance = 0
        for have, score in zip(stacks, scores):
            wants = score * coef
            if type(have) is not int or have < wants or have < -wants:
                break
            balance += wants
            left = have + wants
            quick.append(wants - (fee if fee < left else left))
        else:
            if not balance:
                return quick
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
