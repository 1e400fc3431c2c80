"""The batched engine against the scalar reference engine, plus invariants over many matches."""

import numpy as np
import pytest
from helpers import driver_policy, preset_seed

from hollywood_env import actions as A
from hollywood_env import core
from hollywood_env import melds as M
from hollywood_env.cards import CARD_VALUES, masks_to_bools
from hollywood_env.reference import ReferenceGame
from hollywood_env.rules import PRESETS, Rules


def check_invariants(state, before):
    """Invariants of one step (``before``: copies of fields before the step)."""
    running = ~state.terminated & ~state.truncated
    h0, h1 = state.hands[:, 0], state.hands[:, 1]
    assert not np.any(h0 & h1)
    stock = state.stock_size
    n_cards = M.popcount(h0) + M.popcount(h1) + state.pile_size + stock
    assert np.all(n_cards[running] == 52)
    # the stock and the pile hold exactly the cards not in hands
    pile_bits = np.zeros(state.batch_size, dtype=np.uint64)
    for j in range(52):
        on = j < state.pile_size
        pile_bits[on] |= np.uint64(1) << state.pile[on, j].astype(np.uint64)
    assert np.all((pile_bits & (h0 | h1))[running] == 0)
    # masks are never empty while the match is on, and empty once it is over
    assert np.all(state.legal_action_mask[running].any(axis=1))
    assert not state.legal_action_mask[~running].any()
    # column points change only when a hand ends, and only for its winner
    changed = (state.sheet.columns != before["columns"]).any(axis=2)  # (B, 2)
    fresh = before["done"]  # games reset between steps are excluded
    ok = ~fresh[:, None] & changed
    won = state.hand_ended & (state.hand_kind != A.KIND_WALL)
    assert np.all(won[ok.any(axis=1)])
    winner_onehot = state.hand_winner[:, None] == np.arange(2)[None, :]
    assert np.all(~ok | winner_onehot)
    # the wall comes exactly when a plain discard leaves wall_stock_size cards in the stock
    plain = (before["actions"] < A.KNOCK) & ~fresh
    walls = state.hand_kind == A.KIND_WALL
    expect_wall = plain & (before["stock"] == state.rules.wall_stock_size)
    assert np.array_equal(walls, expect_wall)


def play_and_compare(rules, n_games, seed, compare=True, max_decisions=20000):
    rng = np.random.default_rng(seed)
    state = core.init(n_games, rules, seed=seed)
    refs = [ReferenceGame(rules, int(state.match_seed[i])) for i in range(n_games)] if compare else None
    stats = {"hands": 0, "kinds": np.zeros(len(A.KIND_NAMES), dtype=int), "matches": 0}
    for _ in range(max_decisions):
        if state.terminated.all():
            break
        if compare:
            for i in np.flatnonzero(~state.terminated):
                ref = refs[i]
                legal = np.flatnonzero(state.legal_action_mask[i]).tolist()
                assert legal == ref.legal_actions(), f"game {i}: masks differ\n{ref.render()}"
                assert state.current_player[i] == ref.current_player
                assert state.phase[i] == ref.phase
                assert state.dealer[i] == ref.dealer
        actions = driver_policy(state, rng)
        before = {"columns": state.sheet.columns.copy(), "done": state.terminated.copy(),
                  "actions": np.where(state.terminated, A.NUM_ACTIONS, actions), "stock": state.stock_size.copy()}
        running = ~state.terminated
        core.step(state, actions)
        check_invariants(state, before)
        stats["hands"] += int(state.hand_ended.sum())
        stats["kinds"] += np.bincount(state.hand_kind[state.hand_ended], minlength=len(A.KIND_NAMES))
        if not compare:
            continue
        for i in np.flatnonzero(running):
            ref = refs[i]
            ref.step(int(actions[i]))
            assert state.rewards[i].tolist() == ref.last_rewards, f"game {i}: rewards"
            res = ref.last_hand
            assert bool(state.hand_ended[i]) == (res is not None), f"game {i}: hand end"
            if res is not None:
                got = (A.KIND_NAMES[state.hand_kind[i]], int(state.hand_winner[i]), int(state.hand_points[i]))
                assert got == (res.kind, res.winner, res.points), f"game {i}: {got} vs {res}"
                if res.kind != "wall":
                    assert state.knocker_deadwood[i] == res.knocker_deadwood
                    assert state.defender_deadwood[i] == res.defender_deadwood
                    assert state.hand_knocker[i] == res.knocker
                assert np.flatnonzero(state.games_ended[i]).tolist() == list(res.games_ended)
            assert np.array_equal(state.sheet.columns[i], ref.scoresheet.columns)
            assert np.array_equal(state.sheet.opened[i], ref.scoresheet.opened)
            assert bool(state.terminated[i]) == ref.terminated
            if ref.terminated:
                w = ref.scoresheet.match_winner
                assert state.match_winner[i] == (2 if w == -1 else w)
                assert np.array_equal(state.sheet.totals(np.array([i]))[0], ref.scoresheet.totals())
            else:
                assert [sorted(masks_to_bools(state.hands[i])[p].nonzero()[0].tolist()) for p in range(2)] == ref.hands
                assert state.stock_size[i] == len(ref.stock)
                assert state.knock_limit[i] == ref.knock_limit
    stats["matches"] = int(state.terminated.sum())
    return state, stats


