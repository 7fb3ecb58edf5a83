"""Numbers and counts for people: terminal tables, summaries, and (later) the HTML report.

Machines get raw numbers (``--json``, ``--csv``, Parquet); people get these: thousands
separators, never scientific notation, rates in one unit (per cent), plurals right.

>>> count(1, "file"), count(12345, "hand")
('1 file', '12,345 hands')
>>> number(-84290.0), number(1234567), number(0.0398412), number(7013.0)
('-84,290', '1,234,567', '0.0398', '7,013')
>>> percent(0.19123), percent(1), percent(None)
('19.1%', '100.0%', '')
>>> printable("A\\x1b[2J\\x07B\\u202e 张三\\n")
'A␛[2J␇B� 张三\\n'
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: column names whose values are rates or shares in [0, 1], shown as per cent
RATE_COLUMNS = frozenset({"rate", "lo", "hi", "share",
                          # the review rating's three rates and their bounds (paipu stats: review_rating)
                          *(f"{k}_{b}" for k in ("match", "mistake", "blunder") for b in ("rate", "lo", "hi"))})
#: the bounds of an interval: per cent only beside the rate or share they bound
BOUNDS = frozenset({"lo", "hi"})
#: the smallest p- or q-value written as a number; below it, "< 0.0001"
SMALLEST_P = 1e-4


#: what printable() shows for each control character: C0 as its control picture (␛ for
#: ESC), DEL as ␡, C1 and the marks and overrides that reorder a line's direction as �
_PRINTABLE = {**{c: 0x2400 + c for c in range(32) if c != 10}, 0x7F: 0x2421,
              **{c: 0xFFFD for c in (*range(0x80, 0xA0), 0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
                                     *range(0x2066, 0x206A))}}


def printable(text: str) -> str:
    """*text* safe to print on a terminal: every control character but the newline (an
    escape sequence's ESC, a bell, a carriage return, a right-to-left override) replaced by
    a visible stand-in of one cell, so that a name from a log cannot move the cursor, clear
    the screen or make a line read other than it is. Everything else is kept as it is."""
    return text.translate(_PRINTABLE)


def one_line(text: str) -> str:
    """:func:`printable`, the newline shown too (␊): a message that is one line by contract
    (an error, a reject) stays one, whatever a file name or an id holds."""
    return printable(text).replace("\n", "\u240a")


def rate_columns(columns: Sequence[str]) -> frozenset[str]:
    """The columns of a table shown as per cent: its rates and shares, and its interval
    bounds when it has a rate or share (an interval of a mean, such as bombs a hand, is in
    the mean's own unit).

    >>> sorted(rate_columns(["hands", "rate", "lo", "hi"])), sorted(rate_columns(["per_hand", "lo", "hi"]))
    (['hi', 'lo', 'rate'], [])
    """
    rates = RATE_COLUMNS.intersection(columns)
    return rates if rates - BOUNDS else rates - BOUNDS


def plural(n: int, word: str, many: str | None = None) -> str:
    """*word* for one, *many* (default: word + "s") otherwise.

    >>> plural(1, "section"), plural(0, "section"), plural(2, "match", "matches")
    ('section', 'sections', 'matches')
    """
    return word if n == 1 else (many or word + "s")


def count(n: int, word: str, many: str | None = None) -> str:
    """``n`` with thousands separators and the word agreeing with it."""
    return f"{n:,} {plural(n, word, many)}"


def decimals_for(values: Sequence[float | None], digits: int = 3, most: int = 4) -> int:
    """Decimals that show the smallest non-zero magnitude among *values* with *digits*
    significant digits (at most *most*); 0 when every value is whole.

    >>> decimals_for([0.2032, 0.0398]), decimals_for([4.1, 16.24]), decimals_for([7013.0, 893.5]), decimals_for([2.0, 8.0])
    (4, 2, 0, 0)
    """
    nonzero = [abs(v) for v in values if v is not None and math.isfinite(v) and v != 0]
    if not nonzero or all(float(v).is_integer() for v in nonzero):
        return 0
    exponent = math.floor(math.log10(min(nonzero)))
    return max(0, min(most, digits - 1 - exponent))


def number(x: float | int | None, decimals: int | None = None) -> str:
    """A number with thousands separators and no exponent; whole floats print whole.

    >>> number(1.5e-7), number(float("nan")), number(2.0, 2), number(1e20)
    ('0.0000', 'nan', '2.00', '100,000,000,000,000,000,000')
    """
    if x is None:
        return ""
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, int):
        return f"{x:,}"
    if not math.isfinite(x):
        return str(x)
    if decimals is None:
        decimals = decimals_for([x])
    return f"{x:,.{decimals}f}"


def percent(x: float | None, decimals: int = 1) -> str:
    """A rate in [0, 1] as per cent."""
    if x is None:
        return ""
    return f"{100 * x:,.{decimals}f}%"


def p_value(p: float | None) -> str:
    """A p- or q-value for people: two significant digits, and below 0.0001 (beyond what a
    screen of many tests can tell apart) ``< 0.0001``; never scientific notation.

    >>> p_value(0.31731), p_value(0.0123), p_value(1.0), p_value(4.9e-33), p_value(None)
    ('0.32', '0.012', '1', '< 0.0001', '')
    """
    if p is None or math.isnan(p):
        return ""
    if p < SMALLEST_P:
        return f"< {SMALLEST_P:.4f}"
    return number(p, decimals_for([p], digits=2)) if p < 1 else "1"


def signed(x: float | int) -> str:
    """A score or coin change with its sign: ``+1,200``, ``-30``, ``0``.

    >>> signed(1200.0), signed(-30), signed(0), signed(2.5)
    ('+1,200', '-30', '0', '+2.50')
    """
    text = number(x)
    return text if text.startswith("-") or x == 0 else "+" + text


def column(name: str, values: Sequence, rates: frozenset[str] = RATE_COLUMNS, decimals: int | None = None) -> list[str]:
    """The cells of one table column for people: rates (the columns *rates*) as per cent,
    numbers aligned to one number of decimals (*decimals*, else the column's own), anything
    else as text.

    >>> column("rate", [0.5, 0.0123]), column("coins", [-84290.0, 1667.0]), column("mean", [1.375, 8.0])
    (['50.0%', '1.2%'], ['-84,290', '1,667'], ['1.38', '8.00'])
    """
    if name in rates and all(v is None or isinstance(v, (int, float)) for v in values):
        return [percent(v) for v in values]
    floats = [v for v in values if isinstance(v, float)]
    d = decimals if decimals is not None else decimals_for(floats) if floats else 0
    return [number(v, d) if isinstance(v, (int, float)) and not isinstance(v, bool) else ("" if v is None else str(v))
            for v in values]


def families(columns: Sequence[str], floats: Sequence[str] | None = None) -> dict[str, str]:
    """Each column's family: a value and its interval's bounds, whose numbers are shown
    with the same decimals. ``X_lo``, ``X_hi`` go with ``X``, else ``mean_X``, else ``X_rate``;
    bare ``lo``, ``hi`` with the nearest column of *floats* (default: every column) before
    ``lo`` (``per_hand`` in ``per_hand, hands, lo, hi``).

    >>> families(["loss", "loss_lo", "loss_hi", "n"])
    {'loss': 'loss', 'loss_lo': 'loss', 'loss_hi': 'loss', 'n': 'n'}
    >>> families(["loss_count", "mean_loss", "loss_lo", "loss_hi"])["loss_hi"]
    'mean_loss'
    >>> families(["per_hand", "hands", "lo", "hi"], floats=["per_hand", "lo", "hi"])["hi"]
    'per_hand'
    """
    floats = list(columns) if floats is None else floats
    out = {c: c for c in columns}
    for c in columns:
        if c.endswith(("_lo", "_hi")):
            base = c[:-3]
            out[c] = next((x for x in (base, "mean_" + base, base + "_rate") if x in columns), base + "_lo")
        elif c in ("lo", "hi") and "lo" in columns:
            before = [x for x in columns[:list(columns).index("lo")] if x in floats]
            out[c] = before[-1] if before else "lo"
    return out


#: the most characters of a name (a player, a hand id) shown in a table cell or a seat's label
NAME_CHARS = 32


def clip(text: str, limit: int = NAME_CHARS) -> str:
    """*text* cut to *limit* characters for display, ``…`` marking the cut (the full text
    goes where people can hover to read it).

    >>> clip("张三"), clip("x" * 40, 8)
    ('张三', 'xxxxxxx…')
    """
    return text if len(text) <= limit else text[:limit - 1] + "…"
