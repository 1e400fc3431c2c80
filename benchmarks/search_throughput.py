"""Speed of the ``search`` agent at several budgets, on one core.

    python benchmarks/search_throughput.py             # budgets 8, 32, 64, 128 worlds; batches of 1 and 64
    python benchmarks/search_throughput.py --quick     # fewer positions

Positions come from games of the simple bot against itself (every phase; the rows the agent is
to move in). For each budget and batch size the agent is called on the same positions and the
table shows:

* decisions/s: rows answered per second (a row is one game's decision), batched as the harness
  batches them (``play_pairing`` hands the agent every game where it is to move at once);
* searched: the share of rows with more than one candidate (the others cost a bot call);
* simulated/s: engine decisions played inside the rollouts per second;
* ms/decision: wall time per row.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

from agents.bots import SimpleBot  # noqa: E402
from agents.search.search import SearchAgent, SearchConfig  # noqa: E402
from hollywood_env import core  # noqa: E402
from hollywood_env.observation import encode  # noqa: E402


def positions(n: int, rules: str = "hollywood", seed: int = 0):
    """Observations and masks of ``n`` positions from simple-vs-simple games."""
    state = core.init(max(n // 8, 8), rules, seed=seed)
    bot = SimpleBot(rules)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    while sum(len(o) for o in obs) < n:
        live = np.flatnonzero(~state.done)
        pick = live[rng.random(live.size) < 0.15]
        if pick.size:
            obs.append(encode(state, games=pick))
            masks.append(state.legal_action_mask[pick].copy())
        core.step(state, bot(encode(state), state.legal_action_mask))
        if state.done.all():
            state = core.init(state.batch_size, rules, seed=int(rng.integers(2**31)))
    return np.concatenate(obs)[:n], np.concatenate(masks)[:n]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer positions")
    p.add_argument("--worlds", default="8,32,64,128", help="comma-separated budgets (worlds per decision)")
    p.add_argument("--rollout", default=SearchConfig.rollout,
                   help=f"the opponent models of the rollouts (default {SearchConfig.rollout}, the agent's default; "
                        "simple: the faster single model)")
    args = p.parse_args(argv)
    n = 128 if args.quick else 512
    obs, masks = positions(n)
    print(f"search agent, {n} positions, rollout={args.rollout}, one core\n")
    print("| worlds | batch | decisions/s | searched | simulated/s | ms/decision |")
    print("|---:|---:|---:|---:|---:|---:|")
    for w in (int(x) for x in args.worlds.split(",")):
        for batch in (1, 64):
            agent = SearchAgent("hollywood", seed=0, worlds=w, rollout=args.rollout)
            rows = n if batch > 1 else min(n, 64)
            t0 = time.perf_counter()
            for s in range(0, rows, batch):
                agent(obs[s:s + batch], masks[s:s + batch])
            dt = time.perf_counter() - t0
            st = agent.stats
            print(f"| {w} | {batch} | {rows / dt:,.0f} | {st['searched'] / max(st['decisions'], 1):.0%} | "
                  f"{st['simulated_steps'] / dt:,.0f} | {1000 * dt / rows:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
