"""Reward shaping (docs/rules.md section 6): modes, zero-sum, scoresheet sums, config kept on
reset."""

import dataclasses

import numpy as np
import pytest

import hollywood_env as H
from hollywood_env import Rules, core, melds
from hollywood_env.aec_env import raw_env
from hollywood_env.rewards import MODES, RewardConfig, resolve_reward, shaped_rewards, shaped_rewards_one
from hollywood_env.selfplay import SelfPlayBatch, random_legal_actions
from hollywood_env.vector_env import HollywoodGinEnv, HollywoodGinVectorEnv

FAST = Rules(target=30)  # matches end after a few hundred decisions of greedy play


def greedy_actions(state, mask, rng):
    """Discard the card that leaves the least deadwood, knock when possible, else random."""
    a = random_legal_actions(mask, rng)
    disc = np.flatnonzero(mask[:, :52].any(axis=1))
    if disc.size:
        hand = state.hands[disc, state.current_player[disc].astype(np.int64)]
        dw = melds.deadwood_after_discard_masks(hand).astype(float)
        dw = np.where(mask[disc, :52], dw, np.inf) + rng.random(dw.shape) * 0.5
        best = dw.argmin(axis=1)
        a[disc] = np.where(mask[disc, 52 + best], 52 + best, best)
    return a


def run_selfplay(mode, steps, rules=FAST, n=64, seed=0, per_hand=False):
    batch = SelfPlayBatch(n, rules=rules, reward=RewardConfig(mode=mode, per_hand_episodes=per_hand), seed=seed,
                          max_steps=None)
    obs, mask, _ = batch.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        before = batch.state.sheet.totals().sum(axis=2).copy()
        out = batch.step(greedy_actions(batch.state, mask, rng))
        mask = out[1]
        yield batch, before, out


# --- the config ---------------------------------------------------------------------------------


def test_reward_config_validation():
    assert RewardConfig().mode == "hollywood" and RewardConfig().scale == 1.0
    with pytest.raises(ValueError, match="unknown reward mode 'points'.*hand, hands, hollywood, games, match"):
        RewardConfig(mode="points")
    with pytest.raises(TypeError, match="scale must be a number"):
        RewardConfig(scale="big")
    with pytest.raises(ValueError, match="finite"):
        RewardConfig(scale=float("inf"))
    with pytest.raises(TypeError, match="per_hand_episodes must be a bool"):
        RewardConfig(per_hand_episodes="yes")
    assert resolve_reward(None) == RewardConfig()
    assert resolve_reward("games") == RewardConfig(mode="games")
    assert resolve_reward({"mode": "match", "scale": 2}) == RewardConfig("match", 2.0)
    assert resolve_reward("hand", per_hand_episodes=True).per_hand_episodes
    with pytest.raises(ValueError, match="unknown RewardConfig field"):
        resolve_reward({"mode": "hand", "gamma": 0.9})
    with pytest.raises(TypeError, match="reward must be"):
        resolve_reward(3)
    with pytest.raises(ValueError, match="unknown reward mode"):
        raw_env(reward="points")
    with pytest.raises(ValueError, match="unknown reward mode"):
        HollywoodGinVectorEnv(2, reward="points")
    with pytest.raises(ValueError, match="unknown reward mode"):
        SelfPlayBatch(2, reward="points")
    cfg = RewardConfig("hand")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.mode = "games"  # frozen


# --- the modes ------------------------------------------------------------------------------------


def test_hollywood_rewards_are_zero_sum_and_sum_to_the_scoresheet():
    cum = np.zeros((64, 2))
    ended = 0
    for batch, before, (_obs, _mask, _player, r, term, trunc, info) in run_selfplay("hollywood", 1500):
        assert np.array_equal(r[:, 0], -r[:, 1])
        st = batch.state
        after = st.sheet.totals().sum(axis=2)
        # each step: the change of the scoresheet totals / 100, made zero-sum
        stepped = ~info["autoreset"]
        change = ((after - before)[:, 0] - (after - before)[:, 1]) / 100.0
        np.testing.assert_allclose(r[stepped, 0], change[stepped], atol=1e-12)
        cum += r
        if term.any():
            # over a whole match: the difference of the final totals / 100
            diff = (after[:, 0] - after[:, 1]) / 100.0
            np.testing.assert_allclose(cum[term, 0], diff[term], atol=1e-9)
            ended += int(term.sum())
        cum[term | trunc] = 0
    assert ended >= 20


