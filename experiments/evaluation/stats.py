"""Confidence intervals and ratings, in numpy only.

* :func:`wilson` -- the Wilson score interval of a rate (successes may be fractional: a drawn
  match counts one half).
* :func:`cluster_bootstrap` -- percentile bootstrap of a ratio of sums, resampling *clusters*
  (duplicate-deal pairs), for means such as points per hand.
* :func:`t_quantile` -- the multiplier of a two-sided Student-t interval, solved from the exact
  t distribution function; the one every t interval here and in
  :mod:`experiments.analysis.run_reader` uses.
* :func:`t_interval` -- the t interval of a mean (pair means, e.g. the match score per pair).
* :func:`bradley_terry` -- Bradley-Terry strengths fitted by Newton's method on all results, with
  a weak prior (one virtual drawn match per pairing) so a perfect record stays finite, standard
  errors from the observed information, and Elo-scale ratings. Ratings are relative: the
  information-weighted mean is 0 (each agent weighted by the Fisher information of its results),
  so an agent with an uninformative record (e.g. random, losing every match) does not widen the
  intervals of the others.
"""

from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
ELO_PER_NAT = 400.0 / math.log(10.0)


@dataclass
class Estimate:
    """A point estimate with its interval and the number of observations behind it."""

    value: float
    low: float
    high: float
    n: float
    method: str = ""

    def to_dict(self) -> dict:
        return {"value": _f(self.value), "low": _f(self.low), "high": _f(self.high), "n": _f(self.n), "method": self.method}

    def fmt(self, pct: bool = False, digits: int = 1) -> str:
        if not np.isfinite(self.value):
            return "n/a"
        k = 100.0 if pct else 1.0
        unit = "%" if pct else ""
        d = digits if pct else max(digits, 2)
        return f"{self.value * k:.{d}f}{unit} [{self.low * k:.{d}f}, {self.high * k:.{d}f}]"


def _f(x):
    x = float(x)
    return x if math.isfinite(x) else None


def wilson(successes: float, n: float, z: float = Z95) -> Estimate:
    """Wilson score interval of the rate ``successes / n``."""
    n = float(n)
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan, 0, "wilson")
    p = float(successes) / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    low = 0.0 if p <= 0 else max(0.0, centre - half)
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return Estimate(p, min(low, p), max(high, p), n, "wilson")


def t_quantile(level: float, df: int) -> float:
    """The half-width multiplier of a two-sided ``level`` Student-t interval with ``df`` degrees
    of freedom: the ``(1 + level) / 2`` quantile of Student's t (``t_quantile(0.95, 1) = 12.706``,
    ``t_quantile(0.95, 10) = 2.228``); the normal quantile for ``df > 10**5``.

    The project's only t quantile: every t interval (:func:`t_interval`, the seed intervals of
    :mod:`experiments.analysis.run_reader`) takes its multiplier from here."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    df = int(df)
    if df < 1:
        raise ValueError(f"df must be at least 1, got {df}")
    return _t_quantile_exact(float(level), df)


@functools.lru_cache(maxsize=1024)
def _t_quantile_exact(level: float, df: int) -> float:
    z = statistics.NormalDist().inv_cdf(0.5 + level / 2)
    if df > 100_000:  # t is within 3e-5 of it at 95%, and the series below costs df / 2 terms
        return z
    if df == 1:  # Cauchy
        return math.tan(math.pi * level / 2)
    # Newton's method on P(|T| <= t) = level from the normal quantile, which lies below the root
    # (t has heavier tails). P is concave for t > 0, so the iterates rise monotonically to the
    # root: no overshoot, no bracketing needed; it stops when a step no longer moves t.
    t = z
    for _ in range(200):
        step = (level - _t_central_prob(t, df)) / (2 * _t_density(t, df))
        t += step
        if step <= 1e-14 * t:
            break
    return t


def _t_central_prob(t: float, df: int) -> float:
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


def _t_density(t: float, df: int) -> float:
    """The density of Student's t with ``df`` degrees of freedom at ``t``."""
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(log_norm - (df + 1) / 2 * math.log1p(t * t / df))


