"""Stable-Baselines3: the batched vector env as an SB3 ``VecEnv`` (optional extra ``sb3``).

Usage (``pip install 'hollywood-gin-rl[sb3]'``: stable-baselines3 and sb3-contrib)::

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor
    from hollywood_env.sb3 import HollywoodGinSB3VecEnv

    venv = VecMonitor(HollywoodGinSB3VecEnv(num_envs=64, seed=0))   # episode stats for SB3's logger
    model = MaskablePPO("MlpPolicy", venv, seed=0).learn(200_000)
    model.save("maskable_ppo.zip")      # an agent spec: make_agent("sb3:maskable_ppo.zip", rules)

:class:`HollywoodGinSB3VecEnv` drives one :class:`~hollywood_env.vector_env.HollywoodGinVectorEnv`
(one batch of the numpy core; no Python env object per copy) with SB3's conventions:

* same-step auto-reset: when env ``i``'s episode ends, ``step_wait`` returns the first
  observation of its next episode, with the last one in ``infos[i]["terminal_observation"]``
  and ``infos[i]["TimeLimit.truncated"]`` True when it was truncated (``max_steps``), not
  terminated. (The Gymnasium vector env resets at the next step, ``NEXT_STEP``; the adapter
  starts the next episode at once with :meth:`HollywoodGinVectorEnv.autoreset_now`.)
* ``action_masks()`` ``(num_envs, 108)`` bool: what sb3-contrib's ``MaskablePPO`` reads (also
  through ``env_method("action_masks")``). Actions must be legal: an illegal action raises
  ``IllegalActionError`` naming the env and the legal actions, and changes nothing, so use a
  masked algorithm (``MaskablePPO``).
* rewards float32, observations float32 ``(num_envs, D)``; episodes, rewards, the opponent,
  rules and seeds as in the vector env (arguments are passed through: ``opponent``, ``rules``,
  ``reward``, ``max_steps``, ``per_hand_episodes``, ``seed``). By default an episode is one hand
  against the random opponent; env ``i``'s learner plays seat ``i % 2``.
* seeds: ``seed(s)`` (what ``model.learn`` and ``make_vec_env`` call) makes the next ``reset``
  a seeded one: SB3's ``[s, s + 1, ...]`` seeds the vector env with ``s`` (env ``i`` plays game
  ``i`` of ``core.init(num_envs, seed=s)``); any other list of ints seeds env ``i`` with its own.
* ``render_mode="rgb_array"`` (``get_images``, SB3's ``render``): each env's picture as its
  learner sees it (:func:`hollywood_env.render.render_rgb`).
* ``get_attr`` / ``set_attr`` reach the vector env's attributes (one value shared by all
  envs); ``env_method`` supports ``action_masks`` and ``render``; ``env_is_wrapped`` is False.

``make_vec_env("HollywoodGin-v0", n_envs=4)`` works too (one :class:`~hollywood_env.vector_env.
HollywoodGinEnv` per copy in a ``DummyVecEnv``; ``benchmarks/sb3_throughput.py`` compares the
two). Stable-Baselines3 is imported when this module is, never by ``import hollywood_env``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError("hollywood_env.sb3 needs Stable-Baselines3: pip install 'hollywood-gin-rl[sb3]' "
                      "(stable-baselines3 and sb3-contrib)") from e

from .vector_env import HollywoodGinVectorEnv, ResetNeededError

__all__ = ["HollywoodGinSB3VecEnv"]


class HollywoodGinSB3VecEnv(VecEnv):
    """A :class:`HollywoodGinVectorEnv` behind SB3's ``VecEnv`` API (see the module docstring).

    ``HollywoodGinSB3VecEnv(num_envs, **kwargs)`` builds the vector env with ``kwargs``
    (``opponent``, ``rules``, ``reward``, ``seed``, ``max_steps``, ``per_hand_episodes``,
    ``render_mode``: None or ``"rgb_array"``); ``HollywoodGinSB3VecEnv(venv=env)`` wraps an
    existing one.
    """

    def __init__(self, num_envs: int = 1, *, venv: HollywoodGinVectorEnv | None = None, **kwargs):
        if venv is None:
            venv = HollywoodGinVectorEnv(num_envs, **kwargs)
        elif kwargs or num_envs not in (1, venv.num_envs):
            raise ValueError(f"pass either venv= or the arguments of a new vector env, not both "
                             f"(got venv and {sorted(kwargs) or ['num_envs']})")
        if not isinstance(venv, HollywoodGinVectorEnv):
            raise TypeError(f"venv must be a HollywoodGinVectorEnv, got {type(venv).__name__}")
        if venv.render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array' for SB3, got {venv.render_mode!r}")
        self.venv = venv
        self._actions: np.ndarray | None = None
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

    # --- VecEnv API ---------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        seeds = list(self._seeds)
        n = self.num_envs
        if all(s is None for s in seeds):
            seed = None
        elif any(s is None for s in seeds):
            raise ValueError(f"either every env is seeded or none: got seeds {seeds}")
        elif seeds == [seeds[0] + i for i in range(n)]:
            seed = int(seeds[0])  # SB3's seed(s): [s, s + 1, ...]
        else:
            seed = [int(s) for s in seeds]
        obs, _ = self.venv.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(n)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, _ = self.venv.step(actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = obs[i]
                infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            obs, _ = self.venv.autoreset_now()
        return obs, rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, 108)`` bool: the learner's legal actions in every env."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def get_images(self) -> list[np.ndarray]:
        if self.venv.state is None:
            raise ResetNeededError("reset() must be called before get_images()")
        from .render import render_rgb
        return [render_rgb(self.venv.state, i, viewer=int(self.venv.learner_seat[i]), title=f"env {i}")
                for i in range(self.num_envs)]

    def get_attr(self, attr_name: str, indices: int | Iterable[int] | None = None) -> list[Any]:
        value = getattr(self.venv, attr_name)  # AttributeError when it has none: SB3's has_attr relies on it
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: int | Iterable[int] | None = None) -> None:
        if len(list(self._get_indices(indices))) != self.num_envs:
            raise ValueError(f"set_attr({attr_name!r}): the envs share one vector env, so an attribute can only be "
                             f"set for all of them (indices=None), got indices={indices!r}")
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: int | Iterable[int] | None = None,
                   **method_kwargs: Any) -> list[Any]:
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in idx]
        if method_name == "render":
            images = self.get_images()
            return [images[i] for i in idx]
        raise AttributeError(f"env_method({method_name!r}): the envs share one HollywoodGinVectorEnv; "
                             f"supported methods: 'action_masks', 'render' (call others on .venv)")

    def env_is_wrapped(self, wrapper_class: type, indices: int | Iterable[int] | None = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
