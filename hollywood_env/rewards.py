"""Hollywood-aware rewards (docs/rules.md section 6): zero-sum shaping of the core's raw rewards.

The core (:mod:`hollywood_env.core`) reports, after every step, the *raw* change of each player's
scoresheet total (``state.rewards``, not zero-sum) and the events of the step (hand ended, its
kind, winner and points, the games that ended, the match result). The environments turn those
into zero-sum rewards with one of five modes, chosen by a :class:`RewardConfig`:

=============  ============================================================================
mode           reward of player ``p`` at a step (the opponent gets the negative)
=============  ============================================================================
``hand``       when a hand ends: ``+points / 100`` to its winner (columns and game bonuses
               ignored; a wall gives 0)
``hands``      when a hand ends: ``+1`` to its winner (points ignored; a wall gives 0). The
               return of a single hand is then its win (+1) or loss (-1), what a hand win
               rate counts
``hollywood``  (default) ``(raw_p - raw_opp) / 100``: the change of the scoresheet totals,
               i.e. the hand's points times the number of in-progress columns they were
               entered in, plus the game, box and shutout bonuses when a game ends
``games``      ``+1`` per game won, when that game ends
``match``      ``+1`` / ``-1`` when the match ends, by the match winner of the rules
               (majority of games, or total); ``0`` on a drawn match or a truncation
=============  ============================================================================

Every reward is then multiplied by ``RewardConfig.scale`` (default 1). Rewards are zero-sum in
every mode: ``r[:, 0] == -r[:, 1]``. In ``hollywood`` mode the sum of a player's rewards over a
match is the difference of the two scoresheet totals at its end, / 100.

``RewardConfig.per_hand_episodes``: each hand is its own episode (it terminates when the hand
ends, walls included); the next reset continues the same match with its next hand, or starts a
new match when the last one ended. By default an episode is a whole match, except in the Gymnasium
envs (:mod:`hollywood_env.vector_env`), whose episodes are one hand unless told otherwise.

The config is a frozen dataclass; the environments keep the one they were built with across
every ``reset`` (seeded or not).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # annotations only
    from .core import State

#: the reward modes of docs/rules.md section 6
MODES = ("hand", "hands", "hollywood", "games", "match")


@dataclass(frozen=True)
class RewardConfig:
    """How the environments reward the agents (see the module docstring).

    mode: one of ``"hand"``, ``"hands"``, ``"hollywood"`` (default), ``"games"``, ``"match"``.
    scale: a factor applied to every reward (default 1.0).
    per_hand_episodes: end the episode when a hand ends instead of when the match ends.
    """

    mode: str = "hollywood"
    scale: float = 1.0
    per_hand_episodes: bool = False

    def __post_init__(self):
        if not isinstance(self.mode, str) or self.mode not in MODES:
            raise ValueError(f"unknown reward mode {self.mode!r}; valid modes: {', '.join(MODES)}")
        if isinstance(self.scale, bool) or not isinstance(self.scale, (int, float, np.integer, np.floating)):
            raise TypeError(f"RewardConfig.scale must be a number, got {type(self.scale).__name__} {self.scale!r}")
        if not math.isfinite(float(self.scale)):
            raise ValueError(f"RewardConfig.scale must be finite, got {self.scale!r}")
        object.__setattr__(self, "scale", float(self.scale))
        if not isinstance(self.per_hand_episodes, (bool, np.bool_)):
            raise TypeError(f"RewardConfig.per_hand_episodes must be a bool, got {self.per_hand_episodes!r}")
        object.__setattr__(self, "per_hand_episodes", bool(self.per_hand_episodes))

    def replace(self, **changes: Any) -> RewardConfig:
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise ValueError(f"unknown RewardConfig field(s) {unknown}; valid fields: {', '.join(sorted(names))}")
        return dataclasses.replace(self, **changes)


def resolve_reward(reward: RewardConfig | str | Mapping[str, Any] | None = None,
                   per_hand_episodes: bool | None = None) -> RewardConfig:
    """A :class:`RewardConfig` from a config, a mode name, a mapping of fields or None (defaults).

    ``per_hand_episodes``, when not None, overrides the config's field.
    """
    if reward is None:
        cfg = RewardConfig()
    elif isinstance(reward, RewardConfig):
        cfg = reward
    elif isinstance(reward, str):
        cfg = RewardConfig(mode=reward)
    elif isinstance(reward, Mapping):
        names = {f.name for f in dataclasses.fields(RewardConfig)}
        unknown = sorted(set(reward) - names)
        if unknown:
            raise ValueError(f"unknown RewardConfig field(s) {unknown}; valid fields: {', '.join(sorted(names))}")
        cfg = RewardConfig(**reward)
    else:
        raise TypeError(f"reward must be a RewardConfig, a mode name ({', '.join(MODES)}) or a dict, "
                        f"got {type(reward).__name__}")
    if per_hand_episodes is not None and bool(per_hand_episodes) != cfg.per_hand_episodes:
        cfg = cfg.replace(per_hand_episodes=bool(per_hand_episodes))
    return cfg


def shaped_rewards(state: State, config: RewardConfig, stepped: np.ndarray | None = None) -> np.ndarray:
    """Zero-sum rewards ``(B, 2)`` float64 of the last core step, for every game of ``state``.

    ``stepped`` (bool ``(B,)``): the games that were running at that step. It matters only for
    ``match`` mode, which pays when a match *ends* (``terminated & stepped``); by default every
    terminated game counts, which is right only when finished games are reset after each step.
    (Games that did not step have no events, so the other modes give them 0.)
    """
    mode = config.mode
    if mode == "hollywood":
        raw = state.rewards
        diff = (raw[:, 0] - raw[:, 1]) / 100.0
    elif mode == "hand" or mode == "hands":
        won = state.hand_ended & (state.hand_winner >= 0)
        sign = np.where(state.hand_winner == 0, 1.0, -1.0)
        diff = np.where(won, sign * (state.hand_points / 100.0 if mode == "hand" else 1.0), 0.0)
    elif mode == "games":
        ended = state.games_ended
        if not ended.any():
            return np.zeros((state.batch_size, 2), dtype=np.float64)
        gw = state.sheet.game_winner
        diff = ((ended & (gw == 0)).sum(axis=1) - (ended & (gw == 1)).sum(axis=1)).astype(np.float64)
    else:  # match
        ended = state.terminated if stepped is None else state.terminated & stepped
        mw = state.match_winner
        diff = np.where(ended, np.where(mw == 0, 1.0, np.where(mw == 1, -1.0, 0.0)), 0.0)
    if config.scale != 1.0:
        diff = diff * config.scale
    out = np.empty((diff.shape[0], 2), dtype=np.float64)
    out[:, 0] = diff
    out[:, 1] = -diff
    out += 0.0  # no negative zeros
    return out


def match_return(mode: str, hand_points: np.ndarray, totals: np.ndarray, games_won: np.ndarray,
                 match_winner: np.ndarray, scale: float = 1.0, hands_won: np.ndarray | None = None) -> np.ndarray:
    """Seat 0's return over whole matches under ``mode``: what :func:`shaped_rewards` pays it,
    summed over each match, from the match's results (arrays over ``n`` matches):
    ``hand_points (n, 2)`` points of the hands each seat won, ``totals (n, 2)`` the final
    scoresheet totals (columns plus bonuses), ``games_won (n, 2)``, ``match_winner (n,)`` (0, 1,
    2 for a drawn match, -1 unfinished) and, for ``hands`` mode only, ``hands_won (n, 2)``. Evaluation reports returns with it
    (``hollywood evaluate --reward``); tests/envs/test_rewards.py checks it against the summed step
    rewards of whole matches in every mode, so a new mode is added here and in
    :func:`shaped_rewards` together."""
    if mode not in MODES:
        raise ValueError(f"unknown reward mode {mode!r}; valid modes: {', '.join(MODES)}")
    if mode == "hand":
        out = (hand_points[:, 0] - hand_points[:, 1]) / 100.0
    elif mode == "hands":
        if hands_won is None:
            raise ValueError("match_return: the 'hands' mode needs hands_won, the hands each seat won (n, 2)")
        out = (hands_won[:, 0] - hands_won[:, 1]).astype(np.float64)
    elif mode == "hollywood":
        out = (totals[:, 0] - totals[:, 1]) / 100.0
    elif mode == "games":
        out = (games_won[:, 0] - games_won[:, 1]).astype(np.float64)
    else:  # match
        out = np.where(match_winner == 0, 1.0, np.where(match_winner == 1, -1.0, 0.0))
    return np.asarray(out, dtype=np.float64) * scale


def shaped_rewards_one(state: State, config: RewardConfig, game: int = 0) -> tuple[float, float]:
    """:func:`shaped_rewards` of one game that stepped at the last core step, as two floats.

    Every mode pays only at a step that ended a hand (the core's rewards and events come with a
    hand's end; a match ends with a hand), so the other steps cost a single lookup.
    """
    if not state.hand_ended[game]:
        return 0.0, 0.0
    r = shaped_rewards(state, config)[game]
    return float(r[0]), float(r[1])


def episode_ends(state: State, config: RewardConfig) -> tuple[np.ndarray, np.ndarray]:
    """``(terminated, truncated)`` of the episodes after the last core step (bool ``(B,)``).

    A match episode terminates when the match ends; with ``per_hand_episodes`` it also
    terminates when a hand ends. It is truncated when the core hits ``max_steps`` (decisions of
    the match) and it did not terminate.
    """
    terminated = state.terminated.copy()
    if config.per_hand_episodes:
        terminated |= state.hand_ended
    truncated = state.truncated & ~terminated
    return terminated, truncated
