"""Argument types shared by the command-line tools (argparse ``type=`` functions): each check and
its message written once. argparse reports a bad value as ``argument --seed: must be an integer
>= 0, got -1`` with the usage line, and exits with status 2."""

from __future__ import annotations

import argparse


def seed(text: str) -> int:
    """A seed: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {value}")
    return value


def rules_preset(text: str) -> str:
    """The name of a rules preset (``Rules.preset``'s error names the valid ones)."""
    from hollywood_env.rules import Rules

    try:
        Rules.preset(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text
