"""Botzone match logs of GuanDan (掼蛋): importer and writer (docs/formats.md §6.1).

The log is Botzone's (``{"log": [...], "initdata": ...}``: even entries the judge's output,
odd entries the bots' answers keyed by seat, :mod:`.botzone`); what the GuanDan judge asks
and the bots answer is as the published GuanDan bots describe Botzone's protocol (its wiki
page ``GuanDan``; the shape is documented, with what was assumed, in docs/formats.md):

- cards 0..107, two decks: ``card % 54`` is the card, 52 the small and 53 the big joker,
  else ``// 4`` the rank in the order A 2 3 … K and ``% 4`` the suit ♥ ♦ ♠ ♣;
- requests by ``stage``: ``deal`` (``deliver`` the seat's 27 cards, ``your_id``, and
  ``global``: ``level`` "2".."A", ``tribute`` 0, 1 or 2 tributes due, ``first`` and ``last``
  the previous hand's first place and its paying seat), ``tribute`` and ``return`` (the
  answer ``[card]``), ``play`` (the answer ``[cards, claim]``: the cards played and what
  each stands for, ``[[], []]`` a pass; ``history``, ``done`` and ``pass_on`` tell the bot
  the table); ``global.resist`` true when the payers resisted (抗贡);
- the judge's ``finish`` scores: the team that scored more won.

The record (``guandan/standard``, its ``level``) has the deal, the tributes (to the first
place; after two, the larger to the first place and the other to its partner), the
returns, a ``resist`` by the paying seat, the plays with ``as`` where the claim is not the
cards themselves (wild hearts), ``result.winning_team``; the answers' ``time``, ``memory``
and ``verdict`` on each action, the judge's ``tribute``, ``first`` and ``last`` in
``botzone``.
"""

from __future__ import annotations

from typing import Any

from .botzone_log import KEPT, _answer, _output
from .foreign import Doc, FormatError, hand_id, seat_of

#: Botzone's GuanDan ranks, card % 54 // 4, as paipu's rank names; its suits, card % 4
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
SUITS = "hdsc"
DECK = 54
GAME = "GuanDan"


