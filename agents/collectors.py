"""Rollout collection for PPO: the games of one update split into shards, run here or on Ray.

The ``ppo.num_games`` games of an update are split into ``collector.num_workers`` *shards* of
``num_games / num_workers`` games. A :class:`Shard` owns everything a rollout mutates:

* its :class:`~hollywood_env.selfplay.SelfPlayBatch`, seeded from ``(seed, shard index)``;
* its own copy of the :class:`~agents.league.League` (the bots, and every promoted snapshot, with
  its own opponent-sampling RNG and its own copies of the members' RNGs);
* its own torch generator for the learner's action sampling.

Each update, a shard steps its games ``ppo.num_steps`` times with the current policy, runs GAE
over its (game, player) streams (see :mod:`agents.ppo`) and returns a :class:`ShardBatch`: the
flat training samples (obs, mask, action, logp, advantage, return, value) and its statistics.
The learner concatenates the shards' samples in shard order. A shard depends only on the
config, its index, the weights it is given and the snapshots added to its league, never on
where it runs, so the two collectors give identical runs for the same seed and ``num_workers``:

* :class:`LocalCollector` (``collector.kind: local``): the shards run in the learner's process,
  one after the other, sharing the learner's network (``num_workers: 1``, the default, is one
  shard of all the games).
* :class:`RayCollector` (``collector.kind: ray``): one Ray actor per shard. Each update the learner
  puts the weights (and any snapshot promoted since the last update) in the object store once
  and passes the reference to every actor; the actors collect in parallel and the learner
  gathers their batches. Each actor also returns its shard's state without weights (the game
  states, the RNG states, the league's ids): when an actor dies, a new one is built from the
  same config, given that state and the snapshots it needs, and collects the update again, so
  the run goes on exactly as if nothing had happened (``charts/worker_restarts`` counts these).
"""

from __future__ import annotations

import logging
import os
import pickle
import time
from dataclasses import dataclass, field

import numpy as np
import torch

from agents.features import NUM_FEATURES, augment
from agents.networks import ActorCritic, MaskedCategorical

log = logging.getLogger(__name__)

KINDS = ("local", "ray")


@dataclass
class CollectorConfig:
    """Where the rollouts of PPO run (the ``collector:`` section of a config).

    ``num_workers`` shards of ``ppo.num_games / num_workers`` games each (``num_games`` must be a
    multiple of it). ``kind: local`` runs them in the learner's process one after the other;
    ``kind: ray`` runs each in a Ray actor with ``cpus_per_worker`` CPUs. ``ray_address``: None
    starts a local Ray (with ``num_cpus`` CPUs; None: all of them), ``auto`` joins the cluster
    started with ``ray start --head`` on this machine, ``ray://HOST:10001`` a remote one.
    ``max_restarts``: restarts of one worker within one update before the run gives up.
    """

    kind: str = "local"  # local | ray
    num_workers: int = 1
    ray_address: str | None = None
    num_cpus: int | None = None
    cpus_per_worker: float = 1.0
    max_restarts: int = 3

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"collector.kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.num_workers < 1:
            raise ValueError(f"collector.num_workers must be >= 1, got {self.num_workers}")
        if not (np.isfinite(self.cpus_per_worker) and self.cpus_per_worker > 0):
            raise ValueError(f"collector.cpus_per_worker must be a number > 0 and finite, got {self.cpus_per_worker!r}")
        if self.num_cpus is not None and self.num_cpus < 1:
            raise ValueError(f"collector.num_cpus must be >= 1 or null, got {self.num_cpus}")
        if self.max_restarts < 0:
            raise ValueError(f"collector.max_restarts must be >= 0, got {self.max_restarts}")

    def envs_per_worker(self, num_games: int) -> int:
        """Games per shard; raises ValueError when ``num_games`` does not split evenly."""
        if num_games % self.num_workers:
            raise ValueError(f"ppo.num_games ({num_games}) must be a multiple of collector.num_workers "
                             f"({self.num_workers}): each worker steps num_games / num_workers games")
        return num_games // self.num_workers


