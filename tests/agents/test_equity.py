"""agents.search.equity: the match-win equity of a Hollywood scoresheet.

* Play-outs run on the engine's own batched scoresheet and end every match decided.
* The shipped model agrees with its slow reference, the Monte-Carlo equity of the same sheet.
* What is exact stays exact: decided matches, and the two seats' equities summing to one.
* Bad files and rules are clear errors.
"""

import numpy as np
import pytest

from agents.checkpoint import CheckpointError
from agents.search.equity import (
    EQUITY_FILE,
    EquityNet,
    HandOutcomes,
    MatchEquity,
    decided_equity,
    fit_equity,
    load_equity,
    monte_carlo_equity,
    play_out,
    save_equity,
    simulate_training_data,
)
from hollywood_env.rules import Rules, resolve_rules
from hollywood_env.scoring import BatchScoresheet

RULES = resolve_rules("hollywood")
#: a coarse outcome distribution for the tests: 2% walls, wins of 5 to 45 points
OUTCOMES = HandOutcomes(wall=0.02, points=np.array([5, 10, 15, 20, 25, 30, 45]))


def _sheets(n, seed):
    return simulate_training_data(RULES, OUTCOMES, n, np.random.default_rng(seed))


def test_play_outs_end_every_match_decided_on_the_engines_sheet():
    sheet = BatchScoresheet(500, RULES)
    result = play_out(sheet, OUTCOMES, np.random.default_rng(0))
    gw = sheet.game_winner
    a, b = (gw == 0).sum(axis=1), (gw == 1).sum(axis=1)
    assert ((a >= 2) | (b >= 2) | (gw >= 0).all(axis=1)).all()
    np.testing.assert_array_equal(result, np.where(a > b, 1.0, np.where(b > a, 0.0, 0.5)))
    over = sheet.match_over()
    np.testing.assert_array_equal(result[over], np.where(sheet.match_winner(over) == 0, 1.0,
                                                         np.where(sheet.match_winner(over) == 1, 0.0, 0.5)))
    assert 0.4 < result.mean() < 0.6  # equal players


def test_decided_matches_are_exact_and_the_seats_sum_to_one():
    cols, opened, gw, _, _ = _sheets(300, seed=1)
    eq = MatchEquity(EquityNet(18, hidden=8), RULES)  # an untrained network: the exact parts hold anyway
    n = len(cols)
    mine, theirs = eq.of_arrays(cols, opened, gw, np.zeros(n, int)), eq.of_arrays(cols, opened, gw, np.ones(n, int))
    np.testing.assert_allclose(mine + theirs, 1.0, atol=1e-6)
    won = np.array([[0, 0, -1], [1, -1, 1], [0, 1, 1], [0, 1, -1]], dtype=np.int8)
    z = np.zeros((4, 2, 3), dtype=np.int64)
    np.testing.assert_array_equal(eq.of_arrays(z, z.astype(bool), won, np.zeros(4, int))[:3], [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(decided_equity(won, np.ones(4, int), RULES)[:3], [0.0, 1.0, 1.0])
    assert np.isnan(decided_equity(won, np.zeros(4, int), RULES)[3])


def test_a_fitted_model_agrees_with_the_monte_carlo_reference():
    net, metrics = fit_equity(RULES, OUTCOMES, n_matches=20_000, seed=0, epochs=3)
    assert metrics["log_loss"] < metrics["log_loss_constant"] - 0.05
    eq = MatchEquity(net, RULES)
    cols, opened, gw, _, _ = _sheets(40, seed=2)
    rng = np.random.default_rng(3)
    pick = rng.choice(len(cols), 12, replace=False)
    for i in pick:
        for viewer in (0, 1):
            mc = monte_carlo_equity(RULES, OUTCOMES, cols[i], opened[i], gw[i], viewer, 2000, rng)
            model = eq.of_arrays(cols[i:i + 1], opened[i:i + 1], gw[i:i + 1], np.array([viewer]))[0]
            assert abs(model - mc) < 0.07, (cols[i].tolist(), gw[i].tolist(), viewer, model, mc)


@pytest.mark.skipif(not EQUITY_FILE.is_file(), reason="the shipped equity model is not there")
def test_the_shipped_model_agrees_with_monte_carlo_on_its_own_outcomes():
    net, meta = load_equity(EQUITY_FILE)
    outcomes = HandOutcomes(wall=meta["wall"], points=np.array(meta["points"]))
    eq = MatchEquity.from_file(EQUITY_FILE, RULES)
    cols, opened, gw, _, _ = simulate_training_data(RULES, outcomes, 40, np.random.default_rng(4))
    rng = np.random.default_rng(5)
    err = []
    for i in rng.choice(len(cols), 16, replace=False):
        mc = monte_carlo_equity(RULES, outcomes, cols[i], opened[i], gw[i], 0, 3000, rng)
        err.append(abs(eq.of_arrays(cols[i:i + 1], opened[i:i + 1], gw[i:i + 1], np.array([0]))[0] - mc))
    assert np.mean(err) < 0.02 and max(err) < 0.06


def test_bad_files_outcomes_and_rules_are_clear_errors(tmp_path):
    with pytest.raises(CheckpointError, match="not found"):
        load_equity(tmp_path / "missing.pt")
    (tmp_path / "empty.pt").write_bytes(b"")
    with pytest.raises(CheckpointError, match="empty"):
        load_equity(tmp_path / "empty.pt")
    path = tmp_path / "eq.pt"
    save_equity(path, EquityNet(18, hidden=8), {"columns": 3, "target": 100})
    assert MatchEquity.from_file(path, RULES).net.hidden == 8
    with pytest.raises(ValueError, match="fitted for 3 columns to 100"):
        MatchEquity.from_file(path, Rules(target=150))
    with pytest.raises(ValueError, match="majority matches"):
        MatchEquity(EquityNet(18), Rules(match_winner="total"))
    with pytest.raises(ValueError, match="points"):
        HandOutcomes(wall=0.0, points=np.array([0, 5]))
    with pytest.raises(ValueError, match="wall"):
        HandOutcomes(wall=1.0, points=np.array([5]))


def test_hollywood_equity_train_writes_a_model_and_its_card(tmp_path):
    from experiments import cli

    out = tmp_path / "eq.pt"
    rc = cli.main(["equity", "train", "--pairs", "4", "--matches", "200", "--epochs", "1", "--hidden", "8",
                   "--layers", "1", "--check-sheets", "3", "--check-play-outs", "50", "--out", str(out)])
    assert rc == 0
    assert out.exists() and out.with_suffix(".md").exists()
    assert MatchEquity.from_file(out, RULES).net.hidden == 8
    assert "log loss" in out.with_suffix(".md").read_text().lower()


def test_hollywood_equity_bad_input_is_a_clear_error(tmp_path, capsys):
    from experiments import cli

    assert cli.main(["equity", "train", "--matches", "0", "--out", str(tmp_path / "eq.pt")]) == 2
    err = capsys.readouterr().err
    assert "--matches must be positive" in err and "Traceback" not in err
    assert not (tmp_path / "eq.pt").exists()
    assert cli.main(["equity"]) == 2
    assert "train" in capsys.readouterr().out
