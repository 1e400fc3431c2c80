"""Do two checkouts train the same? Tiny PPO and DQN runs (``configs/ppo_tiny.yaml``,
``configs/dqn_tiny.yaml``, 6 updates), each straight and stopped by SIGTERM after update 3 then
resumed, and straight 4-update runs of the variants the tiny configs leave out (PPO with the
imitation term on half the positions, the privileged critic and ``target_kl``; DQN with the
margin term and prioritized replay), run with each checkout's code; then the metrics logs (every
key but the timings) and every tensor of ``latest.pt`` (the model, and the optimiser, target
network and buffer of ``train_state``) compared. For a refactoring of the trainers: the answer
must be "IDENTICAL".

    .venv/bin/python tools/train_equivalence.py BASELINE_CHECKOUT [CANDIDATE_CHECKOUT (default: this one)]

A few minutes of one core (``git worktree add /tmp/base HEAD~1`` makes a baseline checkout), so
not in the test suite; it also runs another checkout's code.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = {  # name: (config, extra flags, updates, stopped at and resumed)
    "ppo": ("ppo", [], 6, True),
    "dqn": ("dqn", [], 6, True),
    "ppo-expert-privileged": ("ppo", ["--ppo.expert", "marjj", "--ppo.expert_until", "0.7", "--ppo.expert_fraction",
                                      "0.5", "--ppo.privileged_critic", "true", "--ppo.target_kl", "0.001"], 4, False),
    "dqn-expert-per": ("dqn", ["--dqn.expert", "marjj", "--dqn.expert_until", "0.8", "--dqn.prioritized", "true"], 4,
                       False),
}


def produce(out: Path) -> None:
    """Run every run of RUNS with the code on ``sys.path`` (the checkout under test); copy each
    run's metrics.jsonl and latest.pt into ``out/<name>/<straight|resumed>/``."""
    from agents.rl.stopping import TrainingStopped
    from experiments.config.loader import load_config
    from experiments.config.schema import TrainConfig
    from experiments.training.train import run_training

    def keep(run: Path, dest: Path) -> None:
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copy(run / "metrics.jsonl", dest / "metrics.jsonl")
        shutil.copy(run / "checkpoints" / "latest.pt", dest / "latest.pt")

    def stop_at_3(update: int, collector: object) -> None:
        if update == 3:
            os.kill(os.getpid(), signal.SIGTERM)

    for name, (algo, extra, updates, resume) in RUNS.items():
        def cfg(root: Path, algo=algo, extra=extra, updates=updates) -> object:
            return load_config(TrainConfig, Path.cwd() / "configs" / f"{algo}_tiny.yaml",
                               ["--total_steps", str(updates * 32 * 32), "--log.root", str(root), *extra])

        straight, _ = run_training(cfg(out / "work" / name / "a"))
        keep(straight, out / name / "straight")
        if resume:
            try:
                run_training(cfg(out / "work" / name / "b"), on_update=stop_at_3)
                raise SystemExit(f"{name}: the run was not stopped")
            except TrainingStopped:
                pass
            (stopped,) = (out / "work" / name / "b").iterdir()
            run_training(load_config(TrainConfig, stopped / "config.yaml"), run_dir=stopped,
                         resume_from=stopped / "checkpoints" / "latest.pt")
            keep(stopped, out / name / "resumed")


def _tensors(x: object, prefix: str = ""):
    import torch

    if isinstance(x, torch.Tensor):
        yield prefix, x
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from _tensors(v, f"{prefix}/{k}")
    elif isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            yield from _tensors(v, f"{prefix}/{i}")


def compare(a_root: Path, b_root: Path) -> int:
    """Print the comparison of two :func:`produce` outputs; the number of runs that differ."""
    import torch

    from agents.checkpoint import load_checkpoint
    from experiments.training.run_writer import read_metrics
    from experiments.training.train import compare_metrics

    bad = 0
    for name, (_, _, _, resume) in RUNS.items():
        for kind in ("straight", "resumed") if resume else ("straight",):
            a, b = a_root / name / kind, b_root / name / kind
            ma, mb = read_metrics(a), read_metrics(b)
            diffs = compare_metrics(ma, mb)
            ca, cb = load_checkpoint(a / "latest.pt"), load_checkpoint(b / "latest.pt")
            ta = dict(_tensors({"model": ca["model"], "train_state": ca.get("train_state", {})}))
            tb = dict(_tensors({"model": cb["model"], "train_state": cb.get("train_state", {})}))
            same = ta.keys() == tb.keys() and all(torch.equal(ta[k], tb[k]) for k in ta)
            print(f"{name} {kind}: {len(ma)} updates logged, {len(diffs)} metric differences; global_step "
                  f"{ca['global_step']} vs {cb['global_step']}; {len(ta)} tensors identical: {same}")
            for d in diffs[:5]:
                print("   ", d)
            bad += bool(diffs) or not same or ca["global_step"] != cb["global_step"]
        if resume:  # and each checkout's resumed run is its straight run
            for root in (a_root, b_root):
                diffs = compare_metrics(read_metrics(root / name / "straight"), read_metrics(root / name / "resumed"))
                print(f"  {root.name}: {name} resumed vs straight: {len(diffs)} metric differences")
                bad += bool(diffs)
    print("IDENTICAL" if not bad else f"{bad} DIFFERENCES")
    return bad


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "--produce":  # the child: this checkout's code on the path
        produce(Path(argv[1]))
        return 0
    if not 1 <= len(argv) <= 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    roots = [Path(argv[0]).resolve(), Path(argv[1]).resolve() if len(argv) == 2 else ROOT]
    with tempfile.TemporaryDirectory() as tmp:
        outs = [Path(tmp) / "baseline", Path(tmp) / "candidate"]
        for root, out in zip(roots, outs, strict=True):
            env = {**os.environ, "PYTHONPATH": str(root)}
            subprocess.run([sys.executable, str(Path(__file__).resolve()), "--produce", str(out)], cwd=root, env=env,
                           check=True, stderr=subprocess.DEVNULL)
        return 1 if compare(*outs) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
