"""Dou Dizhu validation against OpenSpiel's C++ engine, on OpenSpiel's own games.

    pip install open_spiel   # optional: the benchmark says so and stops without it
    python benchmarks/openspiel.py [--games 2000] [--rounds 5] [--seed 1]

Plays --games random games in OpenSpiel (``dou_dizhu``: random legal actions), converts
each into a paipu record by paipu's own importer of OpenSpiel's games
(``replay/io/openspiel.py``: the deal and bottom with suits, the auction as the landlord's
given call, every play with cards of the ranks its action id names, the variant
``doudizhu/openspiel``), then times, one core, the minimum CPU time over --rounds passes of

- OpenSpiel: a new initial state and ``apply_action`` of the game's recorded actions
  (deal, bids, plays; pybind11 calls into the C++ engine, which checks card counts only),
  and ``apply_action_with_legality_check`` (each action checked against its legal
  actions in C++: the like-for-like validation);
- paipu: ``replay(record)``: the deal check, bidding, every play validated and the outcome,
  with the compiled kernel (replay/kernel.py) where it is built, and again in a fresh
  Python without it (``PAIPU_PURE=1``).

Both are divided by the same number of steps (bids and plays) and the ratio printed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]

def random_game(game, rng: random.Random) -> list[int]:
    state = game.new_initial_state()
    actions = []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            a = outcomes[rng.randrange(len(outcomes))][0]
        else:
            legal = state.legal_actions()
            a = legal[rng.randrange(len(legal))]
        actions.append(a)
        state.apply_action(a)
    return actions


def convert(actions: list[int], hand_id: str) -> dict | None:
    """A paipu record of one OpenSpiel game, by paipu's importer of OpenSpiel's games
    (replay/io/openspiel.py: the variant doudizhu/openspiel, OpenSpiel's own rules); None
    when nobody bid (no hand was played)."""
    from paipu.replay.io.openspiel import State, state_to_record

    record = state_to_record(State(0, "dou_dizhu()", list(actions), list(range(len(actions))), hand_id), "openspiel")
    return None if record["result"].get("redeal") else dict(record, players=["a", "b", "c"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        import pyspiel
    except ImportError as e:
        raise SystemExit("OpenSpiel is not installed (pip install open_spiel): nothing to compare with") from e
    from paipu.replay.kernel import compiled
    from paipu.replay.replayer import replay

    game = pyspiel.load_game("dou_dizhu")
    rng = random.Random(args.seed)
    games = [random_game(game, rng) for _ in range(args.games)]
    pairs = [(a, convert(a, f"openspiel-{k}")) for k, a in enumerate(games)]
    pairs = [(a, r) for a, r in pairs if r is not None]
    ok = sum(replay(r).ok for _, r in pairs)
    steps = sum(sum(1 for x in r["actions"]) for _, r in pairs)
    os_steps = sum(len(a) - 55 for a, _ in pairs)  # OpenSpiel's own bids and plays

    def openspiel() -> float:
        t = time.process_time()
        for actions, _ in pairs:
            state = game.new_initial_state()
            for a in actions:
                state.apply_action(a)
        return time.process_time() - t

    def openspiel_checked() -> float:
        t = time.process_time()
        for actions, _ in pairs:
            state = game.new_initial_state()
            for a in actions:
                state.apply_action_with_legality_check(a)
        return time.process_time() - t

    def paipu() -> float:
        t = time.process_time()
        for _, record in pairs:
            replay(record)
        return time.process_time() - t

    openspiel(), openspiel_checked(), paipu()  # warm-up
    os_s = min(openspiel() for _ in range(args.rounds))
    checked_s = min(openspiel_checked() for _ in range(args.rounds))
    pp_s = min(paipu() for _ in range(args.rounds))
    pure_s = pure(pairs, args.rounds)
    print(f"{len(pairs)} OpenSpiel games with a landlord ({args.games - len(pairs)} all-pass deals left out); "
          f"paipu finds {ok} legal, {len(pairs) - ok} not (by doudizhu/openspiel, OpenSpiel's rules: docs/rules.md §2.10)")
    print(f"steps: paipu {steps} (bids and plays as paipu records them), OpenSpiel {os_steps} (its bids and plays); "
          f"both divided by OpenSpiel's")
    kernel = "with its compiled kernel" if compiled is not None else "no compiled kernel built: pure Python"
    for name, sec in (("OpenSpiel C++, apply_action (no legality check)", os_s),
                      ("OpenSpiel C++, with its legality check", checked_s), (f"paipu replay ({kernel})", pp_s),
                      ("paipu replay (pure Python, PAIPU_PURE=1)", pure_s)):
        print(f"{name:48} {sec / os_steps * 1e6:6.2f} µs/step {sec / len(pairs) * 1e6:8.1f} µs/game")
    for name, sec in (("paipu", pp_s), ("paipu pure", pure_s)):
        print(f"{name} / OpenSpiel: {sec / os_s:.2f}× plain, {sec / checked_s:.2f}× with legality checks (target ≤ 0.9×)")


PURE = r"""
import json, time
from paipu.replay.replayer import replay
records = [json.loads(line) for line in open(PATH, encoding="utf-8")]
def once():
    t = time.process_time()
    for r in records:
        replay(r)
    return time.process_time() - t
once()
print("RESULT", min(once() for _ in range(ROUNDS)))
"""


def pure(pairs: list, rounds: int) -> float:
    """paipu's replay of the same records in a fresh Python without the kernel (PAIPU_PURE=1)."""
    from benchmarks._common import run_child

    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
        for _, record in pairs:
            f.write(json.dumps(record) + "\n")
    try:
        _, _, out = run_child(PURE.replace("PATH", repr(f.name)).replace("ROUNDS", str(rounds)),
                              cwd=os.path.dirname(HERE), env={"PAIPU_PURE": "1"})
    finally:
        os.unlink(f.name)
    return float([x for x in out.splitlines() if x.startswith("RESULT")][0].split()[1])


if __name__ == "__main__":
    main()
