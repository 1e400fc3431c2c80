"""The schema of a training run: one dataclass per section of a YAML config in ``configs/``.

A config file has the sections below (every key optional; missing keys keep these defaults).
Unknown keys and values of the wrong type are errors (see :mod:`experiments.config.loader`), and
so is every value out of its range: each section checks its values when it is built
(``__post_init__``, a ``ValueError`` naming the key, the value and what is allowed).
:func:`validate` adds the checks that look beyond the values (the device exists, every bot of
``league.bots`` and ``eval.bots`` can be built, ``log.root`` can hold run folders): ``hollywood
train`` runs it before it creates a run folder.

.. code-block:: yaml

    algo: ppo            # ppo | dqn
    seed: 0
    device: cpu          # cpu | cuda
    torch_threads: 2
    total_steps: 2000000 # decisions stepped (num_games x num_steps per update)
    env:    {rules: hollywood, reward: hollywood, max_steps: 3000, ...}
    ppo:    {num_games: 512, num_steps: 64, lr: 0.00025, ...}      # agents/rl/ppo.py PPOConfig
    dqn:    {num_games: 128, num_steps: 16, n_step: 3, ...}        # agents/rl/dqn.py DQNConfig
    league: {self_play_weight: 0.5, snapshot_weight: 0.25, bot_weight: 0.25, bots: [random, simple]}
    eval:   {every: 20, pairs: 100, bots: [random, simple]}
    log:    {root: runs, name: ppo_hollywood, checkpoint_every: 10}
    collector: {kind: local, num_workers: 1, ...}   # local | process | ray: agents/rl/collectors.py
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.rl.collectors import CollectorConfig
from agents.rl.dqn import DQNConfig
from agents.rl.ppo import PPOConfig
from experiments.config.loader import ConfigError, suggest
from hollywood_env.rewards import MODES as REWARD_MODES
from hollywood_env.rules import PRESETS, Rules


def _check_number(key: str, value, low: float, closed: bool = True, high: float = math.inf) -> None:
    """ValueError unless ``value`` is a finite number in ``[low, high]`` (``(low, high]`` if not ``closed``)."""
    if not (math.isfinite(value) and (value >= low if closed else value > low) and value <= high):
        allowed = (f"in {'[' if closed else '('}{low:g}, {high:g}]" if math.isfinite(high)
                   else f"{'>=' if closed else '>'} {low:g} and finite")
        raise ValueError(f"{key} must be a number {allowed}, got {value!r}")


def _check_int(key: str, value: int, low: int) -> None:
    if value < low:
        raise ValueError(f"{key} must be >= {low}, got {value!r}")


@dataclass
class EnvConfig:
    """The game: rules preset (plus option overrides), reward mode and episode limits."""

    rules: str = "hollywood"  # a preset name of docs/rules.md section 5
    rule_options: dict[str, Any] = field(default_factory=dict)  # e.g. {knock_limit: 8}
    reward: str = "hollywood"  # hand | hollywood | games | match
    reward_scale: float = 1.0
    per_hand_episodes: bool = False
    max_steps: int = 3000  # decisions per match before truncation

    def __post_init__(self):  # unknown presets, options and reward modes fail at load time
        if self.rules not in PRESETS:
            raise ValueError(f"env.rules: unknown rules preset {self.rules!r}; valid presets: {', '.join(PRESETS)}"
                             f"{suggest(self.rules, PRESETS)}")
        options = [f.name for f in dataclasses.fields(Rules)]
        for name in self.rule_options:
            if name not in options:
                raise ValueError(f"env.rule_options: unknown rule option(s) [{name!r}]; valid options: "
                                 f"{', '.join(sorted(options))}{suggest(name, options)}")
        try:
            self.make_rules()
        except (TypeError, ValueError) as e:
            raise ValueError(f"env.rule_options {self.rule_options}: {e}") from None
        if self.reward not in REWARD_MODES:
            raise ValueError(f"env.reward: unknown reward mode {self.reward!r}; valid modes: {', '.join(REWARD_MODES)}"
                             f"{suggest(self.reward, REWARD_MODES)}")
        _check_number("env.reward_scale", self.reward_scale, 0.0, closed=False)
        self.make_reward()
        _check_int("env.max_steps", self.max_steps, 1)

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

    Exploiters (PPO only): every ``exploiter_every`` updates a best response to the current
    policy is trained (``hollywood exploit``'s recipe ``exploiter_config``, from the current
    weights, for ``exploiter_decisions`` decisions, in ``<run>/exploiters/``) and becomes an
    opponent of the learner, as PSRO's best responses and AlphaStar's league exploiters do. With
    ``exploiter_weight`` 0 it joins the snapshot pool and shares the snapshots' weight; otherwise
    the exploiters, all kept, share ``exploiter_weight`` of the games among themselves. What each
    won against the policy is logged as ``league/exploiter_win_rate``.
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
    exploiter_every: int = 0  # updates; 0: no exploiters
    exploiter_decisions: int = 500_000
    exploiter_config: str = "exploit"
    exploiter_weight: float = 0.0  # share of the games against the exploiters; 0: they join the snapshot pool

    def __post_init__(self):
        for name in ("self_play_weight", "snapshot_weight", "bot_weight", "exploiter_weight"):
            _check_number(f"league.{name}", getattr(self, name), 0.0)
        w = (self.self_play_weight, self.snapshot_weight, self.bot_weight)
        if sum(w) <= 0:
            raise ValueError(f"league weights (self_play_weight, snapshot_weight, bot_weight) must not all be 0, got {w}")
        _check_int("league.snapshot_every", self.snapshot_every, 0)  # 0: no snapshots
        _check_int("league.pool_size", self.pool_size, 1)
        _check_int("league.gate_pairs", self.gate_pairs, 1)
        _check_number("league.gate_threshold", self.gate_threshold, 0.0, high=1.0)
        _check_names("league.bots", self.bots)
        _check_int("league.exploiter_every", self.exploiter_every, 0)
        _check_int("league.exploiter_decisions", self.exploiter_decisions, 1)
        if self.exploiter_weight > 0 and not self.exploiter_every:
            raise ValueError(f"league.exploiter_weight={self.exploiter_weight}: the share of the exploiters' games "
                             "needs exploiters, set league.exploiter_every > 0")


@dataclass
class EvalConfig:
    """Periodic evaluation with the duplicate-deal evaluator (``eval/*`` tags)."""

    every: int = 20  # updates; 0: only at the end
    pairs: int = 100  # duplicate pairs (2 matches each) per bot
    bots: list[str] = field(default_factory=lambda: ["random", "simple"])
    greedy: bool = True  # evaluate the argmax policy

    def __post_init__(self):
        _check_int("eval.every", self.every, 0)
        _check_int("eval.pairs", self.pairs, 1)
        _check_names("eval.bots", self.bots)


@dataclass
class LogConfig:
    root: str = "runs"
    name: str = "run"
    checkpoint_every: int = 10  # updates
    progress: bool = True

    def __post_init__(self):
        if not self.root.strip():
            raise ValueError(f"log.root must be a folder path, got {self.root!r}")
        if not self.name.strip() or "/" in self.name or "\\" in self.name:
            raise ValueError(f"log.name must be a non-empty name without '/' (it starts the run folder's name), "
                             f"got {self.name!r}")
        _check_int("log.checkpoint_every", self.checkpoint_every, 1)


def _check_names(key: str, specs) -> None:
    """Agent specs: a registered name is checked here; other forms (``ppo:PATH``, ``module:function``)
    when :func:`validate` builds them."""
    from agents.registry import available_agents, registered_names

    for spec in specs:
        if not isinstance(spec, str) or not spec.strip():
            raise ValueError(f"{key}: an agent must be a non-empty name or spec, got {spec!r}")
        if ":" not in spec and spec.strip() not in registered_names():
            raise ValueError(f"{key}: unknown agent {spec!r}; valid agents: {', '.join(available_agents())}"
                             f"{suggest(spec, registered_names())}")


@dataclass
class TrainConfig:
    algo: str = "ppo"
    seed: int = 0
    device: str = "cpu"
    torch_threads: int = 2
    # decisions stepped in the training games: updates = total_steps // (num_games * num_steps);
    # the learner makes its share of them (global_step counts those)
    total_steps: int = 1_000_000
    env: EnvConfig = field(default_factory=EnvConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    dqn: DQNConfig = field(default_factory=DQNConfig)
    league: LeagueConfig = field(default_factory=LeagueConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    log: LogConfig = field(default_factory=LogConfig)
    collector: CollectorConfig = field(default_factory=CollectorConfig)

    def __post_init__(self):
        if self.algo not in ("ppo", "dqn"):
            raise ValueError(f"algo must be 'ppo' or 'dqn', got {self.algo!r}{suggest(self.algo, ('ppo', 'dqn'))}")
        if not re.fullmatch(r"cpu|cuda(:[0-9]+)?", self.device):
            raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N', got {self.device!r}")
        _check_int("seed", self.seed, 0)
        _check_int("torch_threads", self.torch_threads, 1)
        _check_int("total_steps", self.total_steps, 1)
        if self.league.exploiter_every and self.algo != "ppo":
            raise ValueError(f"league.exploiter_every: exploiters are PPO best responses, for algo ppo only "
                             f"(got algo {self.algo!r}); set it to 0")
        # num_games must split evenly into the collector's shards (PPO and DQN alike)
        self.collector.envs_per_worker(getattr(self, self.algo).num_games, self.algo)


def check_device(device: str) -> None:
    """ConfigError unless ``device`` (``cpu``, ``cuda``, ``cuda:N``) can be used on this machine."""
    if device == "cpu":
        return
    import torch

    if not torch.cuda.is_available():
        raise ConfigError(f"device: {device!r} is not available: this torch build ({torch.__version__}) sees no CUDA "
                          f"device (torch.cuda.is_available() is False); allowed here: cpu")
    index = int(device.partition(":")[2] or 0)
    count = torch.cuda.device_count()
    if index >= count:
        raise ConfigError(f"device: {device!r} is not available: this machine has {count} CUDA device(s); "
                          f"allowed: cpu, cuda, " + ", ".join(f"cuda:{i}" for i in range(count)))


def validate(cfg: TrainConfig) -> TrainConfig:
    """The checks of a resolved config beyond its values (those run when it is built): the device
    is available, every agent of ``league.bots`` and ``eval.bots`` can be built (names exist,
    checkpoints load), the weights of ``ppo.init`` and ``ppo.anchor`` fit the network,
    ``log.root`` is a folder or can be made one, and no number is NaN or infinite. Raises
    :class:`ConfigError` naming the key; returns ``cfg``."""
    from agents.registry import make_agent

    _check_finite(cfg, "")
    check_device(cfg.device)
    root = Path(cfg.log.root)
    for parent in (root, *root.parents):
        if parent.exists():
            if not parent.is_dir():
                raise ConfigError(f"log.root: {cfg.log.root!r} cannot hold run folders: {str(parent)!r} is not a folder")
            break
    rules = cfg.env.make_rules()
    for key, specs in (("league.bots", cfg.league.bots), ("eval.bots", cfg.eval.bots)):
        for spec in specs:
            try:
                make_agent(spec, rules, seed=0)
            except (ValueError, OSError, ImportError) as e:  # AgentSpecError, CheckpointError are ValueErrors
                raise ConfigError(f"{key}: {e}") from None
    _check_start_weights(cfg, rules)
    return cfg


def _check_start_weights(cfg: TrainConfig, rules) -> None:
    """ConfigError unless the weights ``ppo.init`` and ``ppo.anchor`` name load into a network
    of the config's shape (before any run folder or worker exists)."""
    if cfg.algo != "ppo":
        return
    from agents.rl.loop import load_initial_weights
    from hollywood_env.actions import NUM_ACTIONS
    from hollywood_env.observation import observation_size

    pc = cfg.ppo
    for key in ("init", "anchor"):
        spec = getattr(pc, key)
        if spec:
            net = pc.make_network(pc.input_size(observation_size(rules)), NUM_ACTIONS)
            try:
                load_initial_weights(net, spec, f"ppo.{key}")
            except ValueError as e:
                raise ConfigError(str(e)) from None


def _check_finite(obj, where: str) -> None:
    """ConfigError for a NaN or infinite float anywhere in the config (a safety net: every
    section's own checks reject them with the allowed range)."""
    for f in dataclasses.fields(obj):
        value, key = getattr(obj, f.name), f"{where}{f.name}"
        if dataclasses.is_dataclass(value):
            _check_finite(value, key + ".")
        elif isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{key} must be a finite number, got {value!r}")
