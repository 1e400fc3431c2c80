"""Masked Double DQN (dueling head, n-step returns, replay) with league self-play (CleanRL style).

The learner collects experience exactly as :mod:`agents.rl.ppo` does: ``num_games`` matches are
stepped together through :class:`hollywood_env.SelfPlayBatch`, each game with an opponent from
the :class:`~agents.rl.league.League` (the latest network itself, a frozen snapshot, or a bot).

Two-player transitions (:class:`TransitionAssembler`): a transition of a player runs from one of
its decisions to its *next decision in the same game*, or to the end of the episode; the rewards
the player receives in between (also those caused by the opponent's moves) are summed into it,
so the opponent is part of the environment. n-step returns are built on top of these per
``(game, player)`` stream. A stream cut by a truncation (``max_steps``) drops its last, open
transition (no next state of its own) and bootstraps the ones before it from the last state it
saw; a termination makes the transitions terminal (no bootstrap).

By default only the learner's own decisions make transitions. With ``learn_from_opponents`` the
decisions of the bots and frozen snapshots in its games are stored as well (their seats' streams,
assembled the same way): Q-learning is off-policy, and the bots' play shows knocks and good
discards early on (their n-step returns follow the bot's policy, uncorrected, as in Ape-X or
R2D2). Each stored transition still holds one player's own view; the learner only ever acts on
its own observations.

One *update* (iteration) = ``num_steps`` steps of the ``num_games`` games (opponents' moves
included; ``global_step`` counts learner decisions, like PPO), then ``gradient_steps`` minibatch
steps once the replay buffer holds ``learning_starts`` transitions. ``total_steps // (num_games *
num_steps)`` updates in all.

Action masking, everywhere: epsilon-greedy exploration draws uniformly among the *legal*
actions; the greedy choice is the argmax over legal actions; the target is
``r + gamma^k * Q_target(s', argmax_{a legal in s'} Q_online(s', a))`` with the legal mask of
``s'`` stored in the buffer (illegal actions are never chosen nor bootstrapped from); the
dueling head averages its advantages over the legal actions.

Imitation (``expert``): DQfD's large-margin supervised loss (Hester et al. 2018, "Deep Q-learning
from Demonstrations"). While its weight ``expert_weight(update)`` is > 0 (``expert_coef`` at the
first update, decaying linearly to 0 at the fraction ``expert_until`` of the run), every stored
decision (the learner's, and with ``learn_from_opponents`` the opponents') is labelled with the
move ``a_E`` the bot ``expert`` makes from that observation and mask (a bot opponent that *is* the
expert gives its own move); the label travels with its n-step transition into the replay buffer
(-1: unlabelled), and each labelled sample adds ``expert_weight * J_E`` to the loss, with
``J_E = max_{a legal} [Q(s, a) + l(a_E, a)] - Q(s, a_E)``, ``l = expert_margin`` for ``a != a_E``
and 0 for ``a_E``: zero once the expert's move leads every other legal move by the margin
(importance-weighted under prioritised replay, like the TD term). Afterwards no labels are
computed and the loss is the TD loss alone. The expert sees only what the
learner sees (observation and mask), never the hidden cards.

Other details: Huber loss, global gradient clipping, hard (``tau = 1``) or Polyak target
updates every ``target_update_every`` gradient steps, linear epsilon decay over a fraction of
``total_steps``, optional proportional prioritised replay (sum tree, importance weights with
beta annealed to 1).

Checkpoints (:mod:`agents.checkpoint`): ``latest.pt`` holds everything the run mutates (networks,
optimiser, RNGs, league, the games in progress, the open transitions and the replay buffer's
filled part, about 3.4 KB per stored transition), so ``--resume`` continues exactly as if the run
had never stopped; ``best.pt`` holds the model only.
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
import torch.nn.functional as F
from torch import nn

from agents.rl.collectors import Shard
from agents.rl.features import NUM_FEATURES
from agents.rl.loop import Learner, make_expert, train_loop
from agents.rl.networks import DuelingQNetwork, masked_logits
from agents.rl.policies import DQNPolicy, epsilon_greedy, greedy_actions
from hollywood_env.actions import NUM_ACTIONS
from hollywood_env.observation import observation_size
from hollywood_env.sampling import SeedLike, as_generator


@dataclass
class DQNConfig:
    """DQN hyperparameters (the ``dqn:`` section of a config)."""

    num_games: int = 128  # matches stepped together
    num_steps: int = 16  # batch steps per update (collection phase of one iteration)
    buffer_size: int = 200_000  # transitions kept in the replay buffer
    batch_size: int = 256  # transitions per gradient step
    learning_starts: int = 10_000  # transitions in the buffer before gradient steps begin
    gradient_steps: int = 16  # gradient steps per update
    lr: float = 2.5e-4
    anneal_lr: bool = False  # linear decay of the learning rate to 0 over the run
    gamma: float = 0.99  # discount per decision of the player
    n_step: int = 3  # n-step returns (1: plain one-step targets)
    double: bool = True  # Double DQN target (False: max of the target net over legal actions)
    tau: float = 1.0  # target update: 1.0 copies (hard), < 1 blends (Polyak)
    target_update_every: int = 250  # gradient steps between target updates
    eps_start: float = 1.0  # exploration epsilon at the start
    eps_end: float = 0.05  # ... after `exploration_fraction * total_steps` learner decisions
    exploration_fraction: float = 0.3
    snapshot_epsilon: float = 0.05  # epsilon of the league's frozen snapshots (0: deterministic)
    learn_from_opponents: bool = False  # also store the bots' and snapshots' transitions (off-policy)
    huber_delta: float = 1.0
    max_grad_norm: float = 10.0
    prioritized: bool = False  # proportional prioritised replay
    per_alpha: float = 0.6
    per_beta_start: float = 0.4  # importance-sampling exponent, annealed linearly to 1
    per_eps: float = 1e-6
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    # DQfD's large-margin imitation of the bot ``expert`` (module docstring): weight ``expert_coef``
    # at the first update, decaying linearly to 0 at the fraction ``expert_until`` of the run (no
    # labels after). The expert is a bot that plays from the observation and the mask only (simple,
    # neller, hollywood, marjj).
    expert: str | None = None
    expert_coef: float = 1.0
    # In reward units. 0.25 is about one hand's reward: with the hollywood reward (points times
    # columns / 100) a hand's step reward has median |r| 0.28 in simple-vs-simple play, while a
    # match's return is about +-6 (game and box bonuses). So the expert's move must lead the others
    # by a hand's worth, a clear preference, yet small beside the match-level Q-values, so the term
    # does not swamp the TD targets (DQfD's 0.8 was for Atari rewards of order 1 per event).
    expert_margin: float = 0.25
    expert_until: float = 0.5

    def expert_weight(self, update: int, num_updates: int) -> float:
        """The margin term's weight at ``update`` (1-based) of ``num_updates``; 0 without an expert."""
        from agents.rl.loop import expert_weight

        return expert_weight(self.expert, self.expert_coef, self.expert_until, update, num_updates)

    def make_network(self, obs_dim: int, num_actions: int) -> DuelingQNetwork:
        """The Q-network these settings describe (its hidden sizes)."""
        return DuelingQNetwork(obs_dim, num_actions, self.hidden)

    def frozen_policy(self, obs_dim: int, num_actions: int, weights: Mapping[str, Any], name: str, seed: SeedLike,
                      forbid_taken: bool) -> DQNPolicy:
        """A frozen league snapshot: a new network of these settings (:meth:`make_network`) with
        ``weights``, epsilon-greedy with ``snapshot_epsilon`` and its own generator seeded from ``seed``."""
        return DQNPolicy.from_weights(self.make_network(obs_dim, num_actions), weights, epsilon=self.snapshot_epsilon,
                                      seed=seed, name=name, forbid_taken=forbid_taken)

    def __post_init__(self):
        """Every value checked (ValueError naming ``dqn.<key>``, the value and the allowed range)."""
        from agents.rl.checks import check_at_least, check_expert_fields, check_hidden, check_numbers, in_range

        check_at_least("dqn", self, ("num_games", "num_steps", "buffer_size", "batch_size", "n_step",
                                     "target_update_every"), 1)
        check_at_least("dqn", self, ("learning_starts", "gradient_steps"), 0)
        # (name, low, low included, high): a finite number in the range
        check_numbers("dqn", self, (("lr", 0.0, False, np.inf), ("gamma", 0.0, False, 1.0), ("tau", 0.0, False, 1.0),
                                    ("eps_start", 0.0, True, 1.0), ("eps_end", 0.0, True, 1.0),
                                    ("snapshot_epsilon", 0.0, True, 1.0), ("exploration_fraction", 0.0, True, 1.0),
                                    ("huber_delta", 0.0, False, np.inf), ("max_grad_norm", 0.0, False, np.inf),
                                    ("per_alpha", 0.0, True, np.inf), ("per_beta_start", 0.0, True, 1.0),
                                    ("per_eps", 0.0, False, np.inf)))
        check_expert_fields("dqn", self.expert, self.expert_coef, self.expert_until)
        if not in_range(self.expert_margin, 0.0, True, np.inf):
            raise ValueError(f"dqn.expert_margin must be a finite number >= 0 (reward units), got {self.expert_margin!r}")
        if self.batch_size > self.buffer_size:
            raise ValueError(f"dqn.batch_size ({self.batch_size}) must be <= dqn.buffer_size ({self.buffer_size}): "
                             f"a batch is sampled from the replay buffer")
        check_hidden("dqn", self.hidden)


