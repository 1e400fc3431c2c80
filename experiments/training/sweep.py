"""``hollywood sweep CONFIG --seeds 0-4 [--grid KEY=V1,V2 ...] [--section.key VALUE ...]``

Trains ``CONFIG`` (with the overrides) once for every seed and every point of the grid (the
product of the ``--grid`` lists), as Ray Tune trials. Each trial is an ordinary run
(``hollywood train``): a run folder ``<log.root>/<name>__<seed>__<time>/`` with its config,
TensorBoard events, ``metrics.jsonl`` and checkpoints; the run name gets the grid values
(``ppo_quick-lr=0.001``). A trial takes ``--cpus-per-trial`` CPUs (default 1) and trains with
that many torch threads, so a 2-CPU machine runs two trials at a time.

At the end, for every grid point and every final evaluation metric (``eval/*`` of the last
update), the mean over seeds with its 95% t-interval is printed as a Markdown table and written
to ``summary.md``, ``summary.csv`` and ``summary.json`` in the sweep folder
(``<log.root>/sweeps/<name>__<time>/``, or ``--out``), next to Tune's own files (``tune/``).

Ray: a local Ray is started (``--num-cpus``: its CPUs, default all) unless ``--ray-address``
names a cluster (``auto``: the one of ``ray start --head`` on this machine). Trials use the
local collector (``collector.kind: local``); the sweep is the parallelism.

Examples::

    hollywood sweep configs/ppo_quick.yaml --seeds 0-4 --collector.kind local
    hollywood sweep configs/ppo_quick.yaml --seeds 0-2 --grid ppo.lr=1e-4,3e-4 --grid ppo.ent_coef=0,0.01 \
        --total_steps 200000 --collector.kind local
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import re
import sys
import time
from pathlib import Path

from agents.paths import find_config
from agents.rl.ray_support import RayUnavailable
from experiments.config.loader import ConfigError, apply_overrides, load_config
from experiments.config.schema import TrainConfig


def parse_seeds(text: str) -> list[int]:
    """``"0-4"`` -> [0, 1, 2, 3, 4]; ``"0,3,7"``, ``"0-2,9"`` too (order kept, duplicates dropped)."""
    seeds: list[int] = []
    for part in (p.strip() for p in str(text).split(",")):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise ConfigError(f"--seeds: {part!r} is not a seed or a range like 0-4")
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            raise ConfigError(f"--seeds: empty range {part!r}")
        seeds += [s for s in range(lo, hi + 1) if s not in seeds]
    return seeds


def split_values(text: str) -> list[str]:
    """Split on the commas outside brackets: ``"[32,32],[64,64]"`` -> ``["[32,32]", "[64,64]"]``."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [v.strip() for v in out if v.strip()]


def parse_grid(items: list[str] | None) -> list[tuple[str, list[str]]]:
    grid = []
    for item in items or []:
        key, sep, values = item.partition("=")
        key = key.strip().removeprefix("--")
        if not sep or not key or not split_values(values):
            raise ConfigError(f"--grid expects KEY=V1,V2,..., got {item!r}")
        if key == "seed":
            raise ConfigError("--grid seed=...: give the seeds with --seeds")
        if any(k == key for k, _ in grid):
            raise ConfigError(f"--grid {key} given twice")
        grid.append((key, split_values(values)))
    return grid


def grid_points(grid: list[tuple[str, list[str]]]) -> list[dict[str, str]]:
    """The product of the grid's lists, first key slowest; one empty point without a grid."""
    return [dict(zip([k for k, _ in grid], combo, strict=True)) for combo in itertools.product(*[v for _, v in grid])]


def point_label(point: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.items()) or "(base)"


def run_name(base: str, point: dict[str, str]) -> str:
    if not point:
        return base
    tag = "-".join(f"{k.split('.')[-1]}={v}" for k, v in point.items())
    return f"{base}-" + re.sub(r"[^A-Za-z0-9._=+-]", "_", tag)


def final_eval(run_dir: str | Path) -> dict:
    """The ``eval/*`` metrics of a run's last evaluation (its final update)."""
    from experiments.training.run_writer import read_metrics

    out: dict = {}
    for line in read_metrics(run_dir):
        ev = {k: v for k, v in line.items() if k.startswith("eval/")}
        if ev:
            out = ev
    return out


