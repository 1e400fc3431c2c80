"""Confidence intervals and ratings, in numpy only.

* :func:`wilson` -- the Wilson score interval of a rate (successes may be fractional: a drawn
  match counts one half).
* :func:`cluster_bootstrap` -- percentile bootstrap of a ratio of sums, resampling *clusters*
  (duplicate-deal pairs), for means such as points per hand.
* :func:`t_interval` -- the t interval of a mean (pair means, e.g. the match score per pair).
* :func:`bradley_terry` -- Bradley-Terry strengths fitted by Newton's method on all results, with
  a weak prior (one virtual drawn match per pairing) so a perfect record stays finite, standard
  errors from the observed information, and Elo-scale ratings. Ratings are relative: the
  information-weighted mean is 0 (each agent weighted by the Fisher information of its results),
  so an agent with an uninformative record (e.g. random, losing every match) does not widen the
  intervals of the others.
"""

from __future__ import annotations

import math
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


def _t_quantile(df: float, q: float = 0.975) -> float:
    """Student-t quantile (Hill's 1970 approximation, accurate to ~1e-4 for df >= 2)."""
    if df <= 0:
        return math.nan
    if df == 1:
        return math.tan(math.pi * (q - 0.5))
    z = _normal_quantile(q)
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4


def _normal_quantile(q: float) -> float:
    """Inverse normal CDF (Acklam's algorithm, relative error < 1.2e-9)."""
    a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
         -3.066479806614716e+01, 2.506628277459239e+00]
    b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
         -1.328068155288572e+01]
    c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
         4.374664141464968e+00, 2.938163982698783e+00]
    d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
    lo = 0.02425
    if q < lo:
        t = math.sqrt(-2 * math.log(q))
        return (((((c[0] * t + c[1]) * t + c[2]) * t + c[3]) * t + c[4]) * t + c[5]) / ((((d[0] * t + d[1]) * t + d[2]) * t + d[3]) * t + 1)
    if q > 1 - lo:
        return -_normal_quantile(1 - q)
    t = q - 0.5
    r = t * t
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * t / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)


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
    half = _t_quantile(n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
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
