"""Make a published result: train a config for one or more seeds (or reuse run folders), evaluate
each trained agent against bots with duplicate deals, play a round robin with the bots, and write
the tables and plots docs/results.md shows into one folder.

    hollywood publish configs/ppo_hollywood.yaml --seeds 0 --out results/ppo_hollywood
    hollywood publish configs/ppo_hollywood.yaml --runs runs/ppo_hollywood__0__<time> \\
        --out results/ppo_hollywood          # reuse finished runs instead of training

Writes ``results.md`` (head-to-head tables and the tournament), ``curves.png`` (training curves,
mean and 95% interval over seeds), ``eval_win_rates.png`` and ``tournament/`` (CSV, JSON,
heatmap). Evaluations use seeds of their own, so they never replay the training deals.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EVAL_SEED = 20261129
CURVE_TAGS = ["charts/episodic_return", "eval/points_per_hand_vs_simple", "hollywood/knock_deadwood",
              "hollywood/gin_rate", "losses/entropy", "charts/SPS"]


def main(argv=None) -> int:
    from experiments.config.loader import ConfigError, load_config, plain_text
    from experiments.config.schema import TrainConfig, validate

    parser = argparse.ArgumentParser(prog="hollywood publish", description=plain_text(__doc__),
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="other options: config overrides (--section.key VALUE), as in "
                                            "hollywood train")
    parser.add_argument("config", help="YAML config (configs/*.yaml) of the agent to train or of the --runs")
    parser.add_argument("--seeds", default="0", help="seeds to train, e.g. 0 or 0-2 or 0,3")
    parser.add_argument("--runs", nargs="*", help="finished run folders to use instead of training")
    parser.add_argument("--opponents", nargs="+", default=["random", "simple", "hollywood"],
                        help="bots for the head-to-head evaluations")
    parser.add_argument("--matches", type=int, default=2000, help="matches per head-to-head")
    parser.add_argument("--tournament", nargs="*", default=["random", "simple", "neller", "hollywood"],
                        help="bots (and other agents) in the round robin with the trained agents")
    parser.add_argument("--tournament-matches", type=int, default=400, help="matches per pairing")
    parser.add_argument("--checkpoint", default="best", choices=["best", "latest"])
    parser.add_argument("--out", required=True, help="folder for results.md, the plots and tournament/")
    args, overrides = parser.parse_known_args(argv)
    # every input checked before anything is trained or played
    try:
        cfg = load_config(TrainConfig, args.config, overrides)
        if not args.runs:
            validate(cfg)  # what train checks before it makes a run folder
        seeds = _parse_seeds(args.seeds)
    except (ConfigError, ValueError) as e:
        parser.error(str(e))
    if not seeds and not args.runs:
        parser.error(f"--seeds {args.seeds!r} names no seed")
    for name, n in (("--matches", args.matches), ("--tournament-matches", args.tournament_matches)):
        if n < 2:
            parser.error(f"{name} must be at least 2 (one duplicate pair), got {n}")
    for run in args.runs or []:
        if not (Path(run) / "checkpoints" / f"{args.checkpoint}.pt").is_file():
            parser.error(f"--runs {run}: no checkpoints/{args.checkpoint}.pt (a run folder of hollywood train)")
    if Path(args.out).exists() and not Path(args.out).is_dir():
        parser.error(f"--out {args.out}: exists and is not a folder")
    from agents.registry import make_agent

    for spec in [*args.opponents, *args.tournament]:
        try:
            make_agent(spec, cfg.env.make_rules(), seed=0)
        except (ValueError, OSError) as e:
            parser.error(str(e))
    try:
        import matplotlib
    except ImportError:
        parser.error("the plots need matplotlib: pip install 'hollywood-gin-rl[plot]'")
    import numpy as np

    matplotlib.use("Agg")
    from experiments.analysis import notebooks as analysis
    from experiments.evaluation.head_to_head import evaluate
    from experiments.evaluation.stats import Estimate
    from experiments.evaluation.tournament import format_tournament, round_robin, summarize_tournament, write_tournament
    from experiments.training.train import run_training

    rules = cfg.env.make_rules()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.runs:
        run_dirs = [Path(r) for r in args.runs]
    else:
        run_dirs = []
        for seed in seeds:
            run_dir, _ = run_training(load_config(TrainConfig, args.config, overrides + ["--seed", str(seed)]))
            run_dirs.append(run_dir)
    agents = [f"{cfg.algo}:{d / 'checkpoints' / (args.checkpoint + '.pt')}" for d in run_dirs]

    lines = [f"# {Path(args.config).stem}", "",
             f"config `{args.config}`, runs: " + ", ".join(f"`{d}`" for d in run_dirs), "",
             f"## Head-to-head ({args.matches} matches in duplicate pairs, evaluation seed {EVAL_SEED})", "",
             "| agent | opponent | match win rate [95% CI] | by duplicate pair | hand win rate | points per hand |",
             "|---|---|---|---|---|---|"]
    for agent, run_dir in zip(agents, run_dirs, strict=True):
        for opp in args.opponents:
            s, _ = evaluate(agent, opp, rules, matches=args.matches, seed=EVAL_SEED, reward=cfg.env.reward)
            m = {k: Estimate(**{f: (np.nan if v[f] is None else v[f]) for f in ("value", "low", "high", "n")})
                 for k, v in s["metrics"].items()}
            lines.append(f"| {run_dir.name} | {opp} | {m['match_win_rate'].fmt(pct=True)} | "
                         f"{m['match_score_by_pair'].fmt(pct=True)} | {m['hand_win_rate'].fmt(pct=True)} | "
                         f"{m['points_per_hand'].fmt()} |")
            print(lines[-1], flush=True)

    if args.tournament:
        pool = agents + [a for a in args.tournament if a not in agents]
        t = round_robin(pool, rules, max(1, (args.tournament_matches + 1) // 2), seed=EVAL_SEED)
        summary = summarize_tournament(t, cfg.env.reward)
        write_tournament(summary, out / "tournament", plot=True)
        lines += ["", f"## Round robin ({args.tournament_matches} matches per pairing)", "", format_tournament(summary)]

    runs = analysis.load_runs([str(d) for d in run_dirs])
    tags = [t for t in CURVE_TAGS if t in analysis.available_tags(runs)]
    analysis.plot_curves(runs, tags).savefig(out / "curves.png", dpi=110)
    try:
        analysis.plot_eval_win_rates(runs).savefig(out / "eval_win_rates.png", dpi=110)
    except ValueError:
        pass
    lines += ["", "![training curves](curves.png)", "", "![evaluation win rates](eval_win_rates.png)", ""]
    (out / "results.md").write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"\nwritten: {out / 'results.md'}")
    return 0


def _parse_seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        try:
            if "-" in part:
                a, b = part.split("-")
                seeds += list(range(int(a), int(b) + 1))
            elif part:
                seeds.append(int(part))
        except ValueError:
            raise ValueError(f"--seeds: {text!r} is not a list of seeds (e.g. 0, 0-2 or 0,3)") from None
    return seeds


if __name__ == "__main__":
    sys.exit(main())
