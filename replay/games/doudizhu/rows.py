"""Dou Dizhu's audit rows: a seat's role (landlord or farmer), who won (the landlord or the
farmers), its own ``outcomes`` columns (the pipeline's side of the game; :mod:`replay.rows`)."""

from __future__ import annotations

from typing import Any

from ...rows import HandRows
from ...table import Table


class Rows(HandRows):
    @staticmethod
    def seat_role(table: Table, seat: int) -> str | None:
        landlord: int | None = getattr(table, "landlord", None)
        return None if landlord is None else "landlord" if seat == landlord else "farmer"

    @staticmethod
    def winning_side(outcome: dict[str, Any]) -> str | None:
        landlord, order = outcome.get("landlord"), outcome.get("order")
        if landlord is None or not order:
            return None
        return "landlord" if order[0] == landlord else "farmers"

    @staticmethod
    def outcome_columns(table: Table, outcome: dict[str, Any]) -> dict[str, Any]:
        return {"landlord": outcome.get("landlord"), "grabs": outcome.get("grabs"), "show_factor": outcome.get("show"),
                "spring": outcome.get("spring"),
                "spring_kind": outcome.get("spring_kind"), "redeal": outcome.get("redeal")}
