"""A tiny training run and tournament, made in seconds, so the analysis notebook (and its test)
runs anywhere without inputs.

* :data:`DEMO_OVERRIDES`: a PPO config of a few seconds, as command-line overrides of the
  defaults (no YAML file).
* :func:`make_demo`: that config trained once per seed, and a small round robin of the first
  run against two bots, written as a tournament folder.

The outputs are ordinary run and tournament folders, read back by
:mod:`experiments.analysis.run_reader`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

#: overrides of the defaults (no YAML file needed) for a PPO run of a few seconds
DEMO_OVERRIDES = [
    "--algo", "ppo", "--total_steps", "1024", "--torch_threads", "1",
    "--env.max_steps", "100", "--env.rule_options", "{target: 10}",
    "--ppo.num_games", "8", "--ppo.num_steps", "32", "--ppo.hidden", "[32, 32]", "--ppo.num_minibatches", "2",
    "--ppo.update_epochs", "2",
    "--league.snapshot_every", "2", "--league.gate_pairs", "2", "--league.bot_weight", "0.8",
    "--league.snapshot_weight", "0.1",
    "--eval.every", "2", "--eval.pairs", "1", "--eval.bots", "[simple, neller]",  # bots that end hands quickly
    "--log.name", "demo_ppo", "--log.checkpoint_every", "2", "--log.progress", "false",
]


def make_demo(root: str | Path | None = None, seeds: Sequence[int] = (0, 1), tournament_pairs: int = 2) -> dict:
    """Train the tiny :data:`DEMO_OVERRIDES` PPO config once per seed under ``root`` (a new
    temporary folder by default) and play a tiny round robin of the first run against two bots,
    written by ``write_tournament`` (without the PNG heatmap). A few seconds per seed.

    Returns ``{"root", "runs" (a glob of the run folders), "run_dirs", "tournament"}``.
    """
    import tempfile

    # imported when called: training brings torch, and experiments.analysis.notebooks (the
    # notebooks' import) imports this module
    from experiments.config.loader import load_config
    from experiments.config.schema import TrainConfig
    from experiments.evaluation.tournament import round_robin, summarize_tournament, write_tournament
    from experiments.training.train import run_training

    root = Path(tempfile.mkdtemp(prefix="hollywood-demo-") if root is None else root)
    root.mkdir(parents=True, exist_ok=True)
    run_dirs = []
    cfg = None
    for seed in seeds:
        cfg = load_config(TrainConfig, None, DEMO_OVERRIDES + ["--seed", str(seed), "--log.root", str(root / "runs")])
        run_dir, _ = run_training(cfg)
        run_dirs.append(run_dir)
    t = round_robin([f"ppo:{run_dirs[0]}", "simple", "neller"], cfg.env.make_rules(), tournament_pairs, seed=1,
                    max_steps=400)
    summary = summarize_tournament(t, cfg.env.reward, n_boot=200, n_boot_ratings=50)
    tour = root / "tournament"
    write_tournament(summary, tour, plot=False)
    return {"root": root, "runs": str(root / "runs" / "*"), "run_dirs": run_dirs, "tournament": tour}

