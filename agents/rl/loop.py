"""The training loop PPO and DQN share (:func:`train_loop`), and what it is made of.

An algorithm gives a :class:`Learner`: its network and optimiser, how it collects a rollout from
the shards and how it updates on it (its loss lives in its own module, :mod:`agents.rl.ppo` and
:mod:`agents.rl.dqn`), what its checkpoints hold besides the shared fields, its evaluation
policy. :class:`TrainingRun` does the rest, the same for both: seeding, the league and its gated
promotion of snapshots, the collector, checkpoints and ``--resume`` (exact: the run goes on as if it
had never stopped), stopping on signals (:class:`agents.rl.stopping.RunGuard`), periodic evaluation
against bots (``eval/*``), the ``hollywood/*`` statistics of the rollouts, the metrics log and the
progress bar. Also here: the expert bot of the imitation terms (``ppo.expert``, ``dqn.expert``).

One update of :meth:`TrainingRun.run_update`, in order (the order is part of the exact resume):

1. the learning rate (linear annealing when the section's ``anneal_lr``);
2. the rollout (:meth:`Learner.collect`), with the snapshots promoted since the last one;
3. the algorithm's update (:meth:`Learner.update`), its metrics after ``charts/*``;
4. the league: every ``league.snapshot_every`` updates a snapshot is gated and, promoted, sent
   to the shards with the next rollout (``best.pt`` written);
5. evaluation every ``eval.every`` updates and at the last;
6. the metrics logged, ``latest.pt`` on the cadence, progress, ``on_update``, a requested stop.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from agents.matches import PairingResult, play_pairing
from agents.rl.rollout import HollywoodStats
from hollywood_env.rules import Rules

if TYPE_CHECKING:  # annotations only
    from agents.bots import Bot
    from agents.registry import Policy
    from agents.rl.league import League


def seed_everything(seed: int, torch_threads: int) -> tuple[np.random.Generator, torch.Generator]:
    """The fixed seeding block: Python, numpy and torch, and torch's thread count."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(max(1, int(torch_threads)))
    torch.use_deterministic_algorithms(True, warn_only=True)
    return np.random.default_rng(seed), torch.Generator().manual_seed(seed)


def expert_weight(expert: str | None, coef: float, until: float, update: int, num_updates: int) -> float:
    """The imitation term's weight at ``update`` (1-based) of ``num_updates``: ``coef`` at the
    first update, decaying linearly to 0 at the fraction ``until`` of the run; 0 without an expert
    (``ppo.expert`` / ``dqn.expert``)."""
    if not expert:
        return 0.0
    return coef * max(0.0, 1.0 - (update - 1) / (until * num_updates))


def make_expert(name: str | None, rules: Rules | str | None, seed: int | np.random.Generator | None,
                key: str = "ppo.expert") -> Bot | None:
    """The bot ``name`` that labels positions for an imitation term (None: no expert); a
    ValueError, naming the config ``key``, when it is not a bot that plays from the observation
    and the mask."""
    if not name:
        return None
    from agents.bots import Bot
    from agents.registry import AgentSpecError, make_agent

    allowed = "simple, neller, hollywood, marjj"
    try:
        expert = make_agent(name, rules, seed=seed)
    except AgentSpecError as e:
        raise ValueError(f"{key}: {e}; the expert must be a bot ({allowed})") from None
    if not isinstance(expert, Bot) or name.strip() == "random":
        raise ValueError(f"{key} must be a bot that plays from the observation ({allowed}), got {name!r}")
    return expert


def initial_weights(spec: str, key: str = "ppo.init") -> dict:
    """The checkpoint ``spec`` names, for a network to start from: a shipped model's name
    (``ppo-hollywood``), ``ppo:PATH``, or a checkpoint file or run folder ``PATH``; a ValueError,
    naming the config ``key``, when it names no PPO checkpoint. A network starts from one
    network: of a shipped ensemble (the field ``ensemble``), the first, whose fields are the
    checkpoint's own."""
    from agents.checkpoint import load_checkpoint
    from agents.paths import MODELS_DIR
    from agents.registry import SHIPPED_MODELS

    path = MODELS_DIR / f"{SHIPPED_MODELS[spec]}.pt" if spec in SHIPPED_MODELS else spec.removeprefix("ppo:")
    try:
        return load_checkpoint(path, expect_algo="ppo")
    except (OSError, ValueError) as e:
        raise ValueError(f"{key} {spec!r}: {e} (give a shipped PPO model's name, such as ppo-hollywood, "
                         f"ppo:PATH or a checkpoint path)") from None


