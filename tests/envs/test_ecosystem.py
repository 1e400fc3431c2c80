"""Fitting the ecosystem: default episodes that end, ``rgb_array`` pictures that show no
hidden card, the versioned PettingZoo module and ``env()`` (the classic wrappers' behaviour built
in, checked against the wrappers themselves), and Stable-Baselines3 (the VecEnv adapter against the
native vector env, ``make_vec_env``, a short MaskablePPO run, the ``sb3:PATH`` agent spec and its
refusal to run a pickle)."""

from __future__ import annotations

import base64
import copy
import io
import json
import os
import pickle
import warnings
import zipfile

import gymnasium
import numpy as np
import pytest
from helpers import swap_hidden, visible_to
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils.env_logger import EnvLogger

import hollywood_env as H
from hollywood_env import RewardConfig
from hollywood_env.aec_env import classic_env, raw_env, wrapped_env
from hollywood_env.render import RGB_SHAPE, table_view
from hollywood_env.selfplay import random_legal_actions
from hollywood_env.vector_env import HollywoodGinEnv, HollywoodGinVectorEnv

FAST = "gin-rummy"


# --- 3. default episodes end ----------------------------------------------------------------------


def test_default_single_agent_episode_is_one_hand_and_ends_well_before_the_cap():
    env = gymnasium.make("HollywoodGin-v0")
    assert env.unwrapped.reward_config.per_hand_episodes is True
    rng = np.random.default_rng(0)
    lengths = []
    obs, info = env.reset(seed=0)
    steps = 0
    while len(lengths) < 20:
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        steps += 1
        assert not trunc, "a default episode must end by itself, not at the max_steps cap"
        if term:
            lengths.append(steps)
            assert info["hands_ended"] == 1  # exactly one hand per episode
            steps = 0
            obs, info = env.reset()
    assert max(lengths) < 200 < env.unwrapped.venv.max_steps  # the cap is 5,000 decisions
    # the match goes on across episodes: the next hand of the same match
    assert env.unwrapped.venv.state.hand_number[0] >= 19 or env.unwrapped.venv.state.terminated[0]


def test_default_vector_env_episodes_end_and_explicit_whole_matches_remain():
    v = HollywoodGinVectorEnv(32, seed=1)
    assert v.reward_config.per_hand_episodes
    obs, info = v.reset(seed=1)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(150):
        obs, r, term, trunc, info = v.step(random_legal_actions(info["action_mask"], rng))
        assert not trunc.any()
        ends += int(term.sum())
    assert ends >= 32  # every env ended at least one episode in 150 steps (a hand is < 90 of them)
    # whole matches on request: the argument, or a RewardConfig whose field says so
    assert not HollywoodGinVectorEnv(2, per_hand_episodes=False).reward_config.per_hand_episodes
    assert not HollywoodGinVectorEnv(2, reward=RewardConfig("match")).reward_config.per_hand_episodes
    assert not HollywoodGinEnv(reward={"mode": "games", "per_hand_episodes": False}).reward_config.per_hand_episodes
    assert HollywoodGinEnv(reward="games").reward_config.per_hand_episodes


# --- 2. rgb_array pictures ------------------------------------------------------------------------


def _cards_in_view(view: dict) -> set:
    cards = set(view["hand"]) | set(view["opp_known"])
    if view["pile_top"] >= 0:
        cards.add(view["pile_top"])
    if view["summary"] is not None:
        for hand in view["summary"]["hands"].values():
            cards |= set(hand)
    return cards


def test_rgb_array_shapes_in_every_env():
    g = gymnasium.make("HollywoodGin-v0", render_mode="rgb_array")
    g.reset(seed=0)
    img = g.render()
    assert img.shape == RGB_SHAPE + (3,) and img.dtype == np.uint8
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20  # cards, text and the table are drawn
    v = HollywoodGinVectorEnv(6, render_mode="rgb_array")
    v.reset(seed=0)
    img = v.render()
    assert img.shape == (RGB_SHAPE[0], 4 * RGB_SHAPE[1], 3) and img.dtype == np.uint8
    e = raw_env(render_mode="rgb_array")
    e.reset(seed=0)
    img = e.render()
    assert img.shape == RGB_SHAPE + (3,) and img.dtype == np.uint8
    with pytest.raises(ValueError, match=r"render_mode must be None or one of \['ansi', 'rgb_array'\]"):
        HollywoodGinVectorEnv(2, render_mode="human")


