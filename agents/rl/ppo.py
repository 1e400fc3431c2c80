"""Masked PPO with league self-play on the batched self-play API (CleanRL style, one file).

The rollout steps ``num_games`` matches at once through :class:`hollywood_env.SelfPlayBatch`.
Each game has an opponent from the :class:`~agents.rl.league.League` (the latest policy itself,
a frozen snapshot, or a bot); the learner acts in its seat (both seats in self-play games).
The games are split into shards collected here or on Ray workers (:mod:`agents.rl.collectors`,
the ``collector:`` section of a config); this module has the loss (:func:`ppo_loss`) and the
update on their samples (:func:`ppo_update`). Seeding, the league's gated snapshots (sent to the
shards with the next rollout), checkpoints and resume, evaluation and progress are the loop
shared with DQN (:func:`agents.rl.loop.train_loop`).

Two-player transitions: a learner transition runs from one of its decisions to its next decision
in the same game; the rewards its player receives in between (including those caused by the
opponent's moves) are summed into it, and it is terminal when the episode ends before that next
decision. GAE runs backwards over each (game, player) stream. The last transition of a stream
that is still open when the rollout ends is not trained on; its value bootstraps the one before.

PPO details: invalid-action masking (illegal logits set to the dtype's minimum, entropy over the
legal actions), GAE, clipped surrogate, clipped value loss, advantage normalisation per
minibatch, linear learning-rate annealing, global gradient clipping, orthogonal initialisation.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.rl.collectors import Shard
from agents.rl.features import BELIEF_SIZE, input_size
from agents.rl.loop import Learner, load_initial_weights, make_expert, train_loop
from agents.rl.networks import ENCODERS, ActorCritic, MaskedCategorical
from agents.rl.policies import PPOPolicy
from hollywood_env.actions import NUM_ACTIONS
from hollywood_env.cards import NUM_CARDS, masks_to_bools
from hollywood_env.observation import observation_size
from hollywood_env.sampling import SeedLike


@dataclass
class PPOConfig:
    """PPO hyperparameters (the ``ppo:`` section of a config)."""

    num_games: int = 512  # matches stepped together
    num_steps: int = 64  # decisions per game per rollout
    lr: float = 2.5e-4
    anneal_lr: bool = True
    gamma: float = 0.995
    gae_lambda: float = 0.95
    num_minibatches: int = 8
    update_epochs: int = 4
    norm_adv: bool = True
    clip_coef: float = 0.2
    clip_vloss: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    # asymmetric actor-critic: the critic (a trunk of its own) also reads the opponent's hand,
    # the policy never does (agents.rl.networks.ActorCritic); training only, nothing leaks into play
    privileged_critic: bool = False
    # what the trunk reads (agents.rl.networks.ActorCritic): "mlp" the flat observation; "conv" the
    # card planes as a suits x ranks grid through convolutions along the ranks of each suit (runs)
    # and across the suits of each rank (sets), the rest of the observation appended
    encoder: str = "mlp"
    # the network also reads, after the features, the learned belief over the opponent's hand: for
    # each card the probability that the opponent holds it (agents.search.belief.BeliefFeatures: the
    # shipped models/belief_hollywood.pt on the observation alone, with the hard facts)
    belief_input: bool = False
    # imitation on the learner's own decisions (DAgger): a cross-entropy term toward the move the
    # bot ``expert`` would make in the same position, weighted ``expert_coef`` at the first update
    # and decaying linearly to 0 at the fraction ``expert_until`` of the run (no labels after).
    # The expert is a bot that plays from the observation and the mask only (simple, neller,
    # hollywood, marjj), so it sees what the learner sees and nothing the rules hide.
    expert: str | None = None
    expert_coef: float = 1.0
    expert_until: float = 0.5
    # the share of the learner's positions the expert labels, chosen at random by the expert's own
    # generator (the term averages over the labelled ones): each label costs a bot decision, so a
    # share below 1 makes the imitation phase's rollouts cheaper
    expert_fraction: float = 1.0
    # the weights the network starts from (a fresh run only; --resume restores its own): a shipped
    # model's name (ppo-hollywood), ppo:PATH, or a PPO checkpoint / run folder; its network must
    # have this section's shape (hidden, encoder, belief_input, privileged_critic), or narrower
    # hidden layers of the same depth: it is then widened with the same function
    # (agents.rl.loop.widen_state_dict), so a larger network can start from a shipped one. None: random
    init: str | None = None
    # a pull toward a fixed policy's moves at every update: the loss gains ``anchor_coef`` times
    # KL(anchor || policy) over the legal moves of each position, the anchor's distribution from
    # the weights ``anchor`` names (as ``init`` does; the same network shape). Other opponents,
    # exploiters for one, can then train the policy without it forgetting what the anchor plays well
    anchor: str | None = None
    anchor_coef: float = 0.0

    def expert_weight(self, update: int, num_updates: int) -> float:
        """The imitation term's weight at ``update`` (1-based) of ``num_updates``; 0 without an expert."""
        from agents.rl.loop import expert_weight

        return expert_weight(self.expert, self.expert_coef, self.expert_until, update, num_updates)

    @property
    def critic_inputs(self) -> int:
        """Privileged values the critic reads: the opponent's hand (52), or none."""
        return NUM_CARDS if self.privileged_critic else 0

    def make_network(self, obs_dim: int, num_actions: int) -> ActorCritic:
        """The actor-critic these settings describe (hidden sizes, privileged critic or not, encoder,
        belief inputs or not); ``obs_dim``: :meth:`input_size`."""
        return ActorCritic(obs_dim, num_actions, self.hidden, self.critic_inputs, encoder=self.encoder,
                           extra_inputs=BELIEF_SIZE if self.belief_input else 0)

    def input_size(self, observation_size: int) -> int:
        """What the network reads: the observation, the features and (``belief_input``) the belief."""
        return input_size(observation_size, self.belief_input)

    def make_belief(self, rules: Any) -> Any:
        """The :class:`agents.search.belief.BeliefFeatures` the network reads (``belief_input``; the model
        file is read once per process), else None."""
        if not self.belief_input:
            return None
        from agents.search.belief import belief_features

        return belief_features(rules)

    def frozen_policy(self, obs_dim: int, num_actions: int, weights: Mapping[str, Any], name: str, seed: SeedLike,
                      forbid_taken: bool, belief: Any = None) -> PPOPolicy:
        """A frozen league snapshot: a new network of these settings (:meth:`make_network`) with
        ``weights``, sampling its moves with its own generator seeded from ``seed``; ``belief``:
        :meth:`make_belief` (needed with ``belief_input``)."""
        return PPOPolicy.from_weights(self.make_network(obs_dim, num_actions), weights, greedy=False, seed=seed,
                                      name=name, forbid_taken=forbid_taken, belief=belief)

    def __post_init__(self):
        """Every value checked (ValueError naming ``ppo.<key>``, the value and the allowed range)."""
        from agents.rl.checks import check_at_least, check_expert_fields, check_hidden, check_numbers

        check_at_least("ppo", self, ("num_games", "num_steps", "num_minibatches", "update_epochs"), 1)
        # (name, low, low included, high): a finite number in the range
        check_numbers("ppo", self, (("lr", 0.0, False, np.inf), ("gamma", 0.0, False, 1.0),
                                    ("gae_lambda", 0.0, True, 1.0), ("clip_coef", 0.0, False, np.inf),
                                    ("ent_coef", 0.0, True, np.inf), ("vf_coef", 0.0, True, np.inf),
                                    ("max_grad_norm", 0.0, False, np.inf), ("target_kl", 0.0, False, np.inf)),
                      nullable=("target_kl",))
        check_expert_fields("ppo", self.expert, self.expert_coef, self.expert_until)
        check_numbers("ppo", self, (("expert_fraction", 0.0, False, 1.0), ("anchor_coef", 0.0, True, np.inf)))
        if bool(self.anchor) != (self.anchor_coef > 0):
            raise ValueError(f"ppo.anchor and ppo.anchor_coef go together: set both (anchor_coef > 0) or neither, "
                             f"got anchor {self.anchor!r} and anchor_coef {self.anchor_coef!r}")
        check_hidden("ppo", self.hidden)
        if self.encoder not in ENCODERS:
            raise ValueError(f"ppo.encoder must be one of {', '.join(ENCODERS)}, got {self.encoder!r}")
        if not isinstance(self.belief_input, bool):
            raise ValueError(f"ppo.belief_input must be true or false, got {self.belief_input!r}")