def load_initial_weights(net: torch.nn.Module, spec: str, key: str = "ppo.init") -> None:
    """Start ``net`` from the weights of the checkpoint ``spec`` (:func:`initial_weights`). A
    network of the same shape is copied; one whose hidden layers are narrower, with the same depth,
    is widened into ``net`` (:func:`widen_state_dict`: the same function, room to grow); a
    ValueError for any other shape."""
    model = initial_weights(spec, key)["model"]
    own = net.state_dict()
    if set(model) == set(own) and all(tuple(model[k].shape) == tuple(own[k].shape) for k in own):
        net.load_state_dict({name: torch.as_tensor(w) for name, w in model.items()})
        return
    widened = widen_state_dict(model, own)
    if widened is None:
        raise ValueError(f"{key} {spec!r}: its network ({_first_shapes(model)}, ...) does not have this config's "
                         f"shape ({_first_shapes(own)}, ...) nor a narrower one of the same depth; set "
                         f"ppo.hidden, encoder, belief_input and privileged_critic as it was trained, or "
                         f"wider hidden layers")
    net.load_state_dict(widened)


def widen_state_dict(small: Mapping[str, Any], wide: Mapping[str, torch.Tensor]) -> dict | None:
    """``small``'s weights placed in a network of ``wide``'s shape that computes the same function,
    or None when ``wide`` is not ``small`` with wider hidden layers (same names, same ranks, no
    dimension smaller). Each small weight fills the leading block of its wide tensor; the new
    hidden units keep ``wide``'s own (random) incoming weights, and every weight *from* a new unit
    into an old unit or an output is set to 0. So the old units and the outputs see exactly what
    they saw, while the new units compute random features whose outgoing weights, zero at first,
    get gradients and grow: Net2Net's function-preserving widening (Chen et al., ICLR 2016), with
    zero fan-out instead of copied units so no symmetry needs breaking."""
    if set(small) != set(wide):
        return None
    out = {}
    for name, w in wide.items():
        s = torch.as_tensor(small[name])
        if s.dim() != w.dim() or any(a > b for a, b in zip(s.shape, w.shape, strict=True)):
            return None
        t = w.detach().clone()
        if s.dim() == 2:  # a Linear (out, in): new inputs feed no old unit, and no output (the heads keep their width)
            t[: s.shape[0], s.shape[1]:] = 0.0
        t[tuple(slice(0, n) for n in s.shape)] = s
        out[name] = t
    return out


def _first_shapes(state_dict: Mapping[str, Any]) -> str:
    return ", ".join(f"{name} {tuple(w.shape)}" for name, w in list(state_dict.items())[:2])


def match_win_rate(result: PairingResult) -> float:
    """A's share of finished matches (draws count half); per-hand results: of hands won."""
    if result.per_hand:
        won, lost = result.a_hands.sum(), result.b_hands.sum()
        return float(won / max(won + lost, 1))
    mw = result.match_winner
    done = mw >= 0
    return float(((mw[done] == 0) + 0.5 * (mw[done] == 2)).sum() / max(done.sum(), 1))


def evaluate_vs_bots(policy: Policy, bots: Iterable[str], rules: Rules | str | None, pairs: int, seed: int) -> dict:
    """``eval/win_rate_vs_<bot>`` (matches), ``eval/points_per_hand_vs_<bot>`` and
    ``eval/hand_win_rate_vs_<bot>`` from duplicate-deal matches."""
    out = {}
    for bot in bots:
        r = play_pairing(policy, bot, rules, n_pairs=pairs, seed=seed, names=("learner", bot))
        hands = max(int(r.hands.sum()), 1)
        decided = max(int(r.a_hands.sum() + r.b_hands.sum()), 1)
        out[f"eval/win_rate_vs_{bot}"] = match_win_rate(r)
        out[f"eval/points_per_hand_vs_{bot}"] = float((r.a_points.sum() - r.b_points.sum()) / hands)
        out[f"eval/hand_win_rate_vs_{bot}"] = float(r.a_hands.sum() / decided)
    return out


