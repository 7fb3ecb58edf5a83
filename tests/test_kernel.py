"""The compiled kernel (replay/_kernel.pyx) against the pure-Python engine, the reference:
the same verdict (code, action, message, seat), events, outcome, summary and end state on
simulated hands of every variant and on the same hands broken in many ways.

Skipped where the kernel is not built, except that with PAIPU_REQUIRE_KERNEL=1 (set by
.ci/run) a missing kernel fails: CI always compares the two.
"""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys

import pytest

from test_text_reading import BASE_LINES, HAND, SEAT_AT, _item_tuples

from paipu.replay import replayer
from paipu.replay.rows import of_replay
from paipu.replay.cards import CARD_NAMES
from paipu.replay.kernel import compiled
from paipu.replay.replayer import Matches
from paipu.replay.sim import simulate
from paipu.replay.verdicts import Code

VARIANTS = (("doudizhu", "huopin", 30), ("paodekuai", "huopin", 30), ("paodekuai", "classic", 30),
            ("guandan", "standard", 8), ("shuangkou", "huopin", 8))

needs_kernel = pytest.mark.skipif(compiled is None, reason="the compiled kernel is not built here (PAIPU_PURE=1, "
                                  "or no C compiler at install)")


def test_the_kernel_is_there_where_required():
    if not os.environ.get("PAIPU_REQUIRE_KERNEL"):
        pytest.skip("PAIPU_REQUIRE_KERNEL is not set (.ci/run sets it)")
    assert compiled is not None, "PAIPU_REQUIRE_KERNEL=1 but paipu.replay._kernel was not built (see setup.py)"


def broken(record: dict, rng: random.Random) -> list[dict]:
    """The record broken in the ways a play loop must catch, each once (where it applies)."""
    actions = record["actions"]
    plays = [k for k, a in enumerate(actions) if a["act"] == "play"]
    passes = [k for k, a in enumerate(actions) if a["act"] == "pass"]
    out = []

    def change(k: int, **fields) -> None:
        bad = copy.deepcopy(record)
        bad["actions"][k].update(fields)
        out.append(bad)

    out.append({**record, "actions": actions[:-1]})  # incomplete
    out.append({**record, "actions": actions + [actions[-1]]})  # after the end
    for k in rng.sample(plays, min(4, len(plays))):
        cards = actions[k]["cards"]
        seat = actions[k]["seat"]
        change(k, cards=cards + cards[:1])  # a card twice
        change(k, cards=cards[:-1] or cards)  # a card short: another combination, or none
        change(k, cards=[rng.choice(CARD_NAMES)] + cards[1:])  # a card from anywhere
        change(k, cards=[rng.choice(record["deal"][seat])])  # a single from the seat's deal
        change(k, seat=(seat + 1) % len(record["deal"]))  # out of turn
        change(k, act="pass")  # a pass instead: on a lead, or while holding a play (must play)
        change(k, cards=cards[:1] + ["Zz"])  # not a card
        change(k, cards=tuple(cards))  # not a list: the Python path
        change(k, cards=[CARD_NAMES.index(cards[0]) if cards[0] in CARD_NAMES else 0])  # an id, not a name
        change(k, seat=bool(seat) if seat in (0, 1) else str(seat))  # a seat of another type
        change(k, **{"as": cards})  # a declared reading: the Python path
    for k in rng.sample(passes, min(3, len(passes))):
        seat = actions[k]["seat"]
        change(k, act="play", cards=[rng.choice(record["deal"][seat])])
        change(k, seat=(seat + 2) % len(record["deal"]))
    result = record.get("result") or {}
    for key, value in result.items():  # the declared result off: result_mismatch (or not, 1 for 1.0)
        if isinstance(value, list) and value and isinstance(value[0], (int, float)):
            out.append({**record, "result": {**result, key: [value[0] + 1] + value[1:]}})
            out.append({**record, "result": {**result, key: [float(x) for x in value]}})
        elif isinstance(value, bool):
            out.append({**record, "result": {**result, key: int(value)}})
    if plays:
        k = rng.choice(plays)
        bad = copy.deepcopy(record)
        bad["actions"].insert(k, {"seat": actions[k]["seat"], "act": "show", "factor": 2})
        out.append(bad)
    return out


def hands_of(game: str, variant: str, n: int) -> list[dict]:
    rng = random.Random(f"{game}/{variant}")
    good = list(simulate(game, variant, n, seed=7, escape_rate=0.05))
    return good + [bad for record in good for bad in broken(record, rng)]


def replayed(records: list[dict]) -> list:
    """Everything a replay gives, comparable: verdict, events, outcome, summary, end state."""
    matches = Matches()
    out = []
    for record in records:
        r = matches.replay(copy.deepcopy(record), detail=True)
        v = r.violation
        if v is not None and v.code == Code.ENGINE_ERROR:
            verdict = (v.code,)  # a traceback's frames differ between the two
        else:
            verdict = None if v is None else (str(v.code), v.action, v.message, v.seat)
        t = r.table
        state = None if t is None else (list(map(bytes, t.hands)), t.packed, t.left, t.active, t.out, t.turn, t.last,
                                        t.last_seat, t.passes, t.tricks, t.over, t.first_play_done, t.plays_by,
                                        t.cards_played)
        out.append((record.get("id"), verdict, [(e.kind, e.action, e.seat, e.data) for e in r.events], r.outcome,
                    of_replay(r), state))
    return out


