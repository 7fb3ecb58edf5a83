"""The Parquet dataset: tables as folders, partitioned by game, written atomically.

Layout (DuckDB, polars and Spark read it as it is)::

    DATASET/hands/game=doudizhu/part-<run>-<n>.parquet
    DATASET/actions/game=doudizhu/part-<run>-<n>.parquet
    DATASET/rejects/part-<run>-<n>.parquet

A batch's part files become visible all at once (staged, committed, moved into place:
see :mod:`replay.io.commit`), so a crash never leaves half a batch or a half-written
file visible.  The ``game`` column of partitioned tables comes from the folder name
(hive partitioning), not from the file.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable, Iterable, Iterator

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)

from ..kernel import compiled
from ..record import FIELDS, content_hash  # noqa: F401  (content_hash: here for its users)
from . import store
from .commit import StagedBatch, part_files, read_table, settle, snapshot
from .sources import stored_path

HANDS = pa.schema([
    ("id", pa.string()), ("variant", pa.string()),
    ("players", pa.list_(pa.string())), ("deal", pa.list_(pa.list_(pa.string()))),
    ("bottom", pa.list_(pa.string())), ("n_actions", pa.int32()),
    ("time", pa.string()), ("room", pa.string()), ("stacks", pa.list_(pa.float64())),
    ("match_id", pa.string()), ("match_hand", pa.int64()),
    ("levels", pa.list_(pa.string())), ("level", pa.string()), ("leader", pa.int8()),
    ("lead_card", pa.string()), ("params", pa.string()), ("result", pa.string()),
    ("extra", pa.string()),
    ("source", pa.string()), ("line", pa.int64()), ("encoding", pa.string()), ("hash", pa.int64()),
])
ACTIONS = pa.schema([
    ("hand_id", pa.string()), ("idx", pa.int32()), ("seat", pa.int8()), ("act", pa.string()),
    ("cards", pa.list_(pa.string())), ("as_cards", pa.list_(pa.string())),
    ("call", pa.bool_()), ("grab", pa.bool_()), ("factor", pa.int32()),
    ("card", pa.string()), ("to", pa.int8()), ("t", pa.float64()), ("extra", pa.string()),
])
REJECTS = pa.schema([
    ("source", pa.string()), ("line", pa.int64()), ("code", pa.string()),
    ("message", pa.string()), ("raw", pa.string()), ("hand_id", pa.string()),
    # a reject's identity with its line: the input file (os.path.realpath) and its content's hash
    ("file", pa.string()), ("digest", pa.int64()),
])
TABLES = {"hands": HANDS, "actions": ACTIONS, "rejects": REJECTS}
_HAND_KEYS = set(FIELDS)
_ACTION_KEYS = {"seat", "act", "cards", "as", "call", "grab", "factor", "card", "to", "t"}
#: how many fields each act has besides the optional "t" and "as"
_ACTION_FIELDS = {"play": 3, "bid": 3, "grab": 3, "show": 3, "tribute": 4, "return": 4}


def _json(value) -> str | None:
    return None if value is None else orjson.dumps(value).decode()


def id_key(hand_id: str) -> int:
    return _hash63(hand_id)


def _hash63(text: str) -> int:
    data = text.encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little") >> 1


def file_identity(source: str) -> str:
    """The input file *source* names, for a reject's identity: its absolute path with
    symbolic links resolved, so that ``bad.jsonl``, ``./bad.jsonl`` and ``/abs/bad.jsonl``
    are one file (a URI as it is)."""
    return stored_path(source if store.is_uri(source) else os.path.realpath(source))


def reject_digest(raw: str | None, message: str) -> int:
    """The hash of a reject's content: its raw input text, else (a file that could not be
    read past a line) its message."""
    return _hash63(raw if raw is not None else message)


class Columns:
    """Column lists for one table, appended row by row, turned into an Arrow table."""

    def __init__(self, schema: pa.Schema):
        self.schema = schema
        self.cols: dict[str, list] = {name: [] for name in schema.names}

    def __len__(self) -> int:
        return len(next(iter(self.cols.values())))

    def to_arrow(self) -> pa.Table:
        return pa.table({k: pa.array(v, type=self.schema.field(k).type) for k, v in self.cols.items()}, schema=self.schema)


_ACTION_STRUCT = pa.struct([
    ("seat", pa.int8()), ("act", pa.string()), ("cards", pa.list_(pa.string())), ("as", pa.list_(pa.string())),
    ("call", pa.bool_()), ("grab", pa.bool_()), ("factor", pa.int32()), ("card", pa.string()),
    ("to", pa.int8()), ("t", pa.float64()),
])


class ActionRows:
    """The actions of a batch, kept as the records' own dicts until the batch is written.

    Arrow converts the list of dicts to columns in C++; only actions with fields outside
    the contract get Python work (their ``extra`` JSON).
    """

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.lists: list[list[dict]] = []

    def add(self, hand_id: str, actions: list[dict]) -> None:
        self.ids.append(hand_id)
        self.lists.append(actions)

    def to_arrow(self, columnar: bool = True) -> pa.Table:
        """The actions table; *columnar*: from the compiled kernel's field lists where it is
        built (else, and with False, Arrow's struct conversion of the dicts: the reference,
        whose errors name the value that does not fit)."""
        flat = [a for acts in self.lists for a in acts]
        counts = np.fromiter((len(acts) for acts in self.lists), dtype=np.int64, count=len(self.lists))
        total = int(counts.sum())
        fields, maybe = _action_fields(flat, columnar)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        extra: list[str | None] = [None] * total
        keys = _ACTION_KEYS
        for k in maybe if maybe is not None else _maybe_extra(flat, fields):
            a = flat[k]
            e = {key: v for key, v in a.items() if key not in keys}
            extra[k] = _json(e) if e else None
        columns = {
            "hand_id": pa.array(self.ids, pa.string()).take(pa.array(np.repeat(np.arange(len(self.ids)), counts))),
            "idx": pa.array((np.arange(total) - starts).astype(np.int32)),
        }
        for name in ("seat", "act", "cards", "as", "call", "grab", "factor", "card", "to", "t"):
            columns["as_cards" if name == "as" else name] = fields[name]
        columns["extra"] = pa.array(extra, pa.string())
        return pa.table(columns, schema=ACTIONS)

    def __len__(self) -> int:
        return len(self.ids)


def _action_fields(flat: list[dict], columnar: bool) -> tuple[dict[str, pa.Array], list[int] | None]:
    """The action fields of *flat* as Arrow arrays, by field name: Arrow's conversion of
    the dicts as structs, or (*columnar* and the kernel built) of the kernel's lists of
    each field's values (the same arrays, and the same failures: tests/test_kernel.py);
    and, from the kernel, :func:`_maybe_extra`'s answer (None: ask it)."""
    lists = ACTION_COLUMNS(flat, _ACTION_FIELDS) if columnar else None
    if lists is None:
        structs = pa.array(flat, type=_ACTION_STRUCT)
        return {f.name: structs.field(f.name) for f in _ACTION_STRUCT}, None
    values, present, maybe = lists
    return {f.name: pa.array(v, type=f.type) if k else pa.nulls(len(flat), f.type)
            for f, v, k in zip(_ACTION_STRUCT, values, present)}, maybe


