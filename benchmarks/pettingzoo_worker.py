"""PettingZoo's gin_rummy_v4, timed for ``benchmarks/throughput.py`` in another interpreter.

gin_rummy_v4 left PettingZoo in 1.25, so it runs in a separate environment that has it, e.g.::

    python -m venv /tmp/pz && /tmp/pz/bin/pip install "pettingzoo[classic]==1.24.3"
    python benchmarks/throughput.py --pettingzoo-python /tmp/pz/bin/python

The worker reads a number of seconds per line on stdin and answers each with one line: the
decisions (player moves) per second of the usual AEC loop (``agent_iter`` / ``last`` /
``step``, a uniformly random legal action from the observation's ``action_mask``, a new hand
with ``reset`` whenever one ends). It imports nothing from this project.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from pettingzoo.classic import gin_rummy_v4


def main() -> None:
    env = gin_rummy_v4.env()
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    print("ready", flush=True)
    for line in sys.stdin:
        seconds = float(line)
        decisions, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for _agent in env.agent_iter():
                obs, reward, terminated, truncated, info = env.last()
                if terminated or truncated:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[rng.integers(legal.size)])
                    decisions += 1
                env.step(action)
            env.reset()
        print(decisions / (time.perf_counter() - t0), flush=True)


if __name__ == "__main__":
    main()
