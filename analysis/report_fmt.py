"""Numbers and settings for people, in English or Chinese: thousands separators,
percentages, percentage points, never scientific notation, rule settings in words.

>>> num(41310.5), num(0.000123), num(1234567), num(None), num(0.0)
('41,310', '0.000123', '1,234,567', '–', '0')
>>> pct(0.1234), pct(0.0042), pct(1.0), pct(None)
('12.3%', '0.42%', '100%', '–')
>>> pp(0.031), pp(-0.2, "zh")
('+3.1 pp', '−20.0 个百分点')
>>> setting_words('{"straight_min": 6, "max_play": 4}'), setting_words('', 'zh')
('shortest straight: 6, max play: 4', '默认规则')

A game's own rule parameters and variants are spelled by the game (``PARAM_WORDS`` and
``VARIANT_WORDS`` of its package's ``words`` module), collected through the registry: this
module names no game.
"""

from __future__ import annotations

import json
import math

#: rule parameters that several games share, in words (English, Chinese); the rest are the
#: games' own (:func:`param_words`)
PARAM_WORDS = {
    "straight_min": ("shortest straight", "最短顺子"), "pair_chain_min": ("shortest pair chain", "最短连对"),
    "triple_chain_min": ("shortest triple chain", "最短三顺"), "kinds": ("combinations", "牌型"), "deck": ("deck", "牌"),
}
ON_OFF = {"en": ("on", "off"), "zh": ("开", "关")}
#: the statistics' codes that every game may have in a table (a measure, an event, a level),
#: in words; a game's own are in its ``words`` module's ``VALUE_WORDS`` (:func:`value_words`)
VALUE_WORDS = {
    "all": ("all", "全部"), "none": ("none", "无"), "coins": ("coins", "金币"), "points": ("points", "分数"),
    "bombs": ("bombs", "炸弹"), "redeal": ("redeal", "重新发牌"), "escape": ("escape", "逃跑"),
}
#: the table columns whose text is such a code
VALUE_COLUMNS = frozenset({"kind", "role", "event", "measure", "breakdown", "driver", "level"})
DEFAULT = {"en": "default rules", "zh": "默认规则"}


def num(x: float | int | None, lang: str = "en") -> str:
    """A count or amount: thousands separators, a few significant digits, no exponent."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, bool):
        return ON_OFF[lang][0 if x else 1]
    if isinstance(x, int) or float(x).is_integer() and abs(x) >= 1:
        return f"{int(round(x)):,}"
    a = abs(x)
    if a == 0:
        return "0"
    if a >= 100:
        return f"{x:,.0f}"
    if a >= 10:
        return f"{x:,.1f}"
    if a >= 0.01 or a == 0:
        return f"{x:,.2f}"
    return f"{x:.{max(2, 2 - math.floor(math.log10(a)))}f}".rstrip("0")


def pct(x: float | None, lang: str = "en") -> str:
    """A rate as a percentage (two decimals below 1%)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    v = 100 * x
    if round(v, 2) in (0, 100):
        return f"{v:.0f}%"
    return f"{v:.2f}%" if abs(v) < 1 else f"{v:.1f}%"


def pp(d: float, lang: str = "en") -> str:
    """A difference of two rates in percentage points, signed."""
    sign = "+" if d > 0 else "−" if d < 0 else "±"
    return f"{sign}{abs(100 * d):.1f} " + ("个百分点" if lang == "zh" else "pp")


def pval(p: float) -> str:
    """A p-value as people read it.

    >>> pval(0.0123), pval(0.00000471), pval(0.5)
    ('p = 0.012', 'p < 0.001', 'p = 0.50')
    """
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}" if p < 0.1 else f"p = {p:.2f}"


def interval(lo: float | None, hi: float | None, fmt=pct, lang: str = "en") -> str:
    return f"{fmt(lo, lang)} – {fmt(hi, lang)}"


def setting_words(setting: str | None, lang: str = "en") -> str:
    """A rule setting (the record's params as JSON) in words."""
    if not setting:
        return DEFAULT[lang]
    try:
        params = json.loads(setting)
    except ValueError:
        return str(setting)
    if not isinstance(params, dict) or not params:
        return DEFAULT[lang] if not params else str(params)
    k = 0 if lang == "en" else 1
    words = param_words()
    parts = []
    for key, value in params.items():
        name = words.get(key, (key.replace("_", " "),) * 2)[k]
        if isinstance(value, bool):
            text = ON_OFF[lang][0 if value else 1]
        elif isinstance(value, list):
            text = " ".join(map(str, value))
        elif isinstance(value, (int, float)):
            text = num(value, lang)
        else:
            text = str(value)
        parts.append(f"{name}: {text}")
    return ("，" if lang == "zh" else ", ").join(parts)


def variant_words(variant: str, lang: str = "en") -> str:
    """A variant's name for people (the games' ``VARIANT_WORDS``; its registry name when none says it)."""
    return collected("VARIANT_WORDS").get(variant, (variant, variant))[0 if lang == "en" else 1]


def param_words() -> dict[str, tuple[str, str]]:
    """Every rule parameter's words: :data:`PARAM_WORDS` and each registered game's own."""
    return PARAM_WORDS | collected("PARAM_WORDS")


def collected(name: str) -> dict[str, tuple[str, str]]:
    """The words *name* (``PARAM_WORDS``, ``VARIANT_WORDS``) of every registered game's
    ``words`` module, merged in registry order (games that share a name spell it alike:
    tests/test_toy_game.py checks it)."""
    from paipu.replay.games import games

    out: dict[str, tuple[str, str]] = {}
    for g in games():
        for key, words in getattr(g.part("words"), name, {}).items():
            out.setdefault(key, words)
    return out


def value_words(game: str | None, value: str, lang: str = "en") -> str:
    """A statistic's code (a measure, an event, a role, ``team 1``) in *lang*: itself in
    English; in Chinese the game's own word (its ``VALUE_WORDS``, its combination kinds,
    its roles: one code may mean two things in two games), else a word of every game
    (:data:`VALUE_WORDS`), else the code (tests/test_analysis.py has the games' own).

    >>> value_words(None, "coins", "zh"), value_words("no-such-game", "team 1", "zh"), value_words(None, "x", "zh")
    ('金币', '队伍 1', 'x')
    """
    if lang == "en" or not value:
        return value
    from paipu.replay.games import UnknownGame, find_game

    try:
        g = find_game(game) if game else None
    except UnknownGame:
        g = None
    if g is not None:
        own = getattr(g.part("words"), "VALUE_WORDS", {})
        for words in (own, {k: (k, v) for k, v in g.kinds.items()}, {k: (k, v) for k, v in g.roles.items()}):
            if value in words:
                return words[value][1]
    if value.startswith("team ") and value[5:].isdigit():
        return f"队伍 {value[5:]}"
    return VALUE_WORDS.get(value, (value, value))[1]


def group_words(variant: str, setting: str | None, lang: str = "en") -> str:
    """The name of a variant and rule setting."""
    v = variant_words(variant, lang)
    return v if not setting else f"{v} · {setting_words(setting, lang)}"
