"""The single-game fast path (``core.step`` with one game, used by the AEC env) against the
batched path, and the Python-int meld functions it runs on against the batched ones."""

import dataclasses

import numpy as np
import pytest
from helpers import driver_policy, preset_seed, random_hands

from hollywood_env import actions as A
from hollywood_env import core, kernels
from hollywood_env import melds as M
from hollywood_env.rules import PRESETS, Rules


def test_python_int_melds_equal_the_batched_functions():
    rng = np.random.default_rng(7)
    hands = random_hands(rng, 20_000)
    masks = np.array(hands, dtype=np.uint64)
    assert [M.min_deadwood_one(h) for h in hands] == M.min_deadwood_batched(masks).tolist()
    # min_deadwood_batched itself takes the Python-int path below SMALL_BATCH hands
    expected = M.min_deadwood_batched(masks[:4000])
    small = [M.min_deadwood_batched(masks[:4000][i:i + M.SMALL_BATCH - 1]) for i in range(0, 4000, M.SMALL_BATCH - 1)]
    assert np.concatenate(small).tolist() == expected.tolist()
    assert M.min_deadwood_batched(np.zeros(0, dtype=np.uint64)).shape == (0,)
    # the public function (compiled with numba) gives the same numbers, whatever the array's shape
    assert M.min_deadwood_masks(masks).tolist() == expected.tolist() + M.min_deadwood_batched(masks[4000:]).tolist()
    strided = masks[:4000].reshape(40, 100)[:, ::2]
    assert M.min_deadwood_masks(strided).tolist() == expected.reshape(40, 100)[:, ::2].reshape(-1).tolist()
    assert M.min_deadwood_masks(np.zeros(0, dtype=np.uint64)).shape == (0,)
    limits = rng.integers(0, 11, len(hands))
    # a random card (held or not) is not allowed, as after taking the discard
    allowed = masks & ~(np.uint64(1) << rng.integers(0, 52, len(hands)).astype(np.uint64))
    got = [M.knock_discards_one(h, int(lim), int(a)) for h, lim, a in zip(hands, limits, allowed, strict=True)]
    expected = M.knock_discards(masks, limits, allowed)
    assert got == expected.tolist()
    assert sum(g != 0 for g in got) > 200, "the sample should contain many hands that can knock"
    big = [M.is_big_gin_one(h) for h in hands]
    assert big == (M.min_deadwood_masks(masks) == 0).tolist()
    assert sum(big) > 5


@pytest.mark.skipif(not kernels.AVAILABLE, reason="numba is switched off (HOLLYWOOD_GIN_NUMBA=0) or missing")
def test_compiled_melds_equal_the_python_int_melds():
    rng = np.random.default_rng(8)
    hands = random_hands(rng, 20_000)
    assert [kernels.min_deadwood(h) for h in hands] == [M.min_deadwood_one(h) for h in hands]
    # the deadwood and the cards some minimum arrangement leaves loose, as min_arrangement_rows has them
    masks = np.array(hands, dtype=np.uint64)
    ar, sets, runs, dw = M.min_arrangement_rows(masks)
    loose = np.zeros(len(hands), dtype=np.uint64)
    np.bitwise_or.at(loose, ar, masks[ar] & ~(sets | runs))
    best = np.zeros(len(hands), dtype=np.int64)
    best[ar] = dw
    got = [kernels.min_deadwood_loose(h) for h in hands]
    assert [g[0] for g in got] == best.tolist()
    assert [g[1] for g in got] == loose.astype(np.int64).tolist()
    assert sum(bin(g[1]).count("1") < bin(h).count("1") for g, h in zip(got, hands, strict=True)) > 1000
    many = np.full(len(hands), -1, dtype=np.int64)
    kernels.min_deadwood_many(np.array(hands, dtype=np.int64), many)
    assert many.tolist() == M.min_deadwood_batched(np.array(hands, dtype=np.uint64)).tolist()
    limits = rng.integers(0, 11, len(hands)).tolist()
    allowed = [h & ~(1 << int(c)) for h, c in zip(hands, rng.integers(0, 52, len(hands)), strict=True)]
    got = [kernels.knock_discards(h, lim, a) for h, lim, a in zip(hands, limits, allowed, strict=True)]
    assert got == [M.knock_discards_one(h, lim, a) for h, lim, a in zip(hands, limits, allowed, strict=True)]
    assert sum(g != 0 for g in got) > 200, "the sample should contain many hands that can knock"
    big = [kernels.is_big_gin(h) for h in hands]
    assert big == [M.is_big_gin_one(h) for h in hands] and sum(big) > 5
    # hands with sets of four, where the set choices multiply
    quads = [h for h in hands if any(((h >> r) & (h >> (13 + r)) & (h >> (26 + r)) & (h >> (39 + r))) & 1
                                     for r in range(13))]
    assert len(quads) > 50
    assert [kernels.min_deadwood(h) for h in quads] == [M.min_deadwood_one(h) for h in quads]


