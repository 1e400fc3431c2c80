"""Masked PPO with league self-play on the batched self-play API (CleanRL style, one file).

The rollout steps ``num_games`` matches at once through :class:`hollywood_env.SelfPlayBatch`.
Each game has an opponent from the :class:`~agents.league.League` (the latest policy itself,
a frozen snapshot, or a bot); the learner acts in its seat (both seats in self-play games).

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
        for name in ("num_games", "num_steps", "num_minibatches", "update_epochs"):
            if getattr(self, name) < 1:
                raise ValueError(f"ppo.{name} must be >= 1, got {getattr(self, name)}")
        if not self.hidden:
            raise ValueError("ppo.hidden needs at least one layer size")


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


def train(cfg, run_dir: Path, logger, resume_from: Path | None = None, progress=None) -> dict:
    """Train PPO with the :class:`~experiments.schema.TrainConfig` ``cfg``; returns final metrics."""
    from agents.league import SELF, League
    from experiments.config import to_dict
    from experiments.trainutil import HollywoodStats, evaluate_vs_bots, gate, seed_everything
    from hollywood_env.selfplay import SelfPlayBatch
    from hollywood_env.actions import NUM_ACTIONS

    pc = cfg.ppo
    rng, gen = seed_everything(cfg.seed, cfg.torch_threads)
    device = torch.device(cfg.device)
    rules, reward = cfg.env.make_rules(), cfg.env.make_reward()
    B, T = pc.num_games, pc.num_steps
    batch = SelfPlayBatch(B, rules, reward, seed=cfg.seed, max_steps=cfg.env.max_steps)
    obs_dim = batch.observation_size + NUM_FEATURES
    forbid = rules.forbid_discard_of_taken_card
    net = ActorCritic(obs_dim, NUM_ACTIONS, pc.hidden).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=pc.lr, eps=1e-5)
    league = League(cfg.league, rules, rng)
    num_updates = max(1, cfg.total_steps // (B * T))
    start_update, global_step = 1, 0

    def snapshot(name: str) -> "PPOPolicy":
        frozen = ActorCritic(obs_dim, NUM_ACTIONS, pc.hidden)
        frozen.load_state_dict({k: v.detach().cpu().clone() for k, v in net.state_dict().items()})
        return PPOPolicy(frozen, greedy=False, seed=rng.integers(2**62), name=name, forbid_taken=forbid)

    def save(path: Path, update: int, snapshots=True) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({
            "algo": "ppo", "features": FEATURES_VERSION, "model": net.state_dict(), "obs_dim": obs_dim, "num_actions": NUM_ACTIONS,
            "hidden": list(pc.hidden), "rules": rules.to_dict(), "config": to_dict(cfg), "update": update,
            "global_step": global_step, "optimizer": optimizer.state_dict(),
            "torch_generator": gen.get_state(), "numpy_rng": rng.bit_generator.state,
            "league": ([(league.names[k], league.policies[k].net.state_dict()) for k in league.snapshot_ids]
                       if snapshots else []),
            "best_name": league.best_name,
        }, path)

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

    # rollout storage (T, B, ...)
    obs_buf = torch.zeros((T, B, obs_dim), dtype=torch.float32)
    mask_buf = torch.zeros((T, B, NUM_ACTIONS), dtype=torch.bool)
    act_buf = torch.zeros((T, B), dtype=torch.long)
    logp_buf = torch.zeros((T, B))
    val_buf = np.zeros((T, B), dtype=np.float32)
    rew_buf = np.zeros((T, B), dtype=np.float32)
    done_buf = np.zeros((T, B), dtype=bool)
    learner_buf = np.zeros((T, B), dtype=bool)
    player_buf = np.zeros((T, B), dtype=np.int64)

    obs, mask, player = batch.reset(seed=cfg.seed + 7919 * (start_update - 1))
    assign = league.sample(B)
    waiting = np.zeros(B, dtype=bool)
    ep_return = np.zeros(B)
    stats = HollywoodStats()
    returns_done: list[float] = []
    metrics: dict = {}
    latest_eval: dict = {}  # shown in the progress bar until the next evaluation
    rows_all = np.arange(B)

    for update in range(start_update, num_updates + 1):
        t_start = time.perf_counter()
        if pc.anneal_lr:
            optimizer.param_groups[0]["lr"] = pc.lr * (1.0 - (update - 1.0) / num_updates)
        last_t = np.full((B, 2), -1, dtype=np.int64)
        n_learner = 0
        for t in range(T):
            learner = ~waiting & ((assign.opponent == SELF) | (player == assign.learner_seat))
            opp_rows = np.flatnonzero(~waiting & ~learner)
            lr_rows = np.flatnonzero(learner)
            actions = np.zeros(B, dtype=np.int64)
            if lr_rows.size:
                with torch.no_grad():
                    idx = torch.from_numpy(lr_rows)
                    x = torch.from_numpy(augment(obs[lr_rows], mask[lr_rows], forbid))
                    m = torch.from_numpy(mask[lr_rows])
                    obs_buf[t, idx] = x
                    mask_buf[t, idx] = m
                    logits, value = net(x.to(device))
                    dist = MaskedCategorical(logits, m.to(device))
                    a = dist.sample(gen).cpu()
                    logp_buf[t, idx] = dist.log_prob(a.to(device)).cpu()
                    act_buf[t, idx] = a
                    val_buf[t, lr_rows] = value.cpu().numpy()
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
                finished_other = e[vs_other[e]]
                returns_done.extend(ep_return[finished_other].tolist())
                ep_return[e] = 0.0
                fresh = league.sample(e.size)
                assign.opponent[e], assign.learner_seat[e] = fresh.opponent, fresh.learner_seat
            else:
                stats.add(info, np.zeros(B, dtype=bool))
            waiting = ended

        # --- GAE over each (game, player) stream, backwards -----------------------------------
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
            tail = open_tail[t, rows]
            adv = np.where(tail, 0.0, adv)
            adv_buf[t, rows] = adv
            next_val[rows, p] = v
            next_adv[rows, p] = adv
        train_mask = learner_buf & ~open_tail
        sel = torch.from_numpy(train_mask.reshape(-1))
        b_obs = obs_buf.reshape(-1, obs_dim)[sel]
        b_mask = mask_buf.reshape(-1, NUM_ACTIONS)[sel]
        b_act = act_buf.reshape(-1)[sel]
        b_logp = logp_buf.reshape(-1)[sel]
        b_adv = torch.from_numpy(adv_buf.reshape(-1))[sel]
        b_val = torch.from_numpy(val_buf.reshape(-1))[sel]
        b_ret = b_adv + b_val
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
                pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - pc.clip_coef, 1 + pc.clip_coef)).mean()
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
            "losses/value_loss": v_loss.item(), "losses/policy_loss": pg_loss.item(),
            "losses/entropy": entropy_loss.item(), "losses/approx_kl": approx_kl.item(),
            "losses/clipfrac": float(np.mean(clipfracs)) if clipfracs else 0.0,
            "losses/explained_variance": explained_var,
            "charts/league_size": len(league.snapshot_ids),
        }
        if returns_done:
            metrics["charts/episodic_return"] = float(np.mean(returns_done))
            returns_done.clear()
        metrics.update(stats.scalars())
        stats.reset()

        # --- league: gated snapshots ------------------------------------------------------------
        lc = cfg.league
        if lc.snapshot_every and update % lc.snapshot_every == 0:
            name = f"snapshot_{update}"
            cand = snapshot(name)
            if league.best is None:
                win = 1.0
            else:
                win = gate(cand, league.best, rules, lc.gate_pairs, lc.gate_per_hand, seed=cfg.seed + update)
            metrics["league/gate_win_rate"] = win
            if league.best is None or win > lc.gate_threshold:
                league.add_snapshot(cand, name)
                save(run_dir / "checkpoints" / "best.pt", update, snapshots=False)
            league.forget_unused(assign.opponent)

        ec = cfg.eval
        if (ec.every and update % ec.every == 0) or update == num_updates:
            policy = PPOPolicy(copy.deepcopy(net).cpu(), greedy=ec.greedy, seed=cfg.seed, forbid_taken=forbid)
            metrics.update(evaluate_vs_bots(policy, ec.bots, rules, ec.pairs, seed=cfg.seed + 100_003))
        logger.log(update, global_step, metrics)
        if update % cfg.log.checkpoint_every == 0 or update == num_updates:
            save(run_dir / "checkpoints" / "latest.pt", update)
        if progress is not None:
            progress.update(1)
            for k, v in metrics.items():
                if k.startswith("eval/win_rate_vs_"):
                    latest_eval[k.removeprefix("eval/win_rate_vs_")] = f"{v:.2f}"
            progress.set_postfix({"SPS": f"{metrics['charts/SPS']:.0f}", **latest_eval})
    if not (run_dir / "checkpoints" / "best.pt").exists():
        save(run_dir / "checkpoints" / "best.pt", num_updates, snapshots=False)
    return metrics
