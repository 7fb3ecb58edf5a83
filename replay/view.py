"""``paipu replay``: a recorded hand move by move in the terminal (rich), or as plain text.

The view replays the hand with the engine, one action at a time, so what it shows is
what the audit sees: combinations named in Chinese and English, trick boundaries, bombs
and multiplier changes, seats going out, the result, and a violation where it happens.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Console
from rich.text import Text

from .fmt import clip, signed

from .cards import CARD_OF, RANK, RANK_NAMES, SUIT, card_name
from .game import Game
from .games import UnknownGame, find_game, games
from .replayer import Replay, Visitor, walk
from .table import BOMB_EVENTS
from .rows import rows_of
from .words import ShownWords, shown_of
from .verdicts import Code, Violation

SUIT_SYMBOL = "♠♥♦♣"
SUIT_STYLE = ("bold", "bold red", "bold red", "bold")
#: the words every game shares in the view; a game's own (its acts, events, outcome values) are
#: its ``words.Shown.words`` (:func:`view_words` joins them)
WORDS = {
    "en": {"lang": "en", "seat": "seat", "bottom": "bottom", "pass": "pass", "plays": "plays", "trick": "trick won by",
           "out": "out", "result": "result", "scores": "scores", "coins": "coins", "multiplier": "multiplier",
           "hidden": "cards hidden", "left": "left", "escape": "escapes",
           "violation": "VIOLATION", "winner": "winner", "team": "team", "level": "level",
           "wild": "wild", "held_by": "{card} is held by {who}", "in_bottom": "{card} is in the bottom",
           "played": "{card} was played already", "nowhere": "{card} is in no hand",
           "base": "base", "coef": "coef", "fee": "fee",
           "keys": "keys: space or enter next · b back · q quit", "step": "action {k} of {n}"},
    "zh": {"lang": "zh", "seat": "座位", "bottom": "底牌", "pass": "不出", "plays": "出", "trick": "本轮最大",
           "out": "出完", "result": "结果", "scores": "得分", "coins": "游戏币", "multiplier": "倍数",
           "hidden": "手牌不可见", "left": "剩", "escape": "逃跑",
           "violation": "违规", "winner": "胜者", "team": "队", "level": "级牌",
           "wild": "逢人配", "held_by": "{card} 在 {who} 手中", "in_bottom": "{card} 在底牌中",
           "played": "{card} 已经出过", "nowhere": "{card} 不在任何人手中",
           "base": "底分", "coef": "系数", "fee": "台费",
           "keys": "按键：空格或回车 下一步 · b 后退 · q 退出", "step": "第 {k} 步，共 {n} 步"},
}
#: what each verdict code means, for people reading Chinese (the message itself: :data:`ZH_MESSAGES`):
#: the codes every game can meet; a game's own codes are its ``Shown.zh_codes`` (:func:`code_words`)
_CODE_ZH = {
    "bad_record": "记录格式不对", "bad_card": "不是一张牌", "unknown_game": "未知的玩法", "bad_deal": "发牌不对",
    "out_of_turn": "没轮到该座位", "not_in_hand": "出了手里没有的牌", "invalid_combo": "不是合法牌型",
    "does_not_beat": "没有大过上一手", "cannot_pass": "此时不能不出", "must_play": "有牌能大必须出",
    "first_play": "首出不符合规则",
    "bad_match": "与整场比赛的记录不符", "after_end": "牌局已结束", "incomplete": "记录不完整",
    "result_mismatch": "记录的结果与复盘不符", "duplicate_id": "重复的牌局编号", "engine_error": "引擎内部错误",
}

#: the engine's violation messages (English) for people reading Chinese: (pattern, template); a
#: group named ``cards`` (card tokens) is written as the cards are drawn (in English too), one named
#: ``cardsN`` likewise but in Chinese only (English keeps the engine's tokens); ``what`` is an act,
#: ``phase`` a phase, ``desc`` a combination as the engine describes it, ``kind`` a combination's kind,
#: ``rank`` a rank, ``game`` a game's title, ``rule`` an opening rule, ``when`` a moment of the bidding,
#: ``seats`` seat numbers joined by "and" / "or", ``levels`` the teams' levels (a list), ``givers`` the givers of a tribute ("seats 1 and 3
#: hold"), ``key`` a field of the result, ``expected`` what a field should hold and ``got`` what it
#: held (the record checks, replay/record.py, and the params); a message matching none stays as the
#: engine wrote it. Record field names, params names, game and variant names, act names and JSON
#: words stay as the record spells them. These are the messages of the walk, the records and the
#: shared table; each game's own follow them (its ``Shown.zh_messages``): ``ZH_MESSAGES`` is the whole table.
_FIELD = r'(?:field "(?P<field>[^"]*)": )?'
_ZH_MESSAGES: list[tuple[re.Pattern[str], str]] = [(re.compile(p), t) for p, t in (
    (r"seat (\d+) does not hold (?P<cards>\S+)", "座位 {0} 手里没有 {cards}"),
    (r"seat (\d+) was dealt (-?\d+) cards, expected (-?\d+)", "座位 {0} 发到 {1} 张牌，应为 {2} 张"),
    (r"(\d+) bottom cards, expected (-?\d+)", "底牌 {0} 张，应为 {1} 张"),
    (r"(\d+) seats dealt; (?P<game>\S+) has (-?\d+)", "发牌给了 {0} 个座位，{game} 有 {2} 个座位"),
    (r"not a card in the deal: (.+)", "发的牌里有不是牌的：{0}"),
    (r"the deal is not the (\d+)-card deck: (?:too many (?P<cards1>[^;]+))?(?:; )?(?:missing (?P<cards2>.+))?",
     "发的牌不是一副 {0} 张的牌：{surplus}{sep}{lack}"),
    (r"seat (\d+) leads this trick and may not pass", "座位 {0} 首出本轮，不能不出"),
    (r"seat (\d+) passed while holding a play that beats the last one \(有出必出\)",
     "座位 {0} 手里有大过上一手的牌却不出（有出必出）"),
    (r"seat (\d+) tried to (?P<what>\w+), but it is seat (\d+)'s turn", "座位 {0} {what}，但轮到座位 {2}"),
    (r"seat (\d+) tried to (?P<what>\w+) during (?P<phase>\w+)", "座位 {0} 在{phase}阶段{what}"),
    (r"(?P<cards>.+) \((?P<desc>.+)\) does not beat (?P<desc2>.+)", "{cards}（{desc}）没有大过上一手（{desc2}）"),
    (r"(?P<cards>.+) is no combination of (?P<game>\S+)", "{cards} 不是 {game} 的合法牌型"),
    (r"(?P<cards1>.+) cannot be the declared (?P<kind>\w+) (?P<rank>\S+) in (?P<game>\S+)",
     "{cards1} 不能当作声明的{kind}（{rank}）（{game}）"),
    (r"not a card in 'as': (.+)", "'as'（当作的牌）里有不是牌的：{0}"),
    (r"the hand was over \((\w+)\) before this (?P<what>\w+)", "牌局已经结束，之后又有{what}"),
    (r"the actions stop before the hand is over \((\d+) actions, (?P<phase>\w+) phase\)",
     "记录在牌局结束前中断（{0} 步，{phase}阶段）"),
    (r"result\.(?P<key>\w+): the record says (?P<got>.+), the replay gives (?P<got2>.+)",
     "结果的{key}：记录为 {got}，复盘得出 {got2}"),
    (r"params\.(\w+): not a parameter of (?P<game>\S+) \(known: (.+)\)", "params.{0}：不是 {game} 的参数（可用：{2}）"),
    (r"params\.(\w+): (.+) is not one of (.+)", "params.{0}：{1} 不在可选项中（可选：{2}）"),
    (r"params\.(\w+): cannot be changed", "params.{0}：不能更改"),
    (r"params\.deck: (?P<game>\S+) has a fixed deck", "params.deck：{game} 的牌是固定的一副"),
    (r"params(?:\.(\w+))?: expected (?P<expected>.+), got (?P<got>.+)", "params{dot}：应为{expected}，实际为 {got}"),
    (r"players must be (\d+)\.\.(\d+), got (-?\d+)", "玩家人数必须是 {0}..{1}，实际为 {2}"),
    (r"deck smaller than the number of seats", "牌比座位还少"),
    (r"not a level: (.+) \(expected 2\.\.10, J, Q, K or A\)", "不是级牌：{0}（应为 2..10、J、Q、K 或 A）"),
    (r"the first play must contain (?P<cards>\S+)", "首出必须包含 {cards}"),
    (r"the first play belongs to seat (\d+) \((?P<rule>.+)\), not seat (\d+)", "首出应由座位 {0}（{rule}），不是座位 {2}"),
    (r"not a card: (.+)", "不是一张牌：{0}"),
    (r"'(?P<what>\w+)' is not an act of (?P<game>.+)", "{what}（'{0}'）不是 {game} 的动作"),
    (_FIELD + r"unknown game (?P<name>.+) \(known: (?P<known>.+)\)", "{where}未知的玩法 {name}（可用：{known}）"),
    (_FIELD + r"unknown variant (?P<name>.+) of (?P<game>\S+) \(known: (?P<known>.+)\)",
     "{where}{game} 没有玩法变体 {name}（可用：{known}）"),
    (_FIELD + r"required field missing \(expected (?P<expected>.+)\)", "{where}缺少必填字段（应为{expected}）"),
    (_FIELD + r"expected lists and objects nested at most (\d+) deep", "{where}列表和对象最多嵌套 {1} 层"),
    (_FIELD + r"keys that are valid Unicode text, got (.+)", "{where}键必须是有效的 Unicode 文本，实际为 {1}"),
    (_FIELD + r"a value that JSON cannot hold", "{where}有 JSON 无法表示的值"),
    (_FIELD + r"expected (?P<expected>.+), got (?P<got>.+)", "{where}应为{expected}，实际为 {got}"),
)]
#: the table's phases, in the words of the messages above
_ZH_PHASES = {"play": "出牌", "over": "结束"}
_ZH_ACTS = {"play": "出牌", "pass": "不出", "escape": "逃跑"}
#: the shared opening rule (Table.opening_rule), in Chinese (a game's own: its ``Shown.zh_rules``)
_ZH_RULES = {"the opening rule": "首出规则"}
#: the fields of a result (result_mismatch) every game has, in Chinese
_ZH_RESULT = {"order": "出完顺序", "multiplier": "倍数", "scores": "得分", "coins": "游戏币", "escape": "逃跑"}
#: values the engine writes in Python's words, in Chinese (JSON's words for the constants)
_ZH_VALUES = {"None": "null", "True": "true", "False": "false",
              "list": "列表", "dict": "对象", "str": "字符串", "int": "整数", "float": "数", "bool": "true 或 false",
              "NoneType": "null", "an array": "数组", "a string": "字符串", "null": "null", "true": "true", "false": "false"}


class _Zh:
    """The Chinese of the engine's words: the shared tables above joined with every
    registered game's own (its ``words.Shown``), made once per registry (a message names
    no game, so every game's words may be needed)."""

    def __init__(self, shown: list[type[ShownWords]]):
        def joined(shared: dict[str, str], part: str) -> dict[str, str]:
            out = dict(shared)
            for sw in shown:
                out.update(getattr(sw, part))
            return out

        #: verdict code -> what it means
        self.codes = joined(_CODE_ZH, "zh_codes")
        #: the table's phases, the acts, the moments of an act, the opening rules, the fields
        #: of a result and the values it holds, in the words of the messages
        self.phases = joined(_ZH_PHASES, "zh_phases")
        self.acts = joined(_ZH_ACTS, "zh_acts")
        self.when: dict[str, str] = joined({}, "zh_when")
        self.rules = joined(_ZH_RULES, "zh_rules")
        self.result = joined(_ZH_RESULT, "zh_result")
        self.values = joined(_ZH_VALUES, "zh_values")
        self.messages = _ZH_MESSAGES + [(re.compile(p), t) for sw in shown for p, t in sw.zh_messages]


