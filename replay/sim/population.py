"""A population of players with their own habits, and planted cheaters, for measuring
``paipu fraud`` (``paipu simulate --players N --cheat collude=2,dump=2@x4,soft=2@0.15,bot=3``).

Every player has a schedule (daily sessions at human hours), a clock (think times that
grow with the number of options, fast forced passes, a heavy tail of long pauses) and a
policy (the heuristic bot of :mod:`replay.sim.bots`). Hands are spread over the days in
proportion to how many players are online, and each table is drawn from the players
online then. Planted cheaters, with a labels file saying who they are:

- ``collude=K``: K pairs who play at the same hours, join each other's tables, and, when
  they are opponents, spare each other's plays (pass where they could beat) and feed each
  other (lead what the friend can beat and the others cannot, knowing the friend's cards);
- ``dump=K``: K pairs of a dumper and a receiver who meet at tables the same way; with
  the receiver as an opponent, the dumper throws the hand (passes whenever the rules
  allow, leads single low cards), so that coins flow to the receiver;
- ``soft=K@S``: K pairs who, as opponents, spare each other's plays on a share S of the
  chances (no feeding): soft play on a fraction of decisions;
- ``share=K@S``: K pairs who see each other's cards and, on a share S of their decisions
  as partners (Dou Dizhu farmers together, Guandan and Shuangkou team mates, any two
  Paodekuai players at a table), play the informed choice (:class:`Sharer`);
- ``bot=K``: K players with machine timing (narrow, no long pauses, blind to the number
  of options), long sessions at any hour of the day.

Options after ``@`` (any order, several allowed): a number in (0, 1] is the share (soft,
share, collude: the chance to spare and to feed); ``xM`` is the stake of a dump (the
dumper throws only hands whose multiplier has reached M, and raises it: grabs and plays
its bombs; games without a hand multiplier, Paodekuai and Shuangkou, ignore it);
``seat=M`` is the co-seating strength (the pair sits together about M times as often as
random seating among the players online would give; ``seat=0`` or ``seat=1``: at chance;
the default is the old 60% follow); ``hands=N`` is how many hands each member plays at most
(its sessions thinned to about that, and offline once it is reached: a pair pulled
together at 10x chance would otherwise play twice its share). ``few=K`` is ``collude=K@hands=130@seat=10``.

For team games (Guandan, Shuangkou) a pair that meets sits on opposite teams (card
sharers on the same team).
"""

from __future__ import annotations

import csv
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, UTC
from typing import Any

from ..game import Game
from ..games import find_rules
from .bots import HEURISTIC
from .core import Move, Seat

#: planted kinds, in the order ``--cheat`` lists them; pairs plant two players each
CHEATS = {"collude": ("colluder", "colluder"), "dump": ("dumper", "receiver"), "soft": ("soft", "soft"),
          "share": ("sharer", "sharer"), "few": ("colluder", "colluder"), "bot": ("bot",)}
#: the options a kind takes by default (``few``: colluders with few hands, seated at 10x chance)
DEFAULTS: dict[str, dict[str, float]] = {"soft": {"share": 0.15}, "share": {"share": 0.3},
                                         "few": {"hands": 130, "seat": 10}}


@dataclass(frozen=True)
class Cheat:
    """One ``--cheat`` part: *count* of *kind*, with its options (None: the kind's default)."""

    kind: str
    count: int
    share: float | None = None  # soft, share, collude: the chance per decision
    stake: int | None = None  # dump: the multiplier a hand must reach before it is thrown
    seat: float | None = None  # co-seating strength (x chance); None: follow 60% of the time
    hands: int | None = None  # about this many hands per member

    def spec(self) -> str:
        """The part as ``--cheat`` spells it."""
        opts = ([f"{self.share:g}"] if self.share is not None else []) + \
            ([f"x{self.stake}"] if self.stake is not None else []) + \
            ([f"seat={self.seat:g}"] if self.seat is not None else []) + \
            ([f"hands={self.hands}"] if self.hands is not None else [])
        return "@".join([f"{self.kind}={self.count}", *opts])
SLOT = 600  # seconds: the schedule's time step
#: the bounds of a population (docs/fraud.md): a player's schedule costs some 3 kB, a
#: hand's start time (scheduled up front, in time order) some 150 bytes
MAX_PLAYERS = 100_000
MAX_HANDS = 1_000_000
START = datetime(2026, 3, 2, tzinfo=UTC)


