"""The library surface for records and cards (re-exported by ``paipu``; see docs/api.md).

>>> hand = next(read_records("sample_logs/doudizhu_handmade.paipu"))
>>> hand["game"], len(hand["actions"])
('doudizhu', 13)
>>> [c.kind for c in classify("ddz", "3h 3s 3d 4c")]
['triple_single']
>>> beats("ddz", "SJ BJ", "2s 2h 2d 2c"), beats("ddz", "4s 4h", "3s")
(True, False)
>>> legal_moves(hand, 3)[:3]
[['3s'], ['4s'], ['5s']]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .cards import CARD_NAMES, parse_cards
from .combos import Combo, any_beats, strongest
from .games import find_game, find_rules
from .record import check_record
from .replayer import Replay, replay, walk
from .verdicts import Code, RecordError, Violation

__all__ = ["RecordError", "read_records", "replay_hand", "previous_hand", "classify", "beats", "legal_moves", "ingest",
           "audit"]


def read_records(*inputs: str, fmt: str = "auto", errors: str = "raise") -> Iterator[dict]:
    """The hand records of files, folders, globs (any format paipu reads) or datasets.

    A hand that cannot be read raises :class:`RecordError` naming its file and line, or is
    skipped with ``errors="skip"``.
    """
    from .io.dataset import read_records as dataset_records
    from .io.readers import iter_items

    for path in inputs:
        if _is_dataset(path):
            yield from dataset_records(path)
            continue
        for item in iter_items([path], fmt):
            if item.record is not None:
                yield item.record
            elif errors == "raise":
                raise RecordError(item.code or Code.BAD_RECORD, None, item.message or "", item.action, item.where)


def _is_dataset(path: str) -> bool:
    import os

    return os.path.isdir(os.path.join(path, "hands"))


def replay_hand(record: Any, detail: bool = False, previous: dict | None = None) -> Replay:
    """Replay one hand record (any value): :func:`~replay.replayer.replay` after the
    structural checks audit makes (misspelt cards in actions left to the replay, as
    there), whose failure is the verdict (``bad_record``, ``unknown_game``, ...) instead
    of a replay of a record the engine does not take (a string seat gave engine_error)."""
    try:
        check_record(record, action_cards=False)
    except RecordError as e:
        get = record.get if isinstance(record, dict) else {}.get
        return Replay(get("id"), get("game"), get("variant"), Violation(e.code, e.action, e.detail))
    return replay(record, detail, previous)


def previous_hand(source: str, record: dict) -> dict | None:
    """The replayed outcome of the hand before *record* in its match (Guandan: the levels
    and who pays tribute follow from it), found in *source* (a record file, folder, glob
    or dataset) as ``paipu audit`` chains the hands: those of the record's match in the
    input's order, each replayed after the one before it, up to *record*. None when the
    game plays no matches, the record is no later hand of a match, it is not in *source*,
    or the hand before it is missing there or broke a rule (as for the audit: the record
    is then replayed on its own)."""
    from .replayer import Matches, plays_matches

    match = record.get("match")
    if not isinstance(match, dict) or not plays_matches(record.get("game")) or not isinstance(match.get("hand"), int) \
            or match["hand"] <= 1:
        return None
    matches = Matches()
    for other in _match_records(source, record["game"], match.get("id")):
        if other.get("id") == record.get("id"):
            return matches.previous(other)
        matches.replay(other)
    return None


def _match_records(source: str, game: str, match_id: Any) -> Iterator[dict]:
    """The records of *game* in *source* whose match is *match_id*, in the input's order
    (a dataset: its hands part files in the audit's order, only that match's hands read)."""
    from .audit import is_dataset

    if is_dataset(source):
        from .io import store
        from .io.dataset import iter_hand_files, records_of_part

        for part_game, hands_path, actions_path in iter_hand_files(source):
            if part_game != game:
                continue
            cols = store.read_parquet(hands_path, columns=["id", "match_id"]).to_pydict()
            ids = {i for i, m in zip(cols["id"], cols["match_id"]) if m == match_id}
            if ids:
                yield from records_of_part(game, hands_path, actions_path, ids)
        return
    from .io.readers import iter_items

    for item in iter_items([source], strict=False):
        r = item.record
        if r is not None and r.get("game") == game and isinstance(r.get("match"), dict) and r["match"].get("id") == match_id:
            yield r


def classify(game: str, cards: str | list[str], variant: str | None = None,
             level: str | None = None) -> tuple[Combo, ...]:
    """Every reading of *cards* (text like ``"3h 3s"`` or a list of card names) in *game*;
    empty when they form no combination."""
    rules = find_rules(game, variant)
    ids = parse_cards(cards if isinstance(cards, str) else " ".join(cards))
    return find_game(rules.game).classify(rules, ids, level) if ids else ()


def beats(game: str, a: str | list[str], b: str | list[str], variant: str | None = None,
          level: str | None = None) -> bool:
    """True when *a*, played on *b*, is a combination that beats it (``paipu beats``)."""
    ra, rb = classify(game, a, variant, level), classify(game, b, variant, level)
    return bool(ra and rb and any_beats(ra, strongest(rb)))


def legal_moves(record: dict, upto: int) -> list[list[str]]:
    """The plays (card names) the seat to act may make after the record's first *upto*
    actions; passing is legal too when someone else's play is on the table.

    :raises ValueError: when one of those actions breaks a rule (its verdict in the message).
    """
    r = walk(record, upto=upto)
    if r.violation is not None:
        raise ValueError(f"{r.violation.code} at action {r.violation.action}: {r.violation.message}")
    assert r.table is not None  # (no violation: the table was set up)
    return [[CARD_NAMES[c] for c in cards] for cards, _ in r.table.legal_moves(r.table.turn)]


def ingest(inputs: list[str], out: str, fmt: str = "auto", workers: int | None = 1):
    """Ingest files, folders or globs into the dataset *out* (``paipu ingest``); returns the
    counts (``read``, ``written``, ``duplicates``, ``rejected``, ``by_code``)."""
    from .ingest import ingest_files
    from .io.sources import expand_inputs

    return ingest_files(expand_inputs(inputs), out, fmt, workers=workers)


def audit(dataset: str, force: bool = False, workers: int | None = None, decisions: bool = False,
          ray_address: str | None = None) -> int:
    """Audit the dataset (``paipu audit DATASET``): its verdicts, plays, outcomes and seats
    tables (and decisions); returns the number of part files audited."""
    from .audit import audit_dataset

    return audit_dataset(dataset, force=force, workers=workers, decisions=decisions, ray_address=ray_address)
