"""``hollywood behaviour`` (experiments.analysis.behaviour): the recorder sees only what the agent
is given and counts knocks right; the command writes its table and figure, and bad input is one
line."""

from __future__ import annotations

import numpy as np

from experiments.analysis.behaviour import Recorder, measure, sheet_lead
from hollywood_env import core
from hollywood_env.actions import KNOCK
from hollywood_env.observation import encode
from hollywood_env.rules import Rules


def test_sheet_lead_sums_the_columns_in_play():
    rules = Rules()
    state = core.init(2, rules, seed=0)  # two first hands; their scoresheets written as below
    me = state.current_player.astype(np.int64)
    columns = state.sheet.columns
    columns[0, me[0], 0], columns[0, 1 - me[0], 0] = 40, 10  # +30 points in column 1
    columns[0, 1 - me[0], 1] = 20  # -20 in column 2
    columns[1, me[1], 2] = 100  # an ended column (won by the viewer) counts nothing
    state.sheet.game_winner[1, 2] = me[1]
    assert np.allclose(sheet_lead(encode(state), rules), [10.0 * rules.target / 100, 0.0])


def test_recorder_counts_knocks_only_where_legal():
    """An agent that knocks whenever it can: every recorded decision is a knock with deadwood <= 10."""
    rules = Rules()

    def knocker(obs, mask):
        knocks = mask[:, KNOCK:KNOCK + 52]
        first_legal = mask.argmax(axis=1)
        return np.where(knocks.any(axis=1), KNOCK + knocks.argmax(axis=1), first_legal)

    rec = Recorder(knocker, rules)
    state = core.init(32, rules, seed=1)
    for _ in range(400):
        a = rec(encode(state), state.legal_action_mask)
        core.step(state, np.where(state.done, 0, a))
        if state.done.any():
            core.reset_games(state, state.done)
    knocked = np.concatenate(rec.knocked)
    assert knocked.size > 0 and knocked.all()
    assert (np.concatenate(rec.deadwood) <= rules.knock_limit).all()


def test_measure_reports_the_figures_of_the_table():
    r = measure("simple", "random", Rules(), matches=4, seed=0)
    assert r["knock_when_legal"].value == 1.0  # simple always knocks when it can
    assert r["match_win_rate"]["value"] == 1.0
    assert 0 <= r["deadwood_at_knock"] <= 10


def test_the_command_writes_the_table_and_the_figure(tmp_path, capsys):
    from experiments.cli import main

    assert main(["behaviour", "simple", "--names", "the simple bot", "--opponent", "random", "--matches", "2",
                 "--out", str(tmp_path)]) == 0
    table = (tmp_path / "behaviour.md").read_text()
    assert "| the simple bot |" in table and "Against `random`, 2 `hollywood` matches" in table
    assert (tmp_path / "behaviour.png").is_file() or "matplotlib not installed" in capsys.readouterr().err


def test_bad_input_is_a_clear_error(tmp_path):
    import subprocess
    import sys

    (tmp_path / "afile").write_text("")
    for args, needle in ((["nosuchbot"], "unknown agent"), (["simple", "--rules", "nope"], "unknown rules preset"),
                         (["simple", "--matches", "1"], "at least 2"), (["simple", "--seed", "-1"], ">= 0"),
                         (["simple", "--names", "a", "b"], "2 labels for 1 agents")):
        r = subprocess.run([sys.executable, "-m", "experiments.cli", "behaviour", *args, "--out", str(tmp_path)],
                           capture_output=True, text=True)
        assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert r.stderr.strip().splitlines()[-1].startswith("hollywood behaviour: error: "), r.stderr
    r = subprocess.run([sys.executable, "-m", "experiments.cli", "behaviour", "simple", "--out",
                        str(tmp_path / "afile")], capture_output=True, text=True)
    assert r.returncode == 2 and "not a folder" in r.stderr and "Traceback" not in r.stderr, r.stderr
