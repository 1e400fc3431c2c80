"""DQN: masking (acting and targets), two-player transition assembly, n-step returns, replay,
a tiny end-to-end run (tags, checkpoint, reproducibility) and resume; DQfD's margin term toward an
expert bot (the loss, its schedule, the labels and a tiny run)."""


import numpy as np
import pytest
import torch
from helpers import assert_expert_term_taught, assert_the_seed_decides_the_run, play_in_engine

from agents.checkpoint import load_checkpoint
from agents.rl.dqn import (
    DQNConfig,
    DQNShard,
    ReplayBuffer,
    TransitionAssembler,
    Transitions,
    expert_margin_loss,
    linear_schedule,
    td_targets,
)
from agents.rl.features import NUM_FEATURES
from agents.rl.networks import DuelingQNetwork
from agents.rl.policies import DQNPolicy, epsilon_greedy, greedy_actions
from experiments.config.loader import load_config
from experiments.config.schema import TrainConfig
from experiments.training.run_writer import read_metrics
from experiments.training.train import run_training
from hollywood_env import core
from hollywood_env.observation import encode

# evaluation against `simple` only: an untrained policy against `random` plays every hand to the
# stock's end, and those matches were most of a tiny run's time
TINY = ["--total_steps", "2048", "--dqn.num_games", "16", "--dqn.num_steps", "32", "--dqn.hidden", "[32, 32]",
        "--dqn.learning_starts", "128", "--dqn.batch_size", "32", "--dqn.gradient_steps", "2",
        "--league.snapshot_every", "2", "--league.gate_pairs", "2", "--eval.every", "2", "--eval.pairs", "2",
        "--eval.bots", "[simple]", "--env.max_steps", "100", "--league.bot_weight", "0.8",
        "--league.snapshot_weight", "0.1",
        "--log.progress", "false", "--torch_threads", "1", "--env.rule_options", "{target: 25}"]


def tiny_config(tmp_path, *extra):
    return load_config(TrainConfig, "configs/dqn_tiny.yaml", TINY + ["--log.root", str(tmp_path)] + list(extra))


# --- masking ------------------------------------------------------------------------------------


def test_greedy_and_epsilon_greedy_choose_only_legal_actions():
    g = torch.Generator().manual_seed(0)
    rng = np.random.default_rng(0)
    q = torch.randn(4096, 108, generator=g) * 5
    mask = torch.rand(4096, 108, generator=g) < 0.05
    mask[torch.arange(4096), torch.randint(0, 108, (4096,), generator=g)] = True
    q = torch.where(mask, q, q.abs() + 100)  # the illegal actions have the largest Q
    assert mask[torch.arange(4096), greedy_actions(q, mask)].all()
    for eps in (0.0, 0.3, 1.0):
        a = epsilon_greedy(q, mask.numpy(), eps, rng)
        assert mask.numpy()[np.arange(4096), a].all()
    # epsilon = 1 is uniform over the legal actions
    two = np.zeros((20000, 108), bool)
    two[:, [3, 70]] = True
    a = epsilon_greedy(torch.zeros(20000, 108), two, 1.0, rng)
    assert set(np.unique(a)) == {3, 70} and abs((a == 3).mean() - 0.5) < 0.02


def test_policy_plays_only_legal_actions_in_the_engine():
    torch.manual_seed(0)
    net = DuelingQNetwork(347 + NUM_FEATURES, 108, (16,))
    for eps in (0.0, 0.5):
        play_in_engine(DQNPolicy(net, epsilon=eps, seed=0), games=64, steps=200, seed=1)


class FixedQ:
    """A stub network: the same Q-values whatever the state."""

    def __init__(self, q):
        self.q = torch.as_tensor(q, dtype=torch.float32)

    def __call__(self, obs, mask=None):
        return self.q.expand(obs.shape[0], -1)