@needs_kernel
@pytest.mark.parametrize("game,variant,n", VARIANTS)
def test_kernel_and_python_agree(game, variant, n, monkeypatch):
    records = hands_of(game, variant, n)
    fast = replayed(records)
    monkeypatch.setattr(replayer, "LOOP", replayer._Loop)
    monkeypatch.setattr(replayer, "RUN", replayer._run)
    slow = replayed(records)
    for a, b in zip(fast, slow):
        assert a == b, a[0]
    codes = {x[1][0] if x[1] else None for x in fast}
    # the hands reach the loop's verdicts (not only the deal check), legal ones included
    assert {None, "not_in_hand", "out_of_turn", "incomplete", "after_end", "bad_card"} <= codes, codes
    assert codes & {"invalid_combo", "does_not_beat"}, codes
    assert "result_mismatch" in codes, codes


@needs_kernel
def test_the_result_check_agrees_with_the_python_one():
    from paipu.replay.table import _same

    cases = [([1, 0], [True, False]), ([1], [1.0]), ([[1]], [[True]]), ([1, 2], [1, 2]), ([float("nan")], [float("nan")]),
             (["a"], ["a"]), ([1.0000001], [1.0]), ([], []), ([1], [1, 2]), (True, 1), (1, 1.0), (None, None),
             ({"a": 1}, {"a": 1}), ([None], [0]), ("x", "y"), ([[1, 2], [3]], [[1, 2], [3]]), ([1], (1,)), (2, 2.5)]
    answers = [_same(a, b) for a, b in cases]
    assert [compiled.same(a, b, _same) for a, b in cases] == answers
    assert answers.count(True) == 9


@needs_kernel
def test_the_result_check_names_the_same_field_as_the_python_one(monkeypatch):
    """compare_result with the kernel's loop over the declared fields (results_agree)
    against the Python loop: the same verdict and message (the first field that differs,
    fields the replay lacks skipped), or None."""
    from paipu.replay import table as table_module
    from paipu.replay.table import compare_result

    replayed = {"order": [0, 2, 1, 3], "scores": [2, -2, 2, -2], "levels": ["5", "2"], "upgrade": 3,
                "double_down": False, "multiplier": 2, "coins": [950, -1050, 950, -1050], "match_over": False}
    cases = [(dict(replayed), replayed), ({}, replayed), ({"unknown": 1, "scores": [2, -2, 2, -2]}, replayed),
             ({"scores": [2.0, -2.0, 2.0, -2.0], "upgrade": 3.0000000001}, replayed),
             ({"double_down": 0}, replayed), ({"match_over": False, "double_down": True}, replayed),
             ({"order": [0, 2, 1]}, replayed), ({"levels": ["5", "2"], "coins": [950, -1050, 950, -1049]}, replayed),
             ({"scores": [[2], -2, 2, -2]}, replayed), ({"scores": None}, replayed), ({"upgrade": "3"}, replayed),
             ({"order": [0, 2, 1, 3], "multiplier": True}, replayed), ({"levels": ("5", "2")}, replayed)]

    def checked() -> list:
        return [(v.code, v.message) if v else None for v in (compare_result(d, r) for d, r in cases)]

    fast = checked()
    monkeypatch.setattr(table_module, "RESULTS_AGREE", table_module._results_agree)
    assert checked() == fast
    assert fast.count(None) == 4
    assert fast[5][1] == "result.double_down: the record says True, the replay gives False"


@needs_kernel
def test_the_setup_fields_are_read_as_the_python_reading(monkeypatch):
    """HandSetup.of with the kernel's hand_setup against the Python reading: every field
    the same value of the same type (the record's own object where it gives one), on
    records with every field, none, false values and values of other types."""
    import dataclasses

    from paipu.replay import table as table_module
    from paipu.replay.table import HandSetup

    records = [r for game, variant, _ in VARIANTS for r in simulate(game, variant, 2, seed=7)]
    records += [{}, {"id": 7, "players": [], "deal": [], "room": [1], "leader": 0, "stacks": [], "match": 0},
                {"players": 0, "deal": "", "room": "x", "level": "", "levels": [], "lead_card": "3h", "bottom": []},
                {"players": ["a"], "deal": [["3h"]], "room": {}, "match": {"id": "m", "hand": 2}, "extra": 1}]
    names = [f.name for f in dataclasses.fields(HandSetup)]

    def read() -> list:
        specs = [HandSetup.of(r) for r in records]
        assert all(type(spec) is HandSetup for spec in specs)
        return [[(type(getattr(spec, n)), getattr(spec, n)) for n in names] for spec in specs]

    fast = read()
    spec = HandSetup.of(records[0])
    assert spec.deal is records[0]["deal"] and spec.room is records[0]["room"]
    monkeypatch.setattr(table_module, "HAND_SETUP", table_module._hand_setup)
    assert read() == fast
    assert fast[-4] == [(type(None), None), (list, []), (list, []), (type(None), None), (type(None), None),
                        (type(None), None), (dict, {}), (type(None), None), (type(None), None), (type(None), None),
                        (type(None), None)]


@needs_kernel
def test_the_kernel_state_starts_as_the_python_one():
    """The kernel's PlayState (Table's base where it is built) starts from the pure
    PlayState's defaults, and begin() sets the same seats as the pure one."""
    from paipu.replay.table import PlayState

    fields = compiled.FIELDS
    for n, detail in ((2, False), (3, True), (4, False)):
        fast, slow = compiled.PlayState(), PlayState()
        assert [getattr(fast, f) for f in fields[:9]] == [getattr(slow, f) for f in fields[:9]]
        fast.begin(n, detail)
        slow.begin(n, detail)
        kept = [f for f in fields if f != "combos"]
        assert [(type(getattr(fast, f)), getattr(fast, f)) for f in kept] == \
            [(type(getattr(slow, f)), getattr(slow, f)) for f in kept]
        # lists of their own, changed in place by the play
        assert len({id(fast.packed), id(fast.left), id(fast.plays_by), id(fast.cards_played), id(fast.active)}) == 5
    assert compiled.PlayState().plays == () and fast.n == 4


