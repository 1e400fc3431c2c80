"""The environments: PettingZoo AEC env, Gymnasium vector and single envs, the self-play batch."""

import copy
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils.env_logger import EnvLogger

import hollywood_env as H
from hollywood_env import Rules, aec_env, core, kernels, melds
from hollywood_env.actions import DRAW_STOCK, NUM_ACTIONS, PASS, TAKE_DISCARD
from hollywood_env.aec_env import raw_env
from hollywood_env.cards import bools_to_masks
from hollywood_env.observation import HAND, SheetCache, encode, encode_one, observation_size
from hollywood_env.selfplay import RandomOpponent, SelfPlayBatch, random_legal_actions
from hollywood_env.vector_env import HollywoodGinEnv, HollywoodGinVectorEnv

FAST = Rules(target=30)


def greedy_from_obs(obs, mask, rng):
    """A batched policy on observations only: knock when possible, else discard the card that
    leaves the least deadwood (ties random), else a random legal action."""
    a = random_legal_actions(mask, rng)
    disc = np.flatnonzero(mask[:, :52].any(axis=1))
    if disc.size:
        hand = bools_to_masks(obs[disc, HAND] > 0)
        dw = melds.deadwood_after_discard_masks(hand).astype(float)
        dw = np.where(mask[disc, :52], dw, np.inf) + rng.random(dw.shape) * 0.5
        best = dw.argmin(axis=1)
        a[disc] = np.where(mask[disc, 52 + best], 52 + best, best)
    return a


def scripted(obs, mask):
    """A deterministic opponent: a legal action picked by a hash of the observation."""
    out = np.empty(mask.shape[0], dtype=np.int64)
    for i in range(mask.shape[0]):
        legal = np.flatnonzero(mask[i])
        knocks = legal[(legal >= 52) & (legal < 104)]
        if knocks.size:
            out[i] = knocks[0]
            continue
        h = int(np.round(obs[i] * 997).astype(np.int64) @ np.arange(1, obs.shape[1] + 1)) % legal.size
        out[i] = legal[h]
    return out


# --- PettingZoo ---------------------------------------------------------------------------------


def test_pettingzoo_api_seed_and_render_tests():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test warns about the all-zero mask of the waiting agent
        api_test(H.env(), num_cycles=400)
        api_test(H.env(rules="gin-rummy", reward="match", per_hand_episodes=True), num_cycles=200)
    seed_test(H.env, num_cycles=300)
    render_test(H.env)


def test_aec_metadata_spaces_and_agents():
    e = H.env()
    assert e.metadata["name"] == "hollywood_gin_v0"
    assert e.metadata["is_parallelizable"] is False
    assert e.metadata["render_modes"] == ["ansi", "human", "rgb_array"] and "render_fps" in e.metadata
    e.reset(seed=0)
    assert e.possible_agents == ["player_0", "player_1"]
    space = e.observation_space("player_0")
    assert space["observation"].shape == (observation_size(Rules()),) == (347,)
    assert space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (NUM_ACTIONS,) and space["action_mask"].dtype == np.int8
    assert e.action_space("player_1") == gymnasium.spaces.Discrete(NUM_ACTIONS)
    obs, *_ = e.last()
    assert obs["action_mask"].sum() > 0
    other = [a for a in e.agents if a != e.agent_selection][0]
    assert e.observe(other)["action_mask"].sum() == 0
    # the observation table of hollywood_env.observation is in the env docstrings
    import hollywood_env.aec_env as aec_module
    import hollywood_env.observation as obs_module
    import hollywood_env.vector_env as vec_module
    for name in ("HAND", "PILE_TOP", "OPP_KNOWN", "OPP_DISCARDED", "OWN_DISCARDED", "STOCK", "PHASE", "SHEET"):
        assert f"``{name}``" in obs_module.__doc__
        assert f"``{name}``" in aec_module.__doc__ and f"``{name}``" in vec_module.__doc__