def parse_cheats(text: str | None) -> list[Cheat]:
    """``collude=2,dump=2@x4,soft=1@0.15@seat=2,bot=3`` as :class:`Cheat` parts (a kind
    may come more than once, with other options); ValueError naming the bad part."""
    out: list[Cheat] = []
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        head, *opts = part.split("@")
        kind, _, count = head.partition("=")
        kind = kind.strip()
        if kind not in CHEATS:
            raise ValueError(f"--cheat: unknown kind {kind!r} (known: {', '.join(CHEATS)})")
        try:
            n = int(count) if count.strip() else 1
        except ValueError:
            raise ValueError(f"--cheat: {part!r}: expected {kind}=COUNT with a whole number") from None
        if n < 0:
            raise ValueError(f"--cheat: {part!r}: the count must be 0 or more")
        values: dict[str, Any] = dict(DEFAULTS.get(kind, {}))
        for opt in (o.strip() for o in opts):
            try:
                if opt.startswith("seat="):
                    values["seat"] = float(opt[5:])
                    ok = values["seat"] >= 0
                elif opt.startswith("hands="):
                    values["hands"] = int(opt[6:])
                    ok = values["hands"] > 0
                elif opt.startswith("x"):
                    values["stake"] = int(opt[1:])
                    ok = kind == "dump" and values["stake"] >= 1
                else:
                    values["share"] = float(opt)
                    ok = kind in ("collude", "soft", "share", "few") and 0 < values["share"] <= 1
            except ValueError:
                ok = False
            if not ok:
                raise ValueError(f"--cheat: {part!r}: bad option {opt!r} (expected a share in (0, 1] for collude, "
                                 "soft, share; xM (M >= 1) for dump; seat=M (M >= 0); hands=N (N >= 1))")
        if kind == "bot" and opts:
            raise ValueError(f"--cheat: {part!r}: bot takes no options")
        out.append(Cheat(kind, n, share=values.get("share"), stake=values.get("stake"), seat=values.get("seat"),
                         hands=None if values.get("hands") is None else int(values["hands"])))
    return out


def as_cheats(cheats: dict[str, int] | Sequence[Cheat] | None) -> list[Cheat]:
    """*cheats* as :class:`Cheat` parts ({kind: count} as the kinds' defaults)."""
    if isinstance(cheats, dict):
        return parse_cheats(",".join(f"{k}={v}" for k, v in cheats.items()))
    return list(cheats or [])


def cheat_spec(cheats: dict[str, int] | Sequence[Cheat] | None) -> str:
    """The ``--cheat`` text of *cheats*."""
    return ",".join(c.spec() for c in as_cheats(cheats))


# ----------------------------------------------------------------------------- clocks


@dataclass(frozen=True)
class HumanClock:
    """Log-normal think times: *base* ms at one option, ×(1 + *slope*·ln options), spread
    *sigma*; forced moves take *forced* ms; with chance *pause* a long pause (5-60 s)."""

    base: float
    slope: float
    sigma: float
    forced: float
    pause: float

    def think(self, rng: random.Random, options: int, forced: bool) -> int:
        if forced:
            ms = self.forced * math.exp(rng.gauss(0, 0.35))
        else:
            ms = self.base * (1 + self.slope * math.log(max(options, 1))) * math.exp(rng.gauss(0, self.sigma))
        if rng.random() < self.pause:
            ms += rng.paretovariate(1.3) * 5000
        return max(150, int(ms))


@dataclass(frozen=True)
class BotClock:
    """Machine timing: uniform in *gap* ms whatever the decision."""

    gap: tuple[int, int] = (700, 1300)

    def think(self, rng: random.Random, options: int, forced: bool) -> int:
        return rng.randint(*self.gap)


def human_clock(rng: random.Random) -> HumanClock:
    return HumanClock(base=rng.lognormvariate(math.log(1500), 0.3), slope=rng.uniform(0.25, 0.6),
                      sigma=rng.uniform(0.45, 0.75), forced=rng.uniform(400, 900), pause=rng.uniform(0.015, 0.05))


# ----------------------------------------------------------------------------- policies


def _mate_seat(table, mate: str | None) -> int | None:
    """The seat of *mate* at this table when it is an opponent of the seat to act."""
    if mate is None:
        return None
    players = table.spec.players or []
    if mate not in players:
        return None
    s = players.index(mate)
    return None if s in table.partners(table.turn) or s == table.turn else s