def linear_schedule(start: float, end: float, duration: float, t: float) -> float:
    """``start`` -> ``end`` linearly over ``duration`` steps, then ``end``."""
    if duration <= 0:
        return end
    return start + (end - start) * min(1.0, t / duration)


# --- greedy choice and targets under action masks -----------------------------------------------


@torch.no_grad()
def td_targets(online: nn.Module, target: nn.Module, reward: torch.Tensor, next_obs: torch.Tensor, next_mask: torch.Tensor,
               done: torch.Tensor, steps: torch.Tensor, gamma: float, double: bool = True) -> torch.Tensor:
    """``reward + gamma**steps * Q_target(s', a*)`` (just ``reward`` when ``done``), where ``a*``
    is the argmax over the legal actions of ``s'`` of the online net (Double DQN) or of the target
    net. ``online``/``target``: callables ``(obs, mask) -> Q``."""
    q_target = target(next_obs, next_mask)
    a_star = greedy_actions(online(next_obs, next_mask) if double else q_target, next_mask)
    q_next = q_target.gather(-1, a_star.unsqueeze(-1)).squeeze(-1)
    bootstrap = torch.where(done, torch.zeros_like(q_next), (gamma ** steps.to(q_next.dtype)) * q_next)
    return reward + bootstrap


def expert_margin_loss(q: torch.Tensor, mask: torch.Tensor, expert_action: torch.Tensor, margin: float) -> torch.Tensor:
    """DQfD's large-margin loss per row: ``max_{a legal} [q(a) + margin * (a != a_E)] - q(a_E)``
    (``q``: ``(k, A)`` Q-values, ``mask``: ``(k, A)`` legal actions, ``expert_action``: ``(k,)``
    legal labels). Non-negative; 0 once ``a_E`` leads every other legal action by ``margin``."""
    a_e = expert_action.unsqueeze(-1)
    bonus = torch.full_like(q, float(margin)).scatter(-1, a_e, 0.0)
    return masked_logits(q + bonus, mask).max(-1).values - q.gather(-1, a_e).squeeze(-1)


