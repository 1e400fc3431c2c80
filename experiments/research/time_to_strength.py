"""Time to strength: a training run's match win rate against a bot over the CPU-minutes it took.

    python -m experiments.research.time_to_strength runs/ppo_hollywood__0__<time> --label flagship \\
        --point "previous config=50:0.583:2000" --bot simple --cores 2 \\
        --out results/ppo_hollywood/time_to_strength.png

Reads each run folder's TensorBoard events: every ``eval/win_rate_vs_<bot>`` point (the run's
periodic evaluation, ``eval.pairs`` duplicate pairs, so ``2 * eval.pairs`` matches) at the wall
time it was logged. The clock starts when the run's first update started (the wall time of the
first logged update minus that update's own duration, ``learner decisions / charts/SPS``), and
CPU-minutes are wall minutes times ``--cores`` (the cores the run had to itself). Evaluations
and checkpoints are inside the clock: this is the time a user waits.

``--point LABEL=CPU_MINUTES:WIN_RATE:MATCHES`` adds a measured point of another run (for example
the final evaluation of a shipped model, whose run folder is gone). Prints one table row per
point (95% Wilson interval on the matches played) and, with ``--out``, draws the curves.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from experiments.evaluation.stats import wilson  # noqa: E402


def eval_points(run: Path, bot: str, cores: float) -> list[tuple[float, float, int]]:
    """``(cpu_minutes, win_rate, matches)`` of every evaluation against ``bot`` in ``run``."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run), size_guidance={"scalars": 0})
    acc.Reload()
    tag = f"eval/win_rate_vs_{bot}"
    if tag not in acc.Tags().get("scalars", []):
        raise SystemExit(f"{run}: no {tag} in its TensorBoard events (was {bot} in eval.bots?)")
    if "charts/SPS" not in acc.Tags().get("scalars", []):
        raise SystemExit(f"{run}: no charts/SPS in its TensorBoard events: not a run folder of hollywood train?")
    first = acc.Scalars("charts/SPS")[0]
    first_step = first.step
    start = first.wall_time - first_step / max(first.value, 1e-9)
    pairs = _eval_pairs(run)
    return [((e.wall_time - start) / 60.0 * cores, float(e.value), 2 * pairs) for e in acc.Scalars(tag)]


def _eval_pairs(run: Path) -> int:
    """``eval.pairs`` of the run's resolved config (config.yaml, written by ``hollywood train``)."""
    import yaml

    path = run / "config.yaml"
    if not path.is_file():
        raise SystemExit(f"{run}: no config.yaml: not a run folder of hollywood train")
    cfg = yaml.safe_load(path.read_text())
    return int(cfg["eval"]["pairs"])


def parse_point(text: str) -> tuple[str, tuple[float, float, int]]:
    label, sep, rest = text.rpartition("=")
    parts = rest.split(":")
    if not sep or not label or len(parts) != 3:
        raise SystemExit(f"--point must be LABEL=CPU_MINUTES:WIN_RATE:MATCHES, got {text!r}")
    try:
        minutes, rate, matches = float(parts[0]), float(parts[1]), int(parts[2])
    except ValueError:
        raise SystemExit(f"--point must be LABEL=CPU_MINUTES:WIN_RATE:MATCHES with numbers, got {text!r}") from None
    if not (minutes >= 0 and 0 <= rate <= 1 and matches >= 1):
        raise SystemExit(f"--point {text!r}: minutes >= 0, win rate in [0, 1], matches >= 1")
    return label, (minutes, rate, matches)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="*", type=Path, help="run folders of hollywood train")
    ap.add_argument("--label", action="append", default=[], help="a label per run (default: the folder name)")
    ap.add_argument("--point", action="append", default=[], help="LABEL=CPU_MINUTES:WIN_RATE:MATCHES")
    ap.add_argument("--bot", default="simple", help="the evaluation opponent (default simple)")
    ap.add_argument("--cores", type=float, default=2.0, help="cores the runs had (default 2)")
    ap.add_argument("--out", type=Path, help="a .png for the figure")
    ap.add_argument("--json", type=Path, help="write the points as JSON here")
    args = ap.parse_args(argv)
    if args.label and len(args.label) != len(args.runs):
        raise SystemExit(f"give one --label per run ({len(args.runs)} runs, {len(args.label)} labels)")
    series: dict[str, list[tuple[float, float, int]]] = {}
    for i, run in enumerate(args.runs):
        if not run.is_dir():
            raise SystemExit(f"{run}: not a run folder")
        series[args.label[i] if args.label else run.name] = eval_points(run, args.bot, args.cores)
    for text in args.point:
        label, point = parse_point(text)
        series.setdefault(label, []).append(point)
    if not series:
        raise SystemExit("nothing to show: give run folders or --point")
    print(f"| run | CPU-minutes | match win rate vs {args.bot} [95% CI] | matches |")
    print("|---|---:|---|---:|")
    for label, points in series.items():
        for minutes, rate, n in points:
            e = wilson(round(rate * n), n)
            lo, hi = e.low, e.high
            print(f"| {label} | {minutes:.0f} | {rate:.1%} [{lo:.1%}, {hi:.1%}] | {n} |")
    if args.json:
        args.json.write_text(json.dumps({k: [dict(cpu_minutes=m, win_rate=r, matches=n) for m, r, n in v]
                                         for k, v in series.items()}, indent=1))
    if args.out:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.8))
        for label, points in series.items():
            xs = [p[0] for p in points]
            ys = [p[1] for p in points]
            ci = [(e.low, e.high) for e in (wilson(round(r * n), n) for _, r, n in points)]
            yerr = [[y - lo for y, (lo, _) in zip(ys, ci, strict=True)], [hi - y for y, (_, hi) in zip(ys, ci, strict=True)]]
            ax.errorbar(xs, ys, yerr=yerr, marker="o", ms=3, capsize=2, label=label, linestyle="-" if len(points) > 1 else "none")
        ax.axhline(0.5, color="grey", linestyle=":", linewidth=1)
        ax.set_xlabel(f"CPU-minutes of training ({args.cores:g} cores x wall minutes)")
        ax.set_ylabel(f"match win rate vs {args.bot}")
        ax.set_ylim(0.0, 1.0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.out, dpi=120)
        print(f"figure: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
