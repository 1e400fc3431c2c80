"""The schema of a training run: one dataclass per section of a YAML config in ``configs/``.

A config file has the sections below (every key optional; missing keys keep these defaults).
Unknown keys and values of the wrong type are errors (see :mod:`experiments.config`).

.. code-block:: yaml

    algo: ppo            # ppo | dqn
    seed: 0
    device: cpu          # cpu | cuda
    torch_threads: 2
    total_steps: 2000000 # learner decisions
    env:    {rules: hollywood, reward: hollywood, max_steps: 3000, ...}
    ppo:    {num_games: 512, num_steps: 64, lr: 0.00025, ...}      # agents/ppo.py PPOConfig
    dqn:    {num_games: 128, num_steps: 16, n_step: 3, ...}        # agents/dqn.py DQNConfig
    league: {self_play_weight: 0.5, snapshot_weight: 0.25, bot_weight: 0.25, bots: [random, simple]}
    eval:   {every: 20, pairs: 100, bots: [random, simple]}
    log:    {root: runs, name: ppo_hollywood, checkpoint_every: 10}
    collector: {kind: local, num_workers: 1, ray_address: null, ...}   # agents/collectors.py (ppo only)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agents.collectors import CollectorConfig
from agents.dqn import DQNConfig
from agents.ppo import PPOConfig


@dataclass
class EnvConfig:
    """The game: rules preset (plus option overrides), reward mode and episode limits."""

    rules: str = "hollywood"  # a preset name of RULES.md section 5
    rule_options: dict[str, Any] = field(default_factory=dict)  # e.g. {knock_limit: 8}
    reward: str = "hollywood"  # hand | hollywood | games | match
    reward_scale: float = 1.0
    per_hand_episodes: bool = False
    max_steps: int = 3000  # decisions per match before truncation

    def __post_init__(self):
        self.make_rules()  # unknown presets, options and reward modes fail at load time
        self.make_reward()
        if self.max_steps < 1:
            raise ValueError(f"env.max_steps must be positive, got {self.max_steps}")

    def make_rules(self):
        from hollywood_env.rules import Rules

        return Rules.preset(self.rules).replace(**self.rule_options)

    def make_reward(self):
        from hollywood_env.rewards import RewardConfig

        return RewardConfig(mode=self.reward, scale=self.reward_scale, per_hand_episodes=self.per_hand_episodes)


@dataclass
class LeagueConfig:
    """Opponents, sampled per game at the start of each of its episodes.

    ``self_play_weight``: the latest policy plays both seats (both seats are trained on).
    ``snapshot_weight``: a frozen past snapshot from the pool. ``bot_weight``: a baseline bot.
    Every ``snapshot_every`` updates the current policy is evaluated against the best snapshot
    so far over ``gate_pairs`` duplicate-deal pairs; it enters the pool (and becomes the best,
    saved as ``best.pt``) only if it wins more than ``gate_threshold`` of those matches.
    """

    self_play_weight: float = 0.5
    snapshot_weight: float = 0.25
    bot_weight: float = 0.25
    bots: list[str] = field(default_factory=lambda: ["random", "simple"])
    snapshot_every: int = 10
    pool_size: int = 8
    gate_pairs: int = 64
    gate_threshold: float = 0.5
    gate_per_hand: bool = True  # gate on duplicate hands (fast) instead of whole matches


@dataclass
class EvalConfig:
    """Periodic evaluation with the duplicate-deal evaluator (``eval/*`` tags)."""

    every: int = 20  # updates; 0: only at the end
    pairs: int = 100  # duplicate pairs (2 matches each) per bot
    bots: list[str] = field(default_factory=lambda: ["random", "simple"])
    greedy: bool = True  # evaluate the argmax policy


@dataclass
class LogConfig:
    root: str = "runs"
    name: str = "run"
    checkpoint_every: int = 10  # updates
    progress: bool = True


@dataclass
class TrainConfig:
    algo: str = "ppo"
    seed: int = 0
    device: str = "cpu"
    torch_threads: int = 2
    total_steps: int = 1_000_000  # learner decisions
    env: EnvConfig = field(default_factory=EnvConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    dqn: DQNConfig = field(default_factory=DQNConfig)
    league: LeagueConfig = field(default_factory=LeagueConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    log: LogConfig = field(default_factory=LogConfig)
    collector: CollectorConfig = field(default_factory=CollectorConfig)

    def __post_init__(self):
        if self.algo not in ("ppo", "dqn"):
            raise ValueError(f"algo must be 'ppo' or 'dqn', got {self.algo!r}")
        if self.device not in ("cpu", "cuda") and not self.device.startswith("cuda:"):
            raise ValueError(f"device must be 'cpu' or 'cuda[:N]', got {self.device!r}")
        if self.total_steps < 1:
            raise ValueError(f"total_steps must be positive, got {self.total_steps}")
        if self.algo == "ppo":
            self.collector.envs_per_worker(self.ppo.num_games)  # num_games must split evenly
        elif self.collector.kind != "local" or self.collector.num_workers != 1:
            raise ValueError(f"collector: only PPO collects in shards; {self.algo} needs kind local and num_workers 1")
        w = (self.league.self_play_weight, self.league.snapshot_weight, self.league.bot_weight)
        if min(w) < 0 or sum(w) <= 0:
            raise ValueError(f"league weights must be >= 0 and not all 0, got {w}")
