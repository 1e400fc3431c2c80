"""The self-play rollout every training algorithm shares: games, league opponents, bookkeeping.

A :class:`SelfPlayRollout` owns ``B`` games of a :class:`~hollywood_env.selfplay.SelfPlayBatch`
and the :class:`~agents.rl.league.League` that gives each game its opponent. Each :meth:`step` is one
decision in every game:

1. the *learner rows* are the games where the learner is to move (both seats in self-play games,
   its own seat otherwise; a game whose episode just ended waits one step for its auto-reset);
2. ``act(rows, x, mask)`` — the algorithm's own choice — gives the learner's actions on those rows
   (``x``: observation plus :mod:`agents.rl.features`, what the networks read, with the learned
   belief's values when the rollout has a ``belief``); the league members
   act on the other rows;
3. the batch steps; returns of finished episodes against other opponents, Hollywood statistics
   (``hollywood/*``) and fresh opponents for the games whose episode ended are handled here.

What the algorithm learns from is its own business (PPO: per-(game, player) streams and GAE in
:mod:`agents.rl.collectors`; DQN: n-step transitions in :mod:`agents.rl.dqn`): :meth:`step` returns a
:class:`Step` with everything about the decision and its outcome.

All randomness is the league's (its sampler and its members' generators) and the algorithm's
own; :meth:`get_state` / :meth:`set_state` capture every array the rollout mutates, so a
checkpoint continues the same games.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agents.rl.features import augment, input_size
from agents.rl.league import SELF, Assignment
from hollywood_env.actions import KIND_BIG_GIN, KIND_GIN, KIND_KNOCK, KIND_UNDERCUT, KIND_WALL

if TYPE_CHECKING:  # annotations only
    from agents.registry import Policy
    from agents.rl.league import League
    from hollywood_env.selfplay import SelfPlayBatch


@dataclass
class Step:
    """One decision in every game and its outcome (arrays over the ``B`` games)."""

    learner: np.ndarray  # (B,) bool: the learner decided in this game
    valid: np.ndarray  # (B,) bool: a real decision (False: the game waited for its auto-reset)
    player: np.ndarray  # (B,) int64: the seat that decided
    x: np.ndarray  # (B, D) float32 observation + features; rows filled: learner rows (all valid rows with features_for_all)
    mask: np.ndarray  # (B, A) bool: the legal actions of that decision
    actions: np.ndarray  # (B,) int64
    rewards: np.ndarray  # (B, 2) float: what each seat received in this step
    terminated: np.ndarray  # (B,) bool: the episode ended
    truncated: np.ndarray  # (B,) bool
    info: dict  # SelfPlayBatch.step's info


class SelfPlayRollout:
    """``batch``'s games against ``league``'s opponents (see the module docstring).

    ``forbid_taken``: the rules' ``forbid_discard_of_taken_card`` (for the features);
    ``features_for_all``: compute ``x`` for every valid row (DQN stores the opponents' decisions
    too), not only the learner's; ``belief``: the :class:`agents.search.belief.BeliefFeatures` appended
    to ``x`` (``PPOConfig.belief_input``), computed once per step for the rows of ``x``."""

    def __init__(self, batch: SelfPlayBatch, league: League, forbid_taken: bool, features_for_all: bool = False,
                 belief: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None):
        self.batch, self.league, self.forbid = batch, league, forbid_taken
        self.features_for_all = features_for_all
        self.belief = belief
        self.B = batch.num_games
        self.obs, self.mask, self.player = batch.reset()
        self.assign = league.sample(self.B)
        self.waiting = np.zeros(self.B, dtype=bool)
        self.ep_return = np.zeros(self.B)
        self.ep_length = np.zeros(self.B, dtype=np.int64)  # the learner's decisions in the episode
        self.stats = HollywoodStats()
        self.returns_done: list[float] = []
        self._rows = np.arange(self.B)
        self._x = np.zeros((self.B, input_size(batch.observation_size, belief is not None)), dtype=np.float32)

    def take_stats(self) -> tuple[HollywoodStats, list[float]]:
        """The statistics and finished-episode returns since the last call (then reset)."""
        stats, returns = self.stats, self.returns_done
        self.stats, self.returns_done = HollywoodStats(), []
        return stats, returns

    def step(self, act: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]) -> Step:
        """One decision in every game; ``act(rows, x, mask) -> actions`` chooses the learner's."""
        B, obs, mask, player, assign, waiting = self.B, self.obs, self.mask, self.player, self.assign, self.waiting
        learner = ~waiting & ((assign.opponent == SELF) | (player == assign.learner_seat))
        opp_rows = np.flatnonzero(~waiting & ~learner)
        lr_rows = np.flatnonzero(learner)
        actions = np.zeros(B, dtype=np.int64)
        if self.features_for_all:
            x = augment(obs, mask, self.forbid, self.belief)
        else:
            x = self._x
            if lr_rows.size:
                x[lr_rows] = augment(obs[lr_rows], mask[lr_rows], self.forbid, self.belief)
        if lr_rows.size:
            actions[lr_rows] = act(lr_rows, x[lr_rows], mask[lr_rows])
        if opp_rows.size:
            actions[opp_rows] = self.league.act(assign.opponent[opp_rows], obs[opp_rows], mask[opp_rows])
        decided = Step(learner=learner, valid=~waiting, player=player, x=x, mask=mask, actions=actions,
                       rewards=None, terminated=None, truncated=None, info=None)

        batch = self.batch
        self.obs, self.mask, self.player, rewards, term, trunc, info = batch.step(actions)
        vs_other = assign.opponent != SELF
        self.ep_return += np.where(vs_other, rewards[self._rows, assign.learner_seat], 0.0)
        self.ep_length += learner
        ended = term | trunc
        if ended.any():
            e = np.flatnonzero(ended)
            match_end = e[batch.state.terminated[e]]
            won = batch.state.sheet.game_winner[match_end] == assign.learner_seat[match_end][:, None]
            other = assign.opponent[match_end] != SELF
            self.stats.add(info, batch.state.terminated & ended, won.sum(axis=1)[other])
            self.returns_done.extend(self.ep_return[e[vs_other[e]]].tolist())
            self.stats.add_episodes(self.ep_length[e[vs_other[e]]])
            self.ep_return[e] = 0.0
            self.ep_length[e] = 0
            fresh = self.league.sample(e.size)
            assign.opponent[e], assign.learner_seat[e] = fresh.opponent, fresh.learner_seat
        else:
            self.stats.add(info, np.zeros(B, dtype=bool))
        self.waiting = ended
        decided.rewards, decided.terminated, decided.truncated, decided.info = rewards, term, trunc, info
        return decided

    # --- restorable state ----------------------------------------------------------------------

    def get_state(self) -> dict:
        """The games, the pending observations, the opponents, the episode returns (copied) and the
        league's state (without the snapshots' weights)."""
        return {"batch": self.batch.get_state(), "obs": self.obs.copy(), "mask": self.mask.copy(),
                "player": self.player.copy(), "opponent": self.assign.opponent.copy(),
                "learner_seat": self.assign.learner_seat.copy(), "waiting": self.waiting.copy(),
                "ep_return": self.ep_return.copy(), "ep_length": self.ep_length.copy(),
                "league": self.league.get_state()}

    def set_state(self, state: dict, make_snapshot: Callable[[int, str], Policy]) -> None:
        """Restore :meth:`get_state`; ``make_snapshot(id, name)`` rebuilds a live league snapshot."""
        self.batch.set_state(state["batch"])
        self.obs, self.mask = np.array(state["obs"]), np.array(state["mask"])
        self.player = np.array(state["player"])
        self.assign = Assignment(np.array(state["opponent"]), np.array(state["learner_seat"]))
        self.waiting, self.ep_return = np.array(state["waiting"]), np.array(state["ep_return"])
        # checkpoints written before episode lengths were kept count from 0
        self.ep_length = np.array(state.get("ep_length", np.zeros(self.B, dtype=np.int64)), dtype=np.int64)
        self.league.set_state(state["league"], make_snapshot)


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
