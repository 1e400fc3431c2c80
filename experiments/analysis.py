"""Analysis helpers behind the notebooks in ``notebooks/``: run folders, learning curves with seeds
aggregated, tournaments, and a recorded match shown hand by hand.

Everything a notebook does lives here, so it is tested outside the notebooks
(``tests/test_notebooks.py``); the notebooks only choose inputs and display.

Runs and learning curves (``notebooks/analysis.ipynb``):

* :func:`find_runs` / :func:`load_runs`: run folders (see :mod:`experiments.runlog`) from glob
  patterns; each :class:`Run` holds its scalars read from ``metrics.jsonl`` or from the
  TensorBoard event files, its config name (``log.name``) and seed.
* :func:`aggregate` / :func:`aggregate_runs`: the mean over the runs of a config name (its seeds)
  and a 95% Student-t interval of that mean, on a common x grid.
* :func:`plot_curves`, :func:`plot_eval_win_rates`: one panel per tag, one line (mean) and band
  (interval) per config name.
* :func:`load_tournament`, :func:`read_ratings`, :func:`plot_tournament`: a folder written by
  :func:`experiments.tournament.write_tournament`.
* :func:`make_demo`: a tiny training run (two seeds) and a tiny tournament, in seconds, so the
  notebook runs anywhere without inputs.

A match hand by hand (``notebooks/play_through.ipynb``):

* :func:`record_match`: one match of two agents in the batched core at batch size 1, recorded as
  a :class:`MatchRecord` of :class:`HandRecord` (the deal, the moves, the cards at the end with
  melds and lay-offs, the discard pile and stock left, the result and the scoresheet after it).
* :func:`hand_markdown`, :func:`scoresheet_markdown`, :func:`plot_scoresheet`: the views.

Notebook inputs come from :func:`setting`: a default, overridden by an environment variable.
"""

from __future__ import annotations

import csv
import glob
import json
import math
import os
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]

#: learning-curve tags shown by default (those a run has)
DEFAULT_CURVE_TAGS = (
    "charts/episodic_return", "losses/value_loss", "losses/policy_loss", "losses/entropy", "losses/approx_kl",
    "losses/explained_variance", "losses/td_loss", "losses/q_values", "hollywood/gin_rate",
    "hollywood/knock_deadwood", "hollywood/hands_per_match", "hollywood/wall_rate", "league/gate_win_rate",
    "charts/SPS",
)
EVAL_WIN_RATE_PREFIX = "eval/win_rate_vs_"


# --- notebook inputs ---------------------------------------------------------------------------