def test_hand_mode_pays_hand_points_to_the_winner():
    seen = 0
    for _batch, _, (_obs, _mask, _player, r, _term, _trunc, info) in run_selfplay("hand", 400):
        assert np.array_equal(r[:, 0], -r[:, 1])
        won = info["hand_ended"] & (info["hand_winner"] >= 0)
        expect = np.where(won, np.where(info["hand_winner"] == 0, 1, -1) * info["hand_points"] / 100.0, 0.0)
        np.testing.assert_allclose(r[:, 0], expect)
        seen += int(won.sum())
    assert seen > 50


def test_hands_mode_pays_one_per_hand_won_and_nothing_for_a_wall():
    won_seen = 0
    for _batch, _, (_obs, _mask, _player, r, _term, _trunc, info) in run_selfplay("hands", 400):
        assert np.array_equal(r[:, 0], -r[:, 1])
        won = info["hand_ended"] & (info["hand_winner"] >= 0)
        expect = np.where(won, np.where(info["hand_winner"] == 0, 1.0, -1.0), 0.0)
        np.testing.assert_array_equal(r[:, 0], expect)
        won_seen += int(won.sum())
    assert won_seen > 50


def test_games_mode_pays_one_per_game_won():
    total = np.zeros((64, 2))
    matches = 0
    for batch, _, (_obs, _mask, _player, r, term, trunc, info) in run_selfplay("games", 1500):
        assert np.array_equal(r[:, 0], -r[:, 1])
        assert set(np.unique(np.abs(r))) <= {0.0, 1.0, 2.0, 3.0}
        # paid exactly when games end, by their winners
        gw = batch.state.sheet.game_winner
        ge = info["games_ended"]
        np.testing.assert_array_equal(r[:, 0], (ge & (gw == 0)).sum(1) - (ge & (gw == 1)).sum(1))
        total += r
        for g in np.flatnonzero(term):
            wins = batch.state.sheet.game_winner[g]
            assert total[g, 0] == (wins == 0).sum() - (wins == 1).sum()
            matches += 1
        total[term | trunc] = 0
    assert matches >= 20


def test_match_mode_pays_the_match_winner_once():
    matches = 0
    for _batch, _, (_obs, _mask, _player, r, term, _trunc, info) in run_selfplay("match", 1500):
        assert np.array_equal(r[:, 0], -r[:, 1])
        assert np.all(r[~term] == 0)
        mw = info["match_winner"]
        np.testing.assert_array_equal(r[term, 0], np.where(mw[term] == 0, 1.0, np.where(mw[term] == 1, -1.0, 0.0)))
        matches += int(term.sum())
    assert matches >= 20


def test_scale_multiplies_every_mode():
    state = core.init(32, FAST, seed=4)
    rng = np.random.default_rng(4)
    checked = 0
    for _ in range(600):
        core.step(state, greedy_actions(state, state.legal_action_mask, rng))
        stepped = ~state.done | state.terminated
        for mode in MODES:
            base = shaped_rewards(state, RewardConfig(mode), stepped)
            scaled = shaped_rewards(state, RewardConfig(mode, scale=0.5), stepped)
            np.testing.assert_allclose(scaled, 0.5 * base)
            checked += int(np.any(base != 0))
        if state.done.any():
            core.reset_games(state, state.done)
    assert checked > 0


def test_one_game_rewards_equal_the_batched_rewards_in_every_mode():
    # shaped_rewards_one (the AEC env's) skips steps that end no hand: check it never differs
    state = core.init(32, FAST, seed=5)
    rng = np.random.default_rng(5)
    paid = dict.fromkeys(MODES, 0)
    for _ in range(600):
        running = ~state.done
        core.step(state, greedy_actions(state, state.legal_action_mask, rng))
        for mode in MODES:
            cfg = RewardConfig(mode, scale=0.5)
            batched = shaped_rewards(state, cfg, running)
            for g in np.flatnonzero(running):
                assert shaped_rewards_one(state, cfg, g) == tuple(batched[g]), (mode, g)
            paid[mode] += int(np.any(batched[running] != 0))
        if state.done.any():
            core.reset_games(state, state.done)
    assert all(n > 0 for n in paid.values()), paid