def test_target_never_bootstraps_from_an_illegal_action():
    obs = torch.zeros(1, 4)
    mask = torch.tensor([[False, True, False, True]])
    online = FixedQ([[9.0, 2.0, 50.0, 1.0]])  # illegal 0 and 2 have the largest Q
    target = FixedQ([[80.0, 3.0, 90.0, 7.0]])  # ... here too
    args = dict(reward=torch.tensor([0.5]), next_obs=obs, next_mask=mask, done=torch.tensor([False]),
                steps=torch.tensor([1]), gamma=0.9)
    # Double DQN: a* = argmax over legal of the online net = 1; evaluated by the target net: 3
    assert td_targets(online, target, **args).item() == pytest.approx(0.5 + 0.9 * 3.0)
    # plain DQN: max over legal of the target net = 7
    assert td_targets(online, target, double=False, **args).item() == pytest.approx(0.5 + 0.9 * 7.0)
    # n steps: gamma ** steps; terminal: no bootstrap at all
    args["steps"] = torch.tensor([3])
    assert td_targets(online, target, **args).item() == pytest.approx(0.5 + 0.9 ** 3 * 3.0)
    args["done"] = torch.tensor([True])
    assert td_targets(online, target, **args).item() == pytest.approx(0.5)
    # the dueling net's masked mean: Q of the legal actions does not depend on the illegal advantages
    net = DuelingQNetwork(4, 4, (8,))
    with torch.no_grad():
        x = torch.randn(3, 4)
        m = torch.tensor([[True, False, True, False]] * 3)
        q1 = net(x, m)
        net.advantage.bias[1] += 100.0
        q2 = net(x, m)
    assert torch.allclose(q1[:, [0, 2]], q2[:, [0, 2]], atol=1e-5)


# --- two-player transitions ---------------------------------------------------------------------


def o(x):
    """An identifiable 2-d observation."""
    return np.array([x, -x], dtype=np.float32)


def run_sequence(asm, steps):
    """``steps``: per batch step (decisions {game: (player, obs value, action)}, rewards (B, 2),
    terminated, truncated). Returns the emitted transitions as tuples."""
    B = asm.B
    out = []
    for decisions, rewards, term, trunc in steps:
        player = np.zeros(B, np.int64)
        obs = np.zeros((B, 2), np.float32)
        mask = np.ones((B, 3), bool)
        action = np.zeros(B, np.int64)
        valid = np.zeros(B, bool)
        for g, (p, x, a) in decisions.items():
            player[g], obs[g], action[g], valid[g] = p, o(x), a, True
            mask[g] = [True, x % 2 == 0, False]  # identifiable too
        out.append(asm.decide(player, obs, mask, action, valid))
        out.append(asm.outcome(np.asarray(rewards, float), np.asarray(term), np.asarray(trunc)))
    tr = Transitions.concat([t for t in out if len(t)]) if any(len(t) for t in out) else Transitions.empty(2, 3)
    return [(int(g), int(p), float(ob[0]), int(a), round(float(r), 6), float(no[0]), bool(d), int(s))
            for g, p, ob, a, r, no, d, s in zip(tr.game, tr.player, tr.obs, tr.action, tr.reward, tr.next_obs,
                                               tr.done, tr.steps, strict=True)], tr


def test_two_player_transitions_on_a_hand_built_sequence():
    """Game 0: self-play (both seats learn). Game 1: the learner is seat 1; seat 0's moves are a
    bot's (not valid decisions). P1 acts twice in a row, rewards arrive during the other
    player's moves, game 0 terminates and game 1 is truncated, then auto-reset dummy steps."""
    asm = TransitionAssembler(2, 2, 3, gamma=0.9, n_step=1)
    Z = [[0, 0], [0, 0]]
    steps = [
        ({0: (0, 1, 0)}, Z, [0, 0], [0, 0]),
        ({0: (1, 2, 1), 1: (1, 12, 2)}, [[0, 0], [0.3, -0.3]], [0, 0], [0, 0]),
        ({0: (1, 3, 2)}, [[0.5, -0.5], [-0.25, 0.25]], [0, 0], [0, 0]),
        ({0: (0, 4, 1), 1: (1, 14, 0)}, Z, [0, 0], [0, 0]),
        ({0: (1, 5, 0)}, [[-1, 1], [0.1, -0.1]], [1, 0], [0, 1]),
        ({}, Z, [0, 0], [0, 0]),
        ({0: (0, 7, 2), 1: (0, 17, 1)}, Z, [0, 0], [0, 0]),
    ]
    got, tr = run_sequence(asm, steps)
    assert got == [
        (0, 1, 2.0, 1, 0.0, 3.0, False, 1),  # t2: P1's second decision in a row closes its first
        (0, 0, 1.0, 0, 0.5, 4.0, False, 1),  # t3: P0's reward arrived while P1 was moving
        # g1: the learner (seat 1) got -0.3 after its own move at t1 and +0.25 during the bot's move
        (1, 1, 12.0, 2, -0.05, 14.0, False, 1),
        (0, 1, 3.0, 2, -0.5, 5.0, False, 1),  # t4: P1's reward at t2 is in its t2 transition
        (0, 0, 4.0, 1, -1.0, 0.0, True, 1),  # t4: the end closes both seats' transitions, terminal
        (0, 1, 5.0, 0, 1.0, 0.0, True, 1),
        # g1's open transition (t3) is dropped by the truncation; nothing at the dummy step t5 or
        # at the first decisions of the new episodes (t6)
    ]
    # next_mask is the mask of the next decision's state (odd obs: action 1 illegal); all False when done
    assert tr.next_mask.tolist()[:4] == [[True, False, False], [True, True, False], [True, True, False],
                                         [True, False, False]]
    assert not tr.next_mask[4:].any()
    assert tr.mask.tolist()[0] == [True, True, False]  # the state's own mask (obs 2: even)
    assert asm.open.tolist() == [[True, False], [True, False]]


