"""PPO: masking, a tiny end-to-end run (tags, checkpoint, reproducibility), resume."""


import numpy as np
import pytest
import torch
from helpers import assert_expert_term_taught, assert_the_seed_decides_the_run, play_in_engine
from helpers import tiny as tiny_config

from agents.checkpoint import load_checkpoint
from agents.rl.features import NUM_FEATURES
from agents.rl.networks import ActorCritic, MaskedCategorical
from agents.rl.policies import PPOPolicy
from experiments.training.run_writer import read_metrics
from experiments.training.train import run_training
from hollywood_env import core
from hollywood_env.observation import encode


def test_masked_categorical_never_samples_illegal_actions():
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(4096, 108, generator=g) * 5
    mask = torch.rand(4096, 108, generator=g) < 0.05
    mask[torch.arange(4096), torch.randint(0, 108, (4096,), generator=g)] = True
    # make the illegal logits the largest: masking must still exclude them
    logits = torch.where(mask, logits, logits.abs() + 100)
    dist = MaskedCategorical(logits, mask)
    for _ in range(5):
        a = dist.sample(g)
        assert mask[torch.arange(4096), a].all()
    assert mask[torch.arange(4096), dist.mode()].all()
    assert torch.isfinite(dist.entropy()).all()
    # entropy is over legal actions: uniform over k legal actions gives log k
    uniform = MaskedCategorical(torch.zeros(2, 108), mask[:2])
    assert torch.allclose(uniform.entropy(), mask[:2].sum(-1).float().log(), atol=1e-5)


def test_policy_plays_only_legal_actions_in_the_engine():
    net = ActorCritic(347 + NUM_FEATURES, 108, (16,))
    play_in_engine(PPOPolicy(net, greedy=False, seed=0), games=64, steps=200, seed=0)


def test_tiny_run_end_to_end_and_reproducible(tmp_path):
    cfg = tiny_config(tmp_path)
    run1, m1 = run_training(cfg)
    events = list(run1.glob("events.out.tfevents.*"))
    assert events
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run1))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    for tag in ["charts/episodic_return", "charts/SPS", "charts/learning_rate", "losses/value_loss",
                "losses/policy_loss", "losses/entropy", "losses/approx_kl", "losses/old_approx_kl", "losses/clipfrac",
                "charts/episodic_length",
                "losses/explained_variance", "eval/win_rate_vs_simple", "eval/points_per_hand_vs_simple",
                "hollywood/gin_rate", "hollywood/knock_deadwood", "hollywood/hands_per_match"]:
        assert tag in tags, f"missing tag {tag}; have {sorted(tags)}"
    assert (run1 / "config.yaml").is_file() and (run1 / "meta.yaml").is_file()
    lines = read_metrics(run1)
    assert [x["update"] for x in lines] == [1, 2, 3, 4]
    lengths = [x["charts/episodic_length"] for x in lines if "charts/episodic_length" in x]
    assert lengths and all(1 <= n < cfg.env.max_steps for n in lengths)  # learner decisions per episode

    # the checkpoint loads without extra flags and plays
    ckpt = load_checkpoint(run1)
    assert ckpt["algo"] == "ppo" and ckpt["config"]["seed"] == 0
    policy = PPOPolicy.from_checkpoint(run1 / "checkpoints" / "latest.pt")
    with pytest.raises(ValueError, match="other number of columns"):  # one-column rules: a clear error
        PPOPolicy.from_checkpoint(run1, rules="gin-rummy")
    state = core.init(8, "hollywood", seed=1)
    a = policy(encode(state), state.legal_action_mask)
    assert state.legal_action_mask[np.arange(8), a].all()

    # same config, same seed: identical metrics (SPS aside); another seed differs
    assert_the_seed_decides_the_run(tiny_config, tmp_path, lines)


