"""Environment throughput, measured in one run, on one process (numpy, single-threaded).

* vector env: :class:`hollywood_env.HollywoodGinVectorEnv` with observation encoding and the
  default random opponent; the learner plays uniformly random legal actions from
  ``info["action_mask"]``. Learner steps/s = num_envs x vector steps / s (each learner step
  includes the opponent's replies and the auto-resets). "env only" leaves out the time spent
  choosing the learner's actions.
* self-play batch: :class:`hollywood_env.SelfPlayBatch`, random legal actions for both seats
  (decisions/s).
* AEC env: ``hollywood_env.env()`` (the classic wrappers' checks built in), ``wrapped_env()``
  (``raw_env`` in PettingZoo's three wrapper objects, what ``env()`` used to be) and
  ``raw_env``, random legal actions from the observation's mask, the usual ``agent_iter`` /
  ``last`` / ``step`` loop, resetting after every match. Steps/s = decisions/s.
* RLCard ``gin-rummy`` (when rlcard is installed: the ``bench`` extra): ``env.run`` with random
  agents, as in ``benchmarks/throughput.py``; the ratios are medians of alternating 1 s rounds,
  robust to a load that changes during the run; pin to one core for the one-core figure:
  ``taskset -c 0 python benchmarks/env_throughput.py``.
* OpenSpiel ``gin_rummy`` (when pyspiel is installed: the ``bench`` extra), driven from Python
  as a user who plays games one at a time would: a clone of a prepared initial state, then at
  every decision ``observation_tensor()`` and ``legal_actions()`` and a uniformly random legal
  action; chance nodes (the deal, stock draws) are sampled from ``chance_outcomes()`` and not
  counted. Steps/s = decisions/s, the AEC env's unit. The last lines give ``env()`` / OpenSpiel
  and ``env()`` / RLCard, each from ``--ratio-rounds`` alternating 1 s rounds (their median).
* AEC ceiling: a do-nothing AEC env with the same spaces (its matches last 500 steps) in the
  same loop, bare and in the same PettingZoo wrappers as ``env()``: the most any AEC env can
  reach here, and the cost of the wrappers alone.

Usage: ``python benchmarks/env_throughput.py [--seconds 3] [--sizes 1024 4096]``
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # throughput.RLCardRun

import hollywood_env as H  # noqa: E402
from hollywood_env.actions import NUM_ACTIONS  # noqa: E402
from hollywood_env.aec_env import fresh_agents, raw_env, wrapped_env  # noqa: E402
from hollywood_env.selfplay import random_legal_actions  # noqa: E402


class NullAEC(AECEnv):
    """An AEC env that does nothing: constant observations, every action legal, 500-step matches."""

    metadata = {"name": "null_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self):
        super().__init__()
        self.possible_agents = ["player_0", "player_1"]
        space = H.env().observation_space("player_0")
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._obs = {"observation": np.zeros(space["observation"].shape, dtype=np.float32),
                     "action_mask": np.ones(NUM_ACTIONS, dtype=np.int8)}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        fresh_agents(self)
        self.agent_selection = "player_0"
        self._steps = 0

    def observe(self, agent):
        return {k: v.copy() for k, v in self._obs.items()}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._steps += 1
        if self._steps >= 500:
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = "player_1" if agent == "player_0" else "player_0"
        self._accumulate_rewards()


def wrapped_null_aec():
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        wrappers.TerminateIllegalWrapper(NullAEC(), illegal_reward=-1)))


def bench_vector(num_envs: int, seconds: float, rules: str) -> tuple[float, float]:
    env = H.HollywoodGinVectorEnv(num_envs, rules=rules, seed=0)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    for _ in range(10):  # warm up
        obs, r, term, trunc, info = env.step(random_legal_actions(info["action_mask"], rng))
    steps, env_time = 0, 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = random_legal_actions(info["action_mask"], rng)
        t = time.perf_counter()
        obs, r, term, trunc, info = env.step(actions)
        env_time += time.perf_counter() - t
        steps += 1
    total = time.perf_counter() - start
    return num_envs * steps / total, num_envs * steps / env_time


def bench_selfplay(num_games: int, seconds: float, rules: str) -> float:
    batch = H.SelfPlayBatch(num_games, rules=rules, seed=0)
    rng = np.random.default_rng(0)
    obs, mask, player = batch.reset()
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, mask, player, r, term, trunc, info = batch.step(random_legal_actions(mask, rng))
        steps += 1
    return num_games * steps / (time.perf_counter() - start)


def bench_aec(make, seconds: float) -> float:
    env = make()
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            env.step(action)
            steps += 1
            if steps % 1000 == 0 and time.perf_counter() - start >= seconds:
                break
        else:
            env.reset()
            continue
        break
    return steps / (time.perf_counter() - start)


class OpenSpielRun:
    """OpenSpiel ``gin_rummy`` decisions/s from Python (see the module docstring)."""

    def __init__(self, seed: int = 0):
        import pyspiel

        self.root = pyspiel.load_game("gin_rummy").new_initial_state()
        self.rng = np.random.default_rng(seed)

    def __call__(self, seconds: float) -> float:
        rng, root = self.rng, self.root
        state = root.clone()
        steps = 0
        start = time.perf_counter()
        while True:
            if state.is_terminal():
                state = root.clone()
            elif state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            else:
                state.observation_tensor()
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                steps += 1
                if steps % 1000 == 0 and time.perf_counter() - start >= seconds:
                    break
        return steps / (time.perf_counter() - start)


def bench_openspiel(seconds: float) -> float | None:
    """OpenSpiel gin_rummy decisions/s (:class:`OpenSpielRun`), None without pyspiel."""
    try:
        run = OpenSpielRun()
    except ImportError:
        return None
    return run(seconds)


def alternating_ratio(env_rate, peer_rate, rounds: int) -> tuple[float, list[tuple[float, float]]]:
    """The median of ``env_rate(1.0) / peer_rate(1.0)`` over ``rounds`` alternating rounds."""
    pairs = [(env_rate(1.0), peer_rate(1.0)) for _ in range(rounds)]
    ratios = sorted(a / b for a, b in pairs)
    return ratios[len(ratios) // 2], pairs


def bench_rlcard(seconds: float) -> float | None:
    """RLCard gin-rummy decisions/s (``benchmarks/throughput.py``'s loop), None without rlcard."""
    try:
        from throughput import RLCardRun
        run = RLCardRun()
    except ImportError:
        return None
    return run(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 4096], help="vector env sizes")
    parser.add_argument("--rules", default="hollywood", help="rules preset")
    parser.add_argument("--ratio-rounds", type=int, default=7, help="alternating env() / RLCard rounds")
    args = parser.parse_args()

    rows = []
    for n in args.sizes:
        total, env_only = bench_vector(n, args.seconds, args.rules)
        rows.append((f"vector env, random opponent, num_envs={n}", "learner steps/s", total, env_only,
                     500_000 if n == 4096 else None))
    for n in args.sizes:
        rows.append((f"self-play batch, num_games={n}", "decisions/s", bench_selfplay(n, args.seconds, args.rules), None, None))
    aec_env = bench_aec(lambda: H.env(rules=args.rules), args.seconds)
    rows.append(("AEC env: hollywood_env.env()", "steps/s", aec_env, None, 20_000))
    rows.append(("AEC env: wrapped_env() (PettingZoo wrappers)", "steps/s",
                 bench_aec(lambda: wrapped_env(rules=args.rules), args.seconds), None, None))
    rows.append(("AEC env: raw_env", "steps/s", bench_aec(lambda: raw_env(rules=args.rules), args.seconds), None, 20_000))
    rows.append(("AEC ceiling: do-nothing env, wrapped as env()", "steps/s", bench_aec(wrapped_null_aec, args.seconds),
                 None, None))
    rows.append(("AEC ceiling: do-nothing env, bare", "steps/s", bench_aec(NullAEC, args.seconds), None, None))
    openspiel = bench_openspiel(args.seconds)
    if openspiel is not None:
        rows.append(("OpenSpiel gin_rummy from Python (random)", "decisions/s", openspiel, None, None))
    rlcard = bench_rlcard(args.seconds)
    if rlcard is not None:
        rows.append(("RLCard gin-rummy, env.run (random agents)", "decisions/s", rlcard, None, None))

    print(f"numpy {np.__version__}, Python {platform.python_version()}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs visible; rules {args.rules}; {args.seconds:g} s per row")
    head = f"| {'environment':<46} | {'unit':<15} | {'throughput':>12} | {'env only':>12} | {'target':>9} |"
    print(head)
    print("|" + "|".join("-" * (len(c) ) for c in head.split("|")[1:-1]) + "|")
    for name, unit, value, env_only, target in rows:
        eo = f"{env_only:>12,.0f}" if env_only is not None else f"{'':>12}"
        tg = f"{target:>9,}" if target else f"{'':>9}"
        print(f"| {name:<46} | {unit:<15} | {value:>12,.0f} | {eo} | {tg} |")
    aec_rate = lambda seconds: bench_aec(lambda: H.env(rules=args.rules), seconds)  # noqa: E731
    # (name, rate above, a rate function for the alternating rounds, how to install, target ratio)
    peers = [("OpenSpiel", openspiel, OpenSpielRun() if openspiel is not None else None, "pip install open_spiel", 2.0),
             ("RLCard", rlcard, bench_rlcard, "pip install rlcard", 3.0)]
    for name, rate, peer, how, target in peers:
        if rate is None:
            print(f"{name} not installed ({how}, or the bench extra): no env() / {name} ratio")
            continue
        median, pairs = alternating_ratio(aec_rate, peer, args.ratio_rounds)
        print(f"env() / {name} (target {target:g}x): {aec_env / rate:.2f}x (rows above); "
              f"{args.ratio_rounds} alternating 1 s rounds: "
              f"median {median:.2f}x (range {min(a / b for a, b in pairs):.2f}-{max(a / b for a, b in pairs):.2f}; "
              f"env() {', '.join(f'{a:,.0f}' for a, _ in pairs)}; {name} {', '.join(f'{b:,.0f}' for _, b in pairs)})")


if __name__ == "__main__":
    main()
