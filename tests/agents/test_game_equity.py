"""Game-win equity of one-column games to the target (agents.search.game_equity): the exact table
against its Monte-Carlo reference, its symmetry, and its reading of engine states."""

import json

import numpy as np
import pytest

from agents.search.game_equity import (
    GAME_EQUITY_FILE,
    GameEquity,
    StarterOutcomes,
    default_game_equity,
    equity_table,
    monte_carlo_game_equity,
)
from hollywood_env import core

# a lopsided model: the starter wins 60% of scored hands, small knocks and big gins
OUTCOMES = StarterOutcomes.from_counts([0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                        0, 0, 3], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2])


def test_the_table_equals_its_monte_carlo_reference():
    table = equity_table(OUTCOMES, 60)
    rng = np.random.default_rng(7)
    for a, b, s in [(0, 0, 1), (0, 0, 0), (50, 10, 0), (20, 57, 1), (59, 59, 0)]:
        mc = monte_carlo_game_equity(OUTCOMES, 60, a, b, bool(s), 40_000, rng)
        assert table[a, b, s] == pytest.approx(mc, abs=0.012), (a, b, s)


def test_the_equities_of_the_two_players_sum_to_one():
    table = equity_table(OUTCOMES, 60)
    np.testing.assert_allclose(table[:, :, 1] + table[:, :, 0].T, 1.0, atol=1e-12)
    assert table[0, 0, 1] > 0.5 > table[0, 0, 0]  # this model favours the starter
    assert (np.diff(table, axis=0) >= -1e-12).all() and (np.diff(table, axis=1) <= 1e-12).all()  # more points help


def test_the_shipped_model_reads_engine_states():
    eq = default_game_equity("eaai")
    assert eq is not None and default_game_equity("hollywood") is None and default_game_equity("gin-rummy") is None
    meta = json.loads(GAME_EQUITY_FILE.read_text(encoding="utf-8"))
    assert meta["rules"] == "eaai" and meta["command"].startswith("python -m agents.search.game_equity")
    s = core.init(3, "eaai", seed=1)
    s.sheet.columns[:, :, 0] = [[0, 0], [90, 20], [20, 99]]
    e0 = eq(s.sheet, np.arange(3), np.zeros(3, dtype=int))
    e1 = eq(s.sheet, np.arange(3), np.ones(3, dtype=int))
    np.testing.assert_allclose(e0 + e1, 1.0, atol=0.02)  # the starter's small edge averaged out
    assert abs(e0[0] - 0.5) < 0.02 and e0[1] > 0.85 and e0[2] < 0.15
    assert eq.of_scores(np.array([100, 3]), np.array([40, 105]), None).tolist() == [1.0, 0.0]


def test_bad_models_and_rules_are_refused(tmp_path):
    with pytest.raises(ValueError, match="one-column games with no game or box bonus"):
        GameEquity(OUTCOMES, "gin-rummy")
    with pytest.raises(ValueError, match="sum to 1"):
        StarterOutcomes(np.array([0.0, 0.5]), np.array([0.0, 0.2]))
    bad = tmp_path / "x.json"
    bad.write_text('{"format": "other"}')
    with pytest.raises(ValueError, match="not a hollywood-game-equity file"):
        GameEquity.from_file(bad, "eaai")