def t_interval(x) -> Estimate:
    """Mean of ``x`` with its 95% t interval."""
    x = np.asarray(x, dtype=np.float64)
    x = x[np.isfinite(x)]
    n = x.shape[0]
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, "t")
    m = float(x.mean())
    if n == 1:
        return Estimate(m, math.nan, math.nan, 1, "t")
    half = t_quantile(0.95, n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return Estimate(m, m - half, m + half, n, "t")


def cluster_bootstrap(num, den=None, n_boot: int = 2000, seed=0, level: float = 0.95) -> Estimate:
    """``sum(num) / sum(den)`` with a percentile bootstrap interval resampling the clusters.

    ``num``, ``den``: one value per cluster (e.g. a duplicate pair's net points and its hands);
    ``den`` defaults to ones (a plain mean of the clusters).
    """
    num = np.asarray(num, dtype=np.float64).reshape(-1)
    den = np.ones_like(num) if den is None else np.asarray(den, dtype=np.float64).reshape(-1)
    k = num.shape[0]
    total = den.sum()
    if k == 0 or total <= 0:
        return Estimate(math.nan, math.nan, math.nan, float(total), "cluster bootstrap")
    value = float(num.sum() / total)
    if k == 1:
        return Estimate(value, math.nan, math.nan, float(total), "cluster bootstrap")
    rng = np.random.default_rng(seed)
    stats = np.empty(n_boot, dtype=np.float64)
    chunk = max(1, 4_000_000 // k)
    for s in range(0, n_boot, chunk):
        e = min(n_boot, s + chunk)
        counts = np.stack([np.bincount(rng.integers(0, k, size=k), minlength=k) for _ in range(e - s)])
        d = counts @ den
        stats[s:e] = np.where(d > 0, (counts @ num) / np.where(d > 0, d, 1), np.nan)
    a = (1 - level) / 2
    lo, hi = np.nanquantile(stats, [a, 1 - a])
    return Estimate(value, float(lo), float(hi), float(total), "cluster bootstrap")


@dataclass
class Ratings:
    names: list
    theta: np.ndarray  # Bradley-Terry strengths (natural log-odds), information-weighted mean 0
    se: np.ndarray
    elo: np.ndarray  # theta on the Elo scale (400 / ln 10 per nat)
    elo_low: np.ndarray
    elo_high: np.ndarray
    score: np.ndarray  # each agent's share of points (wins + draws / 2) over its results
    results: np.ndarray  # results behind the fit per agent

    def to_rows(self) -> list[dict]:
        order = np.argsort(-self.elo, kind="stable")
        return [
            {"rank": i + 1, "agent": self.names[j], "elo": _f(self.elo[j]), "elo_low": _f(self.elo_low[j]),
             "elo_high": _f(self.elo_high[j]), "bt_strength": _f(self.theta[j]), "bt_se": _f(self.se[j]),
             "score": _f(self.score[j]), "results": int(self.results[j])}
            for i, j in enumerate(order)
        ]


def bradley_terry(names, wins: np.ndarray, prior_draws: float = 1.0, iters: int = 100) -> Ratings:
    """Fit Bradley-Terry strengths to ``wins[i, j]``: points of ``i`` against ``j`` (a win 1, a
    draw 1/2 to each side). ``prior_draws`` virtual drawn results are added to every pairing
    that played, so an unbeaten agent keeps a finite rating."""
    w = np.asarray(wins, dtype=np.float64)
    k = w.shape[0]
    n = w + w.T
    played = n > 0
    w = w + np.where(played, prior_draws / 2, 0.0)
    n = n + np.where(played, prior_draws, 0.0)
    np.fill_diagonal(n, 0.0)
    np.fill_diagonal(w, 0.0)
    theta = np.zeros(k)
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
        grad = (w - n * p).sum(axis=1)
        info = n * p * (1 - p)
        h = np.diag(info.sum(axis=1)) - info  # observed information (positive semi-definite)
        step = np.linalg.pinv(h) @ grad
        theta = theta + step
        theta -= theta.mean()
        if np.max(np.abs(step)) < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    info = n * p * (1 - p)
    h = np.diag(info.sum(axis=1)) - info
    # gauge: the information-weighted mean strength is 0, so an agent whose results say little
    # (a perfect record against everyone) does not widen every other agent's interval
    wgt = np.maximum(info.sum(axis=1), 1e-12)
    wgt = wgt / wgt.sum()
    theta = theta - wgt @ theta
    proj = np.eye(k) - np.outer(np.ones(k), wgt)
    cov = proj @ np.linalg.pinv(h) @ proj.T
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    elo = theta * ELO_PER_NAT
    raw = np.asarray(wins, dtype=np.float64)
    results = (raw + raw.T).sum(axis=1)
    score = np.where(results > 0, raw.sum(axis=1) / np.maximum(results, 1e-12), np.nan)
    return Ratings(list(names), theta, se, elo, elo - Z95 * se * ELO_PER_NAT, elo + Z95 * se * ELO_PER_NAT, score, results)


def bradley_terry_bootstrap(names, results, n_boot: int = 300, seed=0, prior_draws: float = 1.0,
                            level: float = 0.95) -> Ratings:
    """Bradley-Terry ratings whose intervals come from a cluster bootstrap.

    ``results``: ``(i, j, a_points, b_points)`` per pairing, the points of agent ``i`` and of
    agent ``j`` in each cluster (a duplicate pair: win 1, draw 1/2 per game). When every pairing
    has the same number of clusters they are taken to be the same deals (a round robin on common
    deals) and resampled jointly. The point estimates are those of :func:`bradley_terry` on all
    results; ``elo_low`` / ``elo_high`` span the bootstrap percentile interval and the
    observed-information one (the wider of the two on each side).
    """
    k = len(names)
    wins = np.zeros((k, k))
    for i, j, a, b in results:
        wins[i, j] += np.sum(a)
        wins[j, i] += np.sum(b)
    base = bradley_terry(names, wins, prior_draws)
    if n_boot <= 0 or not results:
        return base
    sizes = {len(a) for _, _, a, _ in results}
    shared = len(sizes) == 1
    rng = np.random.default_rng(seed)
    elos = np.empty((n_boot, k))
    for t in range(n_boot):
        w = np.zeros((k, k))
        counts = None
        for i, j, a, b in results:
            p = len(a)
            if counts is None or not shared:
                counts = np.bincount(rng.integers(0, p, size=p), minlength=p)
            w[i, j] += counts @ np.asarray(a, dtype=np.float64)
            w[j, i] += counts @ np.asarray(b, dtype=np.float64)
        elos[t] = bradley_terry(names, w, prior_draws, iters=50).elo
    q = (1 - level) / 2
    # the wider of the bootstrap and the observed-information intervals: a perfect record has
    # no bootstrap spread, its uncertainty is all in the prior
    base.elo_low = np.minimum(np.quantile(elos, q, axis=0), base.elo_low)
    base.elo_high = np.maximum(np.quantile(elos, 1 - q, axis=0), base.elo_high)
    return base
