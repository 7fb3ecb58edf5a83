"""Cards as small integers; names only at the edges.

A card id is ``rank_index * 4 + suit`` for the 52 suited cards (rank index 0 is the 3,
11 the ace, 12 the two; suits ``s h d c`` are 0..3), 52 the small joker and 53 the big
joker.  With two decks the same id appears twice: a hand is a multiset of ids.

Rank indexes run 0..14: ``3 4 5 6 7 8 9 T J Q K A 2 SJ BJ``.  That is also the default
rank order for singles, pairs and bombs; a game may reorder (Guandan's level card).

>>> parse_cards("3h 10s ♣A BJ")
Traceback (most recent call last):
...
paipu.replay.cards.CardError: not a card: '♣A' (expected rank then suit, like '3h', 'Ts', '10♠', or 'SJ'/'BJ')
>>> cards_name(parse_cards("3h,10s BJ"))
'3h Ts BJ'
>>> rank_of(parse_cards("2c")[0]) == RANK_2
True
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

CardId = int
Rank = int

RANK_NAMES = "3 4 5 6 7 8 9 T J Q K A 2 SJ BJ".split()
SUIT_NAMES = "shdc"
SUIT_SYMBOLS = "♠♥♦♣"
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)

RANK_3, RANK_A, RANK_2 = 0, 11, 12
RANK_SMALL_JOKER, RANK_BIG_JOKER = 13, 14
SMALL_JOKER, BIG_JOKER = 52, 53
N_RANKS = 15
N_CARDS = 54

#: rank index of every card id
RANK: tuple[int, ...] = tuple([c >> 2 for c in range(52)] + [RANK_SMALL_JOKER, RANK_BIG_JOKER])
#: suit of every card id (-1 for jokers)
SUIT: tuple[int, ...] = tuple([c & 3 for c in range(52)] + [-1, -1])
#: packed-count increment of every card id: 5 bits per rank (see :func:`pack`)
RANK_BIT: tuple[int, ...] = tuple(1 << (5 * r) for r in RANK)
GUARD = sum(1 << (5 * r + 4) for r in range(N_RANKS))


def card_id(rank: Rank, suit: int) -> CardId:
    """The id of the card of *rank* (0..12) and *suit* (0..3); jokers by rank 13/14."""
    if rank >= RANK_SMALL_JOKER:
        return SMALL_JOKER + rank - RANK_SMALL_JOKER
    return rank * 4 + suit


def _spellings() -> dict[str, CardId]:
    table: dict[str, CardId] = {}
    rank_spellings = {r: [name, name.lower()] for r, name in enumerate(RANK_NAMES[:13])}
    rank_spellings[7] += ["10"]
    for r, names in rank_spellings.items():
        for s in range(4):
            for suit in (SUIT_NAMES[s], SUIT_NAMES[s].upper(), SUIT_SYMBOLS[s], "♤♡♢♧"[s]):
                for name in names:
                    table[name + suit] = card_id(r, s)
    for token in ("SJ", "sj", "Sj", "小王"):
        table[token] = SMALL_JOKER
    for token in ("BJ", "bj", "Bj", "大王"):
        table[token] = BIG_JOKER
    return table


#: every accepted spelling of a card -> id (the parse hot path is one dict lookup)
CARD_OF: dict[str, CardId] = _spellings()
CARD_NAMES: tuple[str, ...] = tuple(
    [RANK_NAMES[c >> 2] + SUIT_NAMES[c & 3] for c in range(52)] + ["SJ", "BJ"]
)


class CardError(ValueError):
    """A token that is not a card (verdict ``bad_card``)."""

    def __init__(self, token: object, index: int | None = None):
        self.token = token
        self.index = index
        super().__init__(
            f"not a card: {token!r} (expected rank then suit, like '3h', 'Ts', '10♠', or 'SJ'/'BJ')"
        )


def parse_card(token: str) -> CardId:
    """The id of one card token; raises :class:`CardError`.

    >>> parse_card("Td"), parse_card("10♦"), parse_card("BJ")
    (30, 30, 53)
    """
    try:
        return CARD_OF[token]
    except (KeyError, TypeError):
        raise CardError(token) from None


_SPLIT = re.compile(r"[\s,]+")


def parse_cards(text: str | Iterable[str]) -> list[CardId]:
    """Card ids from a string separated by spaces or commas, or from a list of tokens."""
    tokens = [t for t in _SPLIT.split(text) if t] if isinstance(text, str) else list(text)
    out = []
    for i, token in enumerate(tokens):
        try:
            out.append(CARD_OF[token])
        except (KeyError, TypeError):
            raise CardError(token, i) from None
    return out


def card_name(card: CardId) -> str:
    """The canonical spelling of *card* (format.md)."""
    return CARD_NAMES[card]


def cards_name(cards: Iterable[CardId], sep: str = " ") -> str:
    return sep.join(CARD_NAMES[c] for c in cards)


def over_deck(cards: Iterable[CardId], deck: Iterable[CardId]) -> list[tuple[CardId, int, int]]:
    """The cards of *cards* more often than *deck* holds them: (card, times, copies in the deck).

    >>> over_deck(parse_cards("3s 3s 4h SJ"), DECK_54), over_deck(parse_cards("3s 3s"), DECK_108)
    ([(0, 2, 1)], [])
    >>> over_deck(parse_cards("2h As"), DECK_48)
    [(49, 1, 0), (44, 1, 0)]
    """
    held = Counter(deck)
    return [(c, n, held[c]) for c, n in Counter(cards).items() if n > held[c]]


def canonical(token: str) -> str:
    """The canonical spelling of a card token: ``canonical('10♠') == 'Ts'``."""
    return CARD_NAMES[parse_card(token)]


def rank_of(card: CardId) -> Rank:
    return RANK[card]


def pack(cards: Iterable[CardId]) -> int:
    """Packed rank counts: 5 bits per rank index, the top bit of each field a guard.

    >>> counts(pack(parse_cards("3h 3s 4c BJ")))[:3], counts(pack(parse_cards("BJ")))[14]
    ([2, 1, 0], 1)
    """
    total = 0
    for c in cards:
        total += RANK_BIT[c]
    return total


def pack_counts(counts_by_rank: Sequence[int]) -> int:
    """Packed value of a list of per-rank counts (index = rank)."""
    return sum(n << (5 * r) for r, n in enumerate(counts_by_rank))


def counts(packed: int) -> list[int]:
    """Per-rank counts (15 entries) of a packed value."""
    return [(packed >> (5 * r)) & 31 for r in range(N_RANKS)]


def contains(hand: int, play: int) -> bool:
    """True if every rank count in *play* is <= the one in *hand* (both packed)."""
    return ((hand | GUARD) - play) & GUARD == GUARD


def _deck(removed: Iterable[CardId] = (), jokers: bool = True, copies: int = 1) -> tuple[CardId, ...]:
    removed = set(removed)
    one = [c for c in range(N_CARDS if jokers else 52) if c not in removed]
    return tuple(one * copies)


DECK_54 = _deck()
DECK_52 = _deck(jokers=False)
#: 跑得快 (火拼): no jokers, no 2♥ 2♦ 2♣, no A♠
DECK_48 = _deck(removed=parse_cards("2h 2d 2c As"), jokers=False)
#: two full decks (掼蛋, 双扣)
DECK_108 = _deck(copies=2)
