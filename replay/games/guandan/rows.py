"""Guandan's audit rows: its own ``outcomes`` columns (the pipeline's side of the game;
:mod:`replay.rows`)."""

from __future__ import annotations

from typing import Any

from ...rows import HandRows
from ...table import Table


class Rows(HandRows):
    @staticmethod
    def outcome_columns(table: Table, outcome: dict[str, Any]) -> dict[str, Any]:
        return {"winning_team": outcome.get("winning_team"), "double_down": outcome.get("double_down"),
                "upgrade": outcome.get("upgrade"), "level": table.spec.level,
                "levels_after": outcome.get("levels"), "match_over": outcome.get("match_over")}