def gate(candidate: Policy, best: Policy, rules: Rules | str | None, pairs: int, per_hand: bool, seed: int) -> float:
    """The candidate's win rate against the best snapshot on duplicate deals."""
    r = play_pairing(candidate, best, rules, n_pairs=pairs, seed=seed, per_hand=per_hand, names=("candidate", "best"))
    return match_win_rate(r)


def promote_if_better(league: League, candidate: Policy, name: str, rules: Rules | str | None, league_cfg: Any,
                      seed: int) -> tuple[float, bool]:
    """The league's gated promotion: ``candidate`` joins the pool (and becomes the best snapshot)
    when there is no best yet, or when it beats the best in more than ``gate_threshold`` of
    ``gate_pairs`` duplicate pairs. Returns ``(win rate, promoted)``."""
    if league.best is None:
        win = 1.0
    else:
        win = gate(candidate, league.best, rules, league_cfg.gate_pairs, league_cfg.gate_per_hand, seed=seed)
    promoted = league.best is None or win > league_cfg.gate_threshold
    if promoted:
        league.add_snapshot(candidate, name)
    return win, promoted


def gather_batches(batches: Iterable[Any]) -> tuple[int, HollywoodStats, list[float]]:
    """The shards' batches of one update: learner decisions, merged ``hollywood/*`` statistics,
    and the returns of the episodes finished against other opponents."""
    stats = HollywoodStats()
    for b in batches:
        stats.merge(b.stats)
    return sum(b.n_learner for b in batches), stats, [r for b in batches for r in b.episode_returns]


def league_after_update(league: League, snapshot: Callable[[str], Policy], update: int, cfg: Any, rules: Rules,
                        batches: list[Any], additions: list, save_best: Callable[[int], None]) -> dict:
    """The learner's league at the end of ``update``: every ``league.snapshot_every`` updates the
    ``snapshot(name)`` policy is gated (:func:`promote_if_better`); a promoted one is queued in
    ``additions`` (sent to the shards with the next rollout) and ``save_best(update)`` is called.
    Snapshots no shard holds any more are forgotten. Returns ``league/gate_win_rate`` when gated."""
    out = {}
    lc = cfg.league
    if lc.snapshot_every and update % lc.snapshot_every == 0:
        name = f"snapshot_{update}"
        cand = snapshot(name)
        win, promoted = promote_if_better(league, cand, name, rules, lc, seed=cfg.seed + update)
        out["league/gate_win_rate"] = win
        if promoted:
            additions.append((name, cand.net.state_dict()))
            save_best(update)
    league.forget_unused(np.array(sorted({k for b in batches for k in b.live}), dtype=np.int64))
    return out


# --- the shared loop ----------------------------------------------------------------------------


