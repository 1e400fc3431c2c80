"""Self-play over a batch of matches: one policy acts for whichever player is to move (as in pgx).

Usage::

    from hollywood_env import SelfPlayBatch
    batch = SelfPlayBatch(num_games=4096, rules="hollywood", reward="hollywood", seed=0)
    obs, mask, player = batch.reset()
    while True:
        actions = policy(obs, mask)                        # (B,) ints, legal under ``mask``
        obs, mask, player, rewards, terminated, truncated, info = batch.step(actions)

* ``obs`` ``(B, D)`` float32: each game seen by its player to move (``player`` ``(B,)``, 0 or 1);
  the layout is the table of :mod:`hollywood_env.observation`. Never any hidden card.
* ``mask`` ``(B, 108)`` bool: the legal actions of the player to move.
* ``rewards`` ``(B, 2)`` float64: the zero-sum rewards of both players for this step, shaped by
  the :class:`~hollywood_env.rewards.RewardConfig` (``rewards[:, 0] == -rewards[:, 1]``).
* ``terminated`` / ``truncated`` ``(B,)``: the episode (a match, or a hand with
  ``per_hand_episodes``) ended at this step.

Auto-reset follows Gymnasium's ``NEXT_STEP`` mode, like the vector env: the step where a game's
episode ends returns that episode's final rewards with ``terminated`` (or ``truncated``) set,
and the observation of the final state (not meaningful for bootstrapping). At the *next*
``step`` that game's action is ignored (any value is accepted: its mask is all True), the game
starts its next episode, and the step returns the new episode's first observation with zero
rewards and no termination. The next episode is a new match, or with ``per_hand_episodes`` the
next hand of the same match when the match is still running.

Randomness: ``seed`` (an int) gives game ``i`` the slot seed ``core.slot_seeds(seed, B)[i]``,
which equals ``core.slot_seeds(seed, 1)[0]`` for ``i = 0``: game 0 of a batch seeded ``s``
plays exactly the cards of the AEC env seeded ``s``. A sequence of ``B`` ints seeds game ``i``
like an AEC env seeded ``seed[i]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import core
from .actions import NUM_ACTIONS
from .observation import SheetCache, encode, observation_size
from .rewards import RewardConfig, episode_ends, resolve_reward, shaped_rewards
from .rules import Rules, check_positive_int, resolve_rules
from .sampling import SeedLike, as_generator
from .sampling import random_legal_actions as _sample_legal

__all__ = ["SelfPlayBatch", "RandomOpponent", "random_legal_actions", "step_games", "slot_seeds_for", "check_actions"]


# --- helpers shared by the environment layers ----------------------------------------------------


def slot_seeds_for(seed: int | Sequence[int] | np.ndarray | None, n: int) -> np.ndarray | None:
    """Slot seeds for ``n`` games: an int ``s`` gives ``core.slot_seeds(s, n)``; a sequence of
    ``n`` ints gives each game the slot seed of a one-game batch with that seed; None: None
    (fresh entropy)."""
    if seed is None:
        return None
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"seed must be a non-negative int, got {seed}")
        return core.slot_seeds(int(seed), n)
    if isinstance(seed, (Sequence, np.ndarray)) and not isinstance(seed, str):
        seeds = list(seed)
        if len(seeds) != n:
            raise ValueError(f"seed must be an int or a sequence of {n} ints (one per game), got {len(seeds)} seeds")
        if any(s is None for s in seeds):
            raise ValueError("a sequence of seeds must not contain None")
        return np.array([core.slot_seeds(int(s), 1)[0] for s in seeds], dtype=np.uint64)
    raise TypeError(f"seed must be None, an int or a sequence of ints, got {type(seed).__name__}")


def step_games(state: core.State, actions: np.ndarray, games: np.ndarray | None = None) -> np.ndarray:
    """:func:`core.step` on the running games selected by ``games`` (bool ``(B,)``; default all);
    the other games are held: their state and legal masks are unchanged, and they report no
    events or rewards for this step.

    Returns the bool mask of the games that stepped. Illegal actions raise
    ``IllegalActionError`` naming the game (its index in ``state``) before any change.
    """
    running = ~(state.terminated | state.truncated)
    if games is None:
        core.step(state, actions)
        return running
    stepped = running & games
    core.step(state, actions, games=stepped)
    return stepped


def random_legal_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` ``(n, A)`` (rows without a legal
    action get 0). Draws one uniform float per row: :func:`hollywood_env.sampling.random_legal_actions`."""
    return _sample_legal(masks, rng)


