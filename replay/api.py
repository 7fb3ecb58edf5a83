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

import difflib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from .cards import CARD_NAMES, card_name, over_deck, parse_cards
from .combos import Combo, any_beats, strongest
from .games import find_game, find_rules
from .rules import Rules
from .verdicts import Code, RecordError, Violation

if TYPE_CHECKING:
    from .replayer import Replay

__all__ = ["RecordError", "read_records", "replay_hand", "previous_hand", "classify", "beats", "legal_moves", "ingest", "audit",
           "play_cards", "Reading", "readings", "find_records", "nearest_ids", "unread_note", "hand_ids", "is_dataset"]


def read_records(*inputs: str, fmt: str = "auto", errors: str = "raise") -> Iterator[dict]:
    """The hand records of files, folders, globs (any format paipu reads) or datasets.

    A hand that cannot be read raises :class:`RecordError` naming its file and line, or is
    skipped with ``errors="skip"``.
    """
    from .io.dataset import read_records as dataset_records
    from .io.readers import iter_items

    for path in inputs:
        if is_dataset(path):
            yield from dataset_records(path)
            continue
        for item in iter_items([path], fmt):
            if item.record is not None:
                yield item.record
            elif errors == "raise":
                raise RecordError(item.code or Code.BAD_RECORD, None, item.message or "", item.action, item.where)


def is_dataset(path: str) -> bool:
    """*path* is a dataset (a folder or object storage URI with a ``hands`` table)."""
    from .audit import is_dataset as found

    return found(path)


def find_records(source: str, ids: list[str] | None, first: bool = False) -> dict[str, dict]:
    """The records of *ids* in *source* (a record file, folder or dataset) by id: every
    readable one when *ids* is None, only the first found with *first*; the first of a
    repeated id. Unreadable hands are passed over."""
    from .io.readers import iter_items

    found: dict[str, dict] = {}
    if is_dataset(source):
        from .io.dataset import read_records as dataset_records

        for record in dataset_records(source, ids):
            found.setdefault(record["id"], record)
            if first:
                break
        return found
    wanted = None if ids is None else set(ids)
    for item in iter_items([source], strict=False):
        taken = item.record
        if taken is not None and (wanted is None or taken["id"] in wanted):
            found.setdefault(taken["id"], taken)
            if first or (wanted is not None and len(found) == len(wanted)):
                break
    return found


def nearest_ids(source: str, hand: str, n: int = 5) -> list[str]:
    """At most *n* hand ids of *source* (a record file, folder or dataset) that look like
    *hand* (difflib's close matches), the closest first."""
    from .io.readers import iter_items

    if is_dataset(source):
        from .io.dataset import hand_ids as ids_of

        ids = ids_of(source)
    else:
        ids = [item.record["id"] for item in iter_items([source], strict=False) if item.record is not None]
    return difflib.get_close_matches(hand, ids, n=n, cutoff=0.5)


def unread_note(source: str, hand: str) -> str:
    """For a hand *hand* not found in *source* (a record file or folder; "" for a dataset,
    whose rejects table lists what was not taken): "; FILE line N has hand ID but could not
    be read: REASON" for the line that gave that id but no hand, else "; FILE line N could
    not be read: REASON" for the first such line, with how many more; "" when every line
    was read."""
    from .io.readers import iter_items

    if is_dataset(source):
        return ""
    bad = [item for item in iter_items([source], strict=False) if item.record is None]
    if not bad:
        return ""
    mine = [item for item in bad if item.hand_id == hand]
    item = (mine or bad)[0]
    where, reason = f"{item.source} line {item.line}", item.message or str(item.code)
    if mine:
        return f"; {where} has hand {hand!r} but could not be read: {reason}"
    more = len(bad) - 1
    return f"; {where} could not be read: {reason}" + (f" (and {more} more line{'s' * (more > 1)})" if more else "")


#: the largest @FILE of hand ids read (a million ids and more)
MAX_ID_LIST = 16 << 20