@dataclass(frozen=True)
class Colluder:
    """Plays like the heuristic, but helps the mate when the mate is an opponent: spares
    the mate's plays (with chance *spare*) where the rules allow a pass, and feeds it (with
    chance *feed*): knowing the mate's cards, as colluders who share them do, it leads the
    lowest play the mate can beat and the other seats cannot (else the lowest the mate can
    beat). Under 有出必出, where no pass is allowed, feeding is what is left to a colluder."""

    mate: str
    spare: float = 0.85
    feed: float = 0.85
    base: Any = HEURISTIC  # the policy it plays otherwise

    def play(self, table, rng: random.Random, moves: Sequence[Move], hints: dict[str, Any]) -> list[int] | None:
        mate = _mate_seat(table, self.mate)
        if mate is not None and table.last is not None and table.last_seat == mate:
            if not hints.get("must_play") and rng.random() < self.spare:
                return None
        elif mate is not None and table.last is None and moves and rng.random() < self.feed:
            fed = _feeding_lead(table, mate, moves)
            if fed is not None:
                return fed
        return self.base.play(table, rng, moves, hints)

    def bid(self, table, rng: random.Random, seat: int, power: float, stage: str) -> bool:
        return self.base.bid(table, rng, seat, power, stage)


def _feeding_lead(table, mate: int, moves: Sequence[Move]) -> list[int] | None:
    """The lowest lead *mate* can beat and no other seat with cards can; else the lowest
    the mate can beat; None when the mate can beat none."""
    me = table.turn
    others = [s for s in range(len(table.left)) if s not in (me, mate) and table.left[s] > 0]
    fallback = None
    for cards, readings in sorted(moves, key=lambda m: (m[1][0].tier, m[1][0].key, len(m[0]))):
        combo = readings[0]
        if not table.beats_exist(mate, combo):
            continue
        if not any(table.beats_exist(s, combo) for s in others):
            return cards
        if fallback is None:
            fallback = cards
    return fallback


@dataclass(frozen=True)
class Dumper:
    """With the receiver at the table as an opponent, throws the hand: passes whenever
    the rules allow, else makes the smallest play; leads its lowest single. With a
    *stake* M above 1, only hands whose multiplier (``multiplier_now``) has reached M are
    thrown: with the receiver at the table it calls and grabs whatever its cards, and
    plays its bombs (each doubles) while the stake is below M, else plays as usual; in a
    game without a hand multiplier (None) every hand is thrown."""

    receiver: str
    base: Any = HEURISTIC  # the policy it plays otherwise
    stake: int = 1

    def play(self, table, rng: random.Random, moves: Sequence[Move], hints: dict[str, Any]) -> list[int] | None:
        if _mate_seat(table, self.receiver) is None or not moves:
            return self.base.play(table, rng, moves, hints)
        mult = table.multiplier_now() if self.stake > 1 else None
        if mult is not None and mult < self.stake:
            bombs = [m for m in moves if m[1][0].tier]
            return min(bombs, key=lambda m: (m[1][0].tier, m[1][0].key))[0] if bombs else \
                self.base.play(table, rng, moves, hints)
        if table.last is not None and not hints.get("must_play"):
            return None
        singles = [m for m in moves if len(m[0]) == 1] if table.last is None else []
        pick = min(singles or moves, key=lambda m: (m[1][0].tier, m[1][0].key, len(m[0])))
        return pick[0]

    def bid(self, table, rng: random.Random, seat: int, power: float, stage: str) -> bool:
        if self.stake > 1 and self.receiver in (table.spec.players or []):
            return True  # raise the stake of a hand to be thrown
        return self.base.bid(table, rng, seat, power, stage)


def _ally_seat(table, mate: str | None) -> int | None:
    """The seat of *mate* when it plays on the side of the seat to act (a fellow farmer, a
    team mate), or sits at a table where each plays for himself (Paodekuai)."""
    players = table.spec.players or []
    if mate is None or mate not in players:
        return None
    s = players.index(mate)
    if s == table.turn:
        return None
    sides = table.partners(table.turn)
    # no partner at a table where each plays for himself (a seat without partners in a game
    # whose sides form during the hand is not such a table)
    return s if s in sides or (not sides and table.plays_alone()) else None