_zh_kept: list[tuple[tuple[int, ...], _Zh]] = []


def zh() -> _Zh:
    """The Chinese tables of every registered game (:class:`_Zh`), made again when the registry changes."""
    registered = games()
    key = tuple(id(g) for g in registered)
    if not _zh_kept or _zh_kept[0][0] != key:
        _zh_kept[:] = [(key, _Zh([shown_of(g) for g in registered]))]
    return _zh_kept[0][1]


def __getattr__(name: str) -> Any:
    """``CODE_ZH``, ``ZH_MESSAGES``, ``ZH_ACTS``, ...: the whole tables, every registered game's joined (:func:`zh`)."""
    part = {"CODE_ZH": "codes", "ZH_MESSAGES": "messages", "ZH_ACTS": "acts", "ZH_PHASES": "phases", "ZH_WHEN": "when",
            "ZH_RULES": "rules", "ZH_RESULT": "result", "ZH_VALUES": "values"}.get(name)
    if part is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(zh(), part)


def code_words(code: str) -> str:
    """What the verdict *code* means, in Chinese ("" for a code without words)."""
    return zh().codes.get(code, "")


def view_words(game: Game | None, lang: str) -> dict[str, str]:
    """The view's words in *lang* for a hand of *game*: the shared :data:`WORDS`, then every
    registered game's own (its ``Shown.words``: an act a record holds that its game does not
    know is named as the game that has it names it), *game*'s last."""
    words = dict(WORDS[lang])
    for g in [*games(), game]:
        words.update(shown_of(g).words.get(lang, {}))
    return words


