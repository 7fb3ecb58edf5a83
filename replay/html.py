"""``paipu replay --html``: a recorded hand as one self-contained HTML page that steps
through it in the browser, offline.

The page is built from the same engine steps as the terminal view (:mod:`replay.view`):
Python replays the hand once and records a *frame* after every action — every seat's
cards, the plays of the current trick, the multiplier, who is out, the notes (bombs,
let-go, 喜钱, ...) and a violation where it happens — in English and Chinese. The page
only draws frames (``replay/assets/replayer.js``); it knows no rule.

Nothing from the log reaches the page as markup: the page is a Jinja2 template
(``replay/templates/replayer.html``) that HTML-escapes every value, the frames are JSON
through its ``|tojson`` inside a ``<script type="application/json">`` element (``<``, ``>``,
``&``, ``'`` escaped as ``\\u003c``...), and the script writes every string with ``textContent``.

The page names no game: a game's words (its acts, the role its bidding gives, the fields of
its settlement) are its package's ``words.Shown`` (``replay.words.shown_of``); the frames of
a sample hand are checked in tests/test_replay_html.py.
"""

from __future__ import annotations

import functools
import json
import re
from importlib.resources import files
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

from .fmt import NAME_CHARS, clip

from .cards import CARD_NAMES, CARD_OF, RANK, RANK_SMALL_JOKER, SUIT
from .replayer import Replay, Visitor, walk
from .table import BOMB_EVENTS
from .verdicts import Code, Violation
from .words import ShownWords, key_name, shown_of, words_of
from .view import ZH_JOKER, _action_words, _event_words, code_words, end_multiplier, known_game, message_words, rank_text, room_words, view_words

#: the page's own words (the frames carry the hand's words in both languages)
UI = {
    "en": {"step": "step", "of": "of", "first": "first", "back": "back", "forward": "forward", "last": "last",
           "trick": "trick", "jump": "jump to trick", "view": "view", "all_open": "all hands open",
           "seat_view": "seat {s}'s own view", "deal": "the deal", "bottom": "bottom", "left": "left",
           "out": "out", "hidden": "hidden", "pass": "pass", "result": "settlement", "place": "place",
           "score": "score", "coins": "coins", "multiplier": "multiplier", "level": "level", "wild": "wild",
           "log": "moves", "keys": "← → step, Home / End, PgUp / PgDn by trick", "violation": "violation",
           "team": "team", "seat": "seat", "name": "name",
           "role": "role", "xiqian": "喜钱", "lang": "中文", "at_step": "at step {k}"},
    "zh": {"step": "第", "of": "步 / 共", "first": "开始", "back": "上一步", "forward": "下一步", "last": "结束",
           "trick": "轮", "jump": "跳到第几轮", "view": "视角", "all_open": "明牌（全部手牌）",
           "seat_view": "座位 {s} 的视角", "deal": "发牌", "bottom": "底牌", "left": "剩",
           "out": "出完", "hidden": "不可见", "pass": "不出", "result": "结算", "place": "名次",
           "score": "得分", "coins": "游戏币", "multiplier": "倍数", "level": "级牌", "wild": "百搭",
           "log": "出牌记录", "keys": "← → 单步，Home / End，PgUp / PgDn 按轮", "violation": "违规",
           "team": "队", "seat": "座位", "name": "玩家",
           "role": "角色", "xiqian": "喜钱", "lang": "English", "at_step": "第 {k} 步"},
}


def ui_words(game) -> dict[str, dict[str, str]]:
    """The page's words (:data:`UI`) for a hand of *game*, its roles' names among them
    (after ``team``: each role's own name in English, its Chinese from the declaration)."""
    roles = game.roles if game is not None else {}
    if not roles:
        return UI
    out = {}
    for lang, words in UI.items():
        at = list(words).index("team") + 1
        items = list(words.items())
        out[lang] = dict(items[:at] + [(r, zh if lang == "zh" else r) for r, zh in roles.items()] + items[at:])
    return out


#: events highlighted as bombs: the engine's bomb events (and a game's own: its ``Shown.highlighted``)
HIGHLIGHTED = BOMB_EVENTS