def card_name(c: object, field: str) -> str:
    if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 2 * DECK:
        raise FormatError(field, f"a card 0..107, got {c!r}")
    b = c % DECK
    return "SJ" if b == 52 else "BJ" if b == 53 else RANKS[b // 4] + SUITS[b % 4]


def card_number(token: str) -> int:
    """The first deck's number of a card (add 54 for the second deck's)."""
    return 52 if token == "SJ" else 53 if token == "BJ" else RANKS.index(token[:-1]) * 4 + SUITS.index(token[-1])


def cards(value: object, field: str) -> list[str]:
    if not isinstance(value, list):
        raise FormatError(field, f"a list of cards 0..107, got {value!r}")
    return [card_name(c, f"{field}[{k}]") for k, c in enumerate(value)]


def is_guandan(log: list) -> bool:
    """True when the log's first judge request is GuanDan's deal (``stage`` ``deal``)."""
    content = _output(log[0]).get("content") if log else None
    return isinstance(content, dict) and any(isinstance(r, dict) and r.get("stage") == "deal" for r in content.values())


def log_to_record(obj: dict, source: str, doc: Doc) -> dict:
    """One Botzone GuanDan match log as a hand record (raises FormatError)."""
    from ..games.guandan import PARTNER, level_name, parse_level, value
    from ..cards import CARD_OF, RANK

    log: list = obj["log"]
    hands: list[list[str] | None] = [None] * 4
    setting: dict[str, Any] = {}
    tributes: list[dict] = []
    returns: list[dict] = []
    plays: list[dict] = []
    resist = False
    result: dict = {}
    for k in range(0, len(log), 2):
        out = _output(log[k])
        if out.get("command") == "finish":
            result = _winner(out, k)
            break
        content = out.get("content")
        if not isinstance(content, dict):
            raise FormatError(f"log[{k}].output.content", "the judge's requests, {seat: request}")
        for seat_text, request in content.items():
            seat = seat_of(int(seat_text) if isinstance(seat_text, str) and seat_text.isdigit() else seat_text,
                           f"log[{k}].output.content key", 4)
            where = f"log[{k}].output.content.{seat}"
            stage = request.get("stage") if isinstance(request, dict) else None
            glob = request.get("global") if isinstance(request, dict) else None
            if not isinstance(glob, dict):
                raise FormatError(f"{where}.global", "the judge's global state (level, tribute, first, last)")
            if glob.get("resist"):
                resist = True
            answer, response = _answer(log, k + 1, seat)
            kept = {key: answer[key] for key in KEPT if key in answer}
            if stage == "deal":
                if response != []:
                    raise FormatError(f"log[{k + 1}].{seat}.response", f"the deal's answer, [], got {response!r}")
                hands[seat] = cards(request.get("deliver"), f"{where}.deliver")
                setting = {key: glob.get(key) for key in ("level", "tribute", "first", "last")}
                continue
            if stage in ("tribute", "return"):
                if not isinstance(response, list) or len(response) != 1:
                    raise FormatError(f"log[{k + 1}].{seat}.response", f"the {stage} card, [card], got {response!r}")
                action: dict = {"seat": seat, "act": stage, "card": card_name(response[0], f"log[{k + 1}].{seat}.response[0]")}
                (tributes if stage == "tribute" else returns).append(action)
            elif stage == "play":
                if not isinstance(response, list) or len(response) != 2:
                    raise FormatError(f"log[{k + 1}].{seat}.response", f"[cards, claim], got {response!r}")
                played = cards(response[0], f"log[{k + 1}].{seat}.response[0]")
                claim = cards(response[1], f"log[{k + 1}].{seat}.response[1]")
                if not played:
                    action = {"seat": seat, "act": "pass"}
                else:
                    action = {"seat": seat, "act": "play", "cards": played}
                    if sorted(claim) != sorted(played):
                        action["as"] = claim
                plays.append(action)
            else:
                raise FormatError(f"{where}.stage", f"deal, tribute, return or play, got {stage!r}")
            if kept:
                action["botzone"] = kept
    if any(h is None for h in hands):
        raise FormatError("log[0].output.content", "the deal of all four seats (stage deal, deliver)")
    try:
        level = parse_level(setting.get("level") if isinstance(setting.get("level"), str) else str(setting.get("level")))
    except ValueError:
        raise FormatError("log[0].output.content.0.global.level", f"the level, 2..10, J, Q, K or A, got {setting.get('level')!r}") from None
    first = setting.get("first")
    if tributes:
        first = seat_of(first, "log[0].output.content.0.global.first", 4)
        # one tribute goes to the first place; two: the larger to it (equal: the first paid), the other to its partner
        ranked = sorted(tributes, key=lambda a: -value(RANK[CARD_OF[a["card"]]], level))
        for n, a in enumerate(ranked):
            a["to"] = first if n == 0 else PARTNER[first]
        payer_of = {a["to"]: a["seat"] for a in tributes}
        for a in returns:
            if a["seat"] not in payer_of:
                raise FormatError("log", f"a return by a seat that received a tribute ({', '.join(map(str, payer_of))}), not {a['seat']}")
            a["to"] = payer_of[a["seat"]]
    actions: list[dict] = []
    for a in tributes + returns:  # each tribute, then the returns, in the order answered
        actions.append({key: a[key] for key in ("seat", "act", "card", "to", "botzone") if key in a})
    if resist:
        last = seat_of(setting.get("last"), "log[0].output.content.0.global.last", 4)
        actions.append({"seat": last, "act": "resist"})
    actions += plays
    players = obj.get("players")
    names = [p.get("name", f"seat {s}") if isinstance(p, dict) else str(p) for s, p in enumerate(players)] \
        if isinstance(players, list) and len(players) == 4 else [f"seat {s}" for s in range(4)]
    record: dict = {"paipu": 1, "id": hand_id(obj, source, doc, "botzone"), "game": "guandan", "variant": "standard",
                    "players": names, "deal": hands, "level": level_name(level), "actions": actions,
                    "botzone": {"game": GAME, **{key: setting[key] for key in ("tribute", "first", "last") if key in setting}}}
    if result:
        record["result"] = result
    return record


def _winner(out: dict, k: int) -> dict:
    """``result`` of the judge's finish: the team whose seats scored more (none when the
    judge ended the match on an error)."""
    scores = out.get("content")
    display: dict = out["display"] if isinstance(out.get("display"), dict) else {}
    if not isinstance(scores, dict) or display.get("errorInfo") or any(display.get("errored") or ()):
        return {}
    try:
        team0 = float(scores["0"]) + float(scores["2"])
        team1 = float(scores["1"]) + float(scores["3"])
    except (KeyError, TypeError, ValueError):
        raise FormatError(f"log[{k}].output.content", "the four seats' scores") from None
    return {"winning_team": 0 if team0 > team1 else 1} if team0 != team1 else {}


def record_to_log(record: dict) -> dict:
    """A Guandan record as a Botzone GuanDan match log, the judge's requests as the
    published bots read them (docs/formats.md §6.1): the inverse of the importer for the
    records it makes.  Each play's claim is what its cards stand for in the reading the
    replay gives it (its ``as``, or the wild hearts' stand-ins)."""
    from ..cards import CARD_NAMES, CARD_OF
    from ..games.guandan import PARTNER, STANDARD, WILD_OF, Guandan, parse_level, stand_for
    from ..replayer import replay
    from ..words import key_name
    from .foreign import CannotHold

    if record.get("game") != "guandan" or record.get("variant", "standard") != "standard":
        raise CannotHold(f"Botzone's GuanDan holds guandan/standard hands only, not {record.get('game')}/{record.get('variant')}")
    level = parse_level(record.get("level"))
    r = replay(record, detail=True)
    readings = {i: c for i, _, c, _, _ in r.table.plays} if r.table is not None else {}
    table = Guandan.combo_table(STANDARD, level)
    wild = WILD_OF[level]
    # each card's number: the first copy of a card dealt is the first deck's, the second the second's
    ids: list[dict[str, list[int]]] = [{} for _ in range(4)]
    given: dict[str, int] = {}
    dealt: list[list[int]] = [[], [], [], []]
    for s, hand in enumerate(record["deal"]):
        for t in hand:
            n = given.get(t, 0)
            given[t] = n + 1
            dealt[s].append(card_number(t) + DECK * min(n, 1))
            ids[s].setdefault(t, []).append(dealt[s][-1])

    def take(seat: int, token: str) -> int:
        held = ids[seat].get(token)
        if not held:
            raise CannotHold(f"seat {seat} does not hold {token}: Botzone numbers only cards held")
        return held.pop(0)

    kept: dict = record["botzone"] if isinstance(record.get("botzone"), dict) else {}
    acts = record["actions"]
    tributes = [a for a in acts if a["act"] == "tribute"]
    resisted = next((a for a in acts if a["act"] == "resist"), None)
    first = kept.get("first", tributes[0]["to"] if tributes else -1)
    last = kept.get("last", tributes[0]["seat"] if tributes else resisted["seat"] if resisted else -1)
    glob: dict = {"level": record.get("level", "2").replace("T", "10"),
                  "tribute": kept.get("tribute", len(tributes) or (1 if resisted else 0)), "first": first, "last": last}
    log: list[dict] = [
        {"output": {"command": "request", "content": {str(s): {"stage": "deal", "deliver": dealt[s],
                                                              "your_id": s, "global": glob} for s in range(4)}}},
        {str(s): {"response": [], "verdict": "OK"} for s in range(4)}]
    paid: dict[str, list[int]] = {}
    back: dict[str, list[int]] = {}
    state = {**glob, "tribute_cards": paid, "return_cards": back, "resist": resisted is not None}
    history: list[tuple[int, list]] = []
    done: list[int] = []
    pass_on = -1
    left = [len(h) for h in record["deal"]]
    for i, a in enumerate(acts):
        seat, act = a["seat"], a["act"]
        if act == "resist":
            for giver in (last, PARTNER[last]) if glob["tribute"] == 2 else (last,):
                paid[str(giver)] = [-1]
            continue
        if act in ("tribute", "return"):
            number = take(seat, a["card"])
            ids[a["to"]].setdefault(a["card"], []).append(number)
            request = {"stage": act, "global": {**state, "tribute_cards": dict(paid), "return_cards": dict(back)}}
            (paid if act == "tribute" else back)[str(seat)] = [number]
            response: list = [number]
        elif act in ("play", "pass"):
            slots: list[list] = [[], [], [], []]
            mine = max((k for k, (p, _) in enumerate(history) if p == seat), default=-1)
            if mine >= 0:
                slots[0] = history[mine][1]
            for p, said in history[mine + 1:]:
                slots[(p - seat) % 4] = said
            request = {"stage": "play", "history": slots, "done": list(done), "pass_on": pass_on,
                       "global": {**state, "tribute_cards": dict(paid), "return_cards": dict(back)}}
            if act == "pass":
                response = [[], []]
            else:
                numbers = [take(seat, t) for t in a["cards"]]
                claim = a.get("as")
                c = readings.get(i)
                if claim is None and c is not None and wild in [CARD_OF[t] for t in a["cards"]]:
                    key = key_name(r.table, c) if r.table is not None else None
                    stand = stand_for(table, [CARD_OF[t] for t in a["cards"]], wild, level, c.kind, key or "")
                    claim = [CARD_NAMES[x] for x in stand] if stand is not None else None
                claim_numbers = numbers if claim is None or sorted(claim) == sorted(a["cards"]) else \
                    [card_number(t) for t in claim]
                response = [numbers, claim_numbers]
                left[seat] -= len(numbers)
                pass_on = -1
                if left[seat] == 0:
                    done.append(seat)
                    pass_on = seat
            history.append((seat, response))
        else:
            raise CannotHold(f"Botzone's GuanDan has no {act!r}")
        log.append({"output": {"command": "request", "content": {str(seat): request}}})
        log.append({str(seat): {"response": response, **a.get("botzone", {"verdict": "OK"})}})
    winner = (r.outcome or {}).get("winning_team", (record.get("result") or {}).get("winning_team"))
    scores = {str(s): (1 if s % 2 == winner else -1) if winner is not None else 0 for s in range(4)}
    log.append({"output": {"command": "finish", "content": scores}})
    return {"id": record["id"], "players": [{"name": n} for n in record["players"]], "log": log}