#: what a field should hold (the record checks and the params), in Chinese: (pattern, template)
ZH_EXPECTED: list[tuple[re.Pattern[str], str]] = [(re.compile(p), t) for p, t in (
    (r"a string", "字符串"), (r"an integer", "整数"), (r"a list", "列表"), (r"an object", "对象"),
    (r"true or false", " true 或 false"), (r"format version (\d+)", "格式版本 {0}"), (r"a non-empty string", "非空的字符串"),
    (r"(\d+) to (\d+) player names", " {0} 到 {1} 个玩家"), (r"one list of cards per seat \((\d+)\)", "每个座位一组牌（{0} 组）"),
    (r"a list of cards", "一组牌"), (r"a list of cards \(at least one\)", "一组牌（至少一张）"), (r"at least one card", "至少一张牌"),
    (r"a card like '3h', 'Ts' or 'BJ'", "一张牌，如 '3h'、'Ts' 或 'BJ'"), (r"a card such as (\w+)", "一张牌，如 {0}"),
    (r"a number from -2\^53 to 2\^53", " -2^53 到 2^53 之间的数"),
    (r"a number from -2\^53 to 2\^53 \(coins\)", " -2^53 到 2^53 之间的数（游戏币）"),
    (r"(\d+) numbers \(coins per seat\)", " {0} 个数（每个座位的游戏币）"),
    (r"a hand number from 0 to 2\^63 - 1", " 0 到 2^63 - 1 之间的局号"),
    (r'two level ranks like (.+)', "两个级牌点数，如 {0}"), (r"a level rank 2\.\.10, J, Q, K or A", "级牌点数 2..10、J、Q、K 或 A"),
    (r"a seat (\d+)\.\.(-?\d+)", "座位 {0}..{1}"), (r"an object like (.+)", "对象，如 {0}"), (r"one of (.+)", "以下之一：{0}"),
    (r"milliseconds since the hand began \(a number from 0 to 2\^53\)", "牌局开始后的毫秒数（0 到 2^53 之间的数）"),
    (r"(\d+) cards \(one per card played\)", " {0} 张牌（出的每张牌一张）"),
    (r"a combination \[kind, key\] like (.+)", "牌型 [牌型, 点数]，如 {0}"),
    (r"a whole number of 32 bits \(5, 4, 3 or 2\)", " 32 位整数（5、4、3 或 2）"),
    (r"valid Unicode text \(a lone surrogate is not\)", "有效的 Unicode 文本（单独的代理字符不是）"),
    (r"an integer of at most 64 bits", "至多 64 位的整数"), (r"a finite number", "有限的数"), (r"a JSON value", " JSON 值"),
    (r"an object of rule names and values", "规则名和值组成的对象"), (r"a JSON object per hand", "每局一个 JSON 对象"),
    (r"a list of names", "一组名称"), (r"a list like (.+)", "形如 {0} 的列表"), (r'"(\w+)" or "(\w+)"', ' "{0}" 或 "{1}"'),
    (r"(\d+) \(never\) or more", " {0}（从不）或更大"), (r"(\d+) or (\d+) \(classic only\)", " {0} 或 {1}（仅 classic）"),
    (r"(\d+) or more", " {0} 或更大"),
    (r"at most (\d+) \((\d+) cards, (\d+) seats\)", "至多 {0}（{1} 张牌，{2} 个座位）"),
)]


