"""The PPO actor-critic's card-plane encoder (``ppo.encoder: conv``): shapes and masking for both
encoders, the suits x ranks layout of the card planes, checkpoints (round trip, files without
the key), config checks, a tiny training run, and the comparison configs."""

from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import play_in_engine, scripted_position

from agents.checkpoint import load_checkpoint, save_checkpoint
from agents.rl.features import NUM_FEATURES, VERSION, augment
from agents.rl.networks import ENCODERS, ActorCritic, CardPlaneEncoder, MaskedCategorical, card_grid
from agents.rl.policies import PPOPolicy
from agents.rl.ppo import PPOConfig
from experiments.config.loader import ConfigError, load_config
from experiments.config.schema import TrainConfig, validate
from experiments.training.run_writer import read_metrics
from experiments.training.train import run_training
from hollywood_env import core
from hollywood_env import observation as O
from hollywood_env.actions import NUM_ACTIONS
from hollywood_env.cards import parse_cards
from hollywood_env.observation import encode, observation_size
from hollywood_env.rules import resolve_rules

ROOT = Path(__file__).resolve().parents[2]
RULES = resolve_rules("hollywood")
OBS = observation_size(RULES)
DIM = OBS + NUM_FEATURES


def positions(cards: str) -> set[tuple[int, int]]:
    """(suit row, rank column) of each card of ``cards`` on the grid, from the engine's own
    parser (``suit * 13 + rank``)."""
    return {(c // 13, c % 13) for c in parse_cards(cards)}


def augmented_states(n: int = 32, seed: int = 0, steps: int = 7):
    """Real positions: observations with the derived features, and their legal masks."""
    state = core.init(n, "hollywood", seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        legal = state.legal_action_mask
        core.step(state, np.array([rng.choice(np.flatnonzero(m)) for m in legal]))
        if state.done.any():
            core.reset_games(state, state.done)
    obs, mask = encode(state), state.legal_action_mask
    return augment(obs, mask), mask, state


# --- shapes and masking ----------------------------------------------------------------------------


@pytest.mark.parametrize("encoder", ENCODERS)
@pytest.mark.parametrize("critic_inputs", [0, 52])
def test_shapes_and_masking(encoder, critic_inputs):
    torch.manual_seed(0)
    net = ActorCritic(DIM, NUM_ACTIONS, (32, 32), critic_inputs, encoder=encoder)
    x, mask, _ = augmented_states()
    obs, m = torch.from_numpy(x), torch.from_numpy(mask)
    hand = torch.rand(len(x), 52)
    logits, value = net(obs, hand if critic_inputs else None)
    assert logits.shape == (len(x), NUM_ACTIONS) and value.shape == (len(x),)
    assert torch.isfinite(logits).all() and torch.isfinite(value).all()
    assert torch.equal(net.get_value(obs, hand if critic_inputs else None), value)
    dist = MaskedCategorical(logits, m)
    g = torch.Generator().manual_seed(0)
    for _ in range(5):
        assert mask[np.arange(len(x)), dist.sample(g).numpy()].all()
    assert mask[np.arange(len(x)), dist.mode().numpy()].all()
    if critic_inputs:  # the policy reads the public observation only
        assert net(obs)[1] is None and torch.equal(net(obs, torch.rand(len(x), 52))[0], logits)
        assert (net.critic_encoder is not None) == (encoder == "conv")
    assert (net.encoder is None) == (encoder == "mlp")


def test_mlp_keeps_its_parameters_and_default():
    """``mlp`` (the default) is the network of before the option: the same parameters, in the same
    order, drawn in the same order from the same seed."""
    torch.manual_seed(1)
    default = ActorCritic(DIM, NUM_ACTIONS, (32,), 52)
    torch.manual_seed(1)
    mlp = ActorCritic(DIM, NUM_ACTIONS, (32,), 52, encoder="mlp")
    assert list(default.state_dict()) == ["trunk.0.weight", "trunk.0.bias", "policy.weight", "policy.bias",
                                          "critic.0.weight", "critic.0.bias", "value.weight", "value.bias",
                                          "card_term.weight", "card_term.bias"]
    assert all(torch.equal(a, b) for a, b in zip(default.state_dict().values(), mlp.state_dict().values(), strict=True))
    assert PPOConfig().encoder == "mlp" and PPOConfig().make_network(DIM, NUM_ACTIONS).encoder is None


def test_conv_policy_plays_legal_moves_in_the_engine():
    policy = PPOPolicy(PPOConfig(hidden=[16], encoder="conv").make_network(DIM, NUM_ACTIONS), greedy=False, seed=0)
    play_in_engine(policy, games=32, steps=60, seed=0)


# --- the card layout -------------------------------------------------------------------------------


def test_a_run_lies_along_one_suit_row_and_a_set_down_one_rank_column():
    obs, _ = scripted_position("5h 6h 7h 7c 7d 7s Kd", top="Qs")  # a real State's observation
    x = torch.from_numpy(augment(obs, np.zeros((1, NUM_ACTIONS), bool)))
    grid = card_grid(x, OBS)
    assert grid.shape == (1, 9, 4, 13)
    held = {tuple(p) for p in torch.nonzero(grid[0, 0]).tolist()}
    assert held == positions("5h 6h 7h 7c 7d 7s Kd")
    run = sorted(positions("5h 6h 7h"))  # hearts is suit row 2; ranks 5, 6, 7 are columns 4, 5, 6
    assert run == [(2, 4), (2, 5), (2, 6)]
    assert {suit for suit, _ in positions("7c 7d 7h 7s")} == {0, 1, 2, 3}
    assert {rank for _, rank in positions("7c 7d 7h 7s")} == {6}
    assert grid[0, 0, :, 6].tolist() == [1.0, 1.0, 1.0, 1.0]  # the four sevens: one rank column
    assert grid[0, 0, 2, 4:7].tolist() == [1.0, 1.0, 1.0]  # 5-6-7 of hearts: adjacent in one suit row
    assert {tuple(p) for p in torch.nonzero(grid[0, 1]).tolist()} == positions("Qs")  # PILE_TOP
    # the derived MELDED plane (channel 6) on the same grid: the run and the set, not the king
    assert {tuple(p) for p in torch.nonzero(grid[0, 6]).tolist()} == positions("5h 6h 7h 7c 7d 7s")


def test_convolutions_see_neighbouring_ranks_of_a_suit_and_the_suits_of_a_rank():
    """One card more in the hand changes the run features only in its suit row, within two ranks
    of it, and the set features only in its rank column."""
    torch.manual_seed(0)
    enc = CardPlaneEncoder(DIM)
    x, _, _ = augmented_states(8)
    x = torch.from_numpy(x)
    c = enc.out_channels
    for card in parse_cards("7h Ac Ks"):
        suit, rank = divmod(card, 13)
        y = x.clone()
        y[:, O.HAND.start + card] = 1.0 - y[:, O.HAND.start + card]
        with torch.no_grad():
            diff = (enc(y) - enc(x)).abs()
        runs = diff[:, : c * 52].reshape(-1, 4, 13, c).amax(dim=(0, 3))
        sets = diff[:, c * 52: c * 65].reshape(-1, 13, c).amax(dim=(0, 2))
        assert torch.equal(diff[:, c * 65:], torch.zeros_like(diff[:, c * 65:]))  # the non-card part
        near = torch.zeros(4, 13, dtype=torch.bool)
        near[suit, max(0, rank - 2): rank + 3] = True
        assert runs[near].sum() > 0 and runs[~near].sum() == 0, card
        assert sets[rank] > 0 and sets[torch.arange(13) != rank].sum() == 0, card


# --- checkpoints -----------------------------------------------------------------------------------


def save_net(net: ActorCritic, path: Path, **fields) -> None:
    """A checkpoint as ``ppo.train`` writes it (inference fields), plus ``fields``."""
    save_checkpoint({"algo": "ppo", "features": VERSION, "model": net.state_dict(), "obs_dim": DIM,
                     "num_actions": NUM_ACTIONS, "hidden": list(net.hidden), "critic_inputs": net.critic_inputs,
                     "rules": RULES.to_dict(), **fields}, path)


def greedy_actions(policy, state) -> np.ndarray:
    return policy(encode(state), state.legal_action_mask)


def test_conv_checkpoint_round_trip_gives_identical_actions(tmp_path):
    torch.manual_seed(2)
    net = ActorCritic(DIM, NUM_ACTIONS, (32, 32), 52, encoder="conv")
    with torch.no_grad():  # a policy far from uniform, so equal actions mean equal weights
        for p in net.parameters():
            p.add_(torch.randn_like(p) * 0.3)
    save_net(net, tmp_path / "conv.pt", encoder="conv")
    loaded = PPOPolicy.from_checkpoint(tmp_path / "conv.pt", rules="hollywood")
    assert loaded.net.encoder_name == "conv" and isinstance(loaded.net.encoder, CardPlaneEncoder)
    original = PPOPolicy(net, greedy=True)
    _, _, state = augmented_states(64, seed=5)
    assert np.array_equal(greedy_actions(loaded, state), greedy_actions(original, state))
    x = torch.from_numpy(augment(encode(state), state.legal_action_mask))
    with torch.no_grad():
        assert torch.equal(loaded.net(x)[0], net(x)[0])


def test_checkpoint_without_the_key_is_an_mlp(tmp_path):
    torch.manual_seed(3)
    net = ActorCritic(DIM, NUM_ACTIONS, (32,))
    save_net(net, tmp_path / "old.pt")  # as written before the option: no "encoder"
    assert "encoder" not in load_checkpoint(tmp_path / "old.pt")
    loaded = PPOPolicy.from_checkpoint(tmp_path / "old.pt")
    assert loaded.net.encoder_name == "mlp" and loaded.net.encoder is None
    _, _, state = augmented_states(32, seed=6)
    assert np.array_equal(greedy_actions(loaded, state), greedy_actions(PPOPolicy(net), state))
    save_net(net, tmp_path / "bad.pt", encoder="transformer")
    with pytest.raises(ValueError, match="unknown encoder 'transformer'.*mlp, conv"):
        PPOPolicy.from_checkpoint(tmp_path / "bad.pt")


# --- config ----------------------------------------------------------------------------------------


def test_bad_encoder_name_is_a_clear_error():
    with pytest.raises(ValueError, match=r"ppo\.encoder must be one of mlp, conv, got 'cnn'"):
        PPOConfig(encoder="cnn")
    with pytest.raises(ConfigError, match=r"ppo\.encoder must be one of mlp, conv, got 'cnn'"):
        load_config(TrainConfig, ROOT / "configs" / "ppo_tiny.yaml", ["--ppo.encoder", "cnn"])
    with pytest.raises(ValueError, match="unknown encoder 'cnn'"):
        ActorCritic(DIM, NUM_ACTIONS, (8,), encoder="cnn")


def test_comparison_configs_load_and_differ_only_in_the_encoder():
    cfgs = {enc: validate(load_config(TrainConfig, ROOT / "configs" / f"ppo_encoder_{enc}.yaml")) for enc in ENCODERS}
    mlp, conv = (cfgs[e] for e in ENCODERS)
    assert (mlp.ppo.encoder, conv.ppo.encoder) == ("mlp", "conv")
    assert mlp.league.bots == ["simple", "hollywood", "marjj"] and mlp.eval.bots == ["simple", "hollywood"]
    mlp.ppo.encoder, mlp.log.name = conv.ppo.encoder, conv.log.name
    assert mlp == conv


# --- a tiny run ------------------------------------------------------------------------------------

TINY = ["--total_steps", "2048", "--ppo.num_games", "16", "--ppo.num_steps", "32", "--ppo.hidden", "[32, 32]",
        "--ppo.num_minibatches", "2", "--ppo.update_epochs", "2", "--league.snapshot_every", "2",
        "--league.gate_pairs", "2", "--eval.every", "2", "--eval.pairs", "2", "--eval.bots", "[simple]",
        "--league.bots", "[random, simple]", "--env.max_steps", "100", "--league.bot_weight", "0.8",
        "--league.snapshot_weight", "0.1", "--log.progress", "false", "--torch_threads", "1",
        "--env.rule_options", "{target: 25}", "--ppo.encoder", "conv"]


def test_tiny_conv_run_trains_with_finite_metrics_and_loads_as_conv(tmp_path):
    cfg = load_config(TrainConfig, ROOT / "configs" / "ppo_tiny.yaml", TINY + ["--log.root", str(tmp_path)])
    run, metrics = run_training(cfg)
    lines = read_metrics(run)
    assert [x["update"] for x in lines] == [1, 2, 3, 4]
    for line in lines:
        for k in ("losses/value_loss", "losses/policy_loss", "losses/entropy", "losses/approx_kl"):
            assert np.isfinite(line[k]), (k, line)
    assert "eval/win_rate_vs_simple" in metrics
    ckpt = load_checkpoint(run / "checkpoints" / "latest.pt")
    assert ckpt["encoder"] == "conv" and any(k.startswith("encoder.run1.") for k in ckpt["model"])
    policy = PPOPolicy.from_checkpoint(run, rules="hollywood")
    assert policy.net.encoder_name == "conv"
    state = core.init(8, "hollywood", seed=1)
    assert state.legal_action_mask[np.arange(8), greedy_actions(policy, state)].all()
    # the run cannot resume as an MLP
    mlp = load_config(TrainConfig, ROOT / "configs" / "ppo_tiny.yaml",
                      TINY + ["--log.root", str(tmp_path), "--ppo.encoder", "mlp", "--total_steps", "4096"])
    with pytest.raises(ValueError, match=r"\(conv\) does not match the config's .*\(mlp\)"):
        run_training(mlp, run_dir=run, resume_from=run / "checkpoints" / "latest.pt")
