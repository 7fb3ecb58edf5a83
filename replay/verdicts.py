"""Verdict codes (format.md), violations and events: data, never exceptions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict
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

    def to_json(self) -> ViolationJson:
        return {"code": str(self.code), "action": self.action, "message": self.message}


class ViolationJson(TypedDict):
    """A violation in a verdict's JSON (format.md)."""

    code: str
    action: int | None
    message: str


class VerdictJson(TypedDict):
    """A hand's verdict as JSON (format.md, :func:`verdict_json`)."""

    id: object
    ok: bool
    violations: list[ViolationJson]
    source: NotRequired[str]


def verdict_json(hand_id: object, violation: Violation | None, source: str | None = None) -> VerdictJson:
    """A hand's verdict as JSON (format.md): ``id``, ``ok``, ``violations`` and, for a hand
    read from a file, its ``source`` (``file:line``); what ``paipu audit --jsonl`` and
    ``paipu replay --json`` print, :meth:`Replay.to_json <replay.replayer.Replay.to_json>`
    and :meth:`Verdict.to_json <replay.audit.Verdict.to_json>` give.

    >>> verdict_json("h1", Violation(Code.AFTER_END, 9, "after the end"), "a.jsonl:3")
    {'id': 'h1', 'ok': False, 'violations': [{'code': 'after_end', 'action': 9, 'message': 'after the end'}], 'source': 'a.jsonl:3'}
    """
    out: VerdictJson = {"id": hand_id, "ok": violation is None,
                        "violations": [violation.to_json()] if violation else []}
    if source is not None:
        out["source"] = source
    return out


@dataclass(frozen=True, slots=True)
class Event:
    """Something legal that matters to analysts: bomb, spring, let_go, xiqian, escape, out..."""

    kind: str
    action: int | None
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)


class RecordError(ValueError):
    """A hand record that cannot be taken in: its verdict code, the field path, what was
    expected, the index of the action the field is in (None: the field is in no action),
    and, for a hand read from a file, where (``file:line``). The one error of a record
    for the checks, the readers and the API (``paipu.RecordError``).

    >>> e = RecordError(Code.BAD_CARD, "actions[3].cards[0]", "expected a card")
    >>> e.action, e.detail
    (3, 'field "actions[3].cards[0]": expected a card')
    >>> str(RecordError(Code.BAD_RECORD, None, "not valid JSON", where="a.jsonl:2"))
    'a.jsonl:2: bad_record: not valid JSON'
    """

    def __init__(self, code: Code, field: str | None, message: str, action: int | None = None,
                 where: str | None = None):
        self.code = code
        self.field = field
        self.message = message
        if action is None and field is not None and field.startswith("actions["):
            action = int(field[len("actions["):field.index("]")])
        self.action = action
        self.where = where
        #: the message with its field: what a reader keeps of the error (the code apart)
        self.detail = f'field "{field}": {message}' if field else message
        super().__init__(f"{where}: {code}: {self.detail}" if where else f"{code}: {self.detail}")
