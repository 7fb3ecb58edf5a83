"""Importer and writer of Botzone match logs of Dou Dizhu: FightTheLandlord and
FightTheLandlord2 (docs/formats.md); GuanDan's are :mod:`.botzone_guandan`'s.

A match log is one JSON object (one per line, or one per file)::

    {"initdata": {"allocation": [[...], [...], [...]], "publiccard": [...], "seed": "..."},
     "log": [{"output": {"command": "request", "content": {"0": {...}}, "display": {...}}},
             {"0": {"response": [...], "time": 12, "memory": 5, "verdict": "OK"}}, ...]}

Even entries are the judge's output (``output``, or the output itself), odd entries the
bots' answers, keyed by seat.  Cards are 0..53: card // 4 is the rank (3 .. 2), card % 4
the suit in the judges' order ♥ ♦ ♠ ♣, 52 the small and 53 the big joker.

- FightTheLandlord: seat 0 is the landlord; ``allocation[0]`` holds its 20 cards, the three
  ``publiccard`` among them.  No bidding: the record's is given (``"given": "botzone"``).
- FightTheLandlord2: ``allocation`` holds 17 cards each, ``publiccard`` the bottom.  Seats
  0, 1, 2 first bid once each (0 pass, else above the highest so far, 3 ends it); the highest
  bidder is the landlord, seat 0 when all passed.  The bids are kept in
  ``botzone.bids``; the record's bidding is the landlord's, given.

Each play is the landlord's and then each seat's in turn; ``response`` the cards (``[]`` a
pass); the answer's ``time``, ``memory`` and ``verdict`` stay on the action
(``botzone``).  The judge's last output, ``finish``, gives the scores: the side that scored
more won (``result.winner``), unless the judge ended the match on an error.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import orjson

from .foreign import (
    DDZ_RANKS, CannotHold, Doc, FormatError, ddz_record, documents, given_bidding, hand_id, items_of_documents,
    items_of_file, landlord_of,
)
from . import botzone_guandan
from .botzone_log import KEPT, _answer, _output
from .sources import Item

#: the judges' suits, card % 4, as paipu's
SUITS = "hdsc"


def card_name(c: object, field: str) -> str:
    if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 54:
        raise FormatError(field, f"a card 0..53, got {c!r}")
    return "SJ" if c == 52 else "BJ" if c == 53 else DDZ_RANKS[c // 4] + SUITS[c % 4]


def card_number(token: str) -> int:
    return 52 if token == "SJ" else 53 if token == "BJ" else DDZ_RANKS.index(token[:-1]) * 4 + SUITS.index(token[-1])


def _cards(value: object, field: str) -> list[str]:
    if not isinstance(value, list):
        raise FormatError(field, f"a list of cards 0..53, got {value!r}")
    return [card_name(c, f"{field}[{k}]") for k, c in enumerate(value)]


def _initdata(obj: dict, log: list) -> dict:
    init = obj.get("initdata")
    if isinstance(init, str):
        try:
            init = orjson.loads(init)
        except orjson.JSONDecodeError:
            init = None
    if not isinstance(init, dict) or "allocation" not in init:
        first = _output(log[0]) if log else {}
        init = first.get("initdata") or first.get("display") or {}
    if not isinstance(init, dict) or "allocation" not in init or "publiccard" not in init:
        raise FormatError("initdata", "the deal: {\"allocation\": [[cards of seat 0], ...], \"publiccard\": [...]}")
    return init


def log_to_record(obj: object, source: str, doc: Doc) -> dict:
    """One Botzone match log as a hand record (raises FormatError)."""
    if not isinstance(obj, dict):
        raise FormatError("(match)", "a JSON object per match log")
    log = obj.get("log")
    if not isinstance(log, list):
        raise FormatError("log", "the match's entries, judge and bots in turn")
    if botzone_guandan.is_guandan(log):
        return botzone_guandan.log_to_record(obj, source, doc)
    init = _initdata(obj, log)
    alloc = init["allocation"]
    if not isinstance(alloc, list) or len(alloc) != 3:
        raise FormatError("initdata.allocation", "the three seats' cards")
    hands = [_cards(h, f"initdata.allocation[{s}]") for s, h in enumerate(alloc)]
    bottom = _cards(init["publiccard"], "initdata.publiccard")
    two = len(hands[0]) == 17  # FightTheLandlord2 deals 17 and keeps the public cards apart
    k = 1
    bids: list[int] = []
    landlord = 0
    if two:
        best = 0
        while len(bids) < 3:
            _, bid = _answer(log, k, len(bids))
            if isinstance(bid, bool) or not isinstance(bid, int) or not (bid == 0 or best < bid <= 3):
                raise FormatError(f"log[{k}].{len(bids)}.response", f"a bid, 0 (pass) or {best + 1}..3, got {bid!r}")
            if bid > best:
                best, landlord = bid, len(bids)
            bids.append(bid)
            k += 2
            if bid == 3:
                break
    else:
        for c in bottom:
            if c not in hands[0]:
                raise FormatError("initdata.publiccard", f"cards of the landlord's allocation[0], not {c}")
            hands[0].remove(c)
    leader, actions = given_bidding(landlord, "botzone")
    seat = landlord
    while k < len(log):
        answer, response = _answer(log, k, seat)
        cards = _cards(response, f"log[{k}].{seat}.response")
        action: dict = {"seat": seat, "act": "play", "cards": cards} if cards else {"seat": seat, "act": "pass"}
        kept = {key: answer[key] for key in KEPT if key in answer}
        if kept:
            action["botzone"] = kept
        actions.append(action)
        seat = (seat + 1) % 3
        k += 2
    result: dict = {"landlord": landlord}
    last = _output(log[-1]) if log else {}
    scores = last.get("content") if last.get("command") == "finish" else None
    display: dict = last["display"] if isinstance(last.get("display"), dict) else {}
    failed = display.get("errorInfo") or any(display.get("errored") or ())
    if isinstance(scores, dict) and not failed:
        try:
            mine, other = float(scores[str(landlord)]), float(scores[str((landlord + 1) % 3)])
        except (KeyError, TypeError, ValueError):
            raise FormatError(f"log[{len(log) - 1}].output.content", "the three seats' scores") from None
        result["winner"] = "landlord" if mine > other else "farmers"
    extra: dict = {"botzone": {"game": "FightTheLandlord2" if two else "FightTheLandlord"}}
    if two:
        extra["botzone"]["bids"] = bids
    players = obj.get("players")
    names = [p.get("name", f"player {s}") if isinstance(p, dict) else str(p) for s, p in enumerate(players)] \
        if isinstance(players, list) and len(players) == 3 else [f"player {s}" for s in range(3)]
    return ddz_record(hand_id(obj, source, doc, "botzone"), names, hands, bottom, leader, actions, result, **extra)


def items_of_botzone_lines(lines: Iterable[tuple[int, bytes]], source: str, strict: bool = True) -> Iterator[Item]:
    return items_of_documents(documents(lines), source, log_to_record, strict)


def iter_botzone(path: str, source: str | None = None, strict: bool = True) -> Iterator[Item]:
    yield from items_of_file(path, source or path, items_of_botzone_lines, strict)


def record_to_log(record: dict) -> dict:
    """A Dou Dizhu record as a Botzone FightTheLandlord2 match log, with the judge's requests
    as its judge writes them (``own``, ``bid``, ``history``, ``publiccard``, ``landlord``,
    ``pos``, ``finalbid``) and its ``finish`` scores: the inverse of the importer for the
    records it makes (FightTheLandlord's when the record came from one); 叫/抢 bidding is
    lost (the landlord bids 3 after the seats before it passed)."""
    from ..replayer import replay

    if record.get("game") == "guandan":
        return botzone_guandan.record_to_log(record)
    if record.get("game") != "doudizhu":
        raise CannotHold(f"Botzone holds Dou Dizhu (FightTheLandlord) and Guandan (GuanDan) hands only, not {record.get('game')!r}")
    replayed = replay(record)
    landlord = landlord_of(record)
    if landlord is None:
        raise CannotHold("Botzone holds played hands only (this one was redealt)")
    kept: dict = record["botzone"] if isinstance(record.get("botzone"), dict) else {}
    one = kept.get("game") == "FightTheLandlord"
    if one and landlord != 0:
        raise CannotHold("FightTheLandlord's landlord is seat 0")
    deal = [[card_number(c) for c in h] for h in record["deal"]]
    public = [card_number(c) for c in record["bottom"]]
    bids = [] if one else kept.get("bids") or [0] * landlord + [3]
    log: list[dict] = []
    allocation = [public + deal[0], deal[1], deal[2]] if one else deal
    initdata = {"allocation": allocation, "publiccard": public}
    for s, b in enumerate(bids):
        log.append({"output": {"command": "request", "content": {str(s): {"own": deal[s], "bid": bids[:s]}},
                               "display": {"allocation": allocation, "publiccard": public, "bid": bids[:s]},
                               **({"initdata": initdata} if s == 0 else {})}})
        log.append({str(s): {"response": b, "verdict": "OK"}})
    history: list[list[int]] = [[], []]
    plays = [a for a in record["actions"] if a["act"] in ("play", "pass")]
    final = max(bids + [1])
    for k, a in enumerate(plays):
        request: dict = {"history": history[-2:]}
        if k < 3:
            request.update(own=allocation[a["seat"]], publiccard=public)
            if not one:
                request.update(landlord=landlord, pos=a["seat"], finalbid=final)
        log.append({"output": {"command": "request", "content": {str(a["seat"]): request},
                               "display": {"landlord": landlord} if not one else {},
                               **({"initdata": initdata} if one and k == 0 else {})}})
        response = [card_number(c) for c in a.get("cards", ())]
        log.append({str(a["seat"]): {"response": response, **a.get("botzone", {"verdict": "OK"})}})
        history.append(response)
    given = record.get("result") if isinstance(record.get("result"), dict) else {}
    won = (replayed.outcome or given or {}).get("winner") == "landlord"  # (the record's own when the replay stops)
    scores = {str(s): (2 if s == landlord else -1) * (1 if won else -1) * final for s in range(3)}
    log.append({"output": {"command": "finish", "content": scores, "display": {**scores, "landlord": landlord}}})
    return {"id": record["id"], "players": [{"name": n} for n in record["players"]], "initdata": initdata, "log": log}