# --- the config survives every reset ------------------------------------------------------------


CFG = RewardConfig(mode="games", scale=2.0, per_hand_episodes=True)


def test_aec_env_keeps_its_reward_config_on_seeded_resets():
    e = raw_env(reward=CFG, rules=FAST)
    for seed in (1, 2, None, 3):
        e.reset(seed=seed)
        assert e.reward_config == CFG
    # and it acts on it: a per-hand episode ends at the first hand end, with games rewards
    e.reset(seed=5)
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter(2000):
        obs, rew, term, trunc, info = e.last()
        assert rew in (0.0, 2.0, -2.0, 4.0, -4.0, 6.0, -6.0)
        if term or trunc:
            e.step(None)
            continue
        st = e.state
        e.step(int(greedy_actions(st, st.legal_action_mask, rng)[0]))
        if any(e.terminations.values()):
            assert e.infos["player_0"]["hand_ended"]
    assert not e.agents  # the episode (one hand) ended


def test_vector_env_selfplay_and_gym_env_keep_their_reward_config():
    v = HollywoodGinVectorEnv(4, reward=CFG, rules=FAST)
    sp = SelfPlayBatch(4, reward=CFG, rules=FAST)
    g = HollywoodGinEnv(reward=CFG, rules=FAST)
    for seed in (1, None, 2):
        v.reset(seed=seed)
        sp.reset(seed=seed)
        g.reset(seed=seed)
        assert v.reward_config == CFG and sp.reward_config == CFG and g.reward_config == CFG
    e = H.env(reward=CFG)
    e.reset(seed=3)
    assert e.unwrapped.reward_config == CFG


@pytest.mark.parametrize("preset", ["hollywood", "oklahoma"])
def test_match_return_is_the_sum_of_the_step_rewards_in_every_mode(preset):
    """hollywood_env.rewards.match_return (what `hollywood evaluate --reward` reports) equals the
    step rewards of shaped_rewards summed over whole matches, for every mode in MODES."""
    from hollywood_env.rewards import match_return

    rules = Rules.preset(preset).replace(target=30)
    n = 48
    state = core.init(n, rules, seed=5)
    rng = np.random.default_rng(5)
    summed = {mode: np.zeros(n) for mode in MODES}
    points = np.zeros((n, 2))
    hands = np.zeros((n, 2))
    running = np.ones(n, dtype=bool)
    for _ in range(20000):
        if not running.any():
            break
        core.step(state, np.where(running, greedy_actions(state, state.legal_action_mask, rng), 0))
        for mode in MODES:
            summed[mode] += np.where(running, shaped_rewards(state, RewardConfig(mode=mode), running)[:, 0], 0.0)
        won = running & state.hand_ended & (state.hand_winner >= 0)
        points[won, state.hand_winner[won].astype(np.int64)] += state.hand_points[won]
        hands[won, state.hand_winner[won].astype(np.int64)] += 1
        running &= ~state.terminated
    assert not running.any(), "matches did not finish"
    gw = state.sheet.game_winner
    games = np.stack([(gw == 0).sum(axis=1), (gw == 1).sum(axis=1)], axis=1)
    totals = state.sheet.totals().sum(axis=2)
    for mode in MODES:
        expected = match_return(mode, points, totals, games, state.match_winner.astype(np.int64), hands_won=hands)
        np.testing.assert_allclose(summed[mode], expected, atol=1e-9, err_msg=mode)
        assert np.abs(expected).sum() > 0, mode  # the check saw non-zero returns
    with pytest.raises(ValueError, match="unknown reward mode 'nope'"):
        match_return("nope", points, totals, games, state.match_winner)
    with pytest.raises(ValueError, match="needs hands_won"):
        match_return("hands", points, totals, games, state.match_winner)
