"""Write ``guandan_tribute.jsonl``: five two-hand Guandan matches for the tribute tests
(docs/rules.md §6.6), each line a paipu record, the two hands of a match one after the other.

paipu's own simulator plays each hand; of the hands it could deal, the first (by seed)
that fits is kept:

- ``double``: hand 1 ends in a 双下; in hand 2 both losers pay, tributes of different value;
- ``equal``: the same, the two tributes of equal value;
- ``resist2``: hand 1 ends in a 双下; in hand 2 the two givers hold one big joker each and resist;
- ``single``: hand 1 ends without a 双下; in hand 2 one loser pays;
- ``resist1``: the same, the one giver holds both big jokers and resists.

    python tests/data/make_guandan_tribute.py
"""

from __future__ import annotations

import copy
import json
import os
import random

from paipu.replay.cards import CARD_OF, RANK
from paipu.replay.games.guandan import STANDARD, parse_level, value
from paipu.replay.replayer import replay
from paipu.replay.games.guandan.sim import simulate_hand

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guandan_tribute.jsonl")


def acts(record: dict, name: str) -> list[dict]:
    return [a for a in record["actions"] if a["act"] == name]


def equal_tributes(record: dict) -> bool | None:
    tributes = acts(record, "tribute")
    if len(tributes) != 2:
        return None
    level = parse_level(record["level"])
    return len({value(RANK[CARD_OF[a["card"]]], level) for a in tributes}) == 1


def split_jokers(record: dict) -> bool:
    """Resisted, each giver holding one big joker."""
    resist = acts(record, "resist")
    return bool(resist) and any(record["deal"][s].count("BJ") == 1 for s in range(4) if s != resist[0]["seat"]
                                and s % 2 == resist[0]["seat"] % 2)


MATCHES = {
    "double": (True, lambda r: equal_tributes(r) is False),
    "equal": (True, lambda r: equal_tributes(r) is True),
    "resist2": (True, split_jokers),
    "single": (False, lambda r: len(acts(r, "tribute")) == 1),
    "resist1": (False, lambda r: bool(acts(r, "resist"))),
}


def first(name: str, number: int, state: dict, fits) -> tuple[dict, dict]:
    for seed in range(10_000):
        trial = copy.deepcopy(state)
        record = simulate_hand(random.Random(f"tribute:{name}:{number}:{seed}"), STANDARD, f"{name}-{number}", state=trial)
        if fits(record):
            return record, trial
    raise AssertionError(f"no hand for {name} {number}")


def main() -> None:
    lines = []
    for name, (double_down, fits) in MATCHES.items():
        hand1, state = first(name, 1, {}, lambda r, dd=double_down: (len(r["result"]["order"]) == 2) == dd)
        hand2, _ = first(name, 2, state, fits)
        r1 = replay(hand1)
        r2 = replay(hand2, previous=r1.outcome)
        assert r1.ok and r2.ok, (r1.violation, r2.violation)
        lines += [json.dumps(h, ensure_ascii=False, separators=(",", ":")) for h in (hand1, hand2)]
        print(name, hand1["result"]["order"], [a for a in hand2["actions"] if a["act"] in ("tribute", "return", "resist")])
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
