"""Writes tests/data/foreign/botzone-guandan.json: two hands of tests/data/guandan_tribute.jsonl
(double-2: a double tribute and its returns; resist1-2: a resisted tribute and a straight
whose wild heart stands for another card), each alone (without its match), as Botzone
GuanDan match logs by paipu's writer (docs/formats.md §6.1), one per line.

    python tests/data/make_botzone_guandan.py
"""

import json
import os

import orjson

from paipu.replay.io.botzone import record_to_log

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "guandan_tribute.jsonl"), encoding="utf-8") as f:
    records = {r["id"]: r for r in map(json.loads, f)}
with open(os.path.join(HERE, "foreign", "botzone-guandan.json"), "wb") as out:
    for hand in ("double-2", "resist1-2"):
        alone = {k: v for k, v in records[hand].items() if k not in ("match", "levels", "result")}
        out.write(orjson.dumps(record_to_log(alone)) + b"\n")
