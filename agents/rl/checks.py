"""The checks of the trainers' config sections (``ppo:``, ``dqn:``, ``collector:``): each raises a
ValueError naming ``<section>.<key>``, the value and what is allowed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np


def in_range(value: float, low: float, closed: bool, high: float) -> bool:
    """``value`` is a finite number above ``low`` (or equal to it when ``closed``) and at most
    ``high``."""
    return bool(np.isfinite(value) and (value >= low if closed else value > low) and value <= high)


def check_at_least(section: str, config: Any, names: Iterable[str], low: int) -> None:
    """Each field ``names`` of ``config`` is at least ``low``."""
    for name in names:
        if getattr(config, name) < low:
            raise ValueError(f"{section}.{name} must be >= {low}, got {getattr(config, name)}")


def check_numbers(section: str, config: Any, ranges: Iterable[tuple[str, float, bool, float]],
                  nullable: Iterable[str] = ()) -> None:
    """Each field of ``ranges`` ``(name, low, low included, high)`` is a finite number in that range
    (:func:`in_range`); a field of ``nullable`` may also be None."""
    nullable = set(nullable)
    for name, low, closed, high in ranges:
        v = getattr(config, name)
        if v is None and name in nullable:
            continue
        if not in_range(v, low, closed, high):
            allowed = (f"in {'[' if closed else '('}{low:g}, {high:g}]" if np.isfinite(high)
                       else f"{'>=' if closed else '>'} {low:g} and finite")
            raise ValueError(f"{section}.{name} must be a number {allowed}{' (or null)' if name in nullable else ''}, "
                             f"got {v!r}")


def check_hidden(section: str, hidden: list[int]) -> None:
    """``<section>.hidden``: at least one layer size, each at least 1."""
    if not hidden:
        raise ValueError(f"{section}.hidden needs at least one layer size, got []")
    if any(h < 1 for h in hidden):
        raise ValueError(f"{section}.hidden: every layer size must be >= 1, got {list(hidden)}")


def check_expert_fields(section: str, expert: str | None, coef: float, until: float) -> None:
    """The ``<section>.expert*`` values of a config, each checked (a ValueError naming the key, the
    value and what is allowed)."""
    if not in_range(coef, 0.0, True, np.inf):
        raise ValueError(f"{section}.expert_coef must be a finite number >= 0, got {coef!r}")
    if not in_range(until, 0.0, False, 1.0):
        raise ValueError(f"{section}.expert_until must be a fraction of the run in (0, 1], got {until!r}")
    if expert is not None and not (isinstance(expert, str) and expert.strip()):
        raise ValueError(f"{section}.expert must be a bot name (simple, neller, hollywood, marjj) or null, "
                         f"got {expert!r}")
