"""Write ``guandan_won_at_a.jsonl``: a whole Guandan match in the competition format that
reaches A and is won there (docs/rules.md §6.5, 过A).

paipu's own simulator plays each hand; of the hands it could deal next, the first (by
seed) in which team 0 takes the first two places is kept, so that team 0 climbs 2 → 5 →
8 → J → A and wins the match in the fifth hand. Each hand is written with
``record_to_deal``: every play as the platform's ``[type, rank, cards]``.

    python tests/data/make_guandan_won_at_a.py
"""

from __future__ import annotations

import copy
import json
import os
import random

from paipu.replay.games.guandan import STANDARD
from paipu.replay.io.guandan_competition import record_to_deal
from paipu.replay.replayer import replay
from paipu.replay.games.guandan.sim import simulate_hand

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guandan_won_at_a.jsonl")


def main() -> None:
    state: dict = {}
    lines, previous = [], None
    for number in range(1, 6):
        for seed in range(10_000):
            trial = copy.deepcopy(state)
            record = simulate_hand(random.Random(f"won-at-a:{number}:{seed}"), STANDARD, f"won-at-a-{number}", state=trial)
            if record["result"]["order"] in ([0, 2], [2, 0]):
                break
        state = trial
        r = replay(record, previous=previous)
        assert r.ok, r.violation
        lines.append(json.dumps(record_to_deal(record, previous), ensure_ascii=False, separators=(",", ":")))
        previous = r.outcome
        print(number, record["level"], r.outcome["levels"], r.outcome["match_over"])
    assert previous["match_over"] and previous["match_winner"] == 0
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