# --- rollout: a shard of the games, with GAE -------------------------------------------------


@dataclass
class ShardBatch:
    """One PPO shard's part of an update: flat training samples (the learner transitions that
    close within the rollout) and the statistics of its games."""

    obs: np.ndarray  # (n, obs_dim) float32, features (and belief inputs) included
    mask: np.ndarray  # (n, NUM_ACTIONS) bool
    action: np.ndarray  # (n,) int64
    logp: np.ndarray  # (n,) float32
    advantage: np.ndarray  # (n,) float32
    ret: np.ndarray  # (n,) float32: advantage + value
    value: np.ndarray  # (n,) float32
    critic_obs: np.ndarray | None  # (n, 52) float32: the opponent's hand (privileged critic), else None
    # (n,) int64: the expert's move in each position, -1 where not labelled (ppo.expert_fraction);
    # None without labels
    expert_action: np.ndarray | None
    episode_returns: list[float]  # finished episodes against other opponents (not self-play)
    stats: object  # agents.rl.rollout.HollywoodStats
    n_learner: int  # learner decisions (trained on or not)
    live: list[int]  # league member ids the shard still holds
    seconds: float = 0.0
    state: dict | None = field(default=None, repr=False)  # Shard.get_state() when asked for


class PPOShard(Shard):
    """A PPO shard: samples the learner's actions from the policy with its own torch generator,
    keeps each (game, player) stream's open transition and runs GAE (see :mod:`agents.rl.ppo`)."""

    algo = "ppo"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        T, B = self.T, self.B
        self.obs_buf = np.zeros((T, B, self.obs_dim), dtype=np.float32)
        self.mask_buf = np.zeros((T, B, self.num_actions), dtype=bool)
        self.act_buf = np.zeros((T, B), dtype=np.int64)
        self.logp_buf = np.zeros((T, B), dtype=np.float32)
        self.val_buf = np.zeros((T, B), dtype=np.float32)
        self.rew_buf = np.zeros((T, B), dtype=np.float32)
        self.done_buf = np.zeros((T, B), dtype=bool)
        self.learner_buf = np.zeros((T, B), dtype=bool)
        self.player_buf = np.zeros((T, B), dtype=np.int64)
        k = self.cfg.ppo.critic_inputs
        self.critic_buf = np.zeros((T, B, k), dtype=np.float32) if k else None
        # the expert's tie-break seed comes from the league's RNG, drawn only when there is one
        self.expert = (make_expert(self.cfg.ppo.expert, self.rules, self.rollout.league.rng.integers(2**62))
                       if self.cfg.ppo.expert else None)
        self.expert_buf = np.zeros((T, B), dtype=np.int64) if self.expert is not None else None

    def input_belief(self) -> Any:
        return self.cfg.ppo.make_belief(self.rules)

    def make_net(self) -> ActorCritic:
        return self.cfg.ppo.make_network(self.obs_dim, self.num_actions)

    def snapshot_policy(self, name: str, weights: Mapping[str, Any], seed: SeedLike) -> PPOPolicy:
        return self.cfg.ppo.frozen_policy(self.obs_dim, self.num_actions, weights, name, seed, self.forbid,
                                          self.belief)

    def init_sampler(self, seed: int) -> None:
        self.gen = torch.Generator().manual_seed(seed)

    def sampler_state(self) -> Any:
        if self.expert is None:
            return self.gen.get_state()
        return {"torch": self.gen.get_state(), "expert": self.expert.rng.bit_generator.state}

    def set_sampler_state(self, state: Any) -> None:
        if isinstance(state, dict):
            self.gen.set_state(state["torch"])
            self.expert.rng.bit_generator.state = state["expert"]
        else:
            self.gen.set_state(state)

    def collect(self, weights: dict | None = None, additions: Iterable[tuple[str, Mapping[str, Any]]] = (),
                want_state: bool = False, label: bool = False) -> ShardBatch:
        """Load ``weights`` (None: the network is the learner's own), add the snapshots promoted
        since the last update, step every game ``num_steps`` times and run GAE. ``label``: also
        record the expert's move in each of the learner's positions (``ppo.expert``)."""
        t0 = time.perf_counter()
        self._begin(weights, additions)
        pc, T, B, net, dev = self.cfg.ppo, self.T, self.B, self.net, self.device
        obs_buf, mask_buf, act_buf, logp_buf = self.obs_buf, self.mask_buf, self.act_buf, self.logp_buf
        val_buf, rew_buf, done_buf = self.val_buf, self.rew_buf, self.done_buf
        learner_buf, player_buf = self.learner_buf, self.player_buf
        critic_buf, rollout = self.critic_buf, self.rollout
        expert_buf = self.expert_buf if label and self.expert is not None else None
        obs_size = self.observation_size
        last_t = np.full((B, 2), -1, dtype=np.int64)  # each player's open transition per game
        n_learner = 0
        for t in range(T):
            def act(rows, x, m, t=t):  # called within this iteration by rollout.step; t bound for clarity
                obs_buf[t, rows] = x
                mask_buf[t, rows] = m
                c = None
                if critic_buf is not None:  # the opponent's hand, for the critic only
                    opp = 1 - rollout.player[rows]
                    critic_buf[t, rows] = masks_to_bools(rollout.batch.state.hands[rows, opp])
                    c = torch.from_numpy(critic_buf[t, rows]).to(dev)
                with torch.no_grad():
                    logits, value = net(torch.from_numpy(x).to(dev), c)
                    dist = MaskedCategorical(logits, torch.from_numpy(m).to(dev))
                    a = dist.sample(self.gen).cpu()
                    logp_buf[t, rows] = dist.log_prob(a.to(dev)).cpu().numpy()
                    val_buf[t, rows] = value.cpu().numpy()
                act_buf[t, rows] = a.numpy()
                if expert_buf is not None:  # the expert reads the observation part of x only
                    if pc.expert_fraction < 1.0:  # a random share of the rows; -1: not labelled
                        pick = self.expert.rng.random(rows.size) < pc.expert_fraction
                        expert_buf[t, rows] = -1
                        expert_buf[t, rows[pick]] = self.expert(x[pick, :obs_size], m[pick])
                    else:
                        expert_buf[t, rows] = self.expert(x[:, :obs_size], m)
                return a.numpy()

            rew_buf[t] = 0.0
            done_buf[t] = False
            s = self.rollout.step(act)
            lr_rows = np.flatnonzero(s.learner)
            learner_buf[t] = s.learner
            player_buf[t] = s.player
            last_t[lr_rows, s.player[lr_rows]] = t
            n_learner += lr_rows.size
            # rewards go to each player's open transition; episode ends close them
            for p in (0, 1):
                open_rows = np.flatnonzero(last_t[:, p] >= 0)
                rew_buf[last_t[open_rows, p], open_rows] += s.rewards[open_rows, p]
            e = np.flatnonzero(s.terminated | s.truncated)
            if e.size:
                for p in (0, 1):
                    closed = e[last_t[e, p] >= 0]
                    done_buf[last_t[closed, p], closed] = True
                last_t[e] = -1
        stats, returns_done = self.rollout.take_stats()

        # --- GAE over each (game, player) stream, backwards ---------------------------------------
        open_tail = np.zeros((T, B), dtype=bool)
        for p in (0, 1):
            rows = np.flatnonzero(last_t[:, p] >= 0)
            open_tail[last_t[rows, p], rows] = True
        adv_buf = np.zeros((T, B), dtype=np.float32)
        next_val = np.zeros((B, 2), dtype=np.float32)
        next_adv = np.zeros((B, 2), dtype=np.float32)
        for t in range(T - 1, -1, -1):
            rows = np.flatnonzero(learner_buf[t])
            if rows.size == 0:
                continue
            p = player_buf[t, rows]
            v = val_buf[t, rows]
            nonterminal = ~done_buf[t, rows]
            delta = rew_buf[t, rows] + pc.gamma * next_val[rows, p] * nonterminal - v
            adv = delta + pc.gamma * pc.gae_lambda * nonterminal * next_adv[rows, p]
            adv = np.where(open_tail[t, rows], 0.0, adv)
            adv_buf[t, rows] = adv
            next_val[rows, p] = v
            next_adv[rows, p] = adv
        sel = (learner_buf & ~open_tail).reshape(-1)
        advantage = adv_buf.reshape(-1)[sel]
        value = val_buf.reshape(-1)[sel]
        return ShardBatch(
            obs=obs_buf.reshape(-1, self.obs_dim)[sel], mask=mask_buf.reshape(-1, self.num_actions)[sel],
            action=act_buf.reshape(-1)[sel], logp=logp_buf.reshape(-1)[sel], advantage=advantage,
            ret=advantage + value, value=value,
            critic_obs=None if critic_buf is None else critic_buf.reshape(-1, critic_buf.shape[-1])[sel],
            expert_action=None if expert_buf is None else expert_buf.reshape(-1)[sel],
            episode_returns=returns_done, stats=stats, n_learner=int(n_learner),
            live=list(self.league.policies), seconds=time.perf_counter() - t0,
            state=self.get_state() if want_state else None)