def _expected_words(text: str) -> str:
    for pattern, template in ZH_EXPECTED:
        m = pattern.fullmatch(text)
        if m is not None:
            return template.format(*m.groups())
    return text


def _value_words(text: str) -> str:
    """A value as the engine wrote it (Python's repr; a record's kind in JSON's words:
    ``an array``, ``a number (5)``), in Chinese where it has words."""
    number = re.fullmatch(r"a number \((.+)\)", text)
    if number:
        return f"数 {number[1]}"
    return zh().values.get(text) or re.sub(r"^'(\d+) lists'$", r"\1 组", text)


def _seats_words(text: str) -> str:
    """Seat numbers joined by "and" / "or" (``1 and 3``) in Chinese (``1 和 3``)."""
    return text.replace(" and ", " 和 ").replace(" or ", " 或 ").replace(", ", "、")


def _rule_words(text: str) -> str:
    return zh().rules.get(text) or re.sub(r"^the holder of (\S+) leads$", lambda m: f"{token_words(m[1], 'zh')} 在谁手里谁先出", text)


def _levels_words(text: str) -> str:
    """The two teams' levels as the engine writes them (``['T', '2']``) as people read them (``10、2``)."""
    names = re.fullmatch(r"\[(.*)\]", text)
    return text if names is None else "、".join(rank_text(x.strip(" '\"")) for x in names[1].split(","))


