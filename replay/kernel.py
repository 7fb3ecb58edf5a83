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
from typing import Any, ClassVar

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


class Dispatch:
    """The seam between a game's hand (:class:`replay.table.Table`, which has this among its
    bases) and the compiled kernel's play loop: what the game overrides, so that the loop
    runs the shared steps itself and calls the game's Python only where it must. These flags
    are read once per hand; :func:`set_dispatch` sets them for every game class."""

    #: True when the game overrides check_play / check_pass / step (skipped on the hot path otherwise)
    #: (a hand may set its own, in setup, when its rules leave the check out)
    has_play_rules: bool = False
    has_pass_rules: bool = False
    own_step: ClassVar[bool] = False
    #: what the compiled kernel may run itself (replay/_kernel.pyx): plays (readings from
    #: the lookup, or from classify() for games with wild cards) and passes in the play
    #: phase, by default for games that keep the shared do_play / do_pass and step; anything
    #: else it hands to the Python methods. A game whose override only adds to the shared
    #: method outside the kernel's fast path (a violation, another phase) declares True.
    kernel_plays: ClassVar[bool] = False
    kernel_passes: ClassVar[bool] = False
    #: True when the game overrides on_trick_won (the kernel skips the call otherwise)
    has_trick_hook: ClassVar[bool] = False


def set_dispatch(cls: Any, shared: Any) -> None:
    """The :class:`Dispatch` flags of the game class *cls*, from which methods of the shared
    *shared* (Table) it overrides; ``kernel_plays`` / ``kernel_passes`` where it declares none."""
    cls.has_play_rules = cls.check_play is not shared.check_play
    cls.has_pass_rules = cls.check_pass is not shared.check_pass
    cls.own_step = cls.step is not shared.step
    if "kernel_plays" not in cls.__dict__:
        cls.kernel_plays = not cls.own_step and cls.do_play is shared.do_play
    if "kernel_passes" not in cls.__dict__:
        cls.kernel_passes = not cls.own_step and cls.do_pass is shared.do_pass
    cls.has_trick_hook = cls.on_trick_won is not shared.on_trick_won
