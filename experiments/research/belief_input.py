"""Cost of the learned belief as network inputs (``ppo.belief_input``) against the features alone.

    python -m experiments.research.belief_input                  # 4,096 rows, 1 torch thread
    python -m experiments.research.belief_input --rows 256 --threads 2

Times, in one process with the repetitions interleaved, on Hollywood positions some moves into
their hands (the simple bot's play): :func:`agents.rl.features.augment` alone (what every network
reads), ``augment`` with the belief (``belief_input: true``: the shipped model on the observation
alone, with the hard facts), and the belief's parts (the information sets read from the
observations, the network's forward pass on all the rows at once, the hard facts), and ``augment``
with the belief on 256 rows (about one rollout shard's learner rows per step). Prints a Markdown
table of median times per call and per row, with the machine's load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.bots import SimpleBot  # noqa: E402
from agents.rl.features import augment  # noqa: E402
from agents.search.belief import apply_hard_facts, belief_features  # noqa: E402
from hollywood_env import core  # noqa: E402
from hollywood_env.determinize import InfoSet  # noqa: E402
from hollywood_env.observation import encode  # noqa: E402


def positions(n: int, steps: int = 25) -> tuple[np.ndarray, np.ndarray]:
    """Observations and legal masks of ``n`` live games, ``steps`` moves of the simple bot in."""
    state = core.init(n, "hollywood", seed=0)
    bot = SimpleBot("hollywood", seed=0)
    for _ in range(steps):
        core.step(state, bot(encode(state), state.legal_action_mask))
        if state.done.any():
            core.reset_games(state, state.done)
    return encode(state), state.legal_action_mask.copy()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=4096)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--reps", type=int, default=20, help="timed repetitions of each measurement")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    obs, mask = positions(args.rows)
    belief = belief_features("hollywood")
    info = InfoSet.from_observation(obs, mask, belief.rules)
    logits = belief.belief.logits(obs, None, belief.rules)
    cases = {
        "augment (features only)": lambda: augment(obs, mask, True),
        "augment + belief (belief_input)": lambda: augment(obs, mask, True, belief),
        "  belief: InfoSet.from_observation": lambda: InfoSet.from_observation(obs, mask, belief.rules),
        "  belief: network forward": lambda: belief.belief.logits(obs, None, belief.rules),
        "  belief: hard facts": lambda: apply_hard_facts(info, logits),
        "augment, 256 rows": lambda: augment(obs[:256], mask[:256], True),
        "augment + belief, 256 rows": lambda: augment(obs[:256], mask[:256], True, belief),
    }
    times = {c: [] for c in cases}
    load_before = os.getloadavg()
    for f in cases.values():  # warm-up
        f()
    for _ in range(args.reps):
        for case, f in cases.items():
            t = time.perf_counter()
            f()
            times[case].append(time.perf_counter() - t)
    load_after = os.getloadavg()
    med = {c: statistics.median(v) for c, v in times.items()}
    base = med["augment (features only)"]
    print(f"## Belief inputs: {args.rows:,} rows, {args.threads} torch thread(s), median of {args.reps}")
    print()
    print(f"machine: {os.cpu_count()} CPUs; load average before {', '.join(f'{v:.2f}' for v in load_before)}, "
          f"after {', '.join(f'{v:.2f}' for v in load_after)}")
    print()
    print("| measurement | per call (ms) | per row (us) | / augment |")
    print("|---|---|---|---|")
    for case, t in med.items():
        rows = 256 if case.endswith("256 rows") else args.rows
        ref = med["augment, 256 rows"] if rows == 256 else base
        print(f"| {case} | {t * 1e3:.1f} | {t / rows * 1e6:.1f} | {t / ref:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
