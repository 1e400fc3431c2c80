"""What the notebooks in ``notebooks/`` import: their inputs (:func:`setting`) and, under one
name, the functions they call, which live in the modules that do each job:

* :mod:`experiments.analysis.run_reader`: run folders and their scalars, learning curves
  aggregated over seeds with Student-t intervals, tournament folders, and Markdown tables of
  these.
* :mod:`experiments.analysis.plots`: learning curves, evaluation win rates, a tournament's
  heatmap and ratings.
* :mod:`experiments.analysis.playthrough`: one match recorded hand by hand, and its views.
* :mod:`experiments.analysis.demo`: a tiny training run and tournament, so a notebook runs
  without inputs.

The notebooks only choose inputs and display; everything they do is tested outside them
(``tests/repo/test_notebooks.py``). Code other than a notebook imports from those modules directly.
"""

from __future__ import annotations

import os
from typing import Any

from experiments.analysis.demo import make_demo
from experiments.analysis.playthrough import hand_markdown, match_markdown, match_table_markdown, plot_scoresheet, record_match
from experiments.analysis.plots import plot_curves, plot_eval_win_rates, plot_tournament
from experiments.analysis.run_reader import (
    aggregate,
    available_tags,
    curve_tags,
    eval_win_rate_tags,
    final_values_markdown,
    find_tournament,
    load_runs,
    load_tournament,
    ratings_markdown,
    read_ratings,
    runs_markdown,
)

# what notebooks/*.ipynb use (tests/repo/test_notebooks.py checks that they find it here), and
# aggregate, which the analysis notebook's text names; available_tags for
# experiments.release.publish
__all__ = [
    "setting",
    # notebooks/analysis.ipynb
    "make_demo", "load_runs", "runs_markdown", "curve_tags", "eval_win_rate_tags", "available_tags", "aggregate",
    "final_values_markdown", "plot_curves", "plot_eval_win_rates", "find_tournament", "load_tournament",
    "read_ratings", "ratings_markdown", "plot_tournament",
    # notebooks/play_through.ipynb
    "record_match", "match_markdown", "match_table_markdown", "hand_markdown", "plot_scoresheet",
]


def setting(name: str, default: Any) -> Any:
    """A notebook input: the environment variable ``name`` if set (and not empty), converted to
    the type of ``default``, else ``default``.

    bool: ``1/true/yes/on`` or ``0/false/no/off``; int and float: numbers; dict or list: YAML
    (``"{target: 50}"``); anything else: the string.
    """
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    raw = raw.strip()
    if isinstance(default, bool):
        low = raw.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{name}={raw!r}: expected a boolean (1/0, true/false, yes/no, on/off)")
    if isinstance(default, int):
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"{name}={raw!r}: expected an integer") from None
    if isinstance(default, float):
        try:
            return float(raw)
        except ValueError:
            raise ValueError(f"{name}={raw!r}: expected a number") from None
    if isinstance(default, (dict, list)):
        import yaml

        value = yaml.safe_load(raw)
        if not isinstance(value, type(default)):
            raise ValueError(f"{name}={raw!r}: expected a YAML {type(default).__name__}")
        return value
    return raw
