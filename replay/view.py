"""``paipu replay``: a recorded hand move by move in the terminal (rich), or as plain text.

The view replays the hand with the engine, one action at a time, so what it shows is
what the audit sees: combinations named in Chinese and English, trick boundaries, bombs
and multiplier changes, seats going out, the result, and a violation where it happens.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.text import Text

from .cards import CARD_OF, RANK, SUIT, card_name
from .games import find_game
from .replayer import make_table
from .table import compare_result
from .verdicts import Code, Violation

SUIT_SYMBOL = "♠♥♦♣"
SUIT_STYLE = ("bold", "bold red", "bold red", "bold")
WORDS = {
    "en": {"seat": "seat", "bottom": "bottom", "pass": "pass", "plays": "plays", "trick": "trick won by",
           "out": "out", "result": "result", "scores": "scores", "coins": "coins", "multiplier": "multiplier",
           "landlord": "landlord", "farmer": "farmer", "hidden": "cards hidden", "left": "left",
           "bid_yes": "calls the landlord", "bid_no": "declines", "grab_yes": "grabs", "grab_no": "does not grab",
           "show": "shows its cards", "peek": "peeks at the bottom", "escape": "escapes", "becomes": "becomes landlord",
           "redeal": "everybody declined: redeal", "violation": "VIOLATION", "winner": "winner", "let_go": "let-go",
           "xiqian": "喜钱 bonus", "incomplete": "the record stops here", "team": "team"},
    "zh": {"seat": "座位", "bottom": "底牌", "pass": "不出", "plays": "出", "trick": "本轮最大",
           "out": "出完", "result": "结果", "scores": "得分", "coins": "游戏币", "multiplier": "倍数",
           "landlord": "地主", "farmer": "农民", "hidden": "手牌不可见", "left": "剩",
           "bid_yes": "叫地主", "bid_no": "不叫", "grab_yes": "抢地主", "grab_no": "不抢",
           "show": "明牌", "peek": "黄金眼", "escape": "逃跑", "becomes": "成为地主",
           "redeal": "都不叫：重新发牌", "violation": "违规", "winner": "胜者", "let_go": "放走",
           "xiqian": "喜钱", "incomplete": "记录到此为止", "team": "队"},
}


def card_text(card: int) -> Text:
    name = card_name(card)
    suit = SUIT[card]
    if suit < 0:
        return Text(name, style="bold magenta" if name == "BJ" else "magenta")
    return Text(name[0] + SUIT_SYMBOL[suit], style=SUIT_STYLE[suit])


def cards_text(cards: list[int]) -> Text:
    """Cards high to low (the default rank order), suits in colour."""
    out = Text()
    for k, c in enumerate(sorted(cards, key=lambda c: (-RANK[c], SUIT[c]))):
        if k:
            out.append(" ")
        out.append_text(card_text(c))
    return out


def hand_cards(table, seat: int) -> list[int]:
    return [c for c in range(54) for _ in range(table.hands[seat][c])]


def render(record: dict, console: Console, seat: int | None = None, lang: str = "en",
           wait: Callable[[], None] | None = None) -> Violation | None:
    """Print *record* move by move; returns the first violation (or None)."""
    console = _Unwrapped(console)
    w = WORDS[lang]
    game = find_game(record["game"])
    kinds = game.kinds
    table = make_table(record)
    players = record["players"]
    title = Text(f"{record['id']} · {game.title_zh} {record['game']}/{record['variant']}", style="bold")
    for key in ("time",):
        if record.get(key):
            title.append(f" · {record[key]}")
    room = dict(record.get("room") or {})
    if room:
        title.append(" · " + " ".join([str(room.pop("name"))] if "name" in room else [])
                     + "".join(f" {k} {v}" for k, v in room.items()))
    console.print(title)
    v = table.setup()
    if v is not None:
        _violation(console, w, v)
        return v
    shown: set[int] = set()

    def visible(s: int) -> bool:
        return seat is None or s == seat or s in shown

    def role(s: int) -> str:
        team = game.team_of(s)
        if team is not None:
            return f"{w['team']} {team}"
        r = table.seat_role(s)
        return "" if r is None else w.get(r, r)

    def name(s: int) -> str:
        return f"{s} {players[s]}"

    def show_hands() -> None:
        for s in range(table.n):
            line = Text(f"  {w['seat']} {name(s):<12} {role(s):<8} ", style="cyan" if s == seat else "")
            if visible(s):
                line.append_text(cards_text(hand_cards(table, s)))
            else:
                line.append(f"[{table.left[s]} {w['hidden']}]", style="dim")
            console.print(line)
        if record.get("bottom") is not None:
            landlord = getattr(table, "landlord", None)
            bottom = [CARD_OF[t] for t in record["bottom"]]
            line = Text(f"  {w['bottom']}: ")
            if seat is None or landlord is not None:
                line.append_text(cards_text(bottom))
            else:
                line.append(f"[3 {w['hidden']}]", style="dim")
            console.print(line)

    show_hands()
    mult = table.multiplier_now() if table.phase == "play" else None
    for i, action in enumerate(record["actions"]):
        if wait:
            wait()
        act, s = action["act"], action["seat"]
        if table.over:
            v = Violation(Code.AFTER_END, i, f"the hand was over ({table.end_reason}) before this {act}", s)
            _violation(console, w, v)
            return v
        before_phase = table.phase
        n_events = len(table.events)
        v = table.step(i, action)
        line = Text(f"{i:>3}  {name(s):<12} ", style="")
        if v is not None:
            line.append(_action_words(action, w), style="bold red")
            console.print(line)
            _violation(console, w, v)
            return v
        if act == "play":
            c = table.last[0] if table.last else None
            ids = [CARD_OF[t] for t in action["cards"]]
            label = f"{c.kind} {kinds.get(c.kind, '')}" if c else ""
            line.append(f"{w['plays']} {label}  ", style="bold yellow" if c and c.tier else "green")
            line.append_text(cards_text(ids))
            line.append(f"   ({w['left']} {table.left[s]})", style="dim")
        else:
            line.append(_action_words(action, w), style="dim" if act == "pass" else "")
        console.print(line)
        for e in table.events[n_events:]:
            note = _event_words(e, w, name)
            if note:
                console.print(Text(f"       {note}", style="bold magenta" if e.kind in ("bomb", "rocket", "xiqian") else "magenta"))
            if e.kind == "show" and e.seat is not None:
                shown.add(e.seat)
        now = table.multiplier_now() if table.phase == "play" or table.over else None
        if now is not None and mult is not None and now != mult:
            console.print(Text(f"       {w['multiplier']} {mult} → {now}", style="bold yellow"))
        mult = now if now is not None else mult
        if before_phase != "play" and table.phase == "play":
            landlord = getattr(table, "landlord", None)
            if landlord is not None:
                console.print(Text(f"       {name(landlord)} {w['becomes']}", style="bold cyan"))
                mult = table.multiplier_now()
            show_hands()
        if act == "pass" and table.last is None and not table.over:
            console.print(Text(f"     ── {w['trick']} {name(table.last_seat)} ──", style="dim"))
    if not table.over:
        v = Violation(Code.INCOMPLETE, None, w["incomplete"])
        _violation(console, w, v)
        return v
    out = table.outcome()
    console.print(Text(f"{w['result']}:", style="bold"))
    if out.get("order"):
        console.print(f"  {w['winner']}: {name(out['order'][0])}" + (f" ({role(out['order'][0])})" if role(out['order'][0]) else ""))
    for key in ("multiplier", "spring_kind", "let_go"):
        if out.get(key) is not None:
            console.print(f"  {w.get(key, key)}: {out[key]}")
    for key in ("scores", "xiqian", "coins"):
        if out.get(key) is not None:
            console.print(f"  {w.get(key, key)}: " + "  ".join(f"{name(k)} {x:+g}" for k, x in enumerate(out[key])))
    if isinstance(record.get("result"), dict):
        v = compare_result(table.canonical_result(record["result"]), out)
        if v is not None:
            _violation(console, w, v)
            return v
    return None


def _action_words(action: dict, w: dict) -> str:
    act = action["act"]
    if act == "play":
        return f"{w['plays']} {' '.join(action['cards'])}"
    if act == "bid":
        return w["bid_yes"] if action["call"] else w["bid_no"]
    if act == "grab":
        return w["grab_yes"] if action["grab"] else w["grab_no"]
    if act == "show":
        return f"{w['show']} ×{action['factor']}"
    if act in ("tribute", "return"):
        return f"{act} {action['card']} → {action['to']}"
    return w.get(act, act)


def _event_words(e, w: dict, name) -> str | None:
    if e.kind == "out":
        return f"{name(e.seat)} {w['out']} (#{e.data.get('place')})"
    if e.kind == "redeal":
        return w["redeal"]
    if e.kind == "let_go":
        return f"{w['let_go']}: {name(e.seat)} → {name(e.data['released'])}"
    if e.kind == "xiqian":
        return f"{w['xiqian']}: {name(e.seat)} +{e.data['received']}"
    if e.kind in ("bomb", "rocket"):
        return "💣 " + e.kind
    if e.kind == "escape":
        return f"{name(e.seat)} {w['escape']}"
    return None


def _violation(console: Console, w: dict, v: Violation) -> None:
    where = f" at action {v.action}" if v.action is not None else ""
    console.print(Text(f"  !! {w['violation']} {v.code}{where}: {v.message}", style="bold white on red"))


class _Unwrapped:
    """A console whose lines are never folded (a line per action, whatever the width)."""

    def __init__(self, console: Console):
        self.console = console

    def print(self, *args, **kwargs) -> None:
        kwargs.setdefault("soft_wrap", True)
        self.console.print(*args, **kwargs)