class Learner:
    """One algorithm's part of :func:`train_loop`. Subclasses set ``algo`` (the checkpoints'
    ``algo``), ``section`` (the config section: ``ppo``, ``dqn``), ``shard`` (its
    :class:`~agents.rl.collectors.Shard` class) and, in ``__init__``, ``net`` (the network the
    shards act with and checkpoints hold as ``model``) and ``optimizer``."""

    algo: str
    section: str
    shard: type
    net: torch.nn.Module
    optimizer: torch.optim.Optimizer

    def __init__(self, cfg: Any, rules: Rules, device: torch.device):
        self.cfg, self.rules, self.device = cfg, rules, device
        self.forbid = rules.forbid_discard_of_taken_card

    @property
    def config(self) -> Any:
        """The algorithm's config section (``cfg.ppo``, ``cfg.dqn``)."""
        return getattr(self.cfg, self.section)

    def steps_per_update(self) -> int:
        """Batch steps of one update over all games: ``num_games * num_steps``."""
        return self.config.num_games * self.config.num_steps

    def snapshot_policy(self, weights: Mapping[str, Any], name: str, seed: int) -> Policy:
        """A frozen league snapshot with ``weights``, sampling from its own generator."""
        raise NotImplementedError

    def eval_policy(self) -> Policy:
        """The policy evaluated against the bots (a copy of the network on the CPU)."""
        raise NotImplementedError

    def checkpoint_fields(self) -> dict:
        """What a checkpoint holds about the network besides ``model`` (``obs_dim``, ``hidden``, ...)."""
        raise NotImplementedError

    def check_resume(self, saved: dict, path: Path) -> None:
        """A ValueError when the checkpoint ``saved`` (read from ``path``) holds another network."""
        raise NotImplementedError

    def train_state(self) -> dict:
        """The algorithm's own part of ``train_state`` (beyond the optimiser): none by default."""
        return {}

    def set_train_state(self, ts: dict) -> None:
        """Restore :meth:`train_state` from a checkpoint's ``train_state``."""

    def collect(self, collector: Any, additions: list, expert_coef: float, global_step: int) -> list:
        """One rollout of the shards (``additions``: snapshots they do not hold yet); labelled by
        the expert when ``expert_coef > 0``."""
        raise NotImplementedError

    def update(self, batches: list, expert_coef: float, global_step: int, gen: torch.Generator,
               rng: np.random.Generator) -> dict:
        """Learn from the rollout ``batches``; returns the update's metrics (``losses/*``, ...)."""
        raise NotImplementedError

    def postfix(self) -> dict:
        """More of the progress bar's postfix (DQN: the exploration rate)."""
        return {}


