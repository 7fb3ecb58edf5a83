"""The ``decisions`` table: every play or pass of a hand seen as a decision.

For fraud screens (``paipu fraud``) each turn in the play phase becomes a row: how many
legal options the seat had, whether it could have beaten the play on the table, whose
play it spared when it passed anyway (a partner's or an opponent's, and which player),
how low a lead was in the hand, and how long the seat thought (from the actions' ``t``).

Computing it costs a legal-move generation per turn, so it is not on the audit's hot
path: ``paipu audit DS --decisions`` or ``paipu fraud`` asks for it.
"""

from __future__ import annotations

import pyarrow as pa

from .cards import CARD_OF, RANK
from .replayer import make_table

DECISIONS = pa.schema([
    ("hand_id", pa.string()), ("variant", pa.string()), ("idx", pa.int32()), ("seat", pa.int8()),
    ("player", pa.string()), ("act", pa.string()), ("lead", pa.bool_()), ("options", pa.int32()),
    ("can_beat", pa.bool_()), ("spared", pa.bool_()), ("target_seat", pa.int8()), ("target_player", pa.string()),
    ("relation", pa.string()), ("lead_low", pa.float64()), ("cards_left", pa.int16()), ("think_ms", pa.float64()),
])


class DecisionRows:
    """Columns of the ``decisions`` table for a batch of hands."""

    def __init__(self) -> None:
        self.cols: dict[str, list] = {name: [] for name in DECISIONS.names}

    def add(self, record: dict, previous: dict | None = None) -> None:
        """The decisions of one hand (up to its first violation, if any)."""
        c = self.cols
        for row in hand_decisions(record, previous):
            for k, v in row.items():
                c[k].append(v)

    def table(self) -> pa.Table:
        return pa.table({k: pa.array(v, DECISIONS.field(k).type) for k, v in self.cols.items()}, schema=DECISIONS)


def hand_decisions(record: dict, previous: dict | None = None) -> list[dict]:
    """One row per play or pass of the play phase, in order (see :data:`DECISIONS`).

    *previous*: the previous hand's outcome in its match (Guandan), as for the replay.
    """
    try:
        table = make_table(record, previous=previous)
        if table.setup() is not None:
            return []
    except Exception:  # noqa: BLE001 - unknown game, bad record: no decisions, the audit says why
        return []
    players = record.get("players") or []
    hand_id, variant = record.get("id"), record.get("variant")
    rows: list[dict] = []
    last_t: float | None = 0.0
    try:
        for i, action in enumerate(record["actions"]):
            if table.over:
                break
            act, seat = action.get("act"), action.get("seat")
            t = action.get("t")
            think = t - last_t if isinstance(t, (int, float)) and last_t is not None else None
            last_t = t if isinstance(t, (int, float)) else None
            if act in ("play", "pass") and table.phase == "play" and seat == table.turn:
                lead = table.last is None
                moves = table.legal_moves(seat)
                target = None if lead else table.last_seat
                row = {
                    "hand_id": hand_id, "variant": variant, "idx": i, "seat": seat,
                    "player": players[seat] if seat < len(players) else None, "act": act, "lead": lead,
                    "options": len(moves) + (not lead), "can_beat": (not lead) and bool(moves),
                    "spared": act == "pass" and not lead and bool(moves),
                    "target_seat": target,
                    "target_player": players[target] if target is not None and target < len(players) else None,
                    "relation": None if target is None else
                    ("partner" if target in table.partners(seat) else "opponent"),
                    "lead_low": _lead_low(table, seat, action.get("cards")) if lead and act == "play" else None,
                    "cards_left": table.left[seat], "think_ms": think,
                }
                rows.append(row)
            if table.step(i, action) is not None:
                break
    except Exception:  # noqa: BLE001 - an engine bug is the audit's verdict; keep what was seen
        pass
    return rows


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
