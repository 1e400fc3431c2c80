"""The subcommands ``hollywood play``, ``hollywood replay`` and ``hollywood play-results``.

    hollywood play [--opponent SPEC] [--rules PRESET] [--port N] [--no-browser] [--data-dir DIR] [--seed S]
    hollywood replay LOG [--hand N] [--no-moves]
    hollywood play-results [DIR] [--json]

Each parses its own arguments (registered with ``experiments.cli.add_passthrough``). A user
mistake (unknown preset or agent, a port in use, a log that is not one, a folder that does not
exist, the ``play`` extra missing) is one line ``hollywood COMMAND: error: ...`` and exit status
2, before anything is started or written.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import threading
import webbrowser
from pathlib import Path

from agents.registry import available_agents
from experiments import arguments
from hollywood_env.rules import PRESETS, Rules


class UsageError(Exception):
    """A user mistake: printed as one line, exit status 2."""


def _fail(command: str, message: str) -> int:
    print(f"hollywood {command}: error: {message}", file=sys.stderr)
    return 2


def _parser(command: str, description: str) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(prog=f"hollywood {command}", description=description)


# --- hollywood play ----------------------------------------------------------------------------


def play_parser() -> argparse.ArgumentParser:
    p = _parser("play", "Play Hollywood Gin against an agent in the browser (a local server on 127.0.0.1).")
    p.add_argument("--opponent", metavar="SPEC", default=None,
                   help=f"the agent to play: {', '.join(available_agents())} "
                        "(default: search, with ppo-hollywood one of the two strongest agents we ship, even with each other)")
    p.add_argument("--rules", metavar="PRESET", default="hollywood",
                   help=f"rules preset: {', '.join(PRESETS)} (default hollywood)")
    p.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (default 8765; 0: any free port)")
    p.add_argument("--no-browser", action="store_true", help="do not open the page in a browser")
    p.add_argument("--data-dir", metavar="DIR", default=None,
                   help="where matches and game logs are kept (default $HOLLYWOOD_PLAY_DIR or ~/.hollywood/play)")
    p.add_argument("--seed", type=arguments.seed, default=None,
                   help="seed of the generator that numbers new matches (default: fresh entropy)")
    return p


def _check_data_dir(path: Path) -> None:
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise UsageError(f"--data-dir {path}: {probe} exists and is not a folder")
    if probe.exists() and not os.access(probe, os.W_OK):
        raise UsageError(f"--data-dir {path}: {probe} is not writable")


def _bind(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as e:
        sock.close()
        raise UsageError(f"--port {port}: cannot listen on 127.0.0.1:{port} ({e.strerror or e}); "
                         f"pick another port, or --port 0 for any free one") from None
    return sock


def play_main(argv: list[str]) -> int:
    args = play_parser().parse_args(argv)
    try:
        return _play(args)
    except UsageError as e:
        return _fail("play", str(e))


def _play(args) -> int:
    from agents.registry import make_agent

    from .store import default_data_dir

    if args.rules not in PRESETS:
        raise UsageError(f"--rules: unknown rules preset {args.rules!r}; valid presets: {', '.join(PRESETS)}")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be in 0..65535, got {args.port}")
    rules = Rules.preset(args.rules)
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError:
        raise UsageError("the web server needs the 'play' extra: pip install -e '.[play]' "
                         "(starlette and uvicorn)") from None
    from .server import PlayService, create_app, default_opponent

    opponent = args.opponent or default_opponent(rules)
    try:
        make_agent(opponent, rules, seed=0)
    except (ValueError, OSError) as e:
        raise UsageError(f"--opponent: {e}") from None
    data_dir = Path(args.data_dir).expanduser() if args.data_dir else default_data_dir()
    _check_data_dir(data_dir)
    sock = _bind(args.port)
    service = PlayService(data_dir, opponent=opponent, rules=rules, seed=args.seed)
    port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    print(f"Hollywood Gin at {url}  (opponent: {opponent}, rules: {args.rules}; game logs in "
          f"{service.store.logs_dir}). Ctrl-C stops the server; a match in progress is kept.", flush=True)
    server = uvicorn.Server(uvicorn.Config(create_app(service), log_level="warning"))
    if not args.no_browser:
        threading.Timer(0.8, lambda: webbrowser.open(url)).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    return 0


# --- hollywood replay ----------------------------------------------------------------------------


def replay_main(argv: list[str]) -> int:
    p = _parser("replay", "Print a game log of `hollywood play` hand by hand: deals, moves, results, scoresheet.")
    p.add_argument("log", metavar="LOG", help="a game log (JSON), e.g. ~/.hollywood/play/logs/<match>.json")
    p.add_argument("--hand", type=int, default=None, help="only this hand (1-based)")
    p.add_argument("--no-moves", action="store_true", help="results only, without every move")
    args = p.parse_args(argv)
    from .gamelog import format_replay, load_log

    try:
        log, match = load_log(args.log)
    except ValueError as e:
        return _fail("replay", str(e))
    if args.hand is not None and not 1 <= args.hand <= len(match.hands):
        return _fail("replay", f"--hand {args.hand}: the log has hands 1..{len(match.hands)}"
                     if match.hands else f"--hand {args.hand}: the log has no finished hand")
    print(format_replay(log, match, moves=not args.no_moves, hand=args.hand))
    return 0


# --- hollywood play-results ----------------------------------------------------------------------


def results_main(argv: list[str]) -> int:
    from .store import default_data_dir

    p = _parser("play-results", "The human's results against each agent from a folder of game logs, "
                                "with 95% intervals.")
    p.add_argument("folder", metavar="DIR", nargs="?", default=None,
                   help="a folder of game logs (default: the logs of ~/.hollywood/play or $HOLLYWOOD_PLAY_DIR)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the Markdown table")
    args = p.parse_args(argv)
    from .gamelog import format_results, human_results
    from .store import read_logs

    folder = Path(args.folder).expanduser() if args.folder else default_data_dir() / "logs"
    if not folder.is_dir():
        return _fail("play-results", f"{folder}: not a folder (give a folder of game logs)")
    try:
        logs = read_logs(folder)
    except ValueError as e:
        return _fail("play-results", str(e))
    if not logs:
        return _fail("play-results", f"{folder}: no game log in this folder (files *.json written by hollywood play)")
    results = human_results(logs)
    print(json.dumps(results, indent=1) if args.json else format_results(results))
    return 0