def nstep_sequence(end):
    """One learner (seat 0) against a bot in one game: decisions d0..d4 with rewards 1..5
    (half of each arriving during the bot's following move), then the episode ``end``s."""
    asm = TransitionAssembler(1, 2, 3, gamma=0.5, n_step=3)
    steps = []
    for k in range(5):
        r = k + 1
        steps.append(({0: (0, 10 * k, 0)}, [[r / 2, -r / 2]], [0], [0]))
        last = k == 4
        steps.append(({}, [[r / 2, -r / 2]], [last and end == "term"], [last and end == "trunc"]))
    return run_sequence(asm, steps)[0]


def test_n_step_returns_terminal():
    assert nstep_sequence("term") == [
        (0, 0, 0.0, 0, 1 + 0.5 * 2 + 0.25 * 3, 30.0, False, 3),  # emitted at d3
        (0, 0, 10.0, 0, 2 + 0.5 * 3 + 0.25 * 4, 40.0, False, 3),  # at d4
        (0, 0, 20.0, 0, 3 + 0.5 * 4 + 0.25 * 5, 0.0, True, 3),  # at the end: flushed, terminal
        (0, 0, 30.0, 0, 4 + 0.5 * 5, 0.0, True, 2),
        (0, 0, 40.0, 0, 5.0, 0.0, True, 1),
    ]


def test_n_step_returns_truncated_bootstrap_from_the_last_state():
    assert nstep_sequence("trunc") == [
        (0, 0, 0.0, 0, 2.75, 30.0, False, 3),
        (0, 0, 10.0, 0, 4.5, 40.0, False, 3),
        (0, 0, 20.0, 0, 3 + 0.5 * 4, 40.0, False, 2),  # d4 (open, no next state) dropped
        (0, 0, 30.0, 0, 4.0, 40.0, False, 1),
    ]


# --- replay -------------------------------------------------------------------------------------


def make_transitions(k, start=0):
    x = np.arange(start, start + k, dtype=np.float32)
    return Transitions(np.repeat(x[:, None], 2, 1), np.ones((k, 3), bool), np.arange(start, start + k) % 3,
                       x, np.zeros((k, 2), np.float32), np.ones((k, 3), bool), np.zeros(k, bool),
                       np.ones(k, np.int64), np.zeros(k, np.int64), np.zeros(k, np.int64),
                       np.where(np.arange(k) % 2 == 0, np.arange(k) % 3, -1))


def test_replay_buffer_ring_and_priorities():
    rng = np.random.default_rng(0)
    buf = ReplayBuffer(5, 2, 3)
    buf.add(make_transitions(3))
    buf.add(make_transitions(4, start=3))  # wraps: keeps 2..6
    assert len(buf) == 5 and sorted(buf.reward.tolist()) == [2, 3, 4, 5, 6]
    per = ReplayBuffer(6, 2, 3, prioritized=True, alpha=1.0, eps=0.0)
    per.add(make_transitions(4))
    per.update_priorities(np.arange(4), np.array([1.0, 0.0, 3.0, 0.0]))
    idx = np.concatenate([per.sample(64, rng, beta=1.0)[0] for _ in range(200)])
    assert set(np.unique(idx)) == {0, 2}
    assert abs((idx == 2).mean() - 0.75) < 0.02
    _, batch, w = per.sample(8, rng, beta=1.0)
    assert w.max() == pytest.approx(1.0) and set(batch["reward"].tolist()) <= {0.0, 2.0}