def _no_columns(flat: list[dict], bases: dict[str, int]) -> None:
    """The pure engine's answer to the kernel's ``action_columns``: none, so that Arrow's
    struct conversion of the dicts (the reference) runs; a Python loop that made the lists
    took 1.3-1.5× its time (1.26-1.40 against 0.91-1.00 µs an action, 32k Dou Dizhu
    actions; the kernel's 0.69 with the arrays made)."""
    return None


#: the compiled kernel's seam: its lists of each action field's values where it is built
#: (the same arrays as Arrow's conversion, and the same failures: tests/test_kernel.py)
ACTION_COLUMNS: Callable[[list[dict], dict[str, int]], tuple[list[list], list[int], list[int]] | None] = (
    _no_columns if compiled is None else compiled.action_columns)


def _maybe_extra(flat: list[dict], fields: dict[str, pa.Array]) -> list[int]:
    """The actions of *flat* that may have fields outside the contract: checked records
    have their act's fields (_ACTION_FIELDS), so more keys than those and a non-null ``t``
    and ``as`` means extras; counted in NumPy, not action by action (a ``t`` or ``as``
    given as null is counted as absent: such an action is only looked at more closely)."""
    if not flat:
        return []
    lengths = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat))
    acts = fields["act"]
    if acts.null_count:
        return list(range(len(flat)))
    encoded = acts.dictionary_encode()
    bases = np.array([_ACTION_FIELDS.get(v, 2) for v in encoded.dictionary.to_pylist()], dtype=np.int64)
    expected = bases[encoded.indices.to_numpy()]
    for name in ("t", "as"):
        column = fields[name]
        if column.null_count < len(column):
            expected += column.is_valid().to_numpy(zero_copy_only=False)
    return np.flatnonzero(lengths > expected).tolist()


