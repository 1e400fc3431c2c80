"""Masked PPO with league self-play on the batched self-play API (CleanRL style, one file).

The rollout steps ``num_games`` matches at once through :class:`hollywood_env.SelfPlayBatch`.
Each game has an opponent from the :class:`~agents.league.League` (the latest policy itself,
a frozen snapshot, or a bot); the learner acts in its seat (both seats in self-play games).
The games are split into shards collected here or on Ray workers (:mod:`agents.collectors`,
the ``collector:`` section of a config); this module runs the update on their samples, the
gating of league snapshots (sent to the shards with the next rollout), evaluation and checkpoints.

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
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.features import VERSION as FEATURES_VERSION
from agents.features import NUM_FEATURES, augment
from agents.networks import ActorCritic, MaskedCategorical


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

    def __post_init__(self):
        """Every value checked (ValueError naming ``ppo.<key>``, the value and the allowed range)."""
        for name in ("num_games", "num_steps", "num_minibatches", "update_epochs"):
            if getattr(self, name) < 1:
                raise ValueError(f"ppo.{name} must be >= 1, got {getattr(self, name)}")
        # (name, low, low included, high): a finite number in the range
        for name, low, closed, high in (("lr", 0.0, False, np.inf), ("gamma", 0.0, False, 1.0),
                                        ("gae_lambda", 0.0, True, 1.0), ("clip_coef", 0.0, False, np.inf),
                                        ("ent_coef", 0.0, True, np.inf), ("vf_coef", 0.0, True, np.inf),
                                        ("max_grad_norm", 0.0, False, np.inf), ("target_kl", 0.0, False, np.inf)):
            v = getattr(self, name)
            if v is None and name == "target_kl":
                continue
            if not (np.isfinite(v) and (v >= low if closed else v > low) and v <= high):
                allowed = (f"in {'[' if closed else '('}{low:g}, {high:g}]" if np.isfinite(high)
                           else f"{'>=' if closed else '>'} {low:g} and finite")
                raise ValueError(f"ppo.{name} must be a number {allowed}{' (or null)' if name == 'target_kl' else ''}, "
                                 f"got {v!r}")
        if not self.hidden:
            raise ValueError("ppo.hidden needs at least one layer size, got []")
        if any(h < 1 for h in self.hidden):
            raise ValueError(f"ppo.hidden: every layer size must be >= 1, got {list(self.hidden)}")


# --- inference: a trained policy as a batched agent ---------------------------------------------


class PPOPolicy:
    """A PPO network as a batched policy ``(obs, mask) -> actions`` (greedy or sampled).

    The network reads the observation with the derived features of :mod:`agents.features`
    appended (``forbid_taken``: the rules' ``forbid_discard_of_taken_card``).
    """

    def __init__(self, net: ActorCritic, greedy: bool = True, seed=None, device: str = "cpu", name: str = "ppo",
                 forbid_taken: bool = True):
        self.net = net.to(device).eval()
        self.forbid_taken = forbid_taken
        self.greedy = greedy
        self.device = device
        self.name = name
        self.generator = torch.Generator().manual_seed(int(np.random.default_rng(seed).integers(2**62)))

    @torch.no_grad()
    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if obs.shape[1] + NUM_FEATURES != self.net.obs_dim:
            raise ValueError(f"{self.name}: observation size {obs.shape[1]} does not match the network's "
                             f"{self.net.obs_dim - NUM_FEATURES} (trained with other rules?)")
        o = torch.as_tensor(augment(obs, mask, self.forbid_taken), device=self.device)
        m = torch.as_tensor(mask, device=self.device)
        logits, _ = self.net(o)
        dist = MaskedCategorical(logits, m)
        a = dist.mode() if self.greedy else dist.sample(self.generator)
        return a.cpu().numpy()

    @classmethod
    def from_checkpoint(cls, path, rules=None, seed=None, greedy: bool = True, device: str = "cpu") -> "PPOPolicy":
        ckpt = load_checkpoint(path, expect_algo="ppo")
        if ckpt.get("features") != FEATURES_VERSION:
            raise ValueError(f"{path}: made with features {ckpt.get('features')!r}, this code computes {FEATURES_VERSION!r}")
        net = ActorCritic(ckpt["obs_dim"], ckpt["num_actions"], ckpt["hidden"])
        net.load_state_dict(ckpt["model"])
        forbid = ckpt["rules"].get("forbid_discard_of_taken_card", True)
        return cls(net, greedy=greedy, seed=seed, device=device, name=f"ppo:{path}", forbid_taken=forbid)


def load_checkpoint(path, expect_algo: str | None = None) -> dict:
    p = Path(path)
    if p.is_dir():  # a run folder: its best checkpoint, else its latest
        for name in ("best.pt", "latest.pt"):
            if (p / "checkpoints" / name).is_file():
                p = p / "checkpoints" / name
                break
    if not p.is_file():
        raise FileNotFoundError(f"checkpoint not found: {path} (give a .pt file or a run folder with checkpoints/)")
    ckpt = torch.load(p, map_location="cpu", weights_only=False)
    if not isinstance(ckpt, dict) or "algo" not in ckpt:
        raise ValueError(f"{p} is not a checkpoint written by `hollywood train`")
    if expect_algo and ckpt["algo"] != expect_algo:
        raise ValueError(f"{p} is a {ckpt['algo']} checkpoint, not {expect_algo}")
    return ckpt


# --- training ----------------------------------------------------------------------------------


def train(cfg, run_dir: Path, logger, resume_from: Path | None = None, progress=None, on_update=None) -> dict:
    """Train PPO with the :class:`~experiments.schema.TrainConfig` ``cfg``; returns final metrics.

    The rollouts come from the collector of ``cfg.collector`` (:mod:`agents.collectors`); the
    update, the gating of league snapshots, evaluation and checkpoints run here. ``on_update``:
    an optional ``f(update, collector)`` called after every update (tests, tooling). An interrupt
    (Ctrl-C) writes ``latest.pt`` of the last finished update before it propagates.
    """
    from agents.collectors import make_collector
    from agents.league import League
    from experiments.config import to_dict
    from experiments.trainutil import HollywoodStats, evaluate_vs_bots, promote_if_better, seed_everything
    from hollywood_env.actions import NUM_ACTIONS
    from hollywood_env.observation import observation_size

    pc = cfg.ppo
    rng, gen = seed_everything(cfg.seed, cfg.torch_threads)
    device = torch.device(cfg.device)
    rules = cfg.env.make_rules()
    obs_dim = observation_size(rules) + NUM_FEATURES
    forbid = rules.forbid_discard_of_taken_card
    net = ActorCritic(obs_dim, NUM_ACTIONS, pc.hidden).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=pc.lr, eps=1e-5)
    # the learner's view of the league: the pool and the best snapshot (the shards play the games)
    league = League(cfg.league, rules, rng, make_bots=False)
    num_updates = max(1, cfg.total_steps // (pc.num_games * pc.num_steps))
    start_update, global_step = 1, 0

    def snapshot(name: str) -> "PPOPolicy":
        frozen = ActorCritic(obs_dim, NUM_ACTIONS, pc.hidden)
        frozen.load_state_dict({k: v.detach().cpu().clone() for k, v in net.state_dict().items()})
        return PPOPolicy(frozen, greedy=False, seed=rng.integers(2**62), name=name, forbid_taken=forbid)

    def checkpoint(update: int, snapshots=True) -> dict:
        """The run's state after ``update`` (tensors copied: the run goes on mutating its own)."""
        return {
            "algo": "ppo", "features": FEATURES_VERSION, "model": copy.deepcopy(net.state_dict()), "obs_dim": obs_dim,
            "num_actions": NUM_ACTIONS, "hidden": list(pc.hidden), "rules": rules.to_dict(), "config": to_dict(cfg),
            "update": update, "global_step": global_step, "optimizer": copy.deepcopy(optimizer.state_dict()),
            "torch_generator": gen.get_state(), "numpy_rng": copy.deepcopy(rng.bit_generator.state),
            "league": ([(league.names[k], league.policies[k].net.state_dict()) for k in league.snapshot_ids]
                       if snapshots else []),
            "best_name": league.best_name,
        }

    def save(path: Path, ckpt: dict) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save(ckpt, path)

    if resume_from is not None:
        ckpt = load_checkpoint(resume_from, expect_algo="ppo")
        net.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        gen.set_state(ckpt["torch_generator"])
        rng.bit_generator.state = ckpt["numpy_rng"]
        start_update, global_step = ckpt["update"] + 1, ckpt["global_step"]
        for name, sd in ckpt["league"]:
            frozen = ActorCritic(obs_dim, NUM_ACTIONS, pc.hidden)
            frozen.load_state_dict(sd)
            league.add_snapshot(PPOPolicy(frozen, greedy=False, seed=rng.integers(2**62), name=name,
                                          forbid_taken=forbid), name)

    latest = run_dir / "checkpoints" / "latest.pt"
    last_good = checkpoint(start_update - 1)  # what an interrupt leaves in latest.pt
    additions: list[tuple[str, dict]] = []  # snapshots promoted since the last rollout
    metrics: dict = {}
    latest_eval: dict = {}  # shown in the progress bar until the next evaluation
    collector = None
    try:
        weights_of = lambda ids: {k: (league.names[k], league.policies[k].net.state_dict()) for k in ids}  # noqa: E731
        pool = list(weights_of(league.snapshot_ids).values())
        collector = make_collector(cfg, net, start_update, pool, snapshot_weights=weights_of)
        for update in range(start_update, num_updates + 1):
            t_start = time.perf_counter()
            if pc.anneal_lr:
                optimizer.param_groups[0]["lr"] = pc.lr * (1.0 - (update - 1.0) / num_updates)

            # --- rollout: the shards of the collector ---------------------------------------------
            batches = collector.collect(net, additions)
            additions = []
            b_obs = torch.from_numpy(np.concatenate([b.obs for b in batches]))
            b_mask = torch.from_numpy(np.concatenate([b.mask for b in batches]))
            b_act = torch.from_numpy(np.concatenate([b.action for b in batches]))
            b_logp = torch.from_numpy(np.concatenate([b.logp for b in batches]))
            b_adv = torch.from_numpy(np.concatenate([b.advantage for b in batches]))
            b_ret = torch.from_numpy(np.concatenate([b.ret for b in batches]))
            b_val = torch.from_numpy(np.concatenate([b.value for b in batches]))
            n_learner = sum(b.n_learner for b in batches)
            stats = HollywoodStats()
            for b in batches:
                stats.merge(b.stats)
            returns_done = [r for b in batches for r in b.episode_returns]
            n = b_obs.shape[0]
            global_step += n_learner
            t_collect = time.perf_counter() - t_start

            # --- PPO update -------------------------------------------------------------------------
            mb_size = max(1, n // pc.num_minibatches)
            clipfracs, approx_kl = [], torch.tensor(0.0)
            pg_loss = v_loss = entropy_loss = torch.tensor(0.0)
            for epoch in range(pc.update_epochs):
                perm = torch.randperm(n, generator=gen)
                for start in range(0, n, mb_size):
                    mb = perm[start:start + mb_size]
                    logits, newv = net(b_obs[mb].to(device))
                    dist = MaskedCategorical(logits, b_mask[mb].to(device))
                    newlogp = dist.log_prob(b_act[mb].to(device))
                    entropy = dist.entropy()
                    logratio = newlogp - b_logp[mb].to(device)
                    ratio = logratio.exp()
                    with torch.no_grad():
                        approx_kl = ((ratio - 1) - logratio).mean()
                        clipfracs.append(((ratio - 1.0).abs() > pc.clip_coef).float().mean().item())
                    mb_adv = b_adv[mb].to(device)
                    if pc.norm_adv and mb_adv.numel() > 1:
                        mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                    pg_loss = torch.max(-mb_adv * ratio,
                                        -mb_adv * torch.clamp(ratio, 1 - pc.clip_coef, 1 + pc.clip_coef)).mean()
                    ret, oldv = b_ret[mb].to(device), b_val[mb].to(device)
                    if pc.clip_vloss:
                        v_clipped = oldv + torch.clamp(newv - oldv, -pc.clip_coef, pc.clip_coef)
                        v_loss = 0.5 * torch.max((newv - ret) ** 2, (v_clipped - ret) ** 2).mean()
                    else:
                        v_loss = 0.5 * ((newv - ret) ** 2).mean()
                    entropy_loss = entropy.mean()
                    loss = pg_loss - pc.ent_coef * entropy_loss + pc.vf_coef * v_loss
                    optimizer.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(net.parameters(), pc.max_grad_norm)
                    optimizer.step()
                if pc.target_kl is not None and approx_kl > pc.target_kl:
                    break
            y_pred, y_true = b_val.numpy(), b_ret.numpy()
            var_y = np.var(y_true)
            explained_var = float("nan") if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
            elapsed = time.perf_counter() - t_start

            metrics = {
                "charts/learning_rate": optimizer.param_groups[0]["lr"],
                "charts/SPS": n_learner / elapsed,
                "charts/SPS_collect": n_learner / max(t_collect, 1e-9),
                "charts/worker_restarts": collector.restarts,
                "losses/value_loss": v_loss.item(), "losses/policy_loss": pg_loss.item(),
                "losses/entropy": entropy_loss.item(), "losses/approx_kl": approx_kl.item(),
                "losses/clipfrac": float(np.mean(clipfracs)) if clipfracs else 0.0,
                "losses/explained_variance": explained_var,
                "charts/league_size": len(league.snapshot_ids),
            }
            if returns_done:
                metrics["charts/episodic_return"] = float(np.mean(returns_done))
            metrics.update(stats.scalars())

            # --- league: gated snapshots, sent to the shards with the next rollout ------------------
            lc = cfg.league
            if lc.snapshot_every and update % lc.snapshot_every == 0:
                name = f"snapshot_{update}"
                cand = snapshot(name)
                win, promoted = promote_if_better(league, cand, name, rules, lc, seed=cfg.seed + update)
                metrics["league/gate_win_rate"] = win
                if promoted:
                    additions.append((name, cand.net.state_dict()))
                    save(run_dir / "checkpoints" / "best.pt", checkpoint(update, snapshots=False))
            league.forget_unused(np.array(sorted({k for b in batches for k in b.live}), dtype=np.int64))

            ec = cfg.eval
            if (ec.every and update % ec.every == 0) or update == num_updates:
                policy = PPOPolicy(copy.deepcopy(net).cpu(), greedy=ec.greedy, seed=cfg.seed, forbid_taken=forbid)
                metrics.update(evaluate_vs_bots(policy, ec.bots, rules, ec.pairs, seed=cfg.seed + 100_003))
            logger.log(update, global_step, metrics)
            last_good = checkpoint(update)
            if update % cfg.log.checkpoint_every == 0 or update == num_updates:
                save(latest, last_good)
            if progress is not None:
                progress.update(1)
                for k, v in metrics.items():
                    if k.startswith("eval/win_rate_vs_"):
                        latest_eval[k.removeprefix("eval/win_rate_vs_")] = f"{v:.2f}"
                progress.set_postfix({"SPS": f"{metrics['charts/SPS']:.0f}", **latest_eval})
            if on_update is not None:
                on_update(update, collector)
    except BaseException as e:  # Ctrl-C above all: leave a checkpoint to resume from
        save(latest, last_good)
        why = "interrupted" if isinstance(e, KeyboardInterrupt) else f"stopped by {type(e).__name__}"
        logging.getLogger(__name__).warning(
            "%s: %s holds update %d of %d; continue with `hollywood train --resume %s`",
            why, latest, last_good["update"], num_updates, run_dir)
        raise
    finally:
        if collector is not None:
            collector.close()
    if not (run_dir / "checkpoints" / "best.pt").exists():
        save(run_dir / "checkpoints" / "best.pt", checkpoint(num_updates, snapshots=False))
    return metrics
