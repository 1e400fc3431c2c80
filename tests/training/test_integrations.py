"""Other libraries drive the PettingZoo AEC env as it is (``hollywood_env.env(per_hand_episodes=True)``):
TorchRL's ``PettingZooWrapper(use_mask=True)`` (its spec check, then whole hands rolled out with a
bot acting for whichever agent's ``mask`` is set) and Tianshou's ``PettingZooEnv`` (whole hands
with random legal actions, then with a bot: rewards paid to both agents, zero-sum).

Marked ``integrations``: excluded from the default suite, run with ``make test-integrations``
(``pytest -m integrations``); each test is skipped when its library is not installed
(``pip install '.[torchrl]'`` / ``'.[tianshou]'``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import hollywood_env
from hollywood_env.actions import NUM_ACTIONS
from hollywood_env.observation import observation_size
from hollywood_env.rules import resolve_rules

pytestmark = pytest.mark.integrations

D = observation_size(resolve_rules("hollywood"))


def _bot(seed=0):
    from agents.registry import make_agent

    return make_agent("simple", rules="hollywood", seed=seed)


def test_torchrl_pettingzoo_wrapper_checks_its_specs_and_rolls_out_whole_hands():
    pytest.importorskip("torchrl", reason="TorchRL is not installed (pip install '.[torchrl]')")
    import torch
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")  # it names its tested version
        env = PettingZooWrapper(hollywood_env.env(per_hand_episodes=True), use_mask=True, seed=0)
    assert set(env.group_map) == {"player_0", "player_1"}
    for group in env.group_map:
        assert env.observation_spec[group, "observation", "observation"].shape == (1, D)
        assert env.observation_spec[group, "action_mask"].shape == (1, NUM_ACTIONS)
    check_env_specs(env, seed=0)

    bot = _bot()

    def policy(td):
        for group in env.group_map:
            mask = td[group, "action_mask"]
            action = torch.zeros(mask.shape[:-1], dtype=torch.int64)  # ignored for the agent not to act
            if td[group, "mask"].any():
                assert mask.any(), f"{group} is to act but has no legal action"
                action[:] = torch.as_tensor(bot(td[group, "observation", "observation"].numpy(), mask.numpy()))
                assert mask[0, action[0]]
            td[group, "action"] = action
        return td

    paid = 0
    for _ in range(4):  # four hands: each rollout ends when the hand does; the next reset deals the next one
        ro = env.rollout(500, policy=policy, break_when_any_done=True)
        acting = ro["player_0", "mask"].long() + ro["player_1", "mask"].long()
        assert torch.all(acting == 1)  # turn-based: exactly one agent acts at each step
        assert bool(ro["next", "done"][-1]) and not ro["next", "done"][:-1].any()
        r0, r1 = ro["next", "player_0", "reward"].sum(), ro["next", "player_1", "reward"].sum()
        assert float(r0) == pytest.approx(-float(r1))  # zero-sum, both agents paid at the hand's end
        paid += float(r0) != 0.0
    assert paid >= 1  # at least one hand was not a wall


def test_tianshou_pettingzoo_env_plays_whole_hands():
    pytest.importorskip("tianshou", reason="Tianshou is not installed (pip install '.[tianshou]')")
    from tianshou.env import PettingZooEnv

    env = PettingZooEnv(hollywood_env.env(per_hand_episodes=True))
    assert env.agents == ["player_0", "player_1"] and env.action_space.n == NUM_ACTIONS
    rng = np.random.default_rng(0)
    bot = _bot()
    obs, info = env.reset(seed=4)
    paid = 0
    for hand in range(4):  # two random hands, then two with the bot in both seats
        total = np.zeros(2)
        for _ in range(1000):
            mask = np.asarray(obs["mask"], dtype=bool)
            assert obs["agent_id"] in env.agents and mask.shape == (NUM_ACTIONS,) and mask.any()
            assert np.asarray(obs["obs"]).shape == (D,)
            if hand < 2:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = int(bot(np.asarray(obs["obs"])[None], mask[None])[0])
            obs, rewards, terminated, truncated, info = env.step(action)
            total += np.asarray(rewards, dtype=float)
            if terminated or truncated:
                break
        assert terminated and not truncated  # the hand ended by itself
        assert total[0] == pytest.approx(-total[1])
        paid += total[0] != 0.0
        obs, info = env.reset()  # the next hand of the match
    assert paid >= 1