def test_resume_continues_from_latest(tmp_path):
    cfg = tiny_config(tmp_path, "--log.checkpoint_every", "1", "--total_steps", "1024")
    run, _ = run_training(cfg)
    assert load_checkpoint(run / "checkpoints" / "latest.pt")["update"] == 2
    longer = tiny_config(tmp_path, "--log.checkpoint_every", "1", "--total_steps", "2048")
    run_training(longer, run_dir=run, resume_from=run / "checkpoints" / "latest.pt")
    lines = read_metrics(run)
    assert [x["update"] for x in lines] == [1, 2, 3, 4]
    assert load_checkpoint(run / "checkpoints" / "latest.pt")["update"] == 4


def test_missing_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="checkpoint not found"):
        PPOPolicy.from_checkpoint(tmp_path / "nope.pt")


def test_privileged_critic_never_reaches_the_policy():
    """The asymmetric critic reads the opponent's hand; the logits depend on the observation only."""
    torch.manual_seed(0)
    net = ActorCritic(347 + NUM_FEATURES, 108, (32, 32), critic_inputs=52)
    obs = torch.randn(8, 347 + NUM_FEATURES)
    hand_a, hand_b = (torch.rand(8, 52) < 0.2).float(), (torch.rand(8, 52) < 0.2).float()
    la, va = net(obs, hand_a)
    lb, vb = net(obs, hand_b)
    l0, v0 = net(obs)
    assert torch.equal(la, lb) and torch.equal(la, l0)
    assert v0 is None and not torch.allclose(va, vb)
    plain = ActorCritic(347 + NUM_FEATURES, 108, (32, 32))
    assert plain(obs)[1].shape == (8,) and plain.critic is None


def test_privileged_critic_run_trains_and_ships_a_public_policy(tmp_path):
    """(Its exact resume: tests/training/test_resume.py, ppo-privileged.)"""
    cfg = tiny_config(tmp_path, "--ppo.privileged_critic", "true")
    run, metrics = run_training(cfg)
    assert np.isfinite(metrics["losses/value_loss"])
    ckpt = load_checkpoint(run / "checkpoints" / "latest.pt")
    assert ckpt["critic_inputs"] == 52 and any(k.startswith("critic.") for k in ckpt["model"])
    policy = PPOPolicy.from_checkpoint(run / "checkpoints" / "latest.pt", rules="hollywood", seed=0)
    state = core.init(16, "hollywood", seed=3)
    a = policy(encode(state), state.legal_action_mask)
    assert state.legal_action_mask[np.arange(16), a].all()


@pytest.mark.parametrize("fraction", ["1.0", "0.5"])
def test_expert_term_teaches_the_policy_the_bots_moves(tmp_path, fraction):
    """With ``ppo.expert`` the learner's positions are labelled by the bot (all of them, or a random
    half) and the imitation term pulls the policy toward it: agreement rises over a short run, then
    the term switches off."""
    cfg = tiny_config(tmp_path, "--ppo.expert", "simple", "--ppo.expert_coef", "5.0", "--ppo.expert_until", "0.75",
                      "--total_steps", str(16 * 32 * 8), "--ppo.update_epochs", "4",
                      "--ppo.expert_fraction", fraction)
    run, _ = run_training(cfg)
    assert_expert_term_taught(run)


def test_expert_fraction_labels_a_random_share_of_the_learners_positions(tmp_path):
    """``ppo.expert_fraction``: about that share of the learner's positions carry the expert's move
    (a legal one, the same the bot plays there), the rest -1; with 1.0 every position is labelled."""
    from agents.rl.loop import make_expert
    from agents.rl.ppo import PPOShard

    for fraction, low, high in ((0.3, 0.25, 0.35), (1.0, 1.0, 1.0)):
        cfg = tiny_config(tmp_path, "--ppo.expert", "simple", "--ppo.expert_fraction", str(fraction))
        shard = PPOShard(cfg, 0)
        batch = shard.collect(label=True)
        labelled = batch.expert_action >= 0
        assert low <= labelled.mean() <= high
        assert np.all(batch.expert_action[~labelled] == -1)
        rows = np.flatnonzero(labelled)
        assert batch.mask[rows, batch.expert_action[rows]].all()
        bot = make_expert("simple", cfg.env.make_rules(), 0)
        obs = batch.obs[rows, :shard.observation_size]
        np.testing.assert_array_equal(bot(obs, batch.mask[rows]), batch.expert_action[rows])


