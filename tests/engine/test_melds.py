"""The batched meld code (hollywood_env.melds) against the brute force of hollywood_env.reference."""

import numpy as np
import pytest

from hollywood_env import melds as M
from hollywood_env import reference as R
from hollywood_env.cards import bools_to_masks, cards_to_mask, mask_to_cards, masks_to_bools, parse_cards
from hollywood_env.rules import Rules


def random_hands(rng, n, sizes=(10, 11)):
    """Half uniformly random hands, half meld-rich ones (drawn from 4 or 5 adjacent ranks)."""
    hands = []
    for i in range(n):
        size = int(sizes[i % len(sizes)])
        if i % 2 == 0:
            cards = rng.choice(52, size, replace=False)
        else:
            width = int(rng.integers(4, 6))
            low = int(rng.integers(0, 13 - width + 1))
            pool = [s * 13 + r for s in range(4) for r in range(low, low + width)]
            cards = rng.choice(pool, size, replace=False)
        hands.append(sorted(int(c) for c in cards))
    return hands


def to_masks(hands):
    return np.array([cards_to_mask(h) for h in hands], dtype=np.uint64)


@pytest.mark.parametrize("seed", range(4))
def test_min_deadwood_matches_brute_force(seed):
    # 4 x 25,000 = 100,000 hands of 10 and 11 cards, half meld-rich
    rng = np.random.default_rng(seed)
    hands = random_hands(rng, 25_000)
    fast = M.min_deadwood_masks(to_masks(hands))
    slow = np.array([R.brute_min_deadwood(h) for h in hands])
    bad = np.flatnonzero(fast != slow)
    assert bad.size == 0, [(R.C.format_cards(hands[i]), fast[i], slow[i]) for i in bad[:5]]


def test_min_deadwood_small_hands_and_bool_api():
    rng = np.random.default_rng(7)
    hands = [sorted(int(c) for c in rng.choice(52, k, replace=False)) for k in list(range(0, 12)) * 50]
    bools = masks_to_bools(to_masks(hands))
    fast = M.min_deadwood(bools)
    assert fast.tolist() == [R.brute_min_deadwood(h) for h in hands]


def test_deadwood_after_discard_matches_brute_force():
    rng = np.random.default_rng(11)
    hands = random_hands(rng, 3000, sizes=(11,))
    fast = M.deadwood_after_discard(masks_to_bools(to_masks(hands)))
    for i, h in enumerate(hands):
        expect = np.full(52, -1)
        for c in h:
            expect[c] = R.brute_min_deadwood([x for x in h if x != c])
        assert np.array_equal(fast[i], expect), R.C.format_cards(h)


def test_knock_discards_is_exact_for_every_limit():
    rng = np.random.default_rng(12)
    hands = random_hands(rng, 6000, sizes=(11,))
    masks = to_masks(hands)
    after = M.deadwood_after_discard_masks(masks)
    limits = rng.integers(0, 11, size=len(hands))
    allowed = masks & ~np.array([1 << int(rng.choice(h)) for h in hands], dtype=np.uint64)
    got = M.knock_discards(masks, limits, allowed)
    allowed_bools = masks_to_bools(allowed)
    expect = bools_to_masks((after >= 0) & (after <= limits[:, None]) & allowed_bools)
    assert np.array_equal(got, expect)
    assert np.count_nonzero(got) > 100  # the meld-rich half knocks often: the check is not vacuous


def test_the_discard_shortcut_hand():
    # 2c 2d 2h 3h 4h 5c 5d 5h 6c 7c 8c, 11 cards. Its best 11-card arrangement is
    #   [5c 5d 5h] [2h 3h 4h] [6c 7c 8c] + 2c 2d loose (deadwood 4),
    # so "best arrangement of 11, then drop the highest deadwood card" finds 2. But discarding 5d
    # leaves [2c 2d 2h] [3h 4h 5h] [5c 6c 7c 8c]: gin.
    hand = parse_cards("2c 2d 2h 3h 4h 5c 5d 5h 6c 7c 8c")
    five_d = parse_cards("5d")[0]
    assert M.min_deadwood_masks(to_masks([hand]))[0] == 4
    after = M.deadwood_after_discard(masks_to_bools(to_masks([hand])))[0]
    assert after[five_d] == 0
    assert np.flatnonzero(after == 0).tolist() == [five_d]
    assert R.brute_min_deadwood([c for c in hand if c != five_d]) == 0
    knock = M.knock_discards(to_masks([hand]), 0)
    assert mask_to_cards(int(knock[0])) == [five_d]


PICTURES = [
    # (hand, min deadwood)
    # 7h fits the set of sevens and the run 7h 8h 9h: set 7c7d7s + run 7h8h9h -> 0
    ("7c 7d 7h 7s 8h 9h Kc", 10),
    # four 5s split 3+1: 5c5d5s set and 5h 6h 7h run -> only Qd left
    ("5c 5d 5h 5s 6h 7h Qd", 10),
    # A-2-3 is a run (ace low)
    ("Ac 2c 3c 9d", 9),
    # Q-K-A is not a run (no wrap)
    ("Qs Ks As", 21),
    # J Q K of hearts with Kc Kd: run JQK leaves KcKd = 20, set KKK leaves JhQh = 20
    ("Jh Qh Kh Kc Kd", 20),
]


