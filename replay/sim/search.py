"""The search bot (``paipu simulate --bot search``): each play decided by the evaluator
(:func:`replay.evaluate.evaluate`) from what a person in the seat would know.

At its turn the bot writes down the hand as a record so far — the hand's set-up and the
actions taken — and asks the evaluator for the value of its options at the next action,
as a review of that record would. The evaluator replays the record and keeps of it only
what the seat could know (its own cards, the cards played, the public cards, what passes
reveal); every other seat's hand is dealt again at random for each sample. The bot plays
the option with the highest win probability (then the highest expected points) when it
beats the default bot's choice by more than the noise (:func:`choice`); else the default
bot's choice.

- A turn with one legal option is played without a search.
- At most :data:`MAX_OPTIONS` options are valued (the evaluator's documented shortlist,
  which always keeps the default bot's choice, the plays that go out and the pass).
- The budget is turned into a number of samples before the search, from the options and
  the cards left (:func:`samples_for`), never measured on the clock: the same seed gives
  the same hands on any machine, however loaded.
- Bids (Dou Dizhu) are the default bot's: the policy interface gives a bid no record of
  the hand, and duplicate-deal comparisons keep the landlord fixed that way.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..cards import CARD_OF
from .bots import BOTS
from .core import Move, Policy
from .planner import FAST

#: the default time budget of a decision, in milliseconds (``--budget``)
BUDGET_MS = 50.0
#: options valued at most per decision
MAX_OPTIONS = 8
#: the search bot leaves the default bot's choice for a better option only when the paired
#: difference is more than this many standard errors
GATE = 2.0
#: samples per decision at least and at most, whatever the budget
MIN_SAMPLES, MAX_SAMPLES = 4, 64
#: measured cost of one playout (one option, one sample) per card left in all hands, ms,
#: one core (benchmarks/review.py --strength prints the time per decision it gives):
#: three-seat games, four-seat games (two decks, longer hands, wild cards)
MS_PER_CARD = {3: 0.016, 4: 0.032}
#: the games whose search takes two looks by default (:attr:`Search.screen`), with the
#: first look's deals: Guandan's decisions reach the fewest deals (4 at 8 options), where
#: one look kept the default bot's choice nearly always (−2.0 points [−11.3, +7.3] as a
#: team on 50 duplicate deals) and two looks gained +7.2 [+4.4, +9.9] on 425
#: (docs/review.md, "The search bot")
SCREEN = {"guandan": 2}


def samples_for(budget_ms: float, options: int, cards_left: int, seats: int) -> int:
    """Samples that fit *budget_ms* for *options* options with *cards_left* cards in the
    hands, at the measured cost of a playout (:data:`MS_PER_CARD`)."""
    per_sample = options * max(1, cards_left) * MS_PER_CARD.get(seats, MS_PER_CARD[4])
    return max(MIN_SAMPLES, min(MAX_SAMPLES, int(budget_ms / per_sample)))


def record_so_far(table: Any, actions: Sequence[dict[str, Any]], action: dict[str, Any]) -> dict[str, Any]:
    """The hand as a record: its set-up (``table.spec``), *actions* and then *action* (the
    decision to evaluate, in the place of the one not taken yet)."""
    spec = {k: v for k, v in dataclasses.asdict(table.spec).items() if v is not None}
    return {"paipu": 1, **spec, "game": table.rules.game, "variant": table.rules.variant,
            "actions": [*actions, action]}


@dataclass(frozen=True)
class Search:
    """``--bot search``: plays by the evaluator (see the module); *budget_ms* per decision,
    *bot*: the policy of the playouts."""

    budget_ms: float = BUDGET_MS
    max_options: int = MAX_OPTIONS
    bot: str = "fast"
    name: str = "search"
    #: two looks: every option on this many deals, then, when the best of them is not the
    #: default bot's choice, those two alone on the rest of the deals the budget gives (new
    #: deals: the first look's winner is not also its judge); see :func:`two_looks`. 0: one
    #: look; None: the game's default (:data:`SCREEN`, else one look)
    screen: int | None = None

    def screen_for(self, game: str) -> int:
        """The first look's deals in *game* (0: one look)."""
        return SCREEN.get(game, 0) if self.screen is None else self.screen

    def bid(self, table: Any, rng: random.Random, seat: int, power: float, stage: str) -> bool:
        return FAST.bid(table, rng, seat, power, stage)

    def play(self, table: Any, rng: random.Random, moves: Sequence[Move], hints: dict[str, Any]) -> list[int] | None:
        from ..evaluate import action_of, evaluate, pass_legal

        can_pass = pass_legal(table)
        if len(moves) + can_pass <= 1:
            return moves[0][0] if moves else None  # one option: no search
        own = random.Random(rng.getrandbits(64))
        prior = FAST.play(table, own, moves, hints)  # the default bot's choice: kept, and kept on a tie
        seat = table.turn
        actions = hints["actions"]
        record = record_so_far(table, actions, action_of(seat, prior))
        options = min(len(moves) + can_pass, self.max_options)
        samples = samples_for(self.budget_ms, options, sum(table.left), table.n)
        look = partial(evaluate, record, len(actions), budget_ms=None, bot=self.bot,
                       previous=getattr(table, "previous", None), rules=table.rules, max_options=self.max_options)
        screen = self.screen_for(table.rules.game)
        if screen and samples * options > screen * options + 2 * 2:
            best = two_looks(look, own, samples * options, options, screen)
        else:
            best = choice(look(samples=samples, seed=own.getrandbits(32)))
        return None if best.cards is None else [CARD_OF[c] for c in best.cards]


def two_looks(look: Callable[..., Any], rng: random.Random, playouts: int, options: int, screen: int) -> Any:
    """The option to play, in two looks at the same number of playouts as one: every
    option on *screen* deals; then, when the best of them (by win probability, then
    points) is not the default bot's choice, the two alone on the playouts left (half
    each, on new deals), and :func:`choice` between them. *look*: the decision's
    evaluation (:func:`~replay.evaluate.evaluate` with all but the deals and the seed given)."""
    first = look(samples=screen, seed=rng.getrandbits(32))
    top = max(first.options, key=lambda o: (o.win.mean, o.score.mean, o.chosen))
    if top.chosen:
        return top
    left = max(2, (playouts - screen * options) // 2)
    second = look(samples=left, seed=rng.getrandbits(32), only={top.label()})
    return choice(second)


def choice(ev: Any) -> Any:
    """The option to play: the one with the highest win probability (then points), when
    it beats the default bot's choice by more than :data:`GATE` standard errors of their
    paired difference; else the default bot's choice (a few samples pick noise otherwise)."""
    prior = ev.chosen
    best = max(ev.options, key=lambda o: (o.win.mean, o.score.mean, o.chosen))
    if prior is None or best is prior:
        return best
    for by in ("win", "points"):
        d = ev.difference(best, prior, by)
        if d.mean > 0 and (d.se == 0 or d.mean > GATE * d.se):
            return best
        if d.mean < 0:
            return prior
    return prior


SEARCH = Search()


#: the bot levels of ``paipu simulate --bot``; the first is the default
LEVELS: dict[str, Policy] = {**BOTS, "search": SEARCH}


def bot_named(name: str, budget_ms: float | None = None) -> Policy:
    """The policy of ``--bot NAME`` (``--budget``: the search bot's time per decision)."""
    if name == "search" and budget_ms is not None:
        return Search(budget_ms)
    return LEVELS[name]