@pytest.mark.skipif(not kernels.AVAILABLE, reason="numba is switched off (HOLLYWOOD_GIN_NUMBA=0) or missing")
def test_compiled_deal_equals_deal_decks():
    from hollywood_env.cards import deal_decks

    rng = np.random.default_rng(9)
    seeds = rng.integers(0, 2**63, 500, dtype=np.int64).astype(np.uint64)
    seeds[:3] = [0, 1, 2**64 - 1]
    hands = rng.integers(0, 200, 500)
    expected = deal_decks(seeds, hands)
    for seed, hand, row in zip(seeds, hands, expected, strict=True):
        out = np.empty(52, dtype=np.int8)
        kernels.deal_deck(seed, hand, out)
        np.testing.assert_array_equal(out, row)


@pytest.mark.skipif(not kernels.AVAILABLE, reason="numba is switched off (HOLLYWOOD_GIN_NUMBA=0) or missing")
def test_packed_one_game_state_stays_consistent():
    import copy
    import pickle

    state = core.init(1, "hollywood", seed=4)
    buf = state.packed
    assert buf is not None and np.shares_memory(state.hands, buf) and np.shares_memory(state.legal_action_mask, buf)
    assert core.init(2, "hollywood", seed=4).packed is None
    rng = np.random.default_rng(4)
    for _ in range(40):
        core.step(state, driver_policy(state, rng))
    state.truncated |= False  # an in-place operator keeps the packing
    assert state.packed is buf
    for twin in (copy.deepcopy(state), pickle.loads(pickle.dumps(state)), core.take(state, [0])):
        assert twin.packed is None or not np.shares_memory(twin.packed, buf)
        actions = []
        for _ in range(60):  # the copy steps as the original does, and never changes it
            a = driver_policy(twin, rng)
            actions.append(a)
            core.step(twin, a)
        replay = core.take(state, [0])
        for a in actions:
            core.step(replay, a)
        assert_same_game(twin, replay, 0, "after the same actions")
    state.hands = state.hands.copy()  # rebinding a field drops the packing: the arrays path takes over
    assert state.packed is None
    core.step(state, driver_policy(state, rng))


def test_step_one_and_encode_one_refuse_bad_arguments(single_game_path):
    from hollywood_env.observation import encode_one

    state = core.init(1, "hollywood", seed=2)
    before = game_fields(state, 0)
    for bad, error in (("draw", TypeError), (True, TypeError), (1.0, TypeError), (500, core.IllegalActionError),
                       (-1, core.IllegalActionError), (2**70, core.IllegalActionError),
                       (A.DRAW_STOCK, core.IllegalActionError)):
        with pytest.raises(error):
            core.step_one(state, bad)
    with pytest.raises(ValueError, match="one-game state"):
        core.step_one(core.init(2, "hollywood", seed=2), A.PASS)
    for name, value in game_fields(state, 0).items():
        np.testing.assert_array_equal(value, before[name], err_msg=name)
    assert core.step_one(state, np.int64(A.PASS)) is True
    for game, viewer, error in ((1, None, IndexError), (-2, None, IndexError), (0, 2, ValueError), (0, -1, ValueError)):
        with pytest.raises(error):
            encode_one(state, game, viewer)
    np.testing.assert_array_equal(encode_one(state, -1), encode_one(state, 0))


def game_fields(state, g):
    out = {}
    for f in dataclasses.fields(state):
        value = getattr(state, f.name)
        if isinstance(value, np.ndarray):
            out[f.name] = value[g]
    for name in ("columns", "hands_scored", "opened", "game_winner"):
        out["sheet." + name] = getattr(state.sheet, name)[g]
    return out


def assert_same_game(single, batched, g, where):
    a, b = game_fields(single, 0), game_fields(batched, g)
    for name in a:
        if not np.array_equal(a[name], b[name]):
            raise AssertionError(f"{name} differs {where}: one-game path {a[name]}, batched path {b[name]}")