def shard_seeds(seed: int, shard: int, start_update: int = 1) -> tuple[int, int, int]:
    """The (games, league sampler, torch sampling) seeds of shard ``shard`` of a run seeded
    ``seed`` that starts (or resumes) at update ``start_update``."""
    s = np.random.SeedSequence([int(seed), int(shard), int(start_update) - 1]).generate_state(3, dtype=np.uint64)
    return int(s[0] >> np.uint64(2)), int(s[1] >> np.uint64(2)), int(s[2] >> np.uint64(2))


@dataclass
class ShardBatch:
    """One shard's part of an update: flat training samples (the learner transitions that close
    within the rollout) and the statistics of its games."""

    obs: np.ndarray  # (n, obs_dim) float32, features included
    mask: np.ndarray  # (n, NUM_ACTIONS) bool
    action: np.ndarray  # (n,) int64
    logp: np.ndarray  # (n,) float32
    advantage: np.ndarray  # (n,) float32
    ret: np.ndarray  # (n,) float32: advantage + value
    value: np.ndarray  # (n,) float32
    episode_returns: list[float]  # finished episodes against other opponents (not self-play)
    stats: object  # experiments.trainutil.HollywoodStats
    n_learner: int  # learner decisions (trained on or not)
    live: list[int]  # league member ids the shard still holds
    seconds: float = 0.0
    state: dict | None = field(default=None, repr=False)  # Shard.get_state() when asked for


def weights_to_numpy(state_dict) -> dict:
    return {k: v.detach().cpu().numpy() for k, v in state_dict.items()}


def _load(net: torch.nn.Module, weights: dict) -> None:
    net.load_state_dict({k: torch.tensor(np.asarray(v)) for k, v in weights.items()})


