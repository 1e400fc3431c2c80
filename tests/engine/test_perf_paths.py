"""The engine's speed paths against the plain ones: copies of games (core.take), the one-hand
settlement functions against the batched ones, the knock filter, and the legal-mask words."""

import dataclasses

import numpy as np
import pytest
from helpers import driver_policy, random_hands

from hollywood_env import core
from hollywood_env import melds as M
from hollywood_env.cards import masks_to_bools
from hollywood_env.sampling import random_legal_actions


def all_fields(state):
    out = {f.name: getattr(state, f.name) for f in dataclasses.fields(state)
           if isinstance(getattr(state, f.name), np.ndarray)}
    out.update({"sheet." + k: v for k, v in vars(state.sheet).items() if isinstance(v, np.ndarray)})
    return out


def assert_states_equal(a, b, where=""):
    fa, fb = all_fields(a), all_fields(b)
    assert fa.keys() == fb.keys()
    for k in fa:
        assert fa[k].dtype == fb[k].dtype, k
        assert np.array_equal(fa[k], fb[k]), f"{k} differs {where}"


@pytest.mark.parametrize("preset", ["hollywood", "oklahoma", "straight-gin"])
def test_take_copies_step_like_their_originals(preset):
    rng = np.random.default_rng(0)
    state = core.init(6, preset, seed=1, max_steps=400)
    for _ in range(25):
        core.step(state, driver_policy(state, rng))
    idx = np.array([4, 4, 0, 5, 4, 2, 2])
    copies = core.take(state, idx)
    assert copies.batch_size == idx.size
    assert_states_equal(copies, core.take(state, idx))
    for i, g in enumerate(idx):  # every field of copy i is game g's
        for k, v in all_fields(copies).items():
            assert np.array_equal(v[i], all_fields(state)[k][g]), k
    # stepping both with the same actions keeps them equal, through hand ends and new deals
    steps = ends = 0
    while steps < 600 and not state.done.all():
        actions = driver_policy(state, rng)
        before = all_fields(copies)
        core.step(state, actions)
        assert all(np.array_equal(v, all_fields(copies)[k]) for k, v in before.items()), "stepping the original changed a copy"
        core.step(copies, actions[idx])
        assert_states_equal(copies, core.take(state, idx), f"after step {steps}")
        ends += int(state.hand_ended.sum())
        steps += 1
    assert ends > 3
    # a bool mask selects in order; copies are independent of each other too
    sel = np.zeros(state.batch_size, dtype=bool)
    sel[[1, 3]] = True
    assert_states_equal(core.take(state, sel), core.take(state, [1, 3]))
    with pytest.raises(ValueError):
        core.take(state, np.zeros(state.batch_size, dtype=bool))
    with pytest.raises(IndexError):
        core.take(state, [state.batch_size])


def test_take_rollouts_of_one_position():
    """W copies of one position, rolled out to the hand's end with random legal actions."""
    rng = np.random.default_rng(3)
    state = core.init(4, "hollywood", seed=3)
    for _ in range(9):
        core.step(state, random_legal_actions(state.legal_action_mask, rng))
    w = 300
    roll = core.take(state, np.repeat(2, w))
    hand = roll.hand_number.copy()
    going = np.ones(w, dtype=bool)
    for _ in range(500):
        core.step(roll, random_legal_actions(roll.legal_action_mask, rng), games=going)
        going &= (roll.hand_number == hand) & ~roll.done
        if not going.any():
            break
    assert not going.any()
    # the copies share the position but their random play differs
    assert len(set(map(int, roll.step_count))) > 10
    assert int(core.take(state, [2]).step_count[0]) == int(state.step_count[2])


def test_one_hand_arrangements_and_layoffs_equal_the_batched_ones():
    rng = np.random.default_rng(11)
    hands = random_hands(rng, 8000)
    masks = np.array(hands, dtype=np.uint64)
    dw, sets, runs = M.best_arrangement_masks(masks)  # the numpy path (a large batch)
    assert [M.best_arrangement_one(h) for h in hands] == list(zip(dw.tolist(), sets.tolist(), runs.tolist(), strict=True))
    small = [M.best_arrangement_masks(masks[i:i + 5]) for i in range(0, 400, 5)]  # the one-hand path
    assert np.array_equal(np.concatenate([s[1] for s in small]), sets[:400])
    assert np.array_equal(np.concatenate([s[0] for s in small]), dw[:400])
    # defenders: 10 cards not in the knocker's hand, half of them next to the knocker's melds
    knockers, defenders = [], []
    for h in hands:
        if bin(h).count("1") != 10:
            continue
        free = [c for c in range(52) if not h >> c & 1]
        near = [c for c in free if any(h >> n & 1 for n in (c - 1, c + 1, c - 13, c + 13, c + 26, c - 26) if 0 <= n < 52)]
        pool = rng.permutation(near)[:5].tolist()
        pool += rng.permutation([c for c in free if c not in pool])[:10 - len(pool)].tolist()
        knockers.append(h)
        defenders.append(sum(1 << int(c) for c in pool))
    kn, de = np.array(knockers, dtype=np.uint64), np.array(defenders, dtype=np.uint64)
    _, ks, kr = M.best_arrangement_masks(kn)
    final, laid, dsets, druns = M.layoff_masks(de, ks, kr)
    one = [M.layoff_one(d, s, r) for d, s, r in zip(de.tolist(), ks.tolist(), kr.tolist(), strict=True)]
    assert one == list(zip(final.tolist(), laid.tolist(), dsets.tolist(), druns.tolist(), strict=True))
    assert int((laid != 0).sum()) > 300, "the sample should lay off often"
    few = [M.layoff_masks(de[i:i + 3], ks[i:i + 3], kr[i:i + 3]) for i in range(0, 300, 3)]
    assert np.array_equal(np.concatenate([f[1] for f in few]), laid[:300])


def test_knock_filter_and_loose_value():
    """knock_discards against the brute force on every discard, with its loose value."""
    rng = np.random.default_rng(5)
    hands = []
    for h in random_hands(rng, 6000):  # 11 cards: the meld-rich 10-card hands get one more card
        while bin(h).count("1") < 11:
            h |= 1 << int(rng.integers(52))
        hands.append(h)
    masks = np.array(hands, dtype=np.uint64)
    limits = rng.integers(0, 11, masks.size)
    allowed = masks & ~(np.uint64(1) << rng.integers(0, 52, masks.size).astype(np.uint64))
    knock, loose = M.knock_discards_loose(masks, limits, allowed)
    assert np.array_equal(loose, M.unmeldable_value(masks))
    after = M.deadwood_after_discard_masks(masks)  # -1 where not held
    brute = ((after >= 0) & (after <= limits[:, None]) & masks_to_bools(allowed))
    assert np.array_equal(masks_to_bools(knock), brute)
    assert (knock != 0).sum() > 40


def test_legal_words_unpack_to_the_mask():
    rng = np.random.default_rng(2)
    state = core.init(300, "hollywood", seed=2)
    for _ in range(40):
        core.step(state, driver_policy(state, rng))
        words = core._legal_words(state)
        running = ~state.done
        assert np.array_equal(core._words_to_mask(words)[running], state.legal_action_mask[running])
        assert np.array_equal(core.legal_action_mask(state)[running], state.legal_action_mask[running])
        idx = np.array([5, 2, 299])
        assert np.array_equal(core.legal_action_mask(state, idx), core.legal_action_mask(state)[idx])
