"""Melds, deadwood and lay-offs, batched over hands (no Python loop over the batch).

Hands are 52-bit masks (``uint64``, bit ``card``) in the fast paths and ``(N, 52)`` bool arrays
in the public wrappers. The method:

* A suit is a 13-bit pattern. With sets out of the way, the best use of a suit's cards in runs
  is every maximal stretch of 3+ consecutive ranks, so ``RUN_VALUE[pattern]`` (8192 entries)
  gives it in one lookup.
* Only ranks held 3 or 4 times can form a set; with at most 11 cards there are at most three.
  Each such rank has 2 choices (no set / the set) when held 3 times and 6 when held 4 times
  (no set / all four / the four 3-card subsets, whose left-out card stays free for a run).
  Every hand expands to the product of its choices (usually 1), each choice is scored with four
  table lookups, and a segmented min picks the best.
* Knock masks are computed only where they can be true: the cards that fit no meld at all give
  a lower bound on the deadwood after any discard, which rules out most hands cheaply.
* Lay-offs: the defender's cards that can reach a knocker's run through its own cards, or are the
  4th card of a knocker's 3-card set, are the only lay-off candidates; every subset of them that
  is a legal lay-off (each run card chained to the run through laid-off cards) is tried, and the
  rest of the hand is scored as above.

Tie-break of the knocker's arrangement (``Rules.knocker_arrangement == "fewest_set_cards"``):
among minimum-deadwood arrangements, the fewest cards in sets, then the smallest set-card mask
read as a 52-bit number; runs are maximal.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np

from . import kernels
from .cards import (
    CARD_BITS,
    CARD_VALUES,
    NUM_CARDS,
    RANK_VALUES,
    as_card_list,
    bools_to_masks,
    cards_to_mask,
    mask_to_cards,
    masks_to_bools,
)
from .suit_tables import LOW_BIT_INDEX, RUN_BITS, RUN_VALUE, SUIT_BITS, SUIT_VALUE  # noqa: F401  (re-exported)

U64 = np.uint64
_SHIFTS = [U64(13 * s) for s in range(4)]

_SUIT_OF_CARD = np.arange(NUM_CARDS) // 13


def ranks_held_3plus(p0: np.ndarray | int, p1: np.ndarray | int, p2: np.ndarray | int,
                     p3: np.ndarray | int) -> np.ndarray | int:
    """The 13-bit mask of the ranks held at least 3 times, from the four suit patterns of a hand
    (numpy arrays or Python ints): a rank is in three of the four suits when it is in two of
    them and in one of the other two."""
    return (p0 & p1 & (p2 | p3)) | (p2 & p3 & (p0 | p1))


def suit_patterns(masks: np.ndarray) -> list[np.ndarray]:
    """The four 13-bit suit patterns (int64) of each mask."""
    m = np.asarray(masks, dtype=np.uint64).view(np.int64)  # 52-bit masks: the same bits, signed
    return [(m >> (13 * s)) & SUIT_BITS for s in range(4)]


#: the cards of a suit pattern in no stretch of 3+ consecutive ranks
_NOT_RUN = np.arange(8192, dtype=np.int64) & ~RUN_BITS
_SUIT_SHIFT_COL = np.array([0, 13, 26, 39], dtype=np.int64)[:, None]
#: _VALUE_AT_LEAST[t]: the cards whose value is at least t (t = 0..11)
_VALUE_AT_LEAST = np.array([sum(1 << c for c in range(NUM_CARDS) if CARD_VALUES[c] >= t) for t in range(12)],
                           dtype=np.uint64)


def _suit_rows(masks: np.ndarray) -> np.ndarray:
    """``(4, n)`` int64: the suit patterns of ``n`` masks, one row per suit."""
    m = np.asarray(masks, dtype=np.uint64).reshape(-1).view(np.int64)
    return (m >> _SUIT_SHIFT_COL) & SUIT_BITS


def _loose_rows(p: np.ndarray):
    """``(loose (4, n), loose value (n,))``: the cards of the suit rows ``p`` that fit in no meld
    at all (in no stretch of 3+ ranks of their suit, of no rank held 3+ times)."""
    loose = _NOT_RUN[p] & ~ranks_held_3plus(*p)
    return loose, SUIT_VALUE[loose].sum(axis=0)


def _set_ranks(p):
    """13-bit masks of the ranks held at least 3 times and 4 times."""
    p0, p1, p2, p3 = p
    return ranks_held_3plus(p0, p1, p2, p3), p0 & p1 & p2 & p3


def popcount(masks: np.ndarray | int) -> np.ndarray:
    """The number of cards of each 52-bit mask (int64)."""
    return np.bitwise_count(np.asarray(masks, dtype=np.uint64)).astype(np.int64)


def unmeldable_value(masks: np.ndarray) -> np.ndarray:
    """Value of the cards that fit in no meld at all: a lower bound on deadwood after discards."""
    return _loose_rows(_suit_rows(masks))[1].reshape(np.shape(masks))


# --- the set-choice expansion ----------------------------------------------------------------


def _choice_rows(masks: np.ndarray):
    """Expand each hand into its set choices and score each choice.

    Returns ``(row_hand, set_mask, deadwood, starts)``: for every row, the index of its hand,
    the cards in sets (uint64), the deadwood of the best runs with those sets; ``starts[i]`` is
    the first row of hand ``i`` (rows of one hand are contiguous, in hand order).
    """
    m = np.asarray(masks, dtype=np.uint64).reshape(-1)
    n = m.shape[0]
    p = suit_patterns(m)
    total = sum(SUIT_VALUE[q] for q in p)
    three, four = _set_ranks(p)
    # up to three candidate ranks per hand (at most 11 cards)
    slot_rank, slot_n = [], []
    rest = three.copy()
    for _ in range(3):
        r = LOW_BIT_INDEX[rest]
        has = rest != 0
        slot_rank.append(r)
        slot_n.append(np.where(has, np.where((four >> r) & 1 == 1, 6, 2), 1))
        rest = rest & (rest - 1)
    if np.any(rest):
        raise ValueError("a hand has more than three ranks held 3+ times; hands of at most 11 cards are supported")
    nopts = slot_n[0] * slot_n[1] * slot_n[2]
    if np.all(nopts == 1):  # no sets possible anywhere: one row per hand
        dw = total - sum(RUN_VALUE[q] for q in p)
        return np.arange(n), np.zeros(n, dtype=np.uint64), dw, np.arange(n)
    starts = np.cumsum(nopts) - nopts
    row_hand = np.repeat(np.arange(n), nopts)
    opt = np.arange(row_hand.shape[0]) - starts[row_hand]
    q = [pi[row_hand] for pi in p]
    set_value = np.zeros(row_hand.shape[0], dtype=np.int64)
    stride = np.ones(n, dtype=np.int64)
    for j in range(3):
        nj = slot_n[j][row_hand]
        o = (opt // stride[row_hand]) % nj
        stride = stride * slot_n[j]
        r = slot_rank[j][row_hand]
        bit = np.where(o >= 1, np.int64(1) << r, 0)
        for s in range(4):
            in_set = (q[s] & bit) != 0
            in_set &= o != s + 2  # options 2..5 leave suit (o - 2) out of the set
            q[s] = np.where(in_set, q[s] & ~bit, q[s])
            set_value += np.where(in_set, RANK_VALUES[r], 0)
    melded = set_value + sum(RUN_VALUE[qs] for qs in q)
    dw = total[row_hand] - melded
    set_mask = np.zeros(row_hand.shape[0], dtype=np.uint64)
    for s in range(4):
        removed = (p[s][row_hand] & ~q[s]).astype(np.uint64)
        set_mask |= removed << _SHIFTS[s]
    return row_hand, set_mask, dw, starts


#: below this many hands, :func:`min_deadwood_one` on each is faster than numpy's per-call cost
SMALL_BATCH = 128
#: the same for :func:`best_arrangement_masks` (:func:`best_arrangement_one`) and
#: :func:`layoff_masks` (:func:`layoff_one`): settlements come a few hands at a time
SMALL_BATCH_ARRANGEMENT = 64
SMALL_BATCH_LAYOFF = 16


def min_deadwood_masks(masks: np.ndarray) -> np.ndarray:
    """Minimum deadwood of each 52-bit hand mask (any size up to 11 cards).

    With numba (the ``fast`` extra) one compiled loop over the hands
    (:func:`hollywood_env.kernels.min_deadwood_many`, 6-20x faster from 16 hands to 20,000),
    else :func:`min_deadwood_batched`: the same numbers, tested against each other."""
    m = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    if kernels.AVAILABLE:
        out = np.empty(m.shape[0], dtype=np.int64)
        kernels.min_deadwood_many(m.view(np.int64), out)
        return out
    return min_deadwood_batched(m)


def min_deadwood_batched(masks: np.ndarray) -> np.ndarray:
    """:func:`min_deadwood_masks` in numpy: each hand expanded into its set choices
    (:func:`_choice_rows`), or :func:`min_deadwood_one` on each below :data:`SMALL_BATCH` hands."""
    m = np.asarray(masks, dtype=np.uint64).reshape(-1)
    if m.shape[0] < SMALL_BATCH:
        return np.array([min_deadwood_one(x) for x in m.tolist()], dtype=np.int64)
    _, _, dw, starts = _choice_rows(m)
    if dw.shape[0] == starts.shape[0]:
        return dw
    return np.minimum.reduceat(dw, starts)


def _arrangement_key(dw, set_mask):
    """Sort key of the knocker's tie-break: deadwood, then cards in sets, then the set mask."""
    return (dw.astype(np.int64) << 56) | (popcount(set_mask) << 52) | set_mask.astype(np.int64)