def test_config_validation_and_schedule():
    with pytest.raises(ValueError):
        DQNConfig(tau=0.0)
    with pytest.raises(ValueError):
        DQNConfig(n_step=0)
    assert linear_schedule(1.0, 0.1, 100, 50) == pytest.approx(0.55)
    assert linear_schedule(1.0, 0.1, 100, 500) == pytest.approx(0.1)


# --- end to end ---------------------------------------------------------------------------------


@pytest.mark.slow  # DQN end to end stays in the default suite through tests/training/test_resume.py
def test_tiny_run_end_to_end_and_reproducible(tmp_path):
    run1, m1 = run_training(tiny_config(tmp_path))
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run1))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    for tag in ["losses/td_loss", "losses/q_values", "charts/epsilon", "charts/SPS", "charts/episodic_return",
                "charts/episodic_length",
                "charts/learning_rate", "eval/hand_win_rate_vs_simple",
                "eval/win_rate_vs_simple", "eval/points_per_hand_vs_simple", "hollywood/gin_rate",
                "hollywood/knock_deadwood", "hollywood/hands_per_match"]:
        assert tag in tags, f"missing tag {tag}; have {sorted(tags)}"
    lines = read_metrics(run1)
    assert [x["update"] for x in lines] == [1, 2, 3, 4]
    eps = [x["charts/epsilon"] for x in lines]
    assert eps[0] == 1.0 and eps == sorted(eps, reverse=True)

    ckpt = load_checkpoint(run1)
    assert ckpt["algo"] == "dqn" and ckpt["config"]["seed"] == 0 and ckpt["config"]["algo"] == "dqn"
    policy = DQNPolicy.from_checkpoint(run1 / "checkpoints" / "latest.pt", rules="hollywood", seed=0)
    state = core.init(8, "hollywood", seed=1)
    for _ in range(50):
        a = policy(encode(state), state.legal_action_mask)
        core.step(state, np.where(state.done, 0, a))  # raises on an illegal action
    # as a tournament agent (the registry calls from_checkpoint(path, rules=..., seed=Generator))
    from agents.matches import play_pairing

    agent = DQNPolicy.from_checkpoint(str(run1), rules="hollywood", seed=np.random.default_rng(3))
    r = play_pairing(agent, "random", "hollywood", n_pairs=2, seed=0, max_steps=200)
    assert r.hands.sum() > 0
    with pytest.raises(ValueError, match="observations of size"):
        DQNPolicy.from_checkpoint(run1, rules="gin-rummy")
    with pytest.raises(ValueError, match="dqn checkpoint, not ppo"):
        load_checkpoint(run1 / "checkpoints" / "latest.pt", expect_algo="ppo")

    assert_the_seed_decides_the_run(tiny_config, tmp_path, lines)


@pytest.mark.slow  # exact resume of DQN stays in the default suite: tests/training/test_resume.py
def test_resume_continues_from_latest(tmp_path):
    # also exercises prioritised replay and Polyak target updates
    per = ["--dqn.prioritized", "true", "--dqn.tau", "0.1", "--dqn.target_update_every", "1"]
    cfg = tiny_config(tmp_path, "--log.checkpoint_every", "1", "--total_steps", "1024", *per)
    run, _ = run_training(cfg)
    first = load_checkpoint(run / "checkpoints" / "latest.pt")
    assert first["update"] == 2 and first["train_state"]["grad_steps"] > 0
    longer = tiny_config(tmp_path, "--log.checkpoint_every", "1", "--total_steps", "2048", *per)
    run_training(longer, run_dir=run, resume_from=run / "checkpoints" / "latest.pt")
    lines = read_metrics(run)
    assert [x["update"] for x in lines] == [1, 2, 3, 4]
    assert lines[2]["global_step"] > lines[1]["global_step"] and "losses/td_loss" in lines[3]
    last = load_checkpoint(run / "checkpoints" / "latest.pt")
    assert last["update"] == 4 and last["global_step"] == lines[-1]["global_step"]


def test_missing_checkpoint_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="checkpoint not found"):
        DQNPolicy.from_checkpoint(tmp_path / "nope.pt")


# --- DQfD's margin term toward an expert ---------------------------------------------------------