def sorted_names(cards: list[int], table=None) -> list[str]:
    """Card names high to low (in the hand's own order when *table* is given: a level's cards high), suits in order."""
    strength = table.strength if table is not None else RANK.__getitem__
    return [CARD_NAMES[c] for c in sorted(cards, key=lambda c: (-strength(c), SUIT[c]))]


def _hand(table, seat: int) -> list[str]:
    return sorted_names([c for c in range(54) for _ in range(table.hands[seat][c])], table)


def _violation(v: Violation, kinds: Mapping[str, str] | None = None) -> dict:
    """A violation for the page: its message in English (the engine's) and in Chinese."""
    return {"code": str(v.code), "action": v.action, "message": v.message,
            "message_en": message_words(v.message, "en", kinds), "message_zh": message_words(v.message, "zh", kinds), "explain_zh": code_words(str(v.code)), "seat": v.seat}


def hand_data(record: dict, lang: str = "en") -> dict:
    """The hand as frames for the page: frame 0 is the deal, frame k the table after action k-1."""
    frames = _Frames(record, lang)
    walk(record, frames)
    return frames.data


class _Frames(Visitor):
    """:func:`hand_data`'s visitor of the walk: a frame per action, then the verdict."""

    def __init__(self, record: dict, lang: str):
        self.record = record
        self.game = game = known_game(record["game"])
        self.shown_words = shown_of(game)
        #: the events shown as bombs in this game's hands
        self.highlighted = HIGHLIGHTED | self.shown_words.highlighted
        self.players = players = [str(p) for p in record["players"]]
        self.words = {k: view_words(game, k) for k in ("en", "zh")}
        self.data: dict[str, Any] = {
            "id": str(record["id"]), "game": record["game"], "game_zh": game.title_zh if game else "",
            "variant": record["variant"], "time": str(record.get("time") or ""),
            "room": {k: room_words(record.get("room"), w) for k, w in self.words.items()}, "players": players,
            "name_chars": NAME_CHARS, "lang": lang, "ui": ui_words(game),
            "level": None, "wild": [], "teams": None, "bottom": None, "frames": [], "tricks": [], "result": None,
            "violation": None,
        }
        self.table: Any = None  # set when the hand is set up (and its game known)
        self.kinds: Mapping[str, str] = game.kinds if game else {}
        self.shown: set[int] = set()
        self.trick = 0  # tricks led so far, and the multiplier shown: read by frame() as they are now
        self.mult: int | None = None

    def name(self, s: int) -> str:  # in the frames' words: cut (the page shows the whole name on hover)
        return f"{s} {clip(self.players[s])}" if 0 <= s < len(self.players) else str(s)

    def start(self, table) -> None:
        if self.game is None:
            return  # (a game this installation does not know: the deal as the record has it)
        self.table = table
        data, game = self.data, self.game
        data["level"] = words_of(table.rules).level_text(table)
        data["wild"] = sorted(CARD_NAMES[c] for c in table.wild_cards())
        teams = [game.team_of(s) for s in range(table.n)]
        data["teams"] = teams if any(t is not None for t in teams) else None
        if self.record.get("bottom") is not None:
            data["bottom"] = _cards_of(self.record["bottom"])
        self.trick_plays: list[Any] = [None] * table.n
        self.mult = table.multiplier_now() if table.phase == "play" else None
        self.frame(None, None, [], None)

    def frame(self, i: int | None, act: dict | None, notes: list[dict], violation: Violation | None = None,
              cards: list[str] | None = None, bomb: bool = False) -> None:
        table = self.table
        hands = [_hand(table, s) for s in range(table.n)]
        role = self.shown_words.declared_role
        declared = {} if role is None else {role: self.shown_words.declarer(table)}  # the seat the bidding named
        self.data["frames"].append({
            "i": i, "seat": None if act is None else act.get("seat"), "act": act and act.get("text"), "cards": cards,
            "bomb": bomb, "hands": hands, "left": [len(h) for h in hands],
            "table": list(self.trick_plays), "out": list(table.out), "turn": table.turn if table.phase == "play" else None,
            **declared, "shown": sorted(self.shown), "trick": self.trick,
            "mult": self.mult, "notes": notes,
            "violation": None if violation is None else _violation(violation, self.kinds)})

    def text(self, action: dict) -> dict[str, str]:
        return {k: f"{w['seat']} {self.name(action['seat'])} {_action_words(action, w, self.game)}" for k, w in self.words.items()}

    def new_trick(self) -> None:
        self.trick += 1
        self.trick_plays = [None] * self.table.n
        self.data["tricks"].append(len(self.data["frames"]))

    def before(self, table, i: int, action: dict) -> None:
        self.before_phase, self.n_events, self.led = table.phase, len(table.events), table.last is None

    def after(self, table, i: int, action: dict, v: Violation | None) -> None:
        if self.table is None:
            return
        act, s = action.get("act"), action["seat"]
        text = self.text(action)
        words, kinds, name, led = self.words, self.kinds, self.name, self.led
        if v is not None:
            if act == "play" and led and table.phase == "play":  # a lead that breaks a rule still opens its trick
                self.new_trick()
            self.frame(i, {"seat": s, "text": text}, [], v, cards=[str(t) for t in action.get("cards") or []])
            return
        notes: list[dict] = []
        cards = None
        bomb = False
        if act == "play":
            c = table.last[0] if table.last else None
            if led:
                self.new_trick()
            cards = sorted_names([CARD_OF[t] for t in action["cards"]], table)
            self.trick_plays[s] = cards
            bomb = bool(c and c.tier)
            if c is not None:
                ids = [CARD_OF[t] for t in action["cards"]]
                jokers_only = c.tier and all(RANK[x] >= RANK_SMALL_JOKER for x in ids)  # a rocket has no rank
                key = None if jokers_only else key_name(table, c)
                key = key and rank_text(key)
                to = f" to {key}" if key else ""
                text = {"en": f"{words['en']['seat']} {name(s)} {words['en']['plays']} {c.kind.replace('_', ' ')}{to}",
                        "zh": f"{words['zh']['seat']} {name(s)} {words['zh']['plays']} {kinds.get(c.kind, c.kind)}"
                              + (f" {ZH_JOKER.get(key, key)}" if key else "")}
        elif act == "pass":
            self.trick_plays[s] = "pass"
        for e in table.events[self.n_events:]:
            note: dict[str, str | None]
            if e.kind in kinds:  # a bomb event: named like the play, without the terminal's emoji
                note = {"en": e.kind.replace("_", " "), "zh": kinds[e.kind]}
            else:
                note = {k: _event_words(e, w, name, game=self.game) for k, w in words.items()}
            if note["en"]:
                notes.append({**note, "kind": "bomb" if e.kind in self.highlighted else e.kind})
            if e.kind == "show" and e.seat is not None:
                self.shown.add(e.seat)
        mult = self.mult
        now = table.multiplier_now() if table.phase == "play" or table.over else None
        if self.before_phase != "play" and table.phase == "play":
            declarer = self.shown_words.declarer(table)
            if declarer is not None:  # "becomes <role>", the note of that kind
                notes.append({k: f"{name(declarer)} {w['becomes']}" for k, w in words.items()}
                             | {"kind": str(self.shown_words.declared_role)})
                mult = now
        if now is not None and mult is not None and now != mult:
            notes.append({k: f"{w['multiplier']} {mult} → {now}" for k, w in words.items()} | {"kind": "mult"})
        self.mult = now if now is not None else mult
        if act == "pass" and table.last is None and not table.over:
            notes.append({k: f"{w['trick']} {name(table.last_seat)}" for k, w in words.items()} | {"kind": "trick"})
        self.frame(i, {"seat": s, "text": text}, notes, cards=cards, bomb=bomb)

    def end(self, replay: Replay) -> None:
        data, v = self.data, replay.violation
        if self.table is None:  # judged before any action
            assert v is not None
            self.data = _judged_at_the_deal(self.record, data, v, self.shown_words)
            return
        if v is not None and v.code == Code.AFTER_END:
            action = self.record["actions"][v.action]
            self.frame(v.action, {"seat": action.get("seat"), "text": self.text(action)}, [], v)
        if v is None or v.code == Code.RESULT_MISMATCH:
            out = replay.outcome
            data["result"] = _result(out, self.table, self.record, self.shown_words, self.words)
            last_step = {k: end_multiplier(out, self.mult, w, self.shown_words.end_cause) for k, w in self.words.items()}
            if last_step["en"]:  # what only the end decides (the spring's ×2): the last frame shows it
                data["frames"][-1]["notes"].append(last_step | {"kind": "mult"})
                data["frames"][-1]["mult"] = out["multiplier"]
        if v is not None:
            data["violation"] = _violation(v, self.kinds)
            if v.action is None:
                data["frames"][-1]["violation"] = data["violation"]