def add_hand(hands: Columns, actions: ActionRows, record: dict, source: str, line: int, encoding: str, digest: int) -> None:
    """Append one record's rows to the hands columns and the batch's actions."""
    h = hands.cols
    get = record.get
    match = get("match") or {}
    h["id"].append(record["id"])
    h["variant"].append(record["variant"])
    h["players"].append(record["players"])
    h["deal"].append(record["deal"])
    h["bottom"].append(get("bottom"))
    h["n_actions"].append(len(record["actions"]))
    h["time"].append(get("time"))
    h["room"].append(_json(get("room")))
    h["stacks"].append(get("stacks"))
    h["match_id"].append(match.get("id"))
    h["match_hand"].append(match.get("hand"))
    h["levels"].append(get("levels"))
    h["level"].append(get("level"))
    h["leader"].append(get("leader"))
    h["lead_card"].append(get("lead_card"))
    h["params"].append(_json(get("params")))
    h["result"].append(_json(get("result")))
    extra = None if record.keys() <= _HAND_KEYS else {k: v for k, v in record.items() if k not in _HAND_KEYS}
    if len(match) > 2:
        extra = dict(extra or {}, match=match)
    h["extra"].append(_json(extra) if extra else None)
    h["source"].append(stored_path(source))
    h["line"].append(line)
    h["encoding"].append(encoding)
    h["hash"].append(digest)
    actions.add(record["id"], record["actions"])


#: hands columns whose field path in the record differs from the column name
_FIELD_OF_COLUMN = {"match_id": "match.id", "match_hand": "match.hand", "n_actions": "actions"}


def unfit_field(record: dict) -> str | None:
    """Why one checked record cannot be stored (the field and the column's complaint), or
    None: the last-resort check when a batch's conversion to Arrow fails."""
    hands, actions = Columns(HANDS), ActionRows()
    try:
        add_hand(hands, actions, record, "", 0, "", 0)
    except (TypeError, ValueError, OverflowError, orjson.JSONEncodeError) as e:
        return f"cannot be stored: {e}"
    for name, values in hands.cols.items():
        try:
            pa.array(values, type=HANDS.field(name).type)
        except (pa.ArrowException, OverflowError, ValueError, TypeError) as e:
            field = _FIELD_OF_COLUMN.get(name, name)
            return f'field "{field}": does not fit the dataset column {name} ({HANDS.field(name).type}): {e}'
    for i, action in enumerate(record["actions"]):
        one = ActionRows()
        one.add(record["id"], [action])
        try:
            one.to_arrow(columnar=False)
        except (pa.ArrowException, OverflowError, ValueError, TypeError, orjson.JSONEncodeError) as e:
            return f'field "actions[{i}]": does not fit the dataset\'s actions table: {e}'
    try:
        actions.to_arrow(columnar=False)
    except (pa.ArrowException, OverflowError, ValueError, TypeError, orjson.JSONEncodeError) as e:
        return f'field "actions": does not fit the dataset\'s actions table: {e}'
    return None


