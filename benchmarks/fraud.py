"""How well ``paipu fraud`` finds planted cheaters, per cheat kind and game.

For each game and seed: a population (``--players``, cheaters planted with ``--cheat``)
plays about ``--hands-per-player`` hands each; the hands go through the real pipeline
(ingest, audit with decisions, screens). A player's score is the strongest evidence
against it (-log10 of the smallest p of any test naming it). Printed per kind and game:
ROC-AUC (planted players of the kind against honest ones, seeds pooled), recall at the
score that flags at most 1% of honest players, and precision / recall at the default
threshold (flagged: q <= 0.01 after Benjamini-Hochberg). Then the honest-only runs: how
many seeds give no flag at all.

    python benchmarks/fraud.py                       # every game, the default sizes
    python benchmarks/fraud.py --games doudizhu --seeds 3 --honest-seeds 20

The cheaters of issue #27 (docs/fraud.md gives the figures measured):

    python benchmarks/fraud.py --games doudizhu --honest-seeds 0 \
        --cheat soft=2@0.15@seat=2,dump=2@x4@seat=0,share=2@0.3@seat=0,bot=2
    python benchmarks/fraud.py --games doudizhu --honest-seeds 0 --cheat few=3,bot=1
    python benchmarks/fraud.py --games doudizhu --seeds 0 --honest-seeds 20 --honest-hands-per-player 100
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from paipu.analysis.fraud import screen  # noqa: E402
from paipu.replay.audit import audit_dataset  # noqa: E402
from paipu.replay.games import find_rules  # noqa: E402
from paipu.replay.ingest import ingest_files  # noqa: E402
from paipu.replay.io.jsonl import record_to_json  # noqa: E402
from paipu.replay.sim.population import CHEATS, Cheat, cheat_spec, parse_cheats, simulate_population  # noqa: E402

#: which planted roles each ``--cheat`` kind is judged on
ROLES = {kind: set(roles) for kind, roles in CHEATS.items()}



def prepare(game: str, players: int, per_player: int, cheats: list[Cheat], seed: int, workdir: str,
            policy: str = "heuristic") -> str:
    """The audited dataset (with decisions) of one population and its ``labels.csv``, made
    once: a folder that already has both is reused as it is (``--work``). *policy*: what
    everyone plays when not cheating (``rlcard``: RLCard's rule agent, Dou Dizhu only)."""
    seats = find_rules(game, None).players
    hands = per_player * players // seats
    tag = "" if policy == "heuristic" else f"-{policy}"
    folder = os.path.join(workdir, f"{game}-{seed}-{players}x{per_player}-{_cheat_tag(cheats)}{tag}")
    ds = os.path.join(folder, "ds")
    labels = os.path.join(folder, "labels.csv")
    if os.path.isdir(os.path.join(ds, "decisions")) and os.path.exists(labels):
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    base = None
    if policy == "rlcard":
        from paipu.replay.sim.rlcard_agent import RLCardRule

        base = RLCardRule()
    pop, records = simulate_population(game, None, hands, seed, players, cheats, base=base)
    path = os.path.join(folder, "hands.jsonl")
    with open(path, "wb") as f:
        for record in records:
            f.write(record_to_json(record) + b"\n")
    ingest_files([path], ds, workers=1)
    audit_dataset(ds, decisions=True, workers=1)
    os.remove(path)
    with open(labels + ".tmp", "w", newline="") as f:
        out = csv.DictWriter(f, ["player", "kind", "mate"])
        out.writeheader()
        out.writerows(pop.labels())
    os.replace(labels + ".tmp", labels)
    return folder


def _cheat_tag(cheats: list[Cheat]) -> str:
    spec = cheat_spec([c for c in cheats if c.count])
    return "".join(ch if ch.isalnum() or ch in ".x" else "_" for ch in spec) or "honest"


def _prepare(job: tuple) -> str:
    return prepare(*job)


def run(game: str, players: int, per_player: int, cheats: list[Cheat], seed: int, workdir: str,
        policy: str = "heuristic"):
    """(labels {player: kind}, player scores {player: -log10 min p}, flagged players {player:
    the screens that flagged it}, seconds)."""
    t0 = time.perf_counter()
    folder = prepare(game, players, per_player, cheats, seed, workdir, policy)
    ds = os.path.join(folder, "ds")
    with open(os.path.join(folder, "labels.csv"), newline="") as f:
        labels = {row["player"]: row["kind"] for row in csv.DictReader(f)}
    result = screen(ds, game, min_hands=min(100, per_player // 3))
    score: dict[str, float] = {}
    flagged: dict[str, set[str]] = {}
    for t in result.flagged:
        named = (t.player, t.other)
        if any(p and labels.get(p) == "honest" for p in named):
            print(f"    honest player flagged: {t.kind} {t.player} {t.other or ''} q={t.q:.2g} "
                  f"({labels.get(t.player)}, {labels.get(t.other)})")
    for t in result.tests:
        # the suspects a test names: both of a pair (the pair is the suspect; the kind and
        # the order say who acted: the sparer, the feeder, the giver first)
        for p in (t.player, t.other):
            if p is None:
                continue
            score[p] = max(score.get(p, 0.0), -math.log10(max(t.p, 1e-300)))
            if t.q <= result.alpha:
                flagged.setdefault(p, set()).add(t.kind)
    return labels, score, flagged, time.perf_counter() - t0


def audit_cost(game: str, hands: int, workdir: str) -> None:
    """CPU seconds of a plain audit against one that also writes the decisions table, in
    process (one worker), best of three each."""
    from paipu.replay.sim import simulate

    path = os.path.join(workdir, f"cost-{game}.jsonl")
    with open(path, "wb") as f:
        for record in simulate(game, None, hands, 1):
            f.write(record_to_json(record) + b"\n")
    ds = os.path.join(workdir, f"cost-{game}")
    ingest_files([path], ds)
    best = {}
    for decisions in (False, True, False, True, False, True):
        t = time.process_time()
        audit_dataset(ds, force=True, workers=1, decisions=decisions)
        best[decisions] = min(best.get(decisions, math.inf), time.process_time() - t)
    print(f"{game}: audit of {hands} hands {best[False]:.2f} s CPU; with decisions {best[True]:.2f} s "
          f"({best[True] / best[False]:.1f}x)")


def auc(pos: list[float], neg: list[float]) -> float | None:
    """ROC-AUC by the Mann-Whitney count (ties count a half)."""
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="doudizhu,paodekuai,guandan,shuangkou")
    ap.add_argument("--players", type=int, default=60)
    ap.add_argument("--hands-per-player", type=int, default=300)
    ap.add_argument("--cheat", default="collude=2,dump=2,bot=3",
                    help="what to plant (paipu simulate --cheat); give kinds whose labels differ (few and collude "
                    "both plant colluders)")
    ap.add_argument("--seeds", type=int, default=2, help="planted populations per game")
    ap.add_argument("--honest-seeds", type=int, default=20, help="honest-only populations per game")
    ap.add_argument("--honest-hands-per-player", type=int, default=None,
                    help="hands per player of the honest-only runs (default: --hands-per-player)")
    ap.add_argument("--work", help="keep the simulated datasets in this folder and reuse them (same game, seed, "
                    "sizes and cheats; empty it after changing the simulator)")
    ap.add_argument("--policy", choices=("heuristic", "rlcard"), default="heuristic",
                    help="what every player plays when not cheating: paipu's heuristic bot, or RLCard's rule "
                    "agent (DouDizhuRuleAgentV1; Dou Dizhu only), so that the screens are seen not to lean on "
                    "the heuristic's habits")
    ap.add_argument("--jobs", type=int, default=1,
                    help="simulate and audit this many populations at once (processes) before screening")
    ap.add_argument("--audit-cost", type=int, default=0, metavar="HANDS",
                    help="only measure what the decisions add to an audit, on this many hands per game")
    args = ap.parse_args()
    if args.audit_cost:
        with tempfile.TemporaryDirectory() as work:
            for game in args.games.split(","):
                audit_cost(game, args.audit_cost, work)
        return
    cheats = parse_cheats(args.cheat)
    honest_per = args.honest_hands_per_player or args.hands_per_player
    if args.policy == "rlcard" and args.games != "doudizhu":
        ap.error("--policy rlcard plays Dou Dizhu only: add --games doudizhu")
    print(f"policy {args.policy}, players {args.players}, ~{args.hands_per_player} hands per player, cheat {args.cheat}, "
          f"{args.seeds} planted seeds, {args.honest_seeds} honest seeds (~{honest_per} hands per player)")
    with tempfile.TemporaryDirectory() as temp:
        work = args.work or temp
        if args.jobs > 1:  # make every dataset first, seeds of all games interleaved
            games = args.games.split(",")
            jobs = [(g, args.players, args.hands_per_player, cheats, s, work, args.policy)
                    for s in range(args.seeds) for g in games]
            jobs += [(g, args.players, honest_per, [], 1000 + s, work, args.policy)
                     for s in range(args.honest_seeds) for g in games]
            with ProcessPoolExecutor(args.jobs) as pool:
                for done, folder in enumerate(pool.map(_prepare, jobs), 1):
                    print(f"  prepared {done}/{len(jobs)}: {os.path.basename(folder)}", flush=True)
        for game in args.games.split(","):
            rows: list[tuple[str, float, bool]] = []  # (label, score, flagged)
            found_by: dict[str, dict[str, int]] = {}  # planted kind -> screen -> players it flagged
            spent = 0.0
            for seed in range(args.seeds):
                labels, score, flagged, sec = run(game, args.players, args.hands_per_player, cheats, seed, work,
                                                  args.policy)
                spent += sec
                rows += [(kind, score.get(p, 0.0), p in flagged) for p, kind in labels.items()]
                for p, kind in labels.items():
                    for screen_kind in flagged.get(p, ()):
                        by = found_by.setdefault(kind, {})
                        by[screen_kind] = by.get(screen_kind, 0) + 1
            honest = [s for k, s, _ in rows if k == "honest"]
            honest_flags = sum(f for k, _, f in rows if k == "honest")
            cut = sorted(honest, reverse=True)[int(0.01 * len(honest))] if honest else 0.0
            print(f"\n{game}: planted runs {spent:.0f} s; honest players {len(honest)}, "
                  f"flagged {honest_flags} ({honest_flags / max(len(honest), 1):.1%}); the strongest evidence against "
                  f"one p {10 ** -max(honest, default=0.0):.2g}")
            print(f"  {'kind':<8} {'players':>7} {'ROC-AUC':>8} {'recall@1%FP':>12} {'precision':>10} {'recall':>7}")
            for kind in dict.fromkeys(c.kind for c in cheats if c.count):
                pos = [(s, f) for k, s, f in rows if k in ROLES[kind]]
                if not pos:
                    continue  # (no planted seed)
                a = auc([s for s, _ in pos], honest)
                rec1 = sum(s > cut for s, _ in pos) / len(pos)
                tp = sum(f for _, f in pos)
                prec = tp / (tp + honest_flags) if tp + honest_flags else float("nan")
                by = {}
                for role in ROLES[kind]:
                    for screen_kind, m in found_by.get(role, {}).items():
                        by[screen_kind] = by.get(screen_kind, 0) + m
                print(f"  {kind:<8} {len(pos):>7} {a if a is None else round(a, 3)!s:>8} {rec1:>12.2f} "
                      f"{prec:>10.2f} {tp / len(pos):>7.2f}  flagged by: "
                      + (", ".join(f"{k} {m}" for k, m in sorted(by.items())) or "none"))
            clean = 0
            spent = 0.0
            strongest = 0.0
            for seed in range(args.honest_seeds):
                _, score, flagged, sec = run(game, args.players, honest_per, [], 1000 + seed, work, args.policy)
                spent += sec
                clean += not flagged
                strongest = max(strongest, max(score.values(), default=0.0))
            print(f"  honest-only: {clean} of {args.honest_seeds} seeds without a flag, the smallest p in any "
                  f"{10 ** -strongest:.2g} ({spent:.0f} s)")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
