"""The value of each option at a decision of a recorded hand (``paipu.evaluate``).

At a play or pass of the play phase (or a Dou Dizhu bid, a Guandan tribute or return),
every legal option of the seat to act is valued for that seat's side (the seat with its partners: Dou Dizhu's other
farmer, Guandan's and Shuangkou's partner): the probability that the side wins the hand
and the seat's expected points, each with its standard error. Only what the seat could
know is used:

- its own cards, every card played, the cards left per seat, and what the game makes
  public (``Table.known_cards``: Dou Dizhu's bottom in the landlord's hand, a hand shown
  by 明牌, Shuangkou's drawn card in the first leader's hand);
- a card it handed to another seat (a Guandan tribute or return), in that seat's hand;
- what passes reveal (``Table.pass_reveals``: under 有出必出 a pass means the seat could
  not beat the play on the table, so a hidden hand that could have is not dealt).

The hidden cards are dealt to the other seats at random, many times over (the same
deals, and the same random numbers for the bots, for every option: differences between
options carry less noise than the values). Each deal is played out by a bot from the
state after the option; when few cards are left it is solved exactly instead
(:class:`Solver`: perfect information, the side against the rest, a transposition table).

>>> hand = next(__import__("paipu").read_records("sample_logs/doudizhu_handmade.paipu"))
>>> ev = evaluate(hand, 9, samples=4, budget_ms=None)  # the landlord, holding 3h 3d SJ BJ
>>> [(o.label(), o.chosen, o.win.mean, o.score.mean) for o in ev.options]  # doctest: +NORMALIZE_WHITESPACE
[('3h', False, 1.0, 8.0), ('SJ', False, 1.0, 8.0), ('BJ', False, 1.0, 8.0), ('3h 3d', True, 1.0, 8.0),
 ('SJ BJ', False, 1.0, 16.0)]
>>> ev.best().label()  # the rocket doubles the stake, and the pair goes out after it
'SJ BJ'
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import CARD_NAMES, CARD_OF, RANK_BIT
from .combos import any_beats, strongest
from .games import find_game
from .replayer import Visitor, Walk, walk
from .rules import Rules
from .table import Table

#: at most this many cards left in all hands together: the deal is solved exactly
EXACT_CARDS = 10
#: the solver gives up (and the deal is played out by the bots) beyond this many positions
NODE_LIMIT = 4_000
#: deals drawn per sample before one is repaired to honour the passes
MAX_TRIES = 200
#: swaps tried by the repair before the pass constraints are relaxed for the sample
REPAIR_STEPS = 2_000
#: actions a playout may take before it is called off (a bug: every hand ends)
MAX_STEPS = 2_000
#: options valued at most by default (:func:`shortlist` chooses them): a Guandan lead has
#: up to ~170 legal plays, each valued over 2 deals at least (3.5 ms a playout from 108 cards)
MAX_OPTIONS = 24
#: the acts of a bidding decision (Dou Dizhu), each with the field that says yes or no
BIDS = {"bid": "call", "grab": "grab"}
#: the acts that hand a card to another seat before the play (Guandan's tribute and return)
HANDING = ("tribute", "return")
#: the key of the cards not yet in any hand (Dou Dizhu's bottom while bidding) in a deal
BOTTOM = -1


@dataclass(frozen=True)
class Value:
    """A mean over the samples and its standard error (NaN with fewer than two samples)."""

    mean: float
    se: float

    @classmethod
    def of(cls, xs: Sequence[float]) -> Value:
        n = len(xs)
        if not n:
            return cls(math.nan, math.nan)
        mean = sum(xs) / n
        if n < 2:
            return cls(mean, math.nan)
        var = sum((x - mean) ** 2 for x in xs) / (n - 1)
        return cls(mean, math.sqrt(var / n))


@dataclass
class Option:
    """One legal option: its cards (None: the pass), its value, and the per-sample results
    (the same samples for every option of the decision)."""

    cards: list[str] | None
    kind: str | None
    chosen: bool
    #: per sample: 1.0 when the side won, else 0.0 (a Dou Dizhu redeal after a bid:
    #: ``REDEAL_WIN``, :func:`redeal_win_of`)
    wins: list[float] = field(default_factory=list)
    #: per sample: the deciding seat's points (``outcome["scores"]``)
    points: list[float] = field(default_factory=list)
    #: per sample: its coins, when the hand settles coins
    coins: list[float] = field(default_factory=list)

    @property
    def win(self) -> Value:
        return Value.of(self.wins)

    @property
    def score(self) -> Value:
        return Value.of(self.points)

    @property
    def coin(self) -> Value | None:
        return Value.of(self.coins) if self.coins else None

    def label(self) -> str:
        """The cards, "pass", or a bid as its kind ("bid yes", "grab no")."""
        return " ".join(self.cards) if self.cards is not None else self.kind or "pass"


@dataclass
class Evaluation:
    """The options of one decision, valued (see :func:`evaluate`)."""

    hand_id: Any
    index: int
    seat: int
    #: the deciding seat with its partners
    side: tuple[int, ...]
    options: list[Option]
    #: deals sampled (every option was valued on each)
    samples: int
    #: of them, deals solved exactly (win exact; points from a line that keeps that result)
    solved: int
    #: of them, deals where no deal within MAX_TRIES honoured the passes and the repair
    #: did not either: the constraint was relaxed
    relaxed: int
    elapsed_ms: float
    seed: int
    bot: str
    #: of them, deals that honour the passes after a repair (not drawn uniformly)
    repaired: int = 0
    #: legal options left out, not valued (``evaluate(max_options=…)``)
    dropped: int = 0

    @property
    def chosen(self) -> Option | None:
        return next((o for o in self.options if o.chosen), None)

    def best(self, by: str = "points") -> Option:
        """The option with the highest expected points (``by="win"``: win probability)."""
        return max(self.options, key=lambda o: (o.score.mean, o.win.mean) if by == "points" else (o.win.mean, o.score.mean))

    def difference(self, a: Option, b: Option, by: str = "points") -> Value:
        """a − b over the same samples (paired: its standard error is that of the differences)."""
        xa, xb = (a.points, b.points) if by == "points" else (a.wins, b.wins)
        return Value.of([x - y for x, y in zip(xa, xb)])

    def to_json(self) -> dict[str, Any]:
        def val(v: Value | None) -> dict[str, float] | None:
            return None if v is None else {"mean": v.mean, "se": v.se}

        return {"hand_id": self.hand_id, "index": self.index, "seat": self.seat, "side": list(self.side),
                "samples": self.samples, "solved": self.solved, "relaxed": self.relaxed, "repaired": self.repaired, "dropped": self.dropped,
                "elapsed_ms": self.elapsed_ms, "seed": self.seed, "bot": self.bot,
                "options": [{"cards": o.cards, "kind": o.kind, "chosen": o.chosen, "win": val(o.win),
                             "points": val(o.score), "coins": val(o.coin)} for o in self.options]}


# ---------------------------------------------------------------------------- the state


def clone(table: Table) -> Table:
    """An independent copy of a table in play (the lists of its state copied, hands too;
    rules, setup and the combination table shared)."""
    kind = type(table)
    new = kind.__new__(kind)
    for name in _FIELDS:
        try:
            value = getattr(table, name)
        except AttributeError:
            continue
        setattr(new, name, _copied(value))
    for name, value in table.__dict__.items():
        setattr(new, name, _copied(value))
    return new


def _copied(value: Any) -> Any:
    kind = type(value)
    if kind is list:
        return [x.copy() if type(x) in (bytearray, list, dict) else x for x in value]
    if kind in (bytearray, dict, set):
        return value.copy()
    return value


#: the attributes of the play state (the kernel's PlayState keeps them outside __dict__)
_FIELDS = ("phase", "turn", "last", "last_seat", "passes", "first_play_done", "over", "tricks", "plays", "n",
           "combos", "hands", "packed", "left", "active", "out", "plays_by", "cards_played", "events", "detail")


def set_hand(table: Table, seat: int, cards: Sequence[int]) -> None:
    """Give *seat* exactly *cards* (its count of cards left must not change)."""
    hand = bytearray(54)
    for c in cards:
        hand[c] += 1
    assert len(cards) == held(table, seat), (seat, len(cards), held(table, seat))
    table.hands[seat] = hand
    table.packed[seat] = sum(map(RANK_BIT.__getitem__, cards))


def held(table: Table, seat: int) -> int:
    """The cards in *seat*'s hand (``Table.left`` but in the tribute phase, whose handed
    cards it does not count)."""
    return sum(table.hands[seat]) if table.phase == "tribute" else table.left[seat]


def cards_of(hand: bytearray) -> list[int]:
    return [c for c in range(54) for _ in range(hand[c])]


def action_of(seat: int, cards: Sequence[int] | None) -> dict[str, Any]:
    if cards is None:
        return {"seat": seat, "act": "pass"}
    return {"seat": seat, "act": "play", "cards": [CARD_NAMES[c] for c in cards]}


def pass_legal(table: Table) -> bool:
    """Whether the seat to act may pass now (someone else's play on the table, and the
    game's pass rule allows it)."""
    if table.last is None:
        return False
    return not table.has_pass_rules or table.check_pass(0, table.turn) is None


def options_of(table: Table) -> list[tuple[list[int] | None, str | None]]:
    """The seat to act's options: (cards, kind) of each legal play, then (None, None) for
    the pass when it is legal. Plays with the same cards are one option."""
    seen: set[tuple[int, ...]] = set()
    out: list[tuple[list[int] | None, str | None]] = []
    for ids, readings in table.legal_moves(table.turn):
        key = tuple(sorted(ids))
        if key not in seen:
            seen.add(key)
            out.append((ids, readings[0].kind))
    if pass_legal(table):
        out.append((None, None))
    return out


# ---------------------------------------------------------------------------- what the seat knows


@dataclass
class Knowledge:
    """What the deciding seat knows at the decision, and how to deal what it does not."""

    viewer: int
    #: seat -> the cards of its hand the viewer knows (public)
    known: dict[int, list[int]]
    #: the cards nobody has shown (deck − the viewer's hand − cards played − known)
    unseen: list[int]
    #: seat -> how many unseen cards it holds
    need: dict[int, int]
    #: (seat, the play it passed on, packed cards it has played since): the seat then
    #: held (its hand now + those cards) and could not beat the play
    passes: list[tuple[int, tuple[Any, ...], int]]

    #: deals that rejection did not find and a repair did (see :meth:`deal`)
    repaired: int = 0

    def deal(self, rng: random.Random, table: Table) -> tuple[dict[int, list[int]], bool]:
        """Hidden hands for the other seats: (seat -> cards, whether the pass constraints
        were relaxed). Deals are drawn until one honours every pass, :data:`MAX_TRIES`
        times at most; then the last one is repaired (:meth:`repair`); a deal that still
        breaks a pass is kept, relaxed."""
        pool = list(self.unseen)
        parts: dict[int, list[int]] = {}
        for _ in range(MAX_TRIES):
            rng.shuffle(pool)
            parts, k = {}, 0
            for seat, n in self.need.items():
                parts[seat] = pool[k:k + n]
                k += n
            if not self.broken(parts, table):
                return self.hands(parts), False
        fixed = self.repair(parts, rng, table)
        self.repaired += fixed
        return self.hands(parts), not fixed

    def hands(self, parts: dict[int, list[int]]) -> dict[int, list[int]]:
        """Each seat's hand: its known cards and its part of the unseen ones."""
        return {s: sorted(self.known.get(s, []) + part) for s, part in parts.items()}

    def broken(self, parts: dict[int, list[int]], table: Table) -> list[int]:
        """The seat of each pass the deal breaks (it could have beaten the play it passed on)."""
        combos = table.combos
        packed = {s: sum(map(RANK_BIT.__getitem__, self.known.get(s, []) + part)) for s, part in parts.items()}
        return [s for s, last, since in self.passes if combos.has_beating(packed[s] + since, last)]

    def repair(self, parts: dict[int, list[int]], rng: random.Random, table: Table) -> bool:
        """Swap unseen cards between the hidden hands (a card of a seat that breaks a pass
        for one of another seat), keeping each swap that breaks no more passes, until none
        is broken (True) or :data:`REPAIR_STEPS` swaps were tried. The deal stays one the
        seat could face, though no longer drawn uniformly."""
        now = self.broken(parts, table)
        seats = [s for s, part in parts.items() if part]
        for _ in range(REPAIR_STEPS):
            if not now:
                return True
            a = rng.choice(now)
            b = rng.choice(seats)
            if a == b or not parts[a]:
                continue
            i, j = rng.randrange(len(parts[a])), rng.randrange(len(parts[b]))
            parts[a][i], parts[b][j] = parts[b][j], parts[a][i]
            after = self.broken(parts, table)
            if len(after) <= len(now):
                now = after
            else:
                parts[a][i], parts[b][j] = parts[b][j], parts[a][i]
        return not now


def knowledge(table: Table, record: dict[str, Any], index: int,
              passes: list[tuple[int, int, tuple[Any, ...]]], reveal: Collection[int] = ()) -> Knowledge:
    """What the seat of action *index* knows then (*passes*: (action, seat, play passed
    on) of the revealing passes before it). Cards in no hand yet (Dou Dizhu's bottom while
    bidding) are dealt too, under the key :data:`BOTTOM`. *reveal*: seats whose whole hand
    the seat is also given (a card sharer's partner: the fraud screen's partner-aware value)."""
    viewer = record["actions"][index]["seat"]
    count = [0] * 54
    for c in table.rules.deck:
        count[c] += 1
    for c in range(54):
        count[c] -= table.hands[viewer][c]
    actions = record["actions"]
    played: list[list[tuple[int, int]]] = [[] for _ in range(table.n)]  # (action, card id) of each seat's plays
    handed: dict[int, list[int]] = {}  # cards the viewer handed to a seat (tribute, return)
    for i in range(index):
        a = actions[i]
        if a["act"] == "play":
            for t in a["cards"]:
                count[CARD_OF[t]] -= 1
                played[a["seat"]].append((i, CARD_OF[t]))
        elif a.get("to") is not None and isinstance(a.get("card"), str):  # a card handed over
            card = CARD_OF[a["card"]]
            if a["seat"] == viewer:
                handed.setdefault(a["to"], []).append(card)
            elif card in handed.get(a["seat"], ()):
                handed[a["seat"]].remove(card)  # handed on: no longer known where
    known = table.known_cards(viewer, played)
    for seat, cards in handed.items():
        gone = {c for _, c in played[seat]}  # (one of two copies played: which one is not known)
        known[seat] = known.get(seat, []) + [c for c in cards if c not in gone]
    for seat in reveal:
        if seat != viewer:
            known[seat] = cards_of(table.hands[seat])  # (the hand it holds, its known cards among them)
    for cards in known.values():
        for c in cards:
            count[c] -= 1
    if min(count) < 0:
        raise ValueError("the cards played and known are not the deck's")
    unseen = [c for c in range(54) for _ in range(count[c])]
    need = {s: held(table, s) - len(known.get(s, ())) for s in range(table.n) if s != viewer and held(table, s)}
    if table.phase == "bidding" and len(unseen) - sum(need.values()) == table.rules.bottom:
        need[BOTTOM] = table.rules.bottom  # the bottom, not given yet
    if sum(need.values()) != len(unseen):
        raise ValueError(f"{len(unseen)} unseen cards for {sum(need.values())} places in the other hands")
    constraints = []
    for i, seat, last in passes:
        if seat == viewer or not held(table, seat) or seat in known and len(known[seat]) == held(table, seat):
            continue
        since = sum(RANK_BIT[c] for j, c in played[seat] if j > i)
        constraints.append((seat, last, since))
    return Knowledge(viewer, known, unseen, need, constraints)


# ---------------------------------------------------------------------------- playing out


HintsOf = Callable[[Table, random.Random], dict[str, Any]]


def hints_of(table: Table) -> HintsOf:
    """The game's advice to its bots (the simulation driver's ``play_hints``; none for a
    game without a driver)."""
    from .sim import driver

    try:
        found: HintsOf | None = getattr(driver(table.rules.game), "play_hints", None)
    except ValueError:  # no simulation driver (a game registered at run time)
        found = None
    return found if found is not None else (lambda table, rng: {})


def play_out(table: Table, rng: random.Random, policy: Any, hints: HintsOf, actions: list[dict[str, Any]],
             chooser: Callable[[Table, list[int] | None], list[int] | None] | None = None) -> None:
    """The bots play *table* to its end (*actions*: the hand so far, appended to);
    *chooser* may replace each choice (the solver keeps a solved result)."""
    from .sim.core import LegalMoves

    i = len(actions)
    step = Walk(table)
    for _ in range(MAX_STEPS):
        if table.over:
            return
        seat = table.turn
        advice = hints(table, rng)
        advice["actions"] = actions
        cards = policy.play(table, rng, LegalMoves(table, seat), advice)
        if chooser is not None:
            cards = chooser(table, cards)
        action = action_of(seat, cards)
        actions.append(action)
        v = step(i, action)
        if v is not None:
            raise RuntimeError(f"a playout broke a rule: {v}")
        i += 1
    raise RuntimeError(f"a playout did not end in {MAX_STEPS} actions")


def side_wins(table: Table, side: frozenset[int]) -> bool:
    """The side holds the first place (the winner of Dou Dizhu, Paodekuai; the winning team)."""
    return bool(table.out) and table.out[0] in side


# ---------------------------------------------------------------------------- the exact solver


class TooBig(Exception):
    """A search past the solver's limit of positions."""


class Solver:
    """Perfect-information win/lose for *side* (every hand open; the side against all
    the others together) over the engine's legal moves, with a transposition table keyed
    on the hands, the play on the table, whose it is, the turn and the passes.

    The hand is decided when the first seat goes out (whose side it is on wins). Games
    whose hand ends then and whose plays are read from rank counts alone (Dou Dizhu,
    Paodekuai) are searched on packed rank counts (:meth:`fast`: the trick loop of
    ``Table.do_play`` / ``do_pass`` on integers, the pass rule of ``Table.pass_reveals``);
    the others on copies of the table stepped by the engine. *limit*: positions searched
    at most per question, *deadline*: a time of *clock* (None answers past them)."""

    def __init__(self, side: frozenset[int], limit: int = NODE_LIMIT, deadline: float | None = None,
                 clock: Callable[[], float] = time.perf_counter):
        self.side = side
        self.limit = limit
        #: clock() past which a search gives up as well
        self.deadline = deadline
        self.clock = clock
        self.nodes = 0
        self.memo: dict[tuple[Any, ...], bool] = {}

    # ------------------------------------------------------------------ on tables

    @staticmethod
    def key(t: Table) -> tuple[Any, ...]:
        hands = tuple(t.packed) if t.plain_lookup else tuple(bytes(h) for h in t.hands)
        return hands, t.turn, t.last, t.last_seat, t.passes, tuple(t.active)

    @staticmethod
    def packed_search(t: Table) -> bool:
        """Whether *t* can be searched on packed counts (see the class)."""
        return t.plain_lookup and t.ends_on_first_out and t.first_play_done and not t.own_step and all(t.active)

    def children(self, t: Table) -> list[tuple[list[int] | None, Table]]:
        """(cards or None, table after) of each option, going-out plays first, then the
        longest plays."""
        seat = t.turn
        opts = options_of(t)
        opts.sort(key=lambda o: -1 if o[0] is None else -len(o[0]))
        out = []
        for cards, _ in opts:
            child = clone(t)
            v = child.step(0, action_of(seat, cards))
            assert v is None, v
            out.append((cards, child))
        return out

    def wins(self, t: Table) -> bool | None:
        """True when the side wins from *t* whatever the others do; None past the node limit."""
        self.nodes = 0
        try:
            if not t.out and self.packed_search(t):
                return self.fast(t, tuple(t.packed), t.turn, t.last, t.last_seat)
            return self.search(t)
        except TooBig:
            return None

    def recall(self, k: tuple[Any, ...]) -> bool | None:
        """The kept value of position *k*; None for a new one (one more searched, or
        :class:`TooBig` past the limit)."""
        found = self.memo.get(k)
        if found is None:
            self.nodes += 1
            if self.nodes > self.limit or (
                    self.deadline is not None and not self.nodes & 255 and self.clock() > self.deadline):
                raise TooBig
        return found

    def search(self, t: Table) -> bool:
        if t.out:
            return t.out[0] in self.side
        k = self.key(t)
        found = self.recall(k)
        if found is not None:
            return found
        children = (self.search(child) for _, child in self.children(t))
        # (any, all: the search stops at the first decisive child)
        result = self.memo[k] = any(children) if t.turn in self.side else all(children)
        return result

    # ------------------------------------------------------------------ on packed counts

    def fast(self, t: Table, hands: tuple[int, ...], turn: int, last: Any, last_seat: int) -> bool:
        k = (hands, turn, last, last_seat)
        found = self.recall(k)
        if found is not None:
            return found
        combos = t.combos
        hand = hands[turn]
        mine = turn in self.side
        plays = small_plays(combos, hand, last)
        if plays is None:
            plays = combos.all_plays(hand) if last is None else list(combos.iter_beating(hand, last))
        for p in plays:
            if p == hand:
                self.memo[k] = mine  # goes out: the seat's side wins
                return mine
        nxt = turn + 1 if turn + 1 < t.n else 0
        plays.sort(key=lambda p: -p.bit_count())  # (roughly) the larger plays first
        branches: list[tuple[tuple[int, ...], Any, int]] = []
        for p in plays:
            readings = combos.readings[p]
            changed = list(hands)
            changed[turn] = hand - p
            branches.append((tuple(changed), readings if len(readings) == 1 else strongest(readings), turn))
        if last is not None and not (plays and t.pass_reveals()):
            branches.append((hands, None if nxt == last_seat else last, last_seat))  # the pass
        children = (self.fast(t, after, nxt, on_table, by) for after, on_table, by in branches)
        result = self.memo[k] = any(children) if mine else all(children)
        return result

    # ------------------------------------------------------------------ a line that keeps the result

    def keeping(self, t: Table, cards: list[int] | None) -> list[int] | None:
        """*cards* (the bot's choice at *t*), or the first option that keeps the solved
        result of *t* for the seat to act when the bot's does not."""
        value = self.wins(t)
        if value is None:
            return cards
        mine = t.turn in self.side
        if value != mine:
            return cards  # lost for the seat's side whatever it plays
        child = clone(t)
        v = child.step(0, action_of(t.turn, cards))
        assert v is None, v
        if self.wins(child) == value:
            return cards
        return next((option for option, child in self.children(t) if self.wins(child) == value), cards)


#: a hand with at most this many parts (the product of its rank counts + 1) has its plays
#: found by looking each part up, not by a scan of the combination table
SMALL_PARTS = 512


def small_plays(combos: Any, hand: int, last: Any) -> list[int] | None:
    """The packed plays in *hand* that lead (*last* None) or beat *last*, from its parts
    looked up one by one; None when the hand has more than :data:`SMALL_PARTS` parts."""
    ranks, size = [], 1
    x, r = hand, 0
    while x:
        n = x & 31
        if n:
            ranks.append((r, n))
            size *= n + 1
        x >>= 5
        r += 1
    if size > SMALL_PARTS:
        return None
    parts = [0]
    for r, n in ranks:
        parts = [p + (k << (5 * r)) for p in parts for k in range(n + 1)]
    readings = combos.readings
    out = []
    for p in parts:
        found = readings.get(p)
        if found and (last is None or any_beats(found, last)):
            out.append(p)
    return out


def brute_force(t: Table, side: frozenset[int]) -> bool:
    """The solver's answer by plain minimax (no transposition table, no early stop): for tests."""
    if t.out:
        return t.out[0] in side
    results = [brute_force(child, side) for _, child in Solver(side).children(t)]
    return any(results) if t.turn in side else all(results)


# ---------------------------------------------------------------------------- the evaluator


class _Passes(Visitor):
    """The revealing passes of a walk: (action, seat, the play passed on)."""

    def __init__(self) -> None:
        self.passes: list[tuple[int, int, tuple[Any, ...]]] = []

    def before(self, table: Table, i: int, action: dict[str, Any]) -> None:
        if action["act"] == "pass" and table.phase == "play" and table.last is not None and table.pass_reveals():
            self.passes.append((i, action["seat"], table.last))


def decision_state(record: dict[str, Any], index: int, previous: dict[str, Any] | None = None,
                   rules: Rules | None = None) -> tuple[Table, list[tuple[int, int, tuple[Any, ...]]]]:
    """The table just before action *index* (a play or pass of the play phase, a bid, or
    a Guandan tribute or return),
    and the revealing passes before it: (action, seat, the play passed on). *previous*: the
    previous hand's outcome in its match (Guandan), as for the replay; *rules*: the rules
    to replay under (default: the record's game, variant and params)."""
    actions = record["actions"]
    if not 0 <= index < len(actions):
        raise ValueError(f"action {index}: the hand has {len(actions)} actions")
    seen = _Passes()
    table = None
    if rules is not None:
        table = find_game(rules.game).engine(rules, record)
        if previous is not None:
            table.previous = previous
    r = walk(record, seen, previous=previous, upto=index, table=table)
    v = r.violation
    if v is not None:
        raise ValueError(f"{v.code} at action {v.action}: {v.message}")
    table, passes = r.table, seen.passes
    assert table is not None  # (no violation: the table was set up)
    a = actions[index]
    if table.phase == "tribute" and a.get("act") == "play" and hasattr(table, "start_play"):
        # Guandan takes its first lead in the tribute phase, which that play ends (as the
        # simulation driver does before it): end it here, for the lead to be the decision
        v = table.start_play(index, a.get("seat"))
        if v is not None:
            raise ValueError(f"{v.code} at action {v.action}: {v.message}")
    handing = a.get("act") in HANDING and table.phase == "tribute" and hasattr(table, "handing_options")
    if handing or a.get("act") in BIDS and table.phase == "bidding" and not table.over:
        v = clone(table).step(index, a)  # (a bid's turn is the engine's to check: before the first, none is set)
        if v is not None:
            raise ValueError(f"{v.code} at action {index}: {v.message}")
        return table, passes
    if table.over or table.phase != "play" or a.get("act") not in ("play", "pass") or a.get("seat") != table.turn:
        raise ValueError(f"action {index} is no play, pass, bid, tribute or return of the seat to act "
                         f"({a.get('act')!r} in the {table.phase} phase)")
    return table, passes


def chosen_option(table: Table, action: dict[str, Any]) -> list[int] | None:
    """The card ids the recorded action played (None: a pass)."""
    return None if action["act"] == "pass" else [CARD_OF[t] for t in action["cards"]]


def same_play(table: Table, a: list[int] | None, b: list[int] | None) -> bool:
    """Whether two plays are one option: the same ranks where suits do not matter (a
    plain lookup), else the same cards."""
    if a is None or b is None:
        return a is b
    if table.plain_lookup:
        return sum(map(RANK_BIT.__getitem__, a)) == sum(map(RANK_BIT.__getitem__, b))
    return sorted(a) == sorted(b)


def decision_options(table: Table, index: int, recorded: dict[str, Any]) -> tuple[list[dict[str, Any]], list[Option]]:
    """The options of the decision at *index* (its *recorded* action), each as the action
    that makes it and as an :class:`Option`: every legal play and the pass, a bid's yes
    and no, or each card a tribute or return may hand over (to the recorded receiver)."""
    seat = recorded["seat"]
    if recorded["act"] in HANDING:
        act, to = recorded["act"], recorded.get("to")
        names = [CARD_NAMES[c] for c in table.handing_options(seat, act)]  # type: ignore[attr-defined]
        return ([{"seat": seat, "act": act, "card": c, "to": to} for c in names],
                [Option([c], act, c == recorded.get("card")) for c in names])
    if recorded["act"] in BIDS:
        act, field_ = recorded["act"], BIDS[recorded["act"]]
        return ([{"seat": seat, "act": act, field_: yes} for yes in (True, False)],
                [Option(None, f"{act} {'yes' if yes else 'no'}", recorded.get(field_) == yes) for yes in (True, False)])
    firsts, options = [], []
    chosen = chosen_option(table, recorded)
    # the recorded action itself for its option: the suits the seat chose, what its wild cards stood for
    as_played = {k: v for k, v in recorded.items() if k in ("seat", "act", "cards", "as", "declared")}
    for cards, kind in options_of(table):
        mine = same_play(table, cards, chosen)
        if mine:
            cards = chosen  # the cards the seat played (of the suits it chose)
        firsts.append(as_played if mine else action_of(seat, cards))
        options.append(Option(None if cards is None else [CARD_NAMES[c] for c in cards], kind, mine))
    if chosen is not None and not any(o.chosen for o in options):
        # a legal play the move generator gives otherwise (wild cards standing for other ranks)
        v, _, _, readings = clone(table).verify_play(index, seat, recorded["cards"], recorded.get("as"))
        if v is not None:
            raise ValueError(f"{v.code} at action {index}: {v.message}")
        firsts.append(as_played)
        options.append(Option([CARD_NAMES[c] for c in chosen], readings[0].kind, True))
    return firsts, options


def shortlist(table: Table, options: Sequence[Option], most: int) -> list[int]:
    """The indexes (in order) of at most *most* options to value when a decision has more
    (``evaluate(max_options=…)``), by a fixed rule that reads only the seat's own cards:
    the chosen option; the plays that empty the hand; the pass; then the plays whose rest
    of the hand needs the fewest plays by the default bot's plan (``planner.cost_of``),
    the lower plays first among equals (by their highest card, then the sum of their cards)."""
    from .sim.planner import Shapes, cost_of

    seat = table.turn
    first = [k for k, o in enumerate(options) if o.chosen]
    first += [k for k, o in enumerate(options) if o.cards is not None and len(o.cards) == table.left[seat]]
    first += [k for k, o in enumerate(options) if o.cards is None]
    shapes = Shapes.of(table.combos)
    hand = table.packed[seat]

    def rank(k: int) -> tuple[int, int, int]:
        cards = [CARD_OF[c] for c in options[k].cards or ()]
        power = [table.strength(c) for c in cards]
        return cost_of(hand - sum(map(RANK_BIT.__getitem__, cards)), shapes), max(power), sum(power)

    rest = sorted((k for k, o in enumerate(options) if o.cards is not None and k not in first), key=rank)
    kept: list[int] = []
    for k in first + rest:
        if k not in kept and len(kept) < most:
            kept.append(k)
    return sorted(kept)


def side_of(table: Table, seat: int) -> frozenset[int]:
    """The seat with its partners (in Dou Dizhu known once the bidding names the landlord)."""
    return frozenset({seat}) | table.partners(seat)


def bidding_of(table: Table) -> Callable[..., None]:
    """The game's bidding played out by bots (the simulation driver's ``bid_out``)."""
    from .sim import driver

    found: Callable[..., None] | None = getattr(driver(table.rules.game), "bid_out", None)
    if found is None:
        raise ValueError(f"{table.rules.game} has no bidding to evaluate")
    return found


def redeal_win_of(table: Table) -> float:
    """What a redeal (every seat declined to bid) counts as a win for a bid's value: the
    simulation driver's ``REDEAL_WIN``, the chance of a seat not knowing its role yet to be
    on the winning side of the hand dealt again (no win, where the driver says nothing).
    The value is the default bot's, whatever ``evaluate(bot=…)`` plays the deals out with."""
    from .sim import driver

    try:
        module = driver(table.rules.game)
    except ValueError:  # (a game without simulation: no redeal value known)
        return 0.0
    return float(getattr(module, "REDEAL_WIN", 0.0))


def stepper(table: Table, line: list[dict[str, Any]]) -> Callable[..., None]:
    """``act(action, options)`` as the simulation drivers call it: the action appended to
    *line* and taken by *table*."""
    step = Walk(table)

    def act(action: dict[str, Any], options: int = 1) -> None:
        line.append(action)
        v = step(len(line) - 1, action)
        if v is not None:
            raise RuntimeError(f"a playout broke a rule: {v}")
    return act


def dealt(table: Table, know: Knowledge, rng: random.Random, index: int, firsts: list[dict[str, Any]],
          fits: Callable[[Table], bool] | None = None) -> tuple[Table, list[Table], bool]:
    """A deal of the hidden cards (*know*) on a copy of *table*, and a copy of it after
    each option (*firsts*); whether the pass constraints were relaxed. A deal in which an
    option breaks a rule (a tribute while the givers hold both big jokers, which resist
    instead), or that *fits* refuses (given the table after the first option), is drawn
    again, :data:`MAX_TRIES` times at most."""
    for _ in range(MAX_TRIES):
        hands, loose = know.deal(rng, table)
        world = clone(table)
        for s, cards in hands.items():
            if s == BOTTOM:
                world.spec = dataclasses.replace(world.spec, bottom=[CARD_NAMES[c] for c in cards])
            else:
                set_hand(world, s, cards)
        after = []
        for first in firsts:
            t = clone(world)
            if t.step(index, first) is not None:
                break
            after.append(t)
        else:
            if fits is None or fits(after[0]):
                return world, after, loose
    raise ValueError(f"action {index}: no deal of the hidden cards lets every option be played")


def tribute_fits(actions: list[dict[str, Any]], index: int) -> Callable[[Table], bool]:
    """Whether the rest of the tribute after action *index* can be played on a table as
    the record plays it: after 双下 the other giver's tribute (the bots' card, its highest)
    goes where the record says only when it is no larger than the first one's, when the
    first went to the first place (or larger, when not); and the givers, whom the previous
    hand names, did not hold both big jokers together (they would have resisted, 抗贡).
    What the seats learn as soon as the tribute is paid; the deals of every tribute and
    return are held to it (a return's deal that broke it could not be played out)."""
    def fits(t: Table) -> bool:
        try:
            finish_tribute(clone(t), actions, index, actions[:index + 1])
        except RuntimeError:
            return False
        return True
    return fits


def finish_tribute(t: Table, actions: list[dict[str, Any]], index: int, line: list[dict[str, Any]]) -> None:
    """The rest of the tribute phase after action *index* on *t*: each later tribute or
    return of the record, by the same seat to the same seat, with the card the simulator's
    bots hand over (the game's simulation driver: ``tribute_card``, ``return_card``); then
    the play begins (led as the engine says)."""
    from .sim import driver

    bots = driver(t.rules.game)
    act = stepper(t, line)
    leader = t.turn
    for a in actions[index + 1:]:
        if a.get("act") in HANDING:
            card = (bots.tribute_card if a["act"] == "tribute" else bots.return_card)(t, a["seat"])
            act({"seat": a["seat"], "act": a["act"], "card": CARD_NAMES[card], "to": a["to"]})
        elif a.get("act") in ("play", "pass"):
            leader = a["seat"]
            break
    v = t.start_play(len(line), leader if leader >= 0 else 0)  # type: ignore[attr-defined]
    if v is not None:
        raise RuntimeError(f"a playout broke a rule: {v}")


def evaluate(record: dict[str, Any], index: int, *, samples: int = 64, budget_ms: float | None = 50.0,
             seed: int = 0, bot: str | Any = "fast", exact_cards: int = EXACT_CARDS,
             previous: dict[str, Any] | None = None, rules: Rules | None = None,
             max_options: int | None = MAX_OPTIONS, only: Collection[str] | None = None,
             clock: Callable[[], float] = time.perf_counter, reveal: Collection[int] = ()) -> Evaluation:
    """The options of the decision at action *index* of *record*, valued for the side of
    the seat to act (see the module's text and docs/review.md).

    *samples*: deals of the hidden cards at most; *budget_ms*: stop sampling before a deal
    that would end past this much time, judged by the mean deal so far (two deals at
    least; None: exactly *samples*, which makes the result a function of the seed); *bot*: a name of ``paipu simulate --bot`` or a policy;
    *exact_cards*: solve a deal exactly when at most this many cards are left in all hands;
    *previous*: the previous hand's outcome in its match (Guandan), as for the replay;
    *rules*: the rules to replay under (default: the record's game, variant and params);
    *max_options*: value at most this many options, those :func:`shortlist` keeps (the
    others are left out of the evaluation and counted in ``dropped``; None: every option;
    the default :data:`MAX_OPTIONS` bounds the time of a lead with hundreds of plays);
    *only*: value only the chosen option and those whose ``Option.label()`` is in it (the
    others counted in ``dropped``: the search bot's second look at two options);
    *clock*: the seconds the budget counts (``time.process_time``: the process's CPU
    time, the same figures on a loaded machine as on an idle one);
    *reveal*: seats whose hands the deciding seat is given as well (their cards are not
    dealt at random: the value with a partner's hand known, for a card-sharing screen; no
    command uses it yet).

    :raises ValueError: when the action is no play, pass or bid, or the hand breaks a rule before it.
    """
    from .sim.bots import BOTS

    start = clock()
    deadline = None if budget_ms is None else start + budget_ms / 1000
    policy = BOTS[bot] if isinstance(bot, str) else bot
    table, passes = decision_state(record, index, previous, rules)
    recorded = record["actions"][index]
    seat = recorded["seat"]
    know = knowledge(table, record, index, passes, reveal)
    hints = hints_of(table)
    firsts, options = decision_options(table, index, recorded)
    dropped = 0
    if max_options is not None and len(options) > max_options:
        kept = shortlist(table, options, max_options)
        dropped = len(options) - len(kept)
        firsts, options = [firsts[k] for k in kept], [options[k] for k in kept]
    if only is not None:
        kept = [k for k, o in enumerate(options) if o.chosen or o.label() in only]
        dropped += len(options) - len(kept)
        firsts, options = [firsts[k] for k in kept], [options[k] for k in kept]
    bidding = recorded["act"] in BIDS
    handing = recorded["act"] in HANDING
    # (every tribute and return: on deals in which the rest of the tribute goes as the
    # record has it; after 双下 also that the givers did not hold both big jokers together)
    fits = tribute_fits(record["actions"], index) if handing else None
    bid_out = bidding_of(table) if bidding else None
    # (a redeal's win: the seat's chance in the hand dealt again, as the game's driver says)
    redeal_win = redeal_win_of(table) if bidding else 0.0
    prefix = record["actions"][:index]
    done = solved = relaxed = 0
    began = clock()  # (the deals' own time, without the set-up)
    for k in range(samples):
        if deadline is not None and done >= 2:
            now = clock()
            if now + (now - began) / done > deadline:
                break  # the next deal, as long as the mean one so far, would end past the budget
        world, after, loose = dealt(table, know, random.Random(f"{seed}:{k}"), index, firsts, fits)
        relaxed += loose
        # (once a seat is out the winning side is known: the bots play on for the points)
        exact = not bidding and not table.out and sum(world.left) <= exact_cards
        solver = Solver(side_of(table, seat), deadline=deadline, clock=clock) if exact else None
        if solver is not None and any(solver.wins(t) is None for t in after):
            solver = None  # too big after all: the bots play every option of this deal
        for option, first, t in zip(options, firsts, after):
            rng = random.Random(f"{seed}:{k}:play")  # the same random numbers for every option
            line = prefix + [first]
            if handing:
                finish_tribute(t, record["actions"], index, line)
            if bid_out is not None:
                # (after a bid the first bidder is known: the record's leader is not asked for)
                bid_out(t, rng, stepper(t, line), [policy] * t.n, t.spec.leader if t.spec.leader is not None else seat)
            play_out(t, rng, policy, hints, line, None if solver is None else solver.keeping)
            outcome = t.outcome()
            option.wins.append(redeal_win if outcome.get("redeal") else float(side_wins(t, side_of(t, seat))))
            option.points.append(float(outcome["scores"][seat]))
            if "coins" in outcome:
                option.coins.append(float(outcome["coins"][seat]))
        exact = solver is not None
        solved += exact
        done += 1
    side = () if bidding else tuple(sorted(side_of(table, seat)))  # (a bid's side is known after the bidding)
    return Evaluation(record.get("id"), index, seat, side, options, done, solved, relaxed,
                      (clock() - start) * 1000, seed, bot if isinstance(bot, str) else type(bot).__name__,
                      know.repaired, dropped)
