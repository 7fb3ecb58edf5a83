"""Text from the log is text on every page paipu writes: the replayer page (``replay --html``,
with ``--review``, ``review --hand --html``), the folder's ``index.html`` and the report. The
pages are Jinja2 templates with autoescape (``replay/templates``, ``analysis/templates``); here
players named ``<script>alert(1)</script>`` and ids holding ``"&'`` go through each command and
each page is parsed: no markup of theirs, every one of them there as text (or as the JSON the
replayer reads)."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser

import polars as pl
import pytest
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.html import html_name
from paipu.replay.io.jsonl import record_to_json
from paipu.replay.sim import simulate

#: the last is longer than a name's cell shows (NAME_CHARS): the report's title attribute holds it whole
NAMES = ["<script>alert(1)</script>", "a\"&'b", "</script><i>c" + "長" * 30]
IDS = ["x\"&'<b>1", "y\"&'<b>2", "z'><i>3"]


def invoke(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


class Page(HTMLParser):
    """A page as its browser reads it: the tags (with their attributes), the text and the
    content of each ``<script>`` (raw, as the parser hands it over)."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._script: dict[str, str | None] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script = dict(attrs)
            self.scripts.append((self._script, ""))

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            self.scripts[-1] = (self._script, self.scripts[-1][1] + data)
        else:
            self.text.append(data)

    def shown(self) -> str:
        """The text and the attribute values, entities decoded: what the page says."""
        return "\n".join(self.text + [v for _, attrs in self.tags for v in attrs.values() if v])


def check(path, expected: list[str], scripts: int = 0) -> Page:
    """The page at *path*: none of the log's text is markup (no tag but the page's own,
    exactly *scripts* ``<script>`` elements, none of the raw strings in the file) and every
    string of *expected* is there, as text or in an attribute."""
    raw = path.read_text(encoding="utf-8")
    for s in NAMES + IDS:
        assert s not in raw, (path, s)
    page = Page(raw)
    assert {tag for tag, _ in page.tags}.isdisjoint({"b", "i"}), path
    assert len(page.scripts) == scripts, path
    shown = page.shown()
    for s in expected:
        assert s in shown, (path, s)
    return page


def hand_json(page: Page) -> dict:
    """The replayer's JSON (its ``<script type='application/json'>``), which cannot end its
    element nor open markup: no ``<``, ``>``, ``&`` or ``'`` in it."""
    (attrs, data), = [(a, d) for a, d in page.scripts if a.get("type") == "application/json"]
    assert attrs.get("id") == "hand-data"
    assert not set("<>&'") & set(data)
    return json.loads(data)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """Three Dou Dizhu hands with those names and ids, as a file and as an audited dataset
    with a suspects table naming the first player and the hands."""
    tmp = tmp_path_factory.mktemp("hostile")
    records = list(simulate("doudizhu", None, 3, 5))
    for r, hand_id in zip(records, IDS):
        r["id"], r["players"] = hand_id, list(NAMES)
    src = tmp / "h.jsonl"
    src.write_bytes(b"".join(record_to_json(r) + b"\n" for r in records))
    ds = tmp / "ds"
    assert invoke("ingest", str(src), "--out", str(ds), "-q").exit_code == 0
    invoke("audit", str(ds), "--workers", "1")
    folder = ds / "suspects" / "game=doudizhu"
    folder.mkdir(parents=True)
    pl.DataFrame({"kind": ["dump"], "player": [NAMES[0]], "partner": [NAMES[1]], "score": [3.25],
                  "hands": [IDS[:2]], "telling_hand": [IDS[2]]}).write_parquet(folder / "part-0.parquet")
    return tmp, src, ds


def test_the_replayer_page_and_the_folder_index(hostile):
    tmp, src, _ = hostile
    out = tmp / "one.html"
    assert invoke("replay", str(src), "--hand", IDS[0], "--html", str(out)).exit_code == 0
    data = hand_json(check(out, [IDS[0]], scripts=2))
    assert data["id"] == IDS[0] and data["players"] == NAMES
    pages = tmp / "pages"
    assert invoke("replay", str(src), "--hands", ",".join(IDS[:2]), "--html", str(pages)).exit_code == 0
    index = check(pages / "index.html", IDS[:2])
    assert [a["href"] for tag, a in index.tags if tag == "a"] == [html_name(i) for i in IDS[:2]]
    for hand_id in IDS[:2]:
        assert hand_json(check(pages / html_name(hand_id), [hand_id], scripts=2))["players"] == NAMES


def test_the_reviewed_pages(hostile):
    tmp, src, _ = hostile
    out = tmp / "review.html"
    r = invoke("review", str(src), "--hand", IDS[1], "--budget", "0", "--samples", "2", "--html", str(out))
    assert r.exit_code == 0, r.output
    data = hand_json(check(out, [IDS[1]], scripts=2))
    assert data["players"] == NAMES and data["review"]["steps"]
    out = tmp / "replay-review.html"
    assert invoke("replay", str(src), "--hand", IDS[2], "--review", "--html", str(out)).exit_code == 0
    assert hand_json(check(out, [IDS[2]], scripts=2))["review"]["steps"]


def test_the_report(hostile):
    tmp, _, ds = hostile
    pages = tmp / "report-pages"
    assert invoke("replay", str(ds), "--hands", IDS[0], "--html", str(pages)).exit_code == 0
    out = tmp / "report" / "r.html"
    out.parent.mkdir()
    r = invoke("report", str(ds), "--out", str(out), "--replays", str(pages))
    assert r.exit_code == 0, r.output
    page = check(out, NAMES + IDS)  # the players table (most active) and the suspects table
    links = {a["href"] for tag, a in page.tags if tag == "a"}
    assert f"../report-pages/{html_name(IDS[0])}" in links  # the hand whose page is there is linked
    assert not any(h and ("<" in h or "'" in h or '"' in h) for h in links)
    # the report in Chinese, and to standard output
    r = invoke("report", str(ds), "--out", "-", "--lang", "zh")
    assert r.exit_code == 0
    (tmp / "zh.html").write_text(r.stdout, encoding="utf-8")
    check(tmp / "zh.html", NAMES[:1])
    assert os.path.getsize(tmp / "zh.html") > 1000