@needs_kernel
def test_the_pure_engine_is_the_same_without_the_kernel(tmp_path):
    """PAIPU_PURE=1 leaves the kernel out altogether (Table on the pure PlayState): the
    verdicts and outcomes of a subprocess so are those of the kernel here."""
    records = hands_of("paodekuai", "huopin", 6) + hands_of("doudizhu", "huopin", 6) + \
        hands_of("guandan", "standard", 3) + hands_of("shuangkou", "huopin", 3)
    path = tmp_path / "hands.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    code = ("import json, sys; from paipu.replay.replayer import replay; from paipu.replay.table import Table; "
            "from paipu.replay.kernel import compiled; assert compiled is None; "
            "assert Table.__mro__[1].__module__ == 'paipu.replay.table', Table.__mro__; "
            f"rs = [replay(r) for r in json.load(open({str(path)!r}))]; "
            "print(json.dumps([[r.violation and [str(r.violation.code), r.violation.action, r.violation.message], "
            "r.outcome] for r in rs]))")
    env = dict(os.environ, PAIPU_PURE="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    here = [[r.violation and [str(r.violation.code), r.violation.action, r.violation.message], r.outcome]
            for r in map(replayer.replay, records)]
    assert json.loads(out) == json.loads(json.dumps(here))


@needs_kernel
def test_one_deck_beats_agrees_with_the_python_test():
    """The kernel's one_deck_beats against combos.one_deck_beats on random hands of every
    count pattern and every reading of the one-deck games (and bombs, the rocket, keys past
    the ranks): the same True, False or None."""
    from paipu.replay.cards import pack_counts
    from paipu.replay.combos import Combo
    from paipu.replay.combos import one_deck_beats as python
    from paipu.replay.games import find_game, find_rules

    rng = random.Random(18)
    lasts = {c for game, variant, _ in VARIANTS[:3]
             for rs in find_game(game).engine.combo_table(find_rules(game, variant)).readings.values() for c in rs}
    lasts = sorted(lasts) + [Combo("single", 1, 14), Combo("pair", 2, -1), Combo("bomb", 4, 20, 1),
                             Combo("rocket", 2, 14, 2), Combo("odd", 3, 2, 3)]
    kinds = [find_rules(g, v).kinds for g, v, _ in VARIANTS[:3]] + [frozenset({"single", "pair"})]
    answers = set()
    for _ in range(20000):
        hand = pack_counts([rng.choice((0, 0, 1, 2, 3, 4)) for _ in range(13)] + [rng.randint(0, 1), rng.randint(0, 1)])
        last, allowed = rng.choice(lasts), rng.choice(kinds)
        want = python(hand, last, allowed)
        assert compiled.one_deck_beats(hand, last, allowed) == want and type(want) is type(
            compiled.one_deck_beats(hand, last, allowed)), (hand, last, allowed)
        answers.add(want)
    assert answers == {True, False, None}


def broken_deals(record: dict, rng: random.Random) -> list[tuple[object, object]]:
    """(deal, bottom) of the record, and broken in the ways the deal check must catch."""
    deal, bottom = record["deal"], record.get("bottom")
    out: list[tuple[object, object]] = [(deal, bottom)]

    def changed(seat: int, hand: list) -> list:
        return [hand if s == seat else h for s, h in enumerate(deal)]

    seat = rng.randrange(len(deal))
    other = (seat + 1) % len(deal)
    hand = deal[seat]
    out += [
        (changed(seat, hand[1:] + hand[:1]), bottom),  # the same cards in another order: right
        ([deal[other] if s == seat else deal[seat] if s == other else h for s, h in enumerate(deal)], bottom),
        (changed(seat, [hand[1]] + hand[1:]), bottom),  # a card twice, another missing
        (changed(seat, hand[:-1]), bottom),  # a card short
        (changed(seat, hand + hand[:1]), bottom),  # a card more
        (deal[:-1], bottom),  # a seat missing
        (deal + [[]], bottom),  # a seat more
        (changed(seat, hand[:-1] + ["Zz"]), bottom),  # not a card
        (changed(seat, hand[:-1] + [7]), bottom),  # an id, not a name
        (changed(seat, tuple(hand)), bottom),  # a tuple: the Python path
        (tuple(deal), bottom),
        (changed(seat, [CARD_NAMES[0]] * len(hand)), bottom),  # one card many times
    ]
    if bottom:
        out += [(deal, None), (deal, bottom[:-1]), (deal, tuple(bottom)), (deal, bottom[:-1] + ["Zz"]),
                (deal, bottom[:-1] + bottom[:1])]
    else:
        out += [(deal, []), (deal, [hand[0]])]
    return out


@needs_kernel
@pytest.mark.parametrize("game,variant,n", VARIANTS)
def test_the_deal_check_agrees_with_the_python_one(game, variant, n, monkeypatch):
    """Table.check_deal with the kernel's one-call check of a right deal (checked_deal)
    against the pure sums: the same verdict and message, and the same card counts, packed
    counts and cards left after a right deal."""
    from paipu.replay import table as table_module
    from paipu.replay.replayer import make_table

    rng = random.Random(f"deal/{game}/{variant}")
    cases = [case for record in simulate(game, variant, 3, seed=7) for case in broken_deals(record, rng)]
    record = next(simulate(game, variant, 1, seed=7))

    def checked(deal: object, bottom: object) -> tuple:
        table = make_table(record)
        v = table.check_deal(deal, bottom)  # type: ignore[arg-type]
        return (v and (str(v.code), v.message), list(map(bytes, table.hands)), list(table.packed), list(table.left))

    fast = [checked(*case) for case in cases]
    monkeypatch.setattr(table_module, "CHECKED_DEAL", table_module._checked_deal)
    slow = [checked(*case) for case in cases]
    assert fast == slow
    verdicts = [x[0] for x in fast]
    # right, 6 of each record: the deal, a hand reordered, two hands swapped, a tuple for a hand
    # and for the deal (the Python path), an empty list for no bottom or a tuple for the bottom
    assert verdicts.count(None) == 18
    assert {v[0] for v in verdicts if v} == {"bad_deal", "bad_card"}


