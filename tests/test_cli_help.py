"""Every ``hollywood`` command's ``--help``: exit 0, plain text (no reStructuredText markup),
``train`` lists the config keys; ``--version`` prints the package's version."""

from __future__ import annotations

import dataclasses
import re

import pytest

from experiments import cli
from experiments.schema import TrainConfig

COMMANDS = sorted(set(cli.COMMANDS) | set(cli.PASSTHROUGH))
RST = re.compile(r"``|:(mod|func|class|meth|attr|data|ref|doc):`|\w::$", re.M)


def _help(capsys, argv) -> tuple[int, str]:
    try:
        code = cli.main(argv)
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out + out.err


def test_every_command_is_tested():
    assert {"train", "reproduce", "sweep", "evaluate", "tournament"} <= set(COMMANDS)


@pytest.mark.parametrize("command", [None] + COMMANDS)
def test_help_is_plain_text(capsys, command):
    code, text = _help(capsys, ["--help"] if command is None else [command, "--help"])
    assert code == 0, text
    assert "usage: hollywood" in text
    bad = [m.group(0) for m in RST.finditer(text)]
    assert not bad, f"reStructuredText markup in `hollywood {command or ''} --help`: {bad}"


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
    assert "experiments/schema.py" in text


def test_version(capsys):
    from importlib.metadata import version

    import hollywood_env

    code, text = _help(capsys, ["--version"])
    assert code == 0
    assert text.strip() == f"hollywood {version('hollywood-gin-rl')}"
    assert version("hollywood-gin-rl") == hollywood_env.__version__  # the two places agree