def test_render_collection_gathers_the_frames_of_an_episode():
    env = gymnasium.wrappers.RenderCollection(gymnasium.make("HollywoodGin-v0", render_mode="rgb_array"))
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    while True:
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        steps += 1
        if term or trunc:
            break
    frames = env.render()
    assert len(frames) == steps + 1 and all(f.shape == RGB_SHAPE + (3,) and f.dtype == np.uint8 for f in frames)


def test_record_video_wraps_the_gym_env(tmp_path):
    pytest.importorskip("moviepy", reason="RecordVideo writes videos with moviepy")
    env = gymnasium.wrappers.RecordVideo(gymnasium.make("HollywoodGin-v0", render_mode="rgb_array"), str(tmp_path),
                                         episode_trigger=lambda k: k == 0, disable_logger=True)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(200):
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term or trunc:
            break
    env.close()
    assert any(p.suffix == ".mp4" for p in tmp_path.iterdir())


def test_rgb_array_never_draws_a_hidden_card():
    """The picture of the learner's view is unchanged when the cards it cannot see (the
    opponent's unrevealed cards, the stock's order; after a wall the opponent's hand) are
    exchanged among themselves, and every card it draws is one the viewer may see; it does
    change with what the viewer sees."""
    from agents.bots import SimpleBot

    rules = H.Rules.preset(FAST)
    rng = np.random.default_rng(5)
    env = HollywoodGinEnv(opponent=SimpleBot(rules, seed=1), rules=rules, render_mode="rgb_array")
    obs, info = env.reset(seed=4)
    learner = SimpleBot(rules, seed=2)
    images, swapped, hand_ends = [], 0, 0
    for step in range(160):
        a = int(learner(obs[None], info["action_mask"][None])[0]) if step % 3 else \
            int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, r, term, trunc, info = env.step(a)
        st = env.venv.state
        seat = int(env.venv.learner_seat[0])
        img = env.render()
        view = table_view(st, 0, viewer=seat)
        assert _cards_in_view(view) <= visible_to(st, 0, seat)
        other = copy.deepcopy(env)
        swapped += swap_hidden(other.venv.state, 0, seat, rng)
        if st.hand_ended[0]:
            hand_ends += 1
            if st.hand_kind[0] == 4:  # a wall: the opponent's ended hand is not revealed either
                mine = int(st.ended_hands[0, seat])
                other.venv.state.ended_hands[0, 1 - seat] = np.uint64(((1 << 52) - 1) & ~mine)
        np.testing.assert_array_equal(other.render(), img)
        images.append(img)
        if term or trunc:
            obs, info = env.reset()
    assert swapped > 100 and hand_ends >= 2
    assert len({im.tobytes() for im in images}) > len(images) // 2  # the picture follows the game


# --- 4. PettingZoo: the versioned module and env() ------------------------------------------------


def test_versioned_module():
    from hollywood_env import hollywood_gin_v0

    assert hollywood_gin_v0.raw_env is raw_env and hollywood_gin_v0.__name__ == "hollywood_env.hollywood_gin_v0"
    e = hollywood_gin_v0.env()
    assert isinstance(e, classic_env) and isinstance(e, hollywood_gin_v0.raw_env)
    assert e.metadata["name"] == "hollywood_gin_v0" and str(e) == "hollywood_gin_v0"
    assert "Version history" in hollywood_gin_v0.__doc__ and "issue" in hollywood_gin_v0.__doc__
    assert "{OBSERVATION_TABLE}" not in hollywood_gin_v0.__doc__ and "observation" in hollywood_gin_v0.__doc__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test warns about the all-zero mask of the waiting agent
        api_test(hollywood_gin_v0.env(per_hand_episodes=True), num_cycles=300)
    seed_test(hollywood_gin_v0.env, num_cycles=200)
    render_test(hollywood_gin_v0.env)