@needs_kernel
def test_settlement_agrees_with_the_python_one(monkeypatch):
    """settle_coins with the kernel's whole-coin case (settle_whole) against the Python
    function on random scores, coefficients, fees and stacks: caps reached or not, floats,
    bools, numbers past the kernel's bounds, stacks missing: the same coins of the same types."""
    from paipu.replay import settle

    rng = random.Random(18)
    numbers = [0, 1, 2, 3, 10, 100, 1000, 2 ** 26, 2 ** 26 + 1, 2 ** 53, 2 ** 60, 2.0, 0.5, True]
    cases = []
    for _ in range(5000):
        n = rng.choice((2, 3, 4))
        scores = [rng.choice((-3, -2, -1, 1, 2, 6, 12)) for _ in range(n - 1)]
        scores.append(-sum(scores) + (rng.random() < 0.1))  # zero-sum, mostly
        if rng.random() < 0.1:
            scores[0] = rng.choice((2.0, True, 2 ** 27, -(2 ** 27)))
        coef, fee = rng.choice(numbers[:8] + [100, 1000]), rng.choice((0, 0, 10, 200, 2.5, 2 ** 54))
        if rng.random() < 0.1:
            coef = rng.choice(numbers)
        stacks = None if rng.random() < 0.1 else [rng.choice((10 ** 6,) * 12 + (50, 3000, 0, -5, 2 ** 54, 7.0))
                                                  for _ in range(n)]
        cases.append((scores, coef, fee, stacks))

    def settled():
        return [(x, [type(c) for c in x]) for x in (settle.settle_coins(*case) for case in cases)]

    fast = settled()
    monkeypatch.setattr(settle, "SETTLE_WHOLE", settle._settle_whole)
    assert settled() == fast
    # the kernel answers many and leaves many to Python
    answered = sum(compiled.settle_whole(*case) is not None for case in cases)
    assert 500 < answered < 4500, answered


# ------------------------------------------------------------ ingest: text lines, checks

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@needs_kernel
@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(__import__("tests.test_text_reading", fromlist=["TOKENS"]).TOKENS), min_size=1,
                max_size=7), st.sampled_from(["0", "2", "12", "١", "99999999999999999999"]))
def test_kernel_reads_action_lines_as_the_text_reader(tokens, seat):
    """The kernel's action line against io.text._parse_action: the same dict, keys in the
    same order, or the same exception and message."""
    from paipu.replay.io.text import _parse_action, _parse_action_full

    line = " ".join([seat, *tokens])

    def reading(parse):
        try:
            got = parse(line)
            return got, list(got)
        except Exception as e:  # noqa: BLE001  (any exception: the two must raise alike)
            return type(e), str(e)

    assert reading(lambda x: compiled.text_action(x, 7, _parse_action_full)) == reading(lambda x: _parse_action(x, 7))


@needs_kernel
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 200), st.integers(0, 80), st.text(" \t\u3000#{}@:0123456789abdsyexp١\"", max_size=6),
                          st.booleans()), max_size=6), st.booleans())
def test_kernel_reads_text_hands_as_the_pure_reader(edits, strict):
    """Whole text hands, good and spoilt by inserted or replacing text: the items (records,
    codes, messages, lines, raw text) with the kernel's line loop are the pure loop's."""
    from paipu.replay.io import text

    lines = list(BASE_LINES)
    for at, column, token, replace in edits:
        at %= len(lines)
        words = lines[at].split(" ")
        if replace and words:
            words[column % len(words)] = token
            lines[at] = " ".join(words)
        else:
            lines[at] = lines[at][:column] + token + lines[at][column:]
    data = "\n".join(lines).encode()
    fast = _item_tuples(text.items_of_text_blocks([(1, data)], "f", strict))
    old = text.LINES
    text.LINES = text._lines
    try:
        assert fast == _item_tuples(text.items_of_text_blocks([(1, data)], "f", strict))
    finally:
        text.LINES = old


_VALUES = {
    "seat": [0, 2, 3, -1, True, "0", 2 ** 70, -2 ** 70, 2 ** 63, None, 1.0],
    "act": ["play", "pass", "bid", "grab", "show", "fold", ["x"], 5, None],
    "t": [None, 0, 5, -1, 2 ** 53, 2 ** 53 + 1, 2 ** 63, 2 ** 64, -2 ** 64, 1.5, -0.0, -1.5, 2.0 ** 53, 2.0 ** 53 + 2,
          float("nan"), float("inf"), False, "5"],
    "cards": [[], ["3s"], ["3s", "4h"], ["3s", "3z"], [["3s"]], [3], "3s", ["3s", {"a": 1}], None],
    "call": [True, False, 1, None], "grab": [True, 0, None], "as": [["3s"], None], "declared": [["single", "3"]],
}


@st.composite
def _action(draw):
    if draw(st.integers(0, 20)) == 0:
        return draw(st.sampled_from([[], "play", None, 5]))
    keys = draw(st.lists(st.sampled_from(sorted(_VALUES)), unique=True))
    return {key: draw(st.sampled_from(_VALUES[key])) for key in ["seat", "act", *keys]
            if key in ("seat", "act") and draw(st.integers(0, 9)) or key in keys}