@pytest.mark.parametrize("preset", list(PRESETS))
def test_engine_matches_reference(preset):
    state, stats = play_and_compare(Rules.preset(preset), n_games=24, seed=preset_seed(preset))
    assert stats["matches"] == 24, "every match should have finished"
    assert stats["kinds"][A.KIND_KNOCK] + stats["kinds"][A.KIND_GIN] > 0


@pytest.mark.parametrize("rules", [
    Rules(big_gin=True),
    Rules(knocker_arrangement="fewest_layoffs"),
    Rules(next_dealer="alternate", shutout="double_all", match_winner="total"),
    Rules(short_session=True, forbid_discard_of_taken_card=False),
    Rules(wall_stock_size=8, knock_limit=5, columns=2, target=60),
], ids=["big_gin", "fewest_layoffs", "alternate_double_all_total", "short_session", "wall8_knock5_c2"])
def test_engine_matches_reference_options(rules):
    state, stats = play_and_compare(rules, n_games=16, seed=5)
    assert stats["matches"] == 16


@pytest.mark.slow
@pytest.mark.parametrize("preset", list(PRESETS))
def test_engine_matches_reference_1000_matches(preset):
    state, stats = play_and_compare(Rules.preset(preset), n_games=1000, seed=1)
    assert stats["matches"] == 1000


def test_invariants_many_random_matches():
    # uniformly random legal play (mostly walls) over many games, invariants only
    rng = np.random.default_rng(0)
    state = core.init(512, "hollywood", seed=3)
    for _ in range(600):
        actions = np.argmax(rng.random(state.legal_action_mask.shape) * state.legal_action_mask, axis=1)
        before = {"columns": state.sheet.columns.copy(), "done": state.done.copy(),
                  "actions": np.where(state.done, A.NUM_ACTIONS, actions), "stock": state.stock_size.copy()}
        core.step(state, actions)
        check_invariants(state, before)
        if state.done.any():
            core.reset_games(state, state.done)


def test_illegal_action_raises_and_corrupts_nothing():
    state = core.init(4, "hollywood", seed=0)
    snapshot = (state.hands.copy(), state.phase.copy(), state.pile_size.copy())
    actions = np.argmax(state.legal_action_mask, axis=1)
    actions[2] = A.DRAW_STOCK  # first-upcard phase: only take or pass
    with pytest.raises(core.IllegalActionError,
                       match=r"illegal action 104 \(draw stock\) in game 2.*legal actions: 105 \(take discard\), 106 \(pass\)"):
        core.step(state, actions)
    assert np.array_equal(snapshot[0], state.hands) and np.array_equal(snapshot[1], state.phase)
    assert np.array_equal(snapshot[2], state.pile_size)
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        core.step(state, actions[:3])
    with pytest.raises(core.IllegalActionError, match="out of range"):
        core.step(state, np.full(4, 999))


def test_truncation_and_reset_of_chosen_games():
    state = core.init(6, "hollywood", seed=1, max_steps=10)
    rng = np.random.default_rng(0)
    for _ in range(10):
        core.step(state, np.argmax(rng.random(state.legal_action_mask.shape) * state.legal_action_mask, axis=1))
    assert state.truncated.all() and not state.terminated.any()
    assert not state.legal_action_mask.any()
    seeds_before = state.match_seed.copy()
    core.reset_games(state, np.array([1, 4]))
    assert not state.truncated[[1, 4]].any() and state.truncated[[0, 2, 3, 5]].all()
    assert (state.match_seed[[1, 4]] != seeds_before[[1, 4]]).all()
    assert state.legal_action_mask[[1, 4]].any(axis=1).all()


def test_games_are_independent_of_the_batch():
    # game 0 of a batch of 8 deals the same cards as a batch of 1 with the same seed
    big = core.init(8, "hollywood", seed=42)
    small = core.init(1, "hollywood", seed=core.slot_seeds(42, 8)[:1])
    assert big.hands[0].tolist() == small.hands[0].tolist()
    assert core.slot_seeds(42, 8)[0] == core.slot_seeds(42, 1)[0]


def test_same_seed_same_trajectory():
    def run(seed):
        rng = np.random.default_rng(0)
        s = core.init(32, "hollywood", seed=seed)
        trace = []
        for _ in range(300):
            a = driver_policy(s, rng)
            core.step(s, np.where(s.done, 0, a))
            trace.append((s.rewards.copy(), s.hands.copy()))
        return trace
    a, b, c = run(9), run(9), run(10)
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x[1], y[1]) for x, y in zip(a, c, strict=True))


def test_oklahoma_knock_limit_and_doubling():
    state = core.init(400, "oklahoma", seed=0)
    up = state.pile[:, 0].astype(np.int64)
    v = CARD_VALUES[up]
    assert np.array_equal(state.knock_limit, np.where(v == 1, 0, v))
    assert np.array_equal(state.multiplier, np.where(up // 13 == 3, 2, 1))
    s = core.init(10, "straight-gin", seed=0)
    assert (s.knock_limit == 0).all()
