"""Throughput of the bots and the batched tournament harness, on one core.

    python benchmarks/bots_throughput.py            # full run (about two minutes)
    python benchmarks/bots_throughput.py --quick    # smaller batches

Prints a Markdown table:

* each bot alone: decisions per second on a fixed set of observations (policy time only);
* each pairing through ``play_pairing``: decisions per second of the whole loop (engine step,
  observation encoding, both policies), the target being >= 200,000 for simple vs simple;
* the wall time of a round robin of the four bots (``--matches`` matches per pairing).
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

from agents import make_agent  # noqa: E402
from agents.matches import play_pairing  # noqa: E402
from experiments.evaluation.tournament import round_robin  # noqa: E402
from hollywood_env import core  # noqa: E402
from hollywood_env import observation as O  # noqa: E402
from hollywood_env.rules import Rules  # noqa: E402

BOTS = ["random", "simple", "neller", "hollywood"]


def sample_positions(rules, n, seed=0):
    """``n`` observations and masks from random play (every phase)."""
    state = core.init(n, rules, seed=seed)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    for t in range(60):
        if t >= 20 and t % 10 == 0:
            obs.append(O.encode(state))
            masks.append(state.legal_action_mask.copy())
        u = rng.random(state.legal_action_mask.shape) * state.legal_action_mask
        core.step(state, u.argmax(axis=1))
        if state.done.any():
            core.reset_games(state, state.done)
    return np.concatenate(obs), np.concatenate(masks)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rules", default="hollywood")
    p.add_argument("--pairs", type=int, default=4096, help="duplicate pairs for the pairing throughput (default 4096)")
    p.add_argument("--matches", type=int, default=2000, help="matches per pairing in the round robin (default 2000)")
    p.add_argument("--quick", action="store_true", help="1024 pairs, 400 matches per pairing")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.quick:
        args.pairs, args.matches = 1024, 400
    rules = Rules.preset(args.rules)

    print(f"# bots throughput (rules {args.rules}, one core, numpy {np.__version__})\n")
    print("| what | decisions | seconds | decisions / s |")
    print("|---|---|---|---|")
    obs, masks = sample_positions(rules, 4096, args.seed)
    for name in BOTS:
        bot = make_agent(name, rules, seed=0)
        bot(obs[:256], masks[:256])  # warm up
        t = time.perf_counter()
        reps = 3
        for _ in range(reps):
            bot(obs, masks)
        dt = time.perf_counter() - t
        print(f"| {name} policy alone, batch {obs.shape[0]} | {reps * obs.shape[0]} | {dt:.2f} "
              f"| {reps * obs.shape[0] / dt:,.0f} |", flush=True)

    for a, b in [("simple", "simple"), ("simple", "random"), ("neller", "neller"), ("hollywood", "simple")]:
        t = time.perf_counter()
        r = play_pairing(a, b, rules, args.pairs, args.seed, batch_pairs=args.pairs)
        dt = time.perf_counter() - t
        print(f"| {a} vs {b}: {2 * args.pairs} matches in one batch | {r.decisions} | {dt:.2f} | {r.decisions / dt:,.0f} |",
              flush=True)

    n_pairs = (args.matches + 1) // 2
    t = time.perf_counter()
    tr = round_robin(BOTS, rules, n_pairs, args.seed)
    dt = time.perf_counter() - t
    decisions = sum(r.decisions for r in tr.pairings.values())
    games = sum(r.n_games for r in tr.pairings.values())
    print(f"| round robin of {len(BOTS)} bots, {2 * n_pairs} matches per pairing ({games} matches) "
          f"| {decisions} | {dt:.2f} | {decisions / dt:,.0f} |")
    for (i, j), r in tr.pairings.items():
        print(f"|   {BOTS[i]} vs {BOTS[j]} | {r.decisions} | {r.seconds:.2f} | {r.decisions / r.seconds:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
