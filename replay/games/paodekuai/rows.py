"""Paodekuai's audit rows: its own ``outcomes`` columns (the pipeline's side of the game;
:mod:`replay.rows`)."""

from __future__ import annotations

from typing import Any

from ...rows import HandRows
from ...table import Table


class Rows(HandRows):
    @staticmethod
    def outcome_columns(table: Table, outcome: dict[str, Any]) -> dict[str, Any]:
        return {"let_go": outcome.get("let_go"), "xiqian": outcome.get("xiqian"),
                "let_goes": sum(1 for e in table.events if e.kind == "let_go"),
                "xiqian_bombs": sum(1 for e in table.events if e.kind == "xiqian")}