def _cards_of(tokens: Any) -> list[str]:
    """The card names among a record's tokens (anything else left out), high to low."""
    return sorted_names([CARD_OF[t] for t in tokens if isinstance(t, str) and t in CARD_OF]) \
        if isinstance(tokens, list) else []


def _judged_at_the_deal(record: dict, data: dict, v: Violation, shown: type[ShownWords] = ShownWords) -> dict:
    """A hand whose verdict comes before its first action (unknown game, bad params, bad deal):
    one frame, the deal as the record has it, and the verdict."""
    n = len(data["players"])
    deal = given if isinstance(given := record.get("deal"), list) else []
    hands = [_cards_of(deal[s]) if s < len(deal) else [] for s in range(n)]
    if record.get("bottom") is not None:
        data["bottom"] = _cards_of(record["bottom"])
    data["violation"] = _violation(v)
    data["frames"].append({
        "i": None, "seat": None, "act": None, "cards": None, "bomb": False, "hands": hands,
        "left": [len(h) for h in hands], "table": [None] * n, "out": [], "turn": None,
        **({} if shown.declared_role is None else {shown.declared_role: None}), "shown": [], "trick": 0, "mult": None, "notes": [], "violation": data["violation"]})
    return data


def _result(out: dict, table, record: dict, shown: type[ShownWords], words: dict[str, dict[str, str]]) -> dict:
    """The settlement: per-seat rows and the hand's other outcome fields, named in both languages."""
    n = table.n
    order = out.get("order") or []
    seats = []
    for s in range(n):
        seats.append({"seat": s, "place": order.index(s) + 1 if s in order else None,
                      "score": (out.get("scores") or [None] * n)[s], "coins": (out.get("coins") or [None] * n)[s],
                      "xiqian": (out.get("xiqian") or [None] * n)[s]})
    fields = []
    for key, (en, zh) in shown.result_fields.items():
        value = out.get(key)
        if value is None or value is False:
            continue
        if isinstance(value, str):  # a word of the outcome (spring, anti_spring): in each language
            value = {k: words[k].get(value, value.replace("_", " ")) for k in ("en", "zh")}
        elif not isinstance(value, (int, float)):
            value = json.dumps(value)
        fields.append({"en": en, "zh": zh, "value": value})
    return {"seats": seats, "fields": fields}


