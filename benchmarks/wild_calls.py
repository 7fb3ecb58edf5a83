"""Instructions per call of the beating-play check (``Table.can_beat``) and of legal-move
generation (``Table.legal_moves``) in the wild-card games, counted by callgrind (valgrind):
a figure that the load of a shared machine does not move, where CPU time moves by ±10-20%.

    python benchmarks/wild_calls.py [--hands 20] [--ref OTHER_CHECKOUT]

The hands of Guandan and Shuangkou are simulated once; in one process under callgrind
(``PYTHONHASHSEED=0``) each hand is replayed and, at every play/pass position of the play
phase, the seat to act's hand and the play on the table are kept. Then, per game, after
a warm-up pass over those positions (the readings' caches filled, as a simulator's are
after its first hands): a pass that only puts each position on a table, one that also asks
``can_beat`` (positions with a play on the table) and one that also asks ``legal_moves``;
the figure is the difference from the first pass over the calls. A call of ``os.getppid``
between the passes makes callgrind dump its counts (``--dump-before=getppid``). Measured
for this checkout with its compiled kernel (``new``), without it (``pure``:
``PAIPU_PURE=1``) and, with --ref, another checkout (its kernel built in place where it
has one), on the same hands.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]
from benchmarks._common import CHILD_PRELUDE, callgrind, write_hands  # noqa: E402

GAMES = (("guandan", "standard"), ("shuangkou", "huopin"))

CHILD = CHILD_PRELUDE + r"""
paths = sys.argv[1:]
games = []
for path in paths:
    positions = []
    for r in ok_records(path):
        table = make_table(r)
        table.setup()
        own = make_table(r)  # the table the positions are put on
        own.setup()
        for i, a in enumerate(r["actions"]):
            if getattr(table, "phase", "") == "tribute" and a["act"] in ("play", "pass"):
                table.start_play(i, a["seat"])
            if table.phase == "play" and not table.over and a["act"] in ("play", "pass"):
                seat = table.turn
                positions.append((own, seat, bytes(table.hands[seat]), table.packed[seat], table.last))
            table.step(i, a)
        own.phase = "play"
    games.append(positions)

def put(own, seat, hand, packed, last):
    own.hands[seat] = bytearray(hand)
    own.packed[seat] = packed
    own.last = last
    own.turn = seat

def only(positions, beat):
    for own, seat, hand, packed, last in positions:
        if last is not None or not beat:
            put(own, seat, hand, packed, last)

def beats(positions):
    for own, seat, hand, packed, last in positions:
        if last is not None:
            put(own, seat, hand, packed, last)
            own.can_beat(seat)

def moves(positions):
    for own, seat, hand, packed, last in positions:
        put(own, seat, hand, packed, last)
        own.legal_moves(seat)

for positions in games:  # warm-up
    beats(positions)
    moves(positions)
for positions in games:
    for step in (lambda p: only(p, True), beats, lambda p: only(p, False), moves):
        os.getppid()  # callgrind dumps its counts here (--dump-before=getppid)
        step(positions)
os.getppid()
print("CALLS", *[f"{sum(p[4] is not None for p in positions)} {len(positions)}" for positions in games])
"""


def count(checkout: str, paths: list[str], pure: bool = False) -> list[tuple[float, float]]:
    """(instructions per can_beat, per legal_moves) of each file's positions, imported from *checkout*."""
    stdout, counts = callgrind(checkout, CHILD, paths, {"PAIPU_PURE": "1"} if pure else None)
    calls = [int(x) for x in [x for x in stdout.splitlines() if x.startswith("CALLS")][0].split()[1:]]
    # the last four dumps per game before the exit's: put (can_beat's positions), can_beat, put (all), legal_moves
    counts = counts[-4 * len(paths):]
    out_rows = []
    for k in range(len(paths)):
        put_b, beat, put_all, gen = counts[4 * k:4 * k + 4]
        following, every = calls[2 * k], calls[2 * k + 1]
        out_rows.append(((beat - put_b) / following, (gen - put_all) / every))
    return out_rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=20)
    parser.add_argument("--ref", help="another checkout of paipu to count on the same hands")
    args = parser.parse_args()
    here = os.path.dirname(HERE)
    checkouts = [("new", here, False), ("pure", here, True)] + ([("ref", args.ref, False)] if args.ref else [])
    with tempfile.TemporaryDirectory() as folder:
        paths = write_hands(folder, GAMES, args.hands)
        results = {name: count(checkout, paths, pure) for name, checkout, pure in checkouts}
    names = list(results)
    print(f"{'game':19} {'call':12} " + " ".join(f"{name:>10}" for name in names) + ("   new/ref" if args.ref else ""))
    for k, (game, variant) in enumerate(GAMES):
        for j, call in enumerate(("can_beat", "legal_moves")):
            row = [results[name][k][j] for name in names]
            print(f"{game + '/' + variant:19} {call:12} " + " ".join(f"{x:10,.0f}" for x in row)
                  + (f" {row[0] / row[-1]:9.2f}" if args.ref else ""))
    print("\ninstructions per call (callgrind), the readings' caches warm")


if __name__ == "__main__":
    main()
