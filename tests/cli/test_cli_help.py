"""Every ``hollywood`` command: its ``--help`` (exit 0, a usage line naming the command, every
option of its parser listed, plain text with no reStructuredText markup; ``train`` lists the
config keys), and at least one test that runs it. ``--version`` prints the package's version.

Which tests run a command is read from the tests' own code (:func:`commands_run_in`): a call of
the CLI (``experiments.cli.main``) with an argv that starts with the command, a subprocess argv
``[..., "-m", "experiments.cli", COMMAND, ...]``, a call of a helper that passes its arguments to
one of those (``run("ship", ...)``), or a call of the function the command hands its arguments to
(``PASSTHROUGH``, e.g. ``experiments.release.ship.main``). A run of ``--help`` alone does not
count. In a file that calls the CLI with an argv built elsewhere (a table of rows, a helper's
``*args``), every list that starts with a command counts.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import re
from pathlib import Path

import pytest

from experiments import cli
from experiments.config.schema import TrainConfig

COMMANDS = sorted(set(cli.COMMANDS) | set(cli.PASSTHROUGH))
RST = re.compile(r"``|:(mod|func|class|meth|attr|data|ref|doc):`|\w::$", re.M)
TESTS = Path(__file__).resolve().parents[1]  # tests/, every folder below it
HELP = {"--help", "-h"}


@pytest.fixture
def printed(monkeypatch):
    """The parsers whose help was printed (argparse's ``-h`` and the commands' own calls)."""
    parsers: list[argparse.ArgumentParser] = []
    original = argparse.ArgumentParser.print_help

    def print_help(self, file=None):
        parsers.append(self)
        return original(self, file)

    monkeypatch.setattr(argparse.ArgumentParser, "print_help", print_help)
    return parsers


def _help(capsys, argv) -> tuple[int, str]:
    try:
        code = cli.main(argv)
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out + out.err


def _check_help(capsys, printed, argv) -> list[argparse.ArgumentParser]:
    """Run ``hollywood ARGV --help`` and check its text; returns the parsers it printed."""
    printed.clear()
    code, text = _help(capsys, [*argv, "--help"])
    name = " ".join(["hollywood", *argv])
    assert code == 0, text
    assert f"usage: {name}" in text, f"`{name} --help` does not start with its usage:\n{text}"
    bad = [m.group(0) for m in RST.finditer(text)]
    assert not bad, f"reStructuredText markup in `{name} --help`: {bad}"
    assert printed, f"`{name} --help` printed no parser's help"
    for parser in printed:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                missing = [c for c in action.choices if c not in text]
            elif action.option_strings:
                missing = [o for o in action.option_strings if o not in text]
            else:
                missing = [] if (action.metavar or action.dest) in text else [action.metavar or action.dest]
            assert not missing, f"`{name} --help` does not name {missing}"
    return list(printed)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_names_the_command_and_its_options(capsys, printed, command):
    for parser in _check_help(capsys, printed, [command]):
        for action in parser._actions:  # a command's own subcommands (`hollywood belief train`)
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices:
                    _check_help(capsys, printed, [command, sub])


def test_top_level_help_lists_every_command(capsys, printed):
    _check_help(capsys, printed, [])
    code, text = _help(capsys, [])  # no command: the help, exit status 2
    assert code == 2 and all(c in text for c in COMMANDS), text


def test_train_help_lists_the_config_keys(capsys):
    code, text = _help(capsys, ["train", "--help"])
    assert code == 0
    for f in dataclasses.fields(TrainConfig):
        default = f.default_factory() if f.default is dataclasses.MISSING else f.default
        if dataclasses.is_dataclass(default):
            assert f"  {f.name}:" in text, f.name
            for g in dataclasses.fields(default):
                assert re.search(rf"\b{g.name}=", text), f"{f.name}.{g.name} missing from train --help"
        else:
            assert f"{f.name}=" in text
    assert "experiments/config/schema.py" in text


def test_version(capsys):
    from importlib.metadata import version

    import hollywood_env

    code, text = _help(capsys, ["--version"])
    assert code == 0
    assert text.strip() == f"hollywood {version('hollywood-gin-rl')}"
    assert version("hollywood-gin-rl") == hollywood_env.__version__  # the two places agree


# --- every command is run by a test ----------------------------------------------------------


def _const(node):
    return node.value if isinstance(node, ast.Constant) else None


def _help_only(node) -> bool:
    return isinstance(node, (ast.List, ast.Tuple)) and bool(node.elts) and all(_const(e) in HELP for e in node.elts)


def _argv_command(node) -> str | None:
    """The command an argv literal ``["NAME", ...]`` runs; None if it is not one, or only asks
    for ``--help``."""
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts or _const(node.elts[0]) not in COMMANDS:
        return None
    if _help_only(ast.List(elts=node.elts[1:])):
        return None
    return _const(node.elts[0])


def _subprocess_argv(node) -> tuple[str | None, bool]:
    """For a list ``[..., "-m", "experiments.cli", X, ...]``: (the command X, X is a ``*args``)."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None, False
    elts = node.elts
    for i in range(1, len(elts) - 1):
        if _const(elts[i - 1]) == "-m" and _const(elts[i]) == "experiments.cli":
            if isinstance(elts[i + 1], ast.Starred):
                return None, True
            tail = ast.List(elts=elts[i + 1:])
            return _argv_command(tail), False
    return None, False