@dataclass(frozen=True)
class Sharer:
    """Sees the mate's cards (card sharing) and, with the mate as a partner, makes the
    informed choice on a share *share* of its decisions: never blocks the mate (passes on
    the mate's play), lets the mate take an opponent's play it can beat (passes), and
    leads what the mate can beat and the opponents cannot (:func:`_feeding_lead`). Where
    the rules force a play, the first two are not allowed; otherwise it plays the base
    policy. An informed heuristic, not the evaluator: the cheap signatures the fraud issue
    names; a screen built on them is judged on this very play (docs/fraud.md)."""

    mate: str
    share: float = 0.3
    base: Any = HEURISTIC

    def play(self, table, rng: random.Random, moves: Sequence[Move], hints: dict[str, Any]) -> list[int] | None:
        ally = _ally_seat(table, self.mate)
        if ally is None or not moves or table.left[ally] == 0 or rng.random() >= self.share:
            return self.base.play(table, rng, moves, hints)
        if table.last is None:
            fed = _feeding_lead(table, ally, moves)
            return fed if fed is not None else self.base.play(table, rng, moves, hints)
        if not hints.get("must_play") and (table.last_seat == ally or table.can_beat(ally)):
            return None
        return self.base.play(table, rng, moves, hints)

    def bid(self, table, rng: random.Random, seat: int, power: float, stage: str) -> bool:
        return self.base.bid(table, rng, seat, power, stage)


# ----------------------------------------------------------------------------- the population


@dataclass
class Person:
    name: str
    kind: str  # honest, colluder, dumper, receiver, bot
    mate: str | None
    clock: Any
    policy: Any
    sessions: list[tuple[int, int]] = field(default_factory=list)  # (first slot, last slot) online
    seat: float | None = None  # co-seating strength with the mate (x chance); None: follow at the population's rate
    same_team: bool = False  # in team games the pair sits on one team (card sharers), not on opposite ones
    cap: int | None = None  # at most this many hands (matches in Guandan): offline once reached


def _human_sessions(rng: random.Random, days: int, like: tuple[float, float, float] | None = None,
                    planted: bool = False) -> tuple[list, tuple]:
    """Daily sessions at human hours: (sessions in slots, the habit used). A *planted*
    pair's habit is an average one (evenings, 2.5-3 h on 58-67% of days, against 1.5-4 h
    on 45-80% at evening, lunch or afternoon hours), so that its members play about as many
    hands as the average player: the fraud benchmark's targets are stated at about 300
    hands per cheater, not at whatever a short habit or quiet hours give (a lunch-time pair
    had 84 and 135 hands)."""
    if like is None:
        start = rng.choice((rng.gauss(20.5, 1.5), rng.gauss(20.5, 1.5), rng.gauss(13, 1.5), rng.gauss(16, 2)))
        like = ((rng.gauss(20.5, 1.0) % 24, rng.uniform(2.5, 3.0), rng.uniform(0.58, 0.67)) if planted else
                (start % 24, rng.uniform(1.5, 4), rng.uniform(0.45, 0.8)))
    start, length, often = like
    out = []
    per_day = 86400 // SLOT
    for d in range(days):
        if rng.random() > often:
            continue
        h = (start + rng.gauss(0, 0.7)) % 24
        first = d * per_day + int(h * 3600 / SLOT)
        out.append((first, first + int(max(0.5, length + rng.gauss(0, 0.5)) * 3600 / SLOT)))
    return out, like


def _bot_sessions(rng: random.Random, days: int) -> list:
    out = []
    per_day = 86400 // SLOT
    for d in range(days):
        if rng.random() > 0.5:
            continue
        first = d * per_day + rng.randrange(per_day)  # any hour of the day or night
        out.append((first, first + int(rng.uniform(6, 10) * 3600 / SLOT)))
    return out


def _policy(cheat: Cheat, role: str, mate: str | None, base: Any) -> Any:
    """What a planted member plays (colluders, dumpers, sparers and sharers come in pairs)."""
    if mate is None or role == "receiver":
        return base
    if role == "dumper":
        return Dumper(mate, base=base, stake=cheat.stake or 1)
    if role == "sharer":
        return Sharer(mate, share=cheat.share if cheat.share is not None else 0.3, base=base)
    if role == "soft":
        return Colluder(mate, spare=cheat.share if cheat.share is not None else 0.15, feed=0.0, base=base)
    share = cheat.share if cheat.share is not None else 0.85  # collude, few
    return Colluder(mate, spare=share, feed=share, base=base)