def setting(name: str, default: Any) -> Any:
    """The environment variable ``name`` if set (and not empty), converted to the type of
    ``default``, else ``default``.

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


# --- run folders -------------------------------------------------------------------------------


@dataclass
class Series:
    """One scalar tag of one run: values by global step (and by update, from ``metrics.jsonl``)."""

    step: np.ndarray
    value: np.ndarray
    update: np.ndarray | None = None

    def x(self, axis: str = "global_step") -> np.ndarray:
        if axis == "global_step":
            return self.step
        if axis == "update":
            if self.update is None:
                raise ValueError("x='update' needs metrics.jsonl (TensorBoard events are indexed by global step)")
            return self.update
        raise ValueError(f"x must be 'global_step' or 'update', got {axis!r}")


@dataclass
class Run:
    """A run folder: its scalars (tag -> :class:`Series`), config name, seed and config."""

    path: Path
    name: str
    seed: int | None
    config: dict
    scalars: dict[str, Series]
    source: str  # "jsonl" or "tensorboard"

    @property
    def tags(self) -> list[str]:
        return sorted(self.scalars)

    @property
    def label(self) -> str:
        return f"{self.name} seed {self.seed}" if self.seed is not None else self.name


def is_run_dir(path: str | Path) -> bool:
    """A folder with ``metrics.jsonl`` or TensorBoard event files."""
    p = Path(path)
    return p.is_dir() and ((p / "metrics.jsonl").is_file() or any(p.glob("events.out.tfevents.*")))


def _split_patterns(patterns: str | Path | Iterable[str | Path]) -> list[str]:
    if isinstance(patterns, (str, Path)):
        text = str(patterns)
        parts = [q for p in text.split(os.pathsep) for q in p.split(",")]
        return [p.strip() for p in parts if p.strip()]
    return [str(p) for p in patterns]


def find_runs(patterns: str | Path | Iterable[str | Path]) -> list[Path]:
    """Run folders matching glob ``patterns`` (a list, or one string separated by commas or
    ``os.pathsep``). A match that is not a run folder itself contributes its run subfolders
    (so ``runs`` means every run in ``runs/``). A relative pattern that matches nothing here is
    tried from the repository root. Raises ``FileNotFoundError`` for a pattern without runs."""
    found: list[Path] = []
    for pat in _split_patterns(patterns):
        matches = sorted(glob.glob(os.path.expanduser(pat)))
        if not matches and not os.path.isabs(pat):
            matches = sorted(glob.glob(str(REPO_ROOT / pat)))
        runs = []
        for m in matches:
            if is_run_dir(m):
                runs.append(Path(m))
            elif os.path.isdir(m):
                runs += [c for c in sorted(Path(m).iterdir()) if is_run_dir(c)]
        if not runs:
            raise FileNotFoundError(f"no run folder (with metrics.jsonl or TensorBoard events) matches {pat!r}")
        found += [r for r in runs if r not in found]
    return found


def _dedupe_last(x: np.ndarray, *arrays: np.ndarray):
    """Sort by ``x`` keeping the last occurrence of each x (a resumed run may log a point twice)."""
    if x.size == 0:
        return (x, *arrays)
    rev = x[::-1]
    _, first_in_rev = np.unique(rev, return_index=True)  # sorted unique x, last occurrence
    idx = x.size - 1 - first_in_rev
    return (x[idx], *(a[idx] for a in arrays))


def read_jsonl_scalars(run_dir: str | Path) -> dict[str, Series]:
    """Every numeric key of ``metrics.jsonl`` as a :class:`Series` (by update and global step)."""
    from experiments.runlog import read_metrics

    rows = read_metrics(run_dir)
    points: dict[str, list[tuple[float, float, float]]] = {}
    for row in rows:
        u, s = row.get("update"), row.get("global_step")
        for k, v in row.items():
            if k in ("update", "global_step") or not isinstance(v, (int, float)) or isinstance(v, bool):
                continue
            points.setdefault(k, []).append((u if u is not None else np.nan, s if s is not None else np.nan, v))
    out = {}
    for k, pts in points.items():
        a = np.array(pts, dtype=float)
        u, s, v = _dedupe_last(a[:, 0], a[:, 1], a[:, 2])
        out[k] = Series(step=s, value=v, update=u)
    return out


def read_tensorboard_scalars(run_dir: str | Path) -> dict[str, Series]:
    """Every scalar tag of the TensorBoard event files in ``run_dir`` (not its subfolders)."""
    from tensorboard.backend.event_processing.event_accumulator import SCALARS, EventAccumulator

    acc = EventAccumulator(str(run_dir), size_guidance={SCALARS: 0})
    acc.Reload()
    out = {}
    for tag in acc.Tags().get("scalars", []):
        ev = acc.Scalars(tag)
        s = np.array([e.step for e in ev], dtype=float)
        v = np.array([e.value for e in ev], dtype=float)
        s, v = _dedupe_last(s, v)
        out[tag] = Series(step=s, value=v)
    return out


def load_run(path: str | Path, source: str = "auto") -> Run:
    """One run folder. ``source``: ``jsonl``, ``tensorboard`` or ``auto`` (the JSONL if present)."""
    import yaml

    p = Path(path)
    if source not in ("auto", "jsonl", "tensorboard"):
        raise ValueError(f"source must be 'auto', 'jsonl' or 'tensorboard', got {source!r}")
    if source == "auto":
        source = "jsonl" if (p / "metrics.jsonl").is_file() else "tensorboard"
    scalars = read_jsonl_scalars(p) if source == "jsonl" else read_tensorboard_scalars(p)
    config = {}
    if (p / "config.yaml").is_file():
        config = yaml.safe_load((p / "config.yaml").read_text()) or {}
    parts = p.name.split("__")
    name = (config.get("log") or {}).get("name") or parts[0]
    seed = config.get("seed")
    if seed is None and len(parts) >= 2 and parts[1].lstrip("-").isdigit():
        seed = int(parts[1])
    return Run(path=p, name=str(name), seed=None if seed is None else int(seed), config=config, scalars=scalars,
               source=source)


def load_runs(patterns, source: str = "auto") -> list[Run]:
    """:func:`load_run` of every folder :func:`find_runs` finds."""
    return [load_run(p, source) for p in find_runs(patterns)]


def group_runs(runs: Sequence[Run], key=None) -> dict[str, list[Run]]:
    """Runs grouped by config name (or ``key(run)``), groups in order of first appearance."""
    groups: dict[str, list[Run]] = {}
    for r in runs:
        groups.setdefault(str(key(r) if key else r.name), []).append(r)
    return groups


def available_tags(runs: Sequence[Run], prefix: str = "") -> list[str]:
    """Tags that at least one run has, starting with ``prefix``, sorted."""
    return sorted({t for r in runs for t in r.scalars if t.startswith(prefix)})


def curve_tags(runs: Sequence[Run], wanted: Sequence[str] = DEFAULT_CURVE_TAGS) -> list[str]:
    """The ``wanted`` tags (in that order) that at least one run has."""
    have = set(available_tags(runs))
    return [t for t in wanted if t in have]


def eval_win_rate_tags(runs: Sequence[Run]) -> list[str]:
    """The ``eval/win_rate_vs_<bot>`` tags of the runs."""
    return available_tags(runs, EVAL_WIN_RATE_PREFIX)


def runs_markdown(runs: Sequence[Run]) -> str:
    """A Markdown table of the runs: config name, seed, algo, source, points logged, last step."""
    lines = ["| run | config name | seed | algo | source | points | last global step |", "|---|---|---|---|---|---|---|"]
    for r in runs:
        n = max((len(s.value) for s in r.scalars.values()), default=0)
        last = max((float(s.step[-1]) for s in r.scalars.values() if len(s.step)), default=float("nan"))
        last_s = f"{last:,.0f}" if math.isfinite(last) else "—"
        lines.append(f"| {r.path.name} | {r.name} | {r.seed if r.seed is not None else '—'} | "
                     f"{r.config.get('algo', '—')} | {r.source} | {n} | {last_s} |")
    return "\n".join(lines)


# --- aggregation across seeds ------------------------------------------------------------------


def _t_two_sided_prob(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with integer ``df`` (Abramowitz and Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    s = math.sin(theta)
    if df % 2 == 1:
        if df == 1:
            return 2 * theta / math.pi
        term = math.cos(theta)
        acc = term
        for j in range(1, (df - 3) // 2 + 1):
            term *= c2 * (2 * j) / (2 * j + 1)
            acc += term
        return 2 / math.pi * (theta + s * acc)
    term = acc = 1.0
    for j in range(1, (df - 2) // 2 + 1):
        term *= c2 * (2 * j - 1) / (2 * j)
        acc += term
    return s * acc


def t_quantile(level: float, df: int) -> float:
    """The half-width multiplier of a two-sided ``level`` Student-t interval with ``df`` degrees
    of freedom (``t_quantile(0.95, 1) = 12.706``); the normal quantile for ``df > 10**5``."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    df = int(df)
    if df < 1:
        raise ValueError(f"df must be at least 1, got {df}")
    if df > 100_000:
        return statistics.NormalDist().inv_cdf(0.5 + level / 2)
    lo, hi = 0.0, math.pi / 2  # bisection on theta = atan(t / sqrt(df)), where P is monotone
    for _ in range(100):
        mid = (lo + hi) / 2
        if _t_two_sided_prob(math.sqrt(df) * math.tan(mid), df) < level:
            lo = mid
        else:
            hi = mid
    return math.sqrt(df) * math.tan((lo + hi) / 2)


