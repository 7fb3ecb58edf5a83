"""Bad input never crashes: any bytes in any format give items (records or rejects)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paipu.replay.io.readers import iter_file

FORMATS = ("jsonl", "text", "guandan-competition")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400), st.sampled_from(FORMATS))
def test_any_bytes_give_items_not_exceptions(tmp_path_factory, data, fmt):
    path = tmp_path_factory.mktemp("junk") / "junk.bin"
    path.write_bytes(data)
    for item in iter_file(str(path), fmt):
        assert (item.record is None) != (item.code is None)
        if item.record is None:
            assert item.message and item.line >= 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(
                        ["paipu", "id", "game", "variant", "players", "deal", "actions", "seat", "act", "cards", "bottom",
                         "messages", "beginning", "stage"]), inner, max_size=6), max_leaves=20),
       st.sampled_from(FORMATS))
def test_any_json_gives_items_not_exceptions(tmp_path_factory, obj, fmt):
    import json

    from paipu.replay.replayer import replay

    path = tmp_path_factory.mktemp("json") / "x.jsonl"
    path.write_text(json.dumps(obj) + "\n")
    for item in iter_file(str(path), fmt):
        if item.record is not None:
            r = replay(item.record)
            assert r.violation is None or r.violation.code != "engine_error", r.violation
        else:
            assert item.message
