"""``ppo.belief_input``: the PPO network also reads the learned belief over the opponent's hand.

* The inputs: the observation, the derived features, then 52 values equal to
  ``LearnedBelief.probabilities`` on the observation alone (no history), with the hard facts.
* Nothing hidden is read: the same observation with other hidden cards gives the same inputs.
* Default off: the input size, the network and the shipped models are unchanged.
* Checkpoints record the option (a file without the key reads no belief); ``PPOPolicy.from_checkpoint``
  rebuilds it; a missing belief model is a clear error.
* A tiny run trains with finite losses, its league snapshots and its evaluation read the belief,
  and the process collector gives the same run as the local one. Exact resume is in
  ``tests/training/test_resume.py`` (``ppo-belief``).
"""

from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import tiny

from agents.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from agents.rl.features import BELIEF_SIZE, NUM_FEATURES, VERSION, augment, input_size
from agents.rl.networks import ActorCritic
from agents.rl.policies import PPOPolicy
from agents.rl.ppo import PPOConfig
from agents.search.belief import BeliefFeatures, LearnedBelief, belief_features, default_belief_path
from experiments.config.loader import ConfigError, load_config
from experiments.config.schema import TrainConfig, validate
from experiments.training.run_writer import read_metrics
from experiments.training.train import compare_metrics, run_training
from hollywood_env import core
from hollywood_env.actions import NUM_ACTIONS
from hollywood_env.cards import NUM_CARDS, masks_to_bools
from hollywood_env.determinize import InfoSet
from hollywood_env.observation import encode, observation_size
from hollywood_env.rules import resolve_rules

ROOT = Path(__file__).resolve().parents[2]
RULES = resolve_rules("hollywood")
OBS = observation_size(RULES)


def positions(n=32, steps=25, seed=0):
    """Live games some moves in (bot play: pile takes, discards, known cards), and their rows."""
    from agents.bots import SimpleBot

    state = core.init(n, "hollywood", seed=seed)
    bot = SimpleBot("hollywood")
    for _ in range(steps):
        core.step(state, bot(encode(state), state.legal_action_mask))
    return state, np.flatnonzero(~state.done)


@pytest.fixture(scope="module")
def belief():
    return belief_features("hollywood")


def test_inputs_are_observation_features_then_the_belief(belief):
    state, live = positions()
    obs, mask = encode(state, games=live), state.legal_action_mask[live]
    x = augment(obs, mask, True, belief)
    assert x.shape == (live.size, OBS + NUM_FEATURES + BELIEF_SIZE) == (live.size, input_size(OBS, True))
    np.testing.assert_array_equal(x[:, :OBS + NUM_FEATURES], augment(obs, mask, True))
    expected = LearnedBelief.from_file(default_belief_path()).probabilities(InfoSet.from_observation(obs, mask, RULES),
                                                                           obs, None)
    np.testing.assert_array_equal(x[:, -NUM_CARDS:], expected.astype(np.float32))
    # hard facts: 0 for the viewer's own hand and the pile, 1 for the opponent's known cards
    info = InfoSet.from_observation(obs, mask, RULES)
    p = x[:, -NUM_CARDS:]
    assert (p[masks_to_bools(info.hand)] == 0).all() and (p[masks_to_bools(info.pile_cards())] == 0).all()
    known = masks_to_bools(info.opp_known)
    assert known.any() and (p[known] == 1).all()
    assert ((p >= 0) & (p <= 1)).all() and 0 < p.sum(axis=1).min()


def test_rows_without_a_legal_action_get_zeros(belief):
    state, live = positions(n=8, seed=1)
    obs, mask = encode(state), state.legal_action_mask.copy()
    mask[3] = False
    x = augment(obs, mask, True, belief)
    assert (x[3, -NUM_CARDS:] == 0).all()
    rows = np.array([0, 1, 2, 4, 5, 6, 7])
    # (another batch size: the belief network's float sums may differ in the last bits)
    np.testing.assert_allclose(x[rows], augment(obs[rows], mask[rows], True, belief), rtol=0, atol=1e-6)


