"""What every game's simulation driver shares: seats (a name, a policy, a clock), the
deal, and the recorder that appends actions with their times and takes each one (a
:class:`~paipu.replay.replayer.Walk` of the hand as it is made).

A *policy* decides (which play, whether to bid); a *clock* says how long a decision
took. Both are per seat, so a population of players with their own habits — and planted
cheaters — can sit at simulated tables without the drivers knowing about them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Protocol, TypedDict

from ..replayer import Walk

#: player names the simulated tables draw from (Chinese and Latin, to exercise both)
NAMES = ("张三", "李四", "王五", "赵六", "钱七", "孙八", "周九", "吴十", "Alice", "Bob", "小红", "老王")

#: a legal move as ``Table.legal_moves`` gives it: (card ids, readings)
Move = tuple[list[int], tuple[Any, ...]]


class Policy(Protocol):
    """How a seat decides. Drivers call only these; ``hints`` are the game's advice to
    the heuristic (partners, must-play, 报单) and ``actions``, the hand's actions so far as
    recorded; the players at the table are ``table.spec.players``."""

    def play(self, table: Any, rng: random.Random, moves: Sequence[Move], hints: dict[str, Any]) -> list[int] | None:
        """The cards to play from *moves* (the legal plays of ``table.turn``, a sequence made
        on first use: :class:`LegalMoves`), or None to pass."""
        ...

    def bid(self, table: Any, rng: random.Random, seat: int, power: float, stage: str) -> bool:
        """Dou Dizhu: call (stage "call") or grab (stage "grab") the landlord."""
        ...


class Clock(Protocol):
    """How long a seat thinks, in milliseconds, before an action."""

    def think(self, rng: random.Random, options: int, forced: bool) -> int:
        """*options*: legal choices the seat had (passing included); *forced*: only one."""
        ...


@dataclass(frozen=True)
class UniformClock:
    """Think times drawn uniformly from *gap* (ms): the plain simulator's clock."""

    gap: tuple[int, int] = (300, 6000)
    #: the think time does not depend on the number of options (no need to count them)
    wants_options: ClassVar[bool] = False

    def think(self, rng: random.Random, options: int, forced: bool) -> int:
        return rng.randint(*self.gap)


class Room(TypedDict):
    """A simulated room, as a record's ``room`` holds it."""

    name: str
    base: int
    coef: int
    fee: int


@dataclass
class Seat:
    """Who sits at a simulated seat: the name recorded (None: a name drawn as for the
    default seating), the policy, the clock (None: the driver's default)."""

    name: str | None
    policy: Policy
    clock: Clock | None = None
    info: dict[str, Any] = field(default_factory=dict)


def deal(rng: random.Random, rules) -> tuple[list[list[int]], list[int]]:
    """A shuffled deal in the variant's hand sizes (sorted hands) and what is left over."""
    deck = list(rules.deck)
    rng.shuffle(deck)
    hands, k = [], 0
    for size in rules.hand_sizes():
        hands.append(sorted(deck[k:k + size]))
        k += size
    return hands, sorted(deck[k:])


def seat_names(rng: random.Random, seats: list[Seat] | None, players: int) -> list[str]:
    """The recorded player names: the seats' own, or a sample of :data:`NAMES`."""
    named = [s.name for s in seats or () if s.name is not None]
    if seats and len(named) == len(seats):
        return named
    drawn = rng.sample(NAMES, players)  # drawn whenever a seat has no name: the same hands as the default seating
    return [s.name or drawn[k] for k, s in enumerate(seats)] if seats else drawn


class LegalMoves(Sequence):
    """``table.legal_moves(seat)`` made on first use: a policy that needs only the plays
    that beat the table (or plans its own leads) never pays for the whole list."""

    __slots__ = ("_table", "_seat", "_moves")
    _moves: list[Move] | None

    def __init__(self, table, seat: int):
        self._table, self._seat, self._moves = table, seat, None

    def _list(self) -> list[Move]:
        if self._moves is None:
            self._moves = self._table.legal_moves(self._seat)
        return self._moves

    def __len__(self) -> int:
        return len(self._list())

    def __getitem__(self, k):
        return self._list()[k]

    def __iter__(self):
        return iter(self._list())

    def __bool__(self) -> bool:
        return bool(self._list())


def play_turn(table, rng: random.Random, act: Recorder, policy: Policy, hints: dict[str, Any]) -> None:
    """The seat to act plays or passes as its *policy* decides among the legal moves."""
    from ..cards import card_name

    seat = table.turn
    hints["actions"] = act.record["actions"]  # the hand so far, as recorded (the engine keeps no record)
    moves = LegalMoves(table, seat)
    cards = policy.play(table, rng, moves, hints)
    # how many options the seat had matters only to clocks that ask (``wants_options``)
    options = (len(moves) + (table.last is not None)) if act.wants_options(seat) else 2
    if cards is None:
        act({"seat": seat, "act": "pass"}, options)
    else:
        act({"seat": seat, "act": "play", "cards": [card_name(c) for c in cards]}, options)


def play_to_end(table, rng: random.Random, act: Recorder, policies: Sequence[Policy],
                hints: Callable[[Any, random.Random], dict[str, Any]], escape_at: int) -> None:
    """The play of a simulated hand to its end: each seat as its policy decides with the
    game's *hints*, a random seat escaping when the hand reaches *escape_at* actions (-1:
    never; an escape ends the hand)."""
    while not table.over:
        if len(act) == escape_at:
            act({"seat": rng.randrange(table.n), "act": "escape"})
            break
        play_turn(table, rng, act, policies[table.turn], hints(table, rng))


class Recorder:
    """Appends a seat's actions to a record, with times, and replays each one on the table:
    a simulated hand that breaks a rule is a bug in the bot or the engine."""

    def __init__(self, rng: random.Random, table, record: dict, gap: tuple[int, int] = (300, 6000),
                 seats: list[Seat] | None = None):
        self.rng, self.table, self.record = rng, table, record
        self.step = Walk(table)  # (the table is set up)
        default = UniformClock(gap)
        self.clocks = [(s.clock or default) for s in seats] if seats else None
        self.default = default
        self.clock = 0

    def __call__(self, action: dict, options: int = 1) -> None:
        """Record *action*; *options* is how many choices its seat had (for think times)."""
        clock = self.clocks[action["seat"]] if self.clocks else self.default
        self.clock += clock.think(self.rng, options, options <= 1)
        action["t"] = self.clock
        actions = self.record["actions"]
        actions.append(action)
        v = self.step(len(actions) - 1, action)
        assert v is None, (v, action, self.record["id"])

    def __len__(self) -> int:
        return len(self.record["actions"])

    def wants_options(self, seat: int) -> bool:
        clock = self.clocks[seat] if self.clocks else self.default
        return getattr(clock, "wants_options", True)