# --- the loss and the update ---------------------------------------------------------------------


@dataclass
class PPOBatch:
    """The samples of one update as tensors (the shards' :class:`ShardBatch` concatenated)."""

    obs: torch.Tensor
    mask: torch.Tensor
    action: torch.Tensor
    logp: torch.Tensor
    advantage: torch.Tensor
    ret: torch.Tensor
    value: torch.Tensor
    critic_obs: torch.Tensor | None  # with the privileged critic
    expert_action: torch.Tensor | None  # with the imitation term on

    @classmethod
    def from_shards(cls, batches: list[ShardBatch], critic: bool, expert: bool) -> PPOBatch:
        def cat(name: str) -> torch.Tensor:
            return torch.from_numpy(np.concatenate([getattr(b, name) for b in batches]))

        return cls(cat("obs"), cat("mask"), cat("action"), cat("logp"), cat("advantage"), cat("ret"), cat("value"),
                   cat("critic_obs") if critic else None, cat("expert_action") if expert else None)


@dataclass
class PPOLoss:
    """:func:`ppo_loss` of one minibatch: the loss to minimise and its parts."""

    loss: torch.Tensor
    pg_loss: torch.Tensor
    v_loss: torch.Tensor
    entropy: torch.Tensor
    approx_kl: torch.Tensor
    old_approx_kl: torch.Tensor
    clipfrac: float
    expert_loss: torch.Tensor
    agreement: float | None  # the share of labelled rows where the greedy move is the expert's
    anchor_kl: torch.Tensor