def test_aec_hand_end_info_rewards_and_render():
    e = raw_env(rules=FAST, render_mode="ansi")
    e.reset(seed=11)
    rng = np.random.default_rng(0)
    hands = 0
    total = {"player_0": 0.0, "player_1": 0.0}
    for agent in e.agent_iter(5000):
        obs, rew, term, trunc, info = e.last()
        total[agent] += rew
        if term or trunc:
            e.step(None)
            continue
        e.step(int(greedy_from_obs(obs["observation"][None], obs["action_mask"][None].astype(bool), rng)[0]))
        assert e.rewards["player_0"] == -e.rewards["player_1"]
        if e._last_summary is not None:
            hands += 1
            for a in e.agents:
                info = e.infos[a]
                assert info["hand_ended"] and info["kind"] in ("knock", "gin", "undercut", "wall")
                for key in ("points", "winner", "knocker", "knocker_deadwood", "defender_deadwood",
                            "columns_credited", "games_ended", "match_over"):
                    assert key in info
            text = e.render()
            assert "Hand over" in text and "Scoresheet" in text
            if e._last_summary["kind"] != "wall":
                assert "knocker" in text and "defender" in text
    assert hands >= 3
    # the match ended: the totals' difference, zero-sum
    assert e.state.terminated[0]
    t = e.state.sheet.totals()[0].sum(axis=1)
    assert total["player_0"] == pytest.approx((t[0] - t[1]) / 100)
    assert total["player_1"] == pytest.approx(-total["player_0"])


def test_aec_render_human_prints(capsys):
    e = raw_env(render_mode="human")
    e.reset(seed=1)
    assert e.render() is None
    assert "Scoresheet" in capsys.readouterr().out


def test_aec_per_hand_episodes_continue_the_match():
    e = raw_env(rules=FAST, per_hand_episodes=True)
    e.reset(seed=2)
    rng = np.random.default_rng(0)
    hand_numbers, sheets, continued = [], [], 0
    for _episode in range(6):
        for _agent in e.agent_iter(3000):
            obs, rew, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(greedy_from_obs(obs["observation"][None], obs["action_mask"][None].astype(bool), rng)[0]))
        assert not e.agents
        hand_numbers.append(int(e.state.hand_number[0]))
        sheets.append(e.state.sheet.totals()[0].sum())
        over = bool(e.state.terminated[0])
        e.reset()
        if over:
            assert e.state.hand_number[0] == 0  # a new match
        else:
            assert int(e.state.hand_number[0]) == hand_numbers[-1]  # the next hand of the same match
            assert e.state.sheet.totals()[0].sum() == sheets[-1]
            continued += 1
    assert continued >= 3


def test_aec_illegal_actions():
    e = raw_env()
    e.reset(seed=0)
    legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
    bad = next(a for a in range(NUM_ACTIONS) if a not in legal)
    with pytest.raises(core.IllegalActionError, match=rf"illegal action {bad} .* for {e.agent_selection}; legal actions: "):
        e.step(bad)
    with pytest.raises(ValueError, match="legal actions"):
        e.step(200)
    with pytest.raises(TypeError, match="one integer"):
        e.step(1.5)
    # the wrapped env: the illegal-move wrapper ends the game with -1 and a warning
    w = H.env()
    w.reset(seed=0)
    agent = w.agent_selection
    EnvLogger.mqueue.clear()
    w.step(bad)
    assert any("Illegal move" in m for m in EnvLogger.mqueue)
    assert all(w.terminations.values())
    assert w._cumulative_rewards[agent] == -1
    # the core names the game, the action and the legal ones
    st = core.init(3, seed=0)
    acts = np.array([np.flatnonzero(st.legal_action_mask[g])[0] for g in range(3)])
    acts[1] = 51 if not st.legal_action_mask[1, 51] else 50
    with pytest.raises(core.IllegalActionError, match=r"illegal action \d+ \(discard ..\) in game 1; legal actions: "):
        core.step(st, acts)


def _aec_record(make, seed: int, decisions: int) -> list:
    """Everything a user of the AEC env reads, call by call, over ``decisions`` random legal
    moves (resetting at each episode's end): the agent to act, ``last()``, both agents'
    observations, the rewards, terminations, truncations and infos."""
    e = make()
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(decisions):
        if not e.agents:
            e.reset()
            out.append("reset")
            continue
        agent = e.agent_selection
        last = e.last()
        views = {a: e.observe(a) for a in e.possible_agents}
        out.append((agent, last, views, dict(e.rewards), dict(e.terminations), dict(e.truncations),
                    copy.deepcopy(e.infos)))
        obs, _, term, trunc, _ = last
        legal = np.flatnonzero(obs["action_mask"])
        e.step(None if term or trunc else int(legal[rng.integers(legal.size)]))
    return out