@needs_kernel
@settings(max_examples=1000, deadline=None)
@given(st.lists(_action(), max_size=8), st.booleans())
def test_kernel_checks_actions_as_the_record_checks(actions, strict):
    """The kernel's loop over a record's actions takes the same actions and sends the same
    ones (by index) to the precise check as record._check_actions."""
    from paipu.replay import record

    def sent(loop):
        out: list = []
        loop(actions, 3, strict, record._CARD_SET, lambda a, i, n, s: out.append((i, n, s)))
        return out

    assert sent(compiled.check_actions) == sent(record._check_actions)


_COLUMN_VALUES = {
    "seat": [0, 2, None, 300, "1"], "act": ["play", "pass", "bid", None, 5], "cards": [["3s", "4h"], [], None, [1], "3s"],
    "as": [["3s"], None], "call": [True, False, None, 1], "grab": [False, None], "factor": [2, None, 2 ** 40],
    "card": ["BJ", None], "to": [1, None], "t": [0, 5, 1.5, None, 2 ** 53, "x"], "note": ["x", None, [1, {"a": 2}]],
}


@st.composite
def _stored_action(draw):
    keys = draw(st.lists(st.sampled_from(sorted(_COLUMN_VALUES)), unique=True))
    return {key: draw(st.sampled_from(_COLUMN_VALUES[key])) for key in ["seat", "act", *keys]
            if key in keys or key in ("seat", "act") and draw(st.integers(0, 9))}


@needs_kernel
@settings(max_examples=500, deadline=None)
@given(st.lists(st.lists(_stored_action(), max_size=4), max_size=4))
def test_kernel_action_columns_give_the_struct_conversions_table(hands):
    """The actions table built from the kernel's field lists equals the one Arrow's struct
    conversion of the dicts gives (extras included), and fails where that one fails."""
    import pyarrow as pa

    from paipu.replay.io.dataset import ActionRows

    rows = ActionRows()
    for k, actions in enumerate(hands):
        rows.add(f"h{k}", actions)

    def table(columnar):
        try:
            return rows.to_arrow(columnar=columnar)
        except (pa.ArrowException, OverflowError, ValueError, TypeError):  # what ingest's batch catches
            return "fails"

    fast, slow = table(True), table(False)
    if isinstance(slow, str) or isinstance(fast, str):
        assert fast == slow
    else:
        assert fast.equals(slow), (fast.to_pylist(), slow.to_pylist())


FIELD_LINES = [
    'note: hello', 'note: 5', 'note: -0', 'note: 01', 'note: 1.5', 'note: 1e3', 'note: 12345678901234567890',
    'note: 1234567890123456789', 'note: [1, 2]\u3000', 'note: {"a": 1, "a": 2}', 'note: {"a": 1.0}', 'note: "\\ud800"',
    'note: "x.y"', 'note: NaN', 'note: [' + "[" * 210 + "]" * 211, 'note: true', 'note: null', 'note: ١', 'note: "中"',
    'note: {"a": 1} x', 'note:', 'note : 5', ' note: 5', 'bottom: 3s 4s', 'room: {"base": 2}', 'leader: 0',
    'game doudizhu huopin', 'game doudizhu', 'seat 1 bob: 3s', 'seat 1 "b o": 3s', 'seat 9 x: 3s', 'seat 1bob: 3s',
    'id: 5', 'players: []', 'x y', '9 pass',
    # the seat scan and the small-number reading (kernel.scan_seat, small_number)
    'seat 1\t\u3000bob:3s  4s', 'seat 1 bob:', 'seat 1 :3s', 'seat 1 b:o: 3s', 'seat ١ bob: 3s', 'seat 01 bob: 3s',
    'seat 1234567890 bob: 3s', 'seat 1 bob: 3s\u3000Th 10s', 'seat 1 中文: BJ SJ', 'note: 0', 'note: 00',
    'note: 123456789012345678', 'note: -5', 'note: 5 ',
]


@needs_kernel
@pytest.mark.parametrize("extra", FIELD_LINES)
@pytest.mark.parametrize("replace", [False, True])
def test_kernel_reads_field_lines_as_the_pure_reader(extra, replace):
    """Game, seat and field lines (JSON orjson may read and JSON it must leave to the
    standard decoder) added to a hand or replacing one of its lines: the same items."""
    from paipu.replay.io import text

    lines = list(HAND)
    if replace:
        lines[SEAT_AT if extra.startswith(("seat", "game")) else SEAT_AT + 3] = extra
    else:
        lines.insert(SEAT_AT + 3, extra)
    data = "\n".join(lines).encode()
    fast = _item_tuples(text.items_of_text_blocks([(1, data)], "f"))
    old = text.LINES
    text.LINES = text._lines
    try:
        assert fast == _item_tuples(text.items_of_text_blocks([(1, data)], "f"))
    finally:
        text.LINES = old
    by_line = [(n, line) for n, line in enumerate(data.split(b"\n"), 1)]
    assert fast == _item_tuples(text.items_of_text_lines(by_line, "f"))


@needs_kernel
@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(__import__("tests.test_text_reading", fromlist=["TOKENS"]).TOKENS
                                + ["3s@", "@00", "@9007199254740993", "@1234567890123456", "escape", "resist",
                                   "AS", "10s", "x" * 3, "0play", "false", "Yes", "as", "Th"]),
                min_size=0, max_size=8),
       st.sampled_from(["0", "2", "12", "007", "123456789", "1234567890", "١"]),
       st.lists(st.sampled_from([" ", "  ", "\t", " \x1f"]), min_size=8, max_size=8))