_ASK = object()  # IdIndex.get: search the merged part


class IdIndex:
    """Hand id -> content hash of every hand in the dataset, in about 16 bytes per hand.

    Ids are kept as 63-bit hashes in sorted NumPy arrays plus a small dict of recent ones,
    merged when it grows: memory stays proportional to the number of distinct hands at
    a small constant, never to the input size.
    """

    MERGE_AT = 200_000

    def __init__(self, keys: np.ndarray | None = None, values: np.ndarray | None = None):
        if keys is None or values is None:
            keys = values = np.empty(0, dtype=np.int64)
        self._sorted(keys, values)
        #: how many times the recent part was merged (a lookup is valid until the next)
        self.merges = 0

    def _sorted(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Keep *keys* and *values* sorted by key, with no recent ids."""
        order = np.argsort(keys, kind="stable")
        self.keys, self.values = keys[order], values[order]
        self.recent: dict[int, int] = {}

    @classmethod
    def from_dataset(cls, root: str) -> IdIndex:
        table = read_table(root, "hands", ["id", "hash"])
        if table is None:
            return cls()
        keys = np.fromiter((id_key(x) for x in table.column("id").to_pylist()), dtype=np.int64, count=table.num_rows)
        return cls(keys, table.column("hash").to_numpy().astype(np.int64))

    def get(self, key: int, merged: int | None | object = _ASK) -> int | None:
        """The hash stored under *key*, or None; *merged*: what :meth:`lookup` answered
        for it since the last merge (so it is not searched again)."""
        if key in self.recent:
            return self.recent[key]
        if merged is not _ASK:
            return merged  # type: ignore[return-value]
        i = int(np.searchsorted(self.keys, key))
        if i < len(self.keys) and self.keys[i] == key:
            return int(self.values[i])
        return None

    def lookup(self, keys: np.ndarray) -> list[int | None]:
        """For each of *keys*, the hash the merged part holds, or None: one search for a
        batch, valid until the next merge (:attr:`merges` counts them)."""
        if not len(self.keys):
            return [None] * len(keys)
        at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        found = (self.keys[at] == keys).tolist()
        return [v if hit else None for hit, v in zip(found, self.values[at].tolist())]

    def add(self, key: int, value: int) -> None:
        self.recent[key] = value
        if len(self.recent) >= self.MERGE_AT:
            self.merge()

    def merge(self) -> None:
        if not self.recent:
            return
        keys = np.fromiter(self.recent.keys(), dtype=np.int64, count=len(self.recent))
        values = np.fromiter(self.recent.values(), dtype=np.int64, count=len(self.recent))
        self._sorted(np.concatenate([self.keys, keys]), np.concatenate([self.values, values]))
        self.merges += 1


def reject_keys(lines: np.ndarray, digests: np.ndarray) -> np.ndarray:
    """A reject's line and digest as one 64-bit key (within one file), for NumPy lookups."""
    return digests.astype(np.uint64) ^ (lines.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))


