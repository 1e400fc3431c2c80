"""``hollywood train CONFIG [--section.key VALUE ...] [--resume RUN_DIR_OR_CKPT]`` and
``hollywood reproduce RUN_DIR``.

``train`` resolves the config (YAML + overrides), creates ``runs/<name>__<seed>__<time>/`` and
trains; ``--resume`` continues a run in its own folder from its ``latest.pt`` (with the saved
config; overrides still apply). ``reproduce`` re-runs a run folder's saved ``config.yaml`` in a new
folder and compares the metrics, point by point, with the original's.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from experiments.config import ConfigError, load_config
from experiments.ray_tools import RayUnavailable
from experiments.runlog import RunLogger, new_run_dir, read_metrics
from experiments.schema import TrainConfig


def run_training(cfg: TrainConfig, run_dir: Path | None = None, resume_from: Path | None = None,
                 on_update=None) -> tuple[Path, dict]:
    """Train with ``cfg``; returns the run folder and the final metrics. ``on_update(update,
    collector)``: called after every PPO update (tests and tooling)."""
    from tqdm.auto import tqdm

    if run_dir is None:
        run_dir = new_run_dir(cfg.log.root, cfg.log.name, cfg.seed)
    logger = RunLogger(run_dir, cfg, resume=resume_from is not None)
    if cfg.algo == "ppo":
        from agents.ppo import train
        per_update = cfg.ppo.num_games * cfg.ppo.num_steps
    elif cfg.algo == "dqn":  # an update: num_steps batch steps of num_games games, then gradient steps
        from agents.dqn import train
        per_update = cfg.dqn.num_games * cfg.dqn.num_steps
    else:  # pragma: no cover - the schema rejects other values
        raise ConfigError(f"unknown algo {cfg.algo!r}")
    total_updates = max(1, cfg.total_steps // per_update)
    bar = tqdm(total=total_updates, desc=f"{cfg.algo} {run_dir.name}", unit="update",
               disable=not cfg.log.progress, dynamic_ncols=True)
    extra = {} if on_update is None else {"on_update": on_update}
    if extra and cfg.algo != "ppo":
        raise ConfigError("on_update is a hook of the PPO trainer")
    try:
        metrics = train(cfg, run_dir, logger, resume_from=resume_from, progress=bar, **extra)
        logger.hparams({k: v for k, v in metrics.items() if k.startswith("eval/")})
    finally:
        bar.close()
        logger.close()
    return run_dir, metrics


def train_main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="hollywood train", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", nargs="?", help="YAML config (configs/*.yaml); omit with --resume")
    parser.add_argument("--resume", help="a run folder or checkpoint to continue")
    args, overrides = parser.parse_known_args(argv)
    resume = Path(args.resume) if args.resume else None
    run_dir = None
    try:
        if resume is not None:
            run_dir = resume if resume.is_dir() else resume.parent.parent
            if not (run_dir / "config.yaml").is_file():
                raise ConfigError(f"--resume: {args.resume} is not a run folder (no config.yaml)")
            cfg = load_config(TrainConfig, run_dir / "config.yaml", overrides)
            ckpt = resume if resume.is_file() else run_dir / "checkpoints" / "latest.pt"
            if not ckpt.is_file():
                raise ConfigError(f"--resume: no checkpoint at {ckpt}")
            out, metrics = run_training(cfg, run_dir, resume_from=ckpt)
        else:
            if args.config is None:
                parser.error("give a config file (or --resume RUN_DIR)")
            cfg = load_config(TrainConfig, args.config, overrides)
            run_dir = new_run_dir(cfg.log.root, cfg.log.name, cfg.seed)
            out, metrics = run_training(cfg, run_dir)
    except (ConfigError, FileNotFoundError, RayUnavailable) as e:
        print(f"hollywood train: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if run_dir is not None and (run_dir / "checkpoints" / "latest.pt").is_file():
            print(f"\nhollywood train: interrupted; continue with `hollywood train --resume {run_dir}`",
                  file=sys.stderr)
        else:
            print("\nhollywood train: interrupted", file=sys.stderr)
        return 130
    print(f"run folder: {out}")
    print(f"tensorboard --logdir {out.parent}")
    return 0


def compare_metrics(a: list[dict], b: list[dict], rel_tol: float = 0.0) -> list[str]:
    """Differences between two metrics logs (empty when they match)."""
    diffs = []
    if len(a) != len(b):
        diffs.append(f"{len(a)} logged points vs {len(b)}")
    for x, y in zip(a, b):
        keys = sorted((set(x) | set(y)) - {"charts/SPS", "charts/SPS_collect"})
        for k in keys:
            vx, vy = x.get(k), y.get(k)
            if vx is None or vy is None or not math.isclose(vx, vy, rel_tol=rel_tol, abs_tol=0.0 if rel_tol == 0 else 1e-9):
                diffs.append(f"update {x.get('update')}: {k}: {vx} vs {vy}")
    return diffs


def reproduce_main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="hollywood reproduce",
                                     description="Re-run a run folder's config and compare its metrics with the original's.")
    parser.add_argument("run_dir")
    parser.add_argument("--rel-tol", type=float, default=0.0, help="relative tolerance (default: exact)")
    args = parser.parse_args(argv)
    src = Path(args.run_dir)
    if not (src / "config.yaml").is_file():
        print(f"hollywood reproduce: {src} is not a run folder (no config.yaml)", file=sys.stderr)
        return 2
    cfg = load_config(TrainConfig, src / "config.yaml")
    out, _ = run_training(cfg)
    diffs = compare_metrics(read_metrics(src), read_metrics(out), args.rel_tol)
    if diffs:
        print(f"reproduction in {out} DIFFERS from {src} ({len(diffs)} differences):")
        for d in diffs[:20]:
            print("  " + d)
        return 1
    print(f"reproduction in {out} matches {src}: {len(read_metrics(src))} logged points identical (SPS excluded)")
    return 0
