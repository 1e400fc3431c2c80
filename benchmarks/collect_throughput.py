"""PPO rollout collection throughput: local with 1 shard, local with 2 shards, Ray with 2 workers.

    python benchmarks/collect_throughput.py                  # 256 games x 64 steps, 3 timed rollouts each
    python benchmarks/collect_throughput.py --num-games 256 --updates 5 --num-cpus 4 --workers 4

Measures, in one process and one run, the collection of whole rollouts (``ppo.num_games`` games,
``ppo.num_steps`` decisions each, the league's bots as opponents, GAE included) through the
collectors of :mod:`agents.rl.collectors`, without the PPO update: learner decisions per second.
Every shard uses one torch thread. The first rollout of each collector is a warm-up (for Ray it
includes starting the actors) and is reported apart. Needs Ray for the Ray row (``pip install
'.[ray]'``; skipped otherwise). Prints a Markdown table with the machine's load average.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402

from agents.rl.collectors import make_collector  # noqa: E402
from agents.rl.features import NUM_FEATURES  # noqa: E402
from agents.rl.networks import ActorCritic  # noqa: E402
from agents.rl.ppo import PPOShard  # noqa: E402
from experiments.config.loader import apply_overrides  # noqa: E402
from experiments.config.schema import TrainConfig  # noqa: E402
from hollywood_env.actions import NUM_ACTIONS  # noqa: E402
from hollywood_env.observation import observation_size  # noqa: E402


def measure(base: TrainConfig, kind: str, workers: int, updates: int, num_cpus: int | None) -> dict:
    cfg = apply_overrides(base, ["--collector.kind", kind, "--collector.num_workers", str(workers)]
                          + (["--collector.num_cpus", str(num_cpus)] if num_cpus else []))
    torch.manual_seed(0)
    net = ActorCritic(observation_size(cfg.env.make_rules()) + NUM_FEATURES, NUM_ACTIONS, cfg.ppo.hidden)
    t0 = time.perf_counter()
    collector = make_collector(PPOShard, cfg, net)
    try:
        first = collector.collect(net)
        warmup = time.perf_counter() - t0
        decisions, t1 = 0, time.perf_counter()
        for _ in range(updates):
            decisions += sum(b.n_learner for b in collector.collect(net))
        seconds = time.perf_counter() - t1
    finally:
        collector.close()
    return {"collector": kind, "shards": workers, "games_per_shard": cfg.ppo.num_games // workers,
            "decisions": decisions, "seconds": seconds, "per_second": decisions / seconds,
            "warmup": warmup, "samples_first": sum(b.obs.shape[0] for b in first)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--num-games", type=int, default=256)
    p.add_argument("--num-steps", type=int, default=64)
    p.add_argument("--hidden", default="[256, 256]")
    p.add_argument("--updates", type=int, default=3, help="timed rollouts per collector (after one warm-up)")
    p.add_argument("--workers", type=int, default=2, help="shards of the multi-shard rows (default 2)")
    p.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray (default 2)")
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    base = apply_overrides(TrainConfig(), ["--ppo.num_games", str(args.num_games), "--ppo.num_steps",
                                           str(args.num_steps), "--ppo.hidden", args.hidden, "--torch_threads", "1",
                                           "--seed", "0"])
    load_before = os.getloadavg()
    rows = [measure(base, "local", 1, args.updates, None), measure(base, "local", args.workers, args.updates, None)]
    try:
        import ray  # noqa: F401

        rows.append(measure(base, "ray", args.workers, args.updates, args.num_cpus))
    except ImportError:
        print("(ray is not installed: no Ray row; pip install '.[ray]')", file=sys.stderr)
    load_after = os.getloadavg()
    print(f"## PPO rollout collection: {args.num_games} games x {args.num_steps} steps per rollout, "
          f"network {args.hidden}, {args.updates} timed rollouts each, 1 torch thread per shard")
    print()
    print(f"machine: {os.cpu_count()} CPUs; load average (1, 5, 15 min) before "
          f"{', '.join(f'{x:.2f}' for x in load_before)}, after {', '.join(f'{x:.2f}' for x in load_after)}")
    print()
    print("| collector | shards | games/shard | learner decisions/s | s per rollout | first rollout (s) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['collector']} | {r['shards']} | {r['games_per_shard']} | {r['per_second']:,.0f} | "
              f"{r['seconds'] / args.updates:.2f} | {r['warmup']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