def test_expert_weight_schedule_and_bad_experts():
    from agents.rl.ppo import PPOConfig, make_expert

    pc = PPOConfig(expert="marjj", expert_coef=2.0, expert_until=0.5)
    assert [pc.expert_weight(u, 10) for u in (1, 3, 5, 6, 10)] == pytest.approx([2.0, 1.2, 0.4, 0.0, 0.0])
    assert PPOConfig().expert_weight(1, 10) == 0.0
    with pytest.raises(ValueError, match="expert_until must be a fraction"):
        PPOConfig(expert_until=0.0)
    with pytest.raises(ValueError, match="expert_coef must be a finite number"):
        PPOConfig(expert_coef=-1.0)
    for bad in (0.0, 1.5, float("nan")):
        with pytest.raises(ValueError, match="ppo.expert_fraction"):
            PPOConfig(expert_fraction=bad)
    with pytest.raises(ValueError, match="must be a bot that plays from the observation"):
        make_expert("random", "hollywood", 0)
    with pytest.raises(ValueError, match="unknown agent 'marj'"):
        make_expert("marj", "hollywood", 0)


def test_anchor_kl_is_the_kl_from_the_anchor_over_the_legal_moves():
    """``anchor_kl``: sum over the legal moves of p_anchor * (log p_anchor - log p_policy); zero
    when the policy is the anchor, and a gradient step on it alone brings the policy closer."""
    from agents.rl.ppo import anchor_kl

    torch.manual_seed(0)
    obs_dim = encode(core.init(1, "hollywood", seed=0)).shape[1] + NUM_FEATURES
    anchor, net = ActorCritic(obs_dim, 108, [16, 16]), ActorCritic(obs_dim, 108, [16, 16])
    obs = torch.randn(6, obs_dim)
    mask = torch.zeros(6, 108, dtype=torch.bool)
    mask[:, [3, 7, 50]] = True
    mask[0, 90] = True
    dist = MaskedCategorical(net(obs)[0], mask)
    kl = anchor_kl(anchor, obs, dist)
    p = torch.softmax(anchor(obs)[0].detach().masked_fill(~mask, -torch.inf), -1)
    q = torch.softmax(net(obs)[0].detach().masked_fill(~mask, -torch.inf), -1)
    expected = torch.where(mask, p * (p.log() - q.log()), 0.0).sum(-1)
    torch.testing.assert_close(kl.detach(), expected)
    assert (kl > 0).all()
    assert torch.all(anchor_kl(anchor, obs, MaskedCategorical(anchor(obs)[0], mask)).abs() < 1e-6)
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    before = kl.mean().item()
    for _ in range(20):
        opt.zero_grad()
        anchor_kl(anchor, obs, MaskedCategorical(net(obs)[0], mask)).mean().backward()
        opt.step()
    after = anchor_kl(anchor, obs, MaskedCategorical(net(obs)[0], mask)).mean().item()
    assert np.isfinite(after) and after < 0.5 * before


def test_anchor_pulls_the_policy_toward_its_moves(tmp_path):
    """``ppo.anchor``: two runs that start from the same weights, one with a strong pull toward
    them and one with a negligible pull; the strong pull keeps the policy closer (the logged
    ``losses/anchor_kl``), and a wrong anchor or a coefficient without an anchor is refused."""
    from agents.rl.ppo import PPOConfig

    # no evaluation: the pull is read from the logged losses, and matches against the bots are most
    # of a tiny run's time
    start, _ = run_training(tiny_config(tmp_path / "start", "--total_steps", "512", "--eval.bots", "[]"))
    ckpt = str(start / "checkpoints" / "latest.pt")
    kls = {}
    for coef in ("0.000001", "10.0"):
        cfg = tiny_config(tmp_path / coef, "--ppo.init", ckpt, "--ppo.anchor", ckpt, "--ppo.anchor_coef", coef,
                          "--ppo.update_epochs", "4", "--ppo.lr", "0.003", "--eval.bots", "[]")
        run, _ = run_training(cfg)
        kls[coef] = [x["losses/anchor_kl"] for x in read_metrics(run)]
        assert len(kls[coef]) == 4 and all(np.isfinite(kls[coef]))
    assert sum(kls["10.0"]) < 0.5 * sum(kls["0.000001"])
    with pytest.raises(ValueError, match="ppo.anchor and ppo.anchor_coef go together"):
        PPOConfig(anchor_coef=0.5)
    with pytest.raises(ValueError, match="ppo.anchor and ppo.anchor_coef go together"):
        PPOConfig(anchor="ppo-hollywood")
    with pytest.raises(ValueError, match="ppo.anchor_coef"):
        PPOConfig(anchor="ppo-hollywood", anchor_coef=float("inf"))
    with pytest.raises(ValueError, match="ppo.anchor 'ppo-hollywood'.*does not have this config's shape"):
        run_training(tiny_config(tmp_path / "bad", "--ppo.anchor", "ppo-hollywood", "--ppo.anchor_coef", "1.0"))


