"""An operator's own logs read by a mapping file (docs/formats.md §7, docs/examples/)."""

from __future__ import annotations

import json
import os

import pytest
from operator_shapes import en_document, mapped_view, zh_game
from typer.testing import CliRunner

from paipu.cli import app
from paipu.replay.io.mapping import Mapping, MappingError, load_mapping
from paipu.replay.io.readers import iter_file
from paipu.replay.replayer import replay
from paipu.replay.sim import simulate

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "docs", "examples")
ZH, EN = (os.path.join(EXAMPLES, f"operator-{x}.toml") for x in ("zh", "en"))
runner = CliRunner()


def hands(n: int = 12, seed: int = 21) -> list[dict]:
    out = list(simulate("doudizhu", None, n, seed))
    kinds = {a["act"] for r in out for a in r["actions"]}
    assert {"bid", "grab", "play", "pass"} <= kinds  # the shapes carry every act the sample has
    return out


def read(path: str, mapping: str) -> list:
    return list(iter_file(path, mapping))


def test_chinese_operator_with_integer_cards_and_per_seat_copies_maps_back(tmp_path):
    originals = hands()
    path = tmp_path / "zh.json"
    path.write_text("".join(json.dumps(zh_game(r), ensure_ascii=False) + "\n" for r in originals), encoding="utf-8")
    items = read(str(path), ZH)
    assert [i.message for i in items if i.record is None] == []
    for item, original in zip(items, originals, strict=True):
        assert item.record == mapped_view(original)
        assert replay(item.record).violation is None


def test_english_operator_document_with_seat_names_maps_back(tmp_path):
    originals = hands(seed=22)
    path = tmp_path / "en.json"
    path.write_text(json.dumps(en_document(originals), ensure_ascii=False, indent=2), encoding="utf-8")
    items = read(str(path), EN)
    assert [i.message for i in items if i.record is None] == []
    assert [i.record for i in items] == [mapped_view(r) for r in originals]


def test_shipped_examples_ingest_and_audit(tmp_path):
    for mapping, data in ((ZH, "operator-zh.json"), (EN, "operator-en.json")):
        out = tmp_path / os.path.basename(data)
        result = runner.invoke(app, ["ingest", os.path.join(EXAMPLES, data), "--from", mapping, "--out", str(out)])
        assert result.exit_code == 0, result.output
        result = runner.invoke(app, ["audit", os.path.join(EXAMPLES, data), "--from", mapping])
        assert result.exit_code == 0, result.output
        assert "3 hands: 3 ok, 0 with violations" in result.output


def test_unmapped_values_are_rejects_naming_line_and_field(tmp_path):
    games = [zh_game(r) for r in hands(4, 23)]
    games[1]["消息"][3]["动作"] = "加倍"  # the first copy of the first action
    games[2]["消息"][5]["座位号"] = 3  # its third copy, for another seat
    games[3]["玩家"][0]["手牌"][3] = 99
    path = tmp_path / "zh.json"
    path.write_text("".join(json.dumps(g, ensure_ascii=False) + "\n" for g in games), encoding="utf-8")
    items = read(str(path), ZH)
    assert items[0].record is not None
    assert [(i.where, i.message) for i in items[1:]] == [
        (f"{path}:2", 'field "消息[3].动作": expected an action name of the mapping (出牌, 不出, 叫地主, 不叫, 抢地主, 不抢, '
                      "明牌, 黄金眼, 逃跑, 发牌), got '加倍'"),
        (f"{path}:3", 'field "消息[5]": expected a copy of 消息[3] (the same 序号), differing only in 接收者'),
        (f"{path}:4", 'field "玩家.*.手牌[0][3]": expected a card number 1..54, got 99')]


def test_en_entries_are_named_in_rejects(tmp_path):
    doc = en_document(hands(2, 24))
    doc["data"]["rounds"][1]["events"][0]["pos"] = "P9"
    path = tmp_path / "en.json"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    items = read(str(path), EN)
    assert items[0].record is not None
    assert items[1].message == "field \"data.rounds[1].events[0].pos\": expected a seat (P1, P2, P3), got 'P9'"


def test_a_mapping_saved_with_a_byte_order_mark_reads_and_one_not_utf8_is_named(tmp_path):
    """A UTF-8 mark (an editor's) was "not valid TOML (Invalid statement)"; a Latin-1 file
    was "--from 'utf-8' codec can't decode byte 0xe9 ...", the file unnamed."""
    with open(os.path.join(EXAMPLES, "operator-en.toml"), "rb") as f:
        text = f.read()
    (tmp_path / "bom.toml").write_bytes(b"\xef\xbb\xbf" + text)
    assert load_mapping(str(tmp_path / "bom.toml")).game == load_mapping(os.path.join(EXAMPLES, "operator-en.toml")).game
    (tmp_path / "latin.toml").write_bytes(b'# ok\ngame = "\xe9"\n')
    with pytest.raises(MappingError) as e:
        load_mapping(str(tmp_path / "latin.toml"))
    assert str(e.value) == f"{tmp_path / 'latin.toml'}: not UTF-8 text (line 2, byte 13: invalid continuation byte); " \
                           f"save the mapping as UTF-8"


def test_a_bad_mapping_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "m.toml"
    bad.write_text('game = "doudizhu"\n[fields]\ndeal = "d"\n[actions]\nlist = "a"\nact = "n"\n[acts]\nX = "shoot"\n')
    with pytest.raises(MappingError, match=r"m.toml: acts.X: expected one of play, pass, bid"):
        load_mapping(str(bad))
    result = runner.invoke(app, ["ingest", os.path.join(EXAMPLES, "operator-zh.json"), "--from", str(bad), "--out",
                                 str(tmp_path / "ds")])
    assert result.exit_code == 2
    assert "acts.X: expected one of" in result.output
    with pytest.raises(MappingError, match=r"x.toml: variant: expected a variant of doudizhu \(huopin, openspiel, "
                                           r"douzero\), got 'nope'"):  # (each record was rejected, exit 0)
        Mapping.of({"game": "ddz", "variant": "nope", "fields": {"deal": "d"}, "actions": {"list": "a", "act": "b"},
                    "acts": {"P": "play"}}, "x.toml")
    with pytest.raises(MappingError, match="fields.deal: expected the path of the dealt cards"):
        Mapping.of({"game": "ddz", "actions": {"list": "a", "act": "b"}, "acts": {"P": "play"}}, "x.toml")


def test_mapping_values_of_the_wrong_kind_name_their_key(tmp_path):
    with open(ZH, encoding="utf-8") as f:
        base = f.read()
    for change, message in (
            (('first = 1', 'first = "x"'), "cards.first: expected an integer, got 'x'"),
            (('notation = ', 'notaton = "paipu"\nnotation = '), "cards.notaton: expected one of notation, first, suits, table"),
            (('base = 1 ', 'base = true '), "seats.base: expected an integer, got True"),
            (('key = "序号"', 'key = ["序号"]'), "duplicates.key: expected a path, got ['序号']")):
        path = tmp_path / "m.toml"
        path.write_text(base.replace(*change), encoding="utf-8")
        load_mapping.cache_clear()
        with pytest.raises(MappingError) as e:
            load_mapping(str(path))
        assert str(e.value) == f"{path}: {message}"
