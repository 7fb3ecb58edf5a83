"""paipu's layers, lowest first: which module is in which, and what a layer may not import.

A module imports modules of its own layer and of the layers below it, never above, and
no import cycle joins any modules (tests/test_layers.py reads every module of the
installed package with :mod:`ast`, function-level imports included, and fails on an
upward import, a cycle, a module in no layer, or a forbidden library; docs/api.md
"Layers" lists the same table).

A pattern is a module name where ``*`` stands for any part of a name (``fnmatch``);
``a.b.*`` is also the package ``a.b`` itself. A module belongs to the layer of its longest
matching pattern: ``paipu.replay.sim.run`` is in the pipeline although
``paipu.replay.sim.*`` is in the engine, and a game package's parts stand in their layers
(``paipu.replay.games.*.report`` in analysis, ``paipu.replay.games.*.rows`` in the
pipeline, the rest of the package in the engine).

>>> layer_of("paipu.replay.table"), layer_of("paipu.replay.sim.run"), layer_of("paipu.cli")
('engine', 'pipeline', 'interface')
>>> layer_of("paipu.replay.games.doudizhu"), layer_of("paipu.replay.games.doudizhu.report")
('engine', 'analysis')
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import NamedTuple


class Layer(NamedTuple):
    name: str
    what: str
    #: module names, ``x.*`` for a package and everything below it
    modules: tuple[str, ...]
    #: libraries the modules of this layer never import
    forbids: tuple[str, ...] = ()


#: the layers, lowest first
LAYERS = (
    Layer("engine", "the rules: cards, combinations, the table, the games and their registry, the replay, "
          "the compiled kernel, the words of plays (the verdicts' messages name them), simulated play and the "
          "evaluator; no I/O, no Arrow",
          ("paipu.replay", "paipu.replay.cards", "paipu.replay.combos", "paipu.replay.wild", "paipu.replay.kernel",
           "paipu.replay.verdicts", "paipu.replay.rules", "paipu.replay.game", "paipu.replay.games.*",
           "paipu.replay.table", "paipu.replay._kernel", "paipu.replay.settle", "paipu.replay.replayer", "paipu.replay.record",
           "paipu.replay.words", "paipu.replay.evaluate", "paipu.replay.review", "paipu.replay.sim.*"),
          ("pyarrow", "duckdb", "polars", "matplotlib", "typer", "ray", "jinja2")),
    Layer("io", "readers and writers: files and their formats, the dataset's Parquet store, the workers",
          ("paipu.replay.io.*", "paipu.replay.distributed"),
          ("duckdb", "polars", "matplotlib", "typer", "jinja2")),
    Layer("pipeline", "ingest (and following growing files), audit (verdicts, audit rows, decisions), "
          "simulation runs to files, the API module",
          ("paipu.replay.ingest", "paipu.replay.follow", "paipu.replay.audit", "paipu.replay.rows",
           "paipu.replay.games.*.rows", "paipu.replay.derive", "paipu.replay.decisions",
           "paipu.replay.api", "paipu.replay.review_pass", "paipu.replay.sim.run", "paipu.replay.sim.population", "paipu.replay.sim.settings"),
          ("matplotlib", "typer", "jinja2")),
    Layer("display", "words and numbers for people: the terminal view of a hand, its HTML page",
          ("paipu.replay.fmt", "paipu.replay.view", "paipu.replay.review_view", "paipu.replay.html"),
          ("typer",)),
    Layer("analysis", "DuckDB queries over the dataset, statistics, fraud screens, reports",
          ("paipu.analysis.*", "paipu.replay.games.*.report"),
          ("typer",)),
    Layer("interface", "the public names (paipu) and the command line",
          ("paipu", "paipu.cli", "paipu.layers")),
)


def layer_of(module: str) -> str | None:
    """The layer *module* (a dotted name under ``paipu``) is in; None when in none."""
    best: tuple[int, str] | None = None
    for layer in LAYERS:
        for pattern in layer.modules:
            matches = fnmatchcase(module, pattern) or (pattern.endswith(".*") and module == pattern[:-2])
            if matches and (best is None or len(pattern) > best[0]):
                best = (len(pattern), layer.name)
    return None if best is None else best[1]


def rank(name: str) -> int:
    """The height of layer *name*: 0 for the lowest."""
    return [layer.name for layer in LAYERS].index(name)
