"""``paipu review DS``: the hands of a dataset (or a sample of them) reviewed decision by
decision, into the ``reviews`` table (a row per decision) and the ``reviewed`` table (a
row per hand reviewed: the ledger that makes a rerun go on where the last one stopped).

The hands are split into chunks of :data:`CHUNK`; a chunk is one job (a local process
or a Ray task, :mod:`replay.distributed`) whose rows are staged and committed by this
process alone, its ``reviews`` and ``reviewed`` files together (:mod:`replay.io.commit`),
so a kill at any moment leaves every chunk reviewed whole or not at all, and the next
run reviews only the hands not in ``reviewed``. A hand is reviewed once: a rerun with
other settings (seed, samples, budget) leaves the hands already reviewed as they are.

``--sample N``: the N hands of the dataset with the smallest key
``blake2b(f"{seed}:{hand_id}")``, a deterministic sample for the seed; the sample of N
is inside the sample of any larger N for the same seed, so that ``--sample 100`` then
``--sample 300`` reviews 200 more hands. Hands that break a rule are not reviewed (their
ledger row says why, with no decision rows; so does a hand the evaluator fails on:
``review_error: ...``); decisions with a single legal option are not rows either (the ledger counts them, ``skipped``). See docs/review.md.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa

if TYPE_CHECKING:
    from .review import ReviewRow

#: hands reviewed per job (and per committed batch: the work a kill can lose per worker)
CHUNK = 8
#: the ledger: one row per hand the pass has taken, with the settings it was reviewed at
REVIEWED = pa.schema([
    ("hand_id", pa.string()), ("variant", pa.string()), ("status", pa.string()), ("decisions", pa.int32()),
    ("skipped", pa.int32()), ("samples", pa.int32()), ("budget_ms", pa.float64()), ("seed", pa.int64()),
])
#: the ``reviews`` columns the pass adds to ``DecisionReview.row()``
KEYS = [("variant", pa.string()), ("player", pa.string())]
#: the types of ``DecisionReview.row()``'s columns (any other column: inferred)
ROW_TYPES = {"hand_id": pa.string(), "index": pa.int32(), "seat": pa.int8(), "kind": pa.string(),
             "chosen": pa.string(), "best": pa.string(), "options": pa.int32(), "loss": pa.float64(),
             "loss_se": pa.float64(), "flag": pa.string(), "samples": pa.int32(), "exact": pa.bool_(),
             "relaxed": pa.bool_()}


@dataclass(frozen=True)
class Settings:
    """How each decision is valued (``paipu.evaluate``'s parameters)."""

    samples: int = 64
    budget_ms: float | None = 50.0
    seed: int = 0


@dataclass
class ChunkSummary:
    hands: int = 0
    decisions: int = 0
    #: the chunk's two files, staged, for the parent to commit
    staged: object = None


def sample_key(seed: int, hand_id: str) -> int:
    """The hand's place in the sample of *seed* (smallest first)."""
    data = f"{seed}:{hand_id}".encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


def reviewed_ids(root: str) -> set[str]:
    """The ids of the hands in the ledger."""
    from .io.commit import read_table

    table = read_table(root, "reviewed", ["hand_id"])
    return set() if table is None else set(table.column("hand_id").to_pylist())


def review_jobs(root: str, settings: Settings, sample: int | None = None, chunk: int = CHUNK) -> tuple[list[tuple], int]:
    """The jobs that review what is left of the dataset (or of its sample), and how many
    hands the whole selection has. A job is (root, game, parts, ids, settings): *parts*
    the hands part files it reads (those sharing matches together, as the audit groups
    them: a Guandan hand is replayed after the hands of its match before it), *ids* the
    hands it reviews, at most *chunk*."""
    from .audit import audit_jobs
    from .io import store

    groups = [(game, parts) for _, game, parts, _, _ in audit_jobs(root)]
    ids_of: list[list[str]] = []
    for _, parts in groups:
        ids_of.append([x for h, _ in parts for x in store.read_parquet(h, columns=["id"]).column("id").to_pylist()])
    chosen: set[str] | None = None
    if sample is not None:
        every = sorted((sample_key(settings.seed, x), x) for ids in ids_of for x in ids)
        chosen = {x for _, x in every[:sample]}
    done = reviewed_ids(root)
    jobs, selected = [], 0
    for (game, parts), ids in zip(groups, ids_of):
        picked = [x for x in ids if chosen is None or x in chosen]
        selected += len(picked)
        left = [x for x in picked if x not in done]
        jobs += [(root, game, parts, left[k:k + chunk], settings) for k in range(0, len(left), chunk)]
    return jobs, selected


def review_chunk(root: str, game: str, parts: list[tuple[str, str | None]], ids: list[str], settings: Settings,
                 commit: bool = True) -> ChunkSummary:
    """Review the hands *ids* (of the hands part files *parts*) and stage their rows; with
    *commit*, commit them here (one process: tests, a single worker)."""
    from .io.commit import StagedBatch
    from .io.dataset import records_of_part
    from .replayer import Matches, plays_matches

    wanted = set(ids)
    rows: list[dict[str, Any]] = []
    ledger: list[dict[str, Any]] = []
    matches = Matches()
    chained = plays_matches(game)
    for hands_path, actions_path in parts:
        for record in records_of_part(game, hands_path, actions_path, None if chained else wanted):
            previous = matches.previous(record)
            verdict = matches.replay(record).violation
            if record["id"] not in wanted:
                continue
            status = "ok" if verdict is None else str(verdict.code)
            found: list[ReviewRow] = []
            skipped = 0
            if verdict is None:
                try:
                    found, skipped = _review(record, previous, settings)
                except (ValueError, RuntimeError) as e:  # an evaluator failure: the hand's, not the run's
                    status = f"review_error: {' '.join(str(e).split())[:300]}"
            players = record.get("players") or []
            for row in found:
                seat = row["seat"]
                rows.append(dict(row, variant=record["variant"], player=players[seat] if seat < len(players) else None))
            ledger.append({"hand_id": record["id"], "variant": record["variant"],
                           "status": status, "decisions": len(found),
                           "skipped": skipped, "samples": settings.samples, "budget_ms": settings.budget_ms, "seed": settings.seed})
    name = f"part-{hashlib.blake2b(chr(0).join(sorted(ids)).encode(), digest_size=10).hexdigest()}.parquet"
    staged = StagedBatch(root)  # a chunk's decisions and its ledger rows appear together
    if rows:
        staged.write(os.path.join("reviews", f"game={game}", name), _reviews_table(rows))
    staged.write(os.path.join("reviewed", f"game={game}", name), pa.Table.from_pylist(ledger, schema=REVIEWED))
    summary = ChunkSummary(hands=len(ledger), decisions=len(rows))
    if commit:
        staged.commit()
    else:
        summary.staged = staged
    return summary


def _review(record: dict[str, Any], previous: dict[str, Any] | None,
            settings: Settings) -> tuple[list[ReviewRow], int]:
    """The rows of the hand's decisions with a choice, and how many had none (skipped)."""
    from .review import review_hand

    review = review_hand(record, samples=settings.samples, budget_ms=settings.budget_ms, seed=settings.seed,
                         previous=previous)
    return [d.row() for d in review.decisions], review.skipped


def _reviews_table(rows: list[dict[str, Any]]) -> pa.Table:
    """The rows as Arrow, every column of a known type whatever the chunk (DuckDB reads
    the part files together)."""
    names = list(rows[0])
    fields = []
    for name in names:
        kind = ROW_TYPES.get(name) or dict(KEYS).get(name)
        if kind is None:
            kind = pa.array([r.get(name) for r in rows]).type
        fields.append((name, kind))
    return pa.Table.from_pylist(rows, schema=pa.schema(fields))


def _stage_chunk(root: str, game: str, parts: list[tuple[str, str | None]], ids: list[str],
                 settings: Settings) -> ChunkSummary:
    """:func:`review_chunk` of one job, staged only (the parent commits)."""
    return review_chunk(root, game, parts, ids, settings, commit=False)


def review_dataset(root: str, settings: Settings = Settings(), sample: int | None = None, workers: int | None = None,
                   ray_address: str | None = None, on_chunk: Callable[[ChunkSummary], None] | None = None,
                   on_start: Callable[[int, int], None] | None = None, chunk: int = CHUNK) -> ChunkSummary:
    """Review every hand of the dataset (or of its *sample*) not reviewed yet, on
    *workers* processes or a Ray cluster; the total reviewed now. *on_start(selected,
    left)* hears how many hands the selection has and how many are left to review;
    *on_chunk* follows each committed chunk. The dataset is locked meanwhile."""
    from .audit import _tidy
    from .distributed import WorkerDied, run_parts
    from .io.commit import DatasetWriteError, writing

    total = ChunkSummary()

    def count(_: int, s: ChunkSummary) -> None:
        if s.staged is not None:  # the worker staged it; only this process commits
            s.staged.commit()  # type: ignore[attr-defined]
        total.hands += s.hands
        total.decisions += s.decisions
        if on_chunk:
            on_chunk(s)

    with writing(root):
        jobs, selected = review_jobs(root, settings, sample, chunk)
        if on_start:
            on_start(selected, sum(len(job[3]) for job in jobs))
        try:
            run_parts(_stage_chunk, jobs, ray_address, workers, count)
        except WorkerDied:
            _tidy(root)
            raise DatasetWriteError(f"{root}: a review worker process was killed (out of memory?); the "
                                    f"{total.hands:,} hands reviewed are kept: run paipu review again to finish") from None
        except BaseException:
            _tidy(root)
            raise
        _tidy(root)
    return total