def test_kernel_scans_action_lines_as_the_text_reader(tokens, seat, gaps):
    """The byte scan of an action line (kernel.scan_action) gives the text reader's dict,
    keys in the same order, or None and leaves the line to the readers that name errors."""
    from paipu.replay.io.text import _parse_action

    line = seat + "".join(gap + token for gap, token in zip(gaps, tokens))
    scanned = compiled.text_scan(line)
    if scanned is not None:
        want = _parse_action(line, 7)
        assert (scanned, list(scanned)) == (want, list(want))
        assert type(scanned["seat"]) is int and type(scanned.get("t", 0)) is int


@needs_kernel
def test_kernel_scan_takes_the_usual_lines_and_leaves_the_rest():
    """Which lines the scan takes, value for value, and which it leaves to parse_action."""
    scan = compiled.text_scan
    assert scan("0 play 3s 4h @123") == {"seat": 0, "act": "play", "t": 123, "cards": ["3s", "4h"]}
    assert list(scan("0 play 3s 4h @123")) == ["seat", "act", "t", "cards"]
    assert scan("2 bid yes @5") == {"seat": 2, "act": "bid", "t": 5, "call": True}
    assert scan("1 grab false") == {"seat": 1, "act": "grab", "grab": False}
    assert scan("007  pass") == {"seat": 7, "act": "pass"}
    assert scan("0 play 10s BJ") == {"seat": 0, "act": "play", "cards": ["10s", "BJ"]}
    for line in ("0 play 3s as 4h", "0 play 3s @012", "0 play @5", "1 tribute 3s", "0 pass 3s", "0 bid maybe",
                 "0 play 3s@ 4h", "1234567890 pass", "0 play 3s\t4h", "0 play 3s {}", "0 pass @1234567890123456",
                 "١ pass", "0play 3s", "0 Play 3s"):
        assert scan(line) is None, line


@needs_kernel
@settings(max_examples=1500, deadline=None)
@given(st.text("seat 0123456789١\t\u3000:\"b中sTJ", max_size=16))
def test_kernel_reads_seat_lines_as_the_regex(tail):
    """A seat line (kernel.scan_seat, then the regex for what it leaves) read as
    text._PLAIN_SEAT reads it: the same seat, name and cards, or left for feed."""
    from paipu.replay.io import text

    line = ("seat " + tail).strip()
    taken, _, seats = compiled.text_header(line)
    m = text._PLAIN_SEAT.fullmatch(line)
    if m is None:
        assert not taken
    else:
        assert taken and seats == {int(m.group(1)): (m.group(2), m.group(3).split())}


# ------------------------------------------------------------ one seam per accelerated module

#: every module that reads the compiled kernel, and the names its one seam binds: each the
#: kernel's where it is built, else the pure-Python reference named beside it
SEAMS: dict[str, dict[str, tuple[str, str]]] = {
    "replay/kernel.py": {"one_deck_beats": ("one_deck_beats_python", "one_deck_beats")},
    "replay/replayer.py": {"LOOP": ("_Loop", "Loop"), "RUN": ("_run", "run")},
    "replay/record.py": {"CHECK_ACTIONS": ("_check_actions", "check_actions")},
    "replay/settle.py": {"SETTLE_WHOLE": ("_settle_whole", "settle_whole")},
    "replay/table.py": {"Base": ("PlayState", "PlayState"), "HAND_SETUP": ("_hand_setup", "hand_setup"),
                        "CHECKED_DEAL": ("_checked_deal", "checked_deal"),
                        "RESULTS_AGREE": ("_results_agree", "results_agree")},
    "replay/wild.py": {"WildTable": ("", "WildTable"), "WILD_MOVES": ("_wild_moves", "wild_moves"),
                       "WILD_COUNT": ("_wild_count", "wild_count")},
    "replay/io/dataset.py": {"ACTION_COLUMNS": ("_no_columns", "action_columns")},
    "replay/io/text.py": {"LINES": ("_lines", "text_lines")},
    "replay/games/guandan/__init__.py": {"BEATING_EXISTS": ("beating_exists", "guandan_beats")},
    "replay/games/shuangkou/__init__.py": {"BEATING_EXISTS": ("beats_but_chains", "shuangkou_beats")},
}


def _module_of(path: str):
    import importlib

    return importlib.import_module("paipu." + path.removesuffix(".py").removesuffix("/__init__").replace("/", "."))


def _seams_in_source(source: str) -> list[tuple[int, set[str]]]:
    """The top-level statements of a module's source that read ``compiled`` (its import and,
    in replay/kernel.py, the statements that bind ``compiled`` itself left out): (line, the
    names each binds)."""
    import ast

    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom):
            continue
        if not any(isinstance(n, ast.Name) and n.id == "compiled" for n in ast.walk(node)):
            continue
        bound = {t.id for n in ast.walk(node) if isinstance(n, (ast.Assign, ast.AnnAssign))
                 for target in (n.targets if isinstance(n, ast.Assign) else [n.target])
                 for t in ast.walk(target) if isinstance(t, ast.Name)}
        bound |= {alias.asname or alias.name for n in ast.walk(node) if isinstance(n, ast.ImportFrom)
                  for alias in n.names}
        if bound <= {"compiled"}:
            continue  # the kernel's import itself (replay/kernel.py)
        found.append((node.lineno, bound))
    return found