def _game_words(text: str) -> str:
    """A game's English title or name (``NAME/VARIANT`` too) in Chinese: its Chinese title
    (the variant as the record spells it)."""
    name, slash, variant = text.partition("/")
    for g in games():
        if name in (g.title, g.name):
            return f"{g.title_zh}{slash}{variant}" if slash else g.title_zh
    return text


def message_words(message: str, lang: str, kinds: Mapping[str, str] | None = None) -> str:
    """A violation's message in *lang* (the engine writes English; see :data:`ZH_MESSAGES`).

    >>> message_words("seat 0 does not hold Td", "zh"), message_words("seat 0 does not hold Td", "en")
    ('座位 0 手里没有 10♦', 'seat 0 does not hold 10♦')
    """
    for pattern, template in zh().messages:
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
        for key, value in words.items():
            if key.startswith("cards"):
                words[key] = token_words(value.split(), "zh")
            elif key in ("desc", "desc2"):
                words[key] = _combo_words(value, kinds or {})
            elif key in ("rank", "rank2"):
                words[key] = rank_text(value)
            elif key in ("got", "got2"):
                words[key] = _value_words(value)
            else:
                words[key] = _WORDS_OF.get(key, str)(value)
        if "kind" in words:
            words["kind"] = (kinds or {}).get(words["kind"], words["kind"])
        extra = {"where": f"字段 {named['field']}：" if named.get("field") else "",
                 "dot": f".{m[1]}" if "dot" in template and m[1] else "",
                 "surplus": f"多了 {words['cards1']}" if named.get("cards1") else "",
                 "lack": f"少了 {words['cards2']}" if named.get("cards2") else "",
                 "sep": "；" if named.get("cards1") and named.get("cards2") else ""}
        return template.format(*m.groups(), **{**extra, **words})
    return message


#: how the named groups of :data:`ZH_MESSAGES` are put in Chinese (those not here: as written)
_WORDS_OF: dict[str, Callable[[str], str]] = {
    "what": lambda v: zh().acts.get(v, v), "phase": lambda v: zh().phases.get(v, v), "when": lambda v: zh().when.get(v, v),
    "rule": _rule_words, "game": _game_words, "seats": _seats_words, "expected": _expected_words,
    "key": lambda v: zh().result.get(v, v), "levels": _levels_words, "levels2": _levels_words,
    "givers": lambda v: "座位 " + _seats_words(re.sub(r"^seats? | holds?$", "", v)) + " 有",
}


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
    """Cards high to low (by *strength*, the hand's own order, e.g. a level's cards high in a
    game played at a level; the default rank order without it), suits in colour."""
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


def role_words(game: Game | None, role: str, lang: str) -> str:
    """A seat's role (as the game's rows name it) in *lang*: the name itself in English, its
    Chinese from the game's declaration (:attr:`replay.game.Game.roles`)."""
    return (game.roles.get(role, role) if game is not None else role) if lang == "zh" else role