def test_a_wider_network_starts_from_a_narrower_one_with_the_same_moves_and_values():
    """``ppo.init`` into wider hidden layers (``widen_state_dict``): ``ppo-hollywood`` (2 x 128)
    widened to 2 x 256 gives the same logits and values on real positions; the new units' weights
    out are zero but get gradients, so training grows them; a narrower network, or one of another
    depth, is refused."""
    from agents.checkpoint import load_checkpoint as load
    from agents.paths import MODELS_DIR
    from agents.rl.features import augment
    from agents.rl.loop import load_initial_weights, widen_state_dict

    ckpt = load(MODELS_DIR / "ppo_hollywood.pt", expect_algo="ppo")
    obs_dim = ckpt["obs_dim"]
    small = ActorCritic(obs_dim, 108, ckpt["hidden"])
    small.load_state_dict({k: torch.as_tensor(v) for k, v in ckpt["model"].items()})
    torch.manual_seed(0)
    wide = ActorCritic(obs_dim, 108, [256, 256])
    load_initial_weights(wide, "ppo-hollywood")
    state = core.init(64, "hollywood", seed=5)
    obs = torch.as_tensor(augment(encode(state), state.legal_action_mask))
    (l_small, v_small), (l_wide, v_wide) = small(obs), wide(obs)
    torch.testing.assert_close(l_wide, l_small)
    torch.testing.assert_close(v_wide, v_small)
    assert wide.trunk[2].weight[:128, 128:].abs().sum() == 0 and wide.trunk[2].weight[128:].abs().sum() > 0
    assert wide.policy.weight[:, 128:].abs().sum() == 0
    l_wide.logsumexp(-1).sum().backward()
    assert wide.policy.weight.grad[:, 128:].abs().sum() > 0
    assert widen_state_dict(wide.state_dict(), small.state_dict()) is None
    assert widen_state_dict(small.state_dict(), ActorCritic(obs_dim, 108, [256, 256, 64]).state_dict()) is None
    with pytest.raises(ValueError, match="does not have this config's shape .* nor a narrower one"):
        load_initial_weights(ActorCritic(obs_dim, 108, [64, 64]), "ppo-hollywood")


@pytest.mark.parametrize(("flags", "message"), [
    (["--ppo.init", "nope.pt"], "hollywood train: ppo.init 'nope.pt': checkpoint not found"),
    (["--ppo.anchor", "nope.pt", "--ppo.anchor_coef", "1"], "hollywood train: ppo.anchor 'nope.pt': checkpoint not found"),
    (["--ppo.anchor", "ppo-hollywood", "--ppo.anchor_coef", "1"],
     "hollywood train: ppo.anchor 'ppo-hollywood': its network (trunk.0.weight (128, 507)"),
])
def test_weights_that_do_not_load_or_fit_are_one_line_errors_before_the_run(tmp_path, capsys, flags, message):
    """``ppo.init`` and ``ppo.anchor`` are checked with the config: a missing file or a network of
    another shape is a one-line error, and no run folder is made."""
    from experiments.training.train import train_main

    assert train_main(["configs/ppo_tiny.yaml", "--log.root", str(tmp_path), *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
    assert not any(tmp_path.iterdir())
