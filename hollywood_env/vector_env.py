"""Gymnasium environments: a native vector env over the batched core, and a single-agent env.

:class:`HollywoodGinVectorEnv` runs ``num_envs`` matches as one batch of the core (no per-env
Python objects). In env ``i`` the learner plays seat ``i % 2`` (both seats are learned) and an
*opponent* policy plays the other seat: any batched callable ``opponent(observations (n, D),
masks (n, 108)) -> actions (n,)``, by default :class:`~hollywood_env.selfplay.RandomOpponent`
(uniformly random legal moves, seeded from the env seed). After the learner's action, the env
plays the opponent's moves until it is the learner's turn again or the episode ends; the
learner's reward of a step is the sum of its shaped rewards over all those moves.

* observation: ``Box(D,)`` float32, the learner's view (layout: :mod:`hollywood_env.observation`,
  table below); never any hidden card. Action: ``Discrete(108)`` (:mod:`hollywood_env.actions`).
* action mask: ``info["action_mask"]`` ``(num_envs, 108)`` bool and :meth:`action_masks`
  (what sb3-contrib's ``MaskablePPO`` calls). For an env whose episode has just ended every
  action is accepted (and ignored at its auto-reset), so its mask is all True.
* rewards: zero-sum shaping of :mod:`hollywood_env.rewards` (``reward=``, default
  ``"hollywood"``), the learner's seat.
* episodes: by default **one hand** (``per_hand_episodes=True`` unless the reward config given
  says otherwise); the next episode of an env continues its match with the next hand, and a new
  match starts when one ends, so the observation's scoresheet stays meaningful. Why: a whole
  Hollywood match against the random opponent lasts thousands of decisions (random play ends
  94.5% of hands at the wall, which scores nothing), so whole-match episodes of an untrained
  learner were all truncated at the ``max_steps`` cap; a hand ends by itself (a knock, gin or
  the wall): a random learner against the random opponent averages 58 decisions per episode
  (at most 87 in 1,611 episodes), and its ``"hollywood"`` reward is that hand's effect on the
  scoresheet. Whole-match episodes:
  ``per_hand_episodes=False`` (or a :class:`~hollywood_env.rewards.RewardConfig` whose field is
  False), best with a stronger opponent; the ``"match"`` reward mode pays only at a match's
  end, so use it with whole-match episodes.
* auto-reset: Gymnasium's ``NEXT_STEP`` mode (``metadata["autoreset_mode"]``), as in
  :class:`~hollywood_env.selfplay.SelfPlayBatch`: the step after an episode ended ignores that
  env's action and returns the first observation of its next episode with reward 0.
* opponent moves during a reset: when the opponent moves first, its moves are played during the
  reset; a reward they earn (only possible in whole-match mode, e.g. a hand the opponent ends
  before the learner's first decision) is added to the learner's next step reward. An episode
  that ends before the learner's first decision (e.g. ``per_hand_episodes`` and the opponent
  knocks on its first turn) is skipped: the env starts the next one at once.
* seeds: ``reset(seed=s)`` gives env ``i`` the cards of game ``i`` of ``core.init(num_envs,
  seed=s)``; env 0 plays exactly the cards of the AEC env seeded ``s`` (a list of ``num_envs``
  seeds seeds env ``i`` like an AEC env seeded ``seed[i]``). The opponent is reseeded with
  ``opponent.seed(s)`` when it has that method: the default random opponent, every bot of
  :mod:`agents.bots` and every agent made from a spec of :mod:`agents.registry` (sampling learned
  policies included) have it, so the same seed plays the same matches against any of them. A
  reset without a seed starts the next matches of the same slots (the opponent's randomness
  goes on).
* errors: a rejected :meth:`~HollywoodGinVectorEnv.step` changes nothing. An illegal learner
  action is found before any move; when the opponent fails after the learner's moves were
  played (an illegal action, a wrong shape, any exception of its own), the whole batch is put
  back as it was before the step and the error propagates, so the caller can fix the cause and
  step on. A :meth:`~HollywoodGinVectorEnv.reset` that fails the same way leaves the env as it
  was. ``step``, ``action_masks`` and ``render`` before the first ``reset`` raise
  :class:`ResetNeededError`.

:class:`HollywoodGinEnv` (registered as ``"HollywoodGin-v0"``) is the single-agent
``gymnasium.Env`` over a vector env of one: ``Box`` observations plus ``info["action_mask"]``.
By default an illegal action ends its episode with reward ``illegal_reward`` (-1) and
``info["illegal_action"] = True`` (as PettingZoo's illegal-move wrapper does), so that
``gymnasium.utils.env_checker.check_env`` can step it with random actions;
``illegal_action="raise"`` raises instead. ``step`` after the episode ended, and ``step``,
``action_masks`` or ``render`` before the first ``reset``, raise :class:`ResetNeededError`.

Rendering: ``render_mode="ansi"`` gives the text of :func:`hollywood_env.render.render_state`,
``"rgb_array"`` an ``(H, W, 3)`` uint8 picture of the table (:func:`hollywood_env.render.
render_rgb`: the learner's hand face up, the opponent's face down except the cards it took from
the pile, the discard pile, the stock count, the scoresheet), for Gymnasium's ``RecordVideo``
and Stable-Baselines3; the single-agent env also has ``"human"`` (prints the text). The vector
env renders its first (up to) four envs. Neither shows a card the learner may not see.

Stable-Baselines3: ``gymnasium.make("HollywoodGin-v0", render_mode="rgb_array")`` is what
``stable_baselines3.common.env_util.make_vec_env("HollywoodGin-v0", n_envs=4)`` builds (one
Python env per copy); :class:`hollywood_env.sb3.HollywoodGinSB3VecEnv` gives SB3 the batched
vector env directly (same-step auto-reset, ``action_masks()`` for ``MaskablePPO``).

Version history (``HollywoodGin-v0``; the package is unreleased, so the id is kept):

* 0.1.0: first release: whole-match episodes against the random opponent, ``"ansi"`` rendering.
* unreleased: episodes are one hand by default (see "episodes" above: whole-match episodes of a
  random learner never ended before the cap); ``render_mode="rgb_array"``;
  :meth:`HollywoodGinVectorEnv.autoreset_now` (SB3's same-step reset). Observations, actions,
  rewards and dynamics unchanged; ``per_hand_episodes=False`` gives the old episodes.

Observation table (``C`` = ``rules.columns``; ``D = 320 + 9 C``, 347 for three columns):

{OBSERVATION_TABLE}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import core
from .actions import NUM_ACTIONS, action_name
from .observation import KNOCK_LIMIT, OBSERVATION_TABLE, SHEET_START, SheetCache, encode, observation_size

# the observation table lives once, in hollywood_env.observation
if __doc__:  # None under python -OO
    __doc__ = __doc__.replace("{OBSERVATION_TABLE}", OBSERVATION_TABLE)
from .rewards import RewardConfig, episode_ends, resolve_reward, shaped_rewards
from .rules import Rules, check_positive_int, resolve_rules
from .sampling import as_generator
from .selfplay import RandomOpponent, check_actions, public_masks, slot_seeds_for, step_games

__all__ = ["HollywoodGinVectorEnv", "HollywoodGinEnv", "observation_space_for", "IllegalActionError",
           "ResetNeededError"]

IllegalActionError = core.IllegalActionError


class ResetNeededError(gymnasium.error.ResetNeeded, RuntimeError):
    """A call that needs a running episode came before ``reset()`` (or after the episode ended).
    A ``RuntimeError`` and Gymnasium's ``ResetNeeded``; the AEC env raises it too."""

