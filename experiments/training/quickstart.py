"""The main job of the README: a short PPO training run, then a round robin of the trained agent
and the bots, with the table printed, the trained agent's result against each bot, and the
commands to go on with (more matches, playing it in the browser, the training curves).

    hollywood quickstart [--config configs/ppo_quick.yaml] [--matches 400] [overrides...]
"""

from __future__ import annotations

import argparse
import sys

from experiments.config.loader import ConfigError, load_config
from experiments.config.schema import TrainConfig, validate
from experiments.training.train import run_training

BOTS = ["random", "simple", "neller", "hollywood"]


def main(argv=None) -> int:
    from experiments.config.loader import plain_text

    parser = argparse.ArgumentParser(prog="hollywood quickstart", description=plain_text(__doc__),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="other options: config overrides (--section.key VALUE), as in "
                                            "hollywood train")
    parser.add_argument("--config", default="configs/ppo_quick.yaml",
                        help="the training config (default configs/ppo_quick.yaml)")
    parser.add_argument("--matches", type=int, default=400, help="matches per pairing of the tournament (default 400)")
    args, overrides = parser.parse_known_args(argv)
    if args.matches < 2:
        parser.error(f"--matches must be at least 2 (one duplicate pair), got {args.matches}")
    try:
        cfg = validate(load_config(TrainConfig, args.config, overrides))
    except ConfigError as e:
        print(f"hollywood quickstart: error: {e}", file=sys.stderr)
        return 2
    from experiments.evaluation.tournament import format_tournament, round_robin, summarize_tournament, write_tournament
    from experiments.progress import WholeCounts, progress_bar

    print(f"1/2 training {cfg.algo} with {args.config} ({cfg.total_steps:,} decisions stepped)")
    run_dir, _ = run_training(cfg)
    agents = [f"{cfg.algo}:{run_dir}"] + BOTS
    n_pairs = max(1, (args.matches + 1) // 2)
    k = len(agents)
    print(f"2/2 round robin of the trained agent and {', '.join(BOTS)}: {2 * n_pairs} matches per pairing")
    bar = WholeCounts(progress_bar(total=k * (k - 1) * n_pairs, desc="tournament", unit="match",
                                   disable=not cfg.log.progress))
    try:
        t = round_robin(agents, cfg.env.make_rules(), n_pairs, seed=cfg.seed + 1, progress=bar)
    finally:
        bar.close()
    summary = summarize_tournament(t, cfg.env.reward)
    paths = write_tournament(summary, run_dir / "tournament", plot=True)
    print()
    print(format_tournament(summary))
    print()
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    print()
    print(closing_lines(run_dir, summary))
    return 0


def closing_lines(run_dir, summary: dict) -> str:
    """The end of the quick start: the trained agent's result against each bot, and the commands
    to go on with (they work however the package was installed)."""
    import importlib.util

    rate, low, high = (summary["matrix"][key][0] for key in ("rate", "low", "high"))
    n = 2 * summary["pairs_per_pairing"]
    lines = [f"the trained agent won {rate[j]:.1%} [{low[j]:.1%}, {high[j]:.1%}] of {n} matches against {name}"
             if rate[j] is not None else f"the trained agent against {name}: no match of {n} was decided (max_steps)"
             for j, name in enumerate(summary["agents"]) if j > 0]
    spec = summary["agents"][0]  # algo:run_dir
    lines += ["", f"run folder: {run_dir}",
              f"more matches:        hollywood evaluate {spec} simple --matches 2000",
              f"play it yourself:    hollywood play --opponent {spec}"]
    if importlib.util.find_spec("tensorboard") is not None:
        lines.append(f"look at the curves:  tensorboard --logdir {run_dir.parent}")
    else:
        lines.append(f"look at the curves:  pip install tensorboard, then tensorboard --logdir {run_dir.parent}")
    return "\n".join(lines)

if __name__ == "__main__":
    sys.exit(main())
