"""``ppo-ensemble:A+B``: several PPO networks acting on the mean of their log-probabilities.

The reference is written out with numpy: each member's softmax over the legal actions, the mean
of the logs, its argmax. Two shipped-size networks of the EAAI game (two recipes) serve as the
members; the states come from games played by ``simple``.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.bots import SimpleBot
from agents.matches import play_pairing
from agents.registry import AgentSpecError, make_agent
from agents.rl.policies import PPOEnsemblePolicy, PPOPolicy
from hollywood_env import core
from hollywood_env.observation import encode
from hollywood_env.rules import Rules

A = "results/ppo_gin_rummy/wide_seed0/ppo_gin_rummy_wide_seed0.pt"
B = "results/ppo_gin_rummy/run_1800_seed0/ppo_gin_rummy_1800.pt"


def positions(n_games: int = 64, steps: int = 60, seed: int = 3):
    """Observations and masks of the player to move, over ``steps`` moves of ``simple``."""
    rules = Rules.preset("eaai")
    state = core.init(n_games, rules, seed=seed)
    bot = SimpleBot(rules)
    obs, masks = [], []
    for _ in range(steps):
        o, m = encode(state), state.legal_action_mask.copy()
        obs.append(o)
        masks.append(m)
        live = np.flatnonzero(~(state.terminated | state.truncated))
        if not len(live):
            break
        core.step(state, bot(o, m), games=live)
    obs, masks = np.concatenate(obs), np.concatenate(masks)
    to_move = masks.any(axis=1)  # finished games have no legal action
    return obs[to_move], masks[to_move]


def reference_actions(members: list[PPOPolicy], obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The argmax of the mean log-softmax over the legal actions, in numpy."""
    total = np.zeros(mask.shape)
    for p in members:
        logits = p.distribution(obs, mask).logits.numpy().astype(np.float64)  # illegal: the dtype's minimum
        logits = np.where(mask, logits, -np.inf)
        z = logits - logits.max(axis=1, keepdims=True)
        total += z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return np.where(mask, total / len(members), -np.inf).argmax(axis=1)


def test_ensemble_plays_the_argmax_of_the_mean_log_probability():
    obs, mask = positions()
    members = [PPOPolicy.from_checkpoint(path, "eaai") for path in (A, B)]
    ensemble = PPOEnsemblePolicy(members)
    got = ensemble(obs, mask)
    assert mask[np.arange(len(got)), got].all()
    np.testing.assert_array_equal(got, reference_actions(members, obs, mask))
    # the members disagree on some moves, and the ensemble then follows neither one always
    a, b = members[0](obs, mask), members[1](obs, mask)
    assert (a != b).sum() > 10 and (got != a).any() and (got != b).any()


def test_ensemble_of_one_network_twice_is_that_network():
    obs, mask = positions(seed=4)
    one = PPOPolicy.from_checkpoint(A, "eaai")
    twice = make_agent(f"ppo-ensemble:{A}+{A}", "eaai")
    np.testing.assert_array_equal(twice(obs, mask), one(obs, mask))


def test_sampled_ensemble_is_legal_and_follows_its_seed():
    obs, mask = positions(seed=5)
    members = [PPOPolicy.from_checkpoint(path, "eaai") for path in (A, B)]
    runs = [PPOEnsemblePolicy(members, greedy=False, seed=s)(obs, mask) for s in (7, 7, 8)]
    assert mask[np.arange(len(obs)), runs[0]].all()
    np.testing.assert_array_equal(runs[0], runs[1])
    assert (runs[0] != runs[2]).any()


def test_ensemble_spec_plays_games():
    r = play_pairing(f"ppo-ensemble:{A}+{B}", "simple", "eaai", 4, 11)
    assert r.n_games == 8 and (r.match_winner >= 0).all()


@pytest.mark.parametrize("spec,says", [
    (f"ppo-ensemble:{A}", "two or more PPO checkpoints joined by '+'"),
    (f"ppo-ensemble:{A}+", "two or more PPO checkpoints joined by '+'"),
    (f"ppo-ensemble:{A}+missing.pt", "ppo:missing.pt: no such checkpoint file"),
    (f"ppo-ensemble:{A}+models/ppo_hollywood.pt", "ppo:models/ppo_hollywood.pt: cannot load"),
])
def test_bad_ensemble_specs_are_one_line_errors(spec, says):
    with pytest.raises(AgentSpecError) as e:
        make_agent(spec, "eaai")
    assert says in str(e.value) and "\n" not in str(e.value)


def test_a_shipped_ensemble_in_a_spec_joins_network_by_network():
    """``ppo-ensemble:`` of the shipped two-network ``ppo-gin-rummy`` and one more network is an
    ensemble of three, each network weighted alike."""
    shipped = make_agent("ppo-gin-rummy", "eaai")
    assert isinstance(shipped, PPOEnsemblePolicy) and len(shipped.members) == 2
    three = make_agent(f"ppo-ensemble:models/ppo_gin_rummy.pt+{B}", "eaai")
    assert isinstance(three, PPOEnsemblePolicy) and len(three.members) == 3
    obs, mask = positions(n_games=16, steps=20)
    members = [*shipped.members, PPOPolicy.from_checkpoint(B, "eaai")]
    assert np.array_equal(three(obs, mask), reference_actions(members, obs, mask))
    by_name = make_agent(f"ppo-ensemble:ppo-gin-rummy+{B}", "eaai")  # a shipped name stands for its file
    assert len(by_name.members) == 3 and np.array_equal(by_name(obs, mask), three(obs, mask))
    assert np.array_equal(make_agent("ppo:ppo-gin-rummy", "eaai")(obs, mask), shipped(obs, mask))