def _play(env, rng, script):
    """Run ``env`` through a script of calls, recording everything observable: the results of
    ``last()``, the public dicts, warnings and the type and message of every error."""
    log = []

    def call(fn, *args):
        EnvLogger.mqueue.clear()
        try:
            out = fn(*args)
            res = ("ok", out)
        except Exception as e:  # noqa: BLE001 - compared between the envs
            res = (type(e).__name__, str(e).split(":")[0])
        log.append((res[0], res[1] if res[0] != "ok" else None, tuple(EnvLogger.mqueue)))
        return res

    for kind in script:
        if kind == "attr":
            call(lambda: env.rewards)
            call(lambda: env.num_agents)
        elif kind == "reset":
            call(env.reset, int(rng.integers(100)))
        elif kind == "step-before-reset":
            call(env.step, 0)
            call(env.observe, "player_0")
        else:
            for _k in range(int(kind)):
                res = call(env.last)
                if res[0] != "ok":
                    break
                obs, rew, term, trunc, info = res[1]
                # once the game is over the mask is all 0 (env()); the wrapper objects left raw_env's
                # cached mask of the agent to act in place after an illegal move: not compared
                mask = b"done" if term or trunc else obs["action_mask"].tobytes()
                log.append((obs["observation"].tobytes(), mask, rew, term, trunc,
                            sorted(env.agents), dict(env.terminations), dict(env.truncations),
                            dict(env._cumulative_rewards), env.agent_selection))
                u = rng.random()
                if term or trunc:
                    action = None if u < 0.8 else 3
                elif u < 0.02:
                    action = int(np.flatnonzero(obs["action_mask"] == 0)[0])  # illegal: ends the game
                elif u < 0.03:
                    action = [200, -1, 1.5, None][int(rng.integers(4))]  # out of bounds
                else:
                    action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
                call(env.step, action)
    return log


def test_env_behaves_as_raw_env_in_the_classic_wrappers():
    script = ["attr", "step-before-reset", "reset", "300", "reset", "400", "reset", "200", "attr"]
    calls = []
    for seed in range(6):
        fast = _play(H.env(rules=FAST, per_hand_episodes=True), np.random.default_rng(seed), script)
        slow = _play(wrapped_env(rules=FAST, per_hand_episodes=True), np.random.default_rng(seed), script)
        assert len(fast) == len(slow) > 150  # each segment runs to the end of its game
        for a, b in zip(fast, slow, strict=True):
            # the documented differences: env()'s own messages, and last() once every agent is done
            # (env(): ResetNeededError saying to reset; the wrapper objects: a bare KeyError)
            assert (a == b or (a[0] == b[0] == "AssertionError" and b[1] == "action is not in action space")
                    or (a[0] == "ResetNeededError" and b[0] == "KeyError")), (a, b)
        calls += [x for x in fast if len(x) == 3]
    # the script went through every case
    assert sum(x[0] == "AssertionError" and x[1] == "action is not in action space" for x in calls) >= 3
    assert sum(any("Illegal move" in m for m in x[2]) for x in calls) >= 3  # games ended by an illegal move
    assert any(x[0] == "ok" and x[2] for x in calls)  # PettingZoo's warnings, e.g. a step after the end
    # the illegal move's outcome, as PettingZoo's wrapper gives it
    e = H.env()
    e.reset(seed=0)
    agent, other = e.agent_selection, [a for a in e.possible_agents if a != e.agent_selection][0]
    bad = int(np.flatnonzero(e.observe(agent)["action_mask"] == 0)[0])
    EnvLogger.mqueue.clear()
    e.step(bad)
    assert any("Illegal move" in m for m in EnvLogger.mqueue)
    assert all(e.terminations.values()) and all(e.truncations.values())
    assert e._cumulative_rewards == {agent: -1.0, other: 0}
    assert not e.observe(agent)["action_mask"].any()  # the game is over: no legal action
    with pytest.raises(AssertionError, match=r"action is not in action space: 108 for player_\d; allowed: an "
                                             r"integer in 0\.\.107, or None"):
        e.step(108)
    # agent_iter enforces a step between agents
    e.reset(seed=1)
    it = iter(e.agent_iter())
    next(it)
    with pytest.raises(AssertionError, match="need to call step"):
        next(it)


# --- 1. Stable-Baselines3 ------------------------------------------------------------------------


def _first_legal(obs, masks):
    """A deterministic opponent that plays each env on its own (no shared random stream)."""
    return np.argmax(masks, axis=1)


