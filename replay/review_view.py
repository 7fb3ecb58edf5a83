"""A hand's review for people (``paipu review INPUT --hand ID``): each decision with its
best options' values, the chosen one marked, its loss and flag; a summary per seat. Lines
fit the terminal's width (40 columns and up): a label too long for its column gets a line
of its own. English or Chinese (:data:`WORDS`).
"""

from __future__ import annotations

import math
from typing import Any

from rich.text import Text

from paipu.replay.fmt import clip

from .evaluate import Option
from .review import BLUNDER, MISTAKE, Z, DecisionReview, HandReview, rank_key
from .view import known_game, token_words, view_words, zh

#: options shown per decision: the best few, and the chosen one when it is not among them
TOP = 3

#: each word of the review: (English, Chinese)
_WORDS = {
    "seat": ("seat", "座位"), "loss": ("loss", "损失"), "win": ("win", "胜率"), "points": ("points", "得分"),
    "mistake": ("mistake", "失误"), "blunder": ("BLUNDER", "恶手"), "mistakes": ("mistakes", "失误"),
    "blunders": ("blunders", "恶手"), "decisions": ("decisions", "决策"), "best": ("best", "最优"),
    "mean_loss": ("mean loss", "平均损失"), "summary": ("summary per seat", "各座位小结"),
    "settings": ("at most {samples} deals a decision", "每个决策最多 {samples} 次发牌"),
    "settings2": ("{budget} · seed {seed}", "{budget} · 种子 {seed}"),
    "budget": ("{ms} ms a decision", "每个决策 {ms} 毫秒"), "no_budget": ("no time budget", "不限时"),
    "unit": ("loss, win: points of win probability", "损失、胜率：胜率的百分点"),
    "unit2": ("±: standard error", "±：标准误"),
    "rule": ("mistake: loss ≥ {m}, loss − {z}·SE > 0", "失误：损失 ≥ {m}，损失 − {z}·标准误 > 0"),
    "rule2": ("blunder: loss ≥ {b}, loss − {z}·SE ≥ {m}", "恶手：损失 ≥ {b}，损失 − {z}·标准误 ≥ {m}"),
    "columns": ("option", "选择"), "win_se": ("win ±SE", "胜率 ±误差"), "points_col": ("points", "得分"),
    "skipped": ("one-option decisions skipped: {n}", "只有一种选择、跳过的决策：{n}"),
    "none": ("no decision to review", "没有可复盘的决策"), "exact": ("solved exactly", "精确求解"),
    "relaxed": ("some deals relaxed", "部分发牌放宽了约束"), "deals": ("{n} deals", "{n} 次发牌"),
    "more": ("… and {n} more", "… 另有 {n} 种"),
}
#: the words of the review per language (the acts' names: :func:`act_words`)
WORDS: dict[str, dict[str, Any]] = {lang: {k: v[i] for k, v in _WORDS.items()} for i, lang in enumerate(("en", "zh"))}
#: flag -> the style of its words
FLAG_STYLE = {"mistake": "bold yellow", "blunder": "bold white on red"}


def act_words(act: str, lang: str) -> str:
    """An act's name: as recorded in English, in Chinese the engine's words of it (every game's)."""
    return zh().acts.get(act, act) if lang == "zh" else act


def option_words(option: Option, lang: str, game: Any = None) -> str:
    """An option as people read it: its cards with suit symbols, the pass, a bid's yes or no
    (in the view's words of *game*, a :class:`replay.game.Game`)."""
    w = view_words(game, lang)
    if option.cards is not None:
        return token_words(option.cards, lang)
    if option.kind and " " in option.kind:  # "bid yes", "grab no"
        act, yes = option.kind.split(" ", 1)
        return w.get(f"{act}_{yes}", option.kind)
    return w["pass"]


def flag_words(flag: str | None, lang: str) -> str:
    return "" if flag is None else WORDS[lang][flag]


def _pct(x: float) -> str:
    return "–" if not math.isfinite(x) else f"{100 * x:.1f}"


def _values(o: Option, w: dict) -> str:
    """Win probability ± SE (points of probability) and the expected points."""
    win, score = o.win, o.score
    se = f"±{_pct(win.se)}" if math.isfinite(win.se) else ""
    points = "–" if not math.isfinite(score.mean) else f"{score.mean:+,.2f}"
    return f"{_pct(win.mean):>5}{se:<6}{points:>9}"


def _cells(text: str, n: int) -> str:
    """*text* padded with spaces to *n* terminal cells (a Chinese character takes two)."""
    return text + " " * max(0, n - Text(text).cell_len)


def shown_options(d: DecisionReview, top: int = TOP) -> list[Option]:
    """The *top* best options (by win probability, then points; a bid or grab by points,
    then win probability, as the review judges it: ``review.rank_key``) and the chosen one."""
    ranked = sorted(d.evaluation.options, key=rank_key(d.kind), reverse=True)  # (stable: ties keep their order)
    shown = ranked[:top]
    chosen = d.evaluation.chosen
    if chosen is not None and chosen not in shown:
        shown.append(chosen)
    return shown