def commands_run_in(source: str) -> set[str]:
    """The ``hollywood`` commands the test code ``source`` runs (see the module docstring)."""
    tree = ast.parse(source)
    targets = {name: tuple(target.split(":")) for name, (_, target) in cli.PASSTHROUGH.items()}
    main_names, cli_modules = set(), set()  # local names of experiments.cli.main, of experiments.cli
    target_functions: dict[str, str] = {}  # local name -> command (the function a passthrough calls)
    target_modules: dict[str, dict[str, str]] = {}  # local module name -> {function: command}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                local, full = a.asname or a.name, f"{node.module}.{a.name}"
                if full == "experiments.cli":
                    cli_modules.add(local)
                if full == "experiments.cli.main":
                    main_names.add(local)
                for command, (module, function) in targets.items():
                    if node.module == module and a.name == function:
                        target_functions[local] = command
                    if full == module:
                        target_modules.setdefault(local, {})[function] = command
        elif isinstance(node, ast.Import):
            for a in node.names:
                local = a.asname or a.name
                if a.name == "experiments.cli":
                    cli_modules.add(local)
                for command, (module, function) in targets.items():
                    if a.name == module:
                        target_modules.setdefault(local, {})[function] = command

    def cli_call(call: ast.Call) -> bool:
        f = call.func
        return ((isinstance(f, ast.Name) and f.id in main_names)
                or (isinstance(f, ast.Attribute) and f.attr == "main" and isinstance(f.value, ast.Name)
                    and f.value.id in cli_modules))

    def target_call(call: ast.Call) -> str | None:
        f = call.func
        if isinstance(f, ast.Name):
            return target_functions.get(f.id)
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            return target_modules.get(f.value.id, {}).get(f.attr)
        return None

    found: set[str] = set()
    indirect = False  # the CLI run with an argv built elsewhere
    wrappers: set[str] = set()  # functions that pass their arguments on to the CLI
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if ((isinstance(node, ast.Call) and cli_call(node) and node.args and _argv_command(node.args[0]) is None
                 and not isinstance(node.args[0], (ast.List, ast.Tuple))) or _subprocess_argv(node)[1]):
                wrappers.add(fn.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if cli_call(node) and node.args:
                command = _argv_command(node.args[0])
                if command:
                    found.add(command)
                elif not isinstance(node.args[0], (ast.List, ast.Tuple)):
                    indirect = True
            command = target_call(node)
            if command and not (node.args and _help_only(node.args[0])):
                found.add(command)
            if isinstance(node.func, ast.Name) and node.func.id in wrappers and node.args:
                command = _argv_command(ast.List(elts=node.args))
                if command:
                    found.add(command)
        command, starred = _subprocess_argv(node)
        if command:
            found.add(command)
        indirect |= starred
    if indirect:
        found |= {c for node in ast.walk(tree) if (c := _argv_command(node))}
    return found


def commands_run_by_tests() -> dict[str, list[str]]:
    """command -> the test files that run it (this file's own ``--help`` runs do not count)."""
    runs: dict[str, list[str]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        if path.resolve() == Path(__file__).resolve():
            continue
        for command in commands_run_in(path.read_text(encoding="utf-8")):
            runs.setdefault(command, []).append(path.name)
    return runs


def test_every_command_is_run_by_a_test():
    runs = commands_run_by_tests()
    untested = [c for c in COMMANDS if c not in runs]
    assert not untested, ("no test runs " + ", ".join(f"`hollywood {c}`" for c in untested)
                          + " (a --help alone does not count): add a test that runs it, e.g. "
                          "cli.main([COMMAND, ...]), with a cheap real run and a bad input")


def test_the_scan_finds_the_runs_and_only_those():
    source = '''
import subprocess, sys
from experiments import cli
from experiments.cli import main as hollywood
from experiments.release.ship import main as ship_main
import experiments.training.sweep as S

ROWS = [("bad", ["replay", "x.json"])]

def test_a():
    hollywood(["evaluate", "random", "simple"])
    cli.main(["tournament", "--help"])          # help only: not a run
    ship_main(["runs/x", "name"])
    S.sweep_main(["c.yaml", "--seeds", "0"])

def test_b():
    def run(*args):
        return subprocess.run([sys.executable, "-m", "experiments.cli", *args])
    run("behaviour", "simple", "--out", "x")
    subprocess.run([sys.executable, "-m", "experiments.cli", "quickstart", "--matches", "1"])

def test_c(row):
    cli.main(row[1])                             # an argv from the table: its lists count
'''
    assert commands_run_in(source) == {"evaluate", "ship", "sweep", "behaviour", "quickstart", "replay"}
    assert commands_run_in('from experiments.cli import main\nmain(["train", "-h"])\n') == set()
    assert commands_run_in('def main(argv): pass\nmain(["train", "c.yaml"])\n') == set()  # not the CLI's