def _assert_same_record(a, b, where="") -> None:
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b), where
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), (where, a, b)
        for k in a:
            _assert_same_record(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (where, a, b)
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_same_record(x, y, f"{where}[{i}]")
    else:
        assert a == b and type(a) is type(b), (where, a, b)


@pytest.mark.skipif(not kernels.AVAILABLE, reason="numba is switched off (HOLLYWOOD_GIN_NUMBA=0) or missing")
@pytest.mark.parametrize("kwargs", [
    dict(rules=Rules.preset("hollywood").replace(target=25, knock_limit=40, wall_stock_size=16)),
    dict(rules=Rules.preset("oklahoma").replace(target=30, wall_stock_size=22), per_hand_episodes=True),
    dict(rules=Rules(target=30, knock_limit=40, big_gin=True), reward="match", max_steps=90),
])
def test_aec_compiled_step_and_observation_equal_the_python_path(kwargs, monkeypatch):
    """With numba, a step that ends no hand is one compiled call that also writes the next
    agent's observation and mask ahead; without it every observation is encoded from the
    State at the call. Both give the same calls' results, for env() and raw_env: whole matches,
    per-hand episodes and truncation."""
    compiled_moves = []
    compiled = aec_env.step_observe_packed

    def counted(a, packed, out):
        code = compiled(a, packed, out)
        compiled_moves.append(code >= 0)
        return code

    monkeypatch.setattr(aec_env, "step_observe_packed", counted)
    makers = (lambda: H.env(**kwargs), lambda: raw_env(**kwargs))
    fast = [_aec_record(make, seed=5, decisions=700) for make in makers]
    assert sum(compiled_moves) > 0.8 * 700 * len(makers)
    monkeypatch.setattr(kernels, "AVAILABLE", False)  # the States made from now on are not packed
    compiled_moves.clear()
    slow = [_aec_record(make, seed=5, decisions=700) for make in makers]
    assert not compiled_moves
    for f, s in zip(fast, slow, strict=True):
        assert "reset" in f  # episodes ended
        _assert_same_record(f, s)


def test_aec_observations_are_the_callers_own():
    """Every observe() / last() returns fresh arrays: later steps, and changes the caller makes
    to them, change nothing else."""
    e = H.env(rules=FAST)
    e.reset(seed=3)
    rng = np.random.default_rng(3)
    kept = []
    for _ in range(300):
        if not e.agents:
            e.reset()
            continue
        obs, _, term, trunc, _ = e.last()
        again = e.observe(e.agent_selection)
        for key in ("observation", "action_mask"):
            assert not np.shares_memory(obs[key], again[key])
            np.testing.assert_array_equal(obs[key], again[key])
        kept.append({k: (v, v.copy()) for k, v in obs.items()})
        again["observation"][:] = -7  # the caller's to change
        again["action_mask"][:] = 1
        np.testing.assert_array_equal(e.observe(e.agent_selection)["observation"], obs["observation"])
        legal = np.flatnonzero(obs["action_mask"])
        e.step(None if term or trunc else int(legal[rng.integers(legal.size)]))
    for views in kept:  # nothing handed out was written again
        for value, copy_then in views.values():
            np.testing.assert_array_equal(value, copy_then)


def test_aec_env_copies_and_a_replaced_state():
    """A deep copy of the env's attributes steps on its own State, as the original does; a State
    put in ``env.state`` is read from (the observation prepared for the old one is not used)."""
    e = raw_env(rules=FAST)
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(25):
        obs, *_ = e.last()
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    twin = object.__new__(raw_env)
    twin.__dict__.update(copy.deepcopy(e.__dict__))
    for _ in range(200):
        if not e.agents:
            break
        obs, rew, term, trunc, info = e.last()
        _assert_same_record((obs, rew, term, trunc, info), twin.last())
        a = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(a)
        twin.step(a)
    other = core.init(1, FAST, seed=99)
    e.reset(seed=4)
    e.state = other
    p = int(other.current_player[0])
    np.testing.assert_array_equal(e.observe(e.possible_agents[p])["observation"], encode_one(other, 0, p))


def test_unknown_preset_and_bad_arguments():
    with pytest.raises(ValueError, match="unknown rules preset 'holywood'"):
        raw_env(rules="holywood")
    with pytest.raises(ValueError, match="unknown rules preset"):
        HollywoodGinVectorEnv(2, rules="holywood")
    with pytest.raises(ValueError, match="unknown rules preset"):
        SelfPlayBatch(2, rules="holywood")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb")
    with pytest.raises(ValueError, match="num_envs"):
        HollywoodGinVectorEnv(0)
    with pytest.raises(ValueError, match="max_steps"):
        raw_env(max_steps=0)
    # the env layer takes callables; naming agents is agents.registry's job
    with pytest.raises(ValueError, match=r"opponent 'simple': the env takes 'random' or a callable.*make_agent"):
        HollywoodGinVectorEnv(2, opponent="simple")
    with pytest.raises(TypeError, match="opponent must be 'random' or a callable"):
        HollywoodGinVectorEnv(2, opponent=3)


def test_vector_env_plays_a_registry_agent_passed_as_a_callable():
    from agents.registry import make_agent
    rng = np.random.default_rng(0)
    env = HollywoodGinVectorEnv(8, opponent=make_agent("simple", rules="hollywood", seed=3), seed=3)
    obs, info = env.reset(seed=3)
    for _ in range(150):
        obs, r, t, tr, info = env.step(random_legal_actions(info["action_mask"], rng))
    assert env.state.sheet.version.sum() > 0, "some hands should have been scored"


# --- Gymnasium ----------------------------------------------------------------------------------


def test_gymnasium_check_env_and_make():
    env = gymnasium.make("HollywoodGin-v0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    obs, info = env.reset(seed=0)
    assert obs.shape == (347,) and info["action_mask"].shape == (NUM_ACTIONS,)
    assert info["action_mask"].dtype == bool
    assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"])
    venv = gymnasium.make_vec("HollywoodGin-v0", num_envs=3, vectorization_mode="vector_entry_point", rules="gin-rummy")
    assert isinstance(venv.unwrapped, HollywoodGinVectorEnv) and venv.num_envs == 3
    assert venv.unwrapped.rules.columns == 1


def test_single_env_illegal_action_modes():
    env = HollywoodGinEnv()
    obs, info = env.reset(seed=0)
    bad = int(np.flatnonzero(~info["action_mask"])[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obs, r, term, trunc, info = env.step(bad)
    assert r == -1.0 and term and info["illegal_action"]
    env = HollywoodGinEnv(illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(core.IllegalActionError, match=rf"illegal action {bad} .* env 0"):
        env.step(bad)


def test_vector_env_spaces_seats_and_masks():
    for rules in (Rules(knock_limit=25, target=10), Rules.preset("oklahoma")):
        w = HollywoodGinVectorEnv(4, rules=rules)
        obs, info = w.reset(seed=0)
        for _ in range(100):
            assert obs in w.observation_space
            obs, *_, info = w.step(random_legal_actions(info["action_mask"], np.random.default_rng(0)))
    v = HollywoodGinVectorEnv(6, seed=0, rules=FAST)
    assert v.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    assert v.single_observation_space.shape == (347,) and v.single_action_space.n == NUM_ACTIONS
    assert v.observation_space.shape == (6, 347)
    assert isinstance(v.single_observation_space, gymnasium.spaces.Box)
    obs, info = v.reset(seed=1)
    assert np.array_equal(v.learner_seat, [0, 1, 0, 1, 0, 1])
    rng = np.random.default_rng(0)
    for _ in range(300):
        st = v.state
        # the learner is to act in every env, and sees its own hand
        live = ~v._waiting
        assert np.all(st.current_player[live] == v.learner_seat[live])
        hands = bools_to_masks(obs[:, HAND] > 0)
        assert np.array_equal(hands[live], st.hands[np.arange(6), v.learner_seat][live])
        assert obs in v.observation_space
        assert np.array_equal(info["action_mask"], v.action_masks())
        assert info["action_mask"].shape == (6, NUM_ACTIONS) and info["action_mask"].dtype == bool
        obs, r, term, trunc, info = v.step(greedy_from_obs(obs, info["action_mask"], rng))


def test_vector_env_next_step_autoreset():
    v = HollywoodGinVectorEnv(8, seed=0, rules=FAST, reward="match", per_hand_episodes=False)
    obs, info = v.reset(seed=3)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(1500):
        acts = greedy_from_obs(obs, info["action_mask"], rng)
        waiting = v._waiting.copy()
        acts[waiting] = 0  # ignored: any value is accepted while an env waits for its reset
        obs, r, term, trunc, info = v.step(acts)
        assert np.all(r[waiting] == 0) and not term[waiting].any()
        assert np.all(v.state.hand_number[waiting] == 0)  # the reset started a new match
        assert np.all(np.isin(r[term], [-1.0, 0.0, 1.0]))
        assert np.all(info["action_mask"][term | trunc])
        ends += int(term.sum())
    assert ends >= 4


def test_vector_env_per_hand_episodes():
    v = HollywoodGinVectorEnv(4, seed=0, rules=FAST, per_hand_episodes=True)
    obs, info = v.reset(seed=5)
    rng = np.random.default_rng(2)
    episodes = continued = 0
    ended_at = np.full(4, -1)
    for _ in range(600):
        obs, r, term, trunc, info = v.step(greedy_from_obs(obs, info["action_mask"], rng))
        st = v.state
        # after an auto-reset: the next hand of the same match, unless the match ended
        back = ended_at >= 0
        assert np.all(st.hand_number[back] >= ended_at[back])
        continued += int(back.sum())
        ended_at[:] = -1
        # an episode ends exactly when a hand ends (in that env)
        episodes += int(term.sum())
        assert np.all(info["hands_ended"][term] >= 1)
        assert np.all(info["hands_ended"][~term] == 0)
        going = term & ~st.terminated & ~st.truncated
        ended_at[going] = st.hand_number[going]
    assert episodes >= 10 and continued >= 10


def test_vector_env_bad_input():
    v = HollywoodGinVectorEnv(4, seed=0)
    obs, info = v.reset(seed=0)
    acts = random_legal_actions(info["action_mask"], np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"actions must have shape \(4,\) \(one per env\), got shape \(3,\)"):
        v.step(acts[:3])
    with pytest.raises(ValueError, match="shape"):
        v.step(acts.reshape(2, 2))
    with pytest.raises(TypeError, match="integers"):
        v.step(np.full(4, 0.5))
    bad = acts.copy()
    bad[2] = int(np.flatnonzero(~info["action_mask"][2])[0])
    with pytest.raises(core.IllegalActionError, match=rf"illegal action {bad[2]} .* in env 2; legal actions: "):
        v.step(bad)
    # nothing changed: the legal actions still step
    v.step(acts)

    def wrong_shape(o, m):
        return np.zeros(m.shape[0] + 1, dtype=np.int64)

    v = HollywoodGinVectorEnv(4, opponent=wrong_shape)
    with pytest.raises(ValueError, match="opponent must return one action per env"):
        v.reset(seed=0)
    v = HollywoodGinVectorEnv(4, opponent=lambda o, m: np.full(m.shape[0], 107))
    with pytest.raises(core.IllegalActionError, match="the opponent played the illegal action 107"):
        v.reset(seed=0)


# --- the three APIs agree -------------------------------------------------------------------------


def _aec_trajectory(seed, steps, rules=FAST, choose=None):
    """Play the AEC env; returns per decision (agent, obs, mask, rewards dict after the step)."""
    e = raw_env(rules=rules)
    e.reset(seed=seed)
    out = []
    for i in range(steps):
        agent = e.agent_selection
        obs = e.observe(agent)
        if e.terminations[agent] or e.truncations[agent]:
            # next match, as an auto-reset does
            e.reset()
            continue
        a = choose(i, agent, obs)
        e.step(a)
        out.append((agent, obs["observation"], obs["action_mask"].astype(bool), a, dict(e.rewards),
                    e.terminations[agent]))
    return out


def test_aec_env_equals_game_0_of_the_selfplay_batch():
    seed = 7
    rng = np.random.default_rng(0)
    actions = []

    def choose(i, agent, obs):
        a = int(greedy_from_obs(obs["observation"][None], obs["action_mask"][None].astype(bool), rng)[0])
        actions.append(a)
        return a

    traj = _aec_trajectory(seed, 900, choose=choose)
    batch = SelfPlayBatch(5, rules=FAST, seed=seed, max_steps=5000)
    obs, mask, player = batch.reset()
    other = np.random.default_rng(1)
    ends = 0
    k = 0
    while k < len(traj):
        agent, aobs, amask, a, rewards, ended = traj[k]
        if batch._waiting[0]:  # the AEC env was reset here: the auto-reset step
            acts = random_legal_actions(mask, other)
            obs, mask, player, r, term, trunc, info = batch.step(acts)
            continue
        assert agent == f"player_{player[0]}"
        np.testing.assert_array_equal(obs[0], aobs)
        np.testing.assert_array_equal(mask[0], amask)
        acts = random_legal_actions(mask, other)
        acts[0] = a
        obs, mask, player, r, term, trunc, info = batch.step(acts)
        assert r[0, 0] == rewards["player_0"] and r[0, 1] == rewards["player_1"]
        assert bool(term[0]) == ended
        ends += int(term[0])
        k += 1
    assert ends >= 1


def test_aec_env_equals_the_vector_env_learner_view():
    for seeds, env_index in (([21, 22, 23], 0), ([31, 32, 33], 1)):
        learner = f"player_{env_index % 2}"
        rng = np.random.default_rng(env_index)
        learner_actions = []
        e = raw_env(rules=FAST)
        e.reset(seed=seeds[env_index])
        views = []  # (obs, mask, reward accumulated since the learner's last move, terminated)
        for agent in e.agent_iter(1200):
            obs_d, rew, term, trunc, info = e.last()
            if agent == learner:
                views.append((obs_d["observation"], obs_d["action_mask"].astype(bool), rew, term))
            if term or trunc:
                e.step(None)
                continue
            x, m = obs_d["observation"][None], obs_d["action_mask"][None].astype(bool)
            if agent == learner:
                a = int(greedy_from_obs(x, m, rng)[0])
                learner_actions.append(a)
            else:
                a = int(scripted(x, m)[0])
            e.step(a)
        v = HollywoodGinVectorEnv(3, opponent=scripted, rules=FAST, per_hand_episodes=False)  # whole matches
        obs, info = v.reset(seed=seeds)
        other = np.random.default_rng(9)
        v_rew = v_term = None  # the vector env's last step, which each later learner view must match
        for j, (aobs, amask, arew, aterm) in enumerate(views):
            if j > 0:
                assert v_rew[env_index] == pytest.approx(arew)
                assert bool(v_term[env_index]) == aterm
            if aterm:
                break
            np.testing.assert_array_equal(obs[env_index], aobs)
            np.testing.assert_array_equal(info["action_mask"][env_index], amask)
            acts = greedy_from_obs(obs, info["action_mask"], other)
            acts[env_index] = learner_actions[j]
            obs, v_rew, v_term, _trunc, info = v.step(acts)
        assert len(views) > 20 and views[-1][3]  # compared through the end of the match


# --- no information leak ------------------------------------------------------------------------


def test_observations_do_not_depend_on_hidden_cards_or_stock_order(single_game_path):
    rng = np.random.default_rng(0)
    for rules in (Rules(), Rules.preset("oklahoma")):
        state = core.init(128, rules, seed=5)
        checked = 0
        for step in range(240):
            core.step(state, random_legal_actions(state.legal_action_mask, rng))
            if state.done.any():
                core.reset_games(state, state.done)
            if step % 20:
                continue
            base = encode(state)
            base_other = encode(state, 1 - state.current_player.astype(np.int64))
            for g in range(state.batch_size):
                me = int(state.current_player[g])
                opp = 1 - me
                stock = state.deck[g, state.stock_pos[g]:].astype(np.int64)
                hidden = [c for c in range(52) if (int(state.hands[g, opp]) >> c) & 1 and not (int(state.known[g, opp]) >> c) & 1]
                if stock.size < 2 or not hidden:
                    continue
                saved = (state.hands.copy(), state.deck.copy())
                # swap a hidden card of the opponent with a stock card, and shuffle the unread stock
                h = int(rng.choice(hidden))
                pos = int(state.stock_pos[g] + rng.integers(stock.size))
                s = int(state.deck[g, pos])
                state.hands[g, opp] = (state.hands[g, opp] & ~np.uint64(1 << h)) | np.uint64(1 << s)
                state.deck[g, pos] = h
                tail = state.deck[g, state.stock_pos[g]:].copy()
                state.deck[g, state.stock_pos[g]:] = rng.permutation(tail)
                np.testing.assert_array_equal(encode(state, None, [g])[0], base[g])
                np.testing.assert_array_equal(encode_one(state, g), base[g])
                state.hands, state.deck = saved
                checked += 1
            # the other player's view is not the same thing (sanity)
            assert not np.array_equal(base, base_other)
        assert checked > 200


# --- the self-play batch ------------------------------------------------------------------------


def test_selfplay_batch_api_and_autoreset():
    batch = SelfPlayBatch(16, rules=FAST, reward="hollywood", seed=0)
    obs, mask, player = batch.reset()
    assert obs.shape == (16, 347) and obs.dtype == np.float32
    assert mask.shape == (16, NUM_ACTIONS) and mask.dtype == bool
    assert player.shape == (16,)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(800):
        waiting = batch._waiting.copy()
        acts = greedy_from_obs(obs, mask, rng)
        acts[waiting] = 999  # ignored
        obs, mask, player, r, term, trunc, info = batch.step(acts)
        assert r.shape == (16, 2) and np.array_equal(r[:, 0], -r[:, 1])
        assert np.all(r[waiting] == 0)
        np.testing.assert_array_equal(obs, encode(batch.state))
        assert np.all(mask[term | trunc])
        assert np.all(batch.state.hand_number[waiting] == 0)
        ends += int(term.sum())
    assert ends >= 2
    with pytest.raises(ValueError, match=r"shape \(16,\)"):
        batch.step(np.zeros(15, dtype=np.int64))
    bad = np.array([np.flatnonzero(m)[0] for m in mask])
    g = int(np.flatnonzero(~batch._waiting)[0])
    bad[g] = int(np.flatnonzero(~mask[g])[0])
    with pytest.raises(core.IllegalActionError, match=rf"in game {g}; legal actions"):
        batch.step(bad)


def test_random_opponent_is_uniform_over_legal_actions():
    rng = np.random.default_rng(0)
    masks = np.zeros((60000, NUM_ACTIONS), dtype=bool)
    masks[:, [0, 51, 63, 64, 100, DRAW_STOCK, TAKE_DISCARD, PASS]] = True
    a = random_legal_actions(masks, rng)
    values, counts = np.unique(a, return_counts=True)
    assert list(values) == [0, 51, 63, 64, 100, DRAW_STOCK, TAKE_DISCARD, PASS]
    assert counts.min() > 0.9 * 60000 / 8
    m = rng.random((500, NUM_ACTIONS)) < 0.2
    a = RandomOpponent(1)(None, m)
    assert np.all(m[np.arange(500), a] | ~m.any(axis=1))
    assert np.array_equal(RandomOpponent(3)(None, m), RandomOpponent(3)(None, m))


def _knock_first(obs, mask):
    """Knock as soon as possible; take the first upcard; else the first legal action."""
    out = np.empty(mask.shape[0], dtype=np.int64)
    for i, m in enumerate(mask):
        legal = np.flatnonzero(m)
        knocks = legal[(legal >= 52) & (legal < 104)]
        out[i] = knocks[0] if knocks.size else (TAKE_DISCARD if m[TAKE_DISCARD] else legal[0])
    return out


def test_vector_env_opponent_moves_during_resets():
    # knock limit 100: whoever acts first can end the hand at once, so the opponent often scores
    # before the learner's first decision; those rewards reach the learner's next step
    rules = Rules(knock_limit=100, target=30)
    v = HollywoodGinVectorEnv(8, opponent=_knock_first, rules=rules, reward="hollywood", per_hand_episodes=False)
    obs, info = v.reset(seed=4)
    rng = np.random.default_rng(0)
    cum = np.zeros(8)
    ends = 0
    for _ in range(400):
        live = ~v._waiting
        assert np.all(v.state.current_player[live] == v.learner_seat[live])
        obs, r, term, trunc, info = v.step(random_legal_actions(info["action_mask"], rng))
        cum += r
        st = v.state
        for i in np.flatnonzero(term):
            t = st.sheet.totals()[i].sum(axis=1)
            seat = v.learner_seat[i]
            assert cum[i] == pytest.approx((t[seat] - t[1 - seat]) / 100)
            ends += 1
        cum[term | trunc] = 0
    assert ends >= 5
    # per-hand episodes: a hand the opponent ends before the learner acts is skipped
    v = HollywoodGinVectorEnv(8, opponent=_knock_first, rules=rules, per_hand_episodes=True)
    obs, info = v.reset(seed=4)
    for _ in range(100):
        live = ~v._waiting
        assert np.all(v.state.current_player[live] == v.learner_seat[live])
        obs, r, term, trunc, info = v.step(random_legal_actions(info["action_mask"], rng))


def test_vector_env_truncation_and_skipped_episodes():
    v = HollywoodGinVectorEnv(8, max_steps=1)
    obs, info = v.reset(seed=0)
    for _ in range(5):
        # every env waits for the learner, whose single decision truncates the match
        assert np.all(v.state.current_player == v.learner_seat)
        obs, r, term, trunc, info = v.step(random_legal_actions(info["action_mask"], np.random.default_rng(0)))
        assert trunc.all() and not term.any()
        obs, r, term, trunc, info = v.step(np.zeros(8, dtype=np.int64))  # auto-reset
        assert not (trunc | term).any() and np.all(r == 0)


def test_step_games_steps_exactly_the_chosen_games():
    import copy
    import dataclasses

    from hollywood_env.selfplay import step_games

    def fields(st, g):
        out = {f.name: getattr(st, f.name)[g] for f in dataclasses.fields(st)
               if isinstance(getattr(st, f.name), np.ndarray) and getattr(st, f.name).ndim >= 1}
        out.update({"sheet." + k: v[g] for k, v in vars(st.sheet).items() if isinstance(v, np.ndarray)})
        return out

    rng = np.random.default_rng(0)
    state = core.init(40, FAST, seed=2)
    for step in range(300):
        acts = random_legal_actions(state.legal_action_mask, rng)
        if step % 15 == 0:
            for frac in (0.2, 0.8):  # the gathered sub-batch path and the in-place path
                chosen = rng.random(40) < frac
                a, b = copy.deepcopy(state), copy.deepcopy(state)
                stepped = step_games(a, acts, chosen)
                core.step(b, acts)
                assert np.array_equal(stepped, chosen & ~state.done)
                for g in range(40):
                    fa, fb, f0 = fields(a, g), fields(b, g), fields(state, g)
                    for k in fa:
                        if k in ("rewards", "hand_ended", "games_ended", "hand_kind", "hand_knocker", "hand_winner",
                                 "hand_points", "knocker_deadwood", "defender_deadwood", "columns_credited"):
                            ref = fb[k] if stepped[g] else np.zeros_like(fb[k]) if k not in (
                                "hand_knocker", "hand_winner") else np.full_like(fb[k], -1)
                            assert np.array_equal(fa[k], ref), (k, g)
                        elif stepped[g]:
                            assert np.array_equal(fa[k], fb[k]), (k, g)
                        elif k not in ("knocker_sets", "knocker_runs", "defender_sets", "defender_runs", "laid_off",
                                       "ended_hands", "ended_hand_dealer"):
                            assert np.array_equal(fa[k], f0[k]), (k, g)
        core.step(state, acts)
        if state.done.any():
            core.reset_games(state, state.done)


def _reference_encode(state, viewer=None):
    """The observation layout written plainly, one game at a time (the encoder's specification)."""
    from hollywood_env import observation as O

    out = np.zeros((state.batch_size, observation_size(state.rules)), dtype=np.float32)
    r = state.rules
    for g in range(state.batch_size):
        me = int(state.current_player[g]) if viewer is None else int(np.broadcast_to(viewer, (state.batch_size,))[g])
        opp = 1 - me
        o = out[g]
        for plane, mask in ((O.HAND, state.hands[g, me]), (O.OPP_KNOWN, state.known[g, opp]),
                            (O.OPP_DISCARDED, state.discarded[g, opp]), (O.OWN_DISCARDED, state.discarded[g, me])):
            for c in range(52):
                o[plane.start + c] = (int(mask) >> c) & 1
        n = int(state.pile_size[g])
        for i in range(n):
            o[O.PILE.start + int(state.pile[g, i])] = np.float32((i + 1) / n)
        if n:
            o[O.PILE_TOP.start + int(state.pile[g, n - 1])] = 1
        o[O.STOCK] = (52 - int(state.stock_pos[g])) / 31.0
        phase = int(state.phase[g])
        if phase < 3:
            o[O.PHASE.start + phase] = 1
        o[O.IS_DEALER] = int(state.dealer[g]) == me
        o[O.KNOCK_LIMIT] = int(state.knock_limit[g]) / 10.0
        o[O.DOUBLED] = int(state.multiplier[g]) > 1
        o[O.HAND_NUMBER] = min(int(state.hand_number[g]), 100) / 100.0
        s = state.sheet
        for k in range(r.columns):
            w = int(s.game_winner[g, k])
            o[O.SHEET_START + 9 * k: O.SHEET_START + 9 * k + 9] = [
                s.columns[g, me, k] / r.target, s.columns[g, opp, k] / r.target, s.opened[g, me, k], s.opened[g, opp, k],
                w >= 0, w == me, w == opp, s.hands_scored[g, me, k] / 10.0, s.hands_scored[g, opp, k] / 10.0]
    return out


def test_encoder_matches_the_documented_layout(single_game_path):
    rng = np.random.default_rng(3)
    for rules in (Rules(target=20), Rules.preset("oklahoma"), Rules.preset("gin-rummy")):
        state = core.init(24, rules, seed=9)
        cache = SheetCache()  # kept across the steps, as the env layers keep theirs
        sheets_changed = 0
        for step in range(400):
            acts = greedy_from_obs(encode(state), state.legal_action_mask, rng) if step % 2 else \
                random_legal_actions(state.legal_action_mask, rng)
            version = state.sheet.version.copy()
            core.step(state, acts)
            if state.done.any():
                core.reset_games(state, state.done)
            sheets_changed += int(np.any(state.sheet.version != version))
            np.testing.assert_array_equal(encode(state, sheet_cache=cache), encode(state))
            if step % 25 == 0:
                viewer = rng.integers(0, 2, 24)
                for v in (None, viewer):
                    ref = _reference_encode(state, v)
                    np.testing.assert_array_equal(encode(state, v), ref)
                    np.testing.assert_array_equal(encode(state, v, sheet_cache=cache), ref)
                    g = int(rng.integers(24))
                    me = int(state.current_player[g]) if v is None else int(v[g])
                    np.testing.assert_array_equal(encode_one(state, g, me, sheet_cache=cache), ref[g])
                    for g in range(0, 24, 5):
                        np.testing.assert_array_equal(encode_one(state, g, None if v is None else v[g]), ref[g])
                    np.testing.assert_array_equal(encode(state, None if v is None else v[3:9], np.arange(3, 9)),
                                                  ref[3:9])
                    np.testing.assert_array_equal(
                        encode(state, None if v is None else v[3:9], np.arange(3, 9), sheet_cache=cache), ref[3:9])
        assert sheets_changed > 20, "the scoresheets should change many times during the test"
        other = core.init(24, rules, seed=10)  # a cache given another State starts over
        np.testing.assert_array_equal(encode(other, sheet_cache=cache), encode(other))