def test_each_accelerated_module_chooses_in_one_seam():
    """Read from the sources: every module of paipu that names the compiled kernel does so
    in exactly one top-level statement, its seam, which binds the names SEAMS lists (no
    function reads ``compiled``, so no hot path branches on it); and each name is the
    kernel's function where the kernel is built, the pure reference beside it otherwise."""
    from pathlib import Path

    import paipu

    root = Path(paipu.__file__).parent
    readers = {}
    for path in sorted([*root.glob("*.py"), *(root / "replay").rglob("*.py"), *(root / "analysis").rglob("*.py")]):
        rel = path.relative_to(root).as_posix()
        source = path.read_text(encoding="utf-8")
        if "compiled" in source:
            seams = _seams_in_source(source)
            if seams:
                readers[rel] = seams
    assert sorted(readers) == sorted(SEAMS)
    for rel, seams in readers.items():
        assert len(seams) == 1, (rel, [line for line, _ in seams])
        (_, bound), = seams
        assert bound == set(SEAMS[rel]), rel
        module = _module_of(rel)
        for name, (pure, fast) in SEAMS[rel].items():
            want = getattr(compiled, fast) if compiled is not None else getattr(module, pure) if pure else None
            assert getattr(module, name) is want, (rel, name)


def _seam_cases():
    """(seam, pure reference, kernel function, argument tuples): small known inputs."""
    from paipu.replay import record as record_module
    from paipu.replay import settle, table, wild
    from paipu.replay.cards import pack_counts
    from paipu.replay.combos import Combo, one_deck_beats
    from paipu.replay.games import guandan, shuangkou
    from paipu.replay.replayer import make_table

    yield "kernel.one_deck_beats", one_deck_beats, compiled.one_deck_beats, [
        (pack_counts([0, 0, 4] + [1] * 10 + [0, 0]), Combo("single", 1, 12, 0), frozenset({"bomb"})),  # a bomb of 5s
        (pack_counts([1] * 13 + [0, 0]), Combo("single", 1, 12, 0), frozenset({"bomb"})),  # nothing above a 2
        (pack_counts([1] * 13 + [1, 1]), Combo("bomb", 4, 3, 1), frozenset({"rocket"})),  # the rocket
        (pack_counts([2] * 13 + [0, 0]), Combo("pair", 2, 5, 0), frozenset())]
    yield "settle.SETTLE_WHOLE", settle._settle_whole, compiled.settle_whole, [
        ([2, -1, -1], 100, 0, [1000, 1000, 1000]), ([2, -1, -1], 100, 10, [1000, 1000, 1000]),
        ([2, -1, -1], 100, 10, [1000, 50, 1000]), ([1, -1], 100, 95, [1000, 100]), ([2, -1, -2], 100, 0, [1000] * 3),
        ([2, -1, -1], 2.0, 0, [1000] * 3), ([True, -1, 0], 100, 0, [1000] * 3), ([2, -1, -1], 100, 0, None),
        ([2, -1, -1], 2 ** 27, 0, [2 ** 60] * 3), ([2, -1, -1], 100, 0, [1000.0] * 3)]
    actions = [{"seat": 0, "act": "play", "cards": ["3s"]}, {"seat": 1, "act": "pass"}, {"seat": 2, "act": "bid", "call": True},
               {"seat": 0, "act": "play", "cards": ["3z"]}, {"seat": "1", "act": "pass"}, [], {"act": "play"}]

    def check_actions(loop, *args):  # the actions the loop takes, and those it sends to the precise check
        sent: list = []
        loop(*args, lambda a, i, n, s: sent.append((i, n, s)))
        return sent

    yield "record.CHECK_ACTIONS", lambda *a: check_actions(record_module._check_actions, *a), \
        lambda *a: check_actions(compiled.check_actions, *a), [
            (actions, 3, True, record_module._CARD_SET), (actions, 3, False, record_module._CARD_SET), ([], 3, True, record_module._CARD_SET)]
    records = [next(simulate(game, variant, 1, seed=3)) for game, variant, _ in VARIANTS]
    yield "table.HAND_SETUP", lambda r: _fields(table._hand_setup(table.HandSetup, r)), \
        lambda r: _fields(compiled.hand_setup(table.HandSetup, r)), [
            (records[0],), ({},), ({"players": 0, "deal": "", "room": "x", "level": "5", "stacks": [1, 2]},)]
    deals = []
    for r in records:
        kit = table.DealKit.of(make_table(r).rules)
        deal, bottom = r["deal"], r.get("bottom")
        swapped = [list(h) for h in deal]
        swapped[0][0], swapped[1][0] = swapped[1][0], swapped[0][0]
        doubled = [list(h) for h in deal]
        doubled[0][0] = doubled[0][1]
        bad = [list(h) for h in deal]
        bad[1][0] = "3x"
        for d in (deal, swapped, doubled, bad, tuple(deal), deal[:-1]):
            deals.append((d, bottom, kit.sizes, len(bottom or []), kit.counts))
    yield "table.CHECKED_DEAL", lambda *a: _dealt(table._checked_deal(*a)), lambda *a: _dealt(compiled.checked_deal(*a)), deals
    result = {"scores": [2, -1, -1], "spring": False, "multiplier": 4}
    yield "table.RESULTS_AGREE", table._results_agree, compiled.results_agree, [
        (result, dict(result), table._same), ({"scores": [2.0, -1, -1]}, result, table._same),
        ({"scores": [2, -1, 1]}, result, table._same), ({"spring": 0}, result, table._same),
        ({"other": 1}, result, table._same), ([], result, table._same)]
    yield "table.Base", lambda n, d: _state(table.PlayState(), n, d), lambda n, d: _state(compiled.PlayState(), n, d), [
        (3, False), (4, True)]
    gd = make_table(records[3])
    gd.setup()
    hand = gd.hands[0]
    natural = gd.packed[0] - (hand[gd.wild] << (5 * gd.level))
    plays = [Combo("single", 1, 3, 0), Combo("pair", 2, 12, 0), Combo("straight", 5, 8, 0), Combo("bomb", 4, 5, 5)]
    yield "guandan.BEATING_EXISTS", guandan.beating_exists, compiled.guandan_beats, [
        (hand, natural, w, gd.level, last, gd.rules.kinds) for last in plays for w in (0, hand[gd.wild])]
    sk = make_table(records[4])
    sk.setup()
    rules = sk.rules
    yield "shuangkou.BEATING_EXISTS", shuangkou.beats_but_chains, compiled.shuangkou_beats, [
        (sk.packed[s] & shuangkou.NATURAL, sk.hands[s][52], sk.hands[s][53], last, rules.kinds, rules.max_bomb,
         rules.chain_min_bombs) for s in range(4) for last in plays[:3]]

    def moves(fill, entries_of, t, seat):  # the legal moves of a Guandan seat with the given loop
        gen = t.combos._wild_moves or wild.WildMoves.of(t.combos, 4)
        saved = gen.fill, gen.entries
        gen.fill, gen.entries = fill, entries_of(gen)
        try:
            return [(sorted(cards), readings) for cards, readings in t.legal_moves(seat)]
        finally:
            gen.fill, gen.entries = saved

    gd.legal_moves(0)  # (the table's WildMoves made)
    fast_entries = gd.combos._wild_moves.entries
    yield "wild.WILD_MOVES", lambda s: moves(wild._wild_moves, lambda g: g, gd, s), \
        lambda s: moves(compiled.wild_moves, lambda g: fast_entries, gd, s), [(0,), (1,), (2,), (3,)]

    def counted(fill, entries_of, t, seat, last):  # a Guandan seat's moves counted with the given loop
        gen = t.combos._wild_moves
        saved = gen.count_fill, gen.entries, t.last
        gen.count_fill, gen.entries, t.last = fill, entries_of(gen), last
        try:
            return t.count_moves(seat)
        finally:
            gen.count_fill, gen.entries, t.last = saved

    yield "wild.WILD_COUNT", lambda s, last: counted(wild._wild_count, lambda g: g, gd, s, last), \
        lambda s, last: counted(compiled.wild_count, lambda g: fast_entries, gd, s, last), [
            (s, last) for s in range(4) for last in (None, (plays[0],), (plays[2],), (plays[3],))]
    yield "dataset.ACTION_COLUMNS", lambda flat: _fields_of(flat, False), lambda flat: _fields_of(flat, True), [
        ([a for r in records for a in r["actions"]],), ([{"seat": 0, "act": "play", "cards": ["3s"], "note": 1}],), ([],)]
    yield "text.LINES", lambda data: _read_text(data, "_lines"), lambda data: _read_text(data, None), [
        ("\n".join(HAND).encode(),), ("\n".join(HAND[:SEAT_AT] + ["seat 1 oops"] + HAND[SEAT_AT + 1:]).encode(),)]
    yield "replayer.RUN", lambda r: _ran(replayer._run, r), lambda r: _ran(compiled.run, r), [
        (r,) for r in records + [{**records[0], "actions": records[0]["actions"] + records[0]["actions"][-1:]}]]
    yield "replayer.LOOP", lambda r: _stepped(replayer._Loop, r), lambda r: _stepped(compiled.Loop, r), [
        (r,) for r in records[:3]]