def test_expert_margin_loss_on_a_hand_made_q_table():
    q = torch.tensor([[1.0, 3.0, 2.0, 10.0],
                      [1.0, 3.0, 2.0, 10.0],
                      [1.0, 3.0, 2.5, 10.0],
                      [1.0, 3.0, 2.5, 10.0]], requires_grad=True)
    mask = torch.tensor([[True, True, True, False]] * 3 + [[True, False, True, True]])
    a_e = torch.tensor([2, 1, 1, 0])
    j = expert_margin_loss(q, mask, a_e, 0.8)
    # row 0: max(1.8, 3.8, 2.0) - 2 (the illegal 10 + 0.8 never wins); row 1: the label leads by more
    # than the margin, 0; row 2: it leads by 0.5 < 0.8, 3.3 - 3; row 3: legal {0, 2, 3}: 10.8 - 1
    assert j.tolist() == pytest.approx([1.8, 0.0, 0.3, 9.8])
    j.sum().backward()  # pushes Q(a_E) up and the best other legal action down
    assert q.grad.tolist() == [[0, 1, -1, 0], [0, 0, 0, 0], [0, -1, 1, 0], [-1, 0, 0, 1]]
    # margin 0: the gap to the best legal action, never negative
    assert expert_margin_loss(q.detach(), mask, a_e, 0.0).tolist() == pytest.approx([1.0, 0.0, 0.0, 9.0])


def test_expert_weight_schedule_and_bad_values(tmp_path):
    dc = DQNConfig(expert="marjj", expert_coef=2.0, expert_until=0.5)
    assert [dc.expert_weight(u, 10) for u in (1, 3, 5, 6, 10)] == pytest.approx([2.0, 1.2, 0.4, 0.0, 0.0])
    assert DQNConfig().expert_weight(1, 10) == 0.0 and DQNConfig().expert_margin == 0.25
    for kwargs, match in [({"expert_until": 0.0}, "dqn.expert_until must be a fraction of the run in \\(0, 1\\]"),
                          ({"expert_until": 1.5}, "dqn.expert_until must be a fraction"),
                          ({"expert_coef": -1.0}, "dqn.expert_coef must be a finite number >= 0, got -1.0"),
                          ({"expert_coef": float("nan")}, "dqn.expert_coef must be a finite number"),
                          ({"expert_margin": -0.1}, "dqn.expert_margin must be a finite number >= 0"),
                          ({"expert_margin": float("inf")}, "dqn.expert_margin must be a finite number"),
                          ({"expert": "  "}, "dqn.expert must be a bot name")]:
        with pytest.raises(ValueError, match=match):
            DQNConfig(**kwargs)
    # a name that is no bot fails when the run starts, before any game is played
    with pytest.raises(ValueError, match="dqn.expert: unknown agent 'marj'"):
        run_training(tiny_config(tmp_path, "--dqn.expert", "marj"))
    with pytest.raises(ValueError, match="dqn.expert must be a bot that plays from the observation"):
        run_training(tiny_config(tmp_path, "--dqn.expert", "random"))


def test_expert_labels_travel_with_their_transitions():
    """Each n-step transition carries the label of its own first decision, through the queue, the
    flush at the end, the assembler's state and the replay buffer's (-1: unlabelled)."""
    asm = TransitionAssembler(1, 2, 3, gamma=0.5, n_step=3)
    out = []
    for k in range(5):
        label = np.array([-1 if k == 2 else (k % 3)])
        out.append(asm.decide(np.zeros(1, np.int64), o(10 * k)[None], np.ones((1, 3), bool), np.zeros(1, np.int64),
                              np.ones(1, bool), label))
        if k == 3:  # the open transition and its queue survive a checkpoint
            state = asm.get_state()
            asm = TransitionAssembler(1, 2, 3, gamma=0.5, n_step=3)
            asm.set_state(state)
        out.append(asm.outcome(np.array([[1.0, -1.0]]), np.array([k == 4]), np.array([False])))
    tr = Transitions.concat([t for t in out if len(t)])
    assert tr.obs[:, 0].tolist() == [0, 10, 20, 30, 40]
    assert tr.expert_action.tolist() == [0, 1, -1, 0, 1]
    # unlabelled decisions (no expert_action), and a state saved before labels existed
    asm = TransitionAssembler(1, 2, 3, n_step=2)
    old = {k: v for k, v in asm.get_state().items() if k not in ("o_exp", "q_exp")}
    asm.set_state(old)
    asm.decide(np.zeros(1, np.int64), o(1)[None], np.ones((1, 3), bool), np.zeros(1, np.int64), np.ones(1, bool))
    tr2 = asm.outcome(np.zeros((1, 2)), np.array([True]), np.array([False]))
    assert tr2.expert_action.tolist() == [-1]

    buf = ReplayBuffer(8, 2, 3)
    buf.add(tr)
    state = buf.get_state()
    again = ReplayBuffer(8, 2, 3)
    again.set_state(state)
    assert again.expert_action[:5].tolist() == [0, 1, -1, 0, 1] and again.expert_action[5:].tolist() == [-1] * 3
    _, batch, _ = again.sample(64, np.random.default_rng(0))
    assert set(zip(batch["reward"].round(4).tolist(), batch["expert_action"].tolist(), strict=True)) <= set(
        zip(tr.reward.round(4).tolist(), tr.expert_action.tolist(), strict=True))
    del state["expert_action"]  # a buffer saved before labels: nothing labelled
    again.set_state(state)
    assert (again.expert_action == -1).all()