class Population:
    """Players, planted cheaters, a schedule and the seating of each hand.

    *hands*: how many hands (Guandan: matches start where ``seats_for`` is asked);
    *days*: the span of play; *follow*: the chance that a planted pair member joins the
    table of the other when both are online; *base*: the policy everyone plays when not
    cheating (default the heuristic bot; another engine's agent to check that the screens
    do not lean on the heuristic's habits).
    """

    def __init__(self, game: str, variant: str | None, players: int, cheats: dict[str, int] | Sequence[Cheat],
                 hands: int, seed: int = 0, days: int = 14, follow: float = 0.6, base: Any = None):
        base = HEURISTIC if base is None else base
        self.rules = find_rules(game, variant)
        self.n = self.rules.players
        self.game = Game.of(self.rules)  # with fixed partners, a pair that meets sits on opposite teams
        rng = self.rng = random.Random(f"population:{seed}")
        parts = as_cheats(cheats)
        planted = sum(len(CHEATS[c.kind]) * c.count for c in parts)
        if players < self.n:
            raise ValueError(f"--players must be at least {self.n} for {self.rules.game}, got {players}")
        if planted > players:
            raise ValueError(f"--cheat plants {planted} players but --players is {players}")
        if players > MAX_PLAYERS:
            raise ValueError(f"--players must be at most {MAX_PLAYERS:,} (a population's schedules are held in "
                             f"memory), got {players:,}")
        if hands > MAX_HANDS:
            raise ValueError(f"--hands must be at most {MAX_HANDS:,} with --players (the hands of a population are "
                             f"scheduled up front), got {hands:,}")
        self.days, self.follow = days, follow
        names = [f"player{i:03d}" for i in range(players)]
        rng.shuffle(names)
        self.people: list[Person] = []
        average = hands * self.n / players  # hands per player (a planted habit plays about as many)
        for cheat in parts:
            for _ in range(cheat.count):
                roles = CHEATS[cheat.kind]
                group = [names.pop() for _ in roles]
                first: list[tuple[int, int]] = []
                for k, role in enumerate(roles):
                    mate = group[1 - k] if len(group) == 2 else None
                    if role == "bot":
                        person = Person(group[k], role, None, BotClock((rng.randint(500, 900), rng.randint(1100, 1600))),
                                        base, _bot_sessions(rng, days))
                    else:
                        if k == 0:
                            sessions, habit = _human_sessions(rng, days, None, planted=True)
                            if cheat.hands is not None:  # fewer hands: fewer sessions
                                keep = min(1.0, cheat.hands / max(average, 1.0))
                                sessions = [x for x in sessions if rng.random() < keep]
                            first = sessions
                        else:  # the mate plays on the same days, give or take ten minutes
                            sessions = [(a + rng.randint(-1, 1), b + rng.randint(-1, 1)) for a, b in first
                                        if rng.random() < 0.9]
                        person = Person(group[k], role, mate, human_clock(rng), _policy(cheat, role, mate, base),
                                        sessions, seat=cheat.seat, same_team=role == "sharer", cap=cheat.hands)
                    self.people.append(person)
        for name in names:
            sessions, _ = _human_sessions(rng, days)
            self.people.append(Person(name, "honest", None, human_clock(rng), base, sessions))
        self.by_name = {p.name: p for p in self.people}
        self.played: dict[str, int] = {}  # hands seated so far, of the players with a cap
        self._schedule(hands)
        self.match_time: dict[str, datetime] = {}

    def _schedule(self, hands: int) -> None:
        """Start times of the hands, in proportion to the players online in each slot."""
        slots = self.days * 86400 // SLOT
        online: list[list[Person]] = [[] for _ in range(slots + 200)]
        for p in self.people:
            for first, last in p.sessions:
                for s in range(first, min(last, slots)):
                    # once a slot however many of its sessions cover it (a session wrapped past
                    # midnight meets the next one): before 2026-12-03 such a player was online
                    # twice there, and could be drawn for two seats of one table
                    if not online[s] or online[s][-1] is not p:  # (p's sessions come one after another)
                        online[s].append(p)
        weights = [len(o) if len(o) >= self.n else 0 for o in online[:slots]]
        if not any(weights):
            weights = [1] * slots
        picks = sorted(self.rng.choices(range(slots), weights=weights, k=hands))
        self.online = online
        self.slot_of = picks
        self.times = [START + timedelta(seconds=s * SLOT + self.rng.uniform(0, SLOT)) for s in picks]

    def seats_for(self, k: int) -> list[Seat]:
        """Who sits at hand k: players online then, planted pairs following each other."""
        rng = self.rng
        slot = self.slot_of[min(k, len(self.slot_of) - 1)]
        pool = [p for p in self.online[slot] if p.cap is None or self.played.get(p.name, 0) < p.cap]
        if len(pool) < self.n:
            pool = pool + rng.sample([p for p in self.people if p not in pool and (
                p.cap is None or self.played.get(p.name, 0) < p.cap)], self.n - len(pool))
        chosen = rng.sample(pool, self.n)
        # with a strength M, the chance of pulling the mate in: random seating puts the mate
        # at p's table with c = (n-1)/(online-1); either member may pull the other, so
        # together ~ c + 2(1-c)f of the time, M·c when f = (M-1)c / (2(1-c))
        c = (self.n - 1) / max(len(pool) - 1, 1)
        for p in list(chosen):
            mate = self.by_name.get(p.mate) if p.mate else None
            if mate is None or mate in chosen or mate not in pool:
                continue
            follow = self.follow if p.seat is None else \
                (min(1.0, max(p.seat - 1, 0) * c / (2 * (1 - c))) if c < 1 else 0.0)
            if rng.random() >= follow:
                continue
            free = [q for q in chosen if q is not p and q.mate is None]
            if free:
                chosen[chosen.index(rng.choice(free))] = mate
        rng.shuffle(chosen)
        for p in chosen:
            if p.cap is not None:
                self.played[p.name] = self.played.get(p.name, 0) + 1
        team = self.game.team_of
        for p in chosen:  # a met pair sits on opposite teams (card sharers on one)
            mate = self.by_name.get(p.mate) if p.mate else None
            if mate in chosen:
                i, j = chosen.index(p), chosen.index(mate)
                if team(i) is not None and (team(i) == team(j)) != p.same_team:
                    k = next(s for s in range(self.n) if s not in (i, j) and (team(s) == team(i)) == p.same_team)
                    chosen[j], chosen[k] = chosen[k], chosen[j]
        return [Seat(p.name, p.policy, p.clock) for p in chosen]

    def stamp(self, k: int, record: dict) -> dict:
        """Set the record's start time (hands of a match follow each other)."""
        match = record.get("match")
        if isinstance(match, dict) and match.get("hand", 1) > 1 and match["id"] in self.match_time:
            when = self.match_time[match["id"]]
        else:
            when = self.times[min(k, len(self.times) - 1)]
        record["time"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
        if isinstance(match, dict):
            last = record["actions"][-1].get("t", 0) if record["actions"] else 0
            self.match_time[match["id"]] = when + timedelta(milliseconds=last + 20_000)
        return record

    def labels(self) -> list[dict]:
        return [{"player": p.name, "kind": p.kind, "mate": p.mate or ""} for p in
                sorted(self.people, key=lambda p: p.name)]


def simulate_population(game: str, variant: str | None, hands: int, seed: int, players: int,
                        cheats: dict[str, int] | Sequence[Cheat], escape_rate: float = 0.0, params: dict | None = None,
                        base: Any = None) -> tuple[Population, Iterator[dict]]:
    """The population and its hands (records with ``time`` and per-action ``t``); *base*:
    the policy played when not cheating (:class:`Population`)."""
    from . import simulate

    pop = Population(game, variant, players, cheats, hands, seed, base=base)

    def records() -> Iterator[dict]:
        for k, record in enumerate(simulate(game, variant, hands, seed, escape_rate=escape_rate, params=params,
                                            seats_for=pop.seats_for)):
            yield pop.stamp(k, record)

    return pop, records()


def write_labels(path: str, pop: Population) -> None:
    import io

    from ..io.output import write_bytes

    text = io.StringIO(newline="")
    w = csv.DictWriter(text, fieldnames=["player", "kind", "mate"])
    w.writeheader()
    w.writerows(pop.labels())
    write_bytes(path, text.getvalue().encode("utf-8"), gz=False)


__all__ = ["BotClock", "Cheat", "Colluder", "Dumper", "HumanClock", "Population", "Sharer", "as_cheats", "cheat_spec",
           "parse_cheats", "simulate_population",
           "write_labels"]