class RejectIndex:
    """Where the dataset's rejects are, to tell a reject already stored from a new one.

    A reject is identified by its file (:func:`file_identity`), line and content
    (:func:`reject_digest`).  Memory stays bounded whatever the number of rejects: the
    index holds one line range per rejects part file and input file in it, and
    :meth:`stored` reads only the parts whose range meets a batch's lines.
    """

    def __init__(self, root: str):
        self.files: dict[str, int] = {}  # file identity -> number
        self.paths: list[str] = []
        self._cols = np.empty((3, 64), dtype=np.int64)  # file number, first line, last line
        self._n = 0
        for path in part_files(root, "rejects"):
            table = _reject_identities(path).group_by("file").aggregate([("line", "min"), ("line", "max")])
            for f, lo, hi in zip(*(table.column(c).to_pylist() for c in ("file", "line_min", "line_max"))):
                self.add(path, f, lo, hi)

    def add(self, path: str, file: str, first: int, last: int) -> None:
        """A part file *path* holds rejects of *file* from line *first* to *last*."""
        if self._n == self._cols.shape[1]:
            self._cols = np.concatenate([self._cols, np.empty_like(self._cols)], axis=1)
        self._cols[:, self._n] = (self.files.setdefault(file, len(self.files)), first, last)
        self.paths.append(path)
        self._n += 1

    def stored(self, file: str, first: int, last: int) -> np.ndarray:
        """The keys (:func:`reject_keys`) of the stored rejects of *file* between lines
        *first* and *last*."""
        number = self.files.get(file)
        if number is None:
            return np.empty(0, dtype=np.uint64)
        f, lo, hi = self._cols[:, :self._n]
        found = [np.empty(0, dtype=np.uint64)]
        for k in np.flatnonzero((f == number) & (lo <= last) & (hi >= first)).tolist():
            t = _reject_identities(self.paths[k])
            line = t.column("line")
            pc = pa.compute
            t = t.filter(pc.and_(pc.equal(t.column("file"), file),
                                 pc.and_(pc.greater_equal(line, first), pc.less_equal(line, last))))
            found.append(reject_keys(t.column("line").to_numpy(), t.column("digest").to_numpy()))
        return np.concatenate(found)


def _reject_identities(path: str) -> pa.Table:
    """The file, line and digest of each reject of a part file; for a part written before
    rejects had them, worked out from its source, raw text and message."""
    try:
        return store.read_parquet(path, ["file", "line", "digest"])
    except (pa.ArrowInvalid, KeyError):
        t = store.read_parquet(path, ["source", "line", "raw", "message"])
    files = {s: file_identity(s) for s in set(t.column("source").to_pylist())}
    digests = [reject_digest(r, m or "") for r, m in zip(t.column("raw").to_pylist(), t.column("message").to_pylist())]
    return pa.table({"file": [files[s] for s in t.column("source").to_pylist()], "line": t.column("line"),
                     "digest": pa.array(digests, pa.int64())})


class DatasetWriter:
    """Writes part files into a dataset folder: one file per table, game and batch.

    The hands and actions of one batch share a file name (``part-<run>-<batch>.parquet``)
    in their tables, so a reader can pair them without reading a whole table.  The files
    of a batch are staged and appear together at :meth:`commit` (hold the dataset's lock:
    :class:`replay.io.commit.writing`).
    """

    def __init__(self, root: str, run: str | None = None):
        self.root = root
        self.run = run or uuid.uuid4().hex[:12]
        self.batch = 0
        self.staged: StagedBatch | None = None
        store.makedirs(root)

    def next_batch(self) -> None:
        self.batch += 1
        self.staged = StagedBatch(self.root)

    def write(self, table: str, data: pa.Table, game: str | None = None) -> str | None:
        if data.num_rows == 0:
            return None
        if self.staged is None:
            self.next_batch()
        folder = os.path.join(table, f"game={game}") if game else table
        path = os.path.join(folder, f"part-{self.run}-{self.batch:05d}.parquet")
        self.staged.write(path, data)  # type: ignore[union-attr]
        return store.join(self.root, path)

    def stage(self, relpath: str, data: pa.Table) -> None:
        """Stage a file of the dataset's own (not a table's part file, like ``ingest
        --follow``'s read positions) to appear, or replace the one there, with the batch."""
        if self.staged is None:
            self.next_batch()
        self.staged.write(relpath, data)  # type: ignore[union-attr]

    def commit(self) -> None:
        if self.staged is not None:
            staged, self.staged = self.staged, None
            staged.commit()

    def abort(self) -> None:
        if self.staged is not None:
            self.staged.abort()
            self.staged = None


