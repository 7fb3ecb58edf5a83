"""The ``decisions`` table: every play or pass of a hand seen as a decision.

For fraud screens (``paipu fraud``) each turn in the play phase becomes a row: how many
legal options the seat had, whether it could have beaten the play on the table, whose
play it spared when it passed anyway (a partner's or an opponent's, and which player),
how low a lead was in the hand, and how long the seat thought (from the actions' ``t``);
and, for the card-sharing screen, which seats could beat the play on the table
(``beaters``) and every seat's cards left (``seats_left``).

Computing it costs a count of the legal moves per turn, so it is not on the audit's hot
path: ``paipu audit DS --decisions`` or ``paipu fraud`` asks for it, and the rows are
made as the audit walks through the hand (a visitor of its one replay).
"""

from __future__ import annotations

import pyarrow as pa

from .cards import CARD_OF, RANK
from .replayer import Visitor, walk
from .table import Table

DECISIONS = pa.schema([
    ("hand_id", pa.string()), ("variant", pa.string()), ("idx", pa.int32()), ("seat", pa.int8()),
    ("player", pa.string()), ("act", pa.string()), ("lead", pa.bool_()), ("options", pa.int32()),
    ("can_beat", pa.bool_()), ("spared", pa.bool_()), ("target_seat", pa.int8()), ("target_player", pa.string()),
    ("relation", pa.string()), ("lead_low", pa.float64()), ("cards_left", pa.int16()), ("think_ms", pa.float64()),
    ("beaters", pa.int16()), ("seats_left", pa.list_(pa.int16())),
])
#: the columns added for the card-sharing screen (issue #27): the older ones keep their values
SHARING_COLUMNS = ("beaters", "seats_left")


