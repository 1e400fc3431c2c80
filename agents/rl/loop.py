"""What the PPO and DQN trainers share: seeding, the checks of their config sections, the
league's gated promotion, periodic evaluation against bots (``eval/*``), Hollywood statistics from
rollouts (``hollywood/*``), the expert bot of the imitation terms (``ppo.expert``, ``dqn.expert``)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.matches import PairingResult, play_pairing
from hollywood_env.actions import KIND_BIG_GIN, KIND_GIN, KIND_KNOCK, KIND_UNDERCUT, KIND_WALL
from hollywood_env.rules import Rules

if TYPE_CHECKING:  # annotations only
    import torch

    from agents.bots import Bot
    from agents.registry import Policy
    from agents.rl.league import League


def seed_everything(seed: int, torch_threads: int) -> tuple[np.random.Generator, torch.Generator]:
    """The fixed seeding block: Python, numpy and torch, and torch's thread count."""
    import torch

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


# --- config checks (a ValueError naming ``<section>.<key>``, the value and what is allowed) ----------


def in_range(value: float, low: float, closed: bool, high: float) -> bool:
    """``value`` is a finite number above ``low`` (or equal to it when ``closed``) and at most
    ``high``."""
    return bool(np.isfinite(value) and (value >= low if closed else value > low) and value <= high)


def check_at_least(section: str, config: Any, names: Iterable[str], low: int) -> None:
    """Each field ``names`` of ``config`` is at least ``low``."""
    for name in names:
        if getattr(config, name) < low:
            raise ValueError(f"{section}.{name} must be >= {low}, got {getattr(config, name)}")


def check_numbers(section: str, config: Any, ranges: Iterable[tuple[str, float, bool, float]],
                  nullable: Iterable[str] = ()) -> None:
    """Each field of ``ranges`` ``(name, low, low included, high)`` is a finite number in that range
    (:func:`in_range`); a field of ``nullable`` may also be None."""
    nullable = set(nullable)
    for name, low, closed, high in ranges:
        v = getattr(config, name)
        if v is None and name in nullable:
            continue
        if not in_range(v, low, closed, high):
            allowed = (f"in {'[' if closed else '('}{low:g}, {high:g}]" if np.isfinite(high)
                       else f"{'>=' if closed else '>'} {low:g} and finite")
            raise ValueError(f"{section}.{name} must be a number {allowed}{' (or null)' if name in nullable else ''}, "
                             f"got {v!r}")


def check_hidden(section: str, hidden: list[int]) -> None:
    """``<section>.hidden``: at least one layer size, each at least 1."""
    if not hidden:
        raise ValueError(f"{section}.hidden needs at least one layer size, got []")
    if any(h < 1 for h in hidden):
        raise ValueError(f"{section}.hidden: every layer size must be >= 1, got {list(hidden)}")


def check_expert_fields(section: str, expert: str | None, coef: float, until: float) -> None:
    """The ``<section>.expert*`` values of a config, each checked (a ValueError naming the key, the
    value and what is allowed)."""
    if not in_range(coef, 0.0, True, np.inf):
        raise ValueError(f"{section}.expert_coef must be a finite number >= 0, got {coef!r}")
    if not in_range(until, 0.0, False, 1.0):
        raise ValueError(f"{section}.expert_until must be a fraction of the run in (0, 1], got {until!r}")
    if expert is not None and not (isinstance(expert, str) and expert.strip()):
        raise ValueError(f"{section}.expert must be a bot name (simple, neller, hollywood, marjj) or null, "
                         f"got {expert!r}")


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


class HollywoodStats:
    """Accumulates ``hollywood/*`` statistics from the ``info`` of self-play batch steps."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.hands = self.walls = self.gins = self.knocks = self.undercuts = self.matches = 0
        self.knock_deadwood = 0.0
        self.learner_games = self.learner_matches = 0
        self.episodes = self.episode_decisions = 0  # episodes against other opponents

    def add(self, info: dict, ended_matches: np.ndarray, learner_games_won: np.ndarray | None = None) -> None:
        e = info["hand_ended"]
        if e.any():
            kind = info["hand_kind"][e]
            self.hands += int(e.sum())
            self.walls += int((kind == KIND_WALL).sum())
            self.gins += int(((kind == KIND_GIN) | (kind == KIND_BIG_GIN)).sum())
            knocks = (kind == KIND_KNOCK) | (kind == KIND_UNDERCUT)
            self.knocks += int(knocks.sum())
            self.undercuts += int((kind == KIND_UNDERCUT).sum())
            self.knock_deadwood += float(info["knocker_deadwood"][e][knocks].sum())
        self.matches += int(ended_matches.sum())
        if learner_games_won is not None and learner_games_won.size:
            self.learner_games += int(learner_games_won.sum())
            self.learner_matches += int(learner_games_won.size)

    def add_episodes(self, decisions: np.ndarray) -> None:
        """Finished episodes against other opponents: the learner's decisions in each."""
        self.episodes += int(decisions.size)
        self.episode_decisions += int(decisions.sum())

    def merge(self, other: HollywoodStats) -> HollywoodStats:
        """Add the counts of ``other`` (another rollout shard's) to these."""
        for k, v in vars(other).items():
            setattr(self, k, getattr(self, k) + v)
        return self

    def scalars(self) -> dict:
        decided = self.hands - self.walls
        out = {
            "hollywood/gin_rate": self.gins / decided if decided else None,
            "hollywood/undercut_rate": self.undercuts / self.knocks if self.knocks else None,
            "hollywood/knock_deadwood": self.knock_deadwood / self.knocks if self.knocks else None,
            "hollywood/wall_rate": self.walls / self.hands if self.hands else None,
            "hollywood/hands_per_match": self.hands / self.matches if self.matches else None,
            "hollywood/games_won": self.learner_games / self.learner_matches if self.learner_matches else None,
            # CleanRL's tag: the learner's decisions per episode, over the episodes of charts/episodic_return
            "charts/episodic_length": self.episode_decisions / self.episodes if self.episodes else None,
        }
        return out


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