def iter_hand_files(root: str) -> Iterator[tuple[str, str, str | None]]:
    """(game, hands part file, matching actions part file or None), in a stable order,
    hands and actions from the same whole batches (:func:`~replay.io.commit.snapshot`)."""
    listed = snapshot(root, ["hands", "actions"])
    actions = set(listed["actions"])
    hands_root = store.join(root, "hands")
    for path in listed["hands"]:
        rest = path[len(hands_root) + 1:].replace(os.sep, "/").split("/")
        if len(rest) != 2 or not rest[0].startswith("game="):
            continue
        part, name = rest
        twin = store.join(root, "actions", part, name)
        yield part[len("game="):], path, twin if twin in actions else None


def read_records(root: str, ids: Iterable[str] | None = None) -> Iterator[dict]:
    """Rebuild hand records from a dataset's hands and actions, one part file at a time."""
    wanted = set(ids) if ids is not None else None
    settle(root)
    for game, hands_path, actions_path in iter_hand_files(root):
        yield from records_of_part(game, hands_path, actions_path, wanted)


def hand_ids(root: str) -> list[str]:
    """Every hand id of the dataset *root* (its ``id`` column only), part file by part
    file as :func:`read_records` reads them (:func:`iter_hand_files`)."""
    return [i for _, f, _ in iter_hand_files(root) for i in store.read_parquet(f, columns=["id"])["id"].to_pylist()]


def records_of_part(game: str, hands_path: str, actions_path: str | None, wanted: set[str] | None = None) -> Iterator[dict]:
    """The records of one hands part file and its actions part file, built column by
    column: each column is read into Python once, and a hand's actions are a slice of
    the part's action list when the actions file holds them in the hands' order (as
    :class:`ActionRows` writes them), grouped by hand id otherwise."""
    hands = store.read_parquet(hands_path)
    if wanted is not None:
        hands = hands.filter(pa.compute.is_in(hands.column("id"), pa.array(sorted(wanted), pa.string())))
        if hands.num_rows == 0:
            return
    actions = None
    if actions_path is not None:
        actions = store.read_parquet(actions_path)
        if wanted is not None:
            actions = actions.filter(pa.compute.is_in(actions.column("hand_id"), hands.column("id")))
    yield from _records_of_columns(game, hands, _actions_by_hand(hands, actions))


def _actions_by_hand(hands: pa.Table, actions: pa.Table | None) -> list[list[dict]]:
    """Each hand's actions (in the order of *hands*), sorted by their index."""
    if actions is None or actions.num_rows == 0:
        return [[] for _ in range(hands.num_rows)]
    built = _action_dicts(actions)
    ends = _hand_ends(hands, actions)
    if ends is not None:
        starts = [0] + ends[:-1]
        return [built[a:b] for a, b in zip(starts, ends)]
    by_hand: dict[str, list[tuple[int, dict]]] = {}
    for hand_id, idx, action in zip(actions.column("hand_id").to_pylist(), actions.column("idx").to_pylist(), built):
        lst = by_hand.get(hand_id)
        if lst is None:
            lst = by_hand[hand_id] = []
        lst.append((idx, action))
    out = []
    for hand_id in hands.column("id").to_pylist():
        acts = by_hand.get(hand_id, [])
        if any(acts[k][0] > acts[k + 1][0] for k in range(len(acts) - 1)):
            acts.sort(key=lambda x: x[0])
        out.append([a for _, a in acts])
    return out