def asset(name: str) -> str:
    """A file of ``replay/assets``, found through this package (installed as ``paipu.replay``)."""
    return files("paipu.replay").joinpath("assets", name).read_text(encoding="utf-8")


@functools.cache
def templates(package: str) -> jinja2.Environment:
    """The Jinja2 templates of *package* (``paipu.replay``, ``paipu.analysis``): its
    ``templates/`` folder, package data found through the installed package. Every
    ``{{ value }}`` is HTML-escaped (autoescape) unless it is :class:`markupsafe.Markup` (a
    fragment another template rendered, a file of the package); a name the template uses
    and is not given is an error (``StrictUndefined``); ``|tojson`` writes JSON as
    :func:`json.dumps` does without ASCII escapes, ``<``, ``>``, ``&`` and ``'`` escaped so
    that it cannot end a ``<script>`` element."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader(package, "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    env.policies["json.dumps_kwargs"] = {"ensure_ascii": False, "separators": (",", ":")}
    return env


def render(package: str, template: str, **values: Any) -> str:
    """The template *template* of *package* (:func:`templates`) filled with *values*."""
    return templates(package).get_template(template).render(**values)


def macros(package: str, template: str) -> Any:
    """The macros of the template *template* of *package* (:func:`templates`) as attributes,
    each returning the fragment it renders as Markup (for a page to place unescaped)."""
    return templates(package).get_template(template).module


def page(data: dict) -> str:
    """The self-contained HTML page of a hand's data (no network, no external file)."""
    from markupsafe import Markup

    return render("paipu.replay", "replayer.html", data=data, lang="zh" if data["lang"] == "zh" else "en",
                  title=f"{data['id']} · {data['game_zh']} {data['game']}/{data['variant']}",
                  css=Markup(asset("replayer.css")), js=Markup(asset("replayer.js")))


