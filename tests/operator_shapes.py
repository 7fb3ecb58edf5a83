"""Two made-up but realistic operators' log shapes (docs/examples/), written from paipu records:
what ``paipu ingest --from docs/examples/operator-*.toml`` is tested on."""

from __future__ import annotations

from paipu.replay.cards import CARD_OF, RANK_NAMES

ZH_ACTS = {("bid", True): "叫地主", ("bid", False): "不叫", ("grab", True): "抢地主", ("grab", False): "不抢",
           "play": "出牌", "pass": "不出", "show": "明牌", "peek": "黄金眼", "escape": "逃跑"}
EN_ACTS = {("bid", True): "CALL", ("bid", False): "NO_CALL", ("grab", True): "ROB", ("grab", False): "NO_ROB",
           "play": "PLAY", "pass": "PASS", "show": "SHOW", "peek": "PEEK", "escape": "QUIT"}
#: the Chinese operator numbers cards from 1, rank-major, suits ♠ ♥ ♣ ♦
ZH_SUITS = "shcd"


def zh_card(token: str) -> int:
    if token in ("SJ", "BJ"):
        return 53 if token == "SJ" else 54
    return RANK_NAMES.index(token[:-1]) * 4 + ZH_SUITS.index(token[-1]) + 1


def en_card(token: str) -> str:
    if token in ("SJ", "BJ"):
        return "JOKER-S" if token == "SJ" else "JOKER-B"
    assert token in CARD_OF
    return {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}[token[-1]] + ("10" if token[0] == "T" else token[:-1])


def _name(acts: dict, a: dict) -> str:
    key = (a["act"], a["call"]) if a["act"] == "bid" else (a["act"], a["grab"]) if a["act"] == "grab" else a["act"]
    return acts[key]


def _move(a: dict, card, cards: str, factor: str, ms: str) -> dict:
    """An action's cards, factor and time under an operator's field names (*cards*, ...)."""
    m: dict = {}
    if a["act"] == "play":
        m[cards] = [card(c) for c in a["cards"]]
    if "factor" in a:
        m[factor] = a["factor"]
    if "t" in a:
        m[ms] = a["t"]
    return m


def zh_game(record: dict) -> dict:
    """One hand as the Chinese operator's room replay: players listed from seat 2, seats from 1,
    every message once per receiving seat (序号 tells the copies)."""
    n = len(record["players"])
    order = [(s + 1) % n for s in range(n)]
    messages: list[dict] = [{"序号": 0, "接收者": r + 1, "动作": "发牌"} for r in range(n)]
    for k, a in enumerate(record["actions"]):
        for r in range(n):
            messages.append({"序号": k + 1, "接收者": r + 1, "座位号": a["seat"] + 1, "动作": _name(ZH_ACTS, a),
                             **_move(a, zh_card, "牌", "倍数", "耗时")})
    result = record["result"]
    return {"牌局编号": record["id"], "房间": {"名称": record["room"]["name"], "底分": record["room"]["base"]},
            "玩家": [{"座位号": s + 1, "昵称": record["players"][s], "手牌": [zh_card(c) for c in record["deal"][s]]}
                   for s in order],
            "底牌": [zh_card(c) for c in record["bottom"]], "首叫座位": record["leader"] + 1, "消息": messages,
            "结算": {"地主": None if result["landlord"] is None else result["landlord"] + 1, "得分": result["scores"]}}


def en_document(records: list[dict]) -> dict:
    """Hands as the English operator's API answer: rounds under data.rounds, seats P1..P3,
    cards like ♠10, the jokers JOKER-S / JOKER-B."""
    rounds = []
    for record in records:
        pos = [f"P{s + 1}" for s in range(len(record["players"]))]
        events = []
        for a in record["actions"]:
            events.append({"type": _name(EN_ACTS, a), "pos": pos[a["seat"]], **_move(a, en_card, "cards", "x", "ms")})
        result = record["result"]
        rounds.append({"roundId": record["id"], "table": {"name": record["room"]["name"], "base": record["room"]["base"]},
                       "seats": [{"pos": p, "nick": record["players"][s]} for s, p in enumerate(pos)],
                       "hands": {pos[s]: [en_card(c) for c in h] for s, h in enumerate(record["deal"])},
                       "kitty": [en_card(c) for c in record["bottom"]], "firstBidder": pos[record["leader"]],
                       "events": events,
                       "settle": {"landlord": None if result["landlord"] is None else pos[result["landlord"]],
                                  "scores": result["scores"]}})
    return {"code": 0, "msg": "ok", "data": {"rounds": rounds}}


def mapped_view(record: dict) -> dict:
    """What of a paipu record the two mappings carry (the rest stays behind)."""
    result = record["result"]
    return {"paipu": 1, "id": record["id"], "game": "doudizhu", "variant": "huopin", "players": record["players"],
            "deal": record["deal"], "bottom": record["bottom"], "actions": record["actions"],
            "leader": record["leader"], "room": {"name": record["room"]["name"], "base": record["room"]["base"]},
            "result": {"landlord": result["landlord"], "scores": result["scores"]} if result["landlord"] is not None
            else {"scores": result["scores"]}}
