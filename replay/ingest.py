"""``paipu ingest``: hand histories in, a partitioned Parquet dataset out.

Nothing is lost: every hand read lands in ``hands`` (+ its ``actions``) or in ``rejects``
with its file, line, code and reason.  Re-ingesting the same input adds nothing: a hand
whose id is already in the dataset with the same content is skipped; one whose id is
taken by different content is rejected (``duplicate_id``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .io.dataset import ACTIONS, HANDS, REJECTS, Columns, DatasetWriter, IdIndex, add_hand, content_hash, id_key
from .io.sources import Item
from .verdicts import Code


@dataclass
class IngestStats:
    read: int = 0
    written: int = 0
    duplicates: int = 0
    rejected: int = 0
    by_code: dict[str, int] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def reject(self, code: str) -> None:
        self.rejected += 1
        self.by_code[code] = self.by_code.get(code, 0) + 1


class Ingester:
    """Streams items into a dataset in batches: memory is one batch plus the id index."""

    def __init__(self, out: str, batch_size: int = 20_000, on_reject: Callable[[Item], None] | None = None):
        self.writer = DatasetWriter(out)
        self.index = IdIndex.from_dataset(out)
        self.seen_rejects = _existing_rejects(out)
        self.batch_size = batch_size
        self.on_reject = on_reject
        self.stats = IngestStats()
        self._new_batch()

    def _new_batch(self) -> None:
        self.hands: dict[str, tuple[Columns, Columns]] = {}
        self.rejects = Columns(REJECTS)
        self.pending = 0

    def add(self, item: Item) -> None:
        self.stats.read += 1
        record = item.record
        if record is not None:
            digest = content_hash(record)
            key = id_key(record["id"])
            seen = self.index.get(key)
            if seen is None:
                self.index.add(key, digest)
                game = record["game"]
                if game not in self.hands:
                    self.hands[game] = (Columns(HANDS), Columns(ACTIONS))
                hands, actions = self.hands[game]
                add_hand(hands, actions, record, item.source, item.line, item.encoding, digest)
                self.stats.written += 1
            elif seen == digest:
                self.stats.duplicates += 1
            else:
                item = Item(item.source, item.line, item.encoding, code=Code.DUPLICATE_ID,
                            message=f"hand id {record['id']!r} is already in the dataset with different content",
                            raw=None)
                item.raw = _raw(record)
                self._reject(item, record["id"])
        else:
            self._reject(item, None)
        self.pending += 1
        if self.pending >= self.batch_size:
            self.flush()

    def _reject(self, item: Item, hand_id: str | None) -> None:
        key = (item.source, item.line, str(item.code), item.message)
        if key in self.seen_rejects:  # the same input again: nothing new
            self.stats.duplicates += 1
            return
        self.seen_rejects.add(key)
        r = self.rejects.cols
        r["source"].append(item.source)
        r["line"].append(item.line)
        r["code"].append(str(item.code))
        r["message"].append(item.message)
        r["raw"].append(item.raw)
        r["hand_id"].append(hand_id)
        self.stats.reject(str(item.code))
        if self.on_reject:
            self.on_reject(item)

    def flush(self) -> None:
        self.writer.next_batch()
        for game, (hands, actions) in self.hands.items():
            self.writer.write("hands", hands.to_arrow(), game)
            self.writer.write("actions", actions.to_arrow(), game)
        self.writer.write("rejects", self.rejects.to_arrow())
        self._new_batch()

    def close(self) -> IngestStats:
        self.flush()
        return self.stats


def _existing_rejects(root: str) -> set[tuple]:
    path = os.path.join(root, "rejects")
    if not os.path.isdir(path):
        return set()
    import pyarrow.dataset as pads

    table = pads.dataset(path, format="parquet").to_table(columns=["source", "line", "code", "message"])
    return set(zip(*(table.column(c).to_pylist() for c in ("source", "line", "code", "message"))))


def _raw(record: dict) -> str:
    from .io.jsonl import record_to_json

    return record_to_json(record).decode()


def ingest(items: Iterable[Item], out: str, batch_size: int = 20_000,
           on_reject: Callable[[Item], None] | None = None) -> IngestStats:
    """Ingest *items* into the dataset folder *out*; returns the counts."""
    ingester = Ingester(out, batch_size, on_reject)
    for item in items:
        ingester.add(item)
    return ingester.close()


def dataset_exists(path: str) -> bool:
    return os.path.isdir(os.path.join(path, "hands")) or os.path.isdir(os.path.join(path, "rejects"))
