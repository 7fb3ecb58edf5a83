"""Verdict codes (format.md), violations and events: data, never exceptions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from enum import StrEnum


class Code(StrEnum):
    """The verdict codes of format.md, in the order an action is checked."""

    BAD_RECORD = "bad_record"
    BAD_CARD = "bad_card"
    UNKNOWN_GAME = "unknown_game"
    BAD_DEAL = "bad_deal"
    OUT_OF_TURN = "out_of_turn"
    NOT_IN_HAND = "not_in_hand"
    INVALID_COMBO = "invalid_combo"
    DOES_NOT_BEAT = "does_not_beat"
    CANNOT_PASS = "cannot_pass"
    MUST_PLAY = "must_play"
    FIRST_PLAY = "first_play"
    BAD_BID = "bad_bid"
    BAD_TRIBUTE = "bad_tribute"
    BAD_MATCH = "bad_match"
    AFTER_END = "after_end"
    INCOMPLETE = "incomplete"
    RESULT_MISMATCH = "result_mismatch"
    # paipu's own, outside format.md's table (ingest only)
    DUPLICATE_ID = "duplicate_id"
    ENGINE_ERROR = "engine_error"


@dataclass(frozen=True, slots=True)
class Violation:
    code: Code
    action: int | None
    message: str
    seat: int | None = None

    def to_json(self) -> dict[str, object]:
        return {"code": str(self.code), "action": self.action, "message": self.message}


@dataclass(frozen=True, slots=True)
class Event:
    """Something legal that matters to analysts: bomb, spring, let_go, xiqian, escape, out..."""

    kind: str
    action: int | None
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)


class RecordError(ValueError):
    """A hand record that cannot be taken in: a code, the field path and what was expected."""

    def __init__(self, code: Code, field: str | None, message: str):
        self.code = code
        self.field = field
        self.message = message
        where = f'field "{field}": ' if field else ""
        super().__init__(f"{code}: {where}{message}")
