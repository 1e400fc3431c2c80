"""Duplicate-deal matches, statistics, round robins and the ``hollywood`` command line."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from agents.matches import play_pairing
from experiments.cli import main
from experiments.evaluation import stats
from experiments.evaluation.head_to_head import evaluate, format_summary, summarize
from experiments.evaluation.tournament import format_tournament, round_robin, summarize_tournament, write_tournament
from hollywood_env import core

# --- duplicate deals -------------------------------------------------------------------------------


def test_duplicate_deals_replay_the_same_cards_with_seats_swapped():
    n = 16
    r = play_pairing("random", "simple", "hollywood", n_pairs=n, seed=5, max_steps=300)
    # the cards A held in game i are the cards B held in game i + n, and the other way round
    assert np.array_equal(r.first_hand_a[:n], r.first_hand_b[n:])
    assert np.array_equal(r.first_hand_b[:n], r.first_hand_a[n:])
    assert np.array_equal(r.slot_seed[:n], r.slot_seed[n:])
    assert (r.a_seat[:n] == 0).all() and (r.a_seat[n:] == 1).all()
    assert len(set(r.first_hand_a[:n].tolist())) == n  # different deals across pairs
    # the engine deals equal slot seeds alike: same decks, same first dealer, every hand
    state = core.init(2 * n, "hollywood", seed=np.concatenate([r.slot_seed[:n]] * 2))
    assert np.array_equal(state.deck[:n], state.deck[n:])
    assert np.array_equal(state.dealer[:n], state.dealer[n:])
    assert np.array_equal(state.hands[:n], state.hands[n:])


def test_deterministic_bots_mirror_each_other_in_duplicate_pairs():
    """simple vs simple: the two games of a pair are the same game with the names swapped."""
    n = 30
    r = play_pairing("simple", "simple", "gin-rummy", n_pairs=n, seed=9)
    assert np.array_equal(r.a_hands[:n], r.b_hands[n:])
    assert np.array_equal(r.a_points[:n], r.b_points[n:])
    assert np.array_equal(r.hands[:n], r.hands[n:])
    mw = r.match_winner
    assert np.array_equal(mw[:n], 1 - mw[n:])
    assert (mw == 0).sum() == (mw == 1).sum() == n


def test_per_hand_mode_plays_one_hand_per_game():
    r = play_pairing("simple", "random", "hollywood", n_pairs=40, seed=1, per_hand=True)
    assert (r.hands == 1).all()
    assert not r.truncated.any() and r.terminated.all()
    s = summarize(r, n_boot=100)
    assert "match_win_rate" not in s["metrics"] and s["hands"] == 80
    assert s["metrics"]["hand_win_rate"]["value"] > 0.9


def test_truncated_matches_are_counted_apart():
    r = play_pairing("random", "random", "hollywood", n_pairs=10, seed=0, max_steps=50)
    assert r.truncated.all() and (r.match_winner == -1).all()
    s = summarize(r, n_boot=50)
    assert s["matches_truncated"] == 20 and s["matches_completed"] == 0
    assert s["metrics"]["match_win_rate"]["value"] is None


def test_chunked_batches_give_the_same_results():
    a = play_pairing("neller", "simple", "gin-rummy-simple", n_pairs=12, seed=3, batch_pairs=12)
    b = play_pairing("simple", "simple", "gin-rummy-simple", n_pairs=12, seed=3, batch_pairs=5)
    c = play_pairing("simple", "simple", "gin-rummy-simple", n_pairs=12, seed=3, batch_pairs=12)
    assert np.array_equal(b.slot_seed, c.slot_seed)
    for name in ("match_winner", "a_points", "b_points", "hands", "first_hand_a"):
        assert np.array_equal(getattr(b, name), getattr(c, name)), name
    assert a.n_pairs == 12 and a.n_games == 24


# --- statistics ------------------------------------------------------------------------------------


def test_wilson_interval():
    e = stats.wilson(8, 10)
    assert e.value == 0.8
    assert e.low == pytest.approx(0.4902, abs=1e-4) and e.high == pytest.approx(0.9433, abs=1e-4)
    e = stats.wilson(0, 50)
    assert e.low == 0 and 0 < e.high < 0.08
    assert math.isnan(stats.wilson(0, 0).value)


def test_t_interval_and_quantiles():
    assert stats.t_quantile(0.95, 10) == pytest.approx(2.2281, abs=1e-4)  # more in test_t_quantile.py
    e = stats.t_interval([1.0, 2.0, 3.0, 4.0])
    assert e.value == 2.5 and e.low == pytest.approx(2.5 - 3.1824 * np.std([1, 2, 3, 4], ddof=1) / 2, abs=2e-2)


def test_cluster_bootstrap_covers_the_ratio():
    rng = np.random.default_rng(0)
    den = rng.integers(5, 15, size=400).astype(float)
    num = rng.normal(2.0, 3.0, size=400) * den
    e = stats.cluster_bootstrap(num, den, n_boot=500, seed=1)
    assert e.low < e.value < e.high and e.low < 2.0 < e.high
    assert e == stats.cluster_bootstrap(num, den, n_boot=500, seed=1)


def test_bradley_terry_orders_and_bounds():
    wins = np.array([[0, 70, 90], [30, 0, 75], [10, 25, 0]], dtype=float)
    r = stats.bradley_terry(["a", "b", "c"], wins)
    assert r.elo[0] > r.elo[1] > r.elo[2]
    assert (r.elo_low < r.elo).all() and (r.elo < r.elo_high).all()
    # a perfect record stays finite thanks to the prior
    r = stats.bradley_terry(["a", "b"], np.array([[100.0, 100.0], [0.0, 0.0]]) * np.array([[0, 1], [0, 0]]))
    assert np.isfinite(r.elo).all() and r.elo[0] > 400


# --- evaluation and tournaments -----------------------------------------------------------------------


def test_evaluate_reports_every_metric():
    s, r = evaluate("hollywood", "random", "hollywood", matches=21, seed=2, reward="games", n_boot=200)
    assert s["pairs"] == 11 and s["games_played"] == 22
    for key in ("match_win_rate", "match_score_by_pair", "game_win_rate", "hand_win_rate", "points_per_hand",
                "a_gin_rate", "b_gin_rate", "a_undercut_rate", "b_undercut_rate", "wall_rate", "reward_per_match"):
        e = s["metrics"][key]
        assert e["low"] is None or e["low"] <= e["value"] <= e["high"], key
    assert s["metrics"]["match_win_rate"]["value"] == 1.0
    assert s["metrics"]["reward_per_match"]["value"] == pytest.approx(3.0)  # 3 games to 0 every match
    text = format_summary(s)
    assert "match win rate" in text and "hollywood (A) vs random (B)" in text
    with pytest.raises(ValueError, match="valid modes"):
        evaluate("simple", "simple", matches=2, reward="points")


def test_same_seed_same_table_and_outputs(tmp_path):
    kw = dict(rules="gin-rummy-simple", n_pairs=8, max_steps=2000)
    agents = ["random", "simple", "neller"]
    s1 = summarize_tournament(round_robin(agents, seed=42, **kw), n_boot=100)
    s2 = summarize_tournament(round_robin(agents, seed=42, **kw), n_boot=100)
    s3 = summarize_tournament(round_robin(agents, seed=43, **kw), n_boot=100)

    def strip(s):
        s = json.loads(json.dumps(s))
        s.pop("seconds")
        for p in s["pairings"]:
            for k in ("seconds", "decisions_per_second"):
                p.pop(k)
        return s

    assert strip(s1) == strip(s2)
    assert strip(s1) != strip(s3)
    assert [row["agent"] for row in s1["ratings"]][-1] == "random"
    m = np.array(s1["matrix"]["rate"], dtype=float)
    off = ~np.eye(3, dtype=bool)
    assert np.allclose((m + m.T)[off], 1.0)
    text = format_tournament(s1)
    assert "| **simple** |" in text and "Elo" in text
    paths = write_tournament(s1, tmp_path / "out")
    for kind in ("json", "pairings_csv", "matrix_csv", "ratings_csv", "markdown"):
        assert os.path.getsize(paths[kind]) > 0
    assert "heatmap" in paths or "matplotlib" in paths["note"]
    rows = (tmp_path / "out" / "matrix.csv").read_text().strip().splitlines()
    assert len(rows) == 1 + 6


# --- command line -----------------------------------------------------------------------------------


def test_cli_evaluate_json(capsys):
    assert main(["evaluate", "simple", "random", "-n", "8", "-q", "--json", "--rules", "straight-gin",
                 "--set", "target=50"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["rules_options"]["target"] == 50 and s["rules_options"]["straight_gin"] is True
    assert s["games_played"] == 8


def test_cli_tournament_writes_files(tmp_path, capsys):
    out = tmp_path / "t"
    assert main(["tournament", "random", "simple", "--hands", "20", "-q", "--seed", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "hand win rate" in text and (out / "tournament.json").exists() and (out / "ratings.csv").exists()


@pytest.mark.parametrize("argv, message", [
    (["evaluate", "simple", "bogus"], "valid agents: random, simple, neller, hollywood"),
    (["evaluate", "simple", "ppo:/no/such.pt"], "no such checkpoint file or run folder"),
    (["evaluate", "simple", "simple", "--rules", "bogus"], "valid presets: hollywood, hollywood-nordic"),
    (["evaluate", "simple", "simple", "--set", "knock_limt=3"], "valid options:"),
    (["evaluate", "simple", "simple", "--reward", "bogus"], "valid modes: hand, hands, hollywood, games, match"),
    (["tournament", "simple"], "at least two agents"),
])
def test_cli_errors_are_clear(argv, message, capsys):
    assert main(argv + ["-q"]) == 2
    assert message in capsys.readouterr().err


def test_heatmap_is_skipped_with_a_note_without_matplotlib(tmp_path, monkeypatch):
    import sys

    t = round_robin(["random", "simple"], "gin-rummy", n_pairs=3, seed=0)
    s = summarize_tournament(t, n_boot=50, n_boot_ratings=20)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    paths = write_tournament(s, tmp_path)
    assert "heatmap" not in paths and "matplotlib is not installed" in paths["note"]
    assert not (tmp_path / "heatmap.png").exists()


def test_cli_help(capsys):
    assert main([]) == 2
    out = capsys.readouterr().out
    assert "evaluate" in out and "tournament" in out and "ppo:PATH" in out


def test_a_faulty_agent_is_named():
    def bad(obs, mask):
        return np.full(obs.shape[0], 104)  # draw stock, even when it is not legal

    with pytest.raises(ValueError, match="agent 'mine' played the illegal action 104"):
        play_pairing(bad, "simple", n_pairs=2, seed=0, names=("mine", "simple"))
    with pytest.raises(ValueError, match="shape"):
        play_pairing(lambda o, m: np.zeros(1, dtype=int), "simple", n_pairs=2, seed=0)


def test_cli_passthrough_commands(monkeypatch):
    from experiments import cli

    seen = []
    monkeypatch.setitem(cli.PASSTHROUGH, "fake", ("a fake command", "experiments.evaluation.stats:wilson"))
    monkeypatch.setattr("experiments.evaluation.stats.wilson", lambda argv: seen.append(argv) or 0)
    assert main(["fake", "--x", "1", "cfg.yaml"]) == 0
    assert seen == [["--x", "1", "cfg.yaml"]]
    assert "train" in cli.PASSTHROUGH and "reproduce" in cli.PASSTHROUGH


def test_one_column_rules_headline_games_to_the_target_and_split_the_hands():
    s, r = evaluate("marjj", "simple", "eaai", matches=12, seed=3, n_boot=100)
    m = s["metrics"]
    assert "game_win_rate" not in m  # one column: the match is the game
    text = format_summary(s)
    first_row = text.split("|---|---|---|---|")[1].strip().splitlines()[0]
    assert first_row.startswith("| games won (to 100) |") and "12 games to 100" in text
    assert "match win rate" not in text
    # every decided hand a player won is a knock won, a gin or an undercut
    for side in ("a", "b"):
        won = (m[f"{side}_knock_win_rate"]["value"] + m[f"{side}_gin_rate"]["value"]
               + m[f"{side}_undercut_rate"]["value"])
        hands = r.a_hands.sum() if side == "a" else r.b_hands.sum()
        assert won == pytest.approx(hands / s["hands_decided"])
    t = round_robin(["simple", "marjj"], "eaai", n_pairs=4, seed=1)
    out = format_tournament(summarize_tournament(t, n_boot=50, n_boot_ratings=50))
    assert "games won to 100 by the row agent" in out and "net points per decided hand of the row agent" in out
