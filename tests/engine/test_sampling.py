"""The batched random-legal-action sampler (hollywood_env.sampling): exact against a plain
reference, the same on every path, uniform (chi-square), and distributed like the simple
``argmax(random * mask)`` method."""

import math

import numpy as np
import pytest

from hollywood_env import core, sampling
from hollywood_env.actions import NUM_ACTIONS
from hollywood_env.sampling import random_legal_actions


def reference(masks, u):
    """The definition: the floor(u * c)-th legal action (from 0) of each row, 0 without any."""
    out = []
    for row, ui in zip(np.asarray(masks, dtype=bool), u, strict=True):
        legal = np.flatnonzero(row)
        out.append(int(legal[int(ui * legal.size)]) if legal.size else 0)
    return np.array(out, dtype=np.int64)


def random_masks(rng, n, a):
    """Rows of every density, plus empty, single-action and full rows."""
    density = rng.random((n, 1)) ** 2
    masks = rng.random((n, a)) < density
    masks[0] = False
    if n > 1:
        masks[1] = True
    if n > 2:
        masks[2] = False
        masks[2, a - 1] = True
    return masks


def game_masks(n=2048, seed=0):
    """Legal masks of real games (draw, discard and knock phases)."""
    rng = np.random.default_rng(seed)
    state = core.init(n, "hollywood", seed=seed)
    out = []
    for _ in range(60):
        out.append(state.legal_action_mask.copy())
        core.step(state, random_legal_actions(state.legal_action_mask, rng))
    return np.concatenate(out)


@pytest.mark.parametrize("a", [1, 5, 63, 64, 65, NUM_ACTIONS, 127, 128, 200])
@pytest.mark.parametrize("n", [1, 3, 7, 47, 100, 3000])
def test_equals_the_definition_on_every_path(n, a):
    masks = random_masks(np.random.default_rng(n * 1000 + a), n, a)
    got = random_legal_actions(masks, np.random.default_rng(5))
    u = np.random.default_rng(5).random(n)  # the sampler draws exactly rng.random(n)
    assert got.dtype == np.int64 and got.shape == (n,)
    assert np.array_equal(got, reference(masks, u))
    # each path on its own gives the same actions for the same floats
    assert np.array_equal(sampling._rows_one_by_one(masks, u), got)
    assert np.array_equal(sampling._cumsum_path(masks, u), got)
    if a <= 127:
        assert np.array_equal(sampling._bits_path(masks, u), got)


def test_game_masks_always_legal_and_exact():
    masks = game_masks()
    rng = np.random.default_rng(1)
    got = random_legal_actions(masks, rng)
    assert masks[np.arange(masks.shape[0]), got].all()
    u = np.random.default_rng(1).random(masks.shape[0])
    assert np.array_equal(got, reference(masks, u))
    # non-contiguous views and non-bool masks (the AEC env's int8 mask) are accepted
    assert np.array_equal(random_legal_actions(masks[::2], np.random.default_rng(2)),
                          random_legal_actions(masks[::2].copy().astype(np.int8), np.random.default_rng(2)))
    assert random_legal_actions(np.zeros((0, NUM_ACTIONS), dtype=bool), rng).shape == (0,)
    with pytest.raises(ValueError):
        random_legal_actions(np.ones(NUM_ACTIONS, dtype=bool), rng)


def chi2_critical(df: int, p: float = 1e-4) -> float:
    """Upper ``p`` quantile of chi-square with ``df`` degrees of freedom (Wilson-Hilferty)."""
    z = {1e-4: 3.719}[p]
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


@pytest.mark.parametrize("legal", [
    [104, 105],                                   # draw phase
    [105, 106],                                   # first upcard
    [3, 7, 11, 12, 20, 25, 31, 38, 40, 44, 51],   # 11 discards
    [3, 7, 11, 12, 20, 25, 31, 38, 40, 44, 51, 52 + 3, 52 + 7, 52 + 44, 107],  # discards, knocks, big gin
    list(range(0, NUM_ACTIONS, 3)),
    list(range(NUM_ACTIONS)),
])
def test_uniform_chi_square(legal):
    n = 60_000
    mask = np.zeros((n, NUM_ACTIONS), dtype=bool)
    mask[:, legal] = True
    got = random_legal_actions(mask, np.random.default_rng(len(legal)))
    counts = np.bincount(got, minlength=NUM_ACTIONS)
    assert counts.sum() == counts[legal].sum() == n
    expected = n / len(legal)
    chi2 = ((counts[legal] - expected) ** 2 / expected).sum()
    assert chi2 < chi2_critical(len(legal) - 1), (chi2, len(legal))


def test_same_distribution_as_the_simple_method():
    """Two-sample chi-square (homogeneity) of the actions chosen, per legal action, by this
    sampler and by ``argmax(random * mask)`` on the same game masks."""
    masks = game_masks(1024, seed=3)
    reps = 12
    big = np.tile(masks, (reps, 1))
    fast = random_legal_actions(big, np.random.default_rng(10))
    simple = np.argmax(np.random.default_rng(11).random(big.shape) * big, axis=1)
    assert big[np.arange(big.shape[0]), simple].all()
    # the actions taken, split by the number of legal actions of the row (pools rows alike)
    c = big.sum(axis=1)
    keys_fast = c * NUM_ACTIONS + fast
    keys_simple = c * NUM_ACTIONS + simple
    f = np.bincount(keys_fast, minlength=(NUM_ACTIONS + 1) * NUM_ACTIONS)
    s = np.bincount(keys_simple, minlength=(NUM_ACTIONS + 1) * NUM_ACTIONS)
    used = (f + s) >= 20
    f, s = f[used], s[used]
    tot = f + s
    ef, es = tot * f.sum() / (f.sum() + s.sum()), tot * s.sum() / (f.sum() + s.sum())
    chi2 = (((f - ef) ** 2) / ef + ((s - es) ** 2) / es).sum()
    assert used.sum() > 100
    assert chi2 < chi2_critical(int(used.sum()) - 1), (chi2, used.sum())


def test_deterministic_and_row_independent():
    masks = game_masks(512, seed=4)
    a = random_legal_actions(masks, np.random.default_rng(7))
    assert np.array_equal(a, random_legal_actions(masks, np.random.default_rng(7)))
    # row i depends only on the i-th float drawn: the first rows agree with a shorter batch
    assert np.array_equal(a[:300], random_legal_actions(masks[:300], np.random.default_rng(7)))


def test_users_share_the_sampler():
    from agents.bots import RandomBot
    from hollywood_env import observation as O
    from hollywood_env.selfplay import RandomOpponent
    from hollywood_env.selfplay import random_legal_actions as selfplay_sampler

    state = core.init(256, "hollywood", seed=2)
    rng = np.random.default_rng(0)
    for _ in range(7):
        core.step(state, random_legal_actions(state.legal_action_mask, rng))
    mask = state.legal_action_mask
    expected = random_legal_actions(mask, np.random.default_rng(9))
    assert np.array_equal(selfplay_sampler(mask, np.random.default_rng(9)), expected)
    assert np.array_equal(RandomOpponent(9)(None, mask), expected)
    assert np.array_equal(RandomBot("hollywood", seed=9)(O.encode(state), mask), expected)