def test_autoreset_now_starts_the_episode_the_next_step_would_start():
    """``autoreset_now`` (SB3's same-step reset) gives the ended envs the first observation that
    the NEXT_STEP auto-reset of the following ``step`` gives them, and leaves the others as they are."""
    n = 8
    v = HollywoodGinVectorEnv(n, opponent=_first_legal, rules=FAST)
    obs, info = v.reset(seed=3)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(400):
        obs, r, term, trunc, info = v.step(random_legal_actions(info["action_mask"], rng))
        done = term | trunc
        if done.any():
            ends += int(done.sum())
            now, next_step = copy.deepcopy(v), copy.deepcopy(v)
            o1, i1 = now.autoreset_now()
            acts = random_legal_actions(info["action_mask"], rng)
            o2, r2, t2, tr2, i2 = next_step.step(acts)
            np.testing.assert_array_equal(o1[done], o2[done])
            np.testing.assert_array_equal(i1["action_mask"][done], i2["action_mask"][done])
            np.testing.assert_array_equal(o1[~done], obs[~done])  # the live envs did not move
            np.testing.assert_array_equal(i1["action_mask"][~done], info["action_mask"][~done])
            assert not now._waiting.any() and np.all(r2[done] == 0)
    assert ends >= 20
    with pytest.raises(H.vector_env.ResetNeededError, match="before autoreset_now"):
        HollywoodGinVectorEnv(2).autoreset_now()


def test_sb3_adapter_same_step_reset_matches_autoreset_now():
    """Step by step over many episodes: the adapter's output equals the native env's step
    followed by ``autoreset_now`` (the first observation of the next episode at once)."""
    pytest.importorskip("stable_baselines3", reason="the sb3 extra is not installed (pip install '.[sb3]')")
    from hollywood_env.sb3 import HollywoodGinSB3VecEnv

    n = 6
    ad = HollywoodGinSB3VecEnv(n, rules=FAST, seed=5)
    native = HollywoodGinVectorEnv(n, rules=FAST, seed=5)
    obs = ad.reset()
    nobs, _ = native.reset()
    rng = np.random.default_rng(2)
    ends = 0
    for _ in range(300):
        acts = random_legal_actions(ad.action_masks(), rng)
        obs, rew, dones, infos = ad.step(acts)
        nobs, nrew, nterm, ntrunc, _ = native.step(acts)
        for i in np.flatnonzero(dones):
            np.testing.assert_array_equal(infos[i]["terminal_observation"], nobs[i])
        if dones.any():
            ends += int(dones.sum())
            nobs, _ = native.autoreset_now()
            assert not native._waiting.any()
        np.testing.assert_array_equal(obs, nobs)
        np.testing.assert_allclose(rew, nrew.astype(np.float32))
        # the next observation is a live decision in every env: a real first observation
        assert ad.action_masks().sum(axis=1).min() >= 1 and not ad.action_masks().all(axis=1).any()
    assert ends >= 10
    with pytest.raises(AttributeError, match="supported methods: 'action_masks', 'render'"):
        ad.env_method("close")
    assert ad.env_is_wrapped(gymnasium.Wrapper) == [False] * n
    assert ad.get_attr("rules")[0].columns == 1 and ad.has_attr("action_masks")
    ad.seed(7)  # SB3's seed(s): the next reset is the vector env's reset(seed=7)
    np.testing.assert_array_equal(ad.reset(), native.reset(seed=7)[0])


def test_make_vec_env_works_as_is():
    pytest.importorskip("stable_baselines3", reason="the sb3 extra is not installed (pip install '.[sb3]')")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.env_util import make_vec_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        venv = make_vec_env("HollywoodGin-v0", n_envs=4, seed=0)
    assert venv.render_mode == "rgb_array" and is_masking_supported(venv)
    obs = venv.reset()
    assert obs.shape == (4, 347)
    rng = np.random.default_rng(0)
    dones = 0
    for _ in range(150):
        obs, rew, done, infos = venv.step(random_legal_actions(get_action_masks(venv), rng))
        dones += int(done.sum())
        assert all("terminal_observation" in inf for inf, d in zip(infos, done, strict=True) if d)
    assert dones >= 4  # per-hand episodes end
    img = venv.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3


