"""Cards: indices, deadwood values, parsing and formatting, and the deal.

Card index = ``suit * 13 + rank``.

======  =====================================================
rank    0 = ace, 1 = two, ..., 9 = ten, 10 = jack, 11 = queen, 12 = king
suit    0 = clubs (c, ♣), 1 = diamonds (d, ♦), 2 = hearts (h, ♥), 3 = spades (s, ♠)
======  =====================================================

So ``Ac`` = 0, ``Kc`` = 12, ``Ad`` = 13, ``Ks`` = 51. A hand is either a list of card indices,
a boolean array of shape (52,), or (in the fast paths) a 52-bit integer mask with bit ``card``
set for every card held.

The deal: every hand of a match is dealt from a permutation of the 52 cards, a pure function of
the match seed and the hand number (:func:`deal_decks`), so a game's cards do not depend on
what the other games of a batch do. Deal order: the non-dealer gets ``deck[0:10]``, the dealer
``deck[10:20]``, ``deck[20]`` is the first upcard, and the stock is ``deck[21:52]`` drawn from
``deck[21]`` on.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

NUM_CARDS = 52
NUM_RANKS = 13
NUM_SUITS = 4

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")

#: deadwood value of each rank: A = 1, 2..10 face value, J/Q/K = 10
RANK_VALUES = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10], dtype=np.int64)
#: deadwood value of each card index
CARD_VALUES = np.tile(RANK_VALUES, NUM_SUITS)

# Offsets of the deal (see the module docstring).
NON_DEALER_SLICE = slice(0, 10)
DEALER_SLICE = slice(10, 20)
UPCARD_POS = 20
STOCK_START = 21


def card_rank(card: np.ndarray | int) -> np.ndarray | int:
    return card % NUM_RANKS


def card_suit(card: np.ndarray | int) -> np.ndarray | int:
    return card // NUM_RANKS


def make_card(rank: int, suit: int) -> int:
    if not (0 <= rank < NUM_RANKS and 0 <= suit < NUM_SUITS):
        raise ValueError(f"rank must be in 0..12 and suit in 0..3, got rank={rank}, suit={suit}")
    return suit * NUM_RANKS + rank


def card_value(card: int) -> int:
    return int(CARD_VALUES[card])


_SUIT_LOOKUP = {c: i for i, c in enumerate(SUIT_CHARS)}
_SUIT_LOOKUP.update({c: i for i, c in enumerate(SUIT_SYMBOLS)})
_SUIT_LOOKUP.update({c: i for i, c in enumerate("CDHS")})
_RANK_LOOKUP = {c: i for i, c in enumerate(RANK_CHARS)}
_RANK_LOOKUP.update({c.lower(): i for i, c in enumerate(RANK_CHARS) if c.isalpha()})
_RANK_LOOKUP["10"] = 9


def parse_card(text: str) -> int:
    """Parse one card: ``"Ac"``, ``"Td"``, ``"10d"``, ``"Kh"``, ``"7s"``, ``"Q♠"``."""
    if not isinstance(text, str):
        raise TypeError(f"a card string is expected, got {type(text).__name__}: {text!r}")
    s = text.strip()
    if len(s) < 2 or s[:-1] not in _RANK_LOOKUP or s[-1] not in _SUIT_LOOKUP:
        raise ValueError(
            f"bad card {text!r}: expected a rank in {RANK_CHARS} (or 10) followed by a suit in "
            f"{SUIT_CHARS} or {SUIT_SYMBOLS}, e.g. 'Ac', 'Td', 'Kh', '7s', 'Q♠'"
        )
    return make_card(_RANK_LOOKUP[s[:-1]], _SUIT_LOOKUP[s[-1]])


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Parse a whitespace- or comma-separated string of cards (or an iterable of card strings)."""
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    cards = [parse_card(p) for p in parts]
    if len(set(cards)) != len(cards):
        dup = sorted({format_card(c) for c in cards if cards.count(c) > 1})
        raise ValueError(f"duplicate cards in {text!r}: {', '.join(dup)}")
    return cards


