"""``hollywood ship RUN [RUN ...] NAME``: turn finished training runs into a shipped agent in ``models/``.

    hollywood ship runs/ppo_hollywood__0__<time> ppo_hollywood --opponents simple hollywood --matches 2000
    hollywood ship runs/ppo_simple__0__<time> ppo_gin_rummy_simple --hands 2000 --opponents simple
    hollywood ship runs/ppo_gin_rummy_wide__0__<time> runs/ppo_gin_rummy_wide__1__<time> ppo_gin_rummy

Writes two files:

* ``models/NAME.pt``: the network of the run's checkpoint (``--checkpoint latest`` by default, or
  ``best``) without its training state: the inference fields of :mod:`agents.checkpoint` (model,
  sizes, features version, rules, the resolved config, updates, learner decisions) plus ``card``,
  the facts of the model card below as plain data. Read weights-only like every checkpoint, so it
  loads as ``ppo:models/NAME.pt`` / ``dqn:models/NAME.pt`` and, for the names registered in
  :mod:`agents.registry` (``ppo-hollywood``...), by that short name.
* ``models/NAME.md``: the model card: what the agent is, how to load it, the config it was
  trained with, the commit, training time and hardware, and its evaluation against each
  ``--opponents`` agent (duplicate deals, 95% intervals, ``--seed`` never used in training), with
  the commands that made each figure and the commands that reproduce the model.

Several PPO runs of one game ship as one agent: the first run's network, the others' in the
checkpoint field ``ensemble``, played together on the mean of their log-probabilities
(:class:`agents.rl.policies.PPOEnsemblePolicy`). A RUN may also be a one-network model file
written by this command: its network, with the run facts of its card.

The training time is the run folder's start (the time stamp in its name) to the checkpoint's
write time: the wall time of the run, evaluations and gates included (an interrupted and resumed
run also counts its pause).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
from pathlib import Path

from experiments import arguments
from hollywood_env.rules import Rules

EVAL_SEED = 20261129  # the published evaluation seed (experiments/release/publish.py uses the same)


def cpu_description() -> str:
    """The CPU model and the cores this process may use (Linux ``/proc/cpuinfo``; else platform)."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model}, {cores} cores"


def run_wall_time(run_dir: Path, ckpt_path: Path) -> float | None:
    """Seconds from the run folder's time stamp (``<name>__<seed>__YYYYmmdd-HHMMSS``) to the
    checkpoint's modification time; None when the folder name has no stamp."""
    stamp = run_dir.name.split("__")[-1].split("-")
    if len(stamp) < 2:
        return None
    try:
        start = datetime.datetime.strptime(f"{stamp[0]}-{stamp[1]}", "%Y%m%d-%H%M%S").timestamp()
    except ValueError:
        return None
    return max(0.0, ckpt_path.stat().st_mtime - start)


def short_names(name: str) -> list[str]:
    """The registered short names that load ``models/NAME.pt``."""
    from agents.registry import SHIPPED_MODELS

    return [k for k, v in SHIPPED_MODELS.items() if v == name]


#: the fields of one network that a shipped model keeps from its run's checkpoint
NETWORK_FIELDS = ("algo", "features", "model", "obs_dim", "num_actions", "hidden", "critic_inputs", "encoder",
                  "belief_input", "rules", "config", "update", "global_step")


#: what a card says of the run that trained a network, besides its seed
RUN_FACTS = ("source_run", "checkpoint", "git_commit", "package_version", "training_seconds")


def _run_facts(run_dir: Path, ckpt_path: Path, cfg: dict) -> dict:
    """What a card says of the run that trained one network: its folder, commit, seed and time."""
    meta = {}
    if (run_dir / "meta.yaml").is_file():
        import yaml

        meta = yaml.safe_load((run_dir / "meta.yaml").read_text()) or {}
    return {"source_run": run_dir.name, "checkpoint": ckpt_path.stem, "seed": int(cfg.get("seed", 0)),
            "git_commit": str(meta.get("git_commit", "unknown")), "package_version": str(meta.get("package_version", "")),
            "training_seconds": run_wall_time(run_dir, ckpt_path)}