def kind_name(kinds: Mapping[str, str], kind: str, lang: str) -> str:
    """A combination kind for people: its Chinese name (the game module's ``KINDS``) in
    Chinese, both names in English."""
    if lang == "zh":
        return kinds.get(kind, kind)
    return f"{kind} {kinds.get(kind, '')}".rstrip()


def level_text(table, game, w: dict, lang: str) -> Text | None:
    """The level being played and its wild card, for games played at a level."""
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
           upto: int | None = None, marks: Mapping[int, str] | None = None) -> Violation | None:
    """Print *record* move by move (the first *upto* actions only, when given); returns the
    first violation shown (or None). *marks*: action index -> words printed under that
    move (``paipu replay --review``: a mistake or blunder, ``replay.review_view.marks``)."""
    if upto is not None and upto >= len(record["actions"]):
        upto = None  # the whole hand, its end checked
    view = _View(record, console, seat, lang, upto is not None, marks)
    walk(record, view, upto=upto)
    return view.violation


class _View(Visitor):
    """:func:`render`'s visitor of the walk: a line per action, the hands as they change,
    the verdict (*partial*: the walk stops before the end, which is not shown)."""

    def __init__(self, record: dict, console: Console, seat: int | None, lang: str, partial: bool,
                 marks: Mapping[int, str] | None = None):
        self.record, self.seat, self.lang, self.partial, self.marks = record, seat, lang, partial, marks
        self.screen = _Unwrapped(console)
        self.game = game = known_game(record["game"])
        self.shown_words = shown_of(game)
        self.w = w = view_words(game, lang)
        self.players = record["players"]
        title = Text(f"{record['id']} · " + (f"{game.title_zh} " if game else "") + f"{record['game']}/{record['variant']}",
                     style="bold")
        for key in ("time",):
            if record.get(key):
                title.append(f" · {record[key]}")
        room = room_words(record.get("room"), w)
        if room:
            title.append(" · " + room)
        self.title = title
        self.table: Any = None  # set when the hand is set up (and its game known)
        self.kinds: Mapping[str, str] = game.kinds if game else {}
        self.shown: set[int] = set()
        self.mult: int | None = None
        self.violation: Violation | None = None

    def start(self, table) -> None:
        if self.game is None:
            return  # (a game this installation does not know: the deal as the record has it)
        self.table = table
        level = level_text(table, self.game, self.w, self.lang)
        if level is not None:
            self.title.append_text(level)
        self.screen.print(self.title)
        self.wild = getattr(table, "wild", None)
        self.show_hands()
        self.mult = mult = table.multiplier_now()
        if mult is not None and table.phase == "play":
            self.screen.print(Text(f"       {self.w['multiplier']} {mult}", style="yellow"))

    def visible(self, s: int) -> bool:
        return self.seat is None or s == self.seat or s in self.shown

    def role(self, s: int) -> str:
        assert self.game is not None
        team = self.game.team_of(s)
        if team is not None:
            return f"{self.w['team']} {team}"
        r = rows_of(self.table.rules).seat_role(self.table, s)
        return "" if r is None else role_words(self.game, r, self.lang)

    def name(self, s: int) -> str:  # a long name cut, as the page and the report cut it
        return f"{s} {clip(str(self.players[s]))}"

    def card_words(self, c: int) -> str:
        return card_text(c, self.lang).plain

    def show_hands(self) -> None:
        table, w, lang, seat, screen = self.table, self.w, self.lang, self.seat, self.screen
        for s in range(table.n):
            line = Text(f"  {w['seat']} {self.name(s):<12} {self.role(s):<8} ", style="cyan" if s == seat else "")
            if self.visible(s):
                line.append_text(cards_text(hand_cards(table, s), lang, self.wild, table.strength))
            else:
                line.append(f"[{table.left[s]} {w['hidden']}]", style="dim")
            screen.print(line)
        if self.record.get("bottom") is not None:
            bottom = [CARD_OF[t] for t in self.record["bottom"]]
            line = Text(f"  {w['bottom']}: ")
            if seat is None or self.shown_words.declarer(table) is not None:  # the bottom taken: open
                line.append_text(cards_text(bottom, lang))
            else:
                line.append(f"[3 {w['hidden']}]", style="dim")
            screen.print(line)

    def before(self, table, i: int, action: dict) -> None:
        s = action["seat"]
        self.before_phase = table.phase
        self.n_events = len(table.events)
        self.held = list(table.hands[s]) if 0 <= s < table.n else None

    def after(self, table, i: int, action: dict, v: Violation | None) -> None:
        if self.table is None:
            return
        w, lang, kinds, screen, name = self.w, self.lang, self.kinds, self.screen, self.name
        act, s = action["act"], action["seat"]
        line = Text(f"{i:>3}  {name(s):<12} ", style="")
        if v is not None:
            line.append(_action_words(action, w, self.game), style="bold red")
            screen.print(line)
            self.show(v)
            if v.code == Code.NOT_IN_HAND and self.held is not None:
                for note in _holders(action, self.held, s, table, self.record, w, name, self.card_words,
                                     self.shown_words.declarer(table) is not None):
                    screen.print(Text(f"       {note}", style="red"))
            return
        if act == "play":
            c = table.last[0] if table.last else None
            ids = [CARD_OF[t] for t in action["cards"]]
            label = kind_name(kinds, c.kind, lang) if c else ""
            line.append(f"{w['plays']} {label}  ", style="bold yellow" if c and c.tier else "green")
            line.append_text(cards_text(ids, lang, self.wild, table.strength))
            line.append(f"   ({w['left']} {table.left[s]})", style="dim")
        else:
            line.append(_action_words(action, w, self.game), style="dim" if act == "pass" else "")
        screen.print(line)
        marks = self.marks
        if marks and i in marks:
            screen.print(Text(f"       {marks[i]}", style="bold yellow" if "⚠" in marks[i] else "bold white on red"))
        causes = []
        for e in table.events[self.n_events:]:
            words = _event_words(e, w, name, kinds, lang, self.game)
            if words:
                bold = e.kind in BOMB_EVENTS or e.kind in self.shown_words.highlighted
                screen.print(Text(f"       {words}", style="bold magenta" if bold else "magenta"))
            if e.kind == "show" and e.seat is not None:
                self.shown.add(e.seat)
            if e.kind in kinds:
                causes.append(kind_name(kinds, e.kind, "zh") if lang == "zh" else e.kind)
        mult = self.mult
        now = table.multiplier_now()
        if now is not None and mult is not None and now != mult:
            cause = ", ".join(causes) or _action_words(action, w, self.game)
            screen.print(Text(f"       {w['multiplier']} {mult} → {now} ({cause})", style="bold yellow"))
        mult = now if now is not None else mult
        if self.before_phase != "play" and table.phase == "play" and (i > 0 or act not in ("play", "pass")):
            declarer = self.shown_words.declarer(table)
            if declarer is not None:  # the bidding gave a seat its role: "becomes <role>"
                screen.print(Text(f"       {name(declarer)} {w['becomes']}", style="bold cyan"))
                mult = table.multiplier_now()
                if mult is not None:
                    screen.print(Text(f"       {w['multiplier']} {mult}", style="yellow"))
            self.show_hands()
        self.mult = mult
        if act == "pass" and table.last is None and not table.over:
            screen.print(Text(f"     ── {w['trick']} {name(table.last_seat)} ──", style="dim"))

    def show(self, v: Violation) -> None:
        """The hand's verdict, once."""
        self.violation = v
        _violation(self.screen, self.w, v, self.kinds)

    def end(self, replay: Replay) -> None:
        v = replay.violation
        if self.violation is not None:
            return  # shown with its action
        if self.table is None:  # judged before any action: the deal as the record has it
            self.screen.print(self.title)
            _dealt(self.screen, self.record, self.w, self.lang)
            if v is not None:
                self.show(v)
            return
        if v is not None and v.code != Code.RESULT_MISMATCH:
            self.show(v)
            return
        if self.partial:
            return
        self.result(replay.outcome)
        if v is not None:
            self.show(v)

    def result(self, out: dict) -> None:
        """The settlement."""
        w, screen, name, role = self.w, self.screen, self.name, self.role
        last_step = end_multiplier(out, self.mult, w, self.shown_words.end_cause)
        if last_step:
            screen.print(Text(f"       {last_step}", style="bold yellow"))
        screen.print(Text(f"{w['result']}:", style="bold"))
        if out.get("order"):
            screen.print(f"  {w['winner']}: {name(out['order'][0])}" + (f" ({role(out['order'][0])})" if role(out['order'][0]) else ""))
        shown = self.shown_words
        for key in shown.result_lines:
            if out.get(key) is not None:
                value = w.get(out[key], out[key]) if isinstance(out[key], str) else out[key]
                screen.print(f"  {w.get(key, key)}: {value}")
        for key in ("scores", *shown.seat_lines, "coins"):
            if out.get(key) is not None:
                screen.print(f"  {w.get(key, key)}: " + "  ".join(f"{name(k)} {signed(x)}" for k, x in enumerate(out[key])))


