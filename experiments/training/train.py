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
import signal
import sys
from pathlib import Path

from agents.rl.ray_support import RayUnavailable
from agents.rl.stopping import TrainingStopped
from experiments.config.loader import ConfigError, load_config
from experiments.config.schema import TrainConfig, validate
from experiments.training.run_writer import RunLogger, new_run_dir, read_metrics


def run_training(cfg: TrainConfig, run_dir: Path | None = None, resume_from: Path | None = None,
                 on_update=None) -> tuple[Path, dict]:
    """Train with ``cfg``; returns the run folder and the final metrics. ``on_update(update,
    collector)``: called after every update (tests and tooling; both algorithms pass their collector)."""
    from experiments.progress import progress_bar as tqdm

    if run_dir is None:
        run_dir = new_run_dir(cfg.log.root, cfg.log.name, cfg.seed)
    logger = RunLogger(run_dir, cfg, resume=resume_from is not None)
    if cfg.algo == "ppo":
        from agents.rl.ppo import train
        per_update = cfg.ppo.num_games * cfg.ppo.num_steps
    elif cfg.algo == "dqn":  # an update: num_steps batch steps of num_games games, then gradient steps
        from agents.rl.dqn import train
        per_update = cfg.dqn.num_games * cfg.dqn.num_steps
    else:  # pragma: no cover - the schema rejects other values
        raise ConfigError(f"unknown algo {cfg.algo!r}")
    total_updates = max(1, cfg.total_steps // per_update)
    bar = tqdm(total=total_updates, desc=f"{cfg.algo} {run_dir.name}", unit="update",
               disable=not cfg.log.progress, dynamic_ncols=True)
    extra = {} if on_update is None else {"on_update": on_update}
    if cfg.league.exploiter_every:
        from experiments.training.best_response import league_exploiter

        extra["exploiter"] = league_exploiter(cfg, run_dir, run_training)
    try:
        metrics = train(cfg, run_dir, logger, resume_from=resume_from, progress=bar, **extra)
        logger.hparams({k: v for k, v in metrics.items() if k.startswith("eval/")})
    finally:
        bar.close()
        logger.close()
    return run_dir, metrics


def _train_parser() -> argparse.ArgumentParser:
    """For ``--help`` only: :func:`split_train_argv` reads the arguments."""
    from experiments.config.loader import describe_keys, plain_text

    parser = argparse.ArgumentParser(
        prog="hollywood train", description=plain_text(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="hollywood train [CONFIG | --resume RUN] [--section.key VALUE ...]",
        epilog="overrides: any config key as --key VALUE or --key=VALUE, before or after CONFIG, e.g.\n"
               "  --ppo.lr 1e-4 --seed 1 --league.bots random,simple --env.rule_options '{knock_limit: 8}'\n"
               "The whole config is checked before the run folder is made. Only the section of the\n"
               "config's algo (ppo or dqn) is used.\n\n"
               "config keys and their defaults (what each means: experiments/config/schema.py, agents/rl/ppo.py,\n"
               "agents/rl/dqn.py):\n" + describe_keys(TrainConfig).replace("%", "%%"))
    parser.add_argument("config", nargs="?", help="YAML config (configs/*.yaml); omit with --resume")
    parser.add_argument("--resume", metavar="RUN", help="a run folder (or its checkpoints/latest.pt) to continue")
    return parser


def split_train_argv(argv: list[str]) -> tuple[str | None, str | None, list[str], bool]:
    """``hollywood train`` arguments -> ``(config, resume, overrides, help)``.

    Overrides are ``--key VALUE`` / ``--key=VALUE`` pairs anywhere: the token after ``--key`` is
    its value even when it starts with ``-`` (``--ppo.lr -1``, then rejected by the config's
    checks), unless it is itself an option (``--seed``); the other tokens are the config path."""
    positional: list[str] = []
    overrides: list[str] = []
    resume = None
    help_ = False
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok in ("-h", "--help"):
            help_ = True
            i += 1
        elif tok == "--":
            positional += argv[i + 1:]
            break
        elif tok.startswith("--") and len(tok) > 2:
            key, eq, value = tok.partition("=")
            if not eq:
                if i + 1 >= len(argv) or (argv[i + 1].startswith("--") and len(argv[i + 1]) > 2):
                    raise ConfigError(f"{key} needs a value, e.g. {key} VALUE or {key}=VALUE")
                value = argv[i + 1]
                i += 1
            i += 1
            if key == "--resume":
                if resume is not None:
                    raise ConfigError(f"--resume given twice ({resume!r} and {value!r})")
                if not value:
                    raise ConfigError("--resume needs a value: a run folder or its checkpoints/latest.pt")
                resume = value
            else:
                overrides += [f"{key}={value}"]
        elif tok.startswith("-") and len(tok) > 1:
            raise ConfigError(f"unknown option {tok!r}: expected an override like --section.key VALUE")
        else:
            positional.append(tok)
            i += 1
    if len(positional) > 1:
        raise ConfigError(f"give one config file, got {len(positional)}: {', '.join(positional)} "
                          f"(an override is --key VALUE)")
    return (positional[0] if positional else None), resume, overrides, help_


def _check_resume_checkpoint(ckpt: Path, algo: str) -> None:
    """ConfigError unless ``ckpt`` reads as a checkpoint of ``algo`` (before anything is written)."""
    import pickle

    from agents.checkpoint import load_checkpoint

    try:
        load_checkpoint(ckpt, expect_algo=algo, need_train_state=True)
    except (ValueError, OSError, EOFError, RuntimeError, pickle.UnpicklingError) as e:
        raise ConfigError(f"--resume: cannot continue from {ckpt}: {type(e).__name__}: {e}") from None


def train_main(argv=None) -> int:
    run_dir = None
    try:
        config, resume_arg, overrides, help_ = split_train_argv(list(sys.argv[1:] if argv is None else argv))
        if help_:
            _train_parser().print_help()
            return 0
        resume = Path(resume_arg) if resume_arg else None
        if resume is not None:
            if config is not None:
                raise ConfigError(f"--resume {resume_arg} continues with the run's own config.yaml; drop {config!r} "
                                  f"(overrides still apply)")
            run_dir = resume if resume.is_dir() else resume.parent.parent
            if not (run_dir / "config.yaml").is_file():
                run_dir = None
                raise ConfigError(f"--resume: {resume_arg} is not a run folder (no config.yaml) nor a checkpoint in one")
            cfg = validate(load_config(TrainConfig, run_dir / "config.yaml", overrides))
            ckpt = resume if resume.is_file() else run_dir / "checkpoints" / "latest.pt"
            if not ckpt.is_file():
                raise ConfigError(f"--resume: no checkpoint at {ckpt}")
            _check_resume_checkpoint(ckpt, cfg.algo)
            out, metrics = run_training(cfg, run_dir, resume_from=ckpt)
        else:
            if config is None:
                raise ConfigError("give a config file (hollywood train CONFIG [--key VALUE ...]) or --resume RUN")
            cfg = validate(load_config(TrainConfig, config, overrides))
            run_dir = new_run_dir(cfg.log.root, cfg.log.name, cfg.seed)
            out, metrics = run_training(cfg, run_dir)
    except (ConfigError, FileNotFoundError, RayUnavailable) as e:
        print(f"hollywood train: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:  # agents.rl.stopping: a signal, or a second one that stopped at once
        signum = getattr(e, "signum", signal.SIGINT)
        if isinstance(e, TrainingStopped):
            print(f"\nhollywood train: stopped by {signal.Signals(signum).name} after update {e.update} "
                  f"(saved in {e.checkpoint}); continue with `hollywood train --resume {run_dir}`", file=sys.stderr)
        elif run_dir is not None and (run_dir / "checkpoints" / "latest.pt").is_file():
            print(f"\nhollywood train: interrupted; continue from the last checkpoint with "
                  f"`hollywood train --resume {run_dir}`", file=sys.stderr)
        else:
            print("\nhollywood train: interrupted before the first checkpoint", file=sys.stderr)
        return 128 + int(signum)
    print(f"run folder: {out}")
    print(f"tensorboard --logdir {out.parent}")
    return 0


def compare_metrics(a: list[dict], b: list[dict], rel_tol: float = 0.0) -> list[str]:
    """Differences between two metrics logs (empty when they match)."""
    diffs = []
    if len(a) != len(b):
        diffs.append(f"{len(a)} logged points vs {len(b)}")
    for x, y in zip(a, b, strict=False):
        keys = sorted((set(x) | set(y)) - {"charts/SPS", "charts/SPS_collect"})
        for k in keys:
            vx, vy = x.get(k), y.get(k)
            if vx is None or vy is None or not math.isclose(vx, vy, rel_tol=rel_tol, abs_tol=0.0 if rel_tol == 0 else 1e-9):
                diffs.append(f"update {x.get('update')}: {k}: {vx} vs {vy}")
    return diffs


def reproduce_main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="hollywood reproduce",
                                     description="Re-run a run folder's config (its config.yaml) in a new run folder and "
                                                 "compare its metrics, point by point, with the original's (exit 1 if "
                                                 "they differ).")
    parser.add_argument("run_dir", help="a run folder of hollywood train (runs/<name>__<seed>__<time>), or a shipped "
                                        "model (models/NAME.pt): retrain its config and check the new model's "
                                        "figures against the published 95%% intervals of its card "
                                        "(experiments/release/ship.py)")
    parser.add_argument("--rel-tol", type=float, default=0.0, help="relative tolerance (default: exact)")
    args = parser.parse_args(argv)
    if not (math.isfinite(args.rel_tol) and args.rel_tol >= 0):
        print(f"hollywood reproduce: --rel-tol must be a finite number >= 0, got {args.rel_tol}", file=sys.stderr)
        return 2
    src = Path(args.run_dir)
    if not (src / "config.yaml").is_file():
        print(f"hollywood reproduce: {src} is not a run folder (no config.yaml)", file=sys.stderr)
        return 2
    try:
        cfg = validate(load_config(TrainConfig, src / "config.yaml"))
    except ConfigError as e:  # the whole config is checked before the new run folder is made
        print(f"hollywood reproduce: {e}", file=sys.stderr)
        return 2
    out, _ = run_training(cfg)
    diffs = compare_metrics(read_metrics(src), read_metrics(out), args.rel_tol)
    if diffs:
        print(f"reproduction in {out} DIFFERS from {src} ({len(diffs)} differences):")
        for d in diffs[:20]:
            print("  " + d)
        return 1
    print(f"reproduction in {out} matches {src}: {len(read_metrics(src))} logged points identical (SPS excluded)")
    return 0