def run_mask_after_sets(masks: np.ndarray, set_mask: np.ndarray) -> np.ndarray:
    """The cards melded in (maximal) runs once ``set_mask`` is taken out of the hand."""
    rest = np.asarray(masks, dtype=np.uint64) & ~np.asarray(set_mask, dtype=np.uint64)
    out = np.zeros(rest.shape, dtype=np.uint64)
    for s, q in enumerate(suit_patterns(rest)):
        out |= RUN_BITS[q].astype(np.uint64) << _SHIFTS[s]
    return out


def best_arrangement_masks(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(deadwood, set_mask, run_mask)`` of the tie-broken minimum-deadwood arrangement."""
    m = np.asarray(masks, dtype=np.uint64).reshape(-1)
    if m.shape[0] < SMALL_BATCH_ARRANGEMENT:
        rows = [best_arrangement_one(x) for x in m.tolist()]
        out = np.array(rows, dtype=np.uint64).reshape(-1, 3).T
        return out[0].astype(np.int64), out[1].copy(), out[2].copy()
    _, set_mask, dw, starts = _choice_rows(m)
    key = _arrangement_key(dw, set_mask)
    best = np.minimum.reduceat(key, starts) if key.shape[0] != starts.shape[0] else key
    best_set = (best & np.int64((1 << 52) - 1)).astype(np.uint64)
    best_dw = best >> 56
    return best_dw, best_set, run_mask_after_sets(m, best_set)


def min_arrangement_rows(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """All minimum-deadwood set choices: ``(row_hand, set_mask, run_mask, deadwood)``."""
    m = np.asarray(masks, dtype=np.uint64).reshape(-1)
    row_hand, set_mask, dw, starts = _choice_rows(m)
    best = np.minimum.reduceat(dw, starts) if dw.shape[0] != starts.shape[0] else dw
    keep = dw == best[row_hand]
    row_hand, set_mask, dw = row_hand[keep], set_mask[keep], dw[keep]
    return row_hand, set_mask, run_mask_after_sets(m[row_hand], set_mask), dw


# --- discards and knocking -------------------------------------------------------------------


def _expand_discards(masks: np.ndarray, candidates: np.ndarray):
    """Rows (hand index, card) for every candidate card; the masks without that card."""
    bools = masks_to_bools(candidates)
    hand_idx, card = np.nonzero(bools)
    reduced = np.asarray(masks, dtype=np.uint64)[hand_idx] & ~CARD_BITS[card]
    return hand_idx, card, reduced


def deadwood_after_discard_masks(masks: np.ndarray) -> np.ndarray:
    """(N, 52) int: min deadwood of the hand without each held card; -1 where not held."""
    m = np.asarray(masks, dtype=np.uint64).reshape(-1)
    out = np.full((m.shape[0], NUM_CARDS), -1, dtype=np.int64)
    hand_idx, card, reduced = _expand_discards(m, m)
    out[hand_idx, card] = min_deadwood_masks(reduced)
    return out


def knock_discards(masks: np.ndarray, limits: np.ndarray | int, allowed: np.ndarray | None = None) -> np.ndarray:
    """uint64 mask, per hand, of the cards whose discard leaves deadwood <= ``limits``.

    ``allowed`` (uint64 masks, default: the hand) restricts the discards considered. Exact, but
    only hands that can possibly knock are evaluated in full.
    """
    return knock_discards_loose(masks, limits, allowed)[0]


def knock_discards_loose(masks: np.ndarray, limits: np.ndarray | int,
                         allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`knock_discards` and :func:`unmeldable_value` of the same hands, in one pass."""
    m = np.asarray(masks, dtype=np.uint64).reshape(-1)
    n = m.shape[0]
    limits = np.broadcast_to(np.asarray(limits, dtype=np.int64), (n,))
    allowed = m if allowed is None else np.asarray(allowed, dtype=np.uint64).reshape(-1) & m
    out = np.zeros(n, dtype=np.uint64)
    loose, loose_value = _loose_rows(_suit_rows(m))
    # The loose value is a lower bound on the deadwood after any discard, lowered by the
    # discarded card's value when that card is loose (at most 10): a discard can only reach the
    # limit when it is a loose card worth at least (loose value - limit), or when the loose value
    # is already within the limit (then every allowed discard is a candidate).
    need = loose_value - limits
    maybe = np.flatnonzero(need <= 10)
    if maybe.size == 0:
        return out, loose_value
    need = need[maybe]
    loose_mask = (loose[:, maybe] << _SUIT_SHIFT_COL).sum(axis=0).view(np.uint64)  # disjoint bits
    cand = allowed[maybe] & np.where(need <= 0, _VALUE_AT_LEAST[0], loose_mask & _VALUE_AT_LEAST[np.maximum(need, 0)])
    some = np.flatnonzero(cand)
    if some.size == 0:
        return out, loose_value
    maybe, cand = maybe[some], cand[some]
    hand_idx, card = np.nonzero(masks_to_bools(cand))
    reduced = m[maybe][hand_idx] & ~CARD_BITS[card]
    limit = limits[maybe][hand_idx]
    # the loose value of the 10 cards left is a sharper bound (a discard can leave its meld
    # partners loose): only the pairs within it are evaluated in full
    close = np.flatnonzero(_loose_rows(_suit_rows(reduced))[1] <= limit)
    ok = close[min_deadwood_masks(reduced[close]) <= limit[close]]
    np.bitwise_or.at(out, maybe[hand_idx[ok]], CARD_BITS[card[ok]])
    return out, loose_value


# --- lay-offs --------------------------------------------------------------------------------


_NOT_RANK_ACE = U64(sum(1 << (13 * s + r) for s in range(4) for r in range(1, 13)))
_NOT_RANK_KING = U64(sum(1 << (13 * s + r) for s in range(4) for r in range(12)))


def _grow(seed, through):
    """The cards of ``through`` (uint64 masks) connected to ``seed`` by chains of adjacent ranks
    of one suit (all four suits at once; a shift never crosses from one suit to the next)."""
    through = np.asarray(through, dtype=np.uint64)
    reach = np.asarray(seed, dtype=np.uint64) & through
    for _ in range(12):  # a chain is at most 12 steps long; most stop after one or two
        more = reach | ((((reach << U64(1)) & _NOT_RANK_ACE) | ((reach >> U64(1)) & _NOT_RANK_KING)) & through)
        if np.array_equal(more, reach):
            break
        reach = more
    return reach


def layoff_masks(defender: np.ndarray, knocker_set_mask: np.ndarray,
                 knocker_run_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The defender's best lay-offs onto the knocker's melds, with its own melds.

    Returns ``(final_deadwood, laid_off, defender_set_mask, defender_run_mask)``.
    """
    d = np.asarray(defender, dtype=np.uint64).reshape(-1)
    ks = np.asarray(knocker_set_mask, dtype=np.uint64).reshape(-1)
    kr = np.asarray(knocker_run_mask, dtype=np.uint64).reshape(-1)
    n = d.shape[0]
    if n < SMALL_BATCH_LAYOFF:
        rows = [layoff_one(*x) for x in zip(d.tolist(), ks.tolist(), kr.tolist(), strict=False)]
        out = np.array(rows, dtype=np.uint64).reshape(-1, 4).T
        return out[0].astype(np.int64), out[1].copy(), out[2].copy(), out[3].copy()
    dp, sp = suit_patterns(d), suit_patterns(ks)
    # 4th cards of the knocker's 3-card sets
    set_three, set_four = _set_ranks(sp)
    three_only = set_three & ~set_four
    targets = np.zeros(n, dtype=np.uint64)
    for s in range(4):
        missing = three_only & ~sp[s]
        targets |= (missing & dp[s]).astype(np.uint64) << _SHIFTS[s]
    reach = _grow(kr, d | kr) & ~kr
    cand = targets | reach
    k = popcount(cand)
    nrows = np.left_shift(1, k)
    starts = np.cumsum(nrows) - nrows
    row = np.repeat(np.arange(n), nrows)
    sub = np.arange(row.shape[0]) - starts[row]
    # deposit the bits of `sub` onto the candidate cards
    laid = np.zeros(row.shape[0], dtype=np.uint64)
    rest = cand[row]
    for j in range(int(k.max()) if n else 0):
        low = rest & (~rest + U64(1))
        take = ((sub >> j) & 1).astype(bool) & (rest != 0)
        laid |= np.where(take, low, U64(0))
        rest &= rest - U64(1)
    # legal: every card not laid on a set is chained to a knocker run through laid-off cards
    kr_row = kr[row]
    chained = _grow(kr_row, laid | kr_row) & ~kr_row
    valid = (laid & ~(chained | targets[row])) == 0
    rest_hand = d[row] & ~laid
    dw = np.where(valid, min_deadwood_masks(rest_hand), 10**6)
    # the first best row of each hand
    key = (dw << 20) | sub
    best = np.minimum.reduceat(key, starts)
    best_row = starts + (best & ((1 << 20) - 1))
    laid_best = laid[best_row]
    final, dset, drun = best_arrangement_masks(d & ~laid_best)
    return final, laid_best, dset, drun


# --- one hand as a Python int (the single-game fast path) -------------------------------------
# The same method as above, for one hand held in a Python int: at batch size 1 numpy's per-call
# overhead dominates, and the single-game engine path (core.step with B = 1, the AEC env) runs
# on these; so do the batched functions below their SMALL_BATCH sizes (the knocks of a step, its
# settlements, a few hands at a time, whatever B). Tested against the batched functions above on
# random and meld-rich hands (tests/engine/test_core_single.py, tests/engine/test_perf_paths.py).

_SUIT_VALUE_L = SUIT_VALUE.tolist()
_RUN_BITS_L = RUN_BITS.tolist()
_RUN_VALUE_L = RUN_VALUE.tolist()
_RANK_VALUE_L = RANK_VALUES.tolist()
_CARD_VALUE_L = CARD_VALUES.tolist()
#: the set choices of a rank held 3 times (none / the set) and 4 times (none / all four / the
#: four 3-card sets, leaving out suit 0..3); a choice is the suits it takes out of the hand
_SET_CHOICES_3 = (None, (0, 1, 2, 3))
_SET_CHOICES_4 = (None, (0, 1, 2, 3), (1, 2, 3), (0, 2, 3), (0, 1, 3), (0, 1, 2))


def min_deadwood_one(mask: int) -> int:
    """Minimum deadwood of one hand (a 52-bit Python int, up to 11 cards)."""
    p0, p1, p2, p3 = mask & SUIT_BITS, (mask >> 13) & SUIT_BITS, (mask >> 26) & SUIT_BITS, mask >> 39
    sv, rv = _SUIT_VALUE_L, _RUN_VALUE_L
    total = sv[p0] + sv[p1] + sv[p2] + sv[p3]
    three = ranks_held_3plus(p0, p1, p2, p3)
    if not three:
        return total - rv[p0] - rv[p1] - rv[p2] - rv[p3]
    four = p0 & p1 & p2 & p3
    # every combination of set choices, as (cards taken out of suits 0..3, their value)
    combos = [(0, 0, 0, 0, 0)]
    while three:
        low = three & -three
        three ^= low
        v = _RANK_VALUE_L[low.bit_length() - 1]
        if four & low:  # none, all four, or three of them (the fourth stays free for a run)
            choices = ((low, low, low, low, 4 * v), (0, low, low, low, 3 * v), (low, 0, low, low, 3 * v),
                       (low, low, 0, low, 3 * v), (low, low, low, 0, 3 * v))
        else:
            choices = ((p0 & low, p1 & low, p2 & low, p3 & low, 3 * v),)
        combos += [(a0 | c0, a1 | c1, a2 | c2, a3 | c3, av + cv)
                   for a0, a1, a2, a3, av in combos for c0, c1, c2, c3, cv in choices]
    best = total
    for r0, r1, r2, r3, v in combos:
        dw = total - v - rv[p0 ^ r0] - rv[p1 ^ r1] - rv[p2 ^ r2] - rv[p3 ^ r3]
        if dw < best:
            best = dw
    return best


def best_arrangement_one(mask: int) -> tuple[int, int, int]:
    """:func:`best_arrangement_masks` for one hand (a Python int): ``(deadwood, set_mask,
    run_mask)`` of the tie-broken minimum-deadwood arrangement."""
    p0, p1, p2, p3 = mask & SUIT_BITS, (mask >> 13) & SUIT_BITS, (mask >> 26) & SUIT_BITS, mask >> 39
    sv, rv, rb = _SUIT_VALUE_L, _RUN_VALUE_L, _RUN_BITS_L
    total = sv[p0] + sv[p1] + sv[p2] + sv[p3]
    three = ranks_held_3plus(p0, p1, p2, p3)
    if not three:
        return (total - rv[p0] - rv[p1] - rv[p2] - rv[p3], 0,
                rb[p0] | (rb[p1] << 13) | (rb[p2] << 26) | (rb[p3] << 39))
    four = p0 & p1 & p2 & p3
    ranks = []
    while three:
        low = three & -three
        ranks.append((low, _RANK_VALUE_L[low.bit_length() - 1], _SET_CHOICES_4 if four & low else _SET_CHOICES_3))
        three ^= low
    best_key, best_q = None, None
    for choice in itertools.product(*[r[2] for r in ranks]):
        q = [p0, p1, p2, p3]
        melded = set_mask = 0
        for (bit, value, _), suits in zip(ranks, choice, strict=True):
            if suits is None:
                continue
            for s in suits:
                if q[s] & bit:
                    q[s] ^= bit
                    melded += value
                    set_mask |= bit << (13 * s)
        dw = total - melded - rv[q[0]] - rv[q[1]] - rv[q[2]] - rv[q[3]]
        key = (dw << 56) | (set_mask.bit_count() << 52) | set_mask  # the tie-break of _arrangement_key
        if best_key is None or key < best_key:
            best_key, best_q = key, q
    q0, q1, q2, q3 = best_q
    return best_key >> 56, best_key & ((1 << 52) - 1), rb[q0] | (rb[q1] << 13) | (rb[q2] << 26) | (rb[q3] << 39)


_NOT_RANK_ACE_L, _NOT_RANK_KING_L = int(_NOT_RANK_ACE), int(_NOT_RANK_KING)


def _grow_one(seed: int, through: int) -> int:
    """:func:`_grow` for one pair of Python-int masks."""
    reach = seed & through
    while True:
        more = reach | ((((reach << 1) & _NOT_RANK_ACE_L) | ((reach >> 1) & _NOT_RANK_KING_L)) & through)
        if more == reach:
            return reach
        reach = more


def layoff_one(defender: int, knocker_set_mask: int, knocker_run_mask: int) -> tuple[int, int, int, int]:
    """:func:`layoff_masks` for one defender hand (Python ints): ``(final_deadwood, laid_off,
    defender_set_mask, defender_run_mask)``, the same candidates, subsets and tie-break."""
    d, ks, kr = defender, knocker_set_mask, knocker_run_mask
    sp = [(ks >> (13 * s)) & SUIT_BITS for s in range(4)]
    three_only = ranks_held_3plus(*sp) & ~(sp[0] & sp[1] & sp[2] & sp[3])
    targets = 0
    for s in range(4):
        targets |= (three_only & ~sp[s] & (d >> (13 * s)) & SUIT_BITS) << (13 * s)
    cand = targets | (_grow_one(kr, d | kr) & ~kr)
    cards = []
    while cand:
        low = cand & -cand
        cards.append(low)
        cand ^= low
    best_dw, best_laid = None, 0
    for sub in range(1 << len(cards)):  # in increasing order: ties go to the first subset
        laid = 0
        for j, bit in enumerate(cards):
            if sub >> j & 1:
                laid |= bit
        if laid & ~((_grow_one(kr, laid | kr) & ~kr) | targets):
            continue  # a run card not chained to a knocker's run
        dw = min_deadwood_one(d & ~laid)
        if best_dw is None or dw < best_dw:
            best_dw, best_laid = dw, laid
    final, dset, drun = best_arrangement_one(d & ~best_laid)
    return final, best_laid, dset, drun


def _loose_one(mask: int) -> tuple[int, int]:
    """:func:`unmeldable_value` for one hand, with the cards: ``(loose cards, their value)``."""
    p0, p1, p2, p3 = mask & SUIT_BITS, (mask >> 13) & SUIT_BITS, (mask >> 26) & SUIT_BITS, mask >> 39
    three = ranks_held_3plus(p0, p1, p2, p3)
    rb, sv = _RUN_BITS_L, _SUIT_VALUE_L
    l0, l1, l2, l3 = p0 & ~(rb[p0] | three), p1 & ~(rb[p1] | three), p2 & ~(rb[p2] | three), p3 & ~(rb[p3] | three)
    return l0 | (l1 << 13) | (l2 << 26) | (l3 << 39), sv[l0] + sv[l1] + sv[l2] + sv[l3]


def knock_discards_one(mask: int, limit: int, allowed: int) -> int:
    """:func:`knock_discards` for one hand: the cards of ``allowed`` whose discard leaves
    deadwood <= ``limit``, as a Python int mask."""
    loose, loose_value = _loose_one(mask)
    if loose_value > limit + 10:  # discarding a card lowers this lower bound by at most 10
        return 0
    out = 0
    rest = allowed & mask
    while rest:
        bit = rest & -rest
        rest ^= bit
        bound = loose_value - _CARD_VALUE_L[bit.bit_length() - 1] if loose & bit else loose_value
        if bound <= limit and min_deadwood_one(mask ^ bit) <= limit:
            out |= bit
    return out


def is_big_gin_one(mask: int) -> bool:
    """True when all the cards of one hand (11 for a big gin) fit in melds."""
    return _loose_one(mask)[0] == 0 and min_deadwood_one(mask) == 0


# --- readable wrappers -----------------------------------------------------------------------


def _as_masks(hands: np.ndarray) -> np.ndarray:
    hands = np.asarray(hands)
    if hands.dtype == np.uint64:
        return hands.reshape(-1)
    if hands.dtype != bool:
        raise TypeError(f"hands must be an (N, 52) bool array or uint64 masks, got dtype {hands.dtype}")
    if hands.ndim == 1:
        hands = hands[None, :]
    if hands.ndim != 2 or hands.shape[1] != NUM_CARDS:
        raise ValueError(f"hands must have shape (N, 52), got {hands.shape}")
    if np.any(hands.sum(axis=1) > 11):
        raise ValueError("hands of at most 11 cards are supported")
    return bools_to_masks(hands)


def min_deadwood(hands: np.ndarray) -> np.ndarray:
    """``(N, 52)`` bool hands (or uint64 masks) -> ``(N,)`` minimum deadwood."""
    return min_deadwood_masks(_as_masks(hands))


def deadwood_after_discard(hands: np.ndarray) -> np.ndarray:
    """``(N, 52)`` bool hands -> ``(N, 52)`` min deadwood without each held card, -1 elsewhere."""
    return deadwood_after_discard_masks(_as_masks(hands))


def melds_from_masks(set_mask: int, run_mask: int) -> list[list[int]]:
    """Split set and run cards into melds: sets by rank, runs as maximal stretches per suit."""
    melds = []
    cards = mask_to_cards(set_mask)
    for rank in range(13):
        group = [c for c in cards if c % 13 == rank]
        if group:
            melds.append(group)
    run_cards = set(mask_to_cards(run_mask))
    for suit in range(4):
        current: list[int] = []
        for rank in range(14):
            c = suit * 13 + rank
            if rank < 13 and c in run_cards:
                current.append(c)
            else:
                if current:
                    melds.append(current)
                current = []
    return melds


def best_arrangement(hand: str | Iterable[int | str] | np.ndarray) -> tuple[list[list[int]], int]:
    """The tie-broken minimum-deadwood arrangement of one hand: ``(melds, deadwood)``."""
    mask = np.array([cards_to_mask(as_card_list(hand))], dtype=np.uint64)
    dw, s, r = best_arrangement_masks(mask)
    return melds_from_masks(int(s[0]), int(r[0])), int(dw[0])


def layoffs(defender_hand: str | Iterable[int | str] | np.ndarray,
            knocker_melds: Iterable[str | Iterable[int | str]]) -> tuple[int, list[int], list[list[int]]]:
    """Optimal lay-offs of one defender hand onto the knocker's melds.

    Returns ``(final_deadwood, laid_off_cards, defender_melds)``.
    """
    d = np.array([cards_to_mask(as_card_list(defender_hand))], dtype=np.uint64)
    set_cards, run_cards = [], []
    for meld in knocker_melds:
        meld = as_card_list(meld)
        (set_cards if len({c % 13 for c in meld}) == 1 else run_cards).extend(meld)
    ks = np.array([cards_to_mask(set_cards)], dtype=np.uint64)
    kr = np.array([cards_to_mask(run_cards)], dtype=np.uint64)
    final, laid, dset, drun = layoff_masks(d, ks, kr)
    return int(final[0]), mask_to_cards(int(laid[0])), melds_from_masks(int(dset[0]), int(drun[0]))