def _fields(spec) -> list:
    import dataclasses

    return [(type(getattr(spec, f.name)), getattr(spec, f.name)) for f in dataclasses.fields(spec)]


def _dealt(dealt) -> object:
    return dealt if dealt is None else (list(map(bytes, dealt[0])), dealt[1], dealt[2])


def _state(state, n: int, detail: bool) -> list:
    state.begin(n, detail)
    return [(f, type(getattr(state, f)), getattr(state, f)) for f in compiled.FIELDS if f != "combos"]


def _fields_of(flat: list, columnar: bool) -> tuple:
    from paipu.replay.io import dataset

    fields, maybe = dataset._action_fields(flat, columnar)
    return {name: array.to_pylist() for name, array in fields.items()}, \
        maybe if maybe is not None else dataset._maybe_extra(flat, fields)


def _read_text(data: bytes, loop: str | None) -> list:
    from paipu.replay.io import text

    old = text.LINES
    text.LINES = getattr(text, loop) if loop else compiled.text_lines
    try:
        return _item_tuples(text.items_of_text_blocks([(1, data)], "f", True))
    finally:
        text.LINES = old


def _ran(run, record: dict) -> tuple:
    table = replayer.make_table(record)
    table.setup()
    reached, v = run(table, record["actions"])
    return reached, v and (str(v.code), v.action, v.message), table.out, table.left, table.tricks


def _stepped(loop, record: dict) -> list:
    table = replayer.make_table(record)
    table.setup()
    take = loop(table).take
    out = []
    for i, action in enumerate(record["actions"]):
        v = take(i, action)
        out.append(v and (str(v.code), v.message))
    return out + [table.out, table.left, table.over]


@needs_kernel
def test_each_seam_gives_the_pure_references_results():
    """For each seam, its pure-Python reference and the kernel's function on the same small
    known inputs: the same results, of the same types."""
    from paipu.replay.settle import _settle_whole

    assert [_settle_whole([2, -1, -1], 100, fee, [1000, 1000, 1000]) for fee in (0, 10)] == [
        [200, -100, -100], [190, -110, -110]]
    assert _settle_whole([2, -1, -1], 100, 10, [1000, 50, 1000]) is None  # a cap reached: settle_coins works it out
    seen = set()
    for seam, pure, fast, cases in _seam_cases():
        seen.add(seam.split(".")[1])
        for args in cases:
            want, got = pure(*args), fast(*args)
            assert got == want and type(got) is type(want), (seam, args)
    assert seen == {name for names in SEAMS.values() for name in names} - {"WildTable"}  # (WILD_MOVES reads it)
