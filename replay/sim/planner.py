"""The default bot: it plans its hand as people do, and asks the engine for little.

A hand is split into *units* (bombs, chains, triples with a kicker, pairs, singles) by a
greedy plan over rank counts; its *cost* is how many plays it needs. The bot

- leads the lowest unit of its plan (longer shapes first, a triple with its kicker),
  feeds a partner about to go out (a low single or pair), never hands a single to an
  opponent on 报单 unless it is its highest, and with two units left leads the one
  nobody can beat first;
- follows an opponent with the play that costs its plan least (a unit it has anyway),
  keeps high cards and bombs unless an opponent is close to going out, the bomb wins the
  hand or the hand is nearly done; never beats a partner's play unless it goes out;
- chooses among the plays that beat the table only (``ComboIndex.iter_beating`` on rank
  counts); leads are its own candidates, checked by the engine before they are played.

Games with wild cards (Guandan's hearts, Shuangkou's jokers) follow from the engine's
legal moves, where the wilds are; ``strong`` also weighs every legal lead.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cards import CARD_NAMES, CARD_OF, GUARD, counts, pack
from ..combos import ComboIndex

#: rank offsets of the packed counts
_SHIFT = [5 * r for r in range(15)]


class Shapes:
    """What a game's combination table allows, in the terms a plan needs (built once per table)."""

    _cache: dict[int, Shapes] = {}

    @classmethod
    def of(cls, table: ComboIndex) -> Shapes:
        found = cls._cache.get(id(table))
        if found is None or found.table is not table:
            found = cls._cache[id(table)] = Shapes(table)
        return found

    def __init__(self, table: ComboIndex):
        self.table = table
        m = table.matrix
        nz = m > 0
        num = nz.sum(1)
        mx = m.max(1)
        mn = np.where(nz, m, 99).min(1)
        first = nz.argmax(1)
        last = m.shape[1] - 1 - nz[:, ::-1].argmax(1)
        pure = (mx == mn) & (last - first + 1 == num) & (num >= 2) & (mx <= 3)
        #: chains: (unit, first rank, length, rank mask, packed)
        self.chains: list[tuple[int, int, int, int, int]] = []
        for i in np.nonzero(pure)[0]:
            packed = table.packed[int(i)]
            readings = table.readings[packed]
            if any(c.tier for c in readings) or (int(mx[i]) == 1 and int(num[i]) < 3):
                continue
            u, f, n = int(mx[i]), int(first[i]), int(num[i])
            if u == 1 and n == 2:
                continue
            self.chains.append((u, f, n, sum(1 << r for r in range(f, f + n)), packed))
        self.chains.sort(key=lambda x: (-x[2] * x[0], x[1]))
        #: chains by (unit, first rank) as packed plays, shortest first (a longer one fits
        #: only if the shorter one does)
        self.by_start: dict[tuple[int, int], list[int]] = {}
        for u, f, _n, _, packed in sorted(self.chains, key=lambda x: (x[0], x[1], x[2])):
            self.by_start.setdefault((u, f), []).append(packed)
        self.base: dict[int, int] = {}
        self.plans: dict[int, tuple[list[int], int]] = {}
        self.bomb_min = next((k for k in (4, 5, 6, 3) if any(c.tier for c in table.classify(k << _SHIFT[5]))), 99)
        self.kicker_single = any(c.kind != "triple" for c in table.classify((3 << _SHIFT[5]) + (1 << _SHIFT[8])))
        self.kicker_pair = any(c.kind != "triple" for c in table.classify((3 << _SHIFT[5]) + (2 << _SHIFT[8])))
        self.kicker_two = not self.kicker_single and any(
            c.kind != "triple" for c in table.classify((3 << _SHIFT[5]) + (1 << _SHIFT[8]) + (1 << _SHIFT[9])))
        self.triple_ok = bool(table.classify(3 << _SHIFT[5]))
        self.joker_units = [p for p in ((1 << 65) + (1 << 70), (2 << 65) + (2 << 70), (2 << 65) + (1 << 70),
                                        (1 << 65) + (2 << 70)) if any(c.tier for c in table.classify(p))]


