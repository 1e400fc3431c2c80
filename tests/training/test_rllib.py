"""RLlib: the turn-based ``MultiAgentEnv`` (RLlib's keys, legal masks, rewards to both agents at a
hand's end, zero-sum, nothing hidden, RLlib's own env check), the action-masking module and its
weights-only export (the agent spec ``rllib:PATH``, which never runs a pickle), and -- marked
``ray``, ``make test-ray`` -- one PPO iteration of self-play and one against a bot, exported and
evaluated with ``hollywood evaluate``.

The env tests need Ray installed (``pip install '.[rllib]'``) and are skipped otherwise; the
export-reading tests need only torch."""

from __future__ import annotations

import io
import pickle
import subprocess
import sys

import numpy as np
import pytest
import torch

from hollywood_env.actions import NUM_ACTIONS
from hollywood_env.observation import encode_one, observation_size
from hollywood_env.rules import resolve_rules


@pytest.fixture(scope="module")
def rl():
    pytest.importorskip("ray.rllib", reason="RLlib is not installed (pip install '.[rllib]')")
    from hollywood_env import rllib

    return rllib


def _bot(name="simple", seed=0):
    from agents.registry import make_agent

    return make_agent(name, rules="hollywood", seed=seed)


def _one_action(policy, o):
    return int(np.asarray(policy(o["observations"][None], o["action_mask"][None] > 0.5))[0])


