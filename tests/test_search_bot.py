"""``paipu simulate --bot search``: the search bot (replay/sim/search.py)."""

from __future__ import annotations

import random

import pytest
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.cards import CARD_NAMES, CARD_OF, RANK_BIT
from paipu.replay.evaluate import decision_state, evaluate, options_of
from paipu.replay.replayer import Matches
from paipu.replay.sim import Seat, driver, simulate
from paipu.replay.sim.core import LegalMoves
from paipu.replay.sim.planner import FAST, Shapes, cost_of
from paipu.replay.sim.search import Search, samples_for

#: a small search: the fewest samples, three options at most (the tests' time)
SMALL = Search(budget_ms=1, max_options=3)
GAMES = [("doudizhu", 3), ("paodekuai", 3), ("guandan", 4), ("shuangkou", 4)]


def searched(game: str, players: int, seed: int, hands: int = 1) -> list[dict]:
    """Hands with the search bot in seat 0 (and seat 1 in the three-seat games), fast elsewhere."""
    seats = [Seat(None, SMALL if s == 0 or (players == 3 and s == 1) else FAST) for s in range(players)]
    return list(simulate(game, None, hands, seed, seats_for=lambda k: seats))


@pytest.mark.parametrize("game, players", GAMES)
def test_the_search_bot_plays_legal_complete_hands_the_same_for_a_seed(game, players):
    one = searched(game, players, 4)
    assert one == searched(game, players, 4)
    matches = Matches()
    for r in one:
        assert matches.replay(r).ok and r["result"]["order"]


def decision_of(record: dict, index: int, bot: Search = SMALL, seed: int = 7) -> list[int] | None:
    """What *bot* plays at action *index* of *record*, from the table there (the game's hints,
    the actions before it), as a simulated seat is asked."""
    table, _ = decision_state(record, index)
    rng = random.Random(seed)
    hints = driver(table.rules.game).play_hints(table, rng)
    hints["actions"] = record["actions"][:index]
    return bot.play(table, rng, LegalMoves(table, table.turn), hints)


def played_before(record: dict, seat: int, index: int) -> set[str]:
    return {t for a in record["actions"][:index] if a.get("seat") == seat for t in [*a.get("cards", ()), a.get("card")]}


def hidden_swap(record: dict, index: int) -> dict | None:
    """*record* with one card of each of two other seats (neither played nor handed on by its
    seat before *index*) dealt the other way, legal up to *index*; None when there is none."""
    seat = record["actions"][index]["seat"]
    others = [s for s in range(len(record["deal"])) if s != seat]
    public = set(record.get("bottom") or ()) | {record.get("lead_card")}
    for a in others:
        for b in others:
            if a >= b:
                continue
            free_a = [t for t in record["deal"][a] if t not in played_before(record, a, index) | public]
            free_b = [t for t in record["deal"][b] if t not in played_before(record, b, index) | public]
            for x in free_a[::3]:
                for y in free_b[::3]:
                    if x[:-1] == y[:-1]:
                        continue  # the same rank: no change that matters
                    deal = [list(h) for h in record["deal"]]
                    deal[a][deal[a].index(x)], deal[b][deal[b].index(y)] = y, x
                    other = dict(record, deal=deal, result=None)
                    try:
                        decision_state(other, index)
                    except ValueError:
                        continue
                    return other
    return None


def choices(record: dict, start: int) -> list[int]:
    """Indexes from *start* on where the seat to act has several options (plays of the play phase)."""
    out = []
    for i in range(start, len(record["actions"])):
        if record["actions"][i]["act"] not in ("play", "pass"):
            continue
        try:
            table, _ = decision_state(record, i)
        except ValueError:
            continue
        if table.phase == "play" and len(options_of(table)) > 1:
            out.append(i)
    return out