def _trial(params: dict, spec: dict) -> None:
    """One Tune trial: an ordinary training run; reports its folder and final eval metrics."""
    from ray import tune

    from experiments.training.train import run_training

    point = spec["points"][params["point"]]
    overrides = (list(spec["overrides"]) + [f"--{k}={v}" for k, v in point.items()]
                 + [f"--seed={params['seed']}", f"--log.name={run_name(spec['name'], point)}",
                    f"--log.root={spec['root']}", "--log.progress=false", f"--torch_threads={spec['threads']}"])
    cfg = load_config(TrainConfig, spec["config"], overrides)
    run_dir, _ = run_training(cfg)
    report = getattr(tune, "report", None)
    if report is None:  # Ray < 2.41
        from ray.train import report
    report({"run_dir": str(run_dir), **{k.replace("/", "_"): v for k, v in final_eval(run_dir).items()}})


def summarize_sweep(trials: list[dict]) -> list[dict]:
    """``trials``: ``{"point": label, "seed", "run_dir", "metrics": {eval/...: value}}`` (finished
    ones). One row per (grid point, metric): mean over seeds and 95% t-interval."""
    from experiments.evaluation.stats import t_interval

    rows = []
    points = list(dict.fromkeys(t["point"] for t in trials))
    for point in points:
        mine = sorted((t for t in trials if t["point"] == point), key=lambda t: t["seed"])
        for metric in sorted({k for t in mine for k in t["metrics"]}):
            vals = [t["metrics"][metric] for t in mine if metric in t["metrics"]]
            e = t_interval(vals)
            rows.append({"point": point, "metric": metric, "seeds": len(vals), "mean": e.to_dict()["value"],
                         "low": e.to_dict()["low"], "high": e.to_dict()["high"],
                         "values": vals, "seed_list": [t["seed"] for t in mine if metric in t["metrics"]]})
    return rows


def _num(x, digits=3):
    return "n/a" if x is None else f"{x:.{digits}f}"


def format_summary(rows: list[dict], title: str = "") -> str:
    lines = [f"## {title}", ""] if title else []
    lines += ["final evaluation metrics: mean over seeds, 95% t-interval", "",
              "| grid point | metric | seeds | mean | 95% interval |", "|---|---|---|---|---|"]
    for r in rows:
        ci = "n/a (one seed)" if r["seeds"] < 2 else f"[{_num(r['low'])}, {_num(r['high'])}]"
        lines.append(f"| {r['point']} | {r['metric']} | {r['seeds']} | {_num(r['mean'])} | {ci} |")
    return "\n".join(lines)


