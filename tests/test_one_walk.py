"""One walk through a hand (issue #25): only ``replay/replayer.py`` loops over a hand's
actions taking each on a table; every other module walks with ``walk`` (visitors) or
takes its own actions one at a time through ``Walk``. The audit tables of the sample
logs (and of broken copies of them) stay as they were before the walk: their digests
below were taken at main before it, and ``benchmarks/pipeline.py --ref`` compares the
four audit tables byte for byte on its benchmark hands."""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import pathlib

import paipu

ROOT = pathlib.Path(paipu.__file__).parent
#: the methods that take an action on a table
TAKES = {"step", "do_play", "do_pass", "take"}


def action_loops(tree: ast.AST) -> list[int]:
    """Lines of the loops over something named *actions* (or that index it) whose body
    takes an action on a table."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.comprehension)):
            body = node.body if isinstance(node, ast.For) else []
            indexed = any(isinstance(n, ast.Subscript) and "actions" in ast.unparse(n.value)
                          for part in body for n in ast.walk(part))
            if "actions" not in ast.unparse(node.iter) and not indexed:
                continue
            calls = [n for part in body for n in ast.walk(part) if isinstance(n, ast.Call)]
            if any(isinstance(c.func, ast.Attribute) and c.func.attr in TAKES
                   or isinstance(c.func, ast.Name) and c.func.id in TAKES for c in calls):
                found.append(getattr(node, "lineno", 0))
    return found


def test_only_the_walk_loops_over_actions():
    loops = {}
    for path in sorted(ROOT.rglob("*.py")):
        if ".venv" in path.parts or "tests" in path.parts or "benchmarks" in path.parts:
            continue
        lines = action_loops(ast.parse(path.read_text(encoding="utf-8")))
        if lines:
            loops[str(path.relative_to(ROOT))] = lines
    assert list(loops) == ["replay/replayer.py"], loops


def test_the_check_finds_a_hand_written_loop():
    code = "def f(table, record):\n    for i, a in enumerate(record['actions']):\n        v = table.step(i, a)\n"
    assert action_loops(ast.parse(code)) == [2]
    assert action_loops(ast.parse("for i in range(n):\n    a = actions[i]\n    t.step(i, a)\n")) == [1]
    assert action_loops(ast.parse("for a in record['actions']:\n    print(a)\n")) == []


def mutated(records: list[dict]) -> list[dict]:
    """Every fifth hand again under a new id, broken one of five ways: its last action
    dropped (incomplete), its last action twice (after_end), an action turned into a pass,
    a declared score changed (result_mismatch), an action by the next seat (out_of_turn)."""
    out = []
    for k, r in enumerate(records[::5]):
        r = copy.deepcopy(r)
        r["id"] = f"broken-{r['id']}"
        actions, how = r["actions"], k % 5
        j = (7 * k) % len(actions)
        if how == 0:
            actions.pop()
        elif how == 1:
            actions.append(dict(actions[-1]))
        elif how == 2:
            actions[j] = {"seat": actions[j]["seat"], "act": "pass"}
        elif how == 3 and isinstance(r.get("result"), dict) and r["result"].get("scores"):
            r["result"]["scores"] = [0] * len(r["result"]["scores"])
        else:
            actions[j]["seat"] = (actions[j]["seat"] + 1) % len(r["players"])
        out.append(r)
    return out


def table_digests(root: str) -> dict[str, tuple[int, str]]:
    """(rows, sha256 of the rows in order) of each audit table of the dataset *root*."""
    import pyarrow.dataset as ds

    from paipu.replay.decisions import SHARING_COLUMNS

    out = {}
    for name in ("verdicts", "plays", "outcomes", "seats", "decisions"):
        table = ds.dataset(f"{root}/{name}", partitioning="hive").to_table()
        if name == "decisions":  # the columns added since keep the older ones' values: digested as before
            table = table.drop_columns(list(SHARING_COLUMNS))
        rows = sorted(json.dumps(row, sort_keys=True, ensure_ascii=False, default=str) for row in table.to_pylist())
        out[name] = (len(rows), hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16])
    return out


#: the audit tables of the sample logs and their broken copies, as the replay gave them
#: before the one walk (main at a529ec0, kernel and PAIPU_PURE=1 alike)
DIGESTS: dict[str, tuple[int, str]] = {
    "verdicts": (246, "79c1f9ad9c9139fb"), "plays": (6704, "8fb000cc80aec48f"),
    "outcomes": (246, "e7d23d35c15c6f85"), "seats": (682, "2f2a5d9056f83d30"),
    "decisions": (11453, "e5b8608ed161a626"),
}


def test_the_audit_tables_are_as_before_the_walk(tmp_path):
    from paipu.replay.api import read_records
    from paipu.replay.audit import audit_dataset
    from paipu.replay.ingest import ingest_files

    records = list(read_records(*sorted(str(p) for p in (ROOT / "sample_logs").iterdir())))
    hands = tmp_path / "hands.jsonl"
    hands.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records + mutated(records)), encoding="utf-8")
    ingest_files([str(hands)], str(tmp_path / "ds"), workers=1)
    audit_dataset(str(tmp_path / "ds"), workers=1, decisions=True)
    assert table_digests(str(tmp_path / "ds")) == DIGESTS
