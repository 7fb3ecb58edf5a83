"""A corpus of the engine's violation messages: simulated hands of every game and variant,
each changed one way at a time (a seat, a card, a pass, an act, the deal, the result,
the params), and hand-made records for the record checks; every distinct message kept."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from paipu.replay.cards import CARD_NAMES
from paipu.replay.games import find_rules, games
from paipu.replay.record import check_record
from paipu.replay.replayer import Matches, replay, table_or_violation
from paipu.replay.sim import simulate
from paipu.replay.verdicts import Code, RecordError

#: every (game, variant) registered
VARIANTS = [(g.name, v) for g in games() for v in g.variants]


def _hands(game: str, variant: str, n: int) -> list[dict]:
    return list(simulate(game, variant, n, 7))


def _held(record: dict, seat: int, upto: int) -> list[str]:
    """The cards *seat* holds before action *upto* (tribute and returns counted)."""
    from collections import Counter

    hand = Counter(record["deal"][seat])
    if record.get("bottom") and record.get("result", {}).get("landlord") == seat:
        hand.update(record["bottom"])
    for a in record["actions"][:upto]:
        if a["act"] == "play" and a["seat"] == seat:
            hand.subtract(a["cards"])
        elif a["act"] in ("tribute", "return"):
            if a["seat"] == seat:
                hand[a["card"]] -= 1
            if a["to"] == seat:
                hand[a["card"]] += 1
    return sorted(c for c, k in hand.items() for _ in range(k) if k > 0)


def _action_mutants(record: dict) -> Iterator[dict]:
    """One change at each action: another seat, a pass, another card, another act."""
    n = len(record["players"])
    actions = record["actions"]
    for i, a in enumerate(actions):
        if not (i < 12 or i % 9 == 0 or i == len(actions) - 1):
            continue

        def changed(new: Any, at: int = i, insert: bool = False) -> dict:
            bad = copy.deepcopy(record)
            bad.pop("result", None)
            if insert:
                bad["actions"].insert(at, new)
            else:
                bad["actions"][at] = new
            return bad

        seat = a["seat"]
        for d in range(1, n):
            yield changed({**a, "seat": (seat + d) % n})
        yield changed({"seat": seat, "act": "pass"})
        held = _held(record, seat, i)
        others = sorted({c for c in CARD_NAMES[:54]} - set(held))
        if a["act"] == "play":
            yield changed({**a, "cards": [others[i % len(others)]] + a["cards"][1:]})
            yield changed({**a, "cards": held[:1]})
            yield changed({**a, "cards": held[:2]})
            yield changed({**a, "cards": held[-3:]})
            yield changed({**a, "cards": ["Zz"]})
            yield changed({**a, "as": ["Zz"] * len(a["cards"])})
            yield changed({**a, "declared": ["pair", "3"]})
            yield changed({**a, "declared": ["single", "A"]})
        if a["act"] in ("tribute", "return"):
            for card in held[:3] + held[-3:] + ["Zz", others[0]]:
                yield changed({**a, "card": card})
            for to in range(n):
                yield changed({**a, "to": to})
            yield changed({"seat": seat, "act": "resist"})
            yield changed({**a, "act": "return" if a["act"] == "tribute" else "tribute"})
            yield changed(dict(a), insert=True)
        if a["act"] in ("bid", "grab"):
            flag = "call" if a["act"] == "bid" else "grab"
            yield changed({"seat": seat, "act": "grab" if flag == "call" else "bid",
                           "grab" if flag == "call" else "call": a[flag]})
            yield changed({**a, flag: not a[flag]})
            yield changed(dict(a), insert=True)
        for act in ("bid", "grab", "tribute", "return", "resist", "escape"):
            extra: dict[str, Any] = {"seat": seat, "act": act}
            if act == "bid":
                extra["call"] = True
            if act == "grab":
                extra["grab"] = True
            if act in ("tribute", "return"):
                extra.update(card=held[-1] if held else "3h", to=(seat + 1) % n)
            yield changed(extra, insert=True)
        for factor in (1, 2, 3, 5):
            yield changed({"seat": seat, "act": "show", "factor": factor}, insert=True)
            yield changed({"seat": (seat + 1) % n, "act": "show", "factor": factor}, insert=True)
        for k in range(4):
            yield changed({"seat": seat, "act": "peek"}, insert=True) if k == 0 else \
                _peeks(record, i, seat, k + 1)
    for cut in sorted({0, 1, 2, 3, 5, 8, len(actions) // 2, len(actions) - 1}):
        bad = copy.deepcopy(record)
        del bad["actions"][cut:]
        yield bad
    longer = copy.deepcopy(record)
    longer["actions"].append({"seat": 0, "act": "pass"})
    yield longer


def _peeks(record: dict, i: int, seat: int, times: int) -> dict:
    bad = copy.deepcopy(record)
    bad.pop("result", None)
    bad["actions"][i:i] = [{"seat": seat, "act": "peek"}] * times
    return bad


def _deal_mutants(record: dict) -> Iterator[dict]:
    n = len(record["players"])
    bad = copy.deepcopy(record)
    bad["deal"][0][0] = bad["deal"][1][0]
    yield bad
    bad = copy.deepcopy(record)
    bad["deal"][0].pop()
    yield bad
    bad = copy.deepcopy(record)
    bad["deal"][0][0] = "Zz"
    yield bad
    bad = copy.deepcopy(record)
    bad["deal"].append([])
    yield bad
    if record.get("bottom"):
        bad = copy.deepcopy(record)
        bad["bottom"].pop()
        yield bad
    for key, value in record.get("result", {}).items():
        bad = copy.deepcopy(record)
        if isinstance(value, bool):
            bad["result"][key] = not value
        elif isinstance(value, int):
            bad["result"][key] = value + 1
        elif isinstance(value, list) and value and isinstance(value[0], int):
            bad["result"][key] = [x + 1 for x in value]
        elif isinstance(value, list):
            bad["result"][key] = value[::-1] + ["2"]
        elif isinstance(value, str):
            bad["result"][key] = "double" if value != "double" else "single"
        yield bad
    for key in ("leader", "lead_card", "level", "levels"):
        for value in ({"leader": [0, 1, n - 1], "lead_card": ["3h", "BJ"], "level": ["A", "5", "Z"],
                       "levels": [["A", "2"], ["3", "3"]]}[key]):
            bad = copy.deepcopy(record)
            bad[key] = value
            bad.pop("result", None)
            yield bad


def _params_messages(game: str, variant: str) -> Iterator[str]:
    """What a record's params that do not fit its rules get (make_table's ValueError; the
    rules alone, so that no combination table is built for them)."""
    rules = find_rules(game, variant)
    for key in rules.param_names() + ["deck", "x1"]:
        for value in (1.5, "5", [1], True, -1, 0, 1, 53, ["x1"], None):
            try:
                rules.with_params({key: value})
            except ValueError as e:
                yield str(e)
    try:
        rules.with_params([1])  # type: ignore[arg-type]
    except ValueError as e:
        yield str(e)


def _messages_of(records: Iterator[dict], matches: bool = False) -> Iterator[str]:
    for record in records:
        try:
            table, v = table_or_violation(record)
        except Exception:  # noqa: BLE001 - rules the engine cannot build (not a message)
            continue
        if v is None:
            v = replay(record).violation
        if v is not None and v.code != Code.ENGINE_ERROR:
            yield v.message


def _match_messages(game: str, variant: str) -> Iterator[str]:
    """Hands of a match replayed after the previous one: the match checks and the tribute."""
    hands = _hands(game, variant, 4)
    for k in range(1, len(hands)):
        m = Matches()
        for h in hands[:k]:
            m.replay(h)
        previous = m.previous(hands[k])
        mutants = [hands[k]] + list(_action_mutants(hands[k])) + list(_deal_mutants(hands[k]))
        for bad in mutants:
            v = replay(bad, previous=previous).violation
            if v is not None and v.code != Code.ENGINE_ERROR:
                yield v.message
    v = replay(hands[1], previous={"match_over": True, "match_winner": 1}).violation
    if v is not None:
        yield v.message
    first = copy.deepcopy(hands[0])
    first["level"] = "3"
    v = replay(first).violation
    if v is not None:
        yield v.message


#: records the record checks (replay/record.py) refuse, one fault each
def _bad_records() -> Iterator[Any]:
    base = {"paipu": 1, "id": "h1", "game": "ddz", "variant": "huopin", "players": ["a", "b", "c"],
            "deal": [["3h"], ["4h"], ["5h"]], "bottom": ["6h", "7h", "8h"], "actions": []}

    def with_(**kw: Any) -> dict:
        r = copy.deepcopy(base)
        for k, v in kw.items():
            if v is None:
                r.pop(k, None)
            else:
                r[k] = v
        return r

    yield [1]
    yield with_(paipu=2)
    yield with_(paipu=None)
    yield with_(id="")
    yield with_(id=5)
    yield with_(game="x9")
    yield with_(variant="x9")
    yield with_(players=["a"])
    yield with_(players=["a", 2, "c"])
    yield with_(deal=[[], []])
    yield with_(deal=[["3h"], ["4h"], "5h"])
    yield with_(deal=[["3h"], ["4h"], ["1x"]])
    yield with_(bottom=None)
    yield with_(actions=None)
    yield with_(result=[1])
    yield with_(time=5)
    yield with_(room={"base": "1"})
    yield with_(stacks=[1])
    yield with_(stacks=[1, 2, "3"])
    yield with_(match={"id": "m1"})
    yield with_(match={"id": "m1", "hand": -1})
    yield with_(levels=["2"])
    yield with_(level="1")
    yield with_(leader=7)
    yield with_(lead_card="1x")
    yield with_(params=[1])
    for action in ([1], {"act": "play"}, {"seat": 7, "act": "play"}, {"seat": 0, "act": "fl"},
                   {"seat": 0, "act": "play", "cards": ["3h"], "t": -1}, {"seat": 0, "act": "play", "cards": []},
                   {"seat": 0, "act": "play", "cards": ["3h"], "as": ["3h", "4h"]},
                   {"seat": 0, "act": "play", "cards": ["3h"], "declared": "x"}, {"seat": 0, "act": "bid"},
                   {"seat": 0, "act": "grab"}, {"seat": 0, "act": "show", "factor": 2 ** 40},
                   {"seat": 0, "act": "tribute", "card": "1x", "to": 1},
                   {"seat": 0, "act": "return", "card": "3h", "to": 9}):
        yield with_(actions=[action])
    yield with_(time="\ud800")
    yield with_(stacks=[1, 2, 2 ** 70])
    yield with_(room={"x": float("nan")})
    deep: Any = []
    for _ in range(300):
        deep = [deep]
    yield with_(room={"x": deep})
    yield with_(room={"\ud800": 1})


def record_messages() -> Iterator[str]:
    """The record checks' messages, as RecordError holds them and as a verdict shows them
    (``field "…": …``)."""
    for obj in _bad_records():
        try:
            check_record(obj)
        except RecordError as e:
            yield e.message
            yield str(e).split(": ", 1)[1]


def corpus() -> set[str]:
    """Every distinct message of the changed hands and the refused records."""
    found: set[str] = set()
    for game, variant in VARIANTS:
        hands = _hands(game, variant, 1)
        for record in hands:
            found.update(_messages_of(_action_mutants(record)))
            found.update(_messages_of(_deal_mutants(record)))
        found.update(_params_messages(game, variant))
        if game == "guandan":
            found.update(_match_messages(game, variant))
    found.update(_hand_made())
    found.update(record_messages())
    return found


def _first_fit(record: dict, previous: dict | None, candidates: list[dict]) -> dict | None:
    """The first of *candidates* the hand takes as its next action (None: none)."""
    for a in candidates:
        bad = copy.deepcopy(record)
        bad["actions"].append(a)
        v = replay(bad, previous=previous).violation
        if v is None or v.code == Code.INCOMPLETE:
            return a
    return None


def _guandan_tribute(previous: dict, jokers_to: list[int]) -> tuple[dict, list[dict]]:
    """A Guandan hand after *previous* (its order and levels), both big jokers dealt to
    *jokers_to* (one each, or both to one seat), and the tributes the seats can pay."""
    record = copy.deepcopy(_hands("guandan", "standard", 1)[0])
    record.pop("result", None)
    record["match"] = {"id": "m1", "hand": 2}
    record["levels"], record["level"] = ["2", "2"], "2"
    record.pop("leader", None)
    record["actions"] = []
    deal = record["deal"]
    for k, seat in enumerate(jokers_to):
        holder = next(s for s in range(4) if "BJ" in deal[s] and (s != seat or deal[s].count("BJ") > 1) and
                      not (s in jokers_to[:k] and s != seat))
        if holder == seat:
            continue
        give = next(c for c in deal[seat] if c != "BJ")
        deal[holder][deal[holder].index("BJ")], deal[seat][deal[seat].index(give)] = give, "BJ"
    tributes = []
    for g in range(4):
        for to in range(4):
            a = _first_fit(record, previous, [{"seat": g, "act": "tribute", "card": c, "to": to}
                                              for c in sorted(set(deal[g]))])
            if a is not None:
                tributes.append(a)
    return record, tributes


def _hand_made() -> Iterator[str]:
    """Hand-made hands for the messages the changed hands above do not reach."""
    def message(record: dict, actions: list[dict], previous: dict | None = None) -> str | None:
        bad = copy.deepcopy(record)
        bad["actions"] = actions
        v = replay(bad, previous=previous).violation
        return None if v is None else v.message

    found: list[str | None] = []
    # Dou Dizhu: a seat shows twice before the bidding
    ddz = _hands("doudizhu", "huopin", 1)[0]
    show = {"seat": 0, "act": "show", "factor": 5}
    found.append(message(ddz, [show, show] + ddz["actions"]))
    # Guandan: both big jokers with the givers (resisting), and a 双下's two tributes
    single = {"order": [0, 1, 2, 3], "levels": ["2", "2"]}
    double = {"order": [0, 2], "levels": ["2", "2"]}
    for previous, jokers in ((single, [3, 3]), (double, [1, 3])):
        record, _ = _guandan_tribute(previous, jokers)
        giver = jokers[0]
        resist = {"seat": giver, "act": "resist"}
        pay = {"seat": giver, "act": "tribute", "card": "BJ", "to": 0}
        play = {"seat": 0, "act": "play", "cards": [record["deal"][0][0]]}
        found += [message(record, [resist, resist], previous), message(record, [resist, pay], previous),
                  message(record, [pay], previous), message(record, [play], previous)]
    record, tributes = _guandan_tribute(double, [])
    card = {a["seat"]: a["card"] for a in tributes}
    for first in (0, 2):  # seat 1 pays to seat 0, or to seat 2 (the larger to the second place)
        paid = [{"seat": 1, "act": "tribute", "card": card[1], "to": first},
                {"seat": 3, "act": "tribute", "card": card[3], "to": 2 - first}]
        returns = []
        for a in paid:
            back = _first_fit({**record, "actions": paid + returns}, double,
                              [{"seat": a["to"], "act": "return", "card": c, "to": a["seat"]}
                               for c in sorted(set(record["deal"][a["to"]]))])
            if back is not None:
                returns.append(back)
        for s in range(4):
            found.append(message(record, paid + returns + [{"seat": s, "act": "play", "cards": [record["deal"][s][0]]}],
                                 double))
    # Shuangkou: both copies of the drawn card dealt, and no leader named
    sk = copy.deepcopy(_hands("shuangkou", "huopin", 1)[0])
    sk.pop("leader", None)
    sk["lead_card"] = next(c for c in sk["deal"][0] if c not in sk["deal"][1] and any(c in h for h in sk["deal"][1:]))
    found.append(message(sk, sk["actions"]))
    # the page's own: a hand whose actions stop early
    from paipu.replay.html import hand_data

    cut = copy.deepcopy(ddz)
    del cut["actions"][5:]
    v = hand_data(cut)["violation"]
    found.append(v and v["message"])
    yield from (m for m in found if m)