@pytest.mark.parametrize("from_opponents", [False, True])
def test_shard_labels_every_stored_decision_with_the_experts_move(tmp_path, from_opponents):
    """``collect(label=True)`` gives each stored transition the expert's move from its own
    observation and mask (the learner's, and the opponents' with learn_from_opponents, where
    the league's own ``simple`` gives its move); without ``label`` nothing is labelled."""
    from agents.bots import SimpleBot

    cfg = tiny_config(tmp_path, "--dqn.expert", "simple", "--dqn.learn_from_opponents", str(from_opponents).lower(),
                      "--league.bots", "[random, simple, hollywood]")
    shard = DQNShard(cfg, 0)
    assert shard.expert_ids.tolist() == [1]
    expert = SimpleBot(shard.rules)
    obs_size = shard.obs_dim - NUM_FEATURES
    b = shard.collect(epsilon=0.5, label=True)
    tr = b.transitions
    assert len(tr) > 100 and (tr.expert_action >= 0).all()
    assert (tr.expert_action == expert(tr.obs[:, :obs_size], tr.mask)).all()
    assert tr.mask[np.arange(len(tr)), tr.expert_action].all()
    assert (DQNShard(cfg, 0).collect(epsilon=0.5).transitions.expert_action == -1).all()


def test_shard_state_restores_the_experts_generator(tmp_path):
    """A shard rebuilt from its state (as on resume or a worker restart: other seeds at first)
    continues with the same labels: the expert's tie-break generator is part of the state."""
    from agents.rl.collectors import weights_to_numpy

    cfg = tiny_config(tmp_path, "--dqn.expert", "marjj", "--dqn.learn_from_opponents", "true")
    shard = DQNShard(cfg, 0)
    shard.collect(epsilon=0.5, label=True)
    state = shard.get_state()
    assert "expert" in state["sampler"]
    other = DQNShard(cfg, 0, start_update=5)
    assert other.expert.rng.bit_generator.state != shard.expert.rng.bit_generator.state
    other.set_state(state, {})
    assert other.expert.rng.bit_generator.state == shard.expert.rng.bit_generator.state
    a = shard.collect(epsilon=0.5, label=True).transitions
    b = other.collect(weights_to_numpy(shard.net.state_dict()), epsilon=0.5, label=True).transitions
    assert len(a) == len(b) and (a.expert_action == b.expert_action).all() and (a.action == b.action).all()
    assert other.expert.rng.bit_generator.state == shard.expert.rng.bit_generator.state


def test_expert_term_teaches_the_q_network_the_bots_moves(tmp_path):
    """With ``dqn.expert`` every stored decision is labelled by the bot and the margin term makes
    its move the greedy one: agreement rises over a short run, then the term switches off."""
    cfg = tiny_config(tmp_path, "--dqn.expert", "simple", "--dqn.expert_coef", "5.0", "--dqn.expert_until", "0.75",
                      "--total_steps", str(16 * 32 * 8), "--dqn.gradient_steps", "16", "--dqn.lr", "0.001",
                      "--eval.every", "0")
    run, _ = run_training(cfg)
    lines = assert_expert_term_taught(run)
    assert "charts/expert_coef" not in lines[6] and "losses/expert_margin_loss" in lines[5]
