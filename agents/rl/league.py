"""The opponent league of self-play training.

Each game of the training batch gets, at the start of every episode, an opponent drawn with the
configured weights: the latest policy itself (both seats are then the learner), a frozen past
snapshot from a bounded pool, a baseline bot, or one of the league's exploiters (best responses
to the policy, when they have a share of their own); and, when the opponent is not the learner
itself, a learner seat drawn uniformly. A snapshot enters the pool only after a gated evaluation
against the best snapshot so far (see :class:`experiments.config.schema.LeagueConfig`), so the pool
cannot silently fill with policies that got worse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.registry import Policy, make_agent
from hollywood_env.rules import Rules
from hollywood_env.sampling import as_generator

SELF = -1  # opponent id of self-play games
EXPLOITER_PREFIX = "exploiter_"  # the names of the league's exploiters (``exploiter_<update>``)


@dataclass
class Assignment:
    opponent: np.ndarray  # (B,) int: SELF, or an index into League.members
    learner_seat: np.ndarray  # (B,) int 0/1 (both seats learn when opponent == SELF)


class League:
    """Opponents for a batch of games. Every member (bot or snapshot) has a fixed integer id;
    a snapshot evicted from the pool keeps playing the episodes it was drawn for.

    ``make_bots=False`` keeps the bots' ids but builds no bot (the PPO learner's view of the league:
    the pool and the best snapshot, for gating and checkpoints; its rollout shards play the bots).
    Member ids depend only on the order of additions, so every copy of a league that receives the
    same snapshots in the same order agrees on them.
    """

    def __init__(self, cfg: Any, rules: Rules | str | None, rng: np.random.Generator, make_bots: bool = True):
        self.cfg = cfg
        self.rules = rules
        self.rng = rng
        self.policies: dict[int, object] = {}
        self.names: dict[int, str] = {}
        self.bot_ids: list[int] = []
        self.snapshot_ids: list[int] = []  # the pool, oldest first
        self.exploiter_ids: list[int] = []  # the exploiters with a share of their own, oldest first
        for name in cfg.bots:
            seed = as_generator(rng.integers(2**63))
            self._add(make_agent(name, rules, seed=seed) if make_bots else None, name, self.bot_ids)
        self.best = None  # the best snapshot so far (a policy), for gating
        self.best_name: str | None = None

    def _add(self, policy, name: str, ids: list[int]) -> int:
        k = len(self.names)
        self.policies[k], self.names[k] = policy, name
        ids.append(k)
        return k

    def add_snapshot(self, policy: Policy, name: str, best: bool = True) -> None:
        """Put a snapshot in the pool (evicting the oldest); a promoted one (``best``) becomes the
        best, against which the next candidates are gated (an exploiter does not)."""
        self._add(policy, name, self.snapshot_ids)
        if len(self.snapshot_ids) > self.cfg.pool_size:
            self.snapshot_ids.pop(0)
        if best:
            self.best, self.best_name = policy, name

    def add_exploiter(self, policy: Policy, name: str) -> None:
        """A best response to the policy joins the league. With ``exploiter_weight`` it is kept
        among the exploiters, who share that weight of the games however many snapshots there
        are; without, it joins the snapshot pool (never as the best)."""
        if self.cfg.exploiter_weight > 0:
            self._add(policy, name, self.exploiter_ids)
        else:
            self.add_snapshot(policy, name, best=False)

    def add_member(self, policy: Policy, name: str) -> None:
        """A member sent by the learner (a shard's copy of the league): an exploiter by its name,
        otherwise a promoted snapshot."""
        if name.startswith(EXPLOITER_PREFIX):
            self.add_exploiter(policy, name)
        else:
            self.add_snapshot(policy, name)

    def sample(self, n: int) -> Assignment:
        """Opponents and learner seats for ``n`` new episodes."""
        groups = (self.snapshot_ids, self.bot_ids, self.exploiter_ids)
        weights = (self.cfg.snapshot_weight, self.cfg.bot_weight, self.cfg.exploiter_weight)
        w = np.array([self.cfg.self_play_weight,
                      *(weight if ids else 0.0 for weight, ids in zip(weights, groups, strict=True))])
        if w.sum() <= 0:
            w = np.array([1.0, 0.0, 0.0, 0.0])
        kind = self.rng.choice(len(w), size=n, p=w / w.sum())
        opp = np.full(n, SELF, dtype=np.int64)
        for k, ids in enumerate(groups, start=1):
            rows = kind == k
            if ids and rows.any():
                opp[rows] = np.asarray(ids)[self.rng.integers(len(ids), size=int(rows.sum()))]
        seat = self.rng.integers(2, size=n)
        return Assignment(opp, seat)

    def act(self, opponent: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Actions of the league members ``opponent`` (one id per row) on their rows."""
        actions = np.zeros(opponent.shape[0], dtype=np.int64)
        for k in np.unique(opponent):
            rows = np.flatnonzero(opponent == k)
            actions[rows] = self.policies[int(k)](obs[rows], mask[rows])
        return actions

    def forget_unused(self, in_use: np.ndarray) -> None:
        """Drop evicted snapshots that no game plays any more."""
        keep = set(self.bot_ids) | set(self.snapshot_ids) | set(self.exploiter_ids) | {int(k) for k in np.unique(in_use)}
        for k in list(self.policies):
            if k not in keep and self.policies[k] is not self.best:
                del self.policies[k]

    # --- restorable state (rollout worker restarts) ------------------------------------------------

    def get_state(self) -> dict:
        """Everything but the snapshots' weights: ids, names, pool, best, and the RNG states of the
        sampler and of every member (a bot's ``rng``, a snapshot policy's torch ``generator``)."""
        best = next((k for k, p in self.policies.items() if p is self.best and p is not None), None)
        return {"rng": self.rng.bit_generator.state, "names": dict(self.names), "bot_ids": list(self.bot_ids),
                "snapshot_ids": list(self.snapshot_ids), "exploiter_ids": list(self.exploiter_ids),
                "live": list(self.policies), "best": best,
                "member_rng": {k: _rng_state(p) for k, p in self.policies.items()}}

    def set_state(self, state: dict, make_snapshot: Callable[[int, str], Policy]) -> None:
        """Restore :meth:`get_state` on a league built with the same config (same bots).
        ``make_snapshot(id, name)`` rebuilds a live snapshot's policy from its weights."""
        if list(state["bot_ids"]) != self.bot_ids:
            raise ValueError("league state from a league with other bots")
        self.names = dict(state["names"])
        self.snapshot_ids = list(state["snapshot_ids"])
        self.exploiter_ids = list(state.get("exploiter_ids", ()))  # absent from runs without exploiter_weight
        policies = {}
        for k in state["live"]:
            policies[k] = self.policies[k] if k in self.bot_ids else make_snapshot(k, self.names[k])
            _set_rng_state(policies[k], state["member_rng"].get(k))
        self.policies = policies
        self.best = None if state["best"] is None else policies[state["best"]]
        self.best_name = None if state["best"] is None else self.names[state["best"]]
        self.rng.bit_generator.state = state["rng"]


def _rng_state(policy):
    gen = getattr(policy, "generator", None)
    if gen is not None and hasattr(gen, "get_state"):  # a torch.Generator (PPOPolicy)
        return ("torch", gen.get_state())
    rng = getattr(policy, "rng", None)
    if isinstance(rng, np.random.Generator):  # the bots of agents.bots
        return ("numpy", rng.bit_generator.state)
    return None  # stateless, or randomness we cannot see


def _set_rng_state(policy, state) -> None:
    if state is None:
        return
    kind, value = state
    if kind == "torch":
        policy.generator.set_state(value)
    else:
        policy.rng.bit_generator.state = value