Opponent = Callable[[np.ndarray | None, np.ndarray], np.ndarray]


def observation_bounds(rules: Rules, max_steps: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` float32 bounds of the observation vector under ``rules``."""
    d = observation_size(rules)
    low = np.zeros(d, dtype=np.float32)
    high = np.ones(d, dtype=np.float32)
    high[KNOCK_LIMIT] = max(1.0, rules.knock_limit / 10.0)
    # a column below the target gets at most one more hand: 2 (Oklahoma) x (100 deadwood + bonus)
    bonus = max(rules.gin_bonus, rules.undercut_bonus, rules.big_gin_bonus if rules.big_gin else 0)
    max_points = 2 * (100 + bonus)
    points_high = (rules.target - 1 + max_points) / rules.target
    # every credited hand adds at least 1 point when no bonus can be 0 (then a column holds at
    # most `target` hands); otherwise bound it by the number of decisions
    bonuses = [rules.gin_bonus, rules.undercut_bonus] + ([rules.big_gin_bonus] if rules.big_gin else [])
    if min(bonuses) >= 1:
        hands_high = rules.target / 10.0
    else:
        hands_high = (max_steps if max_steps is not None else 10**6) / 10.0
    sheet = np.tile(np.array([points_high, points_high, 1, 1, 1, 1, 1, hands_high, hands_high], dtype=np.float32),
                    rules.columns)
    high[SHEET_START:] = sheet
    return low, high


def observation_space_for(rules: Rules, max_steps: int | None = None) -> spaces.Box:
    """The ``Box`` of one observation vector."""
    low, high = observation_bounds(rules, max_steps)
    return spaces.Box(low=low, high=high, dtype=np.float32)


def _resolve_opponent(opponent, seed, rules) -> Any:
    """The env layer plays callables; naming agents is the agents layer's job (layers: the env
    never imports a learner or torch because of a string)."""
    if opponent is None or (isinstance(opponent, str) and opponent == "random"):
        return RandomOpponent(seed)
    if isinstance(opponent, str):
        raise ValueError(f"opponent {opponent!r}: the env takes 'random' or a callable (observations (n, D), masks "
                         f"(n, 108)) -> actions (n,); build a named agent with agents.registry.make_agent("
                         f"{opponent!r}, rules) and pass it (bots, 'ppo:PATH', 'dqn:PATH', 'module:function')")
    if not callable(opponent):
        raise TypeError(f"opponent must be 'random' or a callable (observations, masks) -> actions, "
                        f"got {type(opponent).__name__}")
    return opponent


def env_reward_config(reward: RewardConfig | str | Mapping | None, per_hand_episodes: bool | None) -> RewardConfig:
    """The reward config of the Gymnasium envs: like :func:`~hollywood_env.rewards.resolve_reward`,
    but episodes are one hand unless ``per_hand_episodes`` or the config given (a
    :class:`RewardConfig`, or a dict with that key) says otherwise (module docstring: episodes)."""
    if per_hand_episodes is None and not isinstance(reward, RewardConfig) and not (
            isinstance(reward, Mapping) and "per_hand_episodes" in reward):
        per_hand_episodes = True
    return resolve_reward(reward, per_hand_episodes)


def _legal_list(mask_row: np.ndarray) -> str:
    legal = np.flatnonzero(mask_row)
    shown = ", ".join(f"{a} ({action_name(a)})" for a in legal[:20])
    return shown + (" ..." if legal.size > 20 else "") if legal.size else "none"


def _describe(a: int) -> str:
    return action_name(a) if 0 <= a < NUM_ACTIONS else f"out of range 0..{NUM_ACTIONS - 1}"


class HollywoodGinVectorEnv(VectorEnv):
    """``num_envs`` Hollywood Gin matches against a batched opponent (see the module docstring).

    Arguments: ``num_envs``; ``opponent`` (None or ``"random"``: uniformly random legal moves;
    or a callable ``(observations (n, D) float32 or None, masks (n, 108) bool) -> (n,) actions``,
    e.g. ``agents.registry.make_agent("simple", rules)`` or ``make_agent("ppo:runs/NAME", rules)``;
    a callable with ``uses_observations = False`` is passed ``None`` instead of observations; one
    with a ``seed(s)`` method is reseeded on seeded resets); ``rules`` (Rules, preset name or
    dict); ``reward`` (RewardConfig or mode name); ``seed`` (used by the first reset when it gets
    none); ``max_steps`` (decisions per match, both players, before truncation; None: none);
    ``per_hand_episodes`` (default: True unless ``reward`` is a RewardConfig, whose field then
    counts; see the module docstring); ``render_mode`` (None, ``"ansi"``, ``"rgb_array"``).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["ansi", "rgb_array"],
                "render_fps": 1, "name": "hollywood_gin_v0"}

    def __init__(self, num_envs: int = 1, opponent: Opponent | str | None = None, rules: Rules | str | None = None,
                 reward: RewardConfig | str | None = None, seed: int | Sequence[int] | None = None,
                 max_steps: int | None = 5000, per_hand_episodes: bool | None = None, render_mode: str | None = None):
        check_positive_int("num_envs", num_envs)
        check_positive_int("max_steps", max_steps, allow_none=True)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.num_envs = int(num_envs)
        self.rules = resolve_rules(rules)
        self.reward_config = env_reward_config(reward, per_hand_episodes)
        self.max_steps = max_steps
        self.render_mode = render_mode
        self._seed = seed
        slot_seeds_for(seed, self.num_envs)  # validate now
        self.opponent = _resolve_opponent(opponent, seed, self.rules)
        self.single_observation_space = observation_space_for(self.rules, max_steps)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        #: the learner's seat in each env
        self.learner_seat = (np.arange(self.num_envs) % 2).astype(np.int64)
        self.state: core.State | None = None
        self._sheet_cache = SheetCache()  # the observations' scoresheet part, kept between steps
        n = self.num_envs
        self._rows = np.arange(n)
        self._waiting = np.zeros(n, dtype=bool)  # episode ended: auto-reset at the next step
        self._next_hand = np.zeros(n, dtype=bool)  # ... continuing with the next hand of the match
        self._pending = np.zeros(n, dtype=np.float64)  # learner rewards earned during a reset
        self._saved_fields: tuple = (None, [])  # (State, [(object, attribute)]) that _save copies

    # --- Gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start new episodes in every env (see the module docstring for seeds). If it fails
        (e.g. the opponent raises while it moves first), the env's games are left as they were
        (the opponent may have been reseeded)."""
        old = self.state
        saved = self._save() if old is not None else None
        try:
            return self._reset(seed)
        except BaseException:
            self.state = old
            if saved is not None:
                self._restore(saved)
            raise

    def _reset(self, seed):
        if seed is not None:
            if isinstance(seed, (int, np.integer)):
                super().reset(seed=int(seed))
            else:
                self._np_random, self._np_random_seed = as_generator(list(seed)), -1
        if seed is not None or self.state is None:
            s = seed if seed is not None else self._seed
            self.state = core.init(self.num_envs, self.rules, seed=slot_seeds_for(s, self.num_envs),
                                   max_steps=self.max_steps)
            reseed = getattr(self.opponent, "seed", None)
            if s is not None and callable(reseed):
                reseed(s)
            self._next_hand[:] = False
            begin = np.zeros(self.num_envs, dtype=bool)  # fresh matches: nothing to reset
        else:
            begin = np.ones(self.num_envs, dtype=bool)
        self._waiting[:] = False
        self._start_episodes(np.ones(self.num_envs, dtype=bool), begin)
        obs = self._observe()
        return obs, self._info(np.zeros(self.num_envs, dtype=np.int64))

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Learner actions ``(num_envs,)``; returns ``(obs, rewards, terminated, truncated, info)``.
        An error (an illegal learner action, or a failing opponent) leaves every env unchanged."""
        if self.state is None:
            raise ResetNeededError("reset() must be called before step()")
        st = self.state
        n = self.num_envs
        actions = check_actions(actions, n, "env")
        acting = ~self._waiting
        # the learner's legality, checked here to name the env
        ok = (actions >= 0) & (actions < NUM_ACTIONS)
        legal = ok & st.legal_action_mask[self._rows, np.where(ok, actions, 0)]
        bad = np.flatnonzero(acting & ~legal)
        if bad.size:
            i = int(bad[0])
            a = int(actions[i])
            more = f" ({bad.size} envs had illegal actions; the first is shown)" if bad.size > 1 else ""
            raise IllegalActionError(
                f"illegal action {a} ({_describe(a)}) for the learner in env {i}{more}; "
                f"legal actions: {_legal_list(st.legal_action_mask[i])}")
        # the opponent moves after the learner's moves were played: if it fails, undo them all
        saved = self._save()
        try:
            return self._step(actions, acting)
        except BaseException:
            self._restore(saved)
            raise

    def _step(self, actions, acting):
        st = self.state
        n = self.num_envs
        waiting = self._waiting
        reward = np.zeros(n, dtype=np.float64)
        terminated = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        hands = np.zeros(n, dtype=np.int64)
        # the learner's move (the waiting envs are held) ...
        stepped = step_games(st, actions, acting)
        self._collect(stepped, reward, terminated, truncated, hands)
        # ... the NEXT_STEP auto-reset of the envs whose episode ended at the last step ...
        if waiting.any():
            self._begin(waiting)
        # ... then the opponent's moves until the learner's turn, in both kinds of env at once
        self._opponent_moves((acting & ~terminated & ~truncated) | waiting, reward, terminated, truncated, hands)
        self._next_hand[acting] = terminated[acting] & ~st.terminated[acting] & ~st.truncated[acting]
        reward[acting] += self._pending[acting]
        self._pending[acting] = 0.0
        if waiting.any():
            self._finish_start(waiting, reward, terminated, truncated)
            hands[waiting] = 0
        self._waiting = terminated | truncated
        obs = self._observe()
        info = self._info(hands)
        return obs, reward, terminated, truncated, info

    def autoreset_now(self) -> tuple[np.ndarray, dict]:
        """Start now (not at the next :meth:`step`) the next episode of every env whose episode
        ended at the last step, as Stable-Baselines3's same-step reset does; returns ``(obs,
        info)`` of all envs (the others unchanged). Rewards the opponent earns while starting them
        go to the learner's next step, as after any reset. A failure leaves the env unchanged."""
        if self.state is None:
            raise ResetNeededError("reset() must be called before autoreset_now()")
        if not self._waiting.any():
            return self._observe(), self._info(np.zeros(self.num_envs, dtype=np.int64))
        saved = self._save()
        try:
            obs, _, _, _, info = self._step(np.zeros(self.num_envs, dtype=np.int64),
                                            np.zeros(self.num_envs, dtype=bool))
        except BaseException:
            self._restore(saved)
            raise
        return obs, info

    def action_masks(self) -> np.ndarray:
        """``(num_envs, 108)`` bool: the learner's legal actions (all True where the episode has
        ended and the env waits for its auto-reset)."""
        if self.state is None:
            raise ResetNeededError("reset() must be called before action_masks()")
        return public_masks(self.state, self._waiting)

    def render(self) -> tuple[str, ...] | np.ndarray | None:
        """The first (up to) four envs, each seen by the learner: its own cards and what the
        rules reveal, never a hidden card. ``"ansi"``: a tuple of texts
        (:func:`hollywood_env.render.render_state`); ``"rgb_array"``: one ``(H, W, 3)`` uint8
        image, the pictures (:func:`hollywood_env.render.render_rgb`) side by side."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (use render_mode='ansi' or 'rgb_array')")
            return None
        if self.state is None:
            raise ResetNeededError("reset() must be called before render()")
        shown = range(min(self.num_envs, 4))
        if self.render_mode == "rgb_array":
            from .render import render_rgb
            return np.concatenate([render_rgb(self.state, i, viewer=int(self.learner_seat[i]), title=f"env {i}")
                                   for i in shown], axis=1)
        from .render import render_state
        return tuple(render_state(self.state, i, viewer=int(self.learner_seat[i]), title=f"env {i}")
                     for i in shown)

    # --- internals ----------------------------------------------------------------------------
    def _save(self) -> tuple:
        """Copies of every array of the state and of the env's bookkeeping, for :meth:`_restore`
        (some 45 small copies: 20-40 us per step up to a few hundred envs, about 1% of a step)."""
        st = self.state
        if self._saved_fields[0] is not st:
            self._saved_fields = (st, [(o, k) for o in (st, st.sheet) for k, v in vars(o).items()
                                       if isinstance(v, np.ndarray)])
        fields = self._saved_fields[1]
        return (fields, [getattr(o, k).copy() for o, k in fields],
                self._waiting.copy(), self._next_hand.copy(), self._pending.copy())

    def _restore(self, saved: tuple) -> None:
        """Put back what :meth:`_save` copied (the copies become the live arrays)."""
        fields, arrays, self._waiting, self._next_hand, self._pending = saved
        for (o, k), a in zip(fields, arrays, strict=True):
            setattr(o, k, a)
        self._sheet_cache = SheetCache()  # it follows the sheet's versions, which went back

    def _observe(self) -> np.ndarray:
        return encode(self.state, self.learner_seat, sheet_cache=self._sheet_cache)

    def _info(self, hands: np.ndarray) -> dict:
        return {"action_mask": self.action_masks(), "learner_seat": self.learner_seat.copy(), "hands_ended": hands}

    def _collect(self, stepped, reward, terminated, truncated, hands) -> None:
        """Add the learner's rewards and the episode ends of the last core step."""
        st = self.state
        if not stepped.any():
            return
        r = shaped_rewards(st, self.reward_config, stepped)
        reward += np.where(stepped, r[self._rows, self.learner_seat], 0.0)
        t, tr = episode_ends(st, self.reward_config)
        terminated |= t & stepped
        truncated |= tr & stepped & ~terminated
        hands += st.hand_ended & stepped

    def _opponent_moves(self, live, reward, terminated, truncated, hands) -> None:
        """Play the opponent in the ``live`` envs until the learner is to move or the episode ends."""
        st = self.state
        seat = self.learner_seat
        uses_obs = getattr(self.opponent, "uses_observations", True)
        live = live.copy()
        while True:
            todo = live & (st.current_player != seat) & ~st.terminated & ~st.truncated
            idx = np.flatnonzero(todo)
            if idx.size == 0:
                return
            masks = st.legal_action_mask[idx]
            obs = encode(st, None, idx, sheet_cache=self._sheet_cache) if uses_obs else None
            acts = np.asarray(self.opponent(obs, masks))
            if acts.shape != (idx.size,):
                raise ValueError(f"the opponent must return one action per env it is asked about: expected shape "
                                 f"({idx.size},), got {acts.shape}")
            acts = acts.astype(np.int64)
            ok = (acts >= 0) & (acts < NUM_ACTIONS)
            legal = ok & masks[np.arange(idx.size), np.where(ok, acts, 0)]
            if not legal.all():
                j = int(np.flatnonzero(~legal)[0])
                a = int(acts[j])
                raise IllegalActionError(f"the opponent played the illegal action {a} ({_describe(a)}) in env "
                                         f"{int(idx[j])}; legal actions: {_legal_list(masks[j])}")
            full = np.zeros(self.num_envs, dtype=np.int64)
            full[idx] = acts
            stepped = step_games(st, full, todo)
            self._collect(stepped, reward, terminated, truncated, hands)
            live &= ~(terminated | truncated)

    def _begin(self, games: np.ndarray) -> None:
        """Start the next episode's core game in ``games``: continue with the next hand (per-hand
        episodes of a running match) or start a new match."""
        st = self.state
        cont = games & self._next_hand & ~st.terminated & ~st.truncated
        new = games & ~cont
        if new.any():
            core.reset_games(st, new)
        self._next_hand[games] = False

    def _finish_start(self, games, reward, terminated, truncated) -> None:
        """After the opponent's moves in freshly started ``games``: keep their rewards for the
        learner's next step, and skip (restart) the episodes that ended before the learner's
        first decision. Clears their entries of ``reward``, ``terminated``, ``truncated``."""
        st = self.state
        ended = games & (terminated | truncated)
        ok = games & ~ended
        self._pending[ok] = reward[ok]
        reward[games] = 0.0
        if ended.any():
            self._next_hand[ended] = terminated[ended] & ~st.terminated[ended] & ~st.truncated[ended]
            self._start_episodes(ended, ended)
        terminated[games] = False
        truncated[games] = False

    def _start_episodes(self, games: np.ndarray, begin: np.ndarray) -> None:
        """Start the next episode in ``games`` (``begin``: those whose core game must first be
        reset or continued), then play the opponent until the learner's first decision; an
        episode that ends before it is skipped."""
        n = self.num_envs
        todo = games.copy()
        begin = begin.copy()
        for _ in range(1000):
            if begin.any():
                self._begin(begin)
            reward = np.zeros(n)
            terminated = np.zeros(n, dtype=bool)
            truncated = np.zeros(n, dtype=bool)
            self._opponent_moves(todo, reward, terminated, truncated, np.zeros(n, dtype=np.int64))
            ended = todo & (terminated | truncated)
            ok = todo & ~ended
            self._pending[ok] = reward[ok]
            if not ended.any():
                return
            # the learner never got to act in these episodes: skip them
            st = self.state
            self._next_hand[ended] = terminated[ended] & ~st.terminated[ended] & ~st.truncated[ended]
            todo = ended
            begin = ended.copy()
        raise RuntimeError("could not start an episode in which the learner gets to act in 1000 tries "
                           f"(max_steps={self.max_steps} may be too small)")


class HollywoodGinEnv(gymnasium.Env):
    """Single-agent Hollywood Gin against an opponent policy: a :class:`HollywoodGinVectorEnv`
    of one env, learner in seat 0 (``learner_seat`` to change it). Observation ``Box``; the
    legal actions are in ``info["action_mask"]`` ``(108,)`` bool and :meth:`action_masks`.

    ``illegal_action``: ``"terminate"`` (default; the episode ends with ``illegal_reward`` and
    ``info["illegal_action"] = True``) or ``"raise"``. Episodes are one hand by default (see the
    module docstring); ``render_mode``: None, ``"ansi"``, ``"human"`` or ``"rgb_array"``.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1, "name": "hollywood_gin_v0"}

    def __init__(self, opponent: Opponent | str | None = None, rules: Rules | str | None = None,
                 reward: RewardConfig | str | None = None, max_steps: int | None = 5000,
                 per_hand_episodes: bool | None = None, render_mode: str | None = None,
                 illegal_action: str = "terminate", illegal_reward: float = -1.0, learner_seat: int = 0,
                 seed: int | None = None):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        if learner_seat not in (0, 1):
            raise ValueError(f"learner_seat must be 0 or 1, got {learner_seat!r}")
        self.venv = HollywoodGinVectorEnv(1, opponent=opponent, rules=rules, reward=reward, seed=seed,
                                          max_steps=max_steps, per_hand_episodes=per_hand_episodes)
        self.venv.learner_seat[:] = learner_seat
        self.observation_space = self.venv.single_observation_space
        self.action_space = self.venv.single_action_space
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self._ended = False

    @property
    def rules(self) -> Rules:
        return self.venv.rules

    @property
    def reward_config(self) -> RewardConfig:
        return self.venv.reward_config

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        obs, info = self.venv.reset(seed=seed)
        self._ended = False
        if self.render_mode == "human":
            self.render()
        return obs[0], self._info(info)

    def step(self, action: int | np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.venv.state is None:
            raise ResetNeededError("reset() must be called before step()")
        if self._ended:
            raise ResetNeededError("the episode has ended: call reset() before step()")
        a = np.asarray(action)
        if a.size != 1:
            raise ValueError(f"one action is expected, got shape {a.shape}")
        mask = self.venv.action_masks()[0]
        a_int = int(a.reshape(-1)[0]) if np.issubdtype(a.dtype, np.integer) else None
        if self.illegal_action == "terminate" and (a_int is None or not 0 <= a_int < NUM_ACTIONS or not mask[a_int]):
            gymnasium.logger.warn(f"illegal action {a.reshape(-1)[0]!r}: the episode ends with reward {self.illegal_reward}")
            self._ended = True
            obs = self.venv._observe()[0]
            info = {"action_mask": np.ones(NUM_ACTIONS, dtype=bool), "illegal_action": True, "hands_ended": 0}
            return obs, self.illegal_reward, True, False, info
        obs, rew, term, trunc, info = self.venv.step(a.reshape(1))
        self._ended = bool(term[0] or trunc[0])
        if self.render_mode == "human":
            self.render()
        return obs[0], float(rew[0]), bool(term[0]), bool(trunc[0]), self._info(info)

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks()[0]

    def render(self) -> str | np.ndarray | None:
        """The learner's view, never a hidden card: text (:func:`hollywood_env.render.render_state`)
        or, with ``"rgb_array"``, an ``(H, W, 3)`` uint8 picture (:func:`~hollywood_env.render.render_rgb`)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (use render_mode='ansi', 'human' or 'rgb_array')")
            return None
        if self.venv.state is None:
            raise ResetNeededError("reset() must be called before render()")
        if self.render_mode == "rgb_array":
            from .render import render_rgb
            return render_rgb(self.venv.state, 0, viewer=int(self.venv.learner_seat[0]))
        from .render import render_state
        text = render_state(self.venv.state, 0, viewer=int(self.venv.learner_seat[0]))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _info(self, vinfo: dict) -> dict:
        return {"action_mask": vinfo["action_mask"][0].copy(), "hands_ended": int(vinfo["hands_ended"][0])}

    def close(self) -> None:
        pass