class Shard:
    """``num_games / num_workers`` games of the rollout with their league and RNGs (module doc)."""

    def __init__(self, cfg, index: int, start_update: int = 1, snapshots=(), net: torch.nn.Module | None = None,
                 device: str = "cpu"):
        from agents.league import League
        from hollywood_env.actions import NUM_ACTIONS
        from hollywood_env.selfplay import SelfPlayBatch

        self.cfg, self.index = cfg, index
        self.B = cfg.collector.envs_per_worker(cfg.ppo.num_games)
        self.T = cfg.ppo.num_steps
        env_seed, league_seed, torch_seed = shard_seeds(cfg.seed, index, start_update)
        self.rules = cfg.env.make_rules()
        self.forbid = self.rules.forbid_discard_of_taken_card
        self.batch = SelfPlayBatch(self.B, self.rules, cfg.env.make_reward(), seed=env_seed,
                                   max_steps=cfg.env.max_steps)
        self.obs_dim = self.batch.observation_size + NUM_FEATURES
        self.num_actions = NUM_ACTIONS
        self.device = torch.device(device)
        self.net = net if net is not None else ActorCritic(self.obs_dim, NUM_ACTIONS, cfg.ppo.hidden)
        self.gen = torch.Generator().manual_seed(torch_seed)
        self.league = League(cfg.league, self.rules, np.random.default_rng(league_seed))
        for name, weights in snapshots:
            self.add_snapshot(name, weights)
        self.obs, self.mask, self.player = self.batch.reset()
        self.assign = self.league.sample(self.B)
        self.waiting = np.zeros(self.B, dtype=bool)
        self.ep_return = np.zeros(self.B)
        T, B = self.T, self.B
        self.obs_buf = np.zeros((T, B, self.obs_dim), dtype=np.float32)
        self.mask_buf = np.zeros((T, B, NUM_ACTIONS), dtype=bool)
        self.act_buf = np.zeros((T, B), dtype=np.int64)
        self.logp_buf = np.zeros((T, B), dtype=np.float32)
        self.val_buf = np.zeros((T, B), dtype=np.float32)
        self.rew_buf = np.zeros((T, B), dtype=np.float32)
        self.done_buf = np.zeros((T, B), dtype=bool)
        self.learner_buf = np.zeros((T, B), dtype=bool)
        self.player_buf = np.zeros((T, B), dtype=np.int64)

    # --- league --------------------------------------------------------------------------------

    def _snapshot_policy(self, name: str, weights: dict, seed):
        from agents.ppo import PPOPolicy

        net = ActorCritic(self.obs_dim, self.num_actions, self.cfg.ppo.hidden)
        _load(net, weights)
        return PPOPolicy(net, greedy=False, seed=seed, name=name, forbid_taken=self.forbid)

    def add_snapshot(self, name: str, weights: dict) -> None:
        """A promoted snapshot joins this shard's league (its sampling seed from the shard's RNG)."""
        self.league.add_snapshot(self._snapshot_policy(name, weights, self.league.rng.integers(2**62)), name)

    # --- restorable state ----------------------------------------------------------------------

    def get_state(self) -> dict:
        """Everything a rollout mutates, without the network weights (small: the game states)."""
        return {"index": self.index, "batch": pickle.dumps(self.batch), "obs": self.obs.copy(),
                "mask": self.mask.copy(), "player": self.player.copy(), "opponent": self.assign.opponent.copy(),
                "learner_seat": self.assign.learner_seat.copy(), "waiting": self.waiting.copy(),
                "ep_return": self.ep_return.copy(), "gen": self.gen.get_state(), "league": self.league.get_state()}

    def set_state(self, state: dict, snapshots: dict) -> None:
        """Restore :meth:`get_state`; ``snapshots``: ``{id: (name, weights)}`` of the live snapshots."""
        from agents.league import Assignment

        if state["index"] != self.index:
            raise ValueError(f"state of shard {state['index']} given to shard {self.index}")
        self.batch = pickle.loads(state["batch"])
        self.obs, self.mask, self.player = state["obs"].copy(), state["mask"].copy(), state["player"].copy()
        self.assign = Assignment(state["opponent"].copy(), state["learner_seat"].copy())
        self.waiting, self.ep_return = state["waiting"].copy(), state["ep_return"].copy()
        self.gen.set_state(state["gen"])
        self.league.set_state(state["league"], lambda k, name: self._snapshot_policy(name, snapshots[k][1], 0))

    # --- one update's rollout ------------------------------------------------------------------

    def collect(self, weights: dict | None = None, additions=(), want_state: bool = False) -> ShardBatch:
        """Load ``weights`` (None: the network is the learner's own), add the snapshots promoted
        since the last update, step every game ``num_steps`` times and run GAE."""
        from agents.league import SELF
        from experiments.trainutil import HollywoodStats

        t0 = time.perf_counter()
        if weights is not None:
            _load(self.net, weights)
        for name, w in additions:
            self.add_snapshot(name, w)
        self.league.forget_unused(self.assign.opponent)
        pc, T, B, league, batch, net, dev = self.cfg.ppo, self.T, self.B, self.league, self.batch, self.net, self.device
        obs, mask, player, assign = self.obs, self.mask, self.player, self.assign
        waiting, ep_return = self.waiting, self.ep_return
        obs_buf, mask_buf, act_buf, logp_buf = self.obs_buf, self.mask_buf, self.act_buf, self.logp_buf
        val_buf, rew_buf, done_buf = self.val_buf, self.rew_buf, self.done_buf
        learner_buf, player_buf = self.learner_buf, self.player_buf
        stats = HollywoodStats()
        returns_done: list[float] = []
        rows_all = np.arange(B)
        last_t = np.full((B, 2), -1, dtype=np.int64)  # each player's open transition per game
        n_learner = 0
        for t in range(T):
            learner = ~waiting & ((assign.opponent == SELF) | (player == assign.learner_seat))
            opp_rows = np.flatnonzero(~waiting & ~learner)
            lr_rows = np.flatnonzero(learner)
            actions = np.zeros(B, dtype=np.int64)
            if lr_rows.size:
                x = augment(obs[lr_rows], mask[lr_rows], self.forbid)
                m = mask[lr_rows]
                obs_buf[t, lr_rows] = x
                mask_buf[t, lr_rows] = m
                with torch.no_grad():
                    logits, value = net(torch.from_numpy(x).to(dev))
                    dist = MaskedCategorical(logits, torch.from_numpy(m).to(dev))
                    a = dist.sample(self.gen).cpu()
                    logp_buf[t, lr_rows] = dist.log_prob(a.to(dev)).cpu().numpy()
                    val_buf[t, lr_rows] = value.cpu().numpy()
                act_buf[t, lr_rows] = a.numpy()
                actions[lr_rows] = a.numpy()
            if opp_rows.size:
                actions[opp_rows] = league.act(assign.opponent[opp_rows], obs[opp_rows], mask[opp_rows])
            learner_buf[t] = learner
            player_buf[t] = player
            rew_buf[t] = 0.0
            done_buf[t] = False
            last_t[lr_rows, player[lr_rows]] = t
            n_learner += lr_rows.size

            obs, mask, player, rewards, term, trunc, info = batch.step(actions)

            # rewards go to each player's open transition; episode ends close them
            for p in (0, 1):
                open_rows = np.flatnonzero(last_t[:, p] >= 0)
                rew_buf[last_t[open_rows, p], open_rows] += rewards[open_rows, p]
            seat_reward = rewards[rows_all, assign.learner_seat]
            vs_other = assign.opponent != SELF
            ep_return += np.where(vs_other, seat_reward, 0.0)
            ended = term | trunc
            if ended.any():
                e = np.flatnonzero(ended)
                for p in (0, 1):
                    closed = e[last_t[e, p] >= 0]
                    done_buf[last_t[closed, p], closed] = True
                last_t[e] = -1
                match_end = e[batch.state.terminated[e]]
                won = batch.state.sheet.game_winner[match_end] == assign.learner_seat[match_end][:, None]
                other = assign.opponent[match_end] != SELF
                stats.add(info, batch.state.terminated & ended, won.sum(axis=1)[other])
                returns_done.extend(ep_return[e[vs_other[e]]].tolist())
                ep_return[e] = 0.0
                fresh = league.sample(e.size)
                assign.opponent[e], assign.learner_seat[e] = fresh.opponent, fresh.learner_seat
            else:
                stats.add(info, np.zeros(B, dtype=bool))
            waiting = ended
        self.obs, self.mask, self.player, self.waiting = obs, mask, player, waiting

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
            ret=advantage + value, value=value, episode_returns=returns_done, stats=stats, n_learner=int(n_learner),
            live=list(league.policies), seconds=time.perf_counter() - t0,
            state=self.get_state() if want_state else None)


