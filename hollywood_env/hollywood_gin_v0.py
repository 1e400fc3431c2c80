"""Hollywood Gin, PettingZoo AEC env, version 0: ``from hollywood_env import hollywood_gin_v0``.

The versioned module of :mod:`hollywood_env.aec_env`, as PettingZoo's classic envs are
(``pettingzoo.classic.connect_four_v3``)::

    from hollywood_env import hollywood_gin_v0

    env = hollywood_gin_v0.env(rules="hollywood", reward="hollywood", render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else policy(observation["observation"], observation["action_mask"])
        env.step(action)
    env.close()

==================  =============================================================================
Import              ``from hollywood_env import hollywood_gin_v0``
Actions             Discrete(108): draw from the stock, take the discard, pass, discard a card,
                    knock with a card, big gin (:mod:`hollywood_env.actions`)
Parallel API        No (turn-based; ``is_parallelizable`` False)
Manual control      No
Agents              ``agents = ['player_0', 'player_1']``
Number of agents    2
Action shape        Discrete(108)
Action values       Discrete(108)
Observation shape   ``Dict(observation=Box(320 + 9 C,) float32, action_mask=Box(108,) int8)``:
                    347 for three columns (``C``, Hollywood), 329 for one (Gin Rummy)
Observation values  [0, 1] but the knock limit and the scoresheet's points and hand counts
                    (bounds: ``observation_space(agent)``)
Rewards             zero-sum, mode ``reward=``: ``hollywood`` (default: the change of the
                    scoresheet totals / 100), ``hand``, ``games``, ``match``
                    (:mod:`hollywood_env.rewards`)
Episodes            a whole match (truncated after ``max_steps`` = 5000 decisions), or one hand
                    with ``per_hand_episodes=True``
Illegal move        the game ends with -1 for the offender and a warning (``env()``);
                    ``raw_env`` raises ``IllegalActionError`` naming the legal actions
Render modes        ``ansi``, ``human``, ``rgb_array`` (the agent to act's view; never a hidden
                    card)
==================  =============================================================================

``env(**kwargs)``: the env with PettingZoo's classic wrappers' behaviour built in
(:class:`~hollywood_env.aec_env.classic_env`: order enforcement, bounds, illegal move ends the
game with -1), at about ``raw_env``'s speed; ``raw_env(**kwargs)``: the bare env;
``wrapped_env(**kwargs)``: ``raw_env`` inside PettingZoo's own three wrapper objects (same
behaviour as ``env()``, slower). Keyword arguments: ``rules`` (a preset name, a
:class:`~hollywood_env.rules.Rules` or a dict), ``reward``, ``max_steps``,
``per_hand_episodes``, ``render_mode``. The observation table, the infos at a hand's end and
the rules of calling order are in :mod:`hollywood_env.aec_env` (appended below by ``help()``).

Version history
===============

=================  ======  ==========================================================================
version            when    change
=================  ======  ==========================================================================
hollywood_gin_v0   0.1.0   first release
hollywood_gin_v0   issue   after a wall each agent's info and the render hold its own hand only
                   12      (both hands before, which the rules never reveal); ``step``, ``observe``,
                           ``last`` and ``render`` before ``reset`` and a non-None ``step`` after
                           the end of ``raw_env`` raise ``ResetNeededError``; ``step(None)`` after
                           the end is ignored with PettingZoo's warning. Observations, actions,
                           rewards and dynamics unchanged, so the version is kept.
hollywood_gin_v0   issue   ``env()`` is a :class:`~hollywood_env.aec_env.classic_env` (the wrappers'
                   18      checks built in; 2-3x faster) instead of three wrapper objects: same
                           behaviour (the out-of-bounds ``AssertionError`` now names the action and
                           the allowed range); ``render_mode="rgb_array"``; this versioned module.
                           Observations, actions,
                           rewards and dynamics unchanged, so the version is kept.
=================  ======  ==========================================================================
"""

from __future__ import annotations

from . import aec_env as _aec
from .aec_env import IllegalActionError, ResetNeededError, classic_env, env, raw_env, wrapped_env

__all__ = ["env", "raw_env", "wrapped_env", "classic_env", "IllegalActionError", "ResetNeededError"]

if __doc__ and _aec.__doc__:  # None under python -OO
    __doc__ += "\nThe environment (:mod:`hollywood_env.aec_env`)\n" + "=" * 46 + "\n\n" + _aec.__doc__
