"""End-to-end training speed (learner decisions per second), alone and beside a busy process.

    python benchmarks/train_throughput.py                         # configs/ppo_hollywood.yaml, 12 updates
    python benchmarks/train_throughput.py --config configs/ppo_quick.yaml --updates 8
    python benchmarks/train_throughput.py --variants "local-2t:--collector.kind local --torch_threads 2"

Each variant is a real ``hollywood train`` run in a subprocess of its own (so thread settings and
environment variables apply as they would for a user), for ``--updates`` updates with evaluation
and league gates off, in a temporary folder. The figure is the median over the updates after the
first two (warm-up) of ``charts/SPS`` (the run's own end-to-end measure: rollout plus update) and of
``charts/SPS_collect`` (the rollout alone). "busy" repeats the run beside one competing process
(a Python loop that never sleeps, as another user's job would be), started before the run and
ended after it.

Prints a Markdown table with the machine's load average before and after. Slow: each variant
trains for real (about a minute each at the defaults).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: label -> overrides; the config's own settings are the "config" row
DEFAULT_VARIANTS = {
    "config as written": "",
    "local collector, 2 torch threads": "--collector.kind local --collector.num_workers 1 --torch_threads 2",
    "local collector, 1 torch thread": "--collector.kind local --collector.num_workers 1 --torch_threads 1",
    "2 worker processes, 1 torch thread": "--collector.kind process --collector.num_workers 2 --torch_threads 1",
    "2 worker processes, 2 torch threads": "--collector.kind process --collector.num_workers 2 --torch_threads 2",
}


def run_variant(config: str, overrides: str, updates: int, busy: bool, env: dict) -> dict:
    """Train ``updates`` updates with ``overrides``; the medians of the logged speeds."""
    with tempfile.TemporaryDirectory() as tmp:
        base = ["--log.root", tmp, "--log.name", "bench", "--log.progress", "false", "--eval.every", "0",
                "--eval.bots", "random", "--eval.pairs", "1", "--league.snapshot_every", "0"]
        probe = subprocess.run([sys.executable, "-c", "import yaml,sys; c=yaml.safe_load(open(sys.argv[1])); "
                                "a=c.get('algo','ppo'); s=c.get(a,{}); print(s.get('num_games', 512)*s.get('num_steps', 64))",
                                config], capture_output=True, text=True, cwd=ROOT, check=True)
        per_update = int(probe.stdout.strip())
        cmd = [sys.executable, "-m", "experiments.cli", "train", config, "--total_steps", str(per_update * updates),
               *base, *overrides.split()]
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
        try:
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
            wall = time.perf_counter() - t0
        finally:
            if spinner is not None:
                spinner.kill()
                spinner.wait()
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
        lines = [json.loads(x) for x in next(Path(tmp).glob("bench__*")).joinpath("metrics.jsonl").read_text().splitlines()]
    steady = [x for x in lines if x.get("update", 0) > 2] or lines
    return {"sps": statistics.median(x["charts/SPS"] for x in steady),
            "collect": statistics.median(x["charts/SPS_collect"] for x in steady), "wall": wall,
            "steps": lines[-1]["global_step"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/train_throughput.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="configs/ppo_hollywood.yaml")
    parser.add_argument("--updates", type=int, default=12, help="updates per run (the first two are warm-up)")
    parser.add_argument("--variants", nargs="*", metavar="LABEL:OVERRIDES",
                        help="variants to run instead of the defaults")
    parser.add_argument("--no-busy", action="store_true", help="skip the runs beside a busy process")
    args = parser.parse_args(argv)
    variants = dict(v.split(":", 1) for v in args.variants) if args.variants else DEFAULT_VARIANTS
    env = dict(os.environ)
    load0 = os.getloadavg()
    rows = []
    for label, overrides in variants.items():
        for busy in ((False,) if args.no_busy else (False, True)):
            r = run_variant(args.config, overrides, args.updates, busy, env)
            rows.append((label, "busy" if busy else "alone", r))
            print(f"{label:40s} {'busy' if busy else 'alone':5s} SPS {r['sps']:8.0f}  collect {r['collect']:8.0f}  "
                  f"({r['steps']:,} decisions in {r['wall']:.0f} s wall)", file=sys.stderr, flush=True)
    load1 = os.getloadavg()
    print(f"\n`{args.config}`, {args.updates} updates per run (median of updates 3+), {os.cpu_count()} CPUs; "
          f"load average {load0[0]:.2f} before, {load1[0]:.2f} after\n")
    print("| variant | machine | learner decisions/s (end to end) | rollout alone | wall time of the run |")
    print("|---|---|---|---|---|")
    for label, machine, r in rows:
        print(f"| {label} | {machine} | {r['sps']:,.0f} | {r['collect']:,.0f} | {r['wall']:.0f} s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