@pytest.mark.parametrize("hand,expect", PICTURES)
def test_meld_pictures(hand, expect):
    cards = parse_cards(hand)
    assert M.min_deadwood_masks(to_masks([cards]))[0] == expect
    assert R.brute_min_deadwood(cards) == expect


def test_knocker_arrangement_tie_break_matches_reference():
    rng = np.random.default_rng(3)
    hands = random_hands(rng, 4000, sizes=(10,))
    dw, sets, runs = M.best_arrangement_masks(to_masks(hands))
    for i, h in enumerate(hands):
        ref = R.brute_knocker_arrangement(h, Rules())
        got = sorted(tuple(m) for m in M.melds_from_masks(int(sets[i]), int(runs[i])))
        assert got == sorted(tuple(m) for m in ref), R.C.format_cards(h)
        assert dw[i] == R.brute_min_deadwood(h)


def test_tie_break_picture():
    # Ac 2c 3c / Ad 2d 3d / Ah 2h 3h: three runs or three sets, both 0 deadwood (+9s).
    # fewest_set_cards lays out the three runs.
    melds, dw = M.best_arrangement("Ac 2c 3c Ad 2d 3d Ah 2h 3h 9s")
    assert dw == 9
    assert sorted(melds) == sorted([parse_cards("Ac 2c 3c"), parse_cards("Ad 2d 3d"), parse_cards("Ah 2h 3h")])


def random_knock(rng):
    """A knocker hand (its min-deadwood melds) and a defender hand rich in lay-off cards."""
    while True:
        width = int(rng.integers(4, 7))
        low = int(rng.integers(0, 13 - width + 1))
        pool = [s * 13 + r for s in range(4) for r in range(low, low + width)]
        knocker = sorted(int(c) for c in rng.choice(pool, 10, replace=False))
        if R.brute_min_deadwood(knocker) <= 10:
            break
    rest = [c for c in range(52) if c not in knocker]
    near = [c for c in rest if c % 13 in range(max(0, low - 3), min(13, low + width + 3))]
    k = int(rng.integers(4, 11))
    defender = list(rng.choice(near, min(k, len(near)), replace=False))
    others = [c for c in rest if c not in defender]
    defender += list(rng.choice(others, 10 - len(defender), replace=False))
    return knocker, sorted(int(c) for c in defender)


def test_layoffs_match_brute_force():
    rng = np.random.default_rng(5)
    cases = [random_knock(rng) for _ in range(1500)]
    kmask = to_masks([k for k, _ in cases])
    dmask = to_masks([d for _, d in cases])
    _, ksets, kruns = M.best_arrangement_masks(kmask)
    final, laid, dsets, druns = M.layoff_masks(dmask, ksets, kruns)
    n_laid = 0
    for i, (k, d) in enumerate(cases):
        kmelds = M.melds_from_masks(int(ksets[i]), int(kruns[i]))
        ref_final, ref_laid, _ = R.brute_layoff(d, kmelds)
        assert final[i] == ref_final, (R.C.format_cards(k), R.C.format_cards(d))
        # what was laid off plus the defender's own melds account for the rest of the hand
        own = mask_to_cards(int(dsets[i]) | int(druns[i]))
        loose = set(d) - set(own) - set(mask_to_cards(int(laid[i])))
        assert sum(int(R.value(c)) for c in loose) == final[i]
        n_laid += bool(laid[i])
    assert n_laid > 300  # many cases do lay off


LAYOFF_PICTURES = [
    # (defender, knocker melds, final deadwood, laid off)
    # chain: 6h then 7h onto 3h 4h 5h
    ("6h 7h 9s", ["3h 4h 5h"], 9, "6h 7h"),
    # 4th card on a set
    ("Kd 2c", ["Kc Kh Ks"], 2, "Kd"),
    # no lay-off across a gap: 7h does not touch 3h 4h 5h
    ("7h 2c", ["3h 4h 5h"], 9, ""),
    # lay-off onto an extended run: 2h below and 6h 7h above 3h 4h 5h
    ("2h 6h 7h Ac", ["3h 4h 5h"], 1, "2h 6h 7h"),
    # the defender keeps its own set 6c 6d 6h rather than laying 6h off (then 7h cannot go)
    ("6c 6d 6h 7h 9s", ["3h 4h 5h"], 16, ""),
    # two runs of one suit, one card laid off on each: 5h above 2h-4h, 7h below 8h-Th
    ("5h 7h 2c", ["2h 3h 4h", "8h 9h Th"], 2, "5h 7h"),
]


@pytest.mark.parametrize("defender,kmelds,final,laid", LAYOFF_PICTURES)
def test_layoff_pictures(defender, kmelds, final, laid):
    got_final, got_laid, _ = M.layoffs(defender, [parse_cards(m) for m in kmelds])
    assert got_final == final
    assert sorted(got_laid) == sorted(parse_cards(laid))
    ref_final, _, _ = R.brute_layoff(parse_cards(defender), [tuple(parse_cards(m)) for m in kmelds])
    assert ref_final == final


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"\(N, 52\)"):
        M.min_deadwood(np.zeros((3, 51), dtype=bool))
    with pytest.raises(ValueError, match="at most 11"):
        M.min_deadwood(np.ones((1, 52), dtype=bool))
    with pytest.raises(TypeError):
        M.min_deadwood(np.zeros((3, 52), dtype=np.float32))