def main(argv=None) -> int:
    from experiments.config.loader import plain_text

    parser = argparse.ArgumentParser(prog="hollywood ship", description=plain_text(__doc__),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="a run folder of hollywood train (or a one-network model file written by hollywood "
                             "ship); several PPO runs of one game ship as one agent (an ensemble: the mean of their "
                             "log-probabilities)")
    parser.add_argument("name", metavar="NAME", help="the model's file name in models/ without .pt (letters, digits, _ and -)")
    parser.add_argument("--checkpoint", default="latest", choices=["latest", "best"])
    parser.add_argument("--opponents", nargs="+", default=["simple", "hollywood"], metavar="AGENT")
    parser.add_argument("--matches", type=int, default=2000, help="matches per opponent (default 2000)")
    parser.add_argument("--hands", type=int, default=None, help="single hands per opponent instead of matches")
    parser.add_argument("--seed", type=arguments.seed, default=EVAL_SEED, help=f"evaluation seed (default {EVAL_SEED})")
    parser.add_argument("--models-dir", default="models", help="output folder (default models/)")
    parser.add_argument("--note", action="append", default=[], help="a line for the card's notes (repeatable)")
    parser.add_argument("--config", default=None, metavar="FILE",
                        help="the config file the card names (default configs/<log.name>.yaml of the run)")
    args = parser.parse_args(argv)

    import re

    if not re.fullmatch(r"[A-Za-z0-9_-]+", args.name):
        parser.error(f"NAME must be letters, digits, '_' or '-', got {args.name!r}")
    total = args.hands if args.hands is not None else args.matches
    if total < 2:
        parser.error(f"--{'hands' if args.hands is not None else 'matches'} must be at least 2, got {total}")

    from agents.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
    from agents.registry import AgentSpecError, make_agent
    from experiments.evaluation.head_to_head import evaluate
    from hollywood_env.rules import Rules

    networks, facts = [], []
    for run in args.runs:
        run_dir = Path(run)
        shipped = run_dir.is_file()  # a model written by this command: its network and its card's facts
        ckpt_path = run_dir if shipped else run_dir / "checkpoints" / f"{args.checkpoint}.pt"
        if not ckpt_path.is_file():
            parser.error(f"{ckpt_path} not found: RUN must be a run folder of hollywood train with checkpoints/, "
                         f"or a model file written by hollywood ship")
        try:
            ckpt = load_checkpoint(ckpt_path)
        except CheckpointError as e:
            parser.error(str(e))
        if shipped and (not isinstance(ckpt.get("card"), dict) or ckpt.get("ensemble")):
            parser.error(f"{run}: a model file given as RUN must be one network written by hollywood ship "
                         f"(with its card)")
        network = {k: ckpt[k] for k in NETWORK_FIELDS if k in ckpt}
        if args.config:  # where a retrained copy logs (runs/<config name>): nothing else of the run changes
            cfg = network["config"]
            network["config"] = {**cfg, "log": {**cfg.get("log", {}), "root": "runs", "name": Path(args.config).stem}}
        if networks and (ckpt["algo"] != "ppo" or networks[0]["algo"] != "ppo"):
            parser.error(f"{run}: only PPO runs ship as one agent, got {networks[0]['algo']} and {ckpt['algo']}")
        if networks and (ckpt["rules"] != networks[0]["rules"] or ckpt["num_actions"] != networks[0]["num_actions"]):
            parser.error(f"{run}: trained on other rules than {args.runs[0]}; the runs of one agent play one game")
        networks.append(network)
        if shipped:
            facts.append({**{k: ckpt["card"].get(k) for k in RUN_FACTS}, "seed": int(ckpt["config"].get("seed", 0))})
        else:
            facts.append(_run_facts(run_dir, ckpt_path, ckpt["config"]))
    rules = Rules.from_dict(networks[0]["rules"])
    cfg = networks[0]["config"]
    for opp in args.opponents:
        try:
            make_agent(opp, rules, seed=0)
        except (AgentSpecError, ValueError) as e:
            parser.error(f"--opponents {opp}: {e}")

    card = {
        "name": args.name, **{k: v for k, v in facts[0].items() if k != "seed"},
        "hardware": cpu_description(), "torch_threads": int(cfg.get("torch_threads", 0)),
        "evaluations": [], "notes": list(args.note),
        "config_file": args.config or f"configs/{cfg.get('log', {}).get('name', args.name)}.yaml",
    }
    model = dict(networks[0])
    if len(networks) > 1:
        model["ensemble"] = networks[1:]
        card["networks"] = facts  # one entry per network, the first one first
    out_dir = Path(args.models_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    pt = out_dir / f"{args.name}.pt"
    save_checkpoint({**model, "card": card}, pt)  # written first: the evaluations load the shipped file itself

    unit = "hands" if args.hands is not None else "matches"
    reward = cfg.get("env", {}).get("reward", "hollywood")
    spec = f"{model['algo']}:{pt}"
    for opp in args.opponents:
        print(f"evaluating {spec} against {opp}: {total} {unit}...", flush=True)
        s, _ = evaluate(spec, opp, rules, matches=None if args.hands else total, hands=args.hands, seed=args.seed,
                        reward=reward)
        metrics = {k: {f: v[f] for f in ("value", "low", "high", "n")} for k, v in s["metrics"].items()}
        flag = f"--hands {total}" if args.hands is not None else f"--matches {total}"
        preset = rules.preset_name
        rules_flag = "" if preset == "hollywood" else f" --rules {preset}" if preset else " --set ..."
        card["evaluations"].append({
            "opponent": opp, unit: total, "seed": args.seed, "reward": reward, "metrics": metrics,
            "seconds": s["seconds"],
            "command": f"hollywood evaluate {spec} {opp} {flag} --seed {args.seed}{rules_flag}"
                       + (f" --reward {reward}" if reward != "hollywood" else "")})
    save_checkpoint({**model, "card": card}, pt)
    # short names load models/NAME.pt: a card for a file elsewhere names its own path only
    in_models = out_dir.resolve() == Path("models").resolve()
    text = model_card(model, card, short_names(args.name) if in_models else [],
                      path=f"models/{args.name}.pt" if in_models else pt.as_posix())
    (out_dir / f"{args.name}.md").write_text(text)
    print(text)
    print(f"\nwritten: {pt} ({pt.stat().st_size / 1e6:.1f} MB) and {out_dir / (args.name + '.md')}")
    return 0


def _retrain(network: dict) -> Path | None:
    """Train one shipped network's embedded config again (same seed, a new run folder), stopped
    at its update when the original run was stopped early; its run folder, or None (said on stderr)
    for a config this code cannot run."""
    import signal
    import tempfile

    import yaml

    from agents.rl.stopping import TrainingStopped
    from experiments.config.loader import ConfigError, load_config
    from experiments.config.schema import TrainConfig, validate
    from experiments.training.run_writer import new_run_dir
    from experiments.training.train import run_training

    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        yaml.safe_dump(network["config"], f)
    try:
        cfg = validate(load_config(TrainConfig, f.name))
    except ConfigError as e:
        print(f"hollywood reproduce: {e}", file=sys.stderr)
        return None
    finally:
        os.unlink(f.name)
    # a model shipped from a run that was stopped early is reproduced by stopping at the same update
    # (SIGTERM to ourselves after it: the run writes latest.pt and stops, as the original did)
    per_update = (cfg.ppo.num_games * cfg.ppo.num_steps if cfg.algo == "ppo"
                  else cfg.dqn.num_games * cfg.dqn.num_steps)
    stop_at = int(network.get("update") or 0)
    stopped_early = 0 < stop_at < max(1, cfg.total_steps // per_update)

    def stop_where_the_original_stopped(update, collector):
        if stopped_early and update == stop_at:
            os.kill(os.getpid(), signal.SIGTERM)

    run_dir = new_run_dir(cfg.log.root, cfg.log.name, cfg.seed)
    try:
        run_training(cfg, run_dir=run_dir, on_update=stop_where_the_original_stopped)
    except TrainingStopped:
        if not stopped_early:
            raise
    return run_dir


def reproduce_model(path) -> int:
    """``hollywood reproduce models/NAME.pt``: train each network of the shipped model again from
    its embedded config (:func:`_retrain`), evaluate the new model (the new networks as one
    agent, for an ensemble) exactly as the card's evaluations were made (opponents, matches or
    hands, seed) and say, for each, whether the new match win rate (hand win rate for single
    hands) lies within the published 95% interval. Exit status 0 when all do, 1 otherwise, 2 for
    a file that is not a shipped model."""
    from agents.checkpoint import CheckpointError, load_checkpoint
    from experiments.evaluation.head_to_head import evaluate
    from hollywood_env.rules import Rules

    try:
        ckpt = load_checkpoint(path)
    except (CheckpointError, FileNotFoundError) as e:
        print(f"hollywood reproduce: {e}", file=sys.stderr)
        return 2
    card = ckpt.get("card")
    if not isinstance(card, dict) or not card.get("evaluations"):
        print(f"hollywood reproduce: {path} is a checkpoint without a model card (made by hollywood ship); "
              f"give a run folder to re-run its config instead", file=sys.stderr)
        return 2
    checkpoints = []
    for network in [ckpt, *ckpt.get("ensemble", [])]:
        run_dir = _retrain(network)
        if run_dir is None:
            return 2
        checkpoints.append(run_dir / "checkpoints" / (card.get("checkpoint", "latest") + ".pt"))
    rules = Rules.from_dict(ckpt["rules"])
    agent = (f"{ckpt['algo']}:{checkpoints[0]}" if len(checkpoints) == 1
             else "ppo-ensemble:" + "+".join(str(p) for p in checkpoints))
    failed = 0
    where = ", ".join(str(p.parent.parent) for p in checkpoints)
    print(f"\nre-trained {card['name']} in {where}; the published figures and the new ones:")
    for e in card["evaluations"]:
        hands = e.get("hands")
        s, _ = evaluate(agent, e["opponent"], rules, matches=None if hands else e["matches"], hands=hands,
                        seed=e["seed"], reward=e["reward"])
        key = "hand_win_rate" if hands or e["metrics"]["match_win_rate"]["value"] is None else "match_win_rate"
        pub, new = e["metrics"][key], s["metrics"][key]["value"]
        ok = new is not None and pub["low"] <= new <= pub["high"]
        failed += not ok
        print(f"  vs {e['opponent']}: {key} {'n/a' if new is None else f'{100 * new:.1f}%'} (published {100 * pub['value']:.1f}% "
              f"[{100 * pub['low']:.1f}, {100 * pub['high']:.1f}]): {'within' if ok else 'OUTSIDE'} the interval")
    return 1 if failed else 0


def reproduce_main(argv=None) -> int:
    """``hollywood reproduce``: a shipped model (``models/NAME.pt``) goes to :func:`reproduce_model`,
    anything else (a run folder) to :func:`experiments.training.train.reproduce_main`."""
    from agents.paths import find_model

    argv = sys.argv[1:] if argv is None else list(argv)
    # models/NAME.pt: the file, else the shipped model of that name (an installed wheel's copy)
    models = [find_model(a) for a in argv if not a.startswith("-") and a.endswith(".pt")]
    models = [m for m in models if m.is_file()]
    if len(argv) == 1 and models:
        return reproduce_model(models[0])
    from experiments.training.train import reproduce_main as reproduce_run

    return reproduce_run(argv)


def _fmt(m: dict, pct: bool) -> str:
    if m.get("value") is None:
        return "n/a"
    k = 100.0 if pct else 1.0
    unit = "%" if pct else ""
    if m.get("low") is None:  # one duplicate pair has no interval
        return f"{m['value'] * k:.1f}{unit}"
    return f"{m['value'] * k:.1f}{unit} [{m['low'] * k:.1f}, {m['high'] * k:.1f}]"


def _example(card: dict, agent: str) -> str:
    """The card's first evaluation command with the agent named ``agent`` (its short name)."""
    if not card["evaluations"]:
        return f"hollywood evaluate {agent} simple --matches 2000"
    words = card["evaluations"][0]["command"].split()
    words[2] = agent
    return " ".join(words)


def _flat(config: dict, prefix: str = "") -> dict:
    """A nested config as ``{"section.key": value}``, without its seed and its ``log`` section
    (where and how often a run writes does not change what it learns)."""
    return {k2: v2 for k, v in config.items() if k not in ("seed", "log")
            for k2, v2 in (_flat(v, f"{prefix}{k}.").items() if isinstance(v, dict) else [(prefix + k, v)])}


def config_differences(model: dict) -> tuple[list[str], dict]:
    """How the configs of an ensemble's other networks differ from the first's, seeds aside: the
    keys all have with other values, and the keys the first lacks (options added to the code
    after its run) with their values as YAML."""
    import yaml

    first = _flat(model["config"])
    others = [_flat(m["config"]) for m in model.get("ensemble", [])]
    differ = sorted({k for o in others for k, v in o.items() if k in first and first[k] != v})
    newer = {k: yaml.safe_dump(o[k], default_flow_style=True).strip().removesuffix("...").strip()
             for o in others for k in sorted(o) if k not in first}
    return differ, newer


def model_card(model: dict, card: dict, names: list[str], path: str | None = None) -> str:
    """The Markdown model card of a shipped model (see the module docstring); ``path``: where the
    model file is (default ``models/NAME.pt``)."""
    import yaml

    algo = model["algo"]
    path = path or f"models/{card['name']}.pt"
    cfg = {k: v for k, v in model["config"].items() if k not in ("ppo", "dqn") or k == algo}  # its own section only
    name = card["name"]
    networks = card.get("networks") or [card]  # an ensemble's card lists the run of each network
    seeds = [n.get("seed", cfg.get("seed", 0)) for n in networks]

    def minutes(seconds):
        return "unknown" if seconds is None else f"{seconds / 60:.0f} minutes"

    env = cfg.get("env", {})
    differ, newer = config_differences(model)
    what = (f"A {algo.upper()} agent" if len(networks) == 1 else
            f"A {algo.upper()} agent of {len(networks)} networks, {'' if differ else 'the same config '}trained with seeds "
            f"{', '.join(map(str, seeds))}, that plays the move with the largest mean of their "
            f"log-probabilities (`agents.rl.policies.PPOEnsemblePolicy`),")
    lines = [f"# {name}", "",
             f"{what} for the `{env.get('rules', 'hollywood')}` rules, trained with the "
             f"`{env.get('reward', 'hollywood')}` reward. Load it as "
             + ", ".join(f"`{n}`" for n in names + [f"{algo}:{path}"]) + " in any command, e.g.", "",
             "```bash", _example(card, (names or [f'{algo}:{path}'])[0]), "```", "",
             "or in Python: `agents.registry.make_agent(" + repr((names or [f'{algo}:{path}'])[0])
             + ", rules)`, a batched policy `(obs, mask) -> actions` (greedy). The file is read weights-only "
             "(it cannot run code) and holds no training state.", "",
             "## Training", "",
             "| | |", "|---|---|",
             f"| config | `{card.get('config_file') or 'configs/' + cfg.get('log', {}).get('name', name) + '.yaml'}` "
             f"(resolved copy below) |",
             f"| source run{'s' if len(networks) > 1 else ''} | "
             + "; ".join(f"`{n['source_run']}` (seed {s})" for n, s in zip(networks, seeds, strict=True))
             + f", checkpoint `{card['checkpoint']}.pt` |",
             "| commit | " + ", ".join(dict.fromkeys(f"`{n['git_commit']}`" for n in networks)) + " |",
             "| learner decisions | " + ", ".join(f"{m.get('global_step', 0):,} in {m.get('update', 0):,} updates"
                                                  for m in [model, *model.get("ensemble", [])]) + " |",
             "| training time | " + ", ".join(minutes(n["training_seconds"]) for n in networks)
             + " (wall time of the run" + ("s" if len(networks) > 1 else "") + ") |",
             f"| hardware | {card['hardware']}, torch threads {card['torch_threads']} |",
             f"| network{'s' if len(networks) > 1 else ''} | "
             f"{f'{len(networks)} x ' if len(networks) > 1 else ''}{algo.upper()} "
             f"{'card-plane conv + ' if model.get('encoder') == 'conv' else ''}MLP "
             f"{model['obs_dim']} -> {' -> '.join(str(h) for h in model['hidden'])}, "
             f"features `{model.get('features')}`"
             f"{' + learned belief (`models/belief_hollywood.pt`)' if model.get('belief_input') else ''} |", ""]
    lines += ["## Evaluation", ""]
    evals = card["evaluations"]
    if evals:
        unit = "hands" if "hands" in evals[0] else "matches"
        env = cfg.get("env", {})
        rules = Rules.from_dict({"preset": env.get("rules", "hollywood"), **(env.get("rule_options") or {})})
        lines += [f"Duplicate deals (each deal played from both seats), evaluation seed {evals[0]['seed']} "
                  f"(never used in training), 95% intervals (Wilson for rates, pair bootstrap for points).", ""]
        if unit == "matches" and rules.columns == 1:  # games to the target: games and points first
            lines += [f"| opponent | games | games won (to {rules.target}) | points per hand | hand win rate | "
                      f"gins | undercuts suffered |", "|---|---|---|---|---|---|---|"]
            for e in evals:
                m = e["metrics"]
                lines.append(f"| `{e['opponent']}` | {e[unit]:,} | {_fmt(m['match_win_rate'], True)} | "
                             f"{_fmt(m['points_per_hand'], False)} | {_fmt(m['hand_win_rate'], True)} | "
                             f"{_fmt(m['a_gin_rate'], True)} | {_fmt(m['b_undercut_rate'], True)} |")
        else:
            lines += [f"| opponent | {unit} | match win rate | hand win rate | points per hand |",
                      "|---|---|---|---|---|"]
            for e in evals:
                m = e["metrics"]
                mw = _fmt(m["match_win_rate"], True) if "match_win_rate" in m else "—"
                lines.append(f"| `{e['opponent']}` | {e[unit]:,} | {mw} | {_fmt(m['hand_win_rate'], True)} | "
                             f"{_fmt(m['points_per_hand'], False)} |")
        lines += ["", "Commands:", "", "```bash"] + [e["command"] for e in evals] + ["```", ""]
    config_file = card.get('config_file') or 'configs/' + cfg.get('log', {}).get('name', name) + '.yaml'
    run_name = cfg.get('log', {}).get('name', name)
    lines += ["## Reproducing", "",
              f"`hollywood reproduce {path}` trains the config below again "
              + ("(same seed, a new run folder)" if len(networks) == 1 else f"with each seed ({', '.join(map(str, seeds))})")
              + ", evaluates the new model as above and says whether each figure lies within the published interval. "
              "By hand:", "",
              "```bash"]
    lines += [f"hollywood train {config_file} --seed {s}" for s in seeds]
    lines += ["hollywood ship " + " ".join(f"runs/{run_name}__{s}__<time>" for s in seeds) + f" {name}_repro "
              f"--models-dir runs/repro " + " ".join(["--opponents"] + [e["opponent"] for e in evals]),
              "```", "",
              "Training is deterministic for a config and seed on one machine, but not across machines, thread "
              "counts or torch builds: a re-trained model is a new sample of the same recipe, to compare with "
              "the intervals above.", ""]
    if card.get("notes"):
        lines += ["## Notes", ""] + [f"* {n}" for n in card["notes"]] + [""]
    lines += ["## Resolved config", ""]
    if len(networks) > 1:
        lines += ["The first network's; the others' differ in `seed`"
                  + (", " + ", ".join(f"`{k}`" for k in differ) if differ else " only")
                  + (" (and they set options the first network's code did not have: "
                     + ", ".join(f"`{k}: {v}`" for k, v in newer.items()) + ")" if newer else "") + ".", ""]
    lines += ["```yaml", yaml.safe_dump(cfg, sort_keys=False).rstrip(), "```", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