def end_multiplier(out: dict, mult: int | None, w: dict, field: str | None = None) -> str | None:
    """The multiplier's last step, which only the end decides (a spring's ×2), in words: its
    cause the outcome's *field* (the game's ``Shown.end_cause``), when it has one."""
    final = out.get("multiplier")
    if final is None or mult is None or final == mult:
        return None
    named = (out.get(field) or "") if field else ""
    cause = w.get(named, named)
    return f"{w['multiplier']} {mult} → {final}" + (f" ({cause})" if cause else "")


def step_through(record: dict, console: Console, getchar: Callable[[], str], seat: int | None = None,
                 lang: str = "en", marks: Mapping[int, str] | None = None) -> Violation | None:
    """``--step``: the hand up to one action at a time, redrawn after each key: space or
    enter (any other key) shows the next action, ``b`` steps back, ``q`` quits. Returns
    the hand's first violation, as :func:`render` over the whole hand does."""
    w = WORDS[lang]
    n = len(record["actions"])
    k = 0
    while True:
        console.clear()
        v = render(record, console, seat=seat, lang=lang, upto=k, marks=marks)
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


def _holders(action: dict, held: list[int], seat: int, table, record: dict, w: dict, name, card_words,
             taken: bool = False) -> list[str]:
    """Where each card of a play that *seat* did not hold is: another seat's hand, the
    bottom (not *taken* yet) or already played."""
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
        elif c in bottom and not taken:
            notes.append(w["in_bottom"].format(card=card_words(c)))
        elif held[c] or any(c in (CARD_OF.get(t) for t in a.get("cards") or ()) for a in record["actions"]):
            notes.append(w["played"].format(card=card_words(c)))
        else:
            notes.append(w["nowhere"].format(card=card_words(c)))
    return notes


