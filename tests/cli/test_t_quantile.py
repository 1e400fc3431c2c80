"""The project's one Student-t quantile, :func:`experiments.evaluation.stats.t_quantile`: right
against the published tables (and scipy where installed), and the multiplier of every t interval."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from experiments.analysis import run_reader
from experiments.evaluation import stats

ROOT = Path(__file__).resolve().parents[2]

# t_{(1 + level) / 2, df} from the published tables (4 decimals)
TABLE = [
    (0.95, 1, 12.7062), (0.95, 2, 4.3027), (0.95, 3, 3.1824), (0.95, 4, 2.7764), (0.95, 5, 2.5706),
    (0.95, 9, 2.2622), (0.95, 10, 2.2281), (0.95, 30, 2.0423), (0.95, 120, 1.9799), (0.95, 1000, 1.9623),
    (0.90, 5, 2.0150), (0.90, 20, 1.7247), (0.99, 3, 5.8409), (0.99, 10, 3.1693), (0.80, 7, 1.4149),
]


@pytest.mark.parametrize("level, df, want", TABLE)
def test_t_quantile_matches_the_tables(level, df, want):
    assert stats.t_quantile(level, df) == pytest.approx(want, abs=1e-4)


def test_t_quantile_is_the_normal_quantile_for_huge_df_and_checks_its_arguments():
    assert stats.t_quantile(0.95, 10**6) == pytest.approx(1.959964, abs=1e-6)
    assert stats.t_quantile(0.95, np.int64(10)) == stats.t_quantile(0.95, 10)  # numpy counts, as from .sum()
    for level, df in [(1.0, 3), (0.0, 3), (-0.5, 3), (0.95, 0)]:
        with pytest.raises(ValueError):
            stats.t_quantile(level, df)


def test_t_quantile_agrees_with_scipy():
    t = pytest.importorskip("scipy.stats").t
    for level in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999):
        for df in (1, 2, 3, 4, 5, 6, 7, 8, 11, 25, 60, 99, 100, 1001, 20_000):
            assert stats.t_quantile(level, df) == pytest.approx(t.ppf((1 + level) / 2, df), rel=1e-9), (level, df)


def test_every_t_interval_takes_its_multiplier_from_t_quantile():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    half = stats.t_quantile(0.95, 3) * x.std(ddof=1) / 2
    e = stats.t_interval(x)
    assert (e.low, e.high) == pytest.approx((2.5 - half, 2.5 + half), rel=1e-12)

    vals = np.array([[1.0, 2.0], [2.0, 5.0], [4.0, 6.0]])  # 3 runs x 2 points
    mean, low, high, n = run_reader.mean_interval(vals, level=0.9)
    half = stats.t_quantile(0.9, 2) * vals.std(axis=0, ddof=1) / math.sqrt(3)
    np.testing.assert_allclose(high - mean, half, rtol=1e-12)
    np.testing.assert_allclose(mean - low, half, rtol=1e-12)


def test_no_other_module_defines_a_t_quantile():
    defined = []
    for top in ("hollywood_env", "agents", "experiments"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef) and "t_quantile" in node.name:
                    defined.append(f"{path.relative_to(ROOT)}:{node.name}")
    assert defined and all(d.startswith("experiments/evaluation/stats.py:") for d in defined), defined
