"""The doctests of every module of the installed package (paipu.replay, paipu.analysis, paipu.cli)
and of docs/api.md."""

from __future__ import annotations

import doctest
import importlib
import os
import pkgutil

import pytest

import paipu

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = sorted(m.name for m in pkgutil.walk_packages(paipu.__path__, "paipu."))


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # doctests read sample_logs/ relative to the checkout
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_docs_api_examples(monkeypatch):
    """Every example of docs/api.md runs as written (from the repository's root)."""
    monkeypatch.chdir(ROOT)
    result = doctest.testfile(os.path.join(ROOT, "docs", "api.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10 and result.failed == 0


def test_every_package_folder_is_installed():
    """pyproject's package list names every folder with an __init__.py under replay/ and
    analysis/ (a wheel would leave out one it does not name)."""
    import tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        listed = set(tomllib.load(f)["tool"]["setuptools"]["packages"])
    found = {"paipu"} | {
        "paipu." + os.path.relpath(folder, ROOT).replace(os.sep, ".")
        for top in ("replay", "analysis") for folder, _, files in os.walk(os.path.join(ROOT, top))
        if "__init__.py" in files
    }
    assert listed == found


def test_nothing_generic_is_installed_at_the_top_level():
    import importlib.util
    import subprocess
    import sys

    code = "import importlib.util as u; print([n for n in ('replay', 'analysis', 'cli') if u.find_spec(n)])"
    out = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert importlib.util.find_spec("paipu.cli") is not None
