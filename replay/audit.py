"""``paipu audit``: every hand of the inputs re-validated, one verdict per hand."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from .io.readers import iter_file
from .io.sources import Item, expand_inputs
from .replayer import Replay, plays_matches, replay
from .verdicts import Code, VerdictJson, Violation, verdict_json

@dataclass
class Verdict:
    """The verdict on one input hand (a replay, or the reason it could not be read)."""

    id: str | None
    source: str
    line: int
    violation: Violation | None
    replay: Replay | None = None
    unreadable: bool = False  # the input could not be read at all (audit exits 2)

    @property
    def ok(self) -> bool:
        return self.violation is None

    def to_json(self) -> VerdictJson:
        return verdict_json(self.id, self.violation, f"{self.source}:{self.line}")


@dataclass
class Tally:
    """Hands counted by verdict (``paipu audit``'s summary): all, those that break a rule
    (by code) and the inputs that could not be read."""

    hands: int = 0
    bad: int = 0
    unreadable: int = 0
    by_code: dict[str, int] = field(default_factory=dict)

    def add(self, code: str | None, n: int = 1) -> None:
        """*n* hands of violation *code* (None: legal)."""
        self.hands += n
        if code is not None:
            self.bad += n
            self.by_code[code] = self.by_code.get(code, 0) + n

    def add_verdict(self, v: Verdict) -> None:
        self.unreadable += v.unreadable
        self.add(None if v.violation is None else str(v.violation.code))


def is_dataset(path: str) -> bool:
    """A folder or object storage URI with a ``hands`` table."""
    from .io import store

    if store.is_uri(path):
        try:
            return store.isdir(store.join(path, "hands"))
        except OSError:
            return False
    return os.path.isdir(path) and os.path.isdir(os.path.join(path, "hands"))


def rejects_only(path: str, doing: str = "") -> str | None:
    """The one line to say when *path* is a dataset whose every ingested record was
    rejected (its ``rejects`` table has part files, it has no ``hands``), else None; *doing*
    is what cannot be done (``" to audit"``). A folder of logs with a ``rejects`` folder of
    its own is none."""
    from .io import store
    from .io.commit import part_files

    try:
        if is_dataset(path) or not store.isdir(store.join(path, "rejects")) or not part_files(path, "rejects"):
            return None
    except OSError:
        return None  # (unreadable: the command's own reading says why)
    return (f"{path}: a dataset with no hands{doing}: every hand ingested into it was rejected "
            f"(paipu sql {path} \"select * from rejects\")")


def dataset_hands(root: str) -> int:
    """The hands of the dataset *root* (its hands part files' row counts: no table read)."""
    from .io.dataset import iter_hand_files
    from .io.store import parquet_rows

    return sum(parquet_rows(h) for _, h, _ in iter_hand_files(root))


def audited_hands(root: str) -> int:
    """The hands of the dataset *root* the audit has seen (its outcomes part files' row
    counts: no table read); :func:`dataset_hands` less this is what the figures leave out."""
    from .io.commit import part_files
    from .io.store import parquet_rows

    return sum(parquet_rows(f) for f in part_files(root, "outcomes"))


def verdict_of_item(item: Item, matches=None) -> Verdict:
    if item.record is None:
        return Verdict(item.hand_id, item.source, item.line, Violation(item.code or Code.BAD_RECORD, item.action, item.message or ""),
                       unreadable=item.unreadable)
    r = matches.replay(item.record) if matches is not None else replay(item.record)
    return Verdict(item.record["id"], item.source, item.line, r.violation, r)


def iter_verdicts(inputs: list[str], fmt: str = "auto") -> Iterator[Verdict]:
    """Verdicts for every hand of the inputs: record files in any format, or datasets."""
    from .replayer import Matches

    matches = Matches()
    for spec in inputs:
        if is_dataset(spec):
            from .io.dataset import read_records

            for record in read_records(spec):
                r = matches.replay(record)
                yield Verdict(record["id"], spec, 0, r.violation, r)
            continue
        for path in expand_inputs([spec]):
            for item in iter_file(path, fmt, strict=False):
                yield verdict_of_item(item, matches)


# ---------------------------------------------------------------- auditing a dataset into Parquet


@dataclass
class PartSummary:
    #: hands in the part (audited now, or before when *skipped*)
    hands: int = 0
    ok: int = 0
    #: hands by violation code (None when *skipped*: not counted)
    by_code: dict[str, int] | None = None
    skipped: bool = False
    #: the part's tables, staged and not committed yet (``audit_parts(commit=False)``)
    staged: object = None
    #: the hands whose ``decisions`` rows an internal error cut short, a line each
    #: ("hand H action I: Error: message"; :attr:`~replay.decisions.DecisionRows.cut`)
    cut: list[str] = field(default_factory=list)


def _targets(root: str, game: str, hands_path: str, decisions: bool = False) -> dict[str, str]:
    from .derive import AUDIT_TABLES
    from .io import store

    name = store.basename(hands_path)
    tables = list(AUDIT_TABLES) + (["decisions"] if decisions else [])
    return {t: store.join(root, t, f"game={game}", name) for t in tables}


def _audited(root: str, game: str, hands_path: str, decisions: bool = False) -> bool:
    from .io import store

    return all(store.exists(p) for p in _targets(root, game, hands_path, decisions).values())


def audit_parts(root: str, game: str, parts: list[tuple[str, str | None]], force: bool = False,
                decisions: bool = False, commit: bool = True) -> list[PartSummary]:
    """Audit hands part files in order, one :class:`Matches` across them (a match may span
    parts); write each part's verdicts, plays, outcomes and seats beside it (and its
    ``decisions`` with *decisions*).  Without *commit* each part's tables are only staged
    (:class:`~replay.io.commit.StagedBatch`, in its summary's ``staged``): the caller, who
    holds the dataset's lock, commits them, so a worker never makes anything visible."""
    import gc

    from .derive import AuditRows
    from .io import store
    from .io.commit import StagedBatch
    from .io.dataset import records_of_part
    from .replayer import Matches

    if not force and all(_audited(root, game, h, decisions) for h, _ in parts):
        return [PartSummary(hands=store.parquet_rows(h), skipped=True) for h, _ in parts]
    if decisions:
        from .decisions import DecisionRows
    gc.disable()
    try:
        matches = Matches()
        out = []
        for hands_path, actions_path in parts:
            rows = AuditRows()
            turns = DecisionRows() if decisions else None
            by_code: dict[str, int] = {}
            summary = PartSummary(by_code=by_code)
            for record in records_of_part(game, hands_path, actions_path):
                # one walk per hand: the verdict, and the decisions as it goes
                r = matches.replay(record, True, *(() if turns is None else (turns.visitor(record),)))
                rows.add(record, r)
                summary.hands += 1
                if r.violation is None:
                    summary.ok += 1
                else:
                    code = str(r.violation.code)
                    by_code[code] = by_code.get(code, 0) + 1
            name = store.basename(hands_path)
            staged = StagedBatch(root)  # the four tables of a part appear together
            tables, unfit = rows.tables()
            if turns is not None:
                tables["decisions"] = turns.table()
                summary.cut = turns.cut
            for _, before in unfit:  # a value no column can hold: that hand's verdict says so
                if before is None:
                    summary.ok -= 1
                else:
                    by_code[before] -= 1
                by_code["bad_record"] = by_code.get("bad_record", 0) + 1
            for table, data in tables.items():
                staged.write(os.path.join(table, f"game={game}", name), data)
            if commit:
                staged.commit()
            else:
                summary.staged = staged
            out.append(summary)
        return out
    finally:
        gc.enable()


def audit_jobs(root: str, force: bool = False, decisions: bool = False) -> list[tuple]:
    """The arguments of every :func:`audit_parts` call that audits the dataset: one job per
    hands part file, except that a match (games whose hands chain) may span part files:
    parts that share a match are one job, in the order they were written (audited again
    together when any of them is new). The longest jobs come first."""
    from .io import store
    from .io.dataset import iter_hand_files

    jobs: list[tuple] = []
    chained: dict[str, list[tuple[str, str | None]]] = {}
    for game, hands, actions in iter_hand_files(root):
        if plays_matches(game):
            chained.setdefault(game, []).append((hands, actions))
        else:
            jobs.append((root, game, [(hands, actions)], force, decisions))
    for game, parts in chained.items():
        parts.sort(key=lambda p: (store.getmtime(p[0]), p[0]))
        jobs += [(root, game, group, force, decisions) for group in _sharing_matches(parts)]
    jobs.sort(key=lambda job: -len(job[2]))  # stable: parts stay in dataset order
    return jobs


def _sharing_matches(parts: list[tuple[str, str | None]]) -> list[list[tuple[str, str | None]]]:
    """*parts* grouped so that the hands of a match are in one group (each group in the
    order of *parts*): the connected parts of the graph "these two parts share a match"."""
    from .io import store

    group_of: list[int] = list(range(len(parts)))

    def find(k: int) -> int:
        while group_of[k] != k:
            group_of[k] = group_of[group_of[k]]
            k = group_of[k]
        return k

    first_part: dict[str, int] = {}
    for k, (hands, _) in enumerate(parts):
        for match in set(store.read_parquet(hands, columns=["match_id"]).column("match_id").drop_null().to_pylist()):
            j = first_part.setdefault(match, k)
            group_of[find(k)] = find(j)
    groups: dict[int, list[tuple[str, str | None]]] = {}
    for k, part in enumerate(parts):
        groups.setdefault(find(k), []).append(part)
    return list(groups.values())


def audit_dataset(root: str, force: bool = False, workers: int | None = None, on_part=None,
                  ray_address: str | None = None, decisions: bool = False) -> int:
    """Audit every hands part of the dataset not audited yet (all with *force*), on all
    cores or, with *ray_address*, on a Ray cluster (:mod:`replay.distributed`); returns
    the number of parts audited. *on_part(summary)* follows progress as jobs finish.

    The dataset is locked meanwhile; each part's four tables appear together or not at
    all (a kill or a full disk leaves no part half audited).
    """
    from .distributed import WorkerDied, run_parts
    from .io import store
    from .io.commit import DatasetWriteError, writing

    done = 0

    def count(_: int, summaries: list[PartSummary]) -> None:
        nonlocal done
        for s in summaries:
            if s.staged is not None:  # the worker staged it; only this process commits
                s.staged.commit()  # type: ignore[attr-defined]
            done += not s.skipped
            if on_part:
                on_part(s)

    with writing(root):
        jobs = audit_jobs(root, force, decisions)
        try:
            run_parts(_stage_parts, jobs, ray_address, workers, count)
        except WorkerDied as e:
            _tidy(root)  # every worker is gone: what the dead one staged goes
            parts = [store.basename(h) for k in e.failed or e.unfinished for h, _ in jobs[k][2]]
            which = (f"while auditing {jobs[e.failed[0]][1]} part {', '.join(parts)}" if e.failed
                     else f"(the part is one of {len(parts)} not audited)")
            raise DatasetWriteError(f"{root}: an audit worker process was killed (out of memory?) {which}; "
                                    f"the {done:,} parts audited are kept: run paipu audit again to finish") from None
        except BaseException:
            _tidy(root)  # what the workers staged for a run that stops here goes now
            raise
        _tidy(root)  # a Ray task run again after its worker died left the first try's staging
    return done


def _tidy(root: str) -> None:
    """Remove what workers staged and nobody will commit (call with the lock, no job running)."""
    from .io.commit import recover

    try:
        recover(root)
    except OSError:
        pass  # (a full disk, say): the next writer removes it


def _stage_parts(root: str, game: str, parts: list[tuple[str, str | None]], force: bool = False,
                 decisions: bool = False) -> list[PartSummary]:
    """:func:`audit_parts` of one job, staged only (the parent commits: :func:`audit_dataset`)."""
    return audit_parts(root, game, parts, force, decisions, commit=False)


def verdict_counts(root: str) -> dict[str | None, int]:
    """Hands by violation code (None: legal) over the dataset's verdicts, counted by DuckDB
    as it scans the part files (memory does not grow with the number of hands)."""
    import duckdb

    from .io import store
    from .io.commit import settle, snapshot

    settle(root)
    files = snapshot(root, ["verdicts"])["verdicts"]
    if not files:
        return {}
    con = duckdb.connect()
    try:
        con.register("verdicts", store.dataset(files, store.join(root, "verdicts")))
        rows = con.execute("select case when ok then null else code end, count(*) from verdicts group by all").fetchall()
    finally:
        con.close()
    return dict(rows)


def dataset_verdicts(root: str) -> Iterator[Verdict]:
    """Every verdict of a dataset (after :func:`audit_dataset`), each with the ``source``
    file and ``line`` its hand was ingested from."""
    from .io import store
    from .io.commit import settle, snapshot

    settle(root)
    listed = snapshot(root, ["verdicts", "hands"])  # both from the same batches
    if not listed["verdicts"] or not listed["hands"]:
        return
    verdicts = store.dataset(listed["verdicts"], store.join(root, "verdicts")).to_table()
    hands = store.dataset(listed["hands"], store.join(root, "hands")).to_table(columns=["id", "source", "line"])
    rows = verdicts.to_pylist()
    where = dict(zip(hands.column("id").to_pylist(), zip(hands.column("source").to_pylist(),
                                                          hands.column("line").to_pylist())))
    for row in rows:
        source, line = where.get(row["hand_id"], (root, 0))
        violation = None if row["ok"] else Violation(Code(row["code"]), row["action"], row["message"])
        yield Verdict(row["hand_id"], source, line, violation)