def test_the_inputs_never_read_hidden_cards(belief, reshuffle_hidden):
    state, live = positions(n=24, seed=2)
    other = reshuffle_hidden(state, live, np.random.default_rng(0))
    assert not np.array_equal(other.hands, state.hands[live]) and not np.array_equal(other.deck, state.deck[live])
    a = augment(encode(state, games=live), state.legal_action_mask[live], True, belief)
    b = augment(encode(other), other.legal_action_mask, True, belief)
    np.testing.assert_array_equal(a, b)
    net = PPOConfig(hidden=[16], belief_input=True).make_network(input_size(OBS, True), NUM_ACTIONS)
    policy = PPOPolicy(net, greedy=True, belief=belief)
    np.testing.assert_array_equal(policy(encode(state, games=live), state.legal_action_mask[live]),
                                  policy(encode(other), other.legal_action_mask))


def test_default_off_changes_nothing():
    assert PPOConfig().belief_input is False and PPOConfig().input_size(OBS) == OBS + NUM_FEATURES
    assert PPOConfig().make_belief(RULES) is None
    torch.manual_seed(0)
    new = PPOConfig(hidden=[32, 32]).make_network(OBS + NUM_FEATURES, NUM_ACTIONS)
    torch.manual_seed(0)
    old = ActorCritic(OBS + NUM_FEATURES, NUM_ACTIONS, (32, 32))
    assert new.extra_inputs == 0 and new.state_dict().keys() == old.state_dict().keys()
    assert all(torch.equal(new.state_dict()[k], old.state_dict()[k]) for k in old.state_dict())
    shipped = PPOPolicy.from_checkpoint(ROOT / "models" / "ppo_hollywood.pt", rules="hollywood")
    assert shipped.belief is None and shipped.net.obs_dim == OBS + NUM_FEATURES
    with pytest.raises(ValueError, match="belief_input and the belief must go together"):
        PPOPolicy(PPOConfig(hidden=[8], belief_input=True).make_network(input_size(OBS, True), NUM_ACTIONS))


def test_belief_input_must_be_a_bool():
    with pytest.raises(ValueError, match=r"ppo\.belief_input must be true or false"):
        PPOConfig(belief_input="yes")
    with pytest.raises(ConfigError, match=r"ppo\.belief_input"):
        load_config(TrainConfig, ROOT / "configs" / "ppo_tiny.yaml", ["--ppo.belief_input", "maybe"])


def save_net(net: ActorCritic, path: Path, **fields) -> None:
    """A checkpoint as ``ppo.train`` writes it (inference fields), plus ``fields``."""
    save_checkpoint({"algo": "ppo", "features": VERSION, "model": net.state_dict(), "obs_dim": net.obs_dim,
                     "num_actions": NUM_ACTIONS, "hidden": list(net.hidden), "critic_inputs": net.critic_inputs,
                     "encoder": "mlp", "rules": RULES.to_dict(), **fields}, path)


def test_checkpoint_round_trip_gives_identical_actions(tmp_path, belief):
    torch.manual_seed(1)
    net = PPOConfig(hidden=[32, 32], belief_input=True).make_network(input_size(OBS, True), NUM_ACTIONS)
    with torch.no_grad():  # a policy far from uniform, so equal actions mean equal weights
        for p in net.parameters():
            p.add_(torch.randn_like(p) * 0.3)
    save_net(net, tmp_path / "b.pt", belief_input=True)
    loaded = PPOPolicy.from_checkpoint(tmp_path / "b.pt", rules="hollywood")
    assert isinstance(loaded.belief, BeliefFeatures) and loaded.net.extra_inputs == BELIEF_SIZE
    state, live = positions(n=64, seed=3)
    obs, mask = encode(state, games=live), state.legal_action_mask[live]
    np.testing.assert_array_equal(loaded(obs, mask), PPOPolicy(net, belief=belief)(obs, mask))
    # the agent spec plays it too (what `hollywood evaluate ppo:FILE simple` loads)
    from agents.registry import make_agent

    agent = make_agent(f"ppo:{tmp_path / 'b.pt'}", "hollywood", seed=0)
    np.testing.assert_array_equal(agent(obs, mask), loaded(obs, mask))


def test_checkpoint_without_the_key_reads_no_belief(tmp_path):
    torch.manual_seed(2)
    net = ActorCritic(OBS + NUM_FEATURES, NUM_ACTIONS, (16,))
    save_net(net, tmp_path / "old.pt")
    assert "belief_input" not in load_checkpoint(tmp_path / "old.pt")
    loaded = PPOPolicy.from_checkpoint(tmp_path / "old.pt")
    assert loaded.belief is None and loaded.net.extra_inputs == 0
    state, live = positions(n=16, seed=4)
    obs, mask = encode(state, games=live), state.legal_action_mask[live]
    np.testing.assert_array_equal(loaded(obs, mask), PPOPolicy(net)(obs, mask))