@pytest.fixture(scope="module")
def trained_zip(tmp_path_factory):
    pytest.importorskip("sb3_contrib", reason="the sb3 extra is not installed (pip install '.[sb3]')")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from hollywood_env.sb3 import HollywoodGinSB3VecEnv

    torch.set_num_threads(1)
    venv = VecMonitor(HollywoodGinSB3VecEnv(16, seed=0))
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, n_epochs=2, seed=0,
                        policy_kwargs={"net_arch": [32, 32], "activation_fn": torch.nn.ReLU})
    model.learn(3072)
    path = tmp_path_factory.mktemp("sb3") / "model.zip"
    model.save(path)
    return model, path


def test_maskable_ppo_trains_through_the_adapter_and_plays_as_an_agent_spec(trained_zip):
    from agents.registry import make_agent

    model, path = trained_zip
    assert model.num_timesteps >= 3072 and len(model.ep_info_buffer) >= 10  # episodes ended during training
    agent = make_agent(f"sb3:{path}", rules="hollywood", seed=0)
    assert agent.actor[1].__class__.__name__ == "ReLU"  # the activation read from the plain JSON
    v = HollywoodGinVectorEnv(32, seed=9)
    obs, info = v.reset(seed=9)
    for _ in range(40):  # the same moves as SB3's own deterministic predict
        ours = agent(obs, info["action_mask"])
        theirs, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
        np.testing.assert_array_equal(ours, theirs)
        assert info["action_mask"][np.arange(32), ours].all()
        obs, r, t, tr, info = v.step(ours)
    # it enters our matches as an opponent too
    v = HollywoodGinVectorEnv(4, opponent=agent, seed=1)
    obs, info = v.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(30):
        obs, r, t, tr, info = v.step(random_legal_actions(info["action_mask"], rng))
    with pytest.raises(ValueError, match=r"observations of size 347, these rules give 329"):
        make_agent(f"sb3:{path}", rules="gin-rummy")


class _Payload:
    """Unpickling this object creates the file ``marker``: the 'code execution' of the test."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _rezip(src, dst, replace: dict):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.namelist():
            zout.writestr(item, replace.get(item, zin.read(item)))


def test_sb3_spec_never_runs_a_pickle(trained_zip, tmp_path):
    from sb3_contrib import MaskablePPO

    from agents.registry import AgentSpecError, make_agent

    _, path = trained_zip
    marker = tmp_path / "pwned"
    # 1. a pickle in the zip's JSON 'data' (where SB3 keeps cloudpickled objects)
    with zipfile.ZipFile(path) as z:
        data = json.loads(z.read("data"))
    data["policy_class"][":serialized:"] = base64.b64encode(pickle.dumps(_Payload(marker))).decode()
    evil = tmp_path / "evil_data.zip"
    _rezip(path, evil, {"data": json.dumps(data)})
    agent = make_agent(f"sb3:{evil}", rules="hollywood")  # the weights load; the pickle is never decoded
    assert callable(agent) and not marker.exists()
    # the payload is real: SB3's own loader runs it (then fails: the "policy class" it unpickled is a file)
    with pytest.raises(TypeError):
        MaskablePPO.load(evil)
    assert marker.exists()
    marker.unlink()
    # 2. a pickle instead of the weights: refused, not run
    for name, blob in (("raw", pickle.dumps(_Payload(marker))), ("torch", _torch_saved(_Payload(marker)))):
        evil = tmp_path / f"evil_{name}.zip"
        _rezip(path, evil, {"policy.pth": blob})
        with pytest.raises(AgentSpecError, match="policy.pth is not a weights-only state dict"):
            make_agent(f"sb3:{evil}", rules="hollywood")
        assert not marker.exists()
    # 3. not a model at all
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    with pytest.raises(AgentSpecError, match="not a Stable-Baselines3 model"):
        make_agent(f"sb3:{junk}")
    with pytest.raises(AgentSpecError, match="no such checkpoint file"):
        make_agent(f"sb3:{tmp_path / 'missing.zip'}")


def _torch_saved(obj) -> bytes:
    import torch

    buf = io.BytesIO()
    torch.save({"mlp_extractor.policy_net.0.weight": obj}, buf)
    return buf.getvalue()


def test_sb3_module_names_the_extra_when_missing():
    src = open(os.path.join(os.path.dirname(H.__file__), "sb3.py")).read()
    assert "pip install 'hollywood-gin-rl[sb3]'" in src
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", "import sys, hollywood_env, hollywood_env.vector_env, "
                          "hollywood_env.aec_env; print('stable_baselines3' in sys.modules)"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