@pytest.mark.parametrize("game, players", GAMES)
def test_the_search_bot_does_not_read_the_hidden_hands(game, players):
    """The other seats' hands dealt otherwise (the same public history, the same own hand)
    leave the bot's choice as it was, at a fixed seed."""
    record = next(simulate(game, None, 1, 5))
    tried = 0
    for index in choices(record, len(record["actions"]) // 3)[:6]:
        other = hidden_swap(record, index)
        if other is None:
            continue
        assert other["deal"] != record["deal"]
        assert decision_of(record, index) == decision_of(other, index)
        tried += 1
        if tried == 2:
            break
    assert tried == 2


def test_one_legal_option_is_played_without_a_search(monkeypatch):
    import paipu.replay.evaluate as ev

    def boom(*a, **kw):
        raise AssertionError("searched a forced move")

    monkeypatch.setattr(ev, "evaluate", boom)
    record = next(simulate("paodekuai", "classic", 1, 3))
    forced = []
    for i, a in enumerate(record["actions"]):
        if a["act"] in ("play", "pass"):
            table, _ = decision_state(record, i)
            if len(options_of(table)) == 1:
                forced.append(i)
    assert forced
    for i in forced[:5]:
        table, _ = decision_state(record, i)
        only = options_of(table)[0][0]
        got = decision_of(record, i)
        assert (got is None and only is None) or sorted(got or ()) == sorted(only or ())


def test_the_budget_is_turned_into_samples_not_time():
    # 8 options, 50 cards, three seats: 6.4 ms a sample, 7 samples in 50 ms; never fewer than 4 or more than 64
    assert samples_for(50, 8, 50, 3) == 7
    assert samples_for(1, 8, 50, 3) == 4
    assert samples_for(10_000, 2, 5, 4) == 64


def test_cli_simulate_with_the_search_bot(tmp_path):
    runner = CliRunner()
    out = tmp_path / "s.jsonl"
    r = runner.invoke(app, ["simulate", "--game", "ddz", "--bot", "search", "--budget", "5", "--hands", "2",
                            "--seed", "1", "--out", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.stdout
    assert len(out.read_text().splitlines()) == 2
    r = runner.invoke(app, ["audit", str(out)], catch_exceptions=False)
    assert r.exit_code == 0 and "2 hands: 2 ok" in r.stdout
    r = runner.invoke(app, ["simulate", "--game", "ddz", "--budget", "5", "--hands", "2"])
    assert r.exit_code != 0 and "--budget is the search bot's" in r.output


def test_a_decision_with_many_options_values_a_shortlist():
    """The first lead of a Paodekuai hand (over a hundred plays) with max_options=5: the
    recorded play and the four plays that leave the hand the fewest plays to go, the rest
    counted as dropped."""
    record = next(simulate("paodekuai", None, 1, 1))
    table, _ = decision_state(record, 0)
    every = options_of(table)
    ev = evaluate(record, 0, samples=2, budget_ms=None, max_options=5)
    assert len(ev.options) == 5 and ev.dropped == len(every) - 5 and ev.chosen is not None
    shapes, hand = Shapes.of(table.combos), table.packed[table.turn]

    def cost(cards) -> int:
        return cost_of(hand - sum(RANK_BIT[CARD_OF[c] if isinstance(c, str) else c] for c in cards), shapes)

    kept = {tuple(sorted(o.cards)) for o in ev.options}
    worst_kept = max(cost(o.cards) for o in ev.options if not o.chosen)
    dropped = [ids for ids, _ in every if tuple(sorted(CARD_NAMES[c] for c in ids)) not in kept]
    assert len(dropped) == ev.dropped and all(cost(ids) >= worst_kept for ids in dropped)


def test_only_values_the_chosen_option_and_those_named():
    record = next(iter(simulate("guandan", None, 1, 3)))
    index = next(i for i, a in enumerate(record["actions"]) if a["act"] == "play" and i > 4)
    full = evaluate(record, index, samples=2, budget_ms=None, max_options=None)
    other = next(o for o in full.options if not o.chosen)
    two = evaluate(record, index, samples=2, budget_ms=None, max_options=None, only={other.label()})
    assert [o.label() for o in two.options] == [o.label() for o in full.options if o.chosen or o is other]
    assert two.dropped == len(full.options) - 2
    # the same deals: the two options' values are those of the full evaluation
    assert [(o.wins, o.points) for o in two.options] == [(o.wins, o.points) for o in full.options if o.chosen or o is other]


def test_two_looks_play_legal_hands_and_look_again_only_when_the_first_disagrees(monkeypatch):
    from paipu.replay import evaluate as ev_module

    calls: list[tuple[int, bool]] = []  # (deals, a second look) of each evaluation

    inner = ev_module.evaluate

    def spy(record, index, **kw):
        calls.append((kw["samples"], kw.get("only") is not None))
        return inner(record, index, **kw)

    monkeypatch.setattr(ev_module, "evaluate", spy)
    bot = Search(budget_ms=50, max_options=3, screen=2)
    seats = [Seat(None, bot if s % 2 == 0 else FAST) for s in range(4)]
    hands = list(simulate("guandan", None, 1, 4, seats_for=lambda k: seats))
    assert Matches().replay(hands[0]).ok and hands[0]["result"]["order"]
    # (3 options at most, 4 deals at least: always room for two looks) every first look on 2 deals
    assert [n for n, second in calls if not second] == [2] * sum(not second for _, second in calls)
    seconds = [n for n, second in calls if second]
    assert seconds and all(n >= 2 for n in seconds)
    # a second look follows a first look, never another second look
    assert all(not calls[k - 1][1] for k, (_, second) in enumerate(calls) if second)



def _looks(monkeypatch, bot: Search) -> list[tuple[int, bool]]:
    """(deals, a second look) of each evaluation *bot* asks for in seats 0 and 2 of a Guandan hand."""
    from paipu.replay import evaluate as ev_module

    calls: list[tuple[int, bool]] = []
    inner = ev_module.evaluate

    def spy(record, index, **kw):
        calls.append((kw["samples"], kw.get("only") is not None))
        return inner(record, index, **kw)

    monkeypatch.setattr(ev_module, "evaluate", spy)
    seats = [Seat(None, bot if s % 2 == 0 else FAST) for s in range(4)]
    hand = next(iter(simulate("guandan", None, 1, 4, seats_for=lambda k: seats)))
    assert Matches().replay(hand).ok
    return calls


def test_guandan_searches_in_two_looks_by_default_and_screen_0_is_one_look(monkeypatch):
    """Guandan's default is two looks on 2 deals first (search.SCREEN: one look kept fast's
    choice nearly always there); the other games, and ``screen=0``, look once."""
    assert [Search().screen_for(g) for g, _ in GAMES] == [0, 0, 2, 0]
    assert Search(screen=0).screen_for("guandan") == 0 and Search(screen=3).screen_for("doudizhu") == 3
    two = _looks(monkeypatch, Search(budget_ms=50, max_options=3))
    assert {n for n, second in two if not second} == {2} and any(second for _, second in two)
    one = _looks(monkeypatch, Search(budget_ms=50, max_options=3, screen=0))
    assert one and all(n >= 4 and not second for n, second in one)