@dataclass
class Aggregate:
    """A curve aggregated over runs: at each ``x``, the ``mean`` over the ``n`` runs that have a
    value there and the ``level`` Student-t interval ``[low, high]`` of that mean
    (``mean -+ t * sd / sqrt(n)``, sd with ``ddof=1``); NaN where fewer than 2 runs."""

    x: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    n: np.ndarray
    level: float = 0.95


def mean_interval(values: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Column-wise mean and Student-t interval of ``values`` (runs x points, NaN: missing).
    Returns ``(mean, low, high, n)``; the interval is NaN where fewer than 2 runs have a value."""
    v = np.atleast_2d(np.asarray(values, dtype=float))
    ok = np.isfinite(v)
    n = ok.sum(axis=0)
    total = np.where(ok, v, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, total / np.maximum(n, 1), np.nan)
        dev2 = np.where(ok, (v - mean) ** 2, 0.0).sum(axis=0)
        sd = np.sqrt(dev2 / np.maximum(n - 1, 1))
    tq = np.array([t_quantile(level, k - 1) if k >= 2 else np.nan for k in n], dtype=float)
    half = tq * sd / np.sqrt(np.maximum(n, 1))
    half = np.where(n >= 2, half, np.nan)
    return mean, mean - half, mean + half, n


def ema(values: np.ndarray, weight: float) -> np.ndarray:
    """TensorBoard's smoothing: an exponential moving average with weight ``weight`` in [0, 1),
    debiased at the start (``weight=0``: the values unchanged)."""
    v = np.asarray(values, dtype=float)
    if not 0 <= weight < 1:
        raise ValueError(f"smoothing weight must be in [0, 1), got {weight}")
    if weight == 0 or v.size == 0:
        return v.copy()
    out = np.empty_like(v)
    last = 0.0
    for i, x in enumerate(v):
        last = last * weight + (1 - weight) * x
        out[i] = last / (1 - weight ** (i + 1))
    return out


def aggregate(xs: Sequence[np.ndarray], ys: Sequence[np.ndarray], level: float = 0.95,
              grid: np.ndarray | None = None) -> Aggregate:
    """Aggregate curves ``(xs[i], ys[i])`` of several runs on one x grid.

    * All runs logged at the same x (the same config logs at the same updates): those points.
    * Otherwise (global steps differ a little between seeds), or with an explicit ``grid``: each
      curve is interpolated linearly at the grid points inside its own x range and missing
      (NaN) outside it. The default grid spans the x range all runs share, with as many points
      as the median run has there.
    """
    xs = [np.asarray(x, dtype=float) for x in xs]
    ys = [np.asarray(y, dtype=float) for y in ys]
    if not xs:
        raise ValueError("aggregate needs at least one curve")
    for x, y in zip(xs, ys):
        if x.shape != y.shape:
            raise ValueError(f"x and y differ in length: {x.shape} vs {y.shape}")
    if grid is None and all(x.shape == xs[0].shape and np.array_equal(x, xs[0]) for x in xs):
        mean, low, high, n = mean_interval(np.stack(ys), level)
        return Aggregate(xs[0].copy(), mean, low, high, n, level)
    if grid is None:
        nonempty = [x for x in xs if x.size]
        lo = max(float(x.min()) for x in nonempty)
        hi = min(float(x.max()) for x in nonempty)
        if lo > hi:  # no shared range: fall back to the union of the ranges
            lo, hi = min(float(x.min()) for x in nonempty), max(float(x.max()) for x in nonempty)
        counts = [int(((x >= lo) & (x <= hi)).sum()) for x in nonempty]
        k = max(2, int(np.median(counts))) if hi > lo else 1
        grid = np.linspace(lo, hi, k)
    grid = np.asarray(grid, dtype=float)
    rows = []
    for x, y in zip(xs, ys):
        if x.size == 0:
            rows.append(np.full(grid.shape, np.nan))
            continue
        order = np.argsort(x, kind="stable")
        xi, yi = x[order], y[order]
        inside = (grid >= xi[0]) & (grid <= xi[-1])
        rows.append(np.where(inside, np.interp(grid, xi, yi), np.nan))
    mean, low, high, n = mean_interval(np.stack(rows), level)
    return Aggregate(grid, mean, low, high, n, level)


def aggregate_runs(runs: Sequence[Run], tag: str, x: str = "global_step", smooth: float = 0.0,
                   level: float = 0.95, key=None) -> dict[str, Aggregate]:
    """Per config name (see :func:`group_runs`), :func:`aggregate` of ``tag`` over its runs
    (each run's curve first smoothed by :func:`ema` with weight ``smooth``). Runs without the
    tag are left out; a group with none is absent."""
    out = {}
    for name, group in group_runs(runs, key).items():
        have = [r.scalars[tag] for r in group if tag in r.scalars and len(r.scalars[tag].value)]
        if have:
            out[name] = aggregate([s.x(x) for s in have], [ema(s.value, smooth) for s in have], level)
    return out


def final_values_markdown(runs: Sequence[Run], tags: Sequence[str], level: float = 0.95, key=None) -> str:
    """A Markdown table: per config name and tag, the mean over its runs of each run's last
    value, with the Student-t interval across the runs."""
    groups = group_runs(runs, key)
    lines = ["| tag | " + " | ".join(f"{g} (n={len(rs)})" for g, rs in groups.items()) + " |",
             "|---|" + "---|" * len(groups)]
    for tag in tags:
        cells = []
        for rs in groups.values():
            last = [float(r.scalars[tag].value[-1]) for r in rs if tag in r.scalars and len(r.scalars[tag].value)]
            if not last:
                cells.append("—")
                continue
            m, lo, hi, n = (a[0] for a in mean_interval(np.array(last)[:, None], level))
            cells.append(f"{m:.4g}" + (f" [{lo:.4g}, {hi:.4g}]" if n >= 2 else ""))
        lines.append(f"| {tag} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


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
    for ax, tag in zip(axes, tags):
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


def _tournament_dir(path: str | Path) -> Path:
    p = Path(path)
    if p.is_file():
        return p.parent
    if not p.is_absolute() and not p.exists() and (REPO_ROOT / p).exists():
        p = REPO_ROOT / p
    if not (p / "tournament.json").is_file():
        raise FileNotFoundError(f"{path}: no tournament.json (a folder written by write_tournament)")
    return p


def find_tournament(runs: Sequence[Run]) -> Path | None:
    """The first ``tournament/`` folder (as written by ``experiments.quickstart``) in the runs."""
    for r in runs:
        if (r.path / "tournament" / "tournament.json").is_file():
            return r.path / "tournament"
    return None


def load_tournament(path: str | Path) -> dict:
    """The summary dict of ``tournament.json`` (a folder, or the file itself)."""
    return json.loads((_tournament_dir(path) / "tournament.json").read_text())


def read_ratings(path: str | Path) -> list[dict]:
    """The rows of ``ratings.csv`` (numbers converted), or of ``tournament.json`` without it."""
    d = _tournament_dir(path)
    f = d / "ratings.csv"
    if not f.is_file():
        return load_tournament(d)["ratings"]
    rows = []
    with open(f, newline="") as fh:
        for row in csv.DictReader(fh):
            out = {}
            for k, v in row.items():
                try:
                    out[k] = int(v) if k in ("rank", "results") else (float(v) if v not in ("", "None") else None)
                except ValueError:
                    out[k] = v
            rows.append(out)
    return rows


def ratings_markdown(ratings: Sequence[dict]) -> str:
    """A Markdown table of rating rows (rank, agent, Elo with its interval, score, results)."""
    lines = ["| rank | agent | Elo | 95% CI | score | results |", "|---|---|---|---|---|---|"]
    for r in ratings:
        score = r.get("score")
        lines.append(f"| {r['rank']} | {short_label(r['agent'])} | {r['elo']:+.0f} | [{r['elo_low']:+.0f}, {r['elo_high']:+.0f}] "
                     f"| {'—' if score is None else f'{100 * score:.1f}%'} | {r.get('results', '—')} |")
    return "\n".join(lines)


def short_label(agent: str) -> str:
    """A display label: ``ppo:runs/x__0__t/checkpoints/best.pt`` -> ``ppo:x__0__t/best.pt``,
    ``ppo:runs/x__0__t`` -> ``ppo:x__0__t``; other labels unchanged."""
    prefix, sep, path = str(agent).partition(":")
    if not sep or ("/" not in path and os.sep not in path):
        return str(agent)
    p = Path(path)
    if p.parent.name == "checkpoints":
        return f"{prefix}:{p.parent.parent.name}/{p.name}"
    return f"{prefix}:{p.name}"


def plot_tournament(summary: dict, ratings: Sequence[dict] | None = None):
    """The win-rate matrix as an annotated heatmap (row agent against column agent, 95% Wilson
    interval) and the Elo ratings with their 95% intervals. Returns the figure."""
    import matplotlib.pyplot as plt

    from experiments.tournament import draw_heatmap

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


# --- a tiny demo -------------------------------------------------------------------------------

#: overrides of the defaults (no YAML file needed) for a PPO run of a few seconds
DEMO_OVERRIDES = [
    "--algo", "ppo", "--total_steps", "1024", "--torch_threads", "1",
    "--env.max_steps", "100", "--env.rule_options", "{target: 10}",
    "--ppo.num_games", "8", "--ppo.num_steps", "32", "--ppo.hidden", "[32, 32]", "--ppo.num_minibatches", "2",
    "--ppo.update_epochs", "2",
    "--league.snapshot_every", "2", "--league.gate_pairs", "2", "--league.bot_weight", "0.8",
    "--league.snapshot_weight", "0.1",
    "--eval.every", "2", "--eval.pairs", "1", "--eval.bots", "[simple, neller]",  # bots that end hands quickly
    "--log.name", "demo_ppo", "--log.checkpoint_every", "2", "--log.progress", "false",
]


def make_demo(root: str | Path | None = None, seeds: Sequence[int] = (0, 1), tournament_pairs: int = 2) -> dict:
    """Train the tiny :data:`DEMO_OVERRIDES` PPO config once per seed under ``root`` (a new
    temporary folder by default) and play a tiny round robin of the first run against two bots,
    written by ``write_tournament`` (without the PNG heatmap). A few seconds per seed.

    Returns ``{"root", "runs" (a glob of the run folders), "run_dirs", "tournament"}``.
    """
    import tempfile

    from experiments.config import load_config
    from experiments.schema import TrainConfig
    from experiments.tournament import round_robin, summarize_tournament, write_tournament
    from experiments.train import run_training

    root = Path(tempfile.mkdtemp(prefix="hollywood-demo-") if root is None else root)
    root.mkdir(parents=True, exist_ok=True)
    run_dirs = []
    cfg = None
    for seed in seeds:
        cfg = load_config(TrainConfig, None, DEMO_OVERRIDES + ["--seed", str(seed), "--log.root", str(root / "runs")])
        run_dir, _ = run_training(cfg)
        run_dirs.append(run_dir)
    t = round_robin([f"ppo:{run_dirs[0]}", "simple", "neller"], cfg.env.make_rules(), tournament_pairs, seed=1,
                    max_steps=400)
    summary = summarize_tournament(t, cfg.env.reward, n_boot=200, n_boot_ratings=50)
    tour = root / "tournament"
    write_tournament(summary, tour, plot=False)
    return {"root": root, "runs": str(root / "runs" / "*"), "run_dirs": run_dirs, "tournament": tour}


# --- one match, hand by hand -------------------------------------------------------------------


@dataclass
class SheetSnapshot:
    """The scoresheet of one match at a point: ``columns``, ``hands_scored`` (2, C) int,
    ``opened`` (2, C) bool, ``game_winner`` (C,) (-1: in progress), ``totals`` (2, C): columns
    plus the bonuses of ended games."""

    columns: np.ndarray
    hands_scored: np.ndarray
    opened: np.ndarray
    game_winner: np.ndarray
    totals: np.ndarray

    @classmethod
    def of(cls, state, game: int = 0) -> "SheetSnapshot":
        sh = state.sheet
        return cls(columns=sh.columns[game].copy(), hands_scored=sh.hands_scored[game].copy(),
                   opened=sh.opened[game].copy(), game_winner=sh.game_winner[game].astype(np.int64),
                   totals=sh.totals(np.array([game]))[0].copy())


@dataclass
class HandRecord:
    """One hand of a recorded match (seats 0 and 1; card indices, see :mod:`hollywood_env.cards`).

    The deal: ``number`` (1-based, walls included), ``dealer``, ``dealt`` (each seat's 10 cards),
    ``upcard``, ``knock_limit``, ``multiplier``. The play: ``moves`` ((seat, action) pairs).
    The end: ``kind`` (knock, gin, undercut, big_gin, wall), ``knocker`` / ``winner`` (None for
    a wall), ``points``, the deadwoods, ``final_hands``, the melds, ``laid_off``,
    ``defender_deadwood_cards``, ``discard_pile`` (bottom to top) and ``stock`` (cards left),
    ``columns_credited`` / ``games_ended`` (1-based games), and ``sheet`` after the hand.
    """

    number: int
    dealer: int
    dealt: tuple[list[int], list[int]]
    upcard: int
    knock_limit: int
    multiplier: int
    moves: list[tuple[int, int]] = field(default_factory=list)
    kind: str = ""
    knocker: int | None = None
    winner: int | None = None
    points: int = 0
    knocker_deadwood: int = 0
    defender_deadwood: int = 0
    final_hands: tuple[list[int], list[int]] = ([], [])
    knocker_melds: list[list[int]] = field(default_factory=list)
    defender_melds: list[list[int]] = field(default_factory=list)
    laid_off: list[int] = field(default_factory=list)
    defender_deadwood_cards: list[int] = field(default_factory=list)
    discard_pile: list[int] = field(default_factory=list)
    stock: list[int] = field(default_factory=list)
    columns_credited: list[int] = field(default_factory=list)
    games_ended: list[int] = field(default_factory=list)
    sheet: SheetSnapshot | None = None

    @property
    def wall(self) -> bool:
        return self.kind == "wall"


@dataclass
class MatchRecord:
    """A recorded match: ``hands`` (finished hands, in order; the record also iterates over
    them), the agents (``specs``, display ``names``; ``specs[0]`` in seat 0), the rules and
    seed, the result (``match_winner``: 0, 1, 2 for a draw, -1 unfinished), and the final core
    ``state`` (batch size 1)."""

    specs: tuple[str, str]
    names: tuple[str, str]
    rules: Any
    seed: int
    hands: list[HandRecord]
    match_winner: int
    terminated: bool
    truncated: bool
    decisions: int
    state: Any = None

    def __iter__(self):
        return iter(self.hands)

    def __len__(self) -> int:
        return len(self.hands)

    def __getitem__(self, i):
        return self.hands[i]

    @property
    def final_sheet(self) -> SheetSnapshot:
        return SheetSnapshot.of(self.state)


def _start_hand(state) -> HandRecord:
    from hollywood_env.cards import mask_to_cards

    return HandRecord(number=int(state.hand_number[0]) + 1, dealer=int(state.dealer[0]),
                      dealt=(mask_to_cards(int(state.hands[0, 0])), mask_to_cards(int(state.hands[0, 1]))),
                      upcard=int(state.pile[0, 0]), knock_limit=int(state.knock_limit[0]),
                      multiplier=int(state.multiplier[0]))


def record_match(agent_a="simple", agent_b="hollywood", rules="hollywood", seed: int = 0, max_steps: int | None = 3000,
                 names: Sequence[str] | None = None) -> MatchRecord:
    """Play one match of ``agent_a`` (seat 0) against ``agent_b`` (seat 1) in the batched core at
    batch size 1 and record it hand by hand.

    Agents are :func:`agents.registry.make_agent` specs or policies; ``seed`` fixes the deals
    (``core.init(1, rules, seed)``) and the agents' own randomness. ``max_steps`` caps the
    decisions (a truncated match keeps its finished hands). Returns a :class:`MatchRecord`.
    """
    from agents.registry import make_agent
    from experiments.tournament import unique_labels
    from hollywood_env import core
    from hollywood_env.actions import DRAW_STOCK, KNOCK
    from hollywood_env.observation import encode
    from hollywood_env.render import hand_summary
    from hollywood_env.rules import resolve_rules

    rules = resolve_rules(rules)
    specs = tuple(a if isinstance(a, str) else getattr(a, "name", type(a).__name__) for a in (agent_a, agent_b))
    names = tuple(names) if names is not None else tuple(unique_labels(list(specs)))
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence([int(seed), 0x5EED]).spawn(2)]
    policies = [make_agent(agent_a, rules, seed=rngs[0]), make_agent(agent_b, rules, seed=rngs[1])]
    state = core.init(1, rules, seed=int(seed), max_steps=max_steps)
    hands: list[HandRecord] = []
    current = _start_hand(state)
    decisions = 0
    while not state.done[0]:
        seat = int(state.current_player[0])
        a = int(np.asarray(policies[seat](encode(state), state.legal_action_mask)).reshape(-1)[0])
        pile_before = state.pile[0, : state.pile_size[0]].astype(int).tolist()
        stock_before = state.deck[0, state.stock_pos[0]:].astype(int).tolist()
        core.step(state, np.array([a], dtype=np.int64))  # raises on an illegal action
        decisions += 1
        current.moves.append((seat, a))
        if not state.hand_ended[0]:
            continue
        s = hand_summary(state, 0, names=(0, 1))  # names = seats
        h = current
        h.kind, h.knocker, h.winner, h.points = s["kind"], s["knocker"], s["winner"], s["points"]
        h.knocker_deadwood, h.defender_deadwood = s["knocker_deadwood"], s["defender_deadwood"]
        h.final_hands = (s["hands"][0], s["hands"][1])
        h.knocker_melds, h.defender_melds, h.laid_off = s["knocker_melds"], s["defender_melds"], s["laid_off"]
        if h.knocker is not None:
            kept = {c for m in h.defender_melds for c in m} | set(h.laid_off)
            h.defender_deadwood_cards = [c for c in h.final_hands[1 - h.knocker] if c not in kept]
        h.discard_pile = pile_before + ([a % KNOCK] if a < DRAW_STOCK else [])
        h.stock = stock_before
        h.columns_credited, h.games_ended = s["columns_credited"], s["games_ended"]
        h.sheet = SheetSnapshot.of(state)
        hands.append(h)
        if not state.done[0]:
            current = _start_hand(state)
    mw = int(state.match_winner[0])
    return MatchRecord(specs=specs, names=names, rules=rules, seed=int(seed), hands=hands,
                       match_winner=mw if bool(state.terminated[0]) else -1, terminated=bool(state.terminated[0]),
                       truncated=bool(state.truncated[0]), decisions=decisions, state=state)


# --- views of a recorded match -----------------------------------------------------------------

_RED = "#c0392b"


def cards_text(cards: Iterable[int], html: bool = False) -> str:
    """Cards with unicode suits, sorted by suit then rank (``A♣ 7♣ T♦``); ``html`` colours ♦ and
    ♥ red. ``—`` for none."""
    from hollywood_env.cards import format_card, sort_cards

    out = []
    for c in sort_cards(cards):
        s = format_card(c, unicode=True)
        if html and c // 13 in (1, 2):
            s = f'<span style="color:{_RED}">{s}</span>'
        out.append(s)
    return " ".join(out) if out else "—"


def melds_text(melds: Sequence[Sequence[int]], html: bool = False) -> str:
    """Melds as ``[7♣ 7♦ 7♠] [3♥ 4♥ 5♥]``; ``—`` for none."""
    return " ".join("[" + cards_text(m, html) + "]" for m in melds) if melds else "—"


def scoresheet_markdown(sheet: SheetSnapshot, names: Sequence[str], target: int | None = None) -> str:
    """The scoresheet as a Markdown table: per game a player's column points and, in brackets,
    the hands credited to it (``—``: not opened), **W** for the winner of an ended game, and the
    total with the bonuses of ended games."""
    c = sheet.columns.shape[1]
    lines = ["| | " + " | ".join(f"game {k + 1}" for k in range(c)) + " | total |", "|---|" + "---:|" * (c + 1)]
    for p in (0, 1):
        cells = []
        for k in range(c):
            cell = f"{int(sheet.columns[p, k])} ({int(sheet.hands_scored[p, k])})" if sheet.opened[p, k] else "—"
            if sheet.game_winner[k] == p:
                cell = f"**{cell} W**"
            cells.append(cell)
        lines.append(f"| {names[p]} | " + " | ".join(cells) + f" | {int(sheet.totals[p].sum())} |")
    if target is not None:
        lines.append(f"\n*target {target}; (n): hands credited to the column; W: game won; totals include the "
                     f"bonuses of ended games*")
    return "\n".join(lines)


def _result_text(h: HandRecord, names: Sequence[str]) -> str:
    if h.wall:
        return "**The wall**: two cards left in the stock, nobody scores; the same dealer deals again."
    k, d = h.knocker, 1 - h.knocker
    what = {"gin": "goes gin", "big_gin": "goes big gin", "knock": f"knocks with {h.knocker_deadwood}",
            "undercut": f"knocks with {h.knocker_deadwood}"}[h.kind]
    text = f"**{names[k]} {what}**; {names[d]} has {h.defender_deadwood} deadwood"
    if h.laid_off:
        text += f" after laying off {len(h.laid_off)} card{'s' if len(h.laid_off) > 1 else ''}"
    text += ". "
    if h.kind == "undercut":
        text += f"**Undercut**: {names[h.winner]} scores {h.points}"
    else:
        text += f"{names[h.winner]} scores {h.points}"
    if h.multiplier > 1:
        text += " (doubled: spade upcard)"
    if h.columns_credited:
        text += f", entered in game{'s' if len(h.columns_credited) > 1 else ''} {', '.join(map(str, h.columns_credited))}"
    text += "."
    if h.games_ended:
        text += f" Game{'s' if len(h.games_ended) > 1 else ''} {', '.join(map(str, h.games_ended))} ended."
    return text


def hand_markdown(h: HandRecord, names: Sequence[str], html: bool = True, show_moves: bool = False,
                  target: int | None = None) -> str:
    """One hand as Markdown: the deal, both hands at the end with melds, lay-offs and deadwood,
    the discard pile and stock left, the result, and the scoresheet after the hand. ``html``:
    red ♦ ♥; ``show_moves``: every decision, in a collapsible block."""
    from hollywood_env.actions import action_name

    cell = lambda cards: cards_text(cards, html)  # noqa: E731
    up = cell([h.upcard])
    head = (f"### Hand {h.number} — dealer {names[h.dealer]}, upcard {up}, knock limit {h.knock_limit}"
            f"{', score doubled' if h.multiplier > 1 else ''}")
    rows = ["| | " + " | ".join(names) + " |", "|---|---|---|",
            "| dealt | " + " | ".join(cell(h.dealt[p]) for p in (0, 1)) + " |",
            "| at the end | " + " | ".join(cell(h.final_hands[p]) for p in (0, 1)) + " |"]
    if not h.wall:
        k = h.knocker
        melds = {k: h.knocker_melds, 1 - k: h.defender_melds}
        melded = {p: {c for m in melds[p] for c in m} for p in (0, 1)}
        dead = {k: [c for c in h.final_hands[k] if c not in melded[k]], 1 - k: h.defender_deadwood_cards}
        dw = {k: h.knocker_deadwood, 1 - k: h.defender_deadwood}
        role = {k: "knocker", 1 - k: "defender"}
        rows.append("| role | " + " | ".join(role[p] for p in (0, 1)) + " |")
        rows.append("| melds | " + " | ".join(melds_text(melds[p], html) for p in (0, 1)) + " |")
        rows.append("| laid off | " + " | ".join(cell(h.laid_off) if p == 1 - k else "—" for p in (0, 1)) + " |")
        rows.append("| deadwood | " + " | ".join(f"{cell(dead[p])} = **{dw[p]}**" for p in (0, 1)) + " |")
    parts = [head, "", "\n".join(rows), "",
             f"Discard pile ({len(h.discard_pile)}, top last): {cell(h.discard_pile)}  \n"
             f"Stock left: {len(h.stock)} cards · {len(h.moves)} decisions", "", _result_text(h, names)]
    if show_moves:
        moves = "; ".join(f"{names[p]}: {action_name(a)}" for p, a in h.moves)
        parts += ["", f"<details><summary>moves</summary>\n\n{moves}\n\n</details>"]
    if h.sheet is not None:
        parts += ["", scoresheet_markdown(h.sheet, names, target)]
    return "\n".join(parts)


def match_markdown(m: MatchRecord) -> str:
    """A header for the match: agents, rules, seed, hands, and the result."""
    r = m.rules
    walls = sum(h.wall for h in m.hands)
    head = [f"## {m.names[0]} (seat 0) vs {m.names[1]} (seat 1)", "",
            f"rules `{r.preset_name or 'custom'}` (target {r.target}, {r.columns} games), seed {m.seed}: "
            f"{len(m.hands)} hands ({walls} walls), {m.decisions} decisions."]
    if m.terminated:
        head.append("**Result:** " + ("a draw." if m.match_winner == 2 else f"{m.names[m.match_winner]} wins the match."))
    else:
        head.append(f"**Unfinished:** truncated after {m.decisions} decisions (max_steps).")
    return "\n".join(head)


def match_table_markdown(m: MatchRecord) -> str:
    """One row per hand: dealer, result, points, and the totals after it."""
    n0, n1 = m.names
    lines = [f"| hand | dealer | result | winner | points | games | total {n0} | total {n1} |",
             "|---:|---|---|---|---:|---|---:|---:|"]
    for h in m.hands:
        who = "wall" if h.wall else f"{h.kind} (knocker {m.names[h.knocker]})"
        win = "—" if h.winner is None else m.names[h.winner]
        games = ", ".join(map(str, h.columns_credited)) or "—"
        t = h.sheet.totals.sum(axis=1)
        lines.append(f"| {h.number} | {m.names[h.dealer]} | {who} | {win} | {h.points} | {games} | {int(t[0])} | {int(t[1])} |")
    return "\n".join(lines)


def sheet_history(m: MatchRecord, what: str = "columns") -> tuple[np.ndarray, np.ndarray]:
    """``(hand numbers, values)``: the start (hand 0, all zero) then each hand's sheet;
    ``values`` is (hands + 1, 2, C) of ``what`` (``columns``, ``totals`` or ``hands_scored``)."""
    c = m.rules.columns
    x = np.array([0] + [h.number for h in m.hands])
    vals = np.stack([np.zeros((2, c), dtype=np.int64)] + [getattr(h.sheet, what) for h in m.hands])
    return x, vals


def plot_scoresheet(m: MatchRecord, what: str = "columns"):
    """Each scoresheet column over the match: one line per player per column (colour: the
    game, solid: seat 0, dashed: seat 1), the target as a dotted line, a star where a game
    ended. ``what="totals"`` plots the totals with bonuses instead. Returns the figure."""
    import matplotlib.pyplot as plt

    x, vals = sheet_history(m, what)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    c = vals.shape[2]
    for k in range(c):
        for p, style in ((0, "-"), (1, "--")):
            ax.step(x, vals[:, p, k], where="post", linestyle=style, color=f"C{k}",
                    label=f"game {k + 1}: {m.names[p]}")
    for h in m.hands:
        for g in h.games_ended:
            ax.plot([h.number], [getattr(h.sheet, what)[h.winner, g - 1]], marker="*", markersize=14,
                    color=f"C{g - 1}", markeredgecolor="black")
    if what == "columns":
        ax.axhline(m.rules.target, color="grey", linestyle=":", linewidth=1, label=f"target {m.rules.target}")
    ax.set_xlabel("hand (walls included)")
    ax.set_ylabel("column points" if what == "columns" else what)
    ax.set_title(f"{m.names[0]} (solid) vs {m.names[1]} (dashed): scoresheet {what} after each hand", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    return fig