class TrainingRun:
    """One run of :func:`train_loop`: the learner, the league, the collector and everything the
    run mutates (``global_step``, the snapshots promoted since the last rollout)."""

    def __init__(self, make_learner: Callable[[Any, Rules, torch.device], Learner], cfg: Any, run_dir: Path,
                 logger: Any, exploiter: Exploiter | None = None):
        from agents.rl.league import League

        self.cfg, self.run_dir, self.logger, self.exploiter = cfg, run_dir, logger, exploiter
        if cfg.league.exploiter_every and exploiter is None:
            raise ValueError("league.exploiter_every: exploiters are trained by the training command "
                             "(hollywood train, experiments.training.train.run_training)")
        self.rng, self.gen = seed_everything(cfg.seed, cfg.torch_threads)
        self.rules = cfg.env.make_rules()
        self.learner = make_learner(cfg, self.rules, torch.device(cfg.device))
        # the learner's view of the league: the pool and the best snapshot (the shards play the games)
        self.league = League(cfg.league, self.rules, self.rng, make_bots=False)
        self.num_updates = max(1, cfg.total_steps // self.learner.steps_per_update())
        section = self.learner.config
        # a bad expert name fails here, before any worker starts
        make_expert(section.expert, self.rules, 0, key=f"{self.learner.section}.expert")
        self.init = getattr(section, "init", None)  # weights to start from (a fresh run only)
        if self.init:
            initial_weights(self.init, f"{self.learner.section}.init")
        self.start_update, self.global_step = 1, 0
        self.additions: list[tuple[str, dict]] = []  # promoted since the last rollout
        self.collector: Any = None
        self.latest = run_dir / "checkpoints" / "latest.pt"
        self.latest_eval: dict = {}  # shown in the progress bar until the next evaluation

    def snapshot(self, name: str) -> Policy:
        """The learner's network now, frozen as a league snapshot."""
        return self.learner.snapshot_policy(self.learner.net.state_dict(), name, self.rng.integers(2**62))

    def checkpoint(self, update: int, train_state: bool = True) -> dict:
        """The run after ``update``: the model, and (``latest.pt``) everything ``--resume`` needs
        to continue exactly: optimiser, RNGs, the learner's league with the weights of every
        snapshot it still holds, snapshots not yet sent to the shards, the shards' games, and
        the algorithm's own state (:meth:`Learner.train_state`)."""
        from agents.rl.collectors import snapshot_weights
        from agents.rl.features import VERSION as FEATURES_VERSION

        lr = self.learner
        ckpt = {"algo": lr.algo, "features": FEATURES_VERSION, "model": lr.net.state_dict(),
                **lr.checkpoint_fields(), "rules": self.rules.to_dict(), "config": dataclasses.asdict(self.cfg),
                "update": update, "global_step": self.global_step}
        if train_state:
            ckpt["train_state"] = {
                "optimizer": lr.optimizer.state_dict(), "torch_generator": self.gen.get_state(),
                "numpy_rng": self.rng.bit_generator.state, "league": self.league.get_state(),
                "snapshots": snapshot_weights(self.league), "additions": list(self.additions),
                "collector": self.collector.get_state(), **lr.train_state()}
        return ckpt

    def save(self, path: Path, ckpt: dict) -> None:
        from agents.checkpoint import save_checkpoint

        save_checkpoint(ckpt, path)

    def resume(self, path: Path) -> dict:
        """Restore the run from the checkpoint ``path``; returns the collector's saved state."""
        from agents.checkpoint import load_checkpoint

        lr = self.learner
        saved = load_checkpoint(path, expect_algo=lr.algo, need_train_state=True)
        lr.check_resume(saved, path)
        ts = saved["train_state"]
        lr.net.load_state_dict(saved["model"])
        lr.set_train_state(ts)
        lr.optimizer.load_state_dict(ts["optimizer"])
        snapshots = {int(k): (n, sd) for k, (n, sd) in ts["snapshots"].items()}
        self.league.set_state(ts["league"], lambda k, name: lr.snapshot_policy(snapshots[k][1], name, 0))
        self.gen.set_state(ts["torch_generator"])
        self.rng.bit_generator.state = ts["numpy_rng"]
        self.start_update, self.global_step = saved["update"] + 1, saved["global_step"]
        self.logger.resume_at(saved["update"], saved["global_step"])
        self.additions = list(ts["additions"])
        return ts["collector"]

    def run_update(self, update: int) -> dict:
        """One update (the steps of the module docstring up to the evaluation); its metrics."""
        lr, section = self.learner, self.learner.config
        t_start = time.perf_counter()
        if section.anneal_lr:
            lr.optimizer.param_groups[0]["lr"] = section.lr * (1.0 - (update - 1.0) / self.num_updates)
        expert_coef = section.expert_weight(update, self.num_updates)
        batches = lr.collect(self.collector, self.additions, expert_coef, self.global_step)
        self.additions = []
        n_learner, stats, returns_done = gather_batches(batches)
        self.global_step += n_learner
        t_collect = time.perf_counter() - t_start
        learned = lr.update(batches, expert_coef, self.global_step, self.gen, self.rng)
        elapsed = time.perf_counter() - t_start
        metrics = {"charts/learning_rate": lr.optimizer.param_groups[0]["lr"], "charts/SPS": n_learner / elapsed,
                   "charts/SPS_collect": n_learner / max(t_collect, 1e-9),
                   "charts/worker_restarts": self.collector.restarts, **learned,
                   "charts/league_size": len(self.league.snapshot_ids)}
        if returns_done:
            metrics["charts/episodic_return"] = float(np.mean(returns_done))
        metrics.update(stats.scalars())
        # the league: gated snapshots, sent to the shards with the next rollout
        best = self.run_dir / "checkpoints" / "best.pt"
        metrics.update(league_after_update(self.league, self.snapshot, update, self.cfg, self.rules, batches,
                                           self.additions, lambda u: self.save(best, self.checkpoint(u, False))))
        every = self.cfg.league.exploiter_every
        if every and update % every == 0 and update < self.num_updates:
            metrics.update(self.add_exploiter(update))
        ec = self.cfg.eval
        if (ec.every and update % ec.every == 0) or update == self.num_updates:
            metrics.update(evaluate_vs_bots(lr.eval_policy(), ec.bots, self.rules, ec.pairs,
                                            seed=self.cfg.seed + 100_003))
        return metrics

    def add_exploiter(self, update: int) -> dict:
        """A best response to the policy of ``update`` joins the league (never as the best snapshot:
        the gate still compares the policy with its own past); queued for the shards."""
        from agents.rl.league import EXPLOITER_PREFIX

        name = f"{EXPLOITER_PREFIX}{update}"
        policy_file = self.run_dir / "exploiters" / f"policy_{update}.pt"
        self.save(policy_file, self.checkpoint(update, False))
        weights, win_rate = self.exploiter(policy_file, update)
        self.league.add_exploiter(self.learner.snapshot_policy(weights, name, self.rng.integers(2**62)), name)
        self.additions.append((name, weights))
        return {"league/exploiter_win_rate": win_rate}

    def show(self, progress: Any, metrics: dict) -> None:
        """One step of the progress bar, the latest evaluation in its postfix."""
        progress.update(1)
        for k, v in metrics.items():
            if k.startswith("eval/win_rate_vs_"):
                self.latest_eval[k.removeprefix("eval/win_rate_vs_")] = f"{v:.2f}"
        progress.set_postfix({"SPS": f"{metrics['charts/SPS']:.0f}", **self.learner.postfix(), **self.latest_eval})

    def run(self, resume_from: Path | None, progress: Any, on_update: Callable[[int, Any], None] | None) -> dict:
        """The updates from the start (or ``resume_from``) to the end; the last update's metrics."""
        from agents.rl.collectors import open_collector
        from agents.rl.stopping import RunGuard

        if resume_from is None and self.init:
            load_initial_weights(self.learner.net, self.init, f"{self.learner.section}.init")
        collector_state = self.resume(resume_from) if resume_from is not None else None
        if progress is not None and self.start_update > 1:
            bar_starts_at(progress, self.start_update - 1)
        self.collector = open_collector(self.learner.shard, self.cfg, self.learner.net, self.league,
                                        self.start_update, collector_state)
        metrics: dict = {}
        try:
            if resume_from is None:  # update 0: a run killed before its first checkpoint can still resume
                self.save(self.latest, self.checkpoint(0))
            with RunGuard(self.latest, self.cfg.log.checkpoint_every, self.num_updates, self.start_update - 1,
                          self.checkpoint, self.save, self.run_dir) as guard:
                for update in range(self.start_update, self.num_updates + 1):
                    metrics = self.run_update(update)
                    self.logger.log(update, self.global_step, metrics)
                    guard.end_update(update)
                    if progress is not None:
                        self.show(progress, metrics)
                    if on_update is not None:
                        on_update(update, self.collector)
                    guard.stop_if_requested(update)
        finally:
            self.collector.close()
        if not (self.run_dir / "checkpoints" / "best.pt").exists():
            self.save(self.run_dir / "checkpoints" / "best.pt", self.checkpoint(self.num_updates, train_state=False))
        return metrics


#: ``exploiter(policy_file, update) -> (weights, win rate)``: trains a best response to the policy
#: checkpoint ``policy_file`` (league exploiters); its network's weights and what it won against it
Exploiter = Callable[[Path, int], tuple[Mapping[str, Any], float]]


def bar_starts_at(progress: Any, done: int) -> None:
    """A resumed run's bar shows the updates already done (``done/total``), and its rate and
    time left count only the updates of this process (tqdm's ``initial``)."""
    if hasattr(progress, "initial"):
        progress.initial = progress.n = progress.last_print_n = done
        progress.refresh()


def train_loop(make_learner: Callable[[Any, Rules, torch.device], Learner], cfg: Any, run_dir: Path, logger: Any,
               resume_from: Path | None = None, progress: Any = None,
               on_update: Callable[[int, Any], None] | None = None, exploiter: Exploiter | None = None) -> dict:
    """Train the learner ``make_learner(cfg, rules, device)`` with the
    :class:`~experiments.config.schema.TrainConfig` ``cfg``; returns the final metrics.

    ``latest.pt`` is written (atomically) at update 0, every ``log.checkpoint_every`` updates and
    at the end; with ``resume_from`` the run continues from one exactly as if it had never
    stopped. A first SIGINT/SIGTERM finishes the current update, writes ``latest.pt`` and raises
    :class:`agents.rl.stopping.TrainingStopped`; a second stops at once (:mod:`agents.rl.stopping`).
    ``on_update``: an optional ``f(update, collector)`` called after every update (tests, tooling).
    ``exploiter``: trains the league's exploiters (``league.exploiter_every``; :data:`Exploiter`)."""
    return TrainingRun(make_learner, cfg, run_dir, logger, exploiter).run(resume_from, progress, on_update)
