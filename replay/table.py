"""The per-hand state machine and the trick loop shared by every game.

A game subclasses :class:`Table` and overrides only its hooks: the phases before play
(``do_other``: bidding, tribute), the opening rule, extra checks on a play or a pass
(must-play, let-go), who leads after a seat goes out (接风), when the hand is over and the
settlement.  Rule violations are returned as :class:`Violation` values, never raised.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from .cards import CARD_NAMES, CARD_OF, GUARD, RANK, RANK_BIT, contains
from .combos import JOKERS, NORMAL, ONES, Combo, ComboIndex, any_beats, beats, strongest
from .kernel import Dispatch, compiled, set_dispatch
from .game import Game
from .rules import Rules, per_rules
from .verdicts import Code, Event, Violation
from .words import key_name, words_of

#: the card counts of a seat before the deal (read-only: the deal check replaces them)
NO_CARDS = bytearray(54)
#: four cards of every rank, packed (held_bombs)
FOUR_EACH = 4 * ONES
#: the card ids of each rank index, lowest suit first
RANK_CARDS = [list(range(4 * r, 4 * r + 4)) for r in range(13)] + [[52], [53]]


@dataclass(slots=True)
class HandSetup:
    """The setup fields of a hand record, read once: the engine never reads the record.
    Read-only by convention (not frozen: a frozen dataclass costs a microsecond more to
    build, and one is built for every hand).

    >>> HandSetup.of({"id": "h1", "players": ["a", "b", "c"], "deal": [[], [], []], "leader": 2}).leader
    2
    """

    id: str | None
    players: list[str]
    deal: list[list[str]]
    bottom: list[str] | None = None
    #: who leads (or bids) first, when the record says
    leader: int | None = None
    #: the card whose holder leads (Shuangkou)
    lead_card: str | None = None
    room: dict[str, Any] = field(default_factory=dict)
    stacks: list[float] | None = None
    #: the match this hand belongs to ({"id", "hand"}), and the levels (Guandan)
    match: dict[str, Any] | None = None
    level: str | None = None
    levels: list[str] | None = None

    @classmethod
    def of(cls, record: dict[str, Any]) -> HandSetup:
        return HAND_SETUP(cls, record) if type(record) is dict else _hand_setup(cls, record)


def _hand_setup(cls: type[HandSetup], record: dict[str, Any]) -> HandSetup:
    """:meth:`HandSetup.of` (the reference of the compiled kernel's ``hand_setup``): each
    field the record's value, None where it has none, players and deal [] where theirs is
    false, room {} where it is no dict."""
    get = record.get
    room = get("room")
    return cls(get("id"), get("players") or [], get("deal") or [], get("bottom"), get("leader"), get("lead_card"),
               room if isinstance(room, dict) else {}, get("stacks"), get("match"), get("level"), get("levels"))


#: the event kinds that are bombs (of any game); a rocket is counted apart as well
BOMB_EVENTS = frozenset({"bomb", "rocket", "straight_flush", "joker_bomb", "bomb_chain", "three_joker_bomb",
                         "four_joker_bomb"})


class PlayState:
    """The state of a hand the play loop reads and writes: the base of :class:`Table`.

    This is the pure-Python reference. Where the optional compiled kernel is built
    (``replay/_kernel.pyx``, see :mod:`replay.kernel`), Table is based on the kernel's
    PlayState instead, which keeps the same attributes in C fields so that its play loop
    reads them without a dict lookup; Python code sees no difference. The defaults are
    class attributes (a lighter table object to build for each hand); an instance sets
    its own value on change."""

    phase = "play"
    turn = -1
    last: tuple[Combo, ...] | None = None
    last_seat = -1
    passes = 0
    first_play_done = False
    over = False
    tricks = 0
    #: with detail: (action, seat, combo, led, multiplier after it or None)
    #: (an empty tuple by default: a table without detail never appends, and must not share a list)
    plays: list[tuple[int, int, Combo, bool, int | None]] = ()  # type: ignore[assignment]
    # set by begin() (n .. detail) and Table.__init__ (combos)
    n: int
    combos: ComboIndex
    hands: list[bytearray]
    packed: list[int]
    left: list[int]
    active: list[bool]
    out: list[int]
    plays_by: list[int]
    cards_played: list[int]
    events: list[Event]
    detail: bool

    def begin(self, n: int, detail: bool) -> None:
        """The state of a hand of *n* seats before the deal: no cards, every seat in play
        (*detail*: the plays are kept). The kernel's PlayState does the same in C."""
        self.n = n
        self.hands = [NO_CARDS] * n  # the deal check gives each seat its own counts
        self.packed = zeros = [0] * n  # (copies of one list: cheaper than a [0] * n each)
        self.left = zeros.copy()
        self.active = [True] * n
        self.out = []
        self.plays_by = zeros.copy()
        self.cards_played = zeros.copy()
        self.events = []
        self.detail = detail
        if detail:
            self.plays = []


def _checked_deal(deal: list[list[str]], bottom: list[str] | None, sizes: list[int], bottom_size: int, deck: bytes,
                  ) -> tuple[list[bytearray], list[int], list[int]] | None:
    """:meth:`Table.check_deal` for a deal that is right, in one call (the reference of the
    compiled kernel's ``checked_deal``): (each seat's card counts as a bytearray, each
    seat's packed rank counts, each seat's number of cards: a copy of *sizes*) when *deal*
    is a list of lists of tokens in the sizes *sizes*, *bottom* None or a list of
    *bottom_size* tokens (None counts as empty), and all of them together are the deck
    (*deck*: its count of each card id, a byte each); None for anything else, whose verdict
    the caller then finds. One sum of weights (:data:`CARD_WEIGHT`) per seat."""
    if type(deal) is not list or len(deal) != len(sizes) or len(deck) != 54:
        return None
    if bottom is None:
        if bottom_size:
            return None
    elif type(bottom) is not list or len(bottom) != bottom_size:
        return None
    weight = CARD_WEIGHT.__getitem__
    sums = []
    try:
        for hand, size in zip(deal, sizes):
            if type(hand) is not list or len(hand) != size:
                return None
            sums.append(sum(map(weight, hand)))
        total = sum(sums) + (sum(map(weight, bottom)) if bottom else 0)
    except (KeyError, TypeError):
        return None
    if (total >> COUNTS_AT).to_bytes(54, "little") != deck:
        return None
    return [bytearray((x >> COUNTS_AT).to_bytes(54, "little")) for x in sums], [x & PACKED_MASK for x in sums], sizes[:]


def _results_agree(declared: dict[str, Any], replayed: dict[str, Any], python_same: Callable[[Any, Any], bool]) -> bool:
    """:func:`compare_result`'s loop (the reference of the compiled kernel's
    ``results_agree``): True when both are dicts and every declared field the replay has
    holds the same value (*python_same*); False at the first that differs, or for anything
    but two dicts (the caller's loop then names it)."""
    if type(declared) is not dict or type(replayed) is not dict:
        return False
    for key, value in declared.items():
        if key in replayed and not python_same(value, replayed[key]):
            return False
    return True


#: the compiled kernel's seam (replay/_kernel.pyx), the one place this module chooses: the
#: kernel's state (its PlayState keeps the same attributes in C fields, which its play loop
#: reads without a dict lookup), setup reading, right-deal check and result loop where it is
#: built, else the pure-Python references above (the same values: tests/test_kernel.py)
if TYPE_CHECKING or compiled is None:
    Base = PlayState
    HAND_SETUP, CHECKED_DEAL, RESULTS_AGREE = _hand_setup, _checked_deal, _results_agree
else:
    Base = compiled.PlayState
    HAND_SETUP, CHECKED_DEAL, RESULTS_AGREE = compiled.hand_setup, compiled.checked_deal, compiled.results_agree


class Table(Base, Dispatch):
    """One hand being replayed."""

    #: the game's combination table for its rules, built once per rules object
    _tables: ClassVar[dict[Rules, ComboIndex]] = {}
    #: True when a play's readings depend on its rank counts alone (no wild cards, no suits)
    plain_lookup: ClassVar[bool] = True
    #: True when the hand ends as soon as one seat is out (the last trick counts then)
    ends_on_first_out: ClassVar[bool] = True
    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        set_dispatch(cls, Table)  # the kernel's flags: what the game overrides (replay/kernel.py)

    # the state every hand starts from, besides PlayState's (class attributes)
    end_reason: str | None = None
    #: the seat that escaped (a game that allows it)
    escaper: int | None = None
    #: the outcome of the previous hand of the match, when known (Guandan)
    previous: dict[str, Any] | None = None

    def __init__(self, rules: Rules, setup: HandSetup | dict[str, Any], detail: bool = False):
        self.rules = rules
        #: the hand's setup fields (a record dict is read into one once)
        self.spec = setup if isinstance(setup, HandSetup) else HandSetup.of(setup)
        self.begin(rules.players, detail)
        self.combos = self.table_for(rules)

    # ----------------------------------------------------------------- the combination table

    @classmethod
    def combo_table(cls, rules: Rules) -> ComboIndex:
        table = cls._tables.get(rules)
        if table is None:
            table = cls._tables[rules] = ComboIndex(cls.iter_combos(rules))
        return table

    def table_for(self, rules: Rules) -> ComboIndex:
        """The combination table this hand uses (hook: Guandan's depends on the level)."""
        try:
            return rules._kept_combo_table  # type: ignore[attr-defined, no-any-return]  # (per_rules' value)
        except AttributeError:
            return per_rules(rules, "combo_table", self.combo_table, rules)

    @classmethod
    def iter_combos(cls, rules: Rules) -> Iterator[tuple[int, Combo]]:
        """Every legal combination as (packed counts, Combo): the game defines it."""
        raise NotImplementedError

    def classify(self, ids: Sequence[int], packed: int, declared: list[str] | None) -> tuple[Combo, ...]:
        """Readings of a play (hook for wild cards and suits); empty if none."""
        if declared is not None and sorted(CARD_OF.get(t, -1) for t in declared) != sorted(ids):
            return ()
        return self.combos.classify(packed)

    # ----------------------------------------------------------------- dealing

    def give(self, seat: int, ids: Sequence[int]) -> None:
        hand = self.hands[seat]
        for c in ids:
            hand[c] += 1
        self.packed[seat] += sum(map(RANK_BIT.__getitem__, ids))
        self.left[seat] += len(ids)

    def check_deal(self, deal: list[list[str]], bottom: list[str] | None = None) -> Violation | None:
        """The deal (and bottom) must be exactly the deck, in the variant's sizes: one
        comparison of the dealt cards' weights (:data:`CARD_WEIGHT`) summed with the deck's.
        Each seat's sum gives its card counts and packed rank counts at once. A right deal
        is checked and counted in one call (``CHECKED_DEAL``: sizes, tokens, the deck's
        counts; the compiled kernel's where it is built); any other goes the way below for
        its verdict."""
        rules = self.rules
        try:
            kit: DealKit = rules._kept_deal  # type: ignore[attr-defined]  # (per_rules' value)
        except AttributeError:
            kit = per_rules(rules, "deal", DealKit.of, rules)
        sizes, deck, counts = kit
        dealt = CHECKED_DEAL(deal, bottom, sizes, rules.bottom, counts)
        if dealt is not None:  # a right deal in one call; anything else is checked below
            self.hands, self.packed, self.left = dealt
            return None
        if len(deal) != rules.players:
            return Violation(Code.BAD_DEAL, None, f"{len(deal)} seats dealt; {rules.game}/{rules.variant} has {rules.players}")
        if list(map(len, deal)) != sizes:
            seat = next(s for s, hand in enumerate(deal) if len(hand) != sizes[s])
            return Violation(Code.BAD_DEAL, None, f"seat {seat} was dealt {len(deal[seat])} cards, expected {sizes[seat]}")
        if (len(bottom) if bottom is not None else 0) != rules.bottom:
            return Violation(Code.BAD_DEAL, None, f"{len(bottom or [])} bottom cards, expected {rules.bottom}")
        weight = CARD_WEIGHT.__getitem__  # one sum of weights per seat
        try:
            sums = [sum(map(weight, hand)) for hand in deal]
            total = sum(sums) + (sum(map(weight, bottom)) if bottom else 0)
        except (KeyError, TypeError):
            return self.bad_token(deal, bottom)
        if total != deck:
            return self.deal_differs([CARD_OF[t] for hand in list(deal) + [bottom or []] for t in hand])
        self.hands = [bytearray((x >> COUNTS_AT).to_bytes(54, "little")) for x in sums]
        self.packed = [x & PACKED_MASK for x in sums]
        self.left = list(sizes)
        return None

    @staticmethod
    def bad_token(deal: list[list[str]], bottom: list[str] | None) -> Violation:
        bad = next(t for hand in list(deal) + [bottom or []] for t in hand if not isinstance(t, str) or t not in CARD_OF)
        return Violation(Code.BAD_CARD, None, f"not a card in the deal: {bad!r}")

    def deal_differs(self, dealt: list[int]) -> Violation:
        """The ``bad_deal`` verdict naming the cards dealt too often and those missing."""
        deck = self.rules.deck
        have, want = [0] * 54, [0] * 54
        for c in dealt:
            have[c] += 1
        for c in deck:
            want[c] += 1
        extra = [CARD_NAMES[c] for c in range(54) if have[c] > want[c]]
        missing = [CARD_NAMES[c] for c in range(54) if have[c] < want[c]]
        parts = []
        if extra:
            parts.append("too many " + " ".join(extra))
        if missing:
            parts.append("missing " + " ".join(missing))
        return Violation(Code.BAD_DEAL, None, f"the deal is not the {len(deck)}-card deck: " + "; ".join(parts))

    # ----------------------------------------------------------------- the run

    def setup(self) -> Violation | None:
        """Deal and set the first phase and turn (the game's hook)."""
        raise NotImplementedError

    def step(self, i: int, action: dict[str, Any]) -> Violation | None:
        act = action["act"]
        if act == "play":
            return self.do_play(i, action)
        if act == "pass":
            return self.do_pass(i, action)
        if act == "escape":
            return self.do_escape(i, action["seat"])
        return self.do_other(i, action)

    def do_other(self, i: int, action: dict[str, Any]) -> Violation | None:
        """Acts other than play, pass and escape (the game's hook)."""
        return Violation(Code.OUT_OF_TURN, i, f"{action['act']!r} is not an act of {self.rules.game}", action["seat"])

    def wrong_turn(self, i: int, seat: int, what: str) -> Violation:
        if self.phase != "play":
            return Violation(Code.OUT_OF_TURN, i, f"seat {seat} tried to {what} during {self.phase}", seat)
        return Violation(Code.OUT_OF_TURN, i, f"seat {seat} tried to {what}, but it is seat {self.turn}'s turn", seat)

    def verify_play(self, i: int, seat: int, tokens: list[str], declared: list[str] | None = None,
                    ) -> tuple[Violation | None, list[int], int, tuple[Combo, ...]]:
        """Check a play without making it: (violation or None, card ids, packed, readings)."""
        v, ids, packed, readings = self._take(i, seat, tokens, declared)
        if v is None:
            hand = self.hands[seat]
            for c in ids:
                hand[c] += 1
        return v, ids, packed, readings

    def _take(self, i: int, seat: int, tokens: list[str], declared: list[str] | None,
              named: list[str] | None = None) -> tuple[Violation | None, list[int], int, tuple[Combo, ...]]:
        """Every check of a play; on success its cards are out of the seat's card counts.

        *declared* is the action's ``as`` (what the cards stand for), *named* its
        ``declared`` combination ``[kind, key]``: only that reading counts."""
        if self.phase != "play" or seat != self.turn:
            if self.phase == "play" and not self.first_play_done:
                return Violation(Code.FIRST_PLAY, i, f"the first play belongs to seat {self.turn} ({self.opening_rule()}), not seat {seat}", seat), [], 0, ()
            return self.wrong_turn(i, seat, "play"), [], 0, ()
        try:
            ids = [CARD_OF[t] for t in tokens]
        except (KeyError, TypeError):
            bad = next(t for t in tokens if not isinstance(t, str) or t not in CARD_OF)
            return Violation(Code.BAD_CARD, i, f"not a card: {bad!r}", seat), [], 0, ()
        if declared is not None:
            for token in declared:
                if token not in CARD_OF:
                    return Violation(Code.BAD_CARD, i, f"not a card in 'as': {token!r}", seat), [], 0, ()
        hand = self.hands[seat]
        packed = taken = 0
        v: Violation | None = None
        for c in ids:
            if not hand[c]:
                v = Violation(Code.NOT_IN_HAND, i, f"seat {seat} does not hold {CARD_NAMES[c]}", seat)
                break
            hand[c] -= 1
            taken += 1
            packed += RANK_BIT[c]
        readings: tuple[Combo, ...] = ()
        if v is None:
            if declared is None and self.plain_lookup:
                readings = self.combos.readings.get(packed, ())
            else:
                readings = self.classify(ids, packed, declared)
            if named is not None:
                readings = tuple(c for c in readings if c.kind == named[0] and key_name(self, c) == named[1])
            last = self.last
            if not readings and named is not None:
                v = Violation(Code.INVALID_COMBO, i, f"{' '.join(tokens)} cannot be the declared {named[0]} {named[1]} "
                              f"in {self.rules.game}/{self.rules.variant}", seat)
            elif not readings:
                v = Violation(Code.INVALID_COMBO, i, f"{' '.join(tokens)} is no combination of {self.rules.game}/{self.rules.variant}", seat)
            elif last is not None and not (
                beats(readings[0], last[0]) if len(readings) == 1 and len(last) == 1 else any_beats(readings, last)
            ):
                describe = words_of(self.rules).describe
                v = Violation(Code.DOES_NOT_BEAT, i, f"{' '.join(tokens)} ({describe(self, readings)}) does not beat {describe(self, last)}", seat)
            elif self.has_play_rules:
                v = self.check_play(i, seat, ids, readings)
        if v is not None:
            for c in ids[:taken]:
                hand[c] += 1
        return v, ids, packed, readings

    def _take_fast(self, i: int, seat: int, action: dict[str, Any]) -> tuple[list[int], int, tuple[Combo, ...]] | None:
        """:meth:`_take` for the common case (a legal play, no wild cards, no declared
        reading) without building messages: (card ids, packed, readings), the cards out of
        the seat's card counts; None leaves everything as it was and sends the play to
        :meth:`_take`, which names what is wrong."""
        if seat != self.turn or self.phase != "play" or "as" in action or "declared" in action:
            return None
        try:
            ids = list(map(CARD_OF.__getitem__, action["cards"]))
        except (KeyError, TypeError):
            return None
        hand = self.hands[seat]
        for k, c in enumerate(ids):
            if not hand[c]:
                for c in ids[:k]:
                    hand[c] += 1
                return None
            hand[c] -= 1
        packed = sum(map(RANK_BIT.__getitem__, ids))
        readings = self.combos.readings.get(packed)
        if readings is not None:
            ok: bool | int = True
            last = self.last
            if last is not None:
                if len(readings) == 1 and len(last) == 1:
                    a, b = readings[0], last[0]
                    ok = a[3] > b[3] if a[3] != b[3] else a[2] > b[2] and (a[3] or a[0] == b[0] and a[1] == b[1])
                else:
                    ok = any_beats(readings, last)
            if ok and self.has_play_rules:
                ok = self.check_play(i, seat, ids, readings) is None
            if ok:
                return ids, packed, readings
        for c in ids:
            hand[c] += 1
        return None

    def do_play(self, i: int, action: dict[str, Any]) -> Violation | None:
        seat = action["seat"]
        taken = self._take_fast(i, seat, action) if self.plain_lookup else None
        if taken is None:
            v, ids, packed, readings = self._take(i, seat, action["cards"], action.get("as"), action.get("declared"))
            if v is not None:
                return v
        else:
            ids, packed, readings = taken
        led = self.last is None
        n = len(ids)
        self.packed[seat] -= packed
        left = self.left
        left[seat] -= n
        self.plays_by[seat] += 1
        self.cards_played[seat] += n
        self.first_play_done = True
        # a lead counts as its strongest reading of each kind
        self.last = readings if len(readings) == 1 else strongest(readings)
        self.last_seat = seat
        self.passes = 0
        self.on_play(i, seat, ids, readings, led)
        if left[seat] == 0:
            self.tricks += 1 if self.ends_on_first_out else 0
            self.active[seat] = False
            self.out.append(seat)
            self.events.append(Event("out", i, seat, {"place": len(self.out)}))
            self.on_out(i, seat)
            if self.over:
                return None
        nxt = seat + 1 if seat + 1 < self.n else 0
        self.turn = nxt if self.active[nxt] else self.next_active(seat)
        return None

    def do_pass(self, i: int, action: dict[str, Any]) -> Violation | None:
        seat = action["seat"]
        if seat != self.turn or self.phase != "play":
            return self.wrong_turn(i, seat, "pass")
        if self.last is None:
            return Violation(Code.CANNOT_PASS, i, f"seat {seat} leads this trick and may not pass", seat)
        if self.has_pass_rules:
            v = self.check_pass(i, seat)
            if v is not None:
                return v
        self.passes += 1
        active = self.active
        nxt = seat + 1 if seat + 1 < self.n else 0
        if not active[nxt]:
            nxt = self.next_active(seat)
        last_seat = self.last_seat
        if nxt == last_seat:
            self.tricks += 1
            self.on_trick_won(i, last_seat)
            self.last = None  # everyone else passed: the last player leads
        elif not active[last_seat] and self.passes >= sum(active):
            self.tricks += 1
            self.on_trick_won(i, last_seat)
            self.last = None
            nxt = self.leader_after_out(last_seat)
        self.turn = nxt
        return None

    def do_escape(self, i: int, seat: int) -> Violation | None:
        self.over = True
        self.end_reason = "escape"
        self.escaper = seat
        self.events.append(Event("escape", i, seat))
        return None

    def next_active(self, seat: int) -> int:
        n = self.n
        s = (seat + 1) % n
        while not self.active[s] and s != seat:
            s = (s + 1) % n
        return s

    # ----------------------------------------------------------------- hooks with defaults

    def opening_rule(self) -> str:
        return "the opening rule"

    def check_play(self, i: int, seat: int, ids: list[int], readings: tuple[Combo, ...]) -> Violation | None:
        return None

    def check_pass(self, i: int, seat: int) -> Violation | None:
        return None

    def on_play(self, i: int, seat: int, ids: list[int], readings: tuple[Combo, ...], led: bool) -> None:
        self.note_play(i, seat, readings[0], led)

    def note_play(self, i: int, seat: int, combo: Combo, led: bool) -> None:
        """Keep the play for the ``plays`` table (with detail only)."""
        if self.detail:
            self.plays.append((i, seat, combo, led, self.multiplier_now()))

    def multiplier_now(self) -> int | None:
        """The hand's multiplier so far, for games that have one."""
        return None

    def held_bombs(self, seat: int) -> int:
        """Bombs (four of a rank) and the rocket still in the seat's hand."""
        # combos.at_least(hand, 4) and (hand, 1), inline (asked per seat of every hand settled
        # in some games, and of every hand the audit summarises)
        guarded = self.packed[seat] | GUARD
        return ((guarded - FOUR_EACH) & NORMAL).bit_count() + ((guarded - ONES) & JOKERS == JOKERS)

    def on_trick_won(self, i: int, seat: int) -> None:
        """Everyone else passed on *seat*'s play (``self.last``), at action *i*."""

    def on_out(self, i: int, seat: int) -> None:
        """A seat played its last card (default: the hand ends)."""
        self.over = True
        self.end_reason = "out"

    def leader_after_out(self, seat: int) -> int:
        return self.next_active(seat)

    def wild_cards(self) -> frozenset[int]:
        """Card ids that stand for other cards in this hand (the game's hook; default none)."""
        return frozenset()

    def strength(self, card: int) -> int:
        """How high a single card ranks in this hand (for showing a hand in order; the game's hook)."""
        return RANK[card]

    # ----------------------------------------------------------------- legal plays

    def legal_plays(self, seat: int | None = None) -> list[int]:
        """Packed plays the seat to act may make now (empty list: only a pass is legal)."""
        seat = self.turn if seat is None else seat
        hand = self.packed[seat]
        if self.last is None:
            plays = self.combos.all_plays(hand)
        else:
            plays = list(self.combos.iter_beating(hand, self.last))
        return [p for p in plays if self.allows(seat, p)]

    def can_beat(self, seat: int | None = None) -> bool:
        """Could the seat (default: the seat to act) beat the play on the table? True when
        the table is empty and the seat holds cards (any play leads). The games answer by
        direct tests on the packed hand per combination kind (:meth:`beats_exist`), never by
        scanning the combination table: the must-play check and the fraud screens ask this
        at every pass (the decisions pass calls :meth:`beats_exist` directly for a play
        of one reading: a game changes this answer there, not here)."""
        seat = self.turn if seat is None else seat
        last = self.last
        if last is None:
            return self.left[seat] > 0
        if len(last) == 1:
            return self.beats_exist(seat, last[0])
        for combo in last:
            if self.beats_exist(seat, combo):
                return True
        return False

    def beats_exist(self, seat: int, last: Combo) -> bool:
        """True if the seat holds a play that beats *last* (the game's hook; this default
        scans the combination table)."""
        return self.combos.has_beating(self.packed[seat], (last,))

    def allows(self, seat: int, packed: int) -> bool:
        """Extra per-play restrictions at rank level (the game's hook; default none)."""
        return True

    def legal_moves(self, seat: int | None = None) -> list[tuple[list[int], tuple[Combo, ...]]]:
        """The plays the seat may make now as (card ids, readings): what the bots choose
        from. Games whose readings depend on the cards themselves (wild cards) override."""
        seat = self.turn if seat is None else seat
        return [(self.cards_for(seat, p), self.combos.classify(p)) for p in self.legal_plays(seat)]

    # ----------------------------------------------------------------- what a seat knows

    def known_cards(self, viewer: int, played: list[list[tuple[int, int]]]) -> dict[int, list[int]]:
        """Card ids in the other seats' hands now that *viewer* knows from the public
        information (a shown hand, the bottom in the landlord's hand): seat -> cards, the
        game's hook (default: none). *played*: each seat's plays so far as (action, card
        id). The evaluator deals the unseen cards around them."""
        return {}

    def pass_reveals(self) -> bool:
        """True when a pass tells everyone the seat could not beat the play on the table
        (有出必出: passing is legal only then); the game's hook, default False."""
        return False

    def partners(self, seat: int) -> frozenset[int]:
        """The seats playing on *seat*'s side in this hand: the game's fixed partners (games
        whose sides form during the hand, like Dou Dizhu's farmers, override); empty when
        each plays for himself."""
        return frozenset(Game.of(self.rules).partners_of(seat))

    def plays_alone(self) -> bool:
        """Every seat plays for himself all hand: no fixed teams and no sides formed during
        the hand (games whose sides form, like Dou Dizhu's, override)."""
        return not Game.of(self.rules).teams

    def cards_for(self, seat: int, packed: int) -> list[int]:
        """Card ids from the seat's hand that make up the packed play (lowest suit first)."""
        assert contains(self.packed[seat], packed)
        out = []
        hand = self.hands[seat]
        for r in range(15):
            need = (packed >> (5 * r)) & 31
            for c in RANK_CARDS[r]:
                if not need:
                    break
                take = min(hand[c], need)
                out += [c] * take
                need -= take
        return out

    # ----------------------------------------------------------------- results

    def coins_wanted(self) -> bool:
        """Coins are settled when the record's room gives a coefficient (``room.coef``)."""
        return "coef" in self.spec.room

    def outcome(self) -> dict[str, Any]:
        """The replayed outcome (the game's hook): order, scores, ..."""
        return {"order": list(self.out)}

    def canonical_result(self, result: dict[str, Any]) -> dict[str, Any]:
        """The record's declared result in the replay's spellings (hook: Guandan's levels)."""
        return result


#: where a card weight keeps its card count (8 bits a card id, above the packed rank counts)
COUNTS_AT = 80
PACKED_MASK = (1 << COUNTS_AT) - 1
#: card token (every spelling of cards.CARD_OF) -> its weight: 1 << (80 + 8·id) plus its
#: packed rank bit. A sum of weights holds the card counts by id in bytes above bit 80
#: (a deal has fewer than 256 cards: no byte carries into the next) and the packed rank
#: counts below (a deck of at most 108 cards sums to less than 2**77 there), so two deals
#: with equal sums hold the same cards, and a seat's sum is its card counts and its packed
#: counts at once.
CARD_WEIGHT: dict[str, int] = {t: (1 << (COUNTS_AT + 8 * c)) + RANK_BIT[c] for t, c in CARD_OF.items()}


class DealKit(NamedTuple):
    """What the deal check needs of one rules object, computed once (see :func:`per_rules`)."""

    #: cards dealt to each seat
    sizes: list[int]
    #: the deck's total weight (:data:`CARD_WEIGHT`)
    deck: int
    #: the deck's count of each card id, a byte each (what the compiled kernel compares)
    counts: bytes

    @classmethod
    def of(cls, rules: Rules) -> DealKit:
        if len(rules.deck) >= 256:
            raise ValueError("a deck holds fewer than 256 cards")
        return cls(rules.hand_sizes(), sum(CARD_WEIGHT[CARD_NAMES[c]] for c in rules.deck),
                   bytes(rules.deck.count(c) for c in range(54)))


def compare_result(declared: dict[str, Any], replayed: dict[str, Any]) -> Violation | None:
    """``result_mismatch`` for the first declared field that differs from the replay."""
    if RESULTS_AGREE(declared, replayed, _same):
        return None  # (one loop over two dicts, in one call; a difference is named below)
    for key, value in declared.items():
        if key not in replayed:
            continue
        mine = replayed[key]
        if not _same(value, mine):
            return Violation(Code.RESULT_MISMATCH, None, f"result.{key}: the record says {value!r}, the replay gives {mine!r}")
    return None


def _same(a: Any, b: Any) -> bool:
    ta, tb = type(a), type(b)
    if ta is list and tb is list:
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            tx = type(x)
            if not (tx is type(y) and tx is not list and x == y or _same(x, y)):  # (the first: _same's own first case, inline)
                return False
        return True
    if ta is tb and a == b:
        return True
    if ta is bool or tb is bool:
        return False
    if ta in (int, float) and tb in (int, float):
        return bool(abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b)))
    return False
