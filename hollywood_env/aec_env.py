"""PettingZoo AEC environment: two-player Hollywood Gin over the batched core (a batch of one).

Usage::

    import hollywood_env
    env = hollywood_env.env(rules="hollywood", reward="hollywood", render_mode="ansi")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else policy(obs["observation"], obs["action_mask"])
        env.step(action)

Agents ``player_0`` and ``player_1`` (core seats 0 and 1); the agent to act is the core's
``current_player``. Actions: ``Discrete(108)`` (:mod:`hollywood_env.actions`).

Observation: ``Dict(observation=Box(D,) float32, action_mask=Box(108,) int8)``. ``observe(agent)``
is that agent's own view; ``action_mask`` is the legal actions for the agent to act and all 0
for the other one (and once the episode is over). The observation holds public information
and the agent's own cards only (``D = 320 + 9 C``, 347 for three columns):

{OBSERVATION_TABLE}

Rewards: zero-sum, shaped by :mod:`hollywood_env.rewards` (``reward=`` a mode name or a
:class:`~hollywood_env.rewards.RewardConfig`; default ``"hollywood"``: the change of the
scoresheet totals / 100). Both agents get their rewards at the step that scores (a hand's end,
a game's end); they accumulate in ``_cumulative_rewards`` until the agent acts, as PettingZoo
expects. The reward config is kept across every ``reset``, seeded or not.

Episodes: a whole match (terminated when the match ends, truncated after ``max_steps`` decisions
of the match), or with ``per_hand_episodes=True`` one hand (terminated when the hand ends, walls
included); the next ``reset()`` without a seed then continues the same match with its next hand,
or starts a new match if it ended. ``reset(seed=s)`` always starts a new match from seed ``s``;
its cards equal game 0 of a vector env or self-play batch seeded ``s``.

Infos: when a hand ends, each agent's info dict gets its view of the report of
:func:`hollywood_env.render.hand_summary`; an agent's info is cleared when it acts. They hold only
what the rules reveal (docs/rules.md section 2): after a knock, gin or big gin both hands are laid
out; after a wall nobody lays down, so ``hands`` holds the agent's own hand only.

=====================  ==========================================================================
key                    value
=====================  ==========================================================================
``hand_ended``         True
``kind``               ``"knock"``, ``"gin"``, ``"undercut"``, ``"big_gin"`` or ``"wall"``
``winner``             the agent who scores (None after a wall)
``knocker``            the agent who knocked or declared gin / big gin (None after a wall)
``points``             the hand's points for the winner, before columns (0 after a wall)
``knocker_deadwood``   the knocker's deadwood (0 after a wall)
``defender_deadwood``  the defender's deadwood after lay-offs (0 after a wall)
``columns_credited``   the games (1-based) the points went into
``games_ended``        the games (1-based) this hand ended
``match_over``         whether the match ended
``match_winner``       an agent, ``"draw"``, or None while the match goes on
``hands``              agent -> its cards (indices) at the end of the hand: both agents after a
                       knock, gin or big gin; after a wall the receiving agent's own only
``knocker_melds``      the knocker's melds (lists of cards; ``[]`` after a wall)
``defender_melds``     the defender's melds (``[]`` after a wall)
``laid_off``           the defender's cards laid off on the knocker's melds (``[]`` after a wall)
=====================  ==========================================================================

Illegal actions: :class:`raw_env` raises ``IllegalActionError`` (a ``ValueError``) naming the
agent, the action and the legal actions; :func:`env` behaves as ``raw_env`` in PettingZoo's
classic wrappers (``TerminateIllegalWrapper(illegal_reward=-1)``: an illegal move ends the game
with -1 for the offender and a warning; ``AssertOutOfBoundsWrapper``: an action outside
``Discrete(108)`` raises ``AssertionError``; ``OrderEnforcingWrapper``), with that behaviour
built into :class:`classic_env` instead of three wrapper objects (:func:`wrapped_env` gives the
wrapper objects themselves).

Rendering: ``render_mode="ansi"`` returns the text of :func:`hollywood_env.render.render_state`
seen by the agent to act, exactly what that agent may read: its hand grouped in melds, its
deadwood, the discard top, the stock size, the cards the other agent took from the pile, the
scoresheet, and after a hand's end what the end revealed (after a knock, gin or big gin both
hands, melds, lay-offs and the score; after a wall its own hand only). ``"human"`` prints it
after every step; ``"rgb_array"`` returns the same view as an ``(H, W, 3)`` uint8 picture
(:func:`hollywood_env.render.render_rgb`: its hand face up, the other's face down except the
cards taken from the pile). There is no omniscient mode: the other agent's hidden cards never
appear.

Calls out of order (as PettingZoo's ``OrderEnforcingWrapper`` and classic envs do):
``step()``, ``observe()``, ``last()`` or ``render()`` before ``reset()`` raise
``ResetNeededError`` (a ``RuntimeError``) saying to call ``reset()``; a terminated or truncated agent must step with
``None``; once every agent is done, ``step(None)`` is ignored with PettingZoo's warning, any
other action and ``last()`` raise ``ResetNeededError``, and every ``action_mask`` is all 0. A bool
is not an action (``True`` is refused, not read as 1).

Speed: with one game the core takes its single-game path (the moves that end no hand, and the
legal mask, in one compiled call with numba; on Python ints with HOLLYWOOD_GIN_NUMBA=0), and
the env keeps the scoresheet part of the observations between hands. With numba a step that
ends no hand is one compiled call (:func:`hollywood_env.observation.step_observe_packed`): the
move, the legal mask after it, and the observation and ``int8`` mask of the agent to act next,
written into a buffer the env owns; ``observe`` and ``last`` of that agent then return copies of
them (fresh arrays at every call: nothing the caller holds is written again); after a reset or
a hand's end a second compiled call writes them. The other agent's observation, and every
observation without numba, is encoded from the State at the call. So the engine state is the
env's: change it only through ``step`` and ``reset`` (a State put in ``env.state`` in its place
is noticed, and read from). PettingZoo's
three wrappers cost about as much again as ``raw_env`` itself, which is why :func:`env` does
their checks itself (a few attribute reads per step): it runs at ``raw_env``'s speed.
``benchmarks/env_throughput.py`` measures ``env()``, ``wrapped_env()``, ``raw_env``, a do-nothing
env, OpenSpiel's Python loop and RLCard in one run.

Version history: the table in :mod:`hollywood_env.hollywood_gin_v0` (the versioned module).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from . import core, kernels
from .actions import KIND_NAMES, KIND_WALL, NUM_ACTIONS, action_name
from .observation import (
    NOT_LEGAL,
    NOT_SIMPLE,
    OBSERVATION_TABLE,
    PackedObserver,
    SheetCache,
    encode_one,
    step_observe_packed,
)

# the observation table lives once, in hollywood_env.observation
if __doc__:  # None under python -OO
    __doc__ = __doc__.replace("{OBSERVATION_TABLE}", OBSERVATION_TABLE)
from .render import hand_summary, render_state
from .rewards import RewardConfig, episode_ends, resolve_reward, shaped_rewards_one
from .rules import Rules, check_positive_int, resolve_rules
from .selfplay import slot_seeds_for
from .vector_env import ResetNeededError, observation_space_for

__all__ = ["env", "raw_env", "classic_env", "wrapped_env", "IllegalActionError", "ResetNeededError"]

_WALL = KIND_NAMES[KIND_WALL]

IllegalActionError = core.IllegalActionError


class _Ready:
    """What :class:`raw_env` prepared for its next calls, with numba and a packed one-game State:
    ``state``, the State it describes; ``agent``, the agent to act whose observation and mask the
    env's :class:`~hollywood_env.observation.PackedObserver` holds (None: nobody's);
    ``packed``, the State's packed buffer for the compiled step (None: the next step takes
    ``core.step_one``). Valid while ``env.state`` is ``state``; a copy (``copy.deepcopy`` of the
    env's attributes, pickle) is an empty one, as the copied State is not packed."""

    __slots__ = ("state", "agent", "packed")

    def __init__(self, state: core.State | None = None, agent: str | None = None, packed: np.ndarray | None = None):
        self.state, self.agent, self.packed = state, agent, packed

    def __deepcopy__(self, memo: dict) -> _Ready:
        return _Ready()

    def __reduce__(self) -> tuple:
        return (_Ready, ())


def fresh_agents(aec: AECEnv) -> None:
    """The PettingZoo bookkeeping of a reset: every possible agent of ``aec`` in play, with no
    reward yet, nothing terminated or truncated and empty infos."""
    aec.agents = aec.possible_agents[:]
    aec.rewards = dict.fromkeys(aec.agents, 0.0)
    aec._cumulative_rewards = dict.fromkeys(aec.agents, 0.0)
    aec.terminations = dict.fromkeys(aec.agents, False)
    aec.truncations = dict.fromkeys(aec.agents, False)
    aec.infos = {a: {} for a in aec.agents}


def env(**kwargs: Any) -> classic_env:
    """The AEC env with the behaviour of PettingZoo's classic wrappers (an illegal move ends the
    game with -1, actions out of bounds are refused, calls out of order are errors): a
    :class:`classic_env` (see the module docstring). ``wrapped_env(**kwargs)`` gives the same
    env inside PettingZoo's own wrapper classes."""
    return classic_env(**kwargs)


def wrapped_env(**kwargs: Any) -> AECEnv:
    """``raw_env`` in PettingZoo's classic wrappers (``TerminateIllegalWrapper(illegal_reward=-1)``,
    ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``): what :func:`env` used to return;
    it behaves as :func:`env` does, at about half the speed."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """Hollywood Gin for two agents (see the module docstring).

    Keyword arguments: ``rules`` (a :class:`Rules`, a preset name or a dict), ``reward`` (a mode
    name or a :class:`RewardConfig`), ``max_steps`` (decisions per match before truncation,
    default 5000; None: no limit), ``per_hand_episodes`` (overrides the reward config's field),
    ``render_mode`` (None, ``"ansi"``, ``"human"`` or ``"rgb_array"``).
    """

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "hollywood_gin_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, rules: Rules | str | None = None, reward: RewardConfig | str | None = None,
                 max_steps: int | None = 5000, per_hand_episodes: bool | None = None,
                 render_mode: str | None = None):
        EzPickle.__init__(self, rules=rules, reward=reward, max_steps=max_steps,
                          per_hand_episodes=per_hand_episodes, render_mode=render_mode)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        check_positive_int("max_steps", max_steps, allow_none=True)
        self.rules = resolve_rules(rules)
        self.reward_config = resolve_reward(reward, per_hand_episodes)
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        self._names = tuple(self.possible_agents)
        obs_box = observation_space_for(self.rules, max_steps)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_box,
                            "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8)})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.state: core.State | None = None
        self._next_hand = False
        self._last_summary: dict | None = None
        self._sheet_cache = SheetCache()  # the observations' scoresheet part, kept between hands
        self._observer = PackedObserver(self.rules)  # the observation of the agent to act, written ahead
        self._ready = _Ready()
        fresh_agents(self)
        self.agent_selection = self.agents[0]

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # --- PettingZoo API -----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self.state is None:
            self.state = core.init(1, self.rules, seed=slot_seeds_for(seed, 1), max_steps=self.max_steps)
        else:
            st = self.state
            if not (self._next_hand and not st.terminated[0] and not st.truncated[0]):
                core.reset_games(st, np.ones(1, dtype=bool))
        self._next_hand = False
        self._last_summary = None
        fresh_agents(self)
        self.agent_selection = self._names[int(self.state.current_player[0])]
        self._prepare()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        r = self._ready
        if (agent is not None and agent == r.agent and r.state is self.state
                and not (self.terminations.get(agent, True) or self.truncations.get(agent, True))):
            # the agent to act: its observation and mask, written at the step (or reset) that
            # made it the agent to act; copies, which the caller owns
            o = self._observer
            return {"observation": o.observation.copy(), "action_mask": o.mask.copy()}
        return self._observe_state(agent)

    def _observe_state(self, agent: str) -> dict[str, np.ndarray]:
        """``observe(agent)`` computed from the State (what the prepared observation equals)."""
        st = self.state
        if st is None:
            raise ResetNeededError("reset() must be called before observe() (or last())")
        p = self._seat(agent)
        if (agent == self.agent_selection and agent in self.terminations
                and not (self.terminations[agent] or self.truncations[agent])):
            mask = st.legal_action_mask[0].astype(np.int8)
        else:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        # computed afresh at each call (a compiled call with numba): the caller owns the arrays
        return {"observation": encode_one(st, 0, p, sheet_cache=self._sheet_cache), "action_mask": mask}

    def _seat(self, agent: str) -> int:
        names = self._names
        if agent == names[0]:
            return 0
        if agent == names[1]:
            return 1
        raise ValueError(f"unknown agent {agent!r}; the agents are {', '.join(names)}")

    def last(self, observe: bool = True) -> tuple:
        """PettingZoo's ``last()``; once every agent is done (each stepped with None) there is no
        agent to report on, so it raises ``ResetNeededError`` saying to call ``reset()``."""
        agent = self.agent_selection
        if self.state is not None and agent not in self._cumulative_rewards:
            raise ResetNeededError("the episode is over (every agent is done and has stepped with None): "
                                   "call reset() before last()")
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def step(self, action: int | np.integer | None) -> None:
        if self.state is None:
            raise ResetNeededError("reset() must be called before step()")
        if not self.agents:  # every agent is done (and has stepped with None)
            if action is None:
                EnvLogger.warn_step_after_terminated_truncated()
                return
            raise ResetNeededError(f"the episode is over (every agent is done): call reset() before step(); "
                                   f"until then only step(None) is accepted, and ignored; got {action!r}")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int or not 0 <= action < NUM_ACTIONS:
            action = self.check_action(agent, action)  # the action as an int, or its error
        if not self._play(agent, action):
            self.check_action(agent, action)  # the mask forbids it: IllegalActionError

    def _play(self, agent: str, a: int) -> bool:
        """Play the action ``a`` (an int in 0..107) of ``agent``, the agent to act, and return
        True; return False, with nothing changed, if the legal mask forbids it."""
        st, r, names = self.state, self._ready, self._names
        if r.packed is not None and r.state is st:
            # one compiled call: a simple move, then the observation and mask of the agent to act
            code = step_observe_packed(a, r.packed, self._observer.buffer)
            if code == NOT_LEGAL:
                return False
            simple = code >= 0
            if code == NOT_SIMPLE:  # nothing changed: the batched path takes it
                core.step_one(st, a)
        elif not st.legal_action_mask[0, a]:
            return False
        else:
            code = NOT_SIMPLE
            simple = core.step_one(st, a) and not st.truncated[0]
        self._cumulative_rewards[agent] = 0.0
        self.infos[agent] = {}
        if simple:  # no hand ended, no rewards (what the general code below would find)
            self.rewards = {names[0]: 0.0, names[1]: 0.0}
            self._last_summary = None
        else:
            r0, r1 = shaped_rewards_one(st, self.reward_config)
            self.rewards = {names[0]: r0, names[1]: r1}
            summary = hand_summary(st, 0, names) if st.hand_ended[0] else None
            self._last_summary = summary  # the full record: only its views reach the agents
            if summary is not None:
                for name in self.agents:
                    self.infos[name] = self._summary_for(name)
            terminated, truncated = episode_ends(st, self.reward_config)
            if terminated[0] or truncated[0]:
                self._next_hand = bool(terminated[0] and not st.terminated[0] and not st.truncated[0])
                self.terminations = dict.fromkeys(self.agents, bool(terminated[0]))
                self.truncations = dict.fromkeys(self.agents, bool(truncated[0]))
            self._accumulate_rewards()
        if code >= 0:  # the compiled call wrote the observation of the agent to act
            self.agent_selection = r.agent = names[code]
        else:
            self.agent_selection = names[int(st.current_player[0])]
            self._prepare()
        if self.render_mode == "human":
            self.render()
        return True

    def _prepare(self) -> None:
        """After a reset or a step that the compiled call did not make: with numba and a packed
        State, write the observation and mask of the agent to act (if it is to act) into the
        observer, and arm the compiled step for the next move (unless a hand's end left events,
        which ``core.step_one`` clears first)."""
        st = self.state
        packed = st.packed if kernels.AVAILABLE else None
        if packed is None:
            self._ready = _Ready()
            return
        observer = self._observer
        observer.set_sheets(st, self._sheet_cache)
        agent = self.agent_selection
        live = agent in self.terminations and not (self.terminations[agent] or self.truncations[agent])
        if live:
            observer.observe(packed, int(st.current_player[0]))
        self._ready = _Ready(st, agent if live else None, None if st.hand_ended[0] else packed)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode (use render_mode='ansi' or 'human')")
            return None
        if self.state is None:
            raise ResetNeededError("reset() must be called before render()")
        viewer = self._names.index(self.agent_selection)
        if self.render_mode == "rgb_array":
            from .render import render_rgb
            return render_rgb(self.state, 0, viewer=viewer, names=self._names)
        summary = self._summary_for(self.agent_selection) if self._last_summary is not None else None
        text = render_state(self.state, 0, viewer=viewer, names=self._names, summary=summary)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # --- internals ----------------------------------------------------------------------------
    def _summary_for(self, agent) -> dict:
        """``agent``'s view of the last ended hand (a copy): after a wall, its own hand only."""
        summary = self._last_summary
        if summary["kind"] != _WALL:
            return _copy_plain(summary)
        view = _copy_plain({k: v for k, v in summary.items() if k != "hands"})
        view["hands"] = {agent: list(summary["hands"][agent])}
        return view

    def check_action(self, agent: str, action: Any) -> int:
        """``action`` as an int if it is legal for ``agent`` (the agent to act), else an error:
        ``ValueError`` for None, ``TypeError`` for a non-integer, :class:`IllegalActionError`
        naming the legal actions for one the mask forbids. Changes nothing."""
        if type(action) is int and 0 <= action < NUM_ACTIONS and self.state.legal_action_mask[0, action]:
            return action
        if action is None:
            raise ValueError(f"{agent} is to act: an action in 0..{NUM_ACTIONS - 1} is expected, got None")
        if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
            a = int(action)
        else:
            arr = np.asarray(action)
            if arr.size != 1 or not (np.issubdtype(arr.dtype, np.integer) and arr.dtype != bool):
                raise TypeError(f"an action must be one integer in 0..{NUM_ACTIONS - 1}, got {action!r}")
            a = int(arr.reshape(-1)[0])
        mask = self.state.legal_action_mask[0]
        if not (0 <= a < NUM_ACTIONS) or not mask[a]:
            name = action_name(a) if 0 <= a < NUM_ACTIONS else f"out of range 0..{NUM_ACTIONS - 1}"
            legal = ", ".join(f"{x} ({action_name(x)})" for x in np.flatnonzero(mask))
            raise IllegalActionError(f"illegal action {a} ({name}) for {agent}; legal actions: {legal or 'none'}")
        return a


_IMMUTABLE = frozenset({int, str, bool, float, type(None)})


def _copy_plain(x: Any) -> Any:
    """``copy.deepcopy`` of nested dicts and lists of ints, strings and such (a hand summary),
    several times faster; any other value is deep-copied by ``copy.deepcopy``."""
    t = type(x)
    if t is dict:
        return {k: _copy_plain(v) for k, v in x.items()}
    if t is list:
        return [_copy_plain(v) for v in x]
    return x if t in _IMMUTABLE else copy.deepcopy(x)


_ORDER_ATTRS = ("rewards", "terminations", "truncations", "infos", "agent_selection", "agents")


class _SetByReset:
    """A class attribute of :class:`classic_env` for one of the attributes ``reset()`` sets:
    reading it before the env has its own raises ``AttributeError`` as PettingZoo's
    ``OrderEnforcingWrapper`` does. It has no ``__set__``, so once ``reset()`` has set the
    attribute Python reads the instance's value directly (a ``__getattr__`` on the class would
    instead slow down every attribute read of the env: the interpreter does not specialize
    attribute reads on classes that define one)."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        raise AttributeError(f"{self.name} cannot be accessed before reset")


class classic_env(raw_env):
    """:class:`raw_env` with what PettingZoo's three classic wrappers do built in, in the same
    order and with the same errors and warnings, at a fraction of their cost (what :func:`env`
    returns):

    * ``OrderEnforcingWrapper``: ``rewards``, ``terminations``, ``truncations``, ``infos``,
      ``agent_selection``, ``agents`` and ``num_agents`` raise ``AttributeError`` before the
      first ``reset()``; ``step``, ``observe``, ``render`` and ``agent_iter`` before it raise
      PettingZoo's ``AssertionError`` ("reset() needs to be called before step." ...); a step
      once every agent is done is ignored with PettingZoo's warning; ``agent_iter`` asserts that
      each agent it yields was stepped ("need to call step() or reset() in a loop over
      `agent_iter`").
    * ``AssertOutOfBoundsWrapper``: an action outside ``Discrete(108)`` (or None for an agent
      that is not done) raises ``AssertionError("action is not in action space ...")``.
    * ``TerminateIllegalWrapper(illegal_reward=-1)``: a legal-range action that the mask forbids
      ends the game: PettingZoo's illegal-move warning, every agent terminated and truncated,
      ``illegal_reward`` (default -1) for the offender and 0 for the other. One difference: the
      offender's ``action_mask`` is then all 0, as at any end of the game (in the wrapper objects
      it kept showing the legal actions of the move refused, ``raw_env``'s cached observation).

    And as ``raw_env``: ``last()`` once every agent is done raises ``ResetNeededError`` saying to
    call ``reset()`` (in the wrapper objects, PettingZoo's ``last`` fails with a bare ``KeyError``).
    """

    def __init__(self, illegal_reward: float = -1.0, **kwargs):
        super().__init__(**kwargs)
        EzPickle.__init__(self, illegal_reward=illegal_reward, **kwargs)
        self._illegal_reward = float(illegal_reward)
        self._has_reset = False
        self._has_updated = False
        self._ended_illegal = False
        for name in _ORDER_ATTRS:  # set by reset(); read before it, _SetByReset raises as the wrapper does
            self.__dict__.pop(name, None)

    @property
    def num_agents(self) -> int:
        if "agents" not in self.__dict__:
            raise AttributeError("num_agents cannot be accessed before reset")
        return len(self.agents)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._has_reset = True
        self._has_updated = True
        self._ended_illegal = False
        super().reset(seed=seed, options=options)

    def _observe_state(self, agent: str) -> dict[str, np.ndarray]:
        # (observe() before the first reset gets here: nothing is prepared then)
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return super()._observe_state(agent)

    def render(self) -> str | np.ndarray | None:
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return super().render()

    def agent_iter(self, max_iter: int = 2**63) -> _OrderEnforcingIter:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderEnforcingIter(self, max_iter)

    def step(self, action: int | np.integer | None) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        dead = self.terminations[agent] or self.truncations[agent]
        # AssertOutOfBoundsWrapper (a bool is no action, though Discrete.contains(True) holds)
        if not (type(action) is int and 0 <= action < NUM_ACTIONS) and (isinstance(action, (bool, np.bool_)) or not (
                (action is None and dead) or self.action_spaces[agent].contains(action))):
            raise AssertionError(f"action is not in action space: {action!r} for {agent}; allowed: an integer in "
                                 f"0..{NUM_ACTIONS - 1}" + (", or None (the agent is done)" if dead else ""))
        if dead:
            super().step(action)
        elif not self._play(agent, int(action)):
            # TerminateIllegalWrapper: the mask the agent to act was shown is the game's legal mask
            EnvLogger.warn_on_illegal_move()
            self._cumulative_rewards[agent] = 0
            self.terminations = dict.fromkeys(self.agents, True)
            self.truncations = dict.fromkeys(self.agents, True)
            self.rewards = dict.fromkeys(self.truncations, 0)
            self.rewards[agent] = self._illegal_reward
            self._accumulate_rewards()
            self._deads_step_first()
            self._ended_illegal = True


for _name in _ORDER_ATTRS:
    setattr(classic_env, _name, _SetByReset(_name))


class _OrderEnforcingIter:
    """PettingZoo's ``AECOrderEnforcingIterator`` for :class:`classic_env`."""

    def __init__(self, env: classic_env, max_iter: int):
        self.env = env
        self.iters_til_term = max_iter

    def __iter__(self):
        return self

    def __next__(self):
        env = self.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        if not env._has_updated:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        env._has_updated = False
        return env.agent_selection