# --- collectors --------------------------------------------------------------------------------


class LocalCollector:
    """The shards in the learner's process, one after the other, on the learner's network."""

    kind = "local"

    def __init__(self, cfg, net: torch.nn.Module, start_update: int = 1, snapshots=(), snapshot_weights=None):
        self.shards = [Shard(cfg, i, start_update, snapshots, net=net, device=cfg.device)
                       for i in range(cfg.collector.num_workers)]
        self.workers = self.shards
        self.restarts = 0

    def collect(self, net: torch.nn.Module, additions=()) -> list[ShardBatch]:
        additions = [(name, weights_to_numpy(sd)) for name, sd in additions]
        return [s.collect(None, additions) for s in self.shards]

    def close(self) -> None:
        pass


class ShardActor:
    """The Ray actor around a :class:`Shard` (a process of its own, with the run's torch threads)."""

    def __init__(self, cfg, index: int, start_update: int, snapshots):
        torch.set_num_threads(max(1, int(cfg.torch_threads)))
        torch.use_deterministic_algorithms(True, warn_only=True)
        self.shard = Shard(cfg, index, start_update, snapshots)

    def collect(self, broadcast, want_state: bool = True) -> ShardBatch:
        weights, additions = broadcast
        return self.shard.collect(weights, additions, want_state)

    def set_state(self, state: dict, snapshots: dict) -> None:
        self.shard.set_state(state, snapshots)

    def pid(self) -> int:
        return os.getpid()


