"""The suite sees paipu as an installed user does.

An import or a resource that works only from the checkout (``replay``, ``analysis``, ``cli`` as
top-level names, ``files("replay")``) must fail here, as it fails for every installed user:
``paipu replay --html`` crashed so while the whole suite passed.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

SAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sample_logs")


@pytest.mark.parametrize("name", ["replay", "analysis", "cli"])
def test_the_checkouts_folders_are_not_importable_as_top_level_names(name):
    assert importlib.util.find_spec(name) is None


def test_the_replayers_assets_load_from_the_installed_package():
    from paipu.replay import html

    assert "function" in html.asset("replayer.js") and html.asset("replayer.css").strip()


def _paipu(*args: str, cwd: str) -> subprocess.CompletedProcess[str]:
    """The installed ``paipu`` command (the console script beside this Python), run in ``cwd``."""
    exe = os.path.join(os.path.dirname(sys.executable), "paipu")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([exe, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_replay_html_works_for_an_installed_user_outside_the_checkout(tmp_path):
    src = os.path.join(SAMPLES, "doudizhu_handmade.paipu")
    r = _paipu("replay", src, "--hand", "ddz-handmade-1", "--html", "hand.html", cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "hand.html").read_text(encoding="utf-8")
    assert "ddz-handmade-1" in page and "<script>" in page
    r = _paipu("replay", src, "--hands", "ddz-handmade-1", "--html", "pages", cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "pages" / "index.html").exists()


def test_the_pages_templates_load_from_the_installed_package():
    from paipu.replay.html import templates

    assert templates("paipu.replay").list_templates() == ["index.html", "replayer.html"]
    assert set(templates("paipu.analysis").list_templates()) >= {"report.html", "parts.html", "report.css"}


def test_report_works_for_an_installed_user_outside_the_checkout(tmp_path):
    src = os.path.join(SAMPLES, "doudizhu_handmade.paipu")
    for args in (("ingest", src, "--out", "ds", "-q"), ("audit", "ds", "--workers", "1"),
                 ("report", "ds", "--out", "report.html")):
        r = _paipu(*args, cwd=str(tmp_path))
        assert r.returncode == 0, r.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!doctype html><html lang='en'>") and "<svg" in page and "张三" in page  # charts, players
