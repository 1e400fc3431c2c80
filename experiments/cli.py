"""The ``hollywood`` command line.

    hollywood evaluate A B [--matches N | --hands N] [--rules PRESET] [--set KEY=VALUE ...]
                           [--reward MODE] [--seed S] [--max-steps N] [--out DIR] [--json]
    hollywood tournament AGENT AGENT ... [--matches N] [...same options...] [--out DIR] [--no-plot]

    hollywood tournament ... --ray [--ray-address ADDR]   (the pairings as parallel Ray tasks)
    hollywood benchmark SPEC [--quick] [--rules GAME] [--seed S] [--out DIR] [--json]   (against the standard panel)

    hollywood train CONFIG [...]        hollywood reproduce RUN_DIR | models/NAME.pt
    hollywood sweep CONFIG --seeds 0-4 [--grid KEY=V1,V2 ...] [...]   (Ray Tune)
    hollywood quickstart | sb3-train | belief | equity | ship | publish | behaviour | exploit | play | replay
    hollywood play-results

Every command has ``--help``. ``evaluate``, ``tournament`` and ``benchmark`` are parsed here; every other command
hands the rest of its command line to a function of the module that does the job, which parses it
(:data:`PASSTHROUGH`).

Agents: ``random``, ``simple``, ``neller``, ``hollywood``, ``marjj``, ``ppo:PATH``, ``dqn:PATH`` (a
checkpoint or a run folder) or ``module:function`` (see :mod:`agents.registry`). More subcommands plug in
with :func:`add_command` (parsed here) or :func:`add_passthrough` (a module's own ``main(argv)``).

A user mistake (a bad option value, an agent spec that names nothing or a checkpoint that does not
load, an output path that is a file) is reported before anything is played or written, as one
line ``hollywood COMMAND: error: ...`` naming the option, the value and what is allowed, with exit
status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable

from agents.registry import AgentSpecError, describe_agents, make_agent
from experiments import arguments
from experiments.config.loader import suggest
from hollywood_env.rules import PRESETS, Rules

#: name -> (help, add_arguments(parser), run(args) -> exit code)
COMMANDS: dict[str, tuple[str, Callable, Callable]] = {}
#: name -> (help, "module:function" taking the remaining argv and returning an exit code)
PASSTHROUGH: dict[str, tuple[str, str]] = {}


def add_command(name: str, help: str, add_arguments: Callable[[argparse.ArgumentParser], None],
                run: Callable[[argparse.Namespace], int]) -> None:
    """Register a subcommand parsed here."""
    COMMANDS[name] = (help, add_arguments, run)


def add_passthrough(name: str, help: str, target: str) -> None:
    """Register a subcommand that parses its own arguments: ``hollywood NAME ARGS...`` calls
    ``target`` (``"module:function"``, imported on use) with ``ARGS``."""
    PASSTHROUGH[name] = (help, target)


class CLIError(Exception):
    """A user error: printed as ``hollywood: error: ...`` with exit status 2."""


# --- shared options ----------------------------------------------------------------------------


def _parse_value(field_type, key: str, text: str):
    t = field_type if isinstance(field_type, str) else getattr(field_type, "__name__", str(field_type))
    if t == "bool":
        low = text.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise CLIError(f"--set {key}={text}: expected a boolean (true/false)")
    if t == "int":
        try:
            return int(text)
        except ValueError:
            raise CLIError(f"--set {key}={text}: expected an integer") from None
    return text


def rules_from_args(args) -> Rules:
    import dataclasses

    if args.rules not in PRESETS:
        raise CLIError(f"--rules: unknown rules preset {args.rules!r}; valid presets: {', '.join(PRESETS)}"
                       f"{suggest(args.rules, PRESETS)}")
    rules = Rules.preset(args.rules)
    changes = {}
    types = {f.name: f.type for f in dataclasses.fields(Rules)}
    for item in args.set or []:
        if "=" not in item:
            raise CLIError(f"--set expects KEY=VALUE (e.g. --set knock_limit=8), got {item!r}")
        key, value = item.split("=", 1)
        key = key.strip().replace("-", "_")
        if key not in types:
            raise CLIError(f"--set: unknown rule option {key!r}; valid options: {', '.join(sorted(types))}"
                           f"{suggest(key, types)}")
        changes[key] = _parse_value(types[key], key, value)
    try:
        return rules.replace(**changes) if changes else rules
    except (TypeError, ValueError) as e:
        given = " ".join(f"{k}={v!r}" for k, v in changes.items())
        raise CLIError(f"--set {given}: {e}") from None


def _add_common(p: argparse.ArgumentParser, default_matches: int) -> None:
    from experiments.evaluation.head_to_head import REWARD_MODES

    g = p.add_mutually_exclusive_group()
    g.add_argument("-n", "--matches", "--games", type=int, default=None,
                   help=f"matches to play (duplicate pairs: an odd number is rounded up; default {default_matches}); "
                        f"with one-column rules a match is one game to the target, so --games says the same")
    g.add_argument("--hands", type=int, default=None,
                   help="play single hands instead of matches: each game stops after its first hand")
    p.add_argument("--rules", default="hollywood", metavar="PRESET",
                   help=f"rules preset: {', '.join(PRESETS)} (default hollywood)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override a rule option, e.g. --set knock_limit=8 (repeatable)")
    p.add_argument("--reward", default="hollywood", metavar="MODE",
                   help=f"reward mode for the return per match: {', '.join(REWARD_MODES)} (default hollywood)")
    p.add_argument("--seed", type=arguments.seed, default=0, help="seed of the deals and of the agents' randomness (default 0)")
    p.add_argument("--max-steps", type=int, default=5000,
                   help="decisions per match before it is truncated (default 5000; 0 = no cap)")
    p.add_argument("--batch-pairs", type=int, default=4096, help="duplicate pairs per engine batch (default 4096)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def _check_common(args, default_matches: int):
    from experiments.evaluation.head_to_head import REWARD_MODES

    if args.reward not in REWARD_MODES:
        raise CLIError(f"--reward: unknown reward mode {args.reward!r}; valid modes: {', '.join(REWARD_MODES)}"
                       f"{suggest(args.reward, REWARD_MODES)}")
    if args.hands is None and args.matches is None:
        args.matches = default_matches
    total = args.hands if args.hands is not None else args.matches
    if total < 2:
        raise CLIError(f"--{'hands' if args.hands is not None else 'matches'} must be at least 2 (one duplicate pair), "
                       f"got {total}")
    if args.max_steps < 0:
        raise CLIError(f"--max-steps must be >= 0 (0: no cap), got {args.max_steps}")
    if args.batch_pairs < 1:
        raise CLIError(f"--batch-pairs must be >= 1, got {args.batch_pairs}")
    if getattr(args, "out", None):
        _check_out_dir(args.out)
    rules = rules_from_args(args)
    return rules, (total + 1) // 2, args.max_steps or None


def _check_out_dir(out: str) -> None:
    """CLIError unless ``out`` is a folder or can be made one (checked before anything is played)."""
    path = os.path.abspath(out)
    while True:
        if os.path.exists(path):
            if not os.path.isdir(path):
                raise CLIError(f"--out {out}: {path!r} exists and is not a folder")
            return
        parent = os.path.dirname(path)
        if parent == path:
            return
        path = parent


def _check_agents(specs, rules):
    for spec in specs:
        try:
            make_agent(spec, rules, seed=0)
        except (ValueError, OSError) as e:  # AgentSpecError, a checkpoint loader's CheckpointError, ...
            raise CLIError(str(e)) from None


def _progress(total: int, desc: str, quiet: bool):
    if quiet:
        return None
    from experiments.progress import WholeCounts, progress_bar

    # told in fractions of games (agents.matches.game_progress), shown in whole games
    return WholeCounts(progress_bar(total=total, desc=desc, unit="game", dynamic_ncols=True, smoothing=0.05,
                                    bar_format="{l_bar}{bar}| {n}/{total_fmt} [{elapsed}<{remaining}]"))


# --- evaluate ------------------------------------------------------------------------------------


def _add_evaluate(p):
    p.add_argument("agent_a", metavar="A", help="agent A (see the agent list below)")
    p.add_argument("agent_b", metavar="B", help="agent B")
    _add_common(p, default_matches=2000)
    p.add_argument("--out", metavar="DIR", help="also write evaluate.json and evaluate.md here")
    p.add_argument("--json", action="store_true", help="print the JSON summary instead of the Markdown table")


def _run_evaluate(args) -> int:
    from experiments.evaluation.head_to_head import evaluate, format_summary

    rules, n_pairs, max_steps = _check_common(args, 2000)
    _check_agents([args.agent_a, args.agent_b], rules)
    bar = _progress(2 * n_pairs, f"{args.agent_a} vs {args.agent_b}", args.quiet)
    try:
        summary, _ = evaluate(args.agent_a, args.agent_b, rules, matches=None if args.hands else 2 * n_pairs,
                              hands=2 * n_pairs if args.hands else None, seed=args.seed, reward=args.reward,
                              max_steps=max_steps, batch_pairs=args.batch_pairs, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    text = format_summary(summary)
    print(json.dumps(summary, indent=1) if args.json else text)
    if args.out:
        from experiments.evaluation.report_files import write_report

        md = write_report(args.out, "evaluate", summary, text)
        print(f"\nwrote {md.with_suffix('.json')} and evaluate.md", file=sys.stderr)
    return 0


# --- tournament ----------------------------------------------------------------------------------


def _add_tournament(p):
    p.add_argument("agents", nargs="+", metavar="AGENT", help="two or more agents (see the list below)")
    _add_common(p, default_matches=1000)
    p.add_argument("--out", metavar="DIR", default="runs/tournament",
                   help="output folder for the CSV, JSON, Markdown and heatmap (default runs/tournament)")
    p.add_argument("--no-plot", action="store_true", help="do not draw heatmap.png")
    p.add_argument("--ray", action="store_true",
                   help="play the pairings as parallel Ray tasks (same results as without; needs pip install '.[ray]')")
    p.add_argument("--ray-address", metavar="ADDR", default=None,
                   help="with --ray: join this Ray cluster (auto: the one of `ray start --head`); "
                        "default: start a local Ray")


def _run_tournament(args) -> int:
    from agents.rl.ray_support import RayUnavailable
    from experiments.evaluation.tournament import format_tournament, round_robin, summarize_tournament, write_tournament

    if len(args.agents) < 2:
        raise CLIError("a tournament needs at least two agents")
    if args.ray_address and not args.ray:
        raise CLIError("--ray-address needs --ray")
    rules, n_pairs, max_steps = _check_common(args, 1000)
    _check_agents(args.agents, rules)
    k = len(args.agents)
    bar = _progress(k * (k - 1) // 2 * 2 * n_pairs, f"round robin of {k}", args.quiet)
    try:
        t = round_robin(args.agents, rules, n_pairs, args.seed, max_steps=max_steps, per_hand=args.hands is not None,
                        batch_pairs=args.batch_pairs, progress=bar, ray=args.ray, ray_address=args.ray_address)
    except RayUnavailable as e:
        raise CLIError(str(e)) from None
    finally:
        if bar is not None:
            bar.close()
    s = summarize_tournament(t, args.reward)
    paths = write_tournament(s, args.out, plot=not args.no_plot)
    print(format_tournament(s))
    print()
    for kind, path in paths.items():
        print(f"{kind}: {path}" if kind != "note" else f"note: {path}")
    return 0


# --- benchmark -----------------------------------------------------------------------------------


def _add_benchmark(p):
    from experiments.evaluation.benchmark import add_arguments

    add_arguments(p)


def _run_benchmark(args) -> int:
    from experiments.evaluation.benchmark import BenchmarkError, run_command

    if args.out:
        _check_out_dir(args.out)
    try:
        return run_command(args, lambda total: _progress(total, f"benchmark {args.agent}", args.quiet))
    except BenchmarkError as e:
        raise CLIError(str(e)) from None


add_passthrough("train", "train a PPO or DQN agent from a YAML config", "experiments.training.train:train_main")
add_passthrough("reproduce", "re-run a run folder's config and compare the metrics, or retrain a shipped model "
                "(models/NAME.pt) and check its card's intervals", "experiments.release.ship:reproduce_main")
add_passthrough("sweep", "seeds x grid of training runs on Ray Tune, with a summary table",
                "experiments.training.sweep:sweep_main")
add_passthrough("quickstart", "the README's quick start: a short PPO run, then a round robin against the bots",
                "experiments.training.quickstart:main")
add_passthrough("sb3-train", "train sb3-contrib's MaskablePPO through the Stable-Baselines3 adapter (needs the sb3 "
                "extra)", "experiments.training.sb3_train:main")
add_passthrough("belief", "train, measure and reproduce the learned belief over the opponent's hand",
                "experiments.training.belief_train:main")
add_passthrough("equity", "fit the match-win equity model of the Hollywood scoresheet (search:value=equity)",
                "experiments.training.equity_train:main")
add_passthrough("ship", "turn a training run into a shipped model in models/ with its model card",
                "experiments.release.ship:main")
add_passthrough("publish", "train a config's seeds (or reuse runs), evaluate them against bots and play a round "
                "robin: the tables and plots of a published result", "experiments.release.publish:main")
add_passthrough("rllib-export", "export an RLlib checkpoint's policy as a weights-only file for the rllib:PATH "
                "agent spec (needs the rllib extra)", "experiments.release.rllib_export:main")
add_passthrough("behaviour", "how agents play: knock timing, gin chasing and play by sheet lead, from their own "
                "decisions", "experiments.analysis.behaviour:main")
add_passthrough("exploit", "train a best response to a frozen agent and measure what it wins: a lower bound on "
                "its exploitability", "experiments.evaluation.exploit:main")
add_passthrough("play", "play against any agent in the browser (needs the play extra)",
                "experiments.play.commands:play_main")
add_passthrough("replay", "print a game log of `hollywood play` hand by hand", "experiments.play.commands:replay_main")
add_passthrough("play-results", "the human's results per opponent from a folder of game logs, with 95% intervals",
                "experiments.play.commands:results_main")
add_command("evaluate", "head-to-head of two agents with duplicate deals and 95% intervals", _add_evaluate, _run_evaluate)
add_command("tournament", "round robin: pairwise win rates, ratings, CSV/JSON/Markdown/heatmap", _add_tournament,
            _run_tournament)
add_command("benchmark", "one agent against the standard panel on Hollywood matches and EAAI games: win rates with "
            "95% intervals and a rating on the panel's Elo scale", _add_benchmark, _run_benchmark)


def package_version() -> str:
    """The installed package's version (``importlib.metadata``); in a source tree that is not
    installed, ``hollywood_env.__version__``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hollywood-gin-rl")
    except PackageNotFoundError:
        from hollywood_env import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    epilog = "agents:\n" + describe_agents() + f"\n\nrules presets: {', '.join(PRESETS)}"
    parser = argparse.ArgumentParser(prog="hollywood", description="Hollywood Gin: training, evaluation and tournaments.",
                                     epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, _) in PASSTHROUGH.items():
        sub.add_parser(name, help=help_text.replace("%", "%%"), add_help=False)
    for name, (help_text, add_arguments, run) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text.replace("%", "%%"), description=help_text, epilog=epilog,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        add_arguments(p)
        p.set_defaults(_run=run)
    return parser


def main(argv: list[str] | None = None) -> int:
    # Idle OpenMP threads (torch's) otherwise spin-wait and take the CPU that rollout worker
    # processes need; OpenMP reads this when torch is loaded, which is after this point (nothing
    # this module imports loads torch).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in PASSTHROUGH:
        import importlib

        module, _, func = PASSTHROUGH[argv[0]][1].partition(":")
        return int(getattr(importlib.import_module(module), func)(argv[1:]) or 0)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args) or 0)
    except (CLIError, AgentSpecError) as e:
        print(f"hollywood {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