class RandomOpponent:
    """A batched policy playing uniformly random legal actions.

    ``opponent(observations, masks) -> actions``; it does not read the observations
    (``uses_observations = False``, so the vector env passes ``None`` and skips encoding them).
    ``seed(s)`` reseeds it (the vector env calls it on every seeded reset).
    """

    uses_observations = False

    def __init__(self, seed: SeedLike = None):
        self.rng = as_generator(seed)

    def seed(self, seed: SeedLike = None) -> None:
        self.rng = as_generator(seed)

    def __call__(self, observations: np.ndarray | None, masks: np.ndarray) -> np.ndarray:
        return random_legal_actions(masks, self.rng)


def public_masks(state: core.State, waiting: np.ndarray) -> np.ndarray:
    """The legal masks to hand out: all True for games waiting for their auto-reset."""
    mask = state.legal_action_mask.copy()
    if waiting.any():
        mask[waiting] = True
    return mask


def hand_event_arrays(state: core.State, games: np.ndarray | slice = slice(None)) -> dict:
    """The events of the last core step, as arrays (copies)."""
    return {
        "hand_ended": state.hand_ended[games].copy(),
        "hand_kind": state.hand_kind[games].copy(),
        "hand_knocker": state.hand_knocker[games].copy(),
        "hand_winner": state.hand_winner[games].copy(),
        "hand_points": state.hand_points[games].copy(),
        "knocker_deadwood": state.knocker_deadwood[games].copy(),
        "defender_deadwood": state.defender_deadwood[games].copy(),
        "columns_credited": state.columns_credited[games].copy(),
        "games_ended": state.games_ended[games].copy(),
    }


# --- the self-play batch -------------------------------------------------------------------------