def write_summary(out_dir: Path, rows: list[dict], info: dict, text: str) -> dict:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"markdown": out_dir / "summary.md", "csv": out_dir / "summary.csv", "json": out_dir / "summary.json"}
    paths["markdown"].write_text(text + "\n")
    with open(paths["csv"], "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["point", "metric", "seeds", "mean", "low", "high", "values"])
        for r in rows:
            w.writerow([r["point"], r["metric"], r["seeds"], r["mean"], r["low"], r["high"],
                        " ".join(repr(v) for v in r["values"])])
    paths["json"].write_text(json.dumps({**info, "summary": rows}, indent=1))
    return paths


def run_sweep(config: str, seeds: list[int], grid: list[tuple[str, list[str]]], overrides: list[str], *,
              cpus_per_trial: float = 1.0, max_concurrent: int | None = None, ray_address: str | None = None,
              num_cpus: int | None = None, out: str | None = None, verbose: int = 0) -> dict:
    """Run the sweep; returns ``{"rows", "trials", "failed", "paths", "text"}``."""
    from agents.rl.ray_support import init_ray, require_ray

    if any(tok == "--seed" or tok.startswith("--seed=") for tok in overrides):
        raise ConfigError("give the seeds with --seeds, not --seed")
    base = load_config(TrainConfig, config, overrides)
    points = grid_points(grid)
    for point in points:  # every grid point must be a valid config before anything starts
        cfg = apply_overrides(base, [f"--{k}={v}" for k, v in point.items()])
        if cfg.collector.kind != "local":
            raise ConfigError("a sweep runs each trial with the local collector (collector.kind: local); "
                              "the trials are the parallelism")
    if not seeds:
        raise ConfigError("--seeds: no seeds")
    root = Path(base.log.root).resolve()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out_dir = Path(out).resolve() if out else root / "sweeps" / f"{base.log.name}__{stamp}"
    spec = {"config": str(find_config(config).resolve()), "overrides": list(overrides), "points": points,
            "name": base.log.name, "root": str(root), "threads": max(1, int(cpus_per_trial))}

    ray = require_ray()
    from ray import tune

    run_config = getattr(tune, "RunConfig", None)
    if run_config is None:  # Ray < 2.41
        from ray.train import RunConfig as run_config
    owns = init_ray(ray_address, num_cpus)
    try:
        trainable = tune.with_resources(tune.with_parameters(_trial, spec=spec), {"cpu": cpus_per_trial})
        tuner = tune.Tuner(
            trainable,
            param_space={"point": tune.grid_search(list(range(len(points)))), "seed": tune.grid_search(list(seeds))},
            tune_config=tune.TuneConfig(max_concurrent_trials=max_concurrent),
            run_config=run_config(name="tune", storage_path=str(out_dir), verbose=verbose))
        results = tuner.fit()
    finally:
        if owns:
            ray.shutdown()

    trials, failed = [], []
    for r in results:
        point, seed = points[r.config["point"]], r.config["seed"]
        run_dir = (r.metrics or {}).get("run_dir")
        if r.error is not None or not run_dir:
            failed.append({"point": point_label(point), "seed": seed, "error": str(r.error)})
            continue
        trials.append({"point": point_label(point), "seed": seed, "run_dir": run_dir, "metrics": final_eval(run_dir)})
    order = {point_label(p): i for i, p in enumerate(points)}
    trials.sort(key=lambda t: (order[t["point"]], t["seed"]))
    rows = summarize_sweep(trials)
    title = f"Sweep of {config}: {len(points)} grid point(s) x {len(seeds)} seed(s)"
    text = format_summary(rows, title)
    info = {"config": spec["config"], "overrides": overrides, "seeds": list(seeds), "grid": [list(g) for g in grid],
            "trials": trials, "failed": failed}
    paths = write_summary(out_dir, rows, info, text)
    return {"rows": rows, "trials": trials, "failed": failed, "paths": paths, "text": text, "out_dir": out_dir}


def sweep_main(argv=None) -> int:
    from experiments.config.loader import plain_text

    parser = argparse.ArgumentParser(prog="hollywood sweep", description=plain_text(__doc__), allow_abbrev=False,
                                     epilog="overrides and --grid take the keys of hollywood train --help (--section.key).",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", help="YAML config (configs/*.yaml)")
    parser.add_argument("--seeds", required=True, help="seeds: 0-4, 0,3,7 or 0-2,9")
    parser.add_argument("--grid", action="append", metavar="KEY=V1,V2",
                        help="a config key and its values (repeatable: the grid is the product)")
    parser.add_argument("--cpus-per-trial", type=float, default=1.0,
                        help="CPUs (and torch threads) per trial (default 1)")
    parser.add_argument("--max-concurrent", type=int, default=None, help="trials at a time (default: as many as fit)")
    parser.add_argument("--ray-address", default=None, help="join this Ray cluster (auto: `ray start --head`); "
                                                            "default: start a local Ray")
    parser.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray (default: all)")
    parser.add_argument("--out", default=None, help="sweep folder (default <log.root>/sweeps/<name>__<time>)")
    parser.add_argument("-v", "--verbose", type=int, default=0, help="Tune's verbosity 0-3 (default 0)")
    args, overrides = parser.parse_known_args(argv)
    try:
        res = run_sweep(args.config, parse_seeds(args.seeds), parse_grid(args.grid), overrides,
                        cpus_per_trial=args.cpus_per_trial, max_concurrent=args.max_concurrent,
                        ray_address=args.ray_address, num_cpus=args.num_cpus, out=args.out, verbose=args.verbose)
    except (ConfigError, FileNotFoundError, RayUnavailable) as e:
        print(f"hollywood sweep: {e}", file=sys.stderr)
        return 2
    print(res["text"])
    print()
    for t in res["trials"]:
        print(f"run folder ({t['point']}, seed {t['seed']}): {t['run_dir']}")
    for f in res["failed"]:
        print(f"FAILED ({f['point']}, seed {f['seed']}): {f['error']}", file=sys.stderr)
    for kind, path in res["paths"].items():
        print(f"{kind}: {path}")
    print(f"tensorboard --logdir {Path(res['trials'][0]['run_dir']).parent if res['trials'] else res['out_dir']}")
    return 1 if res["failed"] else 0