def index_page(pages: list[dict]) -> str:
    """The index of a folder of pages: per page (in order) its ``file`` name, the hand's
    ``id`` and its violation's ``code`` (None when it has none)."""
    return render("paipu.replay", "index.html", pages=pages)


_PLAIN = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
_UNSAFE = re.compile(r"[^A-Za-z0-9.-]+")


def html_name(hand_id: str) -> str:
    """The file name of a hand's page in a folder of replays: a different name for every
    id (on case-insensitive file systems too), never ``index.html``, and short (at most
    62 bytes) whatever the id.  A short id of lower-case letters, digits, ``.``, ``_``
    and ``-`` is its own name; any other is a readable slug cut short and a hash of the
    id after a ``~`` (which plain names never hold).

    >>> html_name("hand-1"), html_name("a/b c"), html_name("a_2fb"), html_name("index")
    ('hand-1.html', 'a_b_c~ec3aa749a081644c.html', 'a_2fb.html', 'index~590407b549d6e3b4.html')
    """
    hand_id = str(hand_id)
    if _PLAIN.fullmatch(hand_id) and hand_id != "index":
        return hand_id + ".html"
    import hashlib

    slug = _UNSAFE.sub("_", hand_id)[:40].lstrip(".")
    return f"{slug}~{hashlib.blake2b(hand_id.encode('utf-8', 'surrogatepass'), digest_size=8).hexdigest()}.html"


def review_data(review: Any) -> dict:
    """A hand's review (``replay.review.HandReview``) for the page: per reviewed action
    (by its index) the loss, the flag and the options' values (the best :data:`PAGE_OPTIONS`
    and the chosen one), every label in both languages; the per-seat summary; the words."""
    from .review_view import WORDS as REVIEW_WORDS
    from .review_view import option_words, shown_options

    def words(o: Any) -> dict[str, str]:
        return {k: option_words(o, k) for k in ("en", "zh")}

    def finite(x: float) -> float | None:
        return x if x == x and abs(x) != float("inf") else None

    steps = {}
    for d in review.decisions:
        shown = shown_options(d, PAGE_OPTIONS)
        best = next(o for o in d.evaluation.options if o.label() == d.best)
        steps[str(d.index)] = {
            "kind": d.kind, "loss": finite(d.loss), "loss_se": finite(d.loss_se), "flag": d.flag, "samples": d.samples,
            "exact": d.exact, "best": words(best), "options": len(d.evaluation.options),
            "shown": [{"label": words(o), "chosen": o.chosen, "win": finite(o.win.mean), "win_se": finite(o.win.se),
                       "points": finite(o.score.mean)} for o in shown]}
    keys = ("loss", "win", "points", "mistake", "blunder", "mistakes", "blunders", "decisions", "best", "mean_loss",
            "summary", "seat", "more", "deals")
    return {"steps": steps, "seats": [s.to_json() for s in review.seats()], "skipped": review.skipped,
            "ui": {k: {key: REVIEW_WORDS[k][key] for key in keys} for k in ("en", "zh")}}


#: options drawn as bars per decision on the page (the best ones, and the chosen one)
PAGE_OPTIONS = 8


def write_page(record: dict, path: str, lang: str = "en", review: Any = None) -> Violation | None:
    """Write the page of *record* to *path* (whole or not at all); returns the rule it
    breaks or None. *review* (a ``HandReview``): each reviewed step shows its options as
    bars, the move list its flags."""
    frames = _Frames(record, lang)
    verdict = walk(record, frames).violation
    data = frames.data
    if review is not None:
        data["review"] = review_data(review)
    text = page(data)
    from .io.output import write_bytes

    write_bytes(path, text.encode("utf-8"), gz=False)  # never onto a device or a FIFO (NotRegularFile)
    return verdict


def write_index(path: str, pages: list[tuple[str, Violation | None]]) -> None:
    """The ``index.html`` of a folder of replays at *path*: each (hand id, the rule it
    breaks) linked to its page (:func:`html_name`), the rule's code beside it."""
    from .io.output import write_bytes

    items = [{"file": html_name(hand_id), "id": hand_id, "code": v.code if v else None} for hand_id, v in pages]
    write_bytes(path, index_page(items).encode(), gz=False)