class SelfPlayBatch:
    """``num_games`` matches stepped together; one policy plays both seats (see the module doc).

    Arguments: ``rules`` (a :class:`Rules`, a preset name or a dict), ``reward`` (a
    :class:`RewardConfig` or a mode name), ``seed`` (int, sequence of ints, or None),
    ``max_steps`` (decisions per match before truncation; None: no limit),
    ``per_hand_episodes`` (overrides the reward config's field when given).
    """

    num_actions = NUM_ACTIONS

    def __init__(self, num_games: int, rules: Rules | str | None = None, reward: RewardConfig | str | None = None,
                 seed: int | Sequence[int] | None = None, max_steps: int | None = 5000,
                 per_hand_episodes: bool | None = None):
        check_positive_int("num_games", num_games)
        check_positive_int("max_steps", max_steps, allow_none=True)
        self.num_games = int(num_games)
        self.rules = resolve_rules(rules)
        self.reward_config = resolve_reward(reward, per_hand_episodes)
        self.max_steps = max_steps
        self.observation_size = observation_size(self.rules)
        self._seed = seed
        slot_seeds_for(seed, self.num_games)  # validate now
        self.state: core.State | None = None
        self._sheet_cache = SheetCache()  # the observations' scoresheet part, kept between steps
        self._waiting = np.zeros(self.num_games, dtype=bool)  # episode ended; resets at the next step
        self._next_hand = np.zeros(self.num_games, dtype=bool)  # ... and continues with the next hand

    # --- API ----------------------------------------------------------------------------------
    def reset(self, seed: int | Sequence[int] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start new episodes in every game. ``seed`` (or, on the first reset, the constructor's
        seed) restarts every game from fresh matches; without a seed every game starts its next
        match (with ``per_hand_episodes``: games whose last episode ended with a hand of a running
        match continue with the next hand). Returns ``(obs, mask, current_player)``."""
        if seed is not None or self.state is None:
            s = seed if seed is not None else self._seed
            self.state = core.init(self.num_games, self.rules, seed=slot_seeds_for(s, self.num_games),
                                   max_steps=self.max_steps)
            self._next_hand[:] = False
        else:
            self._begin(np.ones(self.num_games, dtype=bool))
        self._waiting[:] = False
        return self._outputs()

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray, dict[str, Any]]:
        """One decision in every game (see the module docstring for the auto-reset)."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        st = self.state
        actions = check_actions(actions, self.num_games)
        waiting = self._waiting.copy()
        stepped = step_games(st, actions, ~waiting)
        rewards = shaped_rewards(st, self.reward_config, stepped)
        rewards[~stepped] = 0.0
        terminated, truncated = episode_ends(st, self.reward_config)
        terminated &= stepped
        truncated &= stepped
        info = hand_event_arrays(st)
        info["match_winner"] = np.where(st.terminated & stepped, st.match_winner, -1).astype(np.int8)
        info["autoreset"] = waiting
        self._next_hand = np.where(stepped, terminated & ~st.terminated & ~st.truncated, self._next_hand)
        if waiting.any():
            self._begin(waiting)
        self._waiting = terminated | truncated
        obs, mask, player = self._outputs()
        return obs, mask, player, rewards, terminated, truncated, info

    def observe(self, viewer: int | np.ndarray | None = None) -> np.ndarray:
        """Observations ``(B, D)`` of every game seen by ``viewer`` (default: the player to move)."""
        return encode(self.state, viewer, sheet_cache=self._sheet_cache)

    def get_state(self) -> dict:
        """The games in progress as plain data (:mod:`hollywood_env.persist`; arrays copied), for
        checkpoints that resume exactly. Call after :meth:`reset`."""
        from .persist import state_to_dict

        if self.state is None:
            raise RuntimeError("call reset() before get_state()")
        return {"state": state_to_dict(self.state), "waiting": self._waiting.copy(),
                "next_hand": self._next_hand.copy()}

    def set_state(self, saved: dict) -> None:
        """Continue from :meth:`get_state` (of a batch with the same size and rules)."""
        from .persist import state_from_dict

        state = state_from_dict(saved["state"])
        if state.batch_size != self.num_games or state.rules != self.rules:
            raise ValueError(f"saved games: {state.batch_size} games with rules {state.rules.preset_name or 'custom'}; "
                             f"this batch has {self.num_games} with {self.rules.preset_name or 'custom'}")
        self.state = state
        self._sheet_cache = SheetCache()
        self._waiting = np.array(saved["waiting"], dtype=bool, copy=True)
        self._next_hand = np.array(saved["next_hand"], dtype=bool, copy=True)

    # --- internals ----------------------------------------------------------------------------
    def _begin(self, games: np.ndarray) -> None:
        cont = games & self._next_hand & ~self.state.terminated & ~self.state.truncated
        new = games & ~cont
        if new.any():
            core.reset_games(self.state, new)
        self._next_hand[games] = False

    def _outputs(self):
        st = self.state
        return encode(st, sheet_cache=self._sheet_cache), public_masks(st, self._waiting), st.current_player.astype(np.int64)


def check_actions(actions: Any, n: int, what: str = "game") -> np.ndarray:
    """``actions`` as an int64 array of shape ``(n,)`` (one per ``what``; integral floats are
    accepted); a ``ValueError`` for another shape, a ``TypeError`` for non-integer values."""
    arr = np.asarray(actions)
    if arr.shape != (n,):
        raise ValueError(f"actions must have shape ({n},) (one per {what}), got shape {arr.shape}")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise TypeError(f"actions must be integers in 0..{NUM_ACTIONS - 1}, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)