def base_cost(h: int, sh: Shapes) -> int:
    """Plays needed for packed counts *h* without chains: triples carry a single or pair."""
    found = sh.base.get(h)
    if found is not None:
        return found
    x, acc = h, 0
    while x:  # three ranks at a time
        acc += _SPT[x & 0x7FFF]
        x >>= 15
    s, p, t = acc & 1023, (acc >> 10) & 1023, acc >> 20
    kick = 0
    if t:
        if sh.kicker_two:  # 三带二 of any two cards: two singles, else a pair
            a = min(t, s // 2)
            b = min(t - a, p) if sh.kicker_pair else 0
            kick = 2 * a + b
        else:
            kick = min(t, (s if sh.kicker_single else 0) + (p if sh.kicker_pair else 0))
    if len(sh.base) > 100_000:
        sh.base.clear()
    cost = sh.base[h] = t + p + s - kick
    return cost


def _spt(chunk: int) -> int:
    """Singles, pairs and triples-or-more among three 5-bit rank counts, packed 10 bits each."""
    out = 0
    for k in range(3):
        n = (chunk >> (5 * k)) & 31
        out += 1 if n == 1 else (1 << 10) if n == 2 else (1 << 20) if n else 0
    return out


_SPT = [_spt(x) for x in range(1 << 15)]
#: the bits of a rank count of four or more (a bomb-sized count; counts stay under 16)
_FOUR_UP = sum(0b01100 << (5 * r) for r in range(15))


def _strip(h: int, sh: Shapes) -> tuple[int, int, list[int]]:
    """(counts without bombs and joker bombs, how many were taken, the bombs as packed plays)."""
    bombs: list[int] = []
    if sh.bomb_min == 4 and not h & _FOUR_UP and not (sh.joker_units and (h >> 65) & 31 and (h >> 70) & 31):
        return h, 0, bombs  # nothing to take: the usual case
    for r in range(15):
        n = (h >> _SHIFT[r]) & 31
        if n >= sh.bomb_min:
            bombs.append(n << _SHIFT[r])
            h -= n << _SHIFT[r]
    if sh.joker_units and (h >> 65) & 31 and (h >> 70) & 31:
        jokers = h & ((31 << 65) | (31 << 70))
        if jokers in sh.joker_units:
            bombs.append(jokers)
            h -= jokers
    return h, len(bombs), bombs


def plan(h: int, sh: Shapes) -> tuple[list[int], int]:
    """(chains taken as packed plays, cost of the whole hand) for packed counts *h*."""
    found = sh.plans.get(h)
    if found is not None:
        return found
    h0 = h
    h, cost, _ = _strip(h, sh)
    chains = []
    now = base_cost(h, sh)
    base = sh.base
    starts = sh.by_start.values()
    guard = GUARD
    while now > 1:
        best, best_cost = 0, now
        hg = h | guard
        for lst in starts:
            for packed in lst:  # shortest first: stop at the first that does not fit
                if (hg - packed) & guard != guard:
                    break
                rest = h - packed
                after = base.get(rest)
                if after is None:
                    after = base_cost(rest, sh)
                if after + 1 < best_cost:
                    best, best_cost = packed, after + 1
        if not best:
            break
        h -= best
        chains.append(best)
        cost += 1
        now = best_cost - 1
    if len(sh.plans) > 50_000:
        sh.plans.clear()
    found = sh.plans[h0] = (chains, cost + now)
    return found


def cost_of(h: int, sh: Shapes) -> int:
    """How many plays the packed hand *h* needs by its plan (cached per table)."""
    found = sh.plans.get(h)
    return found[1] if found is not None else plan(h, sh)[1]


@dataclass(frozen=True)
class Planner:
    """The default policy (``--bot fast``); ``strong=True`` (``--bot strong``) also counts
    cards: near the end it leads, or takes the lead with, plays nobody else can beat."""

    strong: bool = False
    name: str = "fast"

    # ------------------------------------------------------------------ bidding

    def bid(self, table: Any, rng: random.Random, seat: int, power: float, stage: str) -> bool:
        sh = Shapes.of(table.combos)
        cost = cost_of(table.packed[seat], sh)
        # a hand worth the bottom: strong cards, or few plays to empty it
        score = power - 0.6 * max(0, cost - 6)
        # thresholds: about one deal in ten has no hand worth calling (a redeal), as at real tables
        if stage == "grab":
            return score >= 5
        return score >= 2.3

    # ------------------------------------------------------------------ play

    def play(self, table: Any, rng: random.Random, moves: Any, hints: dict[str, Any]) -> list[int] | None:
        seat = table.turn
        partners: frozenset[int] = hints.get("partners", frozenset())
        must = hints.get("must_play", False)
        sh = Shapes.of(table.combos)
        c = table.packed[seat]
        if table.last is None:
            choice = self._lead(table, seat, c, sh, partners, hints, moves)
        else:
            choice = self._follow(table, seat, c, sh, partners, hints, moves, rng)
            if choice is None and must:
                choice = self._any_beating(table, seat, moves)
        high = hints.get("high_single")
        if high is None:  # no advice from the driver: 报单 when the next seat is an opponent on one card
            nxt = table.next_active(seat)
            high = nxt not in partners and table.left[nxt] == 1
        if choice is not None and high and len(choice) == 1:
            # 报单: a single is the highest card held (the engine's let-go rule, and good play)
            loose = _strip(c, sh)[0] or c  # bombs kept whole while other cards are left
            top = max((r for r in range(15) if (loose >> _SHIFT[r]) & 31), key=lambda r: _key(sh, 1 << _SHIFT[r]))
            ids = self._checked(table, seat, 1 << _SHIFT[top])
            if ids is not None:
                choice = ids
        return choice

    # ------------------------------------------------------------------ leads

    def _lead(self, table, seat, c, sh, partners, hints, moves) -> list[int] | None:
        hand = table.packed[seat]
        ct = table.combos
        whole = ct.readings.get(hand)
        if whole:  # the whole hand in one play
            ids = self._checked(table, seat, hand)
            if ids is not None:
                return ids
        units = self._units(c, sh)
        n = table.n
        opp = [s for s in range(n) if s != seat and s not in partners and table.active[s]]
        mates = [s for s in partners if table.active[s]]
        # feed a partner about to go out: its count of cards as low as it comes (a single
        # from the lowest rank held, a pair from the lowest pair), unless an opponent is out next
        if not any(table.left[o] <= 1 for o in opp):
            for mate in mates:
                want = table.left[mate]
                if want <= 2:
                    ranks = [r for r in range(15) if (c >> _SHIFT[r]) & 31 >= want]
                    for r in sorted(ranks, key=lambda r: _key(sh, want << _SHIFT[r])):
                        ids = self._checked(table, seat, want << _SHIFT[r])
                        if ids is not None:
                            return ids
        danger_single = any(table.left[o] == 1 for o in opp)
        ordinary = [u for u in units if not u[3]]
        bombs = [u for u in units if u[3]]
        if len(ordinary) + len(bombs) == 2 and bombs:
            ids = self._checked(table, seat, bombs[0][4])  # the bomb first, then the rest goes out
            if ids is not None:
                return ids
        if self.strong and len(ordinary) + len(bombs) <= 4:
            # counting cards: lead what nobody else can beat while at most one other play is left
            outside = sum(table.packed[s] for s in range(n) if s != seat)
            boss = [u for u in ordinary if _boss(sh, u[4], outside)]
            rest = [u for u in ordinary if u not in boss]
            if boss and len(rest) <= 1:
                for u in sorted(boss, key=lambda u: -u[1]):
                    ids = self._checked(table, seat, u[4])
                    if ids is not None:
                        return ids
        if len(ordinary) == 2:  # lead the unit that likely holds first: the higher one
            hi = max(ordinary, key=lambda u: u[0])
            if hi[0] >= 11 or hi[1] >= 5:
                ids = self._checked(table, seat, hi[4])
                if ids is not None:
                    return ids
        pool = ordinary or bombs
        if danger_single:
            multi = [u for u in pool if u[1] > 1]
            pool = multi or sorted(pool, key=lambda u: -u[0])[:1]
        # the lowest unit, longer shapes first at the same rank
        for u in sorted(pool, key=lambda u: (u[0], -u[1])):
            ids = self._checked(table, seat, u[4])
            if ids is not None:
                return ids
        return None if moves is None else self._fallback_lead(moves)

    def _units(self, c: int, sh: Shapes) -> list[tuple[int, int, int, bool, int]]:
        """The plan's units as (low rank, cards, count of that shape, bomb?, packed play)."""
        chains, _ = plan(c, sh)
        units = []
        for p in chains:
            cs = counts(p)
            low = next(r for r in range(15) if cs[r])
            units.append((low, sum(cs), 1, False, p))
        rest_packed, _, bombs = _strip(c - sum(chains), sh)
        for p in bombs:
            low = next(r for r in range(15) if (p >> _SHIFT[r]) & 31)
            units.append((low, sum(counts(p)), 1, True, p))
        rest = counts(rest_packed)
        singles = [r for r in range(15) if rest[r] == 1]
        pairs = [r for r in range(15) if rest[r] == 2]
        triples = [r for r in range(15) if rest[r] == 3]
        for r in triples:
            packed = 3 << _SHIFT[r]
            if sh.kicker_two and len(singles) >= 2 and singles[1] < 11:
                packed += (1 << _SHIFT[singles.pop(0)]) + (1 << _SHIFT[singles.pop(0)])
            elif sh.kicker_single and singles and singles[0] < 11:
                k = singles.pop(0)
                packed += 1 << _SHIFT[k]
            elif sh.kicker_pair and pairs and pairs[0] < 11:
                k = pairs.pop(0)
                packed += 2 << _SHIFT[k]
            elif not sh.triple_ok:
                if pairs:
                    packed += 2 << _SHIFT[pairs.pop(0)]
                elif singles:
                    packed += 1 << _SHIFT[singles.pop(0)]
            units.append((r, sum(counts(packed)), 1, False, packed))
        for r in pairs:
            units.append((r, 2, 1, False, 2 << _SHIFT[r]))
        for r in singles:
            units.append((r, 1, 1, False, 1 << _SHIFT[r]))
        return units

    def _checked(self, table, seat: int, packed: int) -> list[int] | None:
        """The cards of *packed* if the engine accepts them as a play now, else None."""
        ct = table.combos
        if table.plain_lookup and not ct.readings.get(packed):
            return None
        try:
            ids = table.cards_for(seat, packed)
        except AssertionError:
            return None
        if not table.allows(seat, packed):
            return None
        v = table.verify_play(0, seat, [CARD_NAMES[x] for x in ids])[0]  # (the index names a violation only)
        return ids if v is None else None

    @staticmethod
    def _fallback_lead(moves) -> list[int] | None:
        if not moves:
            return None
        return min(moves, key=lambda m: (m[1][0].tier, m[1][0].key, -len(m[0])))[0]

    # ------------------------------------------------------------------ follows

    def _candidates(self, table, seat, moves, wild: bool = False) -> list[tuple[int, Any, list[int] | None]]:
        """(packed, reading, cards or None) of the plays that beat the table: from rank
        counts (natural readings, checked by the engine before playing in games with wild
        cards), or with *wild* from the engine's legal moves."""
        if not wild:
            ct = table.combos
            return [(p, ct.readings[p][0], None) for p in ct.iter_beating(table.packed[seat], table.last)
                    if table.allows(seat, p)]
        from ..cards import pack

        return [(pack(ids), readings[0], ids) for ids, readings in moves]

    def _follow(self, table, seat, c, sh, partners, hints, moves, rng) -> list[int] | None:
        plain = table.plain_lookup
        cands = self._candidates(table, seat, moves)
        left = table.left[seat]
        for p, r, ids in cands:
            if r.size == left:
                ids = self._cards(table, seat, p, ids, plain)
                if ids is not None:
                    return ids
        if table.last_seat in partners:
            if self.strong and plain:
                return self._block(table, seat, c, sh, partners, cands, hints)
            return None
        if self.strong and plain:
            # counting cards: take the lead with a play nobody can beat when what is left then
            # goes out in one more play
            outside = sum(table.packed[s] for s in range(table.n) if s != seat)
            for p, _r, ids in sorted(cands, key=lambda x: (x[1].tier, x[1].key)):
                if cost_of(c - p, sh) <= 1 and _boss(sh, p, outside):
                    return self._cards(table, seat, p, ids, plain)
        for _ in range(4):  # wild-card games: a natural play the engine reads otherwise is dropped
            if not cands:
                break
            choice = self._best_follow(table, seat, c, sh, partners, cands, hints, rng)
            if choice is None:
                break
            ids = self._cards(table, seat, choice[0], choice[2], plain)
            if ids is not None:
                return ids
            cands = [x for x in cands if x[0] != choice[0]]
        if not plain and self._urgent(table, seat, partners) and _holds_wild(table, seat):
            # the plays only wild cards make (bombs with a wild heart or joker) when it matters
            cands = self._candidates(table, seat, moves, wild=True)
            if cands:
                choice = self._best_follow(table, seat, c, sh, partners, cands, hints, rng)
                if choice is not None:
                    return choice[2]
        return None

    @staticmethod
    def _urgent(table, seat, partners) -> bool:
        opp = [s for s in range(table.n) if s != seat and s not in partners and table.active[s]]
        return min((table.left[o] for o in opp), default=99) <= 2 or (
            table.last_seat in opp and table.left[table.last_seat] <= 3)

    def _best_follow(self, table, seat, c, sh, partners, cands, hints, rng):
        """The candidate to play (packed, reading, cards or None), or None to pass."""
        urgent = self._urgent(table, seat, partners)
        now = cost_of(c, sh)
        ordinary, bombs = [], []
        for x in sorted(cands, key=lambda x: (x[1].tier, x[1].key)):
            p, r = x[0], x[1]
            if r.tier:
                bombs.append((cost_of(c - p, sh) - now, r.tier, r.key, x))
                continue
            if ordinary and ordinary[-1][0] <= -1:
                continue  # the lowest play that is a whole unit of the plan: nothing does better
            ordinary.append((cost_of(c - p, sh) - now, r.tier, r.key, x))
        strong = hints.get("strong", 12)
        if ordinary and urgent and self.strong and table.plain_lookup:
            # an opponent is nearly out: the play it cannot top, if one costs the plan little
            outside = sum(table.packed[s] for s in range(table.n) if s != seat)
            tops = [x for x in sorted(cands, key=lambda x: x[1].key) if not x[1].tier and _boss(sh, x[0], outside)]
            for x in tops:
                if cost_of(c - x[0], sh) - now <= 1:
                    return x
        if ordinary:
            best = min(ordinary, key=lambda x: (x[0], x[2]))
            delta, key = best[0], best[2]
            ok = delta <= -1 or urgent or (delta <= 0 and key < strong) or (delta <= 1 and key < strong - 3)
            if ok and key >= strong and not urgent and table.left[seat] > 7 and delta >= 0:
                ok = rng.random() < 0.3  # hold the top cards while the hand is long
            if ok:
                return best[3]
        if bombs:
            best = min(bombs, key=lambda x: (x[1], x[2], x[0]))
            after = now + best[0]
            big = table.last[0].size >= 5 or table.last[0].tier
            if urgent or after <= 2 or (big and after <= 4):
                return best[3]
        return None

    def _block(self, table, seat, c, sh, partners, cands, hints) -> list[int] | None:
        """A partner's play that the next opponent, about to go out, may top: top it first
        with a play nobody can beat (counting cards), else leave it."""
        nxt = table.next_active(seat)
        if nxt in partners or table.left[nxt] > 2 or table.last[0].size > table.left[nxt]:
            return None
        outside = sum(table.packed[s] for s in range(table.n) if s != seat)
        if _boss(sh, self._last_packed(hints.get("actions", ())), outside):
            return None  # the partner's play holds
        for p, r, ids in sorted(cands, key=lambda x: (x[1].tier, x[1].key)):
            if not r.tier and _boss(sh, p, outside):
                return self._cards(table, seat, p, ids, True)
        return None

    @staticmethod
    def _last_packed(actions: list[dict]) -> int:
        """The packed cards of the play on the table (the last play of the hand's *actions*)."""
        for a in reversed(actions):
            if a["act"] == "play":
                return pack(CARD_OF[t] for t in a["cards"])
        return 0

    def _any_beating(self, table, seat, moves) -> list[int] | None:
        cands = self._candidates(table, seat, moves, wild=not table.plain_lookup)
        if not cands:
            return None
        p, r, ids = min(cands, key=lambda x: (x[1].tier, x[1].key))
        return self._cards(table, seat, p, ids, True)

    def _cards(self, table, seat, packed, ids, trusted: bool) -> list[int] | None:
        """The cards of a candidate; untrusted (a natural reading in a wild-card game): checked."""
        if ids is not None or trusted:
            return ids if ids is not None else table.cards_for(seat, packed)
        return self._checked(table, seat, packed)


def _boss(sh: Shapes, packed: int, outside: int) -> bool:
    """Whether no play the other seats could make from the cards they hold together beats
    *packed* (what counting the cards played tells a player)."""
    readings = sh.table.readings.get(packed)
    if not readings:
        return False
    return not sh.table.has_beating(outside, readings[:1])


def _key(sh: Shapes, packed: int) -> int:
    """The key of a plain play's first reading (how high it is), -1 if it is none."""
    readings = sh.table.readings.get(packed)
    return readings[0].key if readings else -1


def _holds_wild(table, seat: int) -> bool:
    """Whether the seat holds a wild card: the table's ``wild`` card (Guandan's heart of the
    level), else a joker (games without a plain lookup read jokers as wild)."""
    wild = getattr(table, "wild", None)
    if wild is not None:
        return table.hands[seat][wild] > 0
    return (table.packed[seat] >> 65) > 0


FAST = Planner()
STRONG = Planner(strong=True, name="strong")