def _hand_ends(hands: pa.Table, actions: pa.Table) -> list[int] | None:
    """Where each hand's actions end in *actions* when they are stored hand after hand in
    the order of *hands*, numbered 0, 1, ... (checked in Arrow, not trusted); else None."""
    if "n_actions" not in hands.column_names or hands.column("n_actions").null_count:
        return None
    counts = hands.column("n_actions").to_numpy().astype(np.int64)
    if (counts < 0).any() or int(counts.sum()) != actions.num_rows:
        return None
    ends = np.cumsum(counts)
    owner = np.repeat(np.arange(len(counts)), counts)
    expected_ids = hands.column("id").take(pa.array(owner))
    expected_idx = np.arange(actions.num_rows) - np.repeat(ends - counts, counts)
    if not pa.compute.all(pa.compute.equal(actions.column("hand_id"), expected_ids), skip_nulls=False).as_py():
        return None
    idx = actions.column("idx")
    if idx.null_count or not np.array_equal(idx.to_numpy(), expected_idx):
        return None
    return ends.tolist()


def _action_dicts(actions: pa.Table) -> list[dict]:
    """One action dict per row (keys in the record contract's order, none for a null)."""
    n = actions.num_rows
    built = [{"seat": seat, "act": act} for seat, act in
             zip(actions.column("seat").to_pylist(), actions.column("act").to_pylist())]
    for column, key in _OPTIONAL_COLUMNS:
        col = actions.column(column)
        if col.null_count == n:
            continue
        if col.null_count == 0:
            for action, value in zip(built, col.to_pylist()):
                action[key] = value
            continue
        for action, value in zip(built, col.to_pylist()):
            if value is not None:
                action[key] = value
    col = actions.column("t")
    if col.null_count < n:
        for action, value in zip(built, _times(col)):
            if value is not None:
                action["t"] = value
    col = actions.column("extra")
    if col.null_count < n:
        for action, value in zip(built, col.to_pylist()):
            if value:
                action.update(orjson.loads(value))
    return built


def _times(col: pa.ChunkedArray) -> list:
    """The ``t`` column as the records had it: whole numbers as ints, others as floats."""
    if col.null_count == 0:
        t = col.to_numpy()
        if np.all(np.abs(t) < 2.0 ** 53) and np.array_equal(t, np.trunc(t)):
            return t.astype(np.int64).tolist()
    return [v if v is None or not v.is_integer() else int(v) for v in col.to_pylist()]


def _records_of_columns(game: str, hands: pa.Table, actions: list[list[dict]]) -> Iterator[dict]:
    """The records of *hands* (a hands table) with their *actions* (a list per hand, from
    :func:`_action_dicts`), built one column at a time: the one mapping from stored rows
    back to records (reading a dataset, and the ingest's duplicate-id rejects)."""
    col = {name: hands.column(name).to_pylist() for name in _RECORD_COLUMNS}
    loads = orjson.loads
    for k, (hand_id, variant, players, deal, bottom) in enumerate(
            zip(col["id"], col["variant"], col["players"], col["deal"], col["bottom"])):
        record: dict = {"paipu": 1, "id": hand_id, "game": game, "variant": variant, "players": players, "deal": deal}
        if bottom is not None:
            record["bottom"] = bottom
        record["actions"] = actions[k]
        for key in ("result", "room", "params"):
            value = col[key][k]
            if value is not None:
                record[key] = loads(value)
        for key in ("time", "levels", "level", "leader", "lead_card"):
            value = col[key][k]
            if value is not None:
                record[key] = value
        stacks = col["stacks"][k]
        if stacks is not None:
            record["stacks"] = [int(x) if float(x).is_integer() else x for x in stacks]
        if col["match_id"][k] is not None:
            record["match"] = {"id": col["match_id"][k], "hand": col["match_hand"][k]}
        extra = col["extra"][k]
        if extra:
            record.update(loads(extra))
        yield record


_OPTIONAL_COLUMNS = (("cards", "cards"), ("as_cards", "as"), ("call", "call"), ("grab", "grab"),
                     ("factor", "factor"), ("card", "card"), ("to", "to"))
#: the hands columns a record is rebuilt from (the others are the ingest's bookkeeping)
_RECORD_COLUMNS = ("id", "variant", "players", "deal", "bottom", "time", "room", "stacks", "match_id", "match_hand",
                   "levels", "level", "leader", "lead_card", "params", "result", "extra")
