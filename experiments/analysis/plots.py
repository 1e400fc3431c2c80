"""Plots of runs and tournaments, as matplotlib figures (the caller shows or saves them).

* :func:`plot_curves`: one panel per tag; per config name the mean over its runs (line) and the
  Student-t interval of that mean across them (band), from
  :func:`experiments.analysis.run_reader.aggregate_runs`.
* :func:`plot_eval_win_rates`: :func:`plot_curves` of the ``eval/win_rate_vs_<bot>`` tags.
* :func:`plot_tournament`: a tournament's win-rate matrix (drawn by
  :func:`experiments.evaluation.tournament.draw_heatmap`, the one heatmap drawing, also behind the
  tournament's ``heatmap.png``) beside its Elo ratings with their intervals.

matplotlib is imported when a plot is drawn, so importing this module does not need it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from experiments.analysis.run_reader import EVAL_WIN_RATE_PREFIX, Run, aggregate_runs, eval_win_rate_tags, group_runs, short_label

# --- plots of runs -----------------------------------------------------------------------------


def _grid_axes(n: int, ncols: int, size=(4.6, 3.2)):
    import matplotlib.pyplot as plt

    ncols = max(1, min(ncols, n))
    nrows = max(1, math.ceil(n / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(size[0] * ncols, size[1] * nrows), squeeze=False)
    flat = axes.ravel()
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def plot_curves(runs: Sequence[Run], tags: Sequence[str], x: str = "global_step", smooth: float = 0.0,
                level: float = 0.95, ncols: int = 3, ylim=None, reference: float | None = None,
                titles: dict[str, str] | None = None, key=None):
    """One panel per tag; per config name the mean over its runs (line) and the ``level``
    interval of the mean across them (band; drawn where at least 2 runs have a value).
    Returns the matplotlib figure."""
    if not tags:
        raise ValueError("no tags to plot")
    fig, axes = _grid_axes(len(tags), ncols)
    names = list(group_runs(runs, key))
    colors = {g: f"C{i % 10}" for i, g in enumerate(names)}
    for ax, tag in zip(axes, tags, strict=True):
        for g, agg in aggregate_runs(runs, tag, x, smooth, level, key).items():
            n_runs = int(agg.n.max()) if agg.n.size else 0
            ax.plot(agg.x, agg.mean, color=colors[g], label=f"{g} (n={n_runs})", marker="o" if agg.x.size < 12 else None,
                    markersize=3)
            if np.isfinite(agg.low).any():
                ax.fill_between(agg.x, agg.low, agg.high, color=colors[g], alpha=0.2, linewidth=0)
        if reference is not None:
            ax.axhline(reference, color="grey", linestyle=":", linewidth=1)
        if ylim is not None:
            ax.set_ylim(*ylim)
        ax.set_title((titles or {}).get(tag, tag), fontsize=10)
        ax.set_xlabel(x.replace("_", " "))
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    band = f"band: {int(round(100 * level))}% t-interval of the mean across seeds"
    fig.suptitle(band + (f"; EMA smoothing {smooth}" if smooth else ""), fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig


def plot_eval_win_rates(runs: Sequence[Run], x: str = "global_step", smooth: float = 0.0, level: float = 0.95,
                        ncols: int = 3, key=None):
    """:func:`plot_curves` of the ``eval/win_rate_vs_<bot>`` tags: one panel per bot, y in [0, 1],
    a dotted line at 0.5."""
    tags = eval_win_rate_tags(runs)
    if not tags:
        raise ValueError("the runs have no eval/win_rate_vs_* tags (eval.bots empty?)")
    titles = {t: f"match win rate vs {t.removeprefix(EVAL_WIN_RATE_PREFIX)}" for t in tags}
    return plot_curves(runs, tags, x, smooth, level, ncols, ylim=(-0.02, 1.02), reference=0.5, titles=titles, key=key)


# --- tournaments -------------------------------------------------------------------------------


def plot_tournament(summary: dict, ratings: Sequence[dict] | None = None):
    """The win-rate matrix as an annotated heatmap (row agent against column agent, 95% Wilson
    interval) and the Elo ratings with their 95% intervals. Returns the figure."""
    import matplotlib.pyplot as plt

    # imported here: the tournament module brings the engine and the agents, which the
    # learning-curve plots do not need
    from experiments.evaluation.tournament import draw_heatmap

    agents = [short_label(a) for a in summary["agents"]]
    ratings = list(ratings if ratings is not None else summary["ratings"])
    k = len(agents)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(1.5 * k + 8, 1.1 * k + 2.2),
                                  gridspec_kw={"width_ratios": [1.4, 1]})
    im = draw_heatmap(ax, summary, labels=agents, digits=0)
    fig.colorbar(im, ax=ax, label=f"{summary['unit']} win rate", shrink=0.8)
    ax.set_title(f"{summary['unit']} win rate ({2 * summary['pairs_per_pairing']} per pairing)", fontsize=10)
    order = sorted(ratings, key=lambda r: r["elo"])
    y = np.arange(len(order))
    elo = np.array([r["elo"] for r in order], dtype=float)
    err = np.array([[r["elo"] - r["elo_low"] for r in order], [r["elo_high"] - r["elo"] for r in order]], dtype=float)
    ax2.errorbar(elo, y, xerr=np.maximum(err, 0), fmt="o", capsize=4)
    ax2.set_yticks(y, [short_label(r["agent"]) for r in order])
    ax2.axvline(0, color="grey", linestyle=":", linewidth=1)
    ax2.set_xlabel("Elo (mean 0), 95% interval")
    ax2.set_title("ratings", fontsize=10)
    ax2.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig

