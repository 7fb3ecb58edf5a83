"""Shuangkou's audit rows: a bomb's stars (the pipeline's side of the game; :mod:`replay.rows`)."""

from __future__ import annotations

from ...rows import HandRows
from . import stars_of


class Rows(HandRows):
    counts_stars = True
    bomb_stars = staticmethod(stars_of)