def hand_ids(values: list[str], what: str = "--hands") -> list[str]:
    """Hand ids from *values*, each comma-separated ids or ``@FILE`` (one id a line; blank
    lines and ``#`` lines skipped), in order, each once; an unreadable or too large file is
    an :class:`~replay.io.sources.InputError` (an OSError) naming it with *what*.

    >>> hand_ids(["a,b", " c ", "a"])
    ['a', 'b', 'c']
    """
    from .io.sources import read_small

    ids: list[str] = []
    for value in values:
        if value.startswith("@"):
            text = read_small(value[1:], MAX_ID_LIST, what).decode("utf-8-sig", "replace")
            ids += [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
        else:
            ids += [x.strip() for x in value.split(",") if x.strip()]
    return list(dict.fromkeys(ids))


def replay_hand(record: Any, detail: bool = False, previous: dict | None = None) -> Replay:
    """Replay one hand record (any value): :func:`~replay.replayer.replay` after the
    structural checks audit makes (misspelt cards in actions left to the replay, as
    there), whose failure is the verdict (``bad_record``, ``unknown_game``, ...) instead
    of a replay of a record the engine does not take (a string seat gave engine_error)."""
    from .record import check_record  # deferred, with the replayer: combo and beats read no record (15 ms)
    from .replayer import Replay, replay

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


def _text(cards: str | list[str]) -> str:
    return cards if isinstance(cards, str) else " ".join(cards)


def play_cards(rules: Rules, cards: str | list[str]) -> list[int]:
    """The card ids of *cards* as one play of *rules*; a ValueError of one line when a card
    is misspelt (:class:`~replay.cards.CardError`), there is none, there are more than a
    play of the game holds, or a card comes more often than the game's deck holds it.

    >>> play_cards(find_rules("ddz"), "3h 3h")
    Traceback (most recent call last):
    ...
    ValueError: 3h 2 times in '3h 3h': the deck of doudizhu/huopin holds one
    """
    text = _text(cards)
    ids = parse_cards(text)
    if not ids:
        raise ValueError(f"no cards in {text!r}")
    if len(ids) > rules.max_play:
        raise ValueError(f"{len(ids)} cards: a play of {rules.game}/{rules.variant} holds at most {rules.max_play}")
    for card, times, held in over_deck(ids, rules.deck):  # a card twice where the game has one deck
        deck = f"the deck of {rules.game}/{rules.variant}"
        raise ValueError(f"{card_name(card)} {times} times in {text!r}: {deck} holds {'one' if held == 1 else held}"
                         if held else f"{card_name(card)} in {text!r}: not in {deck}")
    return ids


def classify(game: str, cards: str | list[str], variant: str | None = None,
             level: str | None = None, strict: bool = False) -> tuple[Combo, ...]:
    """Every reading of *cards* (text like ``"3h 3s"`` or a list of card names) in *game*;
    empty when they form no combination. *strict*: the cards must be a possible play of
    the game (:func:`play_cards`, else a ValueError), as ``paipu combo`` asks."""
    rules = find_rules(game, variant)
    ids = play_cards(rules, cards) if strict else parse_cards(_text(cards))
    return find_game(rules.game).classify(rules, ids, level) if ids else ()


def beats(game: str, a: str | list[str], b: str | list[str], variant: str | None = None,
          level: str | None = None, strict: bool = False) -> bool:
    """True when *a*, played on *b*, is a combination that beats it (``paipu beats``).
    *strict*: each is a possible play (:func:`play_cards`) and the two come from one deck,
    else a ValueError."""
    ra, rb = classify(game, a, variant, level, strict), classify(game, b, variant, level, strict)
    if strict:
        rules = find_rules(game, variant)
        for card, times, held in over_deck(parse_cards(_text(a)) + parse_cards(_text(b)), rules.deck):
            raise ValueError(f"{card_name(card)} {times} times in {_text(a)!r} and {_text(b)!r} together: the deck of "
                             f"{rules.game}/{rules.variant} holds {'one' if held == 1 else held}")
    return bool(ra and rb and any_beats(ra, strongest(rb)))


class Reading(TypedDict):
    """One reading of a play (``paipu combo --json``): its kind and Chinese name, its size,
    the rank that names it ("" for none), whether it is a bomb, its tier and strength, and
    for the games that count bomb stars, its stars."""

    type: str
    name_zh: str
    cards: int
    rank: str
    bomb: bool
    tier: int
    strength: list[int]
    stars: NotRequired[int]


def readings(game: str, cards: str | list[str], variant: str | None = None,
             level: str | None = None) -> list[Reading]:
    """The readings of *cards* as one play of *game* (``paipu combo``), strongest first as
    the game lists them; empty when they form no combination; a ValueError of one line
    when they cannot be a play (:func:`play_cards`).

    >>> [(r["type"], r["rank"], r["bomb"]) for r in readings("ddz", "SJ BJ")]
    [('rocket', 'BJ', True)]
    """
    from .rows import rows_of
    from .words import words_of

    rules = find_rules(game, variant)
    declared = find_game(rules.game)
    combos = classify(game, cards, variant, level, strict=True)
    level_rank = declared.parse_level(level) if declared.parse_level else None
    if not combos:
        return []
    items: list[Reading] = [{"type": c.kind, "name_zh": declared.kinds.get(c.kind, ""), "cards": c.size,
                             "rank": words_of(rules).name_key(c, rules, level_rank) or "",
                             "bomb": c.tier > 0, "tier": c.tier, "strength": [c.tier, c.key]} for c in combos]
    rows = rows_of(rules)
    if rows.counts_stars:
        for item, c in zip(items, combos):
            item["stars"] = rows.bomb_stars(c)
    return items


def legal_moves(record: dict, upto: int) -> list[list[str]]:
    """The plays (card names) the seat to act may make after the record's first *upto*
    actions; passing is legal too when someone else's play is on the table.

    :raises ValueError: when one of those actions breaks a rule (its verdict in the message).
    """
    from .replayer import walk

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