def anchor_kl(anchor: ActorCritic, obs: torch.Tensor, dist: MaskedCategorical) -> torch.Tensor:
    """KL(anchor || policy) of each position, over its legal moves: how much of the anchor's
    choice the policy ``dist`` has lost (the anchor's side carries no gradient)."""
    with torch.no_grad():
        ref = MaskedCategorical(anchor(obs)[0], dist.mask)
    return torch.where(dist.mask, ref.log_probs.exp() * (ref.log_probs - dist.log_probs), 0.0).sum(-1)


def ppo_loss(net: ActorCritic, pc: PPOConfig, b: PPOBatch, mb: torch.Tensor, device: torch.device,
             expert_coef: float, anchor: ActorCritic | None = None) -> PPOLoss:
    """The clipped PPO loss of the minibatch ``mb`` (indices into ``b``): clipped surrogate,
    (clipped) value loss, entropy bonus over the legal actions, with an expert the imitation
    term ``-log pi(expert move)`` weighted ``expert_coef`` (only the labelled rows when
    ``ppo.expert_fraction < 1``), and with an ``anchor`` network ``ppo.anchor_coef`` times
    :func:`anchor_kl`."""
    obs, critic_obs = b.obs[mb].to(device), None if b.critic_obs is None else b.critic_obs[mb].to(device)
    logits, newv = net(obs, critic_obs)
    dist = MaskedCategorical(logits, b.mask[mb].to(device))
    newlogp = dist.log_prob(b.action[mb].to(device))
    entropy = dist.entropy()
    logratio = newlogp - b.logp[mb].to(device)
    ratio = logratio.exp()
    with torch.no_grad():
        old_approx_kl = (-logratio).mean()
        approx_kl = ((ratio - 1) - logratio).mean()
        clipfrac = ((ratio - 1.0).abs() > pc.clip_coef).float().mean().item()
    mb_adv = b.advantage[mb].to(device)
    if pc.norm_adv and mb_adv.numel() > 1:
        mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
    pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - pc.clip_coef, 1 + pc.clip_coef)).mean()
    ret, oldv = b.ret[mb].to(device), b.value[mb].to(device)
    if pc.clip_vloss:
        v_clipped = oldv + torch.clamp(newv - oldv, -pc.clip_coef, pc.clip_coef)
        v_loss = 0.5 * torch.max((newv - ret) ** 2, (v_clipped - ret) ** 2).mean()
    else:
        v_loss = 0.5 * ((newv - ret) ** 2).mean()
    entropy_loss = entropy.mean()
    loss = pg_loss - pc.ent_coef * entropy_loss + pc.vf_coef * v_loss
    expert_loss, agreement = torch.tensor(0.0), None
    if b.expert_action is not None:  # imitation: the expert's move in the same position
        target = b.expert_action[mb].to(device)
        if pc.expert_fraction < 1.0:  # only the labelled rows (target -1: none)
            labelled = target >= 0
            target = target[labelled]
            log_probs = dist.log_probs[labelled].gather(-1, target.unsqueeze(-1))
            expert_loss = -log_probs.mean() if target.numel() else torch.tensor(0.0)
            chosen = dist.logits[labelled].argmax(-1)
        else:
            expert_loss = -dist.log_prob(target).mean()
            chosen = dist.logits.argmax(-1)
        loss = loss + expert_coef * expert_loss
        if target.numel():
            with torch.no_grad():
                agreement = (chosen == target).float().mean().item()
    kl_anchor = torch.tensor(0.0)
    if anchor is not None:
        kl_anchor = anchor_kl(anchor, obs, dist).mean()
        loss = loss + pc.anchor_coef * kl_anchor
    return PPOLoss(loss, pg_loss, v_loss, entropy_loss, approx_kl, old_approx_kl, clipfrac, expert_loss, agreement,
                   kl_anchor)


