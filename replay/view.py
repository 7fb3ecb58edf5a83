"""``paipu replay``: a recorded hand move by move in the terminal (rich), or as plain text.

The view replays the hand with the engine, one action at a time, so what it shows is
what the audit sees: combinations named in Chinese and English, trick boundaries, bombs
and multiplier changes, seats going out, the result, and a violation where it happens.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from rich.console import Console
from rich.text import Text

from paipu.analysis.fmt import clip, signed

from .cards import CARD_OF, RANK, RANK_NAMES, SUIT, card_name
from .game import Game
from .games import UnknownGame, find_game
from .replayer import table_or_violation
from .table import compare_result
from .verdicts import Code, Violation

SUIT_SYMBOL = "♠♥♦♣"
SUIT_STYLE = ("bold", "bold red", "bold red", "bold")
WORDS = {
    "en": {"lang": "en", "seat": "seat", "bottom": "bottom", "pass": "pass", "plays": "plays", "trick": "trick won by",
           "out": "out", "result": "result", "scores": "scores", "coins": "coins", "multiplier": "multiplier",
           "landlord": "landlord", "farmer": "farmer", "hidden": "cards hidden", "left": "left",
           "bid_yes": "calls the landlord", "bid_no": "declines", "grab_yes": "grabs", "grab_no": "does not grab",
           "show": "shows its cards", "peek": "peeks at the bottom", "escape": "escapes", "becomes": "becomes landlord",
           "redeal": "everybody declined: redeal", "violation": "VIOLATION", "winner": "winner", "let_go": "let-go",
           "xiqian": "喜钱 bonus", "incomplete": "the record stops here", "team": "team", "level": "level",
           "wild": "wild", "held_by": "{card} is held by {who}", "in_bottom": "{card} is in the bottom",
           "played": "{card} was played already", "nowhere": "{card} is in no hand", "tribute": "pays tribute",
           "return": "returns", "resist": "resists tribute", "base": "base", "coef": "coef", "fee": "fee", "spring_kind": "spring / anti-spring", "spring": "spring", "anti_spring": "anti-spring",
           "keys": "keys: space or enter next · b back · q quit", "step": "action {k} of {n}"},
    "zh": {"lang": "zh", "seat": "座位", "bottom": "底牌", "pass": "不出", "plays": "出", "trick": "本轮最大",
           "out": "出完", "result": "结果", "scores": "得分", "coins": "游戏币", "multiplier": "倍数",
           "landlord": "地主", "farmer": "农民", "hidden": "手牌不可见", "left": "剩",
           "bid_yes": "叫地主", "bid_no": "不叫", "grab_yes": "抢地主", "grab_no": "不抢",
           "show": "明牌", "peek": "黄金眼", "escape": "逃跑", "becomes": "成为地主",
           "redeal": "都不叫：重新发牌", "violation": "违规", "winner": "胜者", "let_go": "放走",
           "xiqian": "喜钱", "incomplete": "记录到此为止", "team": "队", "level": "级牌",
           "wild": "逢人配", "held_by": "{card} 在 {who} 手中", "in_bottom": "{card} 在底牌中",
           "played": "{card} 已经出过", "nowhere": "{card} 不在任何人手中", "tribute": "进贡", "return": "还贡", "resist": "抗贡",
           "spring_kind": "春天/反春", "spring": "春天", "anti_spring": "反春",
           "base": "底分", "coef": "系数", "fee": "台费",
           "keys": "按键：空格或回车 下一步 · b 后退 · q 退出", "step": "第 {k} 步，共 {n} 步"},
}
#: what each verdict code means, for people reading Chinese (the engine's detail stays English)
CODE_ZH = {
    "bad_record": "记录格式不对", "bad_card": "不是一张牌", "unknown_game": "未知的玩法", "bad_deal": "发牌不对",
    "out_of_turn": "没轮到该座位", "not_in_hand": "出了手里没有的牌", "invalid_combo": "不是合法牌型",
    "does_not_beat": "没有大过上一手", "cannot_pass": "此时不能不出", "must_play": "有牌能大必须出",
    "first_play": "首出不符合规则", "bad_bid": "叫抢地主不合规则", "bad_tribute": "进贡或还贡不合规则",
    "bad_match": "与整场比赛的记录不符", "after_end": "牌局已结束", "incomplete": "记录不完整",
    "result_mismatch": "记录的结果与复盘不符", "duplicate_id": "重复的牌局编号", "engine_error": "引擎内部错误",
}

#: the engine's violation messages (English) for people reading Chinese: (pattern, template); a
#: group named ``cards`` (card tokens) is written as the cards are drawn, ``what`` is an act, ``desc`` a
#: combination as the engine describes it; a message matching none stays as the engine wrote it
ZH_MESSAGES: list[tuple[re.Pattern[str], str]] = [(re.compile(p), t) for p, t in (
    (r"seat (\d+) does not hold (?P<cards>\S+)", "座位 {0} 手里没有 {cards}"),
    (r"seat (\d+) was dealt (\d+) cards, expected (\d+)", "座位 {0} 发到 {1} 张牌，应为 {2} 张"),
    (r"(\d+) bottom cards, expected (\d+)", "底牌 {0} 张，应为 {1} 张"),
    (r"(\d+) seats dealt; (\S+) has (\d+)", "发牌给了 {0} 个座位，{1} 有 {2} 个座位"),
    (r"seat (\d+) leads this trick and may not pass", "座位 {0} 首出本轮，不能不出"),
    (r"seat (\d+) passed while holding a play that beats the last one \(有出必出\)",
     "座位 {0} 手里有大过上一手的牌却不出（有出必出）"),
    (r"seat (\d+) tried to (?P<what>\w+), but it is seat (\d+)'s turn", "座位 {0} {what}，但轮到座位 {2}"),
    (r"seat (\d+) tried to (?P<what>\w+) during (?P<phase>\w+)", "座位 {0} 在{phase}阶段{what}"),
    (r"seat (\d+) bid, but it is seat (\d+)'s turn to bid", "座位 {0} 叫地主，但轮到座位 {1} 叫"),
    (r"seat (\d+) grabbed, but it is seat (\d+)'s turn", "座位 {0} 抢地主，但轮到座位 {1}"),
    (r"(?P<cards>.+) \((?P<desc>.+)\) does not beat (?P<desc2>.+)", "{cards}（{desc}）没有大过上一手（{desc2}）"),
    (r"(?P<cards>.+) is no combination of (\S+)", "{cards} 不是 {1} 的合法牌型"),
    (r"the hand was over \((\w+)\) before this (?P<what>\w+)", "牌局已经结束，之后又有{what}"),
    (r"the record stops before the hand is over", "记录在牌局结束前中断"),
    (r"the actions stop before the hand is over \((\d+) actions, (\w+) phase\)", "记录在牌局结束前中断（{0} 步，{1} 阶段）"),
    (r"result\.(\w+): the record says (.+), the replay gives (.+)", "结果 {0}：记录为 {1}，复盘得出 {2}"),
    (r"params\.(\w+): not a parameter of (\S+) \(known: (.+)\)", "params.{0}：不是 {1} 的参数（可用：{2}）"),
    (r"the first play must contain (?P<cards>\S+)", "首出必须包含 {cards}"),
    (r"the first play belongs to seat (\d+) \((.+)\), not seat (\d+)", "首出应由座位 {0}（{1}），不是座位 {2}"),
    (r"not a card: (.+)", "不是一张牌：{0}"),
    (r"the record must name the leader", "记录必须写明首出座位"),
    (r"seat (\d+) bid during (?P<phase>\w+); calling is over", "座位 {0} 在{phase}阶段叫地主，叫地主已经结束"),
    (r"seat (\d+) grabbed during (?P<phase>\w+); there is no grab turn now", "座位 {0} 在{phase}阶段抢地主，现在不能抢"),
    (r"seat (\d+) already showed its cards", "座位 {0} 已经明牌"),
    (r"seat (\d+) used 黄金眼 \(peek\) after bidding; it is only allowed while bidding",
     "座位 {0} 叫地主结束后用了黄金眼，只能在叫地主时用"),
    (r"the landlord's show after taking the bottom has factor 2, not (\d+)", "地主拿底牌后明牌是 ×2，不是 ×{0}"),
    (r"seat (\d+) already paid its tribute", "座位 {0} 已经进贡过"),
    (r"seat (\d+) already returned a card to seat (\d+)", "座位 {0} 已经还贡给座位 {1}"),
    (r"seat (\d+) gave to seat (\d+), its own team", "座位 {0} 进贡给了本队的座位 {1}"),
    (r"seat (\d+) returns a card to seat (\d+), which paid it no tribute", "座位 {0} 还贡给座位 {1}，但座位 {1} 没有向它进贡"),
    (r"seat (\d+) already received a tribute", "座位 {0} 已经收到进贡"),
    (r"'(\w+)' is not an act of (.+)", "'{0}' 不是 {1} 的动作"),
)]
#: the table's phases, in the words of the messages above
ZH_PHASES = {"bidding": "叫地主", "grabbing": "抢地主", "play": "出牌", "tribute": "进贡"}
ZH_ACTS = {"play": "出牌", "pass": "不出", "bid": "叫地主", "grab": "抢地主", "show": "明牌", "tribute": "进贡",
           "return": "还贡", "escape": "逃跑", "peek": "看底牌"}


def message_words(message: str, lang: str, kinds: Mapping[str, str] | None = None) -> str:
    """A violation's message in *lang* (the engine writes English; see :data:`ZH_MESSAGES`).

    >>> message_words("seat 0 does not hold Td", "zh"), message_words("seat 0 does not hold Td", "en")
    ('座位 0 手里没有 10♦', 'seat 0 does not hold 10♦')
    """
    for pattern, template in ZH_MESSAGES:
        m = pattern.fullmatch(message)
        if m is None:
            continue
        if lang != "zh":  # the engine's words, its card tokens as the cards are drawn
            if m.groupdict().get("cards") is None:
                return message
            start, end = m.span("cards")
            return message[:start] + token_words(m["cards"].split(), lang) + message[end:]
        named = m.groupdict()
        words = {k: v for k, v in named.items() if v is not None}
        if "cards" in words:
            words["cards"] = token_words(words["cards"].split(), "zh")
        if "what" in words:
            words["what"] = ZH_ACTS.get(words["what"], words["what"])
        if "phase" in words:
            words["phase"] = ZH_PHASES.get(words["phase"], words["phase"])
        for key in ("desc", "desc2"):
            if key in words:
                words[key] = _combo_words(words[key], kinds or {})
        return template.format(*m.groups(), **words)
    return message


def _combo_words(desc: str, kinds: Mapping[str, str]) -> str:
    """The engine's description of a combination (``straight 顺子 of 5 to A``, ``bomb of 4``) in
    Chinese, the kind's name from the game's *kinds*."""
    m = re.fullmatch(r"(\w+)(?: \S+)? of (\d+)(?: to (\S+))?(?: \((\d+) stars\))?", desc)
    if m is None:
        return desc
    kind, size, key, stars = m.groups()
    return (f"{kinds.get(kind, kind)}，{size} 张" + (f"，到 {rank_text(key)}" if key else "")
            + (f"，{stars} 星" if stars else ""))


#: the jokers' names in Chinese (小王 / 大王)
ZH_JOKER = {"SJ": "小王", "BJ": "大王"}


def rank_text(rank: str) -> str:
    """A rank as people read it: ten as 10 (the records' ``T``), in every language."""
    return "10" if rank == "T" else rank


def card_text(card: int, lang: str = "en", wild: int | None = None) -> Text:
    """A card with its suit symbol in colour (ten as 10, the jokers 小王 / 大王 in Chinese);
    *wild* (a card id) is marked with ``*``."""
    name = card_name(card)
    suit = SUIT[card]
    if suit < 0:
        text = Text(ZH_JOKER[name] if lang == "zh" else name, style="bold magenta" if name == "BJ" else "magenta")
    else:
        text = Text(rank_text(name[0]) + SUIT_SYMBOL[suit], style=SUIT_STYLE[suit])
    if card == wild:
        text.append("*", style="bold yellow")
        text.stylize("reverse")
    return text


def token_words(tokens: object, lang: str = "en") -> str:
    """A record's card tokens as people read them (``Ts`` as 10♠); what is no card stays as written."""
    if not isinstance(tokens, list):
        tokens = [tokens]
    return " ".join(card_text(CARD_OF[t], lang).plain if isinstance(t, str) and t in CARD_OF else str(t)
                    for t in tokens)


def cards_text(cards: list[int], lang: str = "en", wild: int | None = None,
               strength: Callable[[int], int] | None = None) -> Text:
    """Cards high to low (by *strength*, the hand's own order, e.g. Guandan's level cards
    high; the default rank order without it), suits in colour."""
    out = Text()
    strength = strength or RANK.__getitem__
    for k, c in enumerate(sorted(cards, key=lambda c: (-strength(c), SUIT[c]))):
        if k:
            out.append(" ")
        out.append_text(card_text(c, lang, wild))
    return out


def hand_cards(table, seat: int) -> list[int]:
    return [c for c in range(54) for _ in range(table.hands[seat][c])]


def known_game(name: object) -> Game | None:
    """The game a record names, or None when this installation does not know it."""
    try:
        return find_game(name)  # type: ignore[arg-type]
    except (UnknownGame, TypeError):
        return None


def room_words(room: object, w: dict) -> str:
    """The record's room (its name, then base, coef, fee ... each named in the view's language)."""
    if not isinstance(room, dict):
        return ""
    rest = dict(room)
    name = rest.pop("name", None)
    return " ".join(([str(name)] if name is not None else []) + [f"{w.get(k, k)} {v}" for k, v in rest.items()])


def kind_name(kinds: Mapping[str, str], kind: str, lang: str) -> str:
    """A combination kind for people: its Chinese name (the game module's ``KINDS``) in
    Chinese, both names in English."""
    if lang == "zh":
        return kinds.get(kind, kind)
    return f"{kind} {kinds.get(kind, '')}".rstrip()


def level_text(table, game, w: dict, lang: str) -> Text | None:
    """The level being played and its wild card, for games played at a level (Guandan)."""
    level = getattr(table, "level", None)
    if level is None or not game.levels:
        return None
    name = RANK_NAMES[level]
    text = Text(f" · {w['level']} {rank_text(name)}", style="bold")
    wild = getattr(table, "wild", None)
    if wild is not None:
        text.append(f" ({w['wild']} ")
        text.append_text(card_text(wild, lang, wild))
        text.append(")")
    return text


def render(record: dict, console: Console, seat: int | None = None, lang: str = "en",
           upto: int | None = None) -> Violation | None:
    """Print *record* move by move (the first *upto* actions only, when given); returns the
    first violation shown (or None)."""
    screen = _Unwrapped(console)
    w = WORDS[lang]
    table, bad = table_or_violation(record)
    game = known_game(record["game"])
    players = record["players"]
    title = Text(f"{record['id']} · " + (f"{game.title_zh} " if game else "") + f"{record['game']}/{record['variant']}",
                 style="bold")
    for key in ("time",):
        if record.get(key):
            title.append(f" · {record[key]}")
    room = room_words(record.get("room"), w)
    if room:
        title.append(" · " + room)
    v = bad if table is None else table.setup()
    if table is None or game is None or v is not None:  # judged before any action: the deal as the record has it
        screen.print(title)
        _dealt(screen, record, w, lang)
        assert v is not None
        _violation(screen, w, v)
        return v
    kinds = game.kinds
    level = level_text(table, game, w, lang)
    if level is not None:
        title.append_text(level)
    screen.print(title)
    wild = getattr(table, "wild", None)
    shown: set[int] = set()

    def visible(s: int) -> bool:
        return seat is None or s == seat or s in shown

    def role(s: int) -> str:
        team = game.team_of(s)
        if team is not None:
            return f"{w['team']} {team}"
        r = table.seat_role(s)
        return "" if r is None else w.get(r, r)

    def name(s: int) -> str:  # a long name cut, as the page and the report cut it
        return f"{s} {clip(str(players[s]))}"

    def show_hands() -> None:
        for s in range(table.n):
            line = Text(f"  {w['seat']} {name(s):<12} {role(s):<8} ", style="cyan" if s == seat else "")
            if visible(s):
                line.append_text(cards_text(hand_cards(table, s), lang, wild, table.strength))
            else:
                line.append(f"[{table.left[s]} {w['hidden']}]", style="dim")
            screen.print(line)
        if record.get("bottom") is not None:
            landlord = getattr(table, "landlord", None)
            bottom = [CARD_OF[t] for t in record["bottom"]]
            line = Text(f"  {w['bottom']}: ")
            if seat is None or landlord is not None:
                line.append_text(cards_text(bottom, lang))
            else:
                line.append(f"[3 {w['hidden']}]", style="dim")
            screen.print(line)

    def card_words(c: int) -> str:
        return card_text(c, lang).plain

    show_hands()
    mult = table.multiplier_now()
    if mult is not None and table.phase == "play":
        screen.print(Text(f"       {w['multiplier']} {mult}", style="yellow"))
    for i, action in enumerate(record["actions"]):
        if upto is not None and i >= upto:
            return None
        act, s = action["act"], action["seat"]
        if table.over:
            v = Violation(Code.AFTER_END, i, f"the hand was over ({table.end_reason}) before this {act}", s)
            _violation(screen, w, v, kinds)
            return v
        before_phase = table.phase
        n_events = len(table.events)
        held = list(table.hands[s]) if 0 <= s < table.n else None
        v = table.step(i, action)
        line = Text(f"{i:>3}  {name(s):<12} ", style="")
        if v is not None:
            line.append(_action_words(action, w), style="bold red")
            screen.print(line)
            _violation(screen, w, v, kinds)
            if v.code == Code.NOT_IN_HAND and held is not None:
                for note in _holders(action, held, s, table, record, w, name, card_words):
                    screen.print(Text(f"       {note}", style="red"))
            return v
        if act == "play":
            c = table.last[0] if table.last else None
            ids = [CARD_OF[t] for t in action["cards"]]
            label = kind_name(kinds, c.kind, lang) if c else ""
            line.append(f"{w['plays']} {label}  ", style="bold yellow" if c and c.tier else "green")
            line.append_text(cards_text(ids, lang, wild, table.strength))
            line.append(f"   ({w['left']} {table.left[s]})", style="dim")
        else:
            line.append(_action_words(action, w), style="dim" if act == "pass" else "")
        screen.print(line)
        causes = []
        for e in table.events[n_events:]:
            words = _event_words(e, w, name, kinds, lang)
            if words:
                screen.print(Text(f"       {words}", style="bold magenta" if e.kind in ("bomb", "rocket", "xiqian") else "magenta"))
            if e.kind == "show" and e.seat is not None:
                shown.add(e.seat)
            if e.kind in kinds:
                causes.append(kind_name(kinds, e.kind, "zh") if lang == "zh" else e.kind)
        now = table.multiplier_now()
        if now is not None and mult is not None and now != mult:
            cause = ", ".join(causes) or _action_words(action, w)
            screen.print(Text(f"       {w['multiplier']} {mult} → {now} ({cause})", style="bold yellow"))
        mult = now if now is not None else mult
        if before_phase != "play" and table.phase == "play" and (i > 0 or act not in ("play", "pass")):
            landlord = getattr(table, "landlord", None)
            if landlord is not None:
                screen.print(Text(f"       {name(landlord)} {w['becomes']}", style="bold cyan"))
                mult = table.multiplier_now()
                if mult is not None:
                    screen.print(Text(f"       {w['multiplier']} {mult}", style="yellow"))
            show_hands()
        if act == "pass" and table.last is None and not table.over:
            screen.print(Text(f"     ── {w['trick']} {name(table.last_seat)} ──", style="dim"))
    if upto is not None and upto < len(record["actions"]):
        return None
    if not table.over:
        v = Violation(Code.INCOMPLETE, None, w["incomplete"])
        _violation(screen, w, v, kinds)
        return v
    out = table.outcome()
    last_step = end_multiplier(out, mult, w)
    if last_step:
        screen.print(Text(f"       {last_step}", style="bold yellow"))
    screen.print(Text(f"{w['result']}:", style="bold"))
    if out.get("order"):
        screen.print(f"  {w['winner']}: {name(out['order'][0])}" + (f" ({role(out['order'][0])})" if role(out['order'][0]) else ""))
    for key in ("multiplier", "spring_kind", "let_go"):
        if out.get(key) is not None:
            value = w.get(out[key], out[key]) if isinstance(out[key], str) else out[key]
            screen.print(f"  {w.get(key, key)}: {value}")
    for key in ("scores", "xiqian", "coins"):
        if out.get(key) is not None:
            screen.print(f"  {w.get(key, key)}: " + "  ".join(f"{name(k)} {signed(x)}" for k, x in enumerate(out[key])))
    if isinstance(record.get("result"), dict):
        v = compare_result(table.canonical_result(record["result"]), out)
        if v is not None:
            _violation(screen, w, v, kinds)
            return v
    return None


def end_multiplier(out: dict, mult: int | None, w: dict) -> str | None:
    """The multiplier's last step, which only the end decides (Dou Dizhu's spring ×2), in words."""
    final = out.get("multiplier")
    if final is None or mult is None or final == mult:
        return None
    cause = w.get(out.get("spring_kind") or "", out.get("spring_kind") or "")
    return f"{w['multiplier']} {mult} → {final}" + (f" ({cause})" if cause else "")


def step_through(record: dict, console: Console, getchar: Callable[[], str], seat: int | None = None,
                 lang: str = "en") -> Violation | None:
    """``--step``: the hand up to one action at a time, redrawn after each key: space or
    enter (any other key) shows the next action, ``b`` steps back, ``q`` quits. Returns
    the hand's first violation, as :func:`render` over the whole hand does."""
    w = WORDS[lang]
    n = len(record["actions"])
    k = 0
    while True:
        console.clear()
        v = render(record, console, seat=seat, lang=lang, upto=k)
        at_end = k >= n or v is not None
        console.print(Text(f"── {w['step'].format(k=k, n=n)} · {w['keys']} ──", style="dim"), soft_wrap=True)
        key = getchar()
        if key in ("q", "Q", "\x03", "\x04", "\x1b"):
            break
        if key in ("b", "B", "\x7f", "\x08"):
            k = max(0, k - 1)
        elif at_end:
            return v
        else:
            k += 1
    import io

    return render(record, Console(file=io.StringIO()), seat=seat, lang=lang)


def _dealt(screen: _Unwrapped, record: dict, w: dict, lang: str) -> None:
    """The hands (and bottom) as the record deals them, for a hand judged before its first action."""
    deal = given if isinstance(given := record.get("deal"), list) else []
    rows = [(f"{w['seat']} {s} {p}", deal[s] if s < len(deal) else []) for s, p in enumerate(record.get("players") or [])]
    if isinstance(record.get("bottom"), list):
        rows.append((w["bottom"], record["bottom"]))
    for label, tokens in rows:
        line = Text(f"  {label}: ")
        tokens = tokens if isinstance(tokens, list) else []
        line.append_text(cards_text([CARD_OF[t] for t in tokens if isinstance(t, str) and t in CARD_OF], lang))
        for t in tokens:
            if not (isinstance(t, str) and t in CARD_OF):
                line.append(f" {t!s}", style="bold red")
        screen.print(line)


def _holders(action: dict, held: list[int], seat: int, table, record: dict, w: dict, name, card_words) -> list[str]:
    """Where each card of a play that *seat* did not hold is: another seat's hand, the
    bottom (not taken yet) or already played."""
    from collections import Counter

    wanted = Counter(CARD_OF[t] for t in action.get("cards") or () if t in CARD_OF)
    notes = []
    for c, k in wanted.items():
        if k <= held[c]:
            continue
        others = [t for t in range(table.n) if t != seat and table.hands[t][c]]
        bottom = {CARD_OF[t] for t in record.get("bottom") or () if t in CARD_OF}
        if others:
            notes.append(w["held_by"].format(card=card_words(c), who=", ".join(name(t) for t in others)))
        elif c in bottom and getattr(table, "landlord", None) is None:
            notes.append(w["in_bottom"].format(card=card_words(c)))
        elif held[c] or any(c in (CARD_OF.get(t) for t in a.get("cards") or ()) for a in record["actions"]):
            notes.append(w["played"].format(card=card_words(c)))
        else:
            notes.append(w["nowhere"].format(card=card_words(c)))
    return notes


def _action_words(action: dict, w: dict) -> str:
    act = action["act"]
    if act == "play":
        return f"{w['plays']} {token_words(action['cards'], w['lang'])}"
    if act == "bid":
        return w["bid_yes"] if action["call"] else w["bid_no"]
    if act == "grab":
        return w["grab_yes"] if action["grab"] else w["grab_no"]
    if act == "show":
        return f"{w['show']} ×{action['factor']}"
    if act in ("tribute", "return"):
        return f"{w[act]} {token_words(action.get('card'), w['lang'])} → {w['seat']} {action.get('to')}"
    return w.get(act, act)


def _event_words(e, w: dict, name, kinds: Mapping[str, str] | None = None, lang: str = "en") -> str | None:
    if e.kind == "out":
        return f"{name(e.seat)} {w['out']} (#{e.data.get('place')})"
    if e.kind == "redeal":
        return w["redeal"]
    if e.kind == "let_go":
        return f"{w['let_go']}: {name(e.seat)} → {name(e.data['released'])}"
    if e.kind == "xiqian":
        return f"{w['xiqian']}: {name(e.seat)} +{e.data['received']:,}"
    if e.kind in ("bomb", "rocket"):
        return "💣 " + ((kinds or {}).get(e.kind, e.kind) if lang == "zh" else e.kind)
    if e.kind == "escape":
        return f"{name(e.seat)} {w['escape']}"
    return None


def _violation(console: _Unwrapped, w: dict, v: Violation, kinds: Mapping[str, str] | None = None) -> None:
    where = f" at action {v.action}" if v.action is not None else ""
    code = str(v.code)
    if w["violation"] == "违规":
        where = f" 第 {v.action} 步" if v.action is not None else ""
        code = f"{code}（{CODE_ZH.get(code, code)}）"
    console.print(Text(f"  !! {w['violation']} {code}{where}: {message_words(v.message, w['lang'], kinds)}",
                       style="bold white on red"))


class _Unwrapped:
    """A console that prints a line per action: whole where the output is no terminal (a file, a
    pipe), folded between cards and words on a terminal narrower than the line (never inside
    a card: the terminal's own folding splits ``5`` from ``♥``), the rest indented."""

    INDENT = 8

    def __init__(self, console: Console):
        self.console = console

    def print(self, text: Text | str, **kwargs) -> None:
        kwargs.setdefault("soft_wrap", True)
        c = self.console
        line = Text(text) if isinstance(text, str) else text
        width = c.width
        if not c.is_terminal or line.cell_len <= width or width <= 2 * self.INDENT:
            c.print(line, **kwargs)
            return
        for k, part in enumerate(line.wrap(c, width - self.INDENT, overflow="fold")):
            part.rstrip()
            c.print(Text(" " * self.INDENT) + part if k else part, **kwargs)

    def clear(self) -> None:
        self.console.clear()