def play_both_paths(rules, n_matches, seed, max_steps=None):
    """Play ``n_matches`` in one batched state (batched path) and, action for action, each in
    its own one-game state (fast path); compare every field of every game after every step."""
    rng = np.random.default_rng(seed)
    slots = core.slot_seeds(seed, n_matches)
    batched = core.init(n_matches, rules, seed=slots, max_steps=max_steps)
    singles = [core.init(1, rules, seed=slots[i:i + 1], max_steps=max_steps) for i in range(n_matches)]
    counts = {"steps": 0, "knocks": 0}
    for i, single in enumerate(singles):
        assert_same_game(single, batched, i, "after init")
    while not batched.done.all():
        actions = driver_policy(batched, rng)
        running = np.flatnonzero(~batched.done)
        core.step(batched, actions)
        for i in running:
            core.step(singles[i], actions[i:i + 1])
            assert_same_game(singles[i], batched, i, f"after step {int(batched.step_count[i])} of game {i} "
                             f"(action {actions[i]} = {A.action_name(int(actions[i]))})")
        counts["steps"] += running.size
        chosen = actions[running]
        counts["knocks"] += int(np.sum(((chosen >= A.KNOCK) & (chosen < A.DRAW_STOCK)) | (chosen == A.BIG_GIN)))
    assert all(single.done[0] for single in singles)
    counts["matches"] = int(batched.terminated.sum())
    counts["truncated"] = int(batched.truncated.sum())
    # a new match in the same state goes on identically
    core.reset_games(singles[0], [0])
    core.reset_games(batched, [0])
    assert_same_game(singles[0], batched, 0, "after reset")
    counts["fast"] = sum(FAST_CALLS)
    return counts


FAST_CALLS: list = []  # 1 per one-game step the fast path handled, 0 per step it passed on


@pytest.fixture(autouse=True)
def count_fast_path(monkeypatch):
    original = core._step_one

    def counted(state, a):
        handled = original(state, a)
        FAST_CALLS.append(int(handled))
        return handled

    FAST_CALLS.clear()
    monkeypatch.setattr(core, "_step_one", counted)
    yield
    FAST_CALLS.clear()


@pytest.mark.parametrize("preset", list(PRESETS))
def test_single_game_path_equals_batched_path(preset, single_game_path):
    n = 6 if single_game_path == "compiled" else 3  # the slow test below plays 60 of each path
    counts = play_both_paths(Rules.preset(preset), n_matches=n, seed=preset_seed(preset))
    assert counts["matches"] == n
    assert counts["knocks"] > 0 and counts["fast"] > 0.8 * counts["steps"]


@pytest.mark.parametrize("rules", [
    Rules(big_gin=True),
    Rules(short_session=True, forbid_discard_of_taken_card=False),
    Rules(wall_stock_size=12, knock_limit=3, columns=2, target=60, next_dealer="alternate"),
], ids=["big_gin", "short_session_may_discard_taken", "wall12_knock3_alternate"])
def test_single_game_path_equals_batched_path_options(rules, single_game_path):
    n = 6 if single_game_path == "compiled" else 3
    counts = play_both_paths(rules, n_matches=n, seed=11)
    assert counts["matches"] == n and counts["fast"] > 0


def test_single_game_path_truncates_like_the_batched_path(single_game_path):
    counts = play_both_paths(Rules(), n_matches=6, seed=3, max_steps=23)
    assert counts["truncated"] == 6


def test_single_game_path_leaves_illegal_actions_and_finished_games_to_the_batched_checks(single_game_path):
    state = core.init(1, "hollywood", seed=0)
    with pytest.raises(core.IllegalActionError, match=r"illegal action 104 \(draw stock\) in game 0"):
        core.step(state, np.array([A.DRAW_STOCK]))
    with pytest.raises(core.IllegalActionError, match="out of range"):
        core.step(state, np.array([500]))
    state.terminated[0] = True
    before = game_fields(state, 0)
    core.step(state, np.array([A.DRAW_STOCK]))  # a finished game ignores its action
    after = game_fields(state, 0)
    for name in before:
        np.testing.assert_array_equal(before[name], after[name], err_msg=name)


@pytest.mark.slow
@pytest.mark.parametrize("preset", list(PRESETS))
def test_single_game_path_equals_batched_path_many_matches(preset, single_game_path):
    counts = play_both_paths(Rules.preset(preset), n_matches=60, seed=preset_seed(preset, offset=1000))
    assert counts["matches"] == 60
