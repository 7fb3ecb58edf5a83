"""Other tools' logs: games made by RLCard, DouZero and OpenSpiel themselves, imported and audited.

    pip install open_spiel; pip install --no-deps douzero   # RLCard is a test dependency
    python benchmarks/foreign_formats.py [--games 10000] [--seed 1] [--out FOLDER]

For each library, plays --games random games with the library's own engine (random legal
moves), writes them in the library's format (docs/formats.md: RLCard's game dump, DouZero's
deal and ``card_play_action_seq``, OpenSpiel's ``serialize_game_and_state``), then

- imports the file (the format sniffed, as ``paipu ingest`` and ``paipu audit`` do): rejects;
- replays every record (the audit's engine): hands with a violation, by code;
- compares the outcome paipu replays with the winner the library recorded (its payoffs,
  ``winner`` or returns): disagreements;
- times ``ingest`` of the file against ``ingest`` of the same records as paipu JSONL
  (one worker, best of three) and prints the ratio (the goal: within 3×);
- writes the same games as Botzone FightTheLandlord2 logs and imports and audits those.

Each library's games are judged by its own engine's rules, the variant its importer sets
(docs/rules.md §2.10: ``doudizhu/huopin`` for RLCard, ``doudizhu/douzero``,
``doudizhu/openspiel``); the variant's name is printed with the violations.

A library that is not installed is skipped with a line saying so.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != HERE]
from benchmarks._common import best  # noqa: E402

from paipu.replay.api import ingest  # noqa: E402
from paipu.replay.io.jsonl import write_jsonl  # noqa: E402
from paipu.replay.io.readers import iter_file, write_foreign  # noqa: E402
from paipu.replay.replayer import replay  # noqa: E402


def rlcard_games(n: int, seed: int) -> tuple[list[dict], list[str]] | None:
    try:
        from rlcard.games.doudizhu.game import DoudizhuGame
    except ImportError:
        return None
    import numpy as np

    game = DoudizhuGame()
    game.np_random = np.random.RandomState(seed)
    rng = random.Random(seed)
    out, winners = [], []
    for k in range(n):
        game.init_game()
        landlord = game.round.landlord_id
        dump = {"id": f"rlcard-{k}", "landlord": landlord,
                "hands": [[c.get_index() for c in p.current_hand] for p in game.players],
                "seen_cards": [c.get_index() for c in game.round.dealer.deck[-3:]]}
        while not game.is_over():
            game.step(rng.choice(game.state["actions"]))
        payoffs = game.judger.judge_payoffs(landlord, game.winner_id)
        dump.update(trace=[[s, a] for s, a in game.round.trace], payoffs=[int(p) for p in payoffs],
                    winner_id=game.winner_id)
        out.append(dump)
        winners.append("landlord" if payoffs[landlord] > 0 else "farmers")
    return out, winners


def douzero_games(n: int, seed: int) -> tuple[list[dict], list[str]] | None:
    try:
        from douzero.env.game import GameEnv
        from douzero.evaluation.random_agent import RandomAgent
    except ImportError:
        return None
    random.seed(seed)  # DouZero's RandomAgent draws from the random module
    deck = [r for r in range(3, 15) for _ in range(4)] + [17] * 4 + [20, 30]
    out, winners = [], []
    for k in range(n):
        random.shuffle(deck)
        data = {"landlord": sorted(deck[:20]), "landlord_up": sorted(deck[20:37]),
                "landlord_down": sorted(deck[37:54]), "three_landlord_cards": sorted(deck[17:20])}
        env = GameEnv({p: RandomAgent() for p in ("landlord", "landlord_up", "landlord_down")})
        env.card_play_init({key: list(v) for key, v in data.items()})
        while not env.game_over:
            env.step()
        out.append({"id": f"douzero-{k}", **data, "card_play_action_seq": [list(m) for m in env.card_play_action_seq],
                    "winner": env.get_winner(), "bomb_num": env.bomb_num})
        winners.append("landlord" if env.get_winner() == "landlord" else "farmers")
    return out, winners


def openspiel_games(n: int, seed: int) -> tuple[list[str], list[str]] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("dou_dizhu")
    rng = random.Random(seed)
    out, winners = [], []
    for _ in range(n):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        out.append(pyspiel.serialize_game_and_state(game, state))
        returns = state.returns()
        # the landlord wins: it alone gains (the farmers lose); the farmers win: they both gain
        winners.append("redeal" if not any(returns) else "landlord" if sum(r > 0 for r in returns) == 1 else "farmers")
    return out, winners


def check(name: str, path: str, winners: list[str], folder: str) -> None:
    items = list(iter_file(path))
    records = [i.record for i in items if i.record is not None]
    rejects = [i for i in items if i.record is None]
    codes: collections.Counter[str] = collections.Counter()
    disagree = 0
    for record, winner in zip(records, winners):
        r = replay(record)
        if r.violation is not None:
            codes[str(r.violation.code)] += 1
            continue
        mine = "redeal" if r.outcome.get("redeal") else r.outcome["winner"]
        disagree += mine != winner
    jsonl = os.path.join(folder, f"{name}.jsonl")
    write_jsonl(records, jsonl)

    def ingest_of(src: str) -> None:
        out = os.path.join(folder, "ds")
        shutil.rmtree(out, ignore_errors=True)
        ingest([src], out, workers=1)

    foreign, own = best(lambda: ingest_of(path)), best(lambda: ingest_of(jsonl))
    variants = sorted({r["variant"] for r in records})
    print(f"{name}: {len(winners)} games, {len(records)} imported, {len(rejects)} rejected, "
          f"{sum(codes.values())} with a violation {dict(codes) or ''} (by doudizhu/{', '.join(variants)}), "
          f"{disagree} winners disagree; "
          f"ingest {foreign:.2f} s vs JSONL {own:.2f} s: {foreign / own:.2f}×")
    for i in rejects[:5]:
        print(f"  {i.where}: {i.code}: {i.message}")
    botzone(name, records, winners, folder)


def botzone(name: str, records: list[dict], winners: list[str], folder: str) -> None:
    """The same games as Botzone FightTheLandlord2 logs (paipu's writer): imported, audited
    by the rules of the library that played them (a Botzone log does not say them: its
    records are huopin's), winners compared (a redeal has no Botzone log)."""
    path = os.path.join(folder, f"{name}.botzone.json")
    kept, cannot = [], 0
    with open(path, "wb") as f:
        for record, winner in zip(records, winners):
            try:
                f.write(write_foreign("botzone", record))
                kept.append((record["variant"], winner))
            except ValueError:
                cannot += 1
    items = list(iter_file(path))
    bad = sum(i.record is None for i in items)
    codes: collections.Counter[str] = collections.Counter()
    disagree = 0
    for item, (variant, winner) in zip(items, kept):
        if item.record is None:
            continue
        r = replay(dict(item.record, variant=variant))
        if r.violation is not None:
            codes[str(r.violation.code)] += 1
        else:
            disagree += r.outcome["winner"] != winner
    print(f"{name} as Botzone logs: {len(kept)} written ({cannot} redeals: Botzone has none), {bad} rejected, "
          f"{sum(codes.values())} with a violation {dict(codes) or ''} (by doudizhu/{kept[0][0] if kept else '?'}), "
          f"{disagree} winners disagree")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="keep the generated files in this folder")
    args = ap.parse_args()
    folder = args.out or tempfile.mkdtemp(prefix="paipu-foreign-")
    os.makedirs(folder, exist_ok=True)
    import orjson

    for name, make in (("rlcard", rlcard_games), ("douzero", douzero_games), ("openspiel", openspiel_games)):
        t = time.perf_counter()
        made = make(args.games, args.seed)
        if made is None:
            print(f"{name}: not installed, skipped")
            continue
        games, winners = made
        print(f"{name}: {len(games)} games made by the library in {time.perf_counter() - t:.1f} s")
        path = os.path.join(folder, f"{name}.{'txt' if name == 'openspiel' else 'json'}")
        with open(path, "wb") as f:
            for g in games:
                f.write(g.encode() if isinstance(g, str) else orjson.dumps(g) + b"\n")
        check(name, path, winners, folder)
    if not args.out:
        shutil.rmtree(folder, ignore_errors=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
