"""``paipu audit``: every hand of the inputs re-validated, one verdict per hand."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .io.readers import iter_file
from .io.sources import Item, expand_inputs
from .replayer import Replay, replay
from .verdicts import Code, Violation

_ACTION_FIELD = re.compile(r'field "actions\[(\d+)\]')


@dataclass
class Verdict:
    """The verdict on one input hand (a replay, or the reason it could not be read)."""

    id: str | None
    source: str
    line: int
    violation: Violation | None
    replay: Replay | None = None

    @property
    def ok(self) -> bool:
        return self.violation is None

    def to_json(self) -> dict:
        out = {"id": self.id, "ok": self.ok,
               "violations": [self.violation.to_json()] if self.violation else [],
               "source": f"{self.source}:{self.line}"}
        return out


def is_dataset(path: str) -> bool:
    return os.path.isdir(path) and os.path.isdir(os.path.join(path, "hands"))


def verdict_of_item(item: Item) -> Verdict:
    if item.record is None:
        m = _ACTION_FIELD.search(item.message or "")
        action = int(m.group(1)) if m else None
        hand_id = None
        return Verdict(hand_id, item.source, item.line, Violation(item.code or Code.BAD_RECORD, action, item.message or ""))
    r = replay(item.record)
    return Verdict(item.record["id"], item.source, item.line, r.violation, r)


def iter_verdicts(inputs: list[str], fmt: str = "auto") -> Iterator[Verdict]:
    """Verdicts for every hand of the inputs: record files in any format, or datasets."""
    for spec in inputs:
        if is_dataset(spec):
            from .io.dataset import read_records

            for record in read_records(spec):
                r = replay(record)
                yield Verdict(record["id"], spec, 0, r.violation, r)
            continue
        for path in expand_inputs([spec]):
            for item in iter_file(path, fmt, strict=False):
                yield verdict_of_item(item)