def ppo_update(net: ActorCritic, optimizer: torch.optim.Optimizer, pc: PPOConfig, b: PPOBatch, gen: torch.Generator,
               device: torch.device, expert_coef: float, anchor: ActorCritic | None = None) -> dict:
    """``update_epochs`` epochs of minibatches in a random order (from ``gen``) over ``b``,
    stopping early past ``target_kl``; the update's ``losses/*`` (of the last minibatch, as CleanRL)."""
    n = b.obs.shape[0]
    mb_size = max(1, n // pc.num_minibatches)
    last = PPOLoss(torch.tensor(0.0), *[torch.tensor(0.0)] * 5, 0.0, torch.tensor(0.0), None, torch.tensor(0.0))
    clipfracs, agreement = [], []
    for _epoch in range(pc.update_epochs):
        perm = torch.randperm(n, generator=gen)
        for start in range(0, n, mb_size):
            last = ppo_loss(net, pc, b, perm[start:start + mb_size], device, expert_coef, anchor)
            clipfracs.append(last.clipfrac)
            if last.agreement is not None:
                agreement.append(last.agreement)
            optimizer.zero_grad()
            last.loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), pc.max_grad_norm)
            optimizer.step()
        if pc.target_kl is not None and last.approx_kl > pc.target_kl:
            break
    y_pred, y_true = b.value.numpy(), b.ret.numpy()
    var_y = np.var(y_true)
    explained_var = float("nan") if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
    metrics = {"losses/value_loss": last.v_loss.item(), "losses/policy_loss": last.pg_loss.item(),
               "losses/entropy": last.entropy.item(), "losses/approx_kl": last.approx_kl.item(),
               "losses/old_approx_kl": last.old_approx_kl.item(),
               "losses/clipfrac": float(np.mean(clipfracs)) if clipfracs else 0.0,
               "losses/explained_variance": explained_var}
    if b.expert_action is not None:
        metrics.update({"losses/expert_loss": last.expert_loss.item(), "charts/expert_coef": expert_coef,
                        "charts/expert_agreement": float(np.mean(agreement))})
    if anchor is not None:
        metrics["losses/anchor_kl"] = last.anchor_kl.item()
    return metrics