# --- two-player transitions and n-step returns --------------------------------------------------


@dataclass
class Transitions:
    """A batch of completed (n-step) transitions. ``reward`` is the discounted sum of the rewards
    over ``steps`` decisions of the player; bootstrap with ``gamma ** steps`` unless ``done``."""

    obs: np.ndarray  # (k, D) float32
    mask: np.ndarray  # (k, A) bool: the legal actions at obs (for the dueling head's mean)
    action: np.ndarray  # (k,) int64
    reward: np.ndarray  # (k,) float32
    next_obs: np.ndarray  # (k, D) float32 (zeros when done)
    next_mask: np.ndarray  # (k, A) bool (all False when done)
    done: np.ndarray  # (k,) bool
    steps: np.ndarray  # (k,) int64, 1..n
    game: np.ndarray  # (k,) int64: where it came from (diagnostics, tests)
    player: np.ndarray  # (k,) int64
    expert_action: np.ndarray  # (k,) int64: the expert's move at obs (dqn.expert), -1 when unlabelled

    def __len__(self) -> int:
        return int(self.action.shape[0])

    @classmethod
    def empty(cls, obs_dim: int, num_actions: int) -> Transitions:
        z = np.zeros(0, dtype=np.int64)
        return cls(np.zeros((0, obs_dim), np.float32), np.zeros((0, num_actions), bool), z, np.zeros(0, np.float32),
                   np.zeros((0, obs_dim), np.float32), np.zeros((0, num_actions), bool), np.zeros(0, bool), z, z, z, z)

    @classmethod
    def concat(cls, parts: list[Transitions]) -> Transitions:
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in cls.__dataclass_fields__))