class DecisionRows:
    """Rows of the ``decisions`` table for a batch of hands (a tuple a row, in
    :data:`DECISIONS`' order; columns when the table is made)."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []
        #: hands whose rows an error cut short: "hand H action I: Error: message", in order
        self.cut: list[str] = []

    def visitor(self, record: dict) -> Decisions:
        """The visitor of a walk through *record* that adds its decisions to these rows."""
        return Decisions(record, self.rows, self.cut)

    def add(self, record: dict, previous: dict | None = None) -> None:
        """The decisions of one hand (up to its first violation, if any)."""
        walk(record, self.visitor(record), previous=previous)

    @property
    def cols(self) -> dict[str, list]:
        """The rows as columns, by name."""
        if not self.rows:
            return {name: [] for name in DECISIONS.names}
        return {name: list(values) for name, values in zip(DECISIONS.names, zip(*self.rows))}

    def table(self) -> pa.Table:
        return pa.table({k: pa.array(v, DECISIONS.field(k).type) for k, v in self.cols.items()}, schema=DECISIONS)


def hand_decisions(record: dict, previous: dict | None = None) -> list[dict]:
    """One row per play or pass of the play phase, in order (see :data:`DECISIONS`).

    *previous*: the previous hand's outcome in its match (Guandan), as for the replay.
    """
    rows = DecisionRows()
    rows.add(record, previous)
    return [dict(zip(DECISIONS.names, row)) for row in rows.rows]


class Decisions(Visitor):
    """A walk's visitor that adds a row to *rows* (tuples in :data:`DECISIONS`' order) for
    each play or pass of the play phase by the seat to act, as the table is before it. An
    error met here ends the rows of the hand, and is said in *cut* (a bug: the table before
    an action is one the rules reached, so nothing here may fail on it)."""

    def __init__(self, record: dict, rows: list[tuple], cut: list[str]):
        self.rows = rows
        self.cut = cut
        self.players = record.get("players") or []
        self.hand_id, self.variant = record.get("id"), record.get("variant")
        self.last_t: float | None = 0.0
        self.broken = False
        #: each seat's partners, asked once a hand: sides do not change in the play phase
        self.partners: dict[int, frozenset[int]] = {}

    def before(self, table, i: int, action: dict) -> None:
        if self.broken:
            return
        try:
            self.row(table, i, action)
        except Exception as e:  # noqa: BLE001 - one hand's bug costs only its own rows; said, not hidden
            self.broken = True
            self.cut.append(f"hand {self.hand_id} action {i}: {type(e).__name__}: {e}")

    def row(self, table, i: int, action: dict) -> None:
        act, seat = action.get("act"), action.get("seat")
        t = action.get("t")
        last_t = self.last_t
        if isinstance(t, (int, float)):
            think = t - last_t if last_t is not None else None
            self.last_t = t
        else:
            think = self.last_t = None
        if act not in ("play", "pass") or table.phase != "play" or seat != table.turn:
            return
        players = self.players
        player = players[seat] if seat < len(players) else None
        moves = move_count(table, seat)
        if table.last is None:  # a lead
            self.rows.append((self.hand_id, self.variant, i, seat, player, act, True, moves, False, False, None, None,
                              None, _lead_low(table, seat, action.get("cards")) if act == "play" else None,
                              table.left[seat], think, None, list(table.left)))
            return
        target = table.last_seat
        partners = self.partners.get(seat)
        if partners is None:
            partners = self.partners[seat] = table.partners(seat)
        self.rows.append((self.hand_id, self.variant, i, seat, player, act, False, moves + 1, moves > 0,
                          act == "pass" and moves > 0, target, players[target] if target < len(players) else None,
                          "partner" if target in partners else "opponent", None, table.left[seat], think,
                          _beaters(table, seat, moves > 0), list(table.left)))


def _beaters(table: Table, seat: int, mine: bool) -> int:
    """The seats that could beat the play on the table, as a bit mask (bit s: seat s): every
    seat with cards but the one whose play it is; the seat to act by its own count of moves
    (*mine*), the others by the games' direct test (``can_beat``, which knows no per-play
    restriction of the seat's own turn). What a card sharer knows of its partner's hand."""
    mask = 1 << seat if mine else 0
    last, left = table.last_seat, table.left
    play = table.last
    assert play is not None  # (asked only following a play)
    one = play[0] if len(play) == 1 else None
    for s in range(len(left)):
        if s != seat and s != last and left[s] and (table.beats_exist(s, one) if one is not None else table.can_beat(s)):
            mask |= 1 << s  # (beats_exist: can_beat's test of a play of one reading, called directly)
    return mask


def move_count(table: Table, seat: int) -> int:
    """``len(table.legal_moves(seat))``, counted without making the moves where the game
    makes one per legal packed play (no wild cards): a lead's plays counted in one pass
    over the combination table, a following seat that cannot beat the table answered by
    the games' direct test (``can_beat``)."""
    last = table.last
    if last is not None and not (table.beats_exist(seat, last[0]) if len(last) == 1 else table.can_beat(seat)):
        return 0  # (the games' direct test: no move to make)
    kind = type(table)
    if kind.legal_moves is not Table.legal_moves:
        count = getattr(table, "count_moves", None)  # (the wild-card games: counted, not made)
        return count(seat) if count is not None else len(table.legal_moves(seat))
    if last is None and kind.allows is Table.allows:
        return table.combos.count_plays(table.packed[seat])
    return len(table.legal_plays(seat))


def _lead_low(table, seat: int, tokens) -> float | None:
    """The share of the seat's other cards ranked below the lead's lowest card (0: it led
    from the bottom of its hand). Ranks in plain order 3 … 2, jokers (no level cards)."""
    try:
        ids = [CARD_OF[t] for t in tokens]
    except (KeyError, TypeError):
        return None
    low = min(RANK[c] for c in ids)
    hand = table.hands[seat]
    rest = sum(hand) - len(ids)
    if rest <= 0:
        return None
    below = sum(n for c, n in enumerate(hand) if n and RANK[c] < low)
    return below / rest