def test_a_missing_belief_model_is_a_clear_error(tmp_path, monkeypatch):
    import agents.search.belief

    net = PPOConfig(hidden=[8], belief_input=True).make_network(input_size(OBS, True), NUM_ACTIONS)
    save_net(net, tmp_path / "b.pt", belief_input=True)
    missing = tmp_path / "models" / "belief_hollywood.pt"
    monkeypatch.setattr(agents.search.belief, "default_belief_path", lambda: missing)
    with pytest.raises(CheckpointError, match=r"reads the learned belief.*belief model not found: .*"
                                              r"belief_hollywood\.pt.*hollywood belief train"):
        PPOPolicy.from_checkpoint(tmp_path / "b.pt")
    with pytest.raises(CheckpointError, match="hollywood belief train"):
        PPOConfig(belief_input=True).make_belief(RULES)


def test_reading_the_belief_model_leaves_torch_random_state_alone():
    """A run that reads the model (first in its process) or finds it read already starts its
    network from the same random weights."""
    from agents.search.belief import load_belief

    torch.manual_seed(0)
    a = torch.rand(4)
    torch.manual_seed(0)
    load_belief(default_belief_path())
    assert torch.equal(torch.rand(4), a)


# --- a tiny run ------------------------------------------------------------------------------------


def test_tiny_run_trains_reads_the_belief_everywhere_and_loads(tmp_path):
    """With the DAgger term too (the expert reads the observation part of the inputs)."""
    seen = {}

    def look(update, collector):
        league = collector.shards[0].league
        snaps = [league.policies[k] for k in league.policies if k not in league.bot_ids]
        seen[update] = [isinstance(p.belief, BeliefFeatures) for p in snaps]

    cfg = tiny(tmp_path, "--ppo.belief_input", "true", "--eval.bots", "[simple]", "--league.snapshot_weight", "0.5",
               "--ppo.expert", "simple", "--ppo.expert_until", "0.5")
    run, metrics = run_training(cfg, on_update=look)
    lines = read_metrics(run)
    assert [x["update"] for x in lines] == [1, 2, 3, 4]
    for line in lines:
        for k in ("losses/value_loss", "losses/policy_loss", "losses/entropy", "losses/approx_kl"):
            assert np.isfinite(line[k]), (k, line)
    assert np.isfinite(lines[0]["losses/expert_loss"])
    assert "eval/win_rate_vs_simple" in metrics
    assert any(seen.values()) and all(all(v) for v in seen.values())  # snapshots joined and read the belief
    ckpt = load_checkpoint(run / "checkpoints" / "latest.pt")
    assert ckpt["belief_input"] is True and ckpt["obs_dim"] == input_size(OBS, True)
    policy = PPOPolicy.from_checkpoint(run, rules="hollywood")
    assert isinstance(policy.belief, BeliefFeatures)
    state = core.init(8, "hollywood", seed=1)
    assert state.legal_action_mask[np.arange(8), policy(encode(state), state.legal_action_mask)].all()
    # the run cannot resume without the belief inputs
    off = tiny(tmp_path, "--total_steps", "4096")
    with pytest.raises(ValueError, match=r"\(mlp, belief inputs\) does not match the config's .*\(mlp\)"):
        run_training(off, run_dir=run, resume_from=run / "checkpoints" / "latest.pt")


def test_process_collector_matches_local_with_the_belief(tmp_path):
    extra = ("--ppo.belief_input", "true", "--collector.num_workers", "2", "--total_steps", "1024",
             "--eval.bots", "[simple]")
    local, _ = run_training(tiny(tmp_path / "local", *extra))
    processes, _ = run_training(tiny(tmp_path / "process", *extra, "--collector.kind", "process"))
    assert compare_metrics(read_metrics(local), read_metrics(processes)) == []


# --- the comparison config -------------------------------------------------------------------------


def test_comparison_config_differs_from_the_mlp_one_only_in_the_belief_input():
    mlp = validate(load_config(TrainConfig, ROOT / "configs" / "ppo_encoder_mlp.yaml"))
    bel = validate(load_config(TrainConfig, ROOT / "configs" / "ppo_belief_input.yaml"))
    assert (mlp.ppo.belief_input, bel.ppo.belief_input) == (False, True)
    assert bel.log.name == "ppo_belief_input" and bel.ppo.encoder == "mlp"
    mlp.ppo.belief_input, mlp.log.name = True, bel.log.name
    assert mlp == bel
