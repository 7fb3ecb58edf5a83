"""Settlement shared by the games: points to coins, with the carried-coin caps."""

from __future__ import annotations


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
    want = [s * coef for s in scores]
    if stacks is None:
        net = want
    else:
        caps = [x if x > 0 else 0 for x in stacks]
        pays = {s: (-w if -w < caps[s] else caps[s]) for s, w in enumerate(want) if w < 0}
        wins = {s: (w if w < caps[s] else caps[s]) for s, w in enumerate(want) if w > 0}
        total = min(sum(pays.values()), sum(wins.values()))
        pays = _shrink(pays, total)
        wins = _shrink(wins, total)
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
        floors = {s: int(x) for s, x in exact.items()}
        short = int(total) - sum(floors.values())
        for s in sorted(exact, key=lambda s: (-(exact[s] - floors[s]), s))[:short]:
            floors[s] += 1
        return floors
    return exact
