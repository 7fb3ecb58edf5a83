"""The optional compiled kernel of the play loop (``replay/_kernel.pyx``, built by Cython
at install when a C compiler is there; see docs/api.md).

``compiled`` is the kernel module, or None where it was not built or ``PAIPU_PURE=1`` is
set: then the pure-Python engine runs, which is the reference (the kernel gives the same
verdicts, events and outcomes: tests/test_kernel.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType

from .combos import Combo
from .combos import one_deck_beats as one_deck_beats_python

compiled: ModuleType | None = None
if not os.environ.get("PAIPU_PURE"):
    try:
        from . import _kernel as compiled  # type: ignore[attr-defined, no-redef]
    except ImportError:
        compiled = None

#: combos.one_deck_beats (the beating test of one-deck games, asked at every must-play
#: pass), the kernel's where it is built
one_deck_beats: Callable[[int, Combo, frozenset[str]], bool | None] = (
    one_deck_beats_python if compiled is None else compiled.one_deck_beats)