class TransitionAssembler:
    """Turns the steps of a batch of two-player games into per-player n-step transitions.

    Per step of the batch call :meth:`decide` before ``batch.step`` (with the decisions that are
    to be learned from: ``valid`` False for opponents' moves and auto-reset dummy steps, and
    optionally the expert's label of each decision, which its transition carries) and
    :meth:`outcome` after it (with its rewards ``(B, 2)`` and episode ends). Each returns the
    transitions completed by that call.

    Each ``(game, player)`` stream keeps its *open* transition (the last decision, with the rewards
    received since) and a queue of up to ``n_step - 1`` completed one-step transitions waiting for
    their n-step return. The player's next decision closes the open one (``next_obs`` = the state
    of that decision); when the queue reaches ``n_step`` the oldest leaves as an n-step
    transition. A termination closes the open one as terminal and flushes the queue (shorter,
    terminal returns); a truncation drops the open one and flushes the queue, bootstrapping from
    the state of the dropped decision.
    """

    def __init__(self, num_games: int, obs_dim: int, num_actions: int, gamma: float = 0.99, n_step: int = 1):
        B, n = num_games, n_step
        self.B, self.D, self.A, self.gamma, self.n = B, obs_dim, num_actions, float(gamma), n
        self.open = np.zeros((B, 2), dtype=bool)
        self.o_obs = np.zeros((B, 2, obs_dim), dtype=np.float32)
        self.o_mask = np.zeros((B, 2, num_actions), dtype=bool)
        self.o_act = np.zeros((B, 2), dtype=np.int64)
        self.o_rew = np.zeros((B, 2), dtype=np.float64)
        self.o_exp = np.full((B, 2), -1, dtype=np.int64)
        self.q_obs = np.zeros((B, 2, n, obs_dim), dtype=np.float32)
        self.q_mask = np.zeros((B, 2, n, num_actions), dtype=bool)
        self.q_act = np.zeros((B, 2, n), dtype=np.int64)
        self.q_rew = np.zeros((B, 2, n), dtype=np.float64)
        self.q_exp = np.full((B, 2, n), -1, dtype=np.int64)
        self.q_len = np.zeros((B, 2), dtype=np.int64)

    _STATE = ("open", "o_obs", "o_mask", "o_act", "o_rew", "o_exp", "q_obs", "q_mask", "q_act", "q_rew", "q_exp",
              "q_len")

    def get_state(self) -> dict:
        """The open transitions and queues (arrays copied), for checkpoints."""
        return {k: getattr(self, k).copy() for k in self._STATE}

    def set_state(self, state: dict) -> None:
        # checkpoints from before expert labels: nothing open is labelled
        state = {"o_exp": np.full_like(self.o_exp, -1), "q_exp": np.full_like(self.q_exp, -1), **state}
        _set_arrays(self, state, self._STATE, "transition assembler")

    def decide(self, player: np.ndarray, obs: np.ndarray, mask: np.ndarray, action: np.ndarray, valid: np.ndarray,
               expert_action: np.ndarray | None = None) -> Transitions:
        """Decisions ``action`` of ``player`` in the games where ``valid`` (``expert_action``: the
        expert's move in each, -1 or None: unlabelled); returns the transitions completed by them."""
        g = np.flatnonzero(valid)
        p = np.asarray(player)[g]
        out = []
        closing = self.open[g, p]
        if closing.any():
            gc, pc = g[closing], p[closing]
            out.append(self._complete(gc, pc, obs[gc], mask[gc], done=np.zeros(gc.size, bool)))
        self.o_obs[g, p] = obs[g]
        self.o_mask[g, p] = mask[g]
        self.o_act[g, p] = np.asarray(action)[g]
        self.o_exp[g, p] = -1 if expert_action is None else np.asarray(expert_action)[g]
        self.o_rew[g, p] = 0.0
        self.open[g, p] = True
        return self._cat(out)

    def outcome(self, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> Transitions:
        """The rewards ``(B, 2)`` and episode ends of the step; returns the completed transitions."""
        self.o_rew += np.where(self.open, rewards, 0.0)
        out = []
        term = np.asarray(terminated, bool)
        trunc = np.asarray(truncated, bool) & ~term
        if term.any():
            g, p = np.nonzero(term[:, None] & self.open)
            out.append(self._complete(g, p, np.zeros((g.size, self.D), np.float32),
                                      np.zeros((g.size, self.A), bool), done=np.ones(g.size, bool)))
        if trunc.any():
            g, p = np.nonzero(trunc[:, None] & self.open)
            out.append(self._flush(g, p, self.o_obs[g, p], self.o_mask[g, p], np.zeros(g.size, bool)))
        ended = term | trunc
        self.open[ended] = False
        self.q_len[ended] = 0
        return self._cat(out)

    # --- internals ----------------------------------------------------------------------------
    def _complete(self, g, p, next_obs, next_mask, done) -> Transitions:
        """Close the open transitions of streams ``(g, p)`` into their queues; emit what is due."""
        k = self.q_len[g, p]
        self.q_obs[g, p, k] = self.o_obs[g, p]
        self.q_mask[g, p, k] = self.o_mask[g, p]
        self.q_act[g, p, k] = self.o_act[g, p]
        self.q_rew[g, p, k] = self.o_rew[g, p]
        self.q_exp[g, p, k] = self.o_exp[g, p]
        self.q_len[g, p] = k + 1
        self.open[g, p] = False
        out = []
        if done.any():  # the episode ended: every queued transition is due (terminal)
            out.append(self._flush(g[done], p[done], next_obs[done], next_mask[done], done[done]))
        full = ~done & (self.q_len[g, p] == self.n)
        if full.any():  # the oldest has its n steps: emit it and shift the queue
            gf, pf = g[full], p[full]
            out.append(self._emit(gf, pf, np.zeros(gf.size, np.int64), next_obs[full], next_mask[full],
                                  np.zeros(gf.size, bool)))
            self.q_obs[gf, pf, :-1] = self.q_obs[gf, pf, 1:]
            self.q_mask[gf, pf, :-1] = self.q_mask[gf, pf, 1:]
            self.q_act[gf, pf, :-1] = self.q_act[gf, pf, 1:]
            self.q_rew[gf, pf, :-1] = self.q_rew[gf, pf, 1:]
            self.q_exp[gf, pf, :-1] = self.q_exp[gf, pf, 1:]
            self.q_len[gf, pf] -= 1
        return self._cat(out)

    def _flush(self, g, p, next_obs, next_mask, done) -> Transitions:
        """Emit every queued transition of streams ``(g, p)`` towards ``next_obs`` and empty them."""
        lens = self.q_len[g, p]
        r = np.repeat(np.arange(g.size), lens)
        k = np.arange(r.size) - np.repeat(np.cumsum(lens) - lens, lens)  # 0..len-1 per stream
        self.q_len[g, p] = 0
        return self._emit(g[r], p[r], k, next_obs[r], next_mask[r], done[r], lens[r])

    def _emit(self, g, p, k, next_obs, next_mask, done, lens=None) -> Transitions:
        """The transitions starting at queue slot ``k`` and running to the end of the queue."""
        if lens is None:
            lens = self.q_len[g, p]
        ret = np.zeros(g.size)
        for i in range(self.n):  # ret = sum_{k <= i < len} gamma^(i - k) r_i
            inside = (i >= k) & (i < lens)
            ret += np.where(inside, self.gamma ** np.maximum(i - k, 0) * self.q_rew[g, p, i], 0.0)
        return Transitions(self.q_obs[g, p, k].copy(), self.q_mask[g, p, k].copy(), self.q_act[g, p, k].copy(),
                           ret.astype(np.float32), np.asarray(next_obs, np.float32), np.asarray(next_mask, bool),
                           np.asarray(done, bool), (lens - k).astype(np.int64), g.astype(np.int64), p.astype(np.int64),
                           self.q_exp[g, p, k].copy())

    def _cat(self, parts: list[Transitions]) -> Transitions:
        parts = [x for x in parts if len(x)]
        if not parts:
            return Transitions.empty(self.D, self.A)
        return parts[0] if len(parts) == 1 else Transitions.concat(parts)


# --- replay buffer ------------------------------------------------------------------------------


def _set_arrays(obj, state: dict, names, what: str) -> None:
    """Copy the saved arrays ``names`` into ``obj``'s own, checking shapes."""
    for k in names:
        v = np.asarray(state[k])
        if v.shape != getattr(obj, k).shape:
            raise ValueError(f"saved {what}: {k} has shape {v.shape}, expected {getattr(obj, k).shape} "
                             f"(the config changed since the checkpoint?)")
        getattr(obj, k)[...] = v


class ReplayBuffer:
    """A ring buffer of transitions in numpy; uniform or proportional prioritised sampling.

    Prioritised: ``P(i) ~ priority_i ** alpha`` through a sum tree (new transitions get the
    largest priority so far); :meth:`sample` returns importance weights ``(N P(i)) ** -beta``
    normalised by their maximum; :meth:`update_priorities` takes ``|TD error|``.
    """

    def __init__(self, capacity: int, obs_dim: int, num_actions: int, prioritized: bool = False,
                 alpha: float = 0.6, eps: float = 1e-6):
        self.capacity, self.prioritized, self.alpha, self.eps = capacity, prioritized, alpha, eps
        self.obs = np.zeros((capacity, obs_dim), dtype=np.float32)
        self.mask = np.zeros((capacity, num_actions), dtype=bool)
        self.next_obs = np.zeros((capacity, obs_dim), dtype=np.float32)
        self.next_mask = np.zeros((capacity, num_actions), dtype=bool)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.reward = np.zeros(capacity, dtype=np.float32)
        self.done = np.zeros(capacity, dtype=bool)
        self.steps = np.zeros(capacity, dtype=np.int64)
        self.expert_action = np.full(capacity, -1, dtype=np.int64)  # -1: unlabelled
        self.pos = self.size = 0
        if prioritized:
            self.leaves = 1 << max(0, (capacity - 1).bit_length())
            self.tree = np.zeros(2 * self.leaves)  # tree[1] = total; leaf i at tree[leaves + i]
            self.max_priority = 1.0

    def __len__(self) -> int:
        return self.size

    _ARRAYS = ("obs", "mask", "next_obs", "next_mask", "action", "reward", "done", "steps", "expert_action")

    def get_state(self) -> dict:
        """The stored transitions (the filled part, copied), position and priorities."""
        out = {k: getattr(self, k)[:self.size].copy() for k in self._ARRAYS}
        out.update(pos=self.pos, size=self.size)
        if self.prioritized:
            out.update(tree=self.tree.copy(), max_priority=self.max_priority)
        return out

    def set_state(self, state: dict) -> None:
        size, pos = int(state["size"]), int(state["pos"])
        if not 0 <= size <= self.capacity or not 0 <= pos < max(self.capacity, 1) or ("tree" in state) != self.prioritized:
            raise ValueError(f"saved replay buffer (size {size}, prioritized {'tree' in state}) does not fit this one "
                             f"(capacity {self.capacity}, prioritized {self.prioritized}): dqn.buffer_size and "
                             f"dqn.prioritized must not change on resume")
        if "expert_action" not in state:  # a checkpoint from before expert labels: none labelled
            state = {**state, "expert_action": np.full(size, -1, dtype=np.int64)}
        for k in self._ARRAYS:
            v = np.asarray(state[k])
            if v.shape != (size,) + getattr(self, k).shape[1:]:
                raise ValueError(f"saved replay buffer: {k} has shape {v.shape}")
            getattr(self, k)[:size] = v
        self.size, self.pos = size, pos
        if self.prioritized:
            _set_arrays(self, {"tree": state["tree"]}, ("tree",), "replay buffer")
            self.max_priority = float(state["max_priority"])

    def add(self, tr: Transitions) -> None:
        k = len(tr)
        if k == 0:
            return
        if k > self.capacity:  # keep the newest
            tr = Transitions(*(getattr(tr, f)[-self.capacity:] for f in Transitions.__dataclass_fields__))
            k = self.capacity
        idx = (self.pos + np.arange(k)) % self.capacity
        self.obs[idx], self.mask[idx], self.next_obs[idx], self.next_mask[idx] = tr.obs, tr.mask, tr.next_obs, tr.next_mask
        self.action[idx], self.reward[idx], self.done[idx], self.steps[idx] = tr.action, tr.reward, tr.done, tr.steps
        self.expert_action[idx] = tr.expert_action
        self.pos = int((self.pos + k) % self.capacity)
        self.size = min(self.size + k, self.capacity)
        if self.prioritized:
            self._set(idx, np.full(k, self.max_priority ** self.alpha))

    def sample(self, batch_size: int, rng: np.random.Generator,
               beta: float = 1.0) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
        """``(indices, batch dict of numpy arrays, importance weights)``."""
        if self.prioritized:
            total = self.tree[1]
            u = (np.arange(batch_size) + rng.random(batch_size)) * (total / batch_size)  # stratified
            idx = np.minimum(self._find(u), self.size - 1)
            prob = self.tree[self.leaves + idx] / total
            w = (self.size * np.maximum(prob, 1e-12)) ** (-beta)
            weights = (w / w.max()).astype(np.float32)
        else:
            idx = rng.integers(self.size, size=batch_size)
            weights = np.ones(batch_size, dtype=np.float32)
        batch = {"obs": self.obs[idx], "mask": self.mask[idx], "action": self.action[idx], "reward": self.reward[idx],
                 "next_obs": self.next_obs[idx], "next_mask": self.next_mask[idx], "done": self.done[idx],
                 "steps": self.steps[idx], "expert_action": self.expert_action[idx]}
        return idx, batch, weights

    def update_priorities(self, idx: np.ndarray, td_abs: np.ndarray) -> None:
        if not self.prioritized:
            return
        pr = np.asarray(td_abs, dtype=np.float64) + self.eps
        self.max_priority = max(self.max_priority, float(pr.max()))
        self._set(idx, pr ** self.alpha)

    def _set(self, idx: np.ndarray, values: np.ndarray) -> None:
        node = self.leaves + np.asarray(idx)
        self.tree[node] = values
        node = np.unique(node // 2)
        while node.size and node[0] >= 1:  # recompute the parents from their children, level by level
            self.tree[node] = self.tree[2 * node] + self.tree[2 * node + 1]
            if node[0] == 1:
                break
            node = np.unique(node // 2)

    def _find(self, u: np.ndarray) -> np.ndarray:
        node = np.ones(u.shape, dtype=np.int64)
        u = u.copy()
        while node[0] < self.leaves:
            left = self.tree[2 * node]
            right = u >= left
            u = np.where(right, u - left, u)
            node = 2 * node + right
        return node - self.leaves


# --- inference: a trained network as a batched agent --------------------------------------------


# --- rollout: a shard of the games, with n-step transitions -------------------------------------


@dataclass
class TransitionBatch:
    """One DQN shard's part of an update: the n-step transitions completed in its games (in the
    order the shard completed them) and the statistics of its games."""

    transitions: object  # agents.rl.dqn.Transitions
    episode_returns: list[float]
    stats: object
    n_learner: int
    live: list[int]
    seconds: float = 0.0
    state: dict | None = field(default=None, repr=False)


class DQNShard(Shard):
    """A DQN shard: epsilon-greedy actions of the Q-network (numpy generator of its own), and the
    n-step transitions of :class:`agents.rl.dqn.TransitionAssembler` (the opponents' decisions too
    with ``dqn.learn_from_opponents``), labelled with the ``dqn.expert`` bot's moves when asked."""

    algo = "dqn"

    def __init__(self, cfg, *args, **kwargs):
        self.features_for_all = bool(cfg.dqn.learn_from_opponents)
        super().__init__(cfg, *args, **kwargs)
        self.assembler = TransitionAssembler(self.B, self.obs_dim, self.num_actions, cfg.dqn.gamma, cfg.dqn.n_step)
        # the expert's tie-break seed comes from the league's RNG, drawn only when there is one
        self.expert = (make_expert(cfg.dqn.expert, self.rules, self.league.rng.integers(2**62), key="dqn.expert")
                       if cfg.dqn.expert else None)
        # the league's bots that are the expert: their own moves are their labels
        name = (cfg.dqn.expert or "").strip()
        self.expert_ids = np.array([k for k in self.league.bot_ids if self.league.names[k].strip() == name],
                                   dtype=np.int64)

    def make_net(self) -> DuelingQNetwork:
        return self.cfg.dqn.make_network(self.obs_dim, self.num_actions)

    def snapshot_policy(self, name: str, weights: Mapping[str, Any], seed: SeedLike) -> DQNPolicy:
        return self.cfg.dqn.frozen_policy(self.obs_dim, self.num_actions, weights, name, seed, self.forbid)

    def init_sampler(self, seed: int) -> None:
        self.rng = as_generator(seed)

    def sampler_state(self) -> Any:
        state = {"rng": self.rng.bit_generator.state, "assembler": self.assembler.get_state()}
        if self.expert is not None:
            state["expert"] = self.expert.rng.bit_generator.state
        return state

    def set_sampler_state(self, state: Any) -> None:
        self.rng.bit_generator.state = state["rng"]
        self.assembler.set_state(state["assembler"])
        if self.expert is not None and "expert" in state:
            self.expert.rng.bit_generator.state = state["expert"]

    def collect(self, weights: dict | None = None, additions: Iterable[tuple[str, Mapping[str, Any]]] = (),
                want_state: bool = False, epsilon: float = 0.0, label: bool = False) -> TransitionBatch:
        """Load ``weights``, add new snapshots, step every game ``num_steps`` times with
        ``epsilon``-greedy learner actions; returns the transitions completed meanwhile. ``label``:
        also give every stored decision the ``dqn.expert`` bot's move in that position."""

        t0 = time.perf_counter()
        self._begin(weights, additions)
        net, dev, assembler = self.net, self.device, self.assembler
        net.eval()
        from_opponents = self.cfg.dqn.learn_from_opponents

        def act(rows, x, m):
            with torch.no_grad():
                q = net(torch.from_numpy(x).to(dev), torch.from_numpy(m).to(dev))
            return epsilon_greedy(q, m, epsilon, self.rng)

        expert = self.expert if label else None
        obs_size = self.obs_dim - NUM_FEATURES
        labels = np.full(self.B, -1, dtype=np.int64)
        parts = []
        n_learner = 0
        for _ in range(self.T):
            # the opponents of this decision (the step draws new ones for the games that end)
            opponent = self.rollout.assign.opponent.copy() if expert is not None else None
            s = self.rollout.step(act)
            stored = s.valid if from_opponents else s.learner
            if expert is not None:
                labels[:] = -1
                own = stored & ~s.learner & np.isin(opponent, self.expert_ids)  # the expert itself moved
                labels[own] = s.actions[own]
                rows = np.flatnonzero(stored & ~own)
                if rows.size:  # the expert reads the observation part of x only
                    labels[rows] = expert(s.x[rows, :obs_size], s.mask[rows])
            parts.append(assembler.decide(s.player, s.x, s.mask, s.actions, stored,
                                          labels if expert is not None else None))
            parts.append(assembler.outcome(s.rewards, s.terminated, s.truncated))
            n_learner += int(s.learner.sum())
        stats, returns_done = self.rollout.take_stats()
        parts = [x for x in parts if len(x)]
        transitions = Transitions.concat(parts) if parts else Transitions.empty(self.obs_dim, self.num_actions)
        return TransitionBatch(transitions=transitions, episode_returns=returns_done, stats=stats, n_learner=n_learner,
                               live=list(self.league.policies), seconds=time.perf_counter() - t0,
                               state=self.get_state() if want_state else None)


# --- the loss and the update ---------------------------------------------------------------------


@dataclass
class DQNLoss:
    """:func:`dqn_loss` of one sampled batch: the loss to minimise and its parts."""

    loss: torch.Tensor
    td_loss: torch.Tensor
    q_sa: torch.Tensor  # Q(s, a) of the batch's actions
    target: torch.Tensor  # the n-step TD targets
    margin_loss: float | None  # DQfD's margin term over the labelled samples (None: none)
    n_agree: int  # labelled samples whose greedy move is the expert's
    n_labelled: int


def dqn_loss(q_net: nn.Module, target_net: nn.Module, dc: DQNConfig, b: dict, weights: np.ndarray,
             device: torch.device, expert_coef: float) -> DQNLoss:
    """The importance-weighted Huber loss of the sampled batch ``b`` (:meth:`ReplayBuffer.sample`)
    against its n-step (double) DQN targets, plus with an expert DQfD's large-margin term on the
    labelled samples, weighted ``expert_coef`` (importance-weighted like the TD term)."""
    o, a = torch.from_numpy(b["obs"]).to(device), torch.from_numpy(b["action"]).to(device)
    y = td_targets(q_net, target_net, torch.from_numpy(b["reward"]).to(device),
                   torch.from_numpy(b["next_obs"]).to(device), torch.from_numpy(b["next_mask"]).to(device),
                   torch.from_numpy(b["done"]).to(device), torch.from_numpy(b["steps"]).to(device), dc.gamma, dc.double)
    m = torch.from_numpy(b["mask"]).to(device)
    q_all = q_net(o, m)
    q_sa = q_all.gather(-1, a.unsqueeze(-1)).squeeze(-1)
    w_t = torch.from_numpy(weights).to(device)
    td_loss = (w_t * F.huber_loss(q_sa, y, reduction="none", delta=dc.huber_delta)).mean()
    loss, margin, n_agree = td_loss, None, 0
    labelled = np.flatnonzero(b["expert_action"] >= 0)
    if expert_coef > 0 and labelled.size:  # DQfD's margin term on the labelled samples
        lab = torch.from_numpy(labelled).to(device)
        a_e = torch.from_numpy(b["expert_action"][labelled]).to(device)
        j_e = expert_margin_loss(q_all[lab], m[lab], a_e, dc.expert_margin)
        # importance-weighted like the TD term, 0 on the unlabelled samples
        loss = loss + expert_coef * (w_t[lab] * j_e).sum() / dc.batch_size
        margin = j_e.mean().item()
        with torch.no_grad():
            n_agree = int((greedy_actions(q_all[lab], m[lab]) == a_e).sum().item())
    return DQNLoss(loss, td_loss, q_sa, y, margin, n_agree, int(labelled.size) if margin is not None else 0)


# --- training ----------------------------------------------------------------------------------


class DQNLearner(Learner):
    """DQN's part of the shared loop (:func:`agents.rl.loop.train_loop`): the online and target
    networks, Adam, the replay buffer, rollouts from :class:`DQNShard` with an epsilon decaying
    over ``exploration_fraction`` of the run, and ``gradient_steps`` of :func:`dqn_loss` per update."""

    algo = section = "dqn"
    shard = DQNShard

    def __init__(self, cfg: Any, rules: Any, device: torch.device):
        super().__init__(cfg, rules, device)
        dc = cfg.dqn
        self.obs_dim = observation_size(rules) + NUM_FEATURES  # the network reads agents.rl.features too
        self.net = dc.make_network(self.obs_dim, NUM_ACTIONS).to(device)
        self.target_net = copy.deepcopy(self.net)
        self.target_net.eval()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=dc.lr)
        self.buffer = ReplayBuffer(dc.buffer_size, self.obs_dim, NUM_ACTIONS, dc.prioritized, dc.per_alpha, dc.per_eps)
        self.explore_steps = dc.exploration_fraction * cfg.total_steps
        self.grad_steps = 0
        self.epsilon = dc.eps_start

    def snapshot_policy(self, weights: Mapping[str, Any], name: str, seed: int) -> DQNPolicy:
        return self.config.frozen_policy(self.obs_dim, NUM_ACTIONS, weights, name, seed, self.forbid)

    def eval_policy(self) -> DQNPolicy:
        return DQNPolicy(copy.deepcopy(self.net).cpu(), epsilon=0.0 if self.cfg.eval.greedy else self.config.eps_end,
                         seed=self.cfg.seed, forbid_taken=self.forbid)

    def checkpoint_fields(self) -> dict:
        return {"obs_dim": self.obs_dim, "num_actions": NUM_ACTIONS, "hidden": list(self.config.hidden)}

    def check_resume(self, saved: dict, path: Path) -> None:
        if saved["obs_dim"] != self.obs_dim or list(saved["hidden"]) != list(self.config.hidden):
            raise ValueError(f"{path}: network {saved['obs_dim']}x{saved['hidden']} does not match the "
                             f"config's {self.obs_dim}x{list(self.config.hidden)}")

    def train_state(self) -> dict:
        """The target network, the gradient steps so far and the replay buffer."""
        return {"target_model": self.target_net.state_dict(), "grad_steps": self.grad_steps,
                "buffer": self.buffer.get_state()}

    def set_train_state(self, ts: dict) -> None:
        self.target_net.load_state_dict(ts["target_model"])
        self.buffer.set_state(ts["buffer"])
        self.grad_steps = ts["grad_steps"]

    def collect(self, collector: Any, additions: list, expert_coef: float, global_step: int) -> list[TransitionBatch]:
        dc = self.config
        self.epsilon = linear_schedule(dc.eps_start, dc.eps_end, self.explore_steps, global_step)
        if expert_coef > 0:
            return collector.collect(self.net, additions, epsilon=self.epsilon, label=True)
        return collector.collect(self.net, additions, epsilon=self.epsilon)

    def update(self, batches: list[TransitionBatch], expert_coef: float, global_step: int, gen: torch.Generator,
               rng: np.random.Generator) -> dict:
        """The shards' transitions into the replay buffer (in shard order), then, once it holds
        ``learning_starts``, ``gradient_steps`` steps on batches sampled from it (prioritized:
        ``beta`` annealed to 1 over the run), the target network following every
        ``target_update_every`` steps."""
        dc = self.config
        for b in batches:
            self.buffer.add(b.transitions)
        td_losses, q_values, margin_losses, n_agree, n_labelled = [], [], [], 0, 0
        if len(self.buffer) >= max(dc.learning_starts, dc.batch_size):
            self.net.train()
            beta = linear_schedule(dc.per_beta_start, 1.0, self.cfg.total_steps, global_step)
            for _ in range(dc.gradient_steps):
                idx, sample, weights = self.buffer.sample(dc.batch_size, rng, beta)
                out = dqn_loss(self.net, self.target_net, dc, sample, weights, self.device, expert_coef)
                if out.margin_loss is not None:
                    margin_losses.append(out.margin_loss)
                    n_agree, n_labelled = n_agree + out.n_agree, n_labelled + out.n_labelled
                self.optimizer.zero_grad()
                out.loss.backward()
                nn.utils.clip_grad_norm_(self.net.parameters(), dc.max_grad_norm)
                self.optimizer.step()
                self.buffer.update_priorities(idx, (out.q_sa - out.target).abs().detach().cpu().numpy())
                self.grad_steps += 1
                if self.grad_steps % dc.target_update_every == 0:
                    with torch.no_grad():
                        for tp, p in zip(self.target_net.parameters(), self.net.parameters(), strict=True):
                            tp.lerp_(p, dc.tau)  # tau = 1: a copy
                td_losses.append(out.td_loss.item())
                q_values.append(out.q_sa.mean().item())
        metrics = {"charts/epsilon": self.epsilon, "charts/buffer_size": len(self.buffer)}
        if td_losses:
            metrics["losses/td_loss"] = float(np.mean(td_losses))
            metrics["losses/q_values"] = float(np.mean(q_values))
        if expert_coef > 0:
            metrics["charts/expert_coef"] = expert_coef
        if n_labelled:
            metrics["losses/expert_margin_loss"] = float(np.mean(margin_losses))
            metrics["charts/expert_agreement"] = n_agree / n_labelled
        return metrics

    def postfix(self) -> dict:
        return {"eps": f"{self.epsilon:.2f}"}


def train(cfg: Any, run_dir: Path, logger: Any, resume_from: Path | None = None, progress: Any = None,
          on_update: Callable[[int, Any], None] | None = None) -> dict:
    """Train DQN with the :class:`~experiments.config.schema.TrainConfig` ``cfg``; returns final metrics.

    The games are collected in shards (:mod:`agents.rl.collectors`, the ``collector:`` section:
    here or on Ray workers, exactly as for PPO), each returning the n-step transitions completed
    in its games; :class:`DQNLearner` adds them to the replay buffer and runs the gradient steps.
    Seeding, the league, checkpoints and ``--resume``, stopping on signals, evaluation and
    progress are the shared loop's (:func:`agents.rl.loop.train_loop`)."""
    return train_loop(DQNLearner, cfg, run_dir, logger, resume_from, progress, on_update)