# --- training ----------------------------------------------------------------------------------


class PPOLearner(Learner):
    """PPO's part of the shared loop (:func:`agents.rl.loop.train_loop`): the actor-critic, Adam,
    rollouts from :class:`PPOShard` and :func:`ppo_update`."""

    algo = section = "ppo"
    shard = PPOShard

    def __init__(self, cfg: Any, rules: Any, device: torch.device):
        super().__init__(cfg, rules, device)
        pc = cfg.ppo
        self.obs_dim = pc.input_size(observation_size(rules))
        self.belief = pc.make_belief(rules)  # the learned belief the network reads (ppo.belief_input), else None
        self.net = pc.make_network(self.obs_dim, NUM_ACTIONS).to(device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=pc.lr, eps=1e-5)
        self.anchor = None  # the fixed network of ppo.anchor, else None
        if pc.anchor:
            self.anchor = pc.make_network(self.obs_dim, NUM_ACTIONS).to(device)
            load_initial_weights(self.anchor, pc.anchor, "ppo.anchor")
            self.anchor.requires_grad_(False).eval()

    def snapshot_policy(self, weights: Mapping[str, Any], name: str, seed: int) -> PPOPolicy:
        return self.config.frozen_policy(self.obs_dim, NUM_ACTIONS, weights, name, seed, self.forbid, self.belief)

    def eval_policy(self) -> PPOPolicy:
        return PPOPolicy(copy.deepcopy(self.net).cpu(), greedy=self.cfg.eval.greedy, seed=self.cfg.seed,
                         forbid_taken=self.forbid, belief=self.belief)

    def checkpoint_fields(self) -> dict:
        pc = self.config
        return {"obs_dim": self.obs_dim, "num_actions": NUM_ACTIONS, "hidden": list(pc.hidden),
                "critic_inputs": pc.critic_inputs, "encoder": pc.encoder, "belief_input": pc.belief_input}

    def check_resume(self, saved: dict, path: Path) -> None:
        pc = self.config
        saved_encoder = saved.get("encoder", "mlp")  # checkpoints from before the option: the MLP
        saved_belief = bool(saved.get("belief_input", False))  # before the option: no belief inputs
        if (saved["obs_dim"] != self.obs_dim or list(saved["hidden"]) != list(pc.hidden) or saved_encoder != pc.encoder
                or saved_belief != pc.belief_input):
            def what(encoder: str, belief_input: bool) -> str:
                return f"({encoder}{', belief inputs' if belief_input else ''})"

            raise ValueError(f"{path}: network {saved['obs_dim']}x{saved['hidden']} "
                             f"{what(saved_encoder, saved_belief)} does not match the config's "
                             f"{self.obs_dim}x{list(pc.hidden)} {what(pc.encoder, pc.belief_input)}")

    def collect(self, collector: Any, additions: list, expert_coef: float, global_step: int) -> list[ShardBatch]:
        if expert_coef > 0:
            return collector.collect(self.net, additions, label=True)
        return collector.collect(self.net, additions)

    def update(self, batches: list[ShardBatch], expert_coef: float, global_step: int, gen: torch.Generator,
               rng: np.random.Generator) -> dict:
        b = PPOBatch.from_shards(batches, bool(self.config.critic_inputs), expert_coef > 0)
        return ppo_update(self.net, self.optimizer, self.config, b, gen, self.device, expert_coef, self.anchor)


def train(cfg: Any, run_dir: Path, logger: Any, resume_from: Path | None = None, progress: Any = None,
          on_update: Callable[[int, Any], None] | None = None, exploiter: Any = None) -> dict:
    """Train PPO with the :class:`~experiments.config.schema.TrainConfig` ``cfg``; returns final
    metrics. The rollouts come from the collector of ``cfg.collector`` (:mod:`agents.rl.collectors`);
    seeding, the league, checkpoints and ``--resume``, stopping on signals, evaluation and progress
    are the shared loop's (:func:`agents.rl.loop.train_loop`, which says how ``on_update``,
    ``resume_from`` and ``exploiter`` work)."""
    return train_loop(PPOLearner, cfg, run_dir, logger, resume_from, progress, on_update, exploiter)
