"""Building hands for tests: a fixed Dou Dizhu deal written in the text format."""

from __future__ import annotations

import itertools
import json

from paipu.replay.cards import counts
from paipu.replay.io.text import parse_text
from paipu.replay.replayer import Replay, replay

# seat 0 holds a 3..A straight, 2s 2h 2d, SJ, 3h; the bottom BJ 2c 3d completes a bomb of
# twos and the rocket.  Seat 1: hearts 4..A and diamonds 4..9.  Seat 2: the rest.
DDZ_HEAD = """\
hand t-1
game doudizhu huopin
seat 0 张三: 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s 2h 2d SJ 3h
seat 1 李四: 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah 4d 5d 6d 7d 8d 9d
seat 2 王五: Td Jd Qd Kd Ad 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac 3c
bottom: BJ 2c 3d
leader: 0
"""
BID_0 = "0 bid yes\n1 grab no\n2 grab no\n"
STRAIGHT = "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As"
#: the landlord's spring: straight, bomb, pair, rocket
SPRING = BID_0 + f"""\
0 play {STRAIGHT}
1 pass
2 pass
0 play 2s 2h 2d 2c
1 pass
2 pass
0 play 3h 3d
1 pass
2 pass
0 play SJ BJ
"""
#: farmers win after the landlord's single play: anti-spring
ANTI_SPRING = BID_0 + """\
0 play 3h
1 play 4h
2 pass
0 pass
1 play 5h 6h 7h 8h 9h Th Jh Qh Kh Ah
2 pass
0 pass
1 play 4d 5d 6d 7d 8d 9d
"""


def ddz(actions: str, head: str = DDZ_HEAD, **fields) -> dict:
    """A Dou Dizhu record: the fixed deal, *actions* in text form, extra fields as JSON."""
    text = head + "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in fields.items()) + actions
    items = parse_text(text)
    assert len(items) == 1 and items[0].record is not None, items[0].message
    return items[0].record


def run(actions: str, **fields) -> Replay:
    return replay(ddz(actions, **fields))


def verdict(actions: str, **fields) -> tuple[str, int | None] | None:
    """(code, action index) of the first violation of a Dou Dizhu hand, or None when legal."""
    return code_at(ddz(actions, **fields))


def text_record(head: str, actions: str, **fields) -> dict:
    """A record from a text-format head (hand, game, seats), actions and extra fields."""
    return ddz(actions, head=head, **fields)


# 跑得快 (huopin): seat 0 holds 3♦ and the bomb of fours; seat 1 a 2, an ace and seven pairs.
PDK_HEAD = """\
hand p-1
game paodekuai huopin
seat 0 张三: 3d 4d 4s 4h 4c 5d 5s 5h 6h 7d 8d 9d Td Jd Qd Kd
seat 1 李四: Ah 2s 7s 7h 8s 8h 9s 9h Ts Th Js Jh Qs Qh Ks Kh
seat 2 王五: 3s 3h 3c 5c 6d 6s 6c 7c 8c 9c Tc Jc Qc Kc Ad Ac
"""

# 扑克王 (classic): seat 0 holds 3♣; seat 1 a bomb of twos; seat 2 the rocket.
CLASSIC_HEAD = """\
hand c-1
game paodekuai classic
seat 0 张三: 3c 3d 3h 3s 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac Ks Kh Kd
seat 1 李四: 9s 9h 9d Ts Th Td 2s 2h 2d 2c 4s 4h 5s 5h 6s 6h 7s 7h
seat 2 王五: 4d 5d 6d 7d 8s 8h 8d Js Jh Jd Qs Qh Qd As Ah Ad SJ BJ
"""


def pdk_verdict(actions: str, head: str = PDK_HEAD, **fields):
    return code_at(text_record(head, actions, **fields))


def submultisets(packed: int):
    c = counts(packed)
    ranks = [r for r in range(15) if c[r]]
    for choice in itertools.product(*[range(c[r] + 1) for r in ranks]):
        value = sum(n << (5 * r) for r, n in zip(ranks, choice))
        if value:
            yield value


def code_at(record: dict) -> tuple[str, int | None] | None:
    """(code, action index) of a record's first violation, or None when it is legal."""
    r = replay(record)
    return None if r.ok else (str(r.violation.code), r.violation.action)


def stepping(record: dict):
    """(index, action, table) for every action of a legal record, the table as it stands
    just before that action; each action is then replayed and must be legal."""
    from paipu.replay.replayer import make_table

    table = make_table(record)
    assert table.setup() is None
    for k, action in enumerate(record["actions"]):
        yield k, action, table
        assert table.step(k, action) is None, (k, action)


def table_after(record: dict, stop: int):
    """A table replayed through ``record["actions"][:stop]`` (each action legal)."""
    from paipu.replay.replayer import make_table

    table = make_table(record)
    assert table.setup() is None
    for k in range(stop):
        assert table.step(k, record["actions"][k]) is None, k
    return table


def with_hand(table, seat: int, cards: list[int]) -> None:
    """Give *seat* exactly *cards* (card ids), replacing its hand."""
    from paipu.replay.cards import RANK_BIT

    hand = table.hands[seat]
    for c in range(54):
        hand[c] = 0
    for c in cards:
        hand[c] += 1
    table.packed[seat] = sum(RANK_BIT[c] for c in cards)
    table.left[seat] = len(cards)


def square_plus(x: int, y: int) -> int:
    """A job for the local pool's tests: defined here, not in a test module, so that a pool's
    spawned worker can import it (test modules are imported by path, not as ``tests.*``)."""
    return x * x + y