def decision_lines(d: DecisionReview, player: str, lang: str, width: int, top: int = TOP) -> list[Text]:
    """The lines of one decision: who and what, the loss and flag, the options shown."""
    w = WORDS[lang]
    kind = act_words(d.kind, lang)
    head = Text(f"#{d.index} {w['seat']} {d.seat} {clip(player, 12)} · {kind}", style="bold")
    lines = [head]
    loss = Text(f"  {w['loss']} {d.loss:.1f}" + (f" ±{d.loss_se:.1f}" if math.isfinite(d.loss_se) else ""))
    if d.flag:
        loss.append("  ")
        loss.append(flag_words(d.flag, lang), style=FLAG_STYLE[d.flag])
    notes = [w["deals"].format(n=d.samples)] + ([w["exact"]] if d.exact else []) + ([w["relaxed"]] if d.relaxed else [])
    loss.append(" · " + ", ".join(notes), style="dim")
    lines.append(loss)
    shown = shown_options(d, top)
    values = [_values(o, w) for o in shown]
    room = max(6, width - 4 - 1 - max(len(v) for v in values))
    for o, v in zip(shown, values):
        mark = "> " if o.chosen else "  "
        label = option_words(o, lang)
        style = "bold" if o.chosen else ""
        if Text(label).cell_len <= room:
            pad = " " * (room - Text(label).cell_len)
            lines.append(Text(f"  {mark}{label}{pad} {v}", style=style))
        else:  # a long play: the cards on their own line, the values under them
            lines.append(Text(f"  {mark}{label}", style=style))
            lines.append(Text(" " * max(0, width - len(v)) + v, style=style))
    if len(d.evaluation.options) > len(shown):
        lines.append(Text("    " + w["more"].format(n=len(d.evaluation.options) - len(shown)), style="dim"))
    return lines


def review_lines(review: HandReview, lang: str = "en", width: int = 80, title: str = "",
                 samples: int = 64, budget_ms: float | None = 50.0, seed: int = 0, top: int = TOP) -> list[Text]:
    """Every line of the review for the terminal: the settings, each decision, the summary."""
    w = WORDS[lang]
    width = max(width, 40)
    budget = w["no_budget"] if budget_ms is None else w["budget"].format(ms=f"{budget_ms:g}")
    rule = {"m": f"{MISTAKE:g}", "b": f"{BLUNDER:g}", "z": f"{Z:g}"}
    columns = _cells(w["win_se"], 11) + " " * max(0, 9 - Text(w["points_col"]).cell_len) + w["points_col"]
    game = known_game(review.game)
    title = title or f"{review.hand_id} · " + (f"{game.title_zh} " if game else "") + f"{review.game}/{review.variant}"
    lines = [Text(title, style="bold")] + [
        Text(text, style="dim") for text in (
            w["settings"].format(samples=samples), w["settings2"].format(budget=budget, seed=seed), w["unit"],
            w["unit2"], w["rule"].format(**rule), w["rule2"].format(**rule),
            f"    {w['columns']}" + " " * max(1, width - 4 - Text(w["columns"] + columns).cell_len) + columns)]
    players = review.players
    for d in review.decisions:
        lines.append(Text(""))
        lines += decision_lines(d, players[d.seat] if d.seat < len(players) else str(d.seat), lang, width, top)
    if not review.decisions:
        lines += [Text(""), Text(w["none"])]
    lines += [Text(""), Text(w["summary"], style="bold")]
    for s in review.seats():
        lines.append(Text(f"  {w['seat']} {s.seat} {clip(s.player, 24)}", style="bold"))
        rate = "" if s.match_rate is None else f" ({100 * s.match_rate:.1f}%)"
        lines.append(Text(f"    {w['decisions']} {s.decisions} · {w['best']} {s.matches}{rate}"))
        mean = "–" if s.mean_loss is None else f"{s.mean_loss:.1f}"
        lines.append(Text(f"    {w['mean_loss']} {mean}"))
        tail = Text("    ")
        tail.append(f"{w['mistakes']} {s.mistakes}", style=FLAG_STYLE["mistake"] if s.mistakes else "")
        tail.append(" · ")
        tail.append(f"{w['blunders']} {s.blunders}", style=FLAG_STYLE["blunder"] if s.blunders else "")
        lines.append(tail)
    lines.append(Text(w["skipped"].format(n=review.skipped), style="dim"))
    return lines


def marks(review: HandReview, lang: str = "en") -> dict[int, str]:
    """Action index -> the words that mark a flagged move in ``paipu replay --review``."""
    w = WORDS[lang]
    return {d.index: f"{'⚠' if d.flag == 'mistake' else '✖'} {w[d.flag]} ({w['loss']} {d.loss:.1f}, {w['best']} "
                     f"{option_words(_best(d), lang)})"
            for d in review.decisions if d.flag}


def _best(d: DecisionReview) -> Option:
    return next(o for o in d.evaluation.options if o.label() == d.best)