def test_importing_the_packages_does_not_import_ray():
    code = ("import sys, hollywood_env, hollywood_env.aec_env, agents.registry, agents.interop.rllib_support; "
            "print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_spaces_and_keys_are_rllibs_and_only_the_agent_to_act_observes(rl):
    env = rl.HollywoodGinMultiAgentEnv({})
    d = observation_size(resolve_rules("hollywood"))
    for agent in env.possible_agents:
        space = env.get_observation_space(agent)
        assert set(space.spaces) == {"observations", "action_mask"}
        assert space["observations"].shape == (d,) and space["observations"].dtype == np.float32
        m = space["action_mask"]
        assert m.shape == (NUM_ACTIONS,) and float(m.low.min()) == 0.0 and float(m.high.max()) == 1.0
        assert env.get_action_space(agent).n == NUM_ACTIONS
    obs, infos = env.reset(seed=3)
    assert list(obs) == [env.aec.agent_selection]
    assert env.get_observation_space(env.aec.agent_selection).contains(next(iter(obs.values())))


def test_rllibs_env_check_passes(rl):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    check_multiagent_environments(rl.HollywoodGinMultiAgentEnv({}))  # steps a random (illegal) action


def _knock_seed(rl, bot):
    """A seed whose first hand, with ``bot`` in both seats, is not a wall (a reward is paid)."""
    for seed in range(200):
        env = rl.HollywoodGinMultiAgentEnv({})
        obs, _ = env.reset(seed=seed)
        while True:
            (agent, o), = obs.items()
            obs, rewards, term, trunc, infos = env.step({agent: _one_action(bot, o)})
            if term["__all__"] or trunc["__all__"]:
                break
        if infos["player_0"]["kind"] != "wall":
            return seed
    raise AssertionError("no knock in 200 hands")


def test_a_hand_turn_by_turn_rewards_both_agents_zero_sum_and_hides_nothing(rl, reshuffle_hidden):
    bot = _bot()
    seed = _knock_seed(rl, bot)
    env = rl.HollywoodGinMultiAgentEnv({})
    aec = env.aec
    obs, infos = env.reset(seed=seed)
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    actions = []
    while True:
        (agent, o), = obs.items()  # one agent observes: the one to act
        assert agent == aec.agent_selection
        p = env.possible_agents.index(agent)
        st = aec.state
        np.testing.assert_array_equal(o["action_mask"] > 0.5, st.legal_action_mask[0])
        assert o["action_mask"].dtype == np.float32 and o["action_mask"].sum() >= 1
        np.testing.assert_array_equal(o["observations"], encode_one(st, 0, p))
        # what the agent cannot see does not change what it observes
        np.testing.assert_array_equal(o["observations"], encode_one(reshuffle_hidden(st, [0], rng), 0, p))
        action = _one_action(bot, o)
        assert o["action_mask"][action] == 1.0
        obs, rewards, term, trunc, infos = env.step({agent: action})
        actions.append(action)
        assert set(rewards) == set(env.possible_agents)  # both agents, the one not to move too
        for a, r in rewards.items():
            totals[a] += r
        if term["__all__"] or trunc["__all__"]:
            break
        assert term == {"__all__": False} and trunc == {"__all__": False}
    assert term == {"player_0": True, "player_1": True, "__all__": True} and not trunc["__all__"]
    assert set(obs) == set(env.possible_agents)  # a last observation for both, masks all 0
    for a, o in obs.items():
        assert o["action_mask"].sum() == 0
        np.testing.assert_array_equal(o["observations"], encode_one(aec.state, 0, env.possible_agents.index(a)))
    last_actor = agent
    other = next(a for a in env.possible_agents if a != last_actor)
    assert rewards[other] != 0.0 and rewards[other] == -rewards[last_actor]  # paid at the hand's end, zero-sum
    assert totals[other] == pytest.approx(-totals[last_actor]) and totals[other] != 0.0
    assert infos[other]["hand_ended"] and infos[other]["kind"] != "wall"
    # the same moves in the AEC env give the same rewards
    from hollywood_env.aec_env import raw_env

    ref = raw_env(per_hand_episodes=True)
    ref.reset(seed=seed)
    ref_totals = dict.fromkeys(ref.possible_agents, 0.0)
    for action in actions:
        ref.step(action)
        for a in ref_totals:
            ref_totals[a] += ref.rewards[a]
    assert ref_totals == pytest.approx(totals)
    # the next reset without a seed continues the match with its next hand
    obs, _ = env.reset()
    assert len(obs) == 1 and aec.state.sheet.columns[0].any()  # the first hand's points are kept


def test_opponent_plays_inside_the_env_and_the_learner_changes_seats(rl):
    env = rl.HollywoodGinMultiAgentEnv({"opponent": _bot("simple"), "opponent_seat": "alternate"})
    seats = []
    learner_bot = _bot("neller", seed=1)
    for episode in range(4):
        obs, _ = env.reset(seed=11 if episode == 0 else None)
        (learner, _), = obs.items()
        seats.append(learner)
        assert env.agents == [learner]
        while True:
            assert list(obs) == [learner]
            obs, rewards, term, trunc, infos = env.step({learner: _one_action(learner_bot, obs[learner])})
            assert set(rewards) == {learner} and set(obs) == {learner}
            if term["__all__"] or trunc["__all__"]:
                break
        assert set(term) == {learner, "__all__"}
    assert seats == ["player_0", "player_1", "player_0", "player_1"]


def test_illegal_action_ends_the_episode_or_raises(rl):
    env = rl.HollywoodGinMultiAgentEnv({})
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    bad = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs, rewards, term, trunc, infos = env.step({agent: bad})
    assert term["__all__"] and rewards[agent] == -1.0 and infos[agent]["illegal_action"]
    assert set(obs) == set(env.possible_agents)
    obs, _ = env.reset()  # a new match
    strict = rl.HollywoodGinMultiAgentEnv({"illegal_action": "raise"})
    obs, _ = strict.reset(seed=0)
    from hollywood_env.aec_env import IllegalActionError

    with pytest.raises(IllegalActionError):
        strict.step({agent: bad})
    with pytest.raises(ValueError, match="unknown env_config keys"):
        rl.HollywoodGinMultiAgentEnv({"opponnent": None})


def _module(rl, hiddens=(32, 16)):
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    env = rl.HollywoodGinMultiAgentEnv({})
    spec = RLModuleSpec(module_class=rl.ActionMaskingTorchRLModule,
                        observation_space=env.get_observation_space("player_0"),
                        action_space=env.get_action_space("player_0"),
                        model_config={"fcnet_hiddens": list(hiddens), "fcnet_activation": "relu"})
    return env, spec.build()


def test_masking_module_masks_and_its_export_plays_the_same_moves(rl, tmp_path):
    from ray.rllib.core.columns import Columns

    from agents.interop.rllib_support import EXPORT_FORMAT
    from agents.registry import AgentSpecError, make_agent

    assert EXPORT_FORMAT == rl.EXPORT_FORMAT
    env, module = _module(rl)
    bot = _bot()
    obs_list, masks = [], []
    obs, _ = env.reset(seed=5)
    for _ in range(30):
        (agent, o), = obs.items()
        obs_list.append(o["observations"])
        masks.append(o["action_mask"])
        obs, _, term, trunc, _ = env.step({agent: _one_action(bot, o)})
        if term["__all__"] or trunc["__all__"]:
            obs, _ = env.reset()
    x, m = torch.as_tensor(np.stack(obs_list)), torch.as_tensor(np.stack(masks))
    with torch.no_grad():
        for out in (module.forward_inference({Columns.OBS: {"observations": x, "action_mask": m}}),
                    module.forward_exploration({Columns.OBS: {"observations": x, "action_mask": m}}),
                    module.forward_train({Columns.OBS: {"observations": x, "action_mask": m}})):
            logits = out[Columns.ACTION_DIST_INPUTS]
            assert torch.all(logits[m == 0] == rl.MASKED_LOGIT) and torch.all(logits[m == 1] > rl.MASKED_LOGIT)
        values = module.compute_values({Columns.OBS: {"observations": x, "action_mask": m}})
        assert values.shape == (len(x),)
    path = rl.export_policy(module, tmp_path / "policy.pt", rules="hollywood")
    blob = torch.load(path, weights_only=True)
    assert blob["format"] == rl.EXPORT_FORMAT and [tuple(layer["weight"].shape) for layer in blob["layers"]] == \
        [(32, x.shape[1]), (16, 32), (NUM_ACTIONS, 16)]
    agent = make_agent(f"rllib:{path}", rules="hollywood")
    greedy = logits.argmax(-1).numpy()
    np.testing.assert_array_equal(agent(x.numpy(), m.numpy() > 0.5), greedy)
    with pytest.raises(AgentSpecError, match=r"observations of size 347 \(3 columns\), these rules give 329"):
        make_agent(f"rllib:{path}", rules="gin-rummy")


class _Payload:
    """Unpickling this object creates the file ``marker``: the 'code execution' of the test."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_rllib_spec_reads_weights_only_and_never_runs_a_pickle(tmp_path):
    from agents.interop.rllib_support import EXPORT_FORMAT
    from agents.registry import AgentSpecError, make_agent

    marker = tmp_path / "pwned"
    for name, blob in (("raw", pickle.dumps(_Payload(marker))),
                       ("torch", _torch_saved({"format": EXPORT_FORMAT, "version": 1, "layers": [_Payload(marker)]}))):
        evil = tmp_path / f"evil_{name}.pt"
        evil.write_bytes(blob)
        with pytest.raises(AgentSpecError, match="not a weights-only export"):
            make_agent(f"rllib:{evil}", rules="hollywood")
        assert not marker.exists()
    # a hand-made export plays; a wrong one is refused with the reason
    d = observation_size(resolve_rules("hollywood"))
    good = {"format": EXPORT_FORMAT, "version": 1, "obs_dim": d, "num_actions": NUM_ACTIONS,
            "layers": [{"weight": torch.randn(8, d), "bias": torch.zeros(8), "activation": "Tanh"},
                       {"weight": torch.randn(NUM_ACTIONS, 8), "bias": torch.zeros(NUM_ACTIONS), "activation": ""}]}
    (tmp_path / "good.pt").write_bytes(_torch_saved(good))
    agent = make_agent(f"rllib:{tmp_path / 'good.pt'}", rules="hollywood")
    mask = np.zeros((2, NUM_ACTIONS), bool)
    mask[0, 5] = mask[1, [7, 9]] = True
    assert agent(np.zeros((2, d), np.float32), mask)[0] == 5
    bad = dict(good, layers=[dict(good["layers"][0], activation="Softmax2d")])
    (tmp_path / "bad.pt").write_bytes(_torch_saved(bad))
    with pytest.raises(AgentSpecError, match="activation 'Softmax2d'"):
        make_agent(f"rllib:{tmp_path / 'bad.pt'}")
    (tmp_path / "other.pt").write_bytes(_torch_saved({"a": torch.zeros(1)}))
    with pytest.raises(AgentSpecError, match="not an RLlib policy export"):
        make_agent(f"rllib:{tmp_path / 'other.pt'}")


def _torch_saved(obj) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


# --- training (marked ray) -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=1, include_dashboard=False, logging_level="WARNING")
    yield ray
    if started:
        ray.shutdown()


TINY = dict(hiddens=(32,), num_env_runners=0, train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)


@pytest.mark.ray
def test_ppo_self_play_trains_exports_and_evaluates(rl, local_ray, tmp_path, capsys):
    from experiments.cli import main as cli

    algo = rl.ppo_config(**TINY).debugging(seed=0).build_algo()
    try:
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled"] >= 256
        learner = result["learners"][rl.MODULE_ID]
        assert np.isfinite(learner["total_loss"]) and learner["num_module_steps_trained"] > 0
        checkpoint = algo.save(str(tmp_path / "checkpoint"))
        direct = rl.export_policy(algo, tmp_path / "direct.pt")
    finally:
        algo.stop()
    # the documented export step, from the checkpoint folder: the same weights
    assert cli(["rllib-export", str(tmp_path / "checkpoint"), str(tmp_path / "policy.pt")]) == 0
    a, b = torch.load(direct, weights_only=True), torch.load(tmp_path / "policy.pt", weights_only=True)
    assert all(torch.equal(x["weight"], y["weight"]) for x, y in zip(a["layers"], b["layers"], strict=True))
    assert checkpoint is not None
    capsys.readouterr()
    assert cli(["evaluate", f"rllib:{tmp_path / 'policy.pt'}", "random", "--hands", "4", "--seed", "0"]) == 0
    assert "rllib:" in capsys.readouterr().out


@pytest.mark.ray
def test_ppo_against_a_named_bot_trains_one_iteration(rl, local_ray):
    from agents.interop.rllib_support import ppo_config

    config = ppo_config(opponent="simple", seed=0, **TINY)
    bot = config.env_config["opponent"]
    assert type(pickle.loads(pickle.dumps(bot))) is type(bot)  # travels to remote env runners
    algo = config.debugging(seed=0).build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    assert result["env_runners"]["num_env_steps_sampled"] >= 256
    assert np.isfinite(result["learners"][rl.MODULE_ID]["total_loss"])