def format_card(card: int, unicode: bool = False) -> str:
    card = int(card)
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card index must be in 0..51, got {card}")
    suits = SUIT_SYMBOLS if unicode else SUIT_CHARS
    return RANK_CHARS[card % NUM_RANKS] + suits[card // NUM_RANKS]


def format_cards(cards: Iterable[int], unicode: bool = False) -> str:
    return " ".join(format_card(c, unicode) for c in sort_cards(cards))


def sort_cards(cards: Iterable[int]) -> list[int]:
    """Cards sorted by suit, then rank."""
    return sorted(int(c) for c in cards)


# --- conversions between the three hand representations ------------------------------------


def cards_to_mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def mask_to_cards(mask: int) -> list[int]:
    mask = int(mask)
    return [c for c in range(NUM_CARDS) if (mask >> c) & 1]


def as_card_list(hand: str | Iterable[int | str] | np.ndarray) -> list[int]:
    """A hand given as card strings, a string, card indices or a (52,) bool array -> indices."""
    if isinstance(hand, str):
        return parse_cards(hand)
    arr = np.asarray(hand)
    if arr.dtype == bool:
        if arr.shape != (NUM_CARDS,):
            raise ValueError(f"a boolean hand must have shape (52,), got {arr.shape}")
        return [int(c) for c in np.flatnonzero(arr)]
    out = []
    for c in hand:
        out.append(parse_card(c) if isinstance(c, str) else int(c))
    if any(not 0 <= c < NUM_CARDS for c in out):
        raise ValueError(f"card indices must be in 0..51, got {out}")
    if len(set(out)) != len(out):
        raise ValueError(f"duplicate cards in hand {out}")
    return out


#: ``CARD_BITS[c]``: card ``c``'s bit in a 52-bit hand mask (uint64), the one table of them
CARD_BITS = (np.uint64(1) << np.arange(NUM_CARDS, dtype=np.uint64)).astype(np.uint64)
CARD_BITS.setflags(write=False)


def bools_to_masks(hands: np.ndarray) -> np.ndarray:
    """(N, 52) bool -> (N,) uint64 masks."""
    hands = np.asarray(hands)
    if hands.ndim != 2 or hands.shape[1] != NUM_CARDS:
        raise ValueError(f"hands must have shape (N, 52), got {hands.shape}")
    packed = np.packbits(hands.astype(bool), axis=1, bitorder="little")  # (N, 7)
    padded = np.zeros((hands.shape[0], 8), dtype=np.uint8)
    padded[:, :7] = packed
    return padded.view("<u8").reshape(-1).astype(np.uint64)


def masks_to_bools(masks: np.ndarray) -> np.ndarray:
    """(N,) uint64 masks -> (N, 52) bool (a view of a fresh buffer: rows are 64 bytes apart)."""
    m = np.ascontiguousarray(np.asarray(masks, dtype=np.uint64).reshape(-1)).astype("<u8", copy=False)
    # one flat unpack (numpy's unpack along an axis is about twice as slow)
    return np.unpackbits(m.view(np.uint8), bitorder="little").reshape(-1, 64)[:, :NUM_CARDS].view(bool)


# --- the deal: counter-based, per game ------------------------------------------------------

_MASK64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser, elementwise on uint64 (wrapping arithmetic)."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _mix(match_seeds: np.ndarray, hand_numbers: np.ndarray, stream: int) -> np.ndarray:
    s = np.asarray(match_seeds, dtype=np.uint64)
    h = np.asarray(hand_numbers, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return splitmix64(splitmix64(s) ^ (h * np.uint64(0xD6E8FEB86659FD93) + np.uint64(stream)))


def deal_decks(match_seeds: np.ndarray | int, hand_numbers: np.ndarray | int) -> np.ndarray:
    """The deck (a permutation of 0..51, int8) for each (match seed, hand number) pair.

    Hand numbers count every deal of the match from 0, walls included.
    """
    base = _mix(match_seeds, hand_numbers, 1).reshape(-1, 1)
    with np.errstate(over="ignore"):
        keys = splitmix64(base ^ (np.arange(NUM_CARDS, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)))
    return np.argsort(keys, axis=1, kind="stable").astype(np.int8)


def first_dealer(match_seeds: np.ndarray | int) -> np.ndarray:
    """The cut for the first dealer of each match: 0 or 1, uniformly from the match seed."""
    return (_mix(match_seeds, np.zeros_like(np.asarray(match_seeds, dtype=np.uint64)), 2) >> np.uint64(63)).astype(np.int8)
