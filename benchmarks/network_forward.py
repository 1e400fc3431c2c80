"""Cost of the PPO actor-critic's encoders on CPU: ``encoder="conv"`` against ``"mlp"``.

    python benchmarks/network_forward.py                      # 1 torch thread, hidden [256, 256]
    python benchmarks/network_forward.py --threads 2 --reps 50

Times, in one process with the repetitions of the two networks interleaved, a forward pass
(no gradient) on 4,096 rows and on 256 rows (about what a rollout shard evaluates per step), and
a forward plus backward pass on a 2,048-row minibatch (the update), on Hollywood observations
with the derived features. Prints a Markdown table of median times and the conv / mlp ratios,
with the machine's load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402

from agents.rl.features import NUM_FEATURES, augment  # noqa: E402
from agents.rl.networks import ENCODERS, ActorCritic  # noqa: E402
from hollywood_env import core  # noqa: E402
from hollywood_env.actions import NUM_ACTIONS  # noqa: E402
from hollywood_env.observation import encode, observation_size  # noqa: E402
from hollywood_env.rules import resolve_rules  # noqa: E402


def positions(n: int) -> torch.Tensor:
    """``n`` observations (with features) of games a few random moves in."""
    import numpy as np

    state = core.init(n, "hollywood", seed=0)
    rng = np.random.default_rng(0)
    for _ in range(9):
        core.step(state, np.array([rng.choice(np.flatnonzero(m)) for m in state.legal_action_mask]))
        if state.done.any():
            core.reset_games(state, state.done)
    return torch.from_numpy(augment(encode(state), state.legal_action_mask))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--reps", type=int, default=30, help="timed repetitions of each measurement")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    dim = observation_size(resolve_rules("hollywood")) + NUM_FEATURES
    x = positions(4096)
    nets = {}
    for enc in ENCODERS:
        torch.manual_seed(0)
        nets[enc] = ActorCritic(dim, NUM_ACTIONS, args.hidden, encoder=enc)

    def forward(net, rows):
        with torch.no_grad():
            net(x[:rows])

    def update(net):
        logits, value = net(x[:2048])
        (logits.sum() + value.sum()).backward()

    cases = {"forward, 4,096 rows": lambda n: forward(n, 4096), "forward, 256 rows": lambda n: forward(n, 256),
             "forward + backward, 2,048 rows": update}
    times = {(c, e): [] for c in cases for e in nets}
    load_before = os.getloadavg()
    for case, f in cases.items():
        for net in nets.values():  # warm-up
            f(net)
        for _ in range(args.reps):
            for enc, net in nets.items():
                t = time.perf_counter()
                f(net)
                times[case, enc].append(time.perf_counter() - t)
    load_after = os.getloadavg()
    params = {e: sum(q.numel() for q in n.parameters()) for e, n in nets.items()}
    print(f"## ActorCritic encoders: hidden {args.hidden}, {args.threads} torch thread(s), median of {args.reps}")
    print()
    print(f"machine: {os.cpu_count()} CPUs; load average before {', '.join(f'{v:.2f}' for v in load_before)}, "
          f"after {', '.join(f'{v:.2f}' for v in load_after)}; parameters: "
          + ", ".join(f"{e} {n:,}" for e, n in params.items()))
    print()
    print("| measurement | mlp (ms) | conv (ms) | conv / mlp |")
    print("|---|---|---|---|")
    for case in cases:
        m, c = (statistics.median(times[case, e]) * 1e3 for e in ("mlp", "conv"))
        print(f"| {case} | {m:.1f} | {c:.1f} | {c / m:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
