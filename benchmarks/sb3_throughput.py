"""Stable-Baselines3 throughput: our adapter against ``make_vec_env``, measured in the same run.

* adapter: :class:`hollywood_env.sb3.HollywoodGinSB3VecEnv` (one batched vector env, same-step
  auto-reset) with ``num_envs`` envs;
* make_vec_env: ``stable_baselines3.common.env_util.make_vec_env("HollywoodGin-v0", n_envs)``
  (a ``DummyVecEnv`` of ``HollywoodGinEnv`` copies, each in SB3's ``Monitor``).

Two rows each: "env steps/s", SB3's ``VecEnv`` loop as MaskablePPO drives it during a rollout
(``get_action_masks(venv)``, a uniformly random legal action per env, ``venv.step``), and
"MaskablePPO steps/s", ``MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=1024,
n_epochs=4).learn(...)`` (collection and training; torch on one thread). Both envs play the
default episodes (one hand against the random opponent). The last lines are the ratios.

Usage: ``python benchmarks/sb3_throughput.py [--seconds 3] [--num-envs 64] [--learn-steps 32768]``
(needs the ``sb3`` extra).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from hollywood_env.selfplay import random_legal_actions  # noqa: E402


def make_adapter(n: int):
    from hollywood_env.sb3 import HollywoodGinSB3VecEnv
    return HollywoodGinSB3VecEnv(n, seed=0)


def make_sb3(n: int):
    from stable_baselines3.common.env_util import make_vec_env

    import hollywood_env  # noqa: F401  (registers HollywoodGin-v0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium's passive checker on the observation bounds
        return make_vec_env("HollywoodGin-v0", n_envs=n, seed=0)


def bench_env(venv, seconds: float) -> float:
    from sb3_contrib.common.maskable.utils import get_action_masks
    rng = np.random.default_rng(0)
    venv.reset()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        venv.step(random_legal_actions(get_action_masks(venv), rng))
        steps += 1
    return venv.num_envs * steps / (time.perf_counter() - start)


def bench_learn(venv, total: int) -> float:
    from sb3_contrib import MaskablePPO
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=1024, n_epochs=4, seed=0, verbose=0)
    model.learn(venv.num_envs * 128)  # warm-up: one rollout and update
    start = time.perf_counter()
    model.learn(total, reset_num_timesteps=False)
    return total / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per env-step measurement")
    parser.add_argument("--num-envs", type=int, default=64)
    parser.add_argument("--learn-steps", type=int, default=32768, help="MaskablePPO steps per learn measurement")
    args = parser.parse_args()
    import torch
    torch.set_num_threads(1)

    n = args.num_envs
    rows = []
    env_a = bench_env(make_adapter(n), args.seconds)
    env_m = bench_env(make_sb3(n), args.seconds)
    rows.append((f"adapter HollywoodGinSB3VecEnv, {n} envs", "env steps/s", env_a))
    rows.append((f"make_vec_env('HollywoodGin-v0', n_envs={n})", "env steps/s", env_m))
    learn_a = bench_learn(make_adapter(n), args.learn_steps)
    learn_m = bench_learn(make_sb3(n), args.learn_steps)
    rows.append((f"adapter HollywoodGinSB3VecEnv, {n} envs", "MaskablePPO steps/s", learn_a))
    rows.append((f"make_vec_env('HollywoodGin-v0', n_envs={n})", "MaskablePPO steps/s", learn_m))

    import stable_baselines3
    print(f"stable-baselines3 {stable_baselines3.__version__}, torch {torch.__version__} (1 thread), numpy "
          f"{np.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs visible")
    head = f"| {'vector env':<46} | {'unit':<20} | {'throughput':>12} |"
    print(head)
    print("|" + "|".join("-" * len(c) for c in head.split("|")[1:-1]) + "|")
    for name, unit, value in rows:
        print(f"| {name:<46} | {unit:<20} | {value:>12,.0f} |")
    print(f"adapter / make_vec_env: env steps {env_a / env_m:.1f}x, MaskablePPO {learn_a / learn_m:.1f}x (same run)")


if __name__ == "__main__":
    main()