class RayCollector:
    """One Ray actor per shard (:attr:`workers` holds their handles); restarts dead ones."""

    kind = "ray"

    def __init__(self, cfg, net: torch.nn.Module | None = None, start_update: int = 1, snapshots=(),
                 snapshot_weights=None):
        from experiments.ray_tools import init_ray, require_ray

        ray = require_ray()
        cc = cfg.collector
        self.ray, self.cfg, self.start_update = ray, cfg, start_update
        self.snapshot_weights = snapshot_weights  # ids -> {id: (name, state_dict)}, from the learner's league
        self.owns_ray = init_ray(cc.ray_address, cc.num_cpus)
        self.actor_cls = ray.remote(num_cpus=cc.cpus_per_worker, max_restarts=0, max_task_retries=0)(ShardActor)
        self.initial = ray.put([(name, weights_to_numpy(sd)) for name, sd in snapshots])
        self.workers = [self._spawn(i) for i in range(cc.num_workers)]
        self.states: list[dict | None] = [None] * cc.num_workers  # each shard's state after its last batch
        self.restarts = 0

    def _spawn(self, i: int):
        return self.actor_cls.remote(self.cfg, i, self.start_update, self.initial)

    def _restart(self, i: int, error: Exception):
        ray = self.ray
        self.restarts += 1
        log.warning("rollout worker %d died (%s); restarting it from its last state and collecting its games "
                    "again (%d restart(s) so far)", i, type(error).__name__, self.restarts)
        try:
            ray.kill(self.workers[i], no_restart=True)
        except Exception:  # noqa: BLE001 - already gone
            pass
        self.workers[i] = self._spawn(i)
        state = self.states[i]
        if state is not None:  # None: it died in its first update, a fresh actor is its initial state
            live = [k for k in state["league"]["live"] if k not in state["league"]["bot_ids"]]
            sd = self.snapshot_weights(live) if live else {}
            self.workers[i].set_state.remote(state, {k: (n, weights_to_numpy(w)) for k, (n, w) in sd.items()})

    def collect(self, net: torch.nn.Module, additions=()) -> list[ShardBatch]:
        ray = self.ray
        from ray import exceptions as rex

        dead = tuple(e for e in (rex.RayActorError, getattr(rex, "ActorUnavailableError", None)) if e is not None)
        broadcast = ray.put((weights_to_numpy(net.state_dict()),
                             [(name, weights_to_numpy(sd)) for name, sd in additions]))
        futures = [w.collect.remote(broadcast) for w in self.workers]
        out = []
        for i, fut in enumerate(futures):
            tries = 0
            while True:
                try:
                    b = ray.get(fut)
                    break
                except dead as e:
                    tries += 1
                    if tries > self.cfg.collector.max_restarts:
                        raise RuntimeError(f"rollout worker {i} died {tries} times in one update; giving up") from e
                    self._restart(i, e)
                    fut = self.workers[i].collect.remote(broadcast)
            self.states[i], b.state = b.state, None
            out.append(b)
        return out

    def close(self) -> None:
        for w in self.workers:
            try:
                self.ray.kill(w, no_restart=True)
            except Exception:  # noqa: BLE001
                pass
        if self.owns_ray:
            self.ray.shutdown()


def make_collector(cfg, net: torch.nn.Module, start_update: int = 1, snapshots=(), snapshot_weights=None):
    """The collector of ``cfg.collector.kind``. ``snapshots``: ``[(name, state_dict)]`` of the pool
    at the start (a resumed run); ``snapshot_weights(ids) -> {id: (name, state_dict)}`` looks up
    snapshots in the learner's league (for worker restarts)."""
    cls = {"local": LocalCollector, "ray": RayCollector}[cfg.collector.kind]
    return cls(cfg, net, start_update, snapshots, snapshot_weights)
