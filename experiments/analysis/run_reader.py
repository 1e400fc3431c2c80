"""Run folders and tournament folders read back, and learning curves aggregated over seeds.

A run folder (written by :mod:`experiments.training.run_writer`) holds ``config.yaml`` and the
scalars of the run, in ``metrics.jsonl`` and in TensorBoard event files. Here:

* :func:`find_runs` / :func:`load_runs`: run folders from glob patterns; each :class:`Run` holds
  its scalars (tag -> :class:`Series`) read from ``metrics.jsonl`` or from the TensorBoard
  event files, its config name (``log.name``) and seed.
* :func:`aggregate` / :func:`aggregate_runs`: the mean over the runs of a config name (its
  seeds) and a Student-t interval of that mean (multiplier
  :func:`experiments.evaluation.stats.t_quantile`), on a common x grid; :func:`ema` is
  TensorBoard's smoothing.
* :func:`runs_markdown`, :func:`final_values_markdown`: Markdown tables of runs and of their
  final values.
* :func:`find_tournament`, :func:`load_tournament`, :func:`read_ratings`,
  :func:`ratings_markdown`: a folder written by
  :func:`experiments.evaluation.tournament.write_tournament` (``hollywood quickstart`` writes one
  inside its run folder).

Plots of these are in :mod:`experiments.analysis.plots`.
"""

from __future__ import annotations

import csv
import glob
import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from experiments.evaluation.stats import t_quantile

REPO_ROOT = Path(__file__).resolve().parents[2]

#: learning-curve tags shown by default (those a run has)
DEFAULT_CURVE_TAGS = (
    "charts/episodic_return", "losses/value_loss", "losses/policy_loss", "losses/entropy", "losses/approx_kl",
    "losses/explained_variance", "losses/td_loss", "losses/q_values", "hollywood/gin_rate",
    "hollywood/knock_deadwood", "hollywood/hands_per_match", "hollywood/wall_rate", "league/gate_win_rate",
    "charts/SPS",
)
EVAL_WIN_RATE_PREFIX = "eval/win_rate_vs_"


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
    from experiments.training.run_writer import read_metrics

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
    for x, y in zip(xs, ys, strict=False):
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
    for x, y in zip(xs, ys, strict=False):
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


# --- tournament folders ------------------------------------------------------------------------


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
    """The first ``tournament/`` folder (as written by ``hollywood quickstart``) in the runs."""
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