def _shown_all(game: Game | None) -> list[type[ShownWords]]:
    """The views' words of *game*, then every registered game's (an act or event a record of
    *game* holds that its game does not have is named as the game that has it names it)."""
    return [shown_of(game)] + [shown_of(g) for g in games() if g is not game]


def _action_words(action: dict, w: dict, game: Game | None = None) -> str:
    act = action["act"]
    if act == "play":
        return f"{w['plays']} {token_words(action['cards'], w['lang'])}"
    if act != "pass":
        for shown in _shown_all(game):
            text = shown.act_text(action, w, lambda tokens: token_words(tokens, w["lang"]))
            if text is not None:
                return text
    return w.get(act, act)


def _event_words(e, w: dict, name, kinds: Mapping[str, str] | None = None, lang: str = "en",
                 game: Game | None = None) -> str | None:
    if e.kind == "out":
        return f"{name(e.seat)} {w['out']} (#{e.data.get('place')})"
    for shown in _shown_all(game):
        text = shown.event_text(e, w, name)
        if text is not None:
            return text
    if e.kind in BOMB_EVENTS:  # every bomb, as the replayer page marks them
        return "💣 " + ((kinds or {}).get(e.kind, e.kind) if lang == "zh" else e.kind)
    if e.kind == "escape":
        return f"{name(e.seat)} {w['escape']}"
    return None


def _violation(console: _Unwrapped, w: dict, v: Violation, kinds: Mapping[str, str] | None = None) -> None:
    where = f" at action {v.action}" if v.action is not None else ""
    code = str(v.code)
    if w["violation"] == "违规":
        where = f" 第 {v.action} 步" if v.action is not None else ""
        code = f"{code}（{zh().codes.get(code, code)}）"
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
