"""``hollywood benchmark``: the rating fit with the panel held fixed (against a grid search of its
likelihood, and a panel member's own results giving back its rating), the published panel files,
the command end to end on a few games, and its one-line errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from experiments import cli
from experiments.evaluation import benchmark_panel as bp
from experiments.evaluation.stats import ELO_PER_NAT, bradley_terry

ROOT = Path(__file__).resolve().parents[2]

# --- the fit -----------------------------------------------------------------------------------


def _grid_argmax(theta, points, games, lo=-12.0, hi=12.0):
    """The slow obvious reference: the log-likelihood on a grid, refined twice around its best point."""
    for step in (1e-2, 1e-4, 1e-6):
        grid = np.arange(lo, hi + step, step)
        values = [bp.log_likelihood(t, theta, points, games) for t in grid]
        best = grid[int(np.argmax(values))]
        lo, hi = best - 2 * step, best + 2 * step
    return best


@pytest.mark.parametrize("case", range(6))
def test_fit_is_the_maximum_of_the_likelihood(case):
    rng = np.random.default_rng(100 + case)
    k = int(rng.integers(1, 7))
    theta = rng.normal(0, 1.5, k)
    games = rng.integers(0, 300, k).astype(float)
    games[0] = max(games[0], 1)
    points = np.round(rng.uniform(0, 1, k) * games * 2) / 2  # draws count 1/2
    if case == 0:
        points = games.copy()  # a perfect record: finite through the prior
    t, se = bp.fit_against_panel(theta, points, games)
    assert t == pytest.approx(_grid_argmax(theta, points, games), abs=1e-5)
    # the standard error is the inverse square root of the curvature at the maximum
    h = 1e-4
    curv = -(bp.log_likelihood(t + h, theta, points, games) - 2 * bp.log_likelihood(t, theta, points, games)
             + bp.log_likelihood(t - h, theta, points, games)) / h**2
    assert se == pytest.approx(1 / math.sqrt(curv), rel=1e-3)


def test_a_member_gets_its_own_rating_from_its_results():
    """The panel's joint fit solves, for each member, the equation of the fit with the others held
    fixed: the member's own results give back its rating exactly."""
    rng = np.random.default_rng(7)
    names = list("abcdef")
    true = rng.normal(0, 1, len(names))
    wins = np.zeros((6, 6))
    for i in range(6):
        for j in range(i + 1, 6):
            n = 200
            w = rng.binomial(n, 1 / (1 + math.exp(true[j] - true[i])))
            wins[i, j], wins[j, i] = w, n - w
    panel = bradley_terry(names, wins)
    for i in range(6):
        others = [j for j in range(6) if j != i]
        t, _ = bp.fit_against_panel(panel.theta[others], wins[i, others], wins[i, others] + wins[others, i])
        assert t == pytest.approx(panel.theta[i], abs=1e-8)
    # changing one result moves the fit: the check can fail
    t, _ = bp.fit_against_panel(panel.theta[1:], wins[0, 1:] + 5, wins[0, 1:] + wins[1:, 0])
    assert abs(t - panel.theta[0]) > 0.01


def test_an_agent_playing_like_a_member_is_rated_near_it():
    """Results drawn from the model of a member's strength against the rest of a panel give that
    strength within the interval, and the bootstrap interval covers the information one."""
    rng = np.random.default_rng(11)
    theta = np.array([-2.0, -0.3, 0.0, 0.4, 0.9])
    member = 0.4
    a, b = [], []
    for th in theta:
        pa = rng.binomial(1, 1 / (1 + math.exp(th - member)), size=(400, 2)).sum(axis=1).astype(float)
        a.append(pa)
        b.append(2 - pa)
    r = bp.rating_against_panel(theta, a, b, n_boot=200, seed=0)
    assert r["elo_low"] < member * ELO_PER_NAT < r["elo_high"]
    assert abs(r["bt_strength"] - member) < 2.5 * r["bt_se"]
    assert r["elo_high"] - r["elo"] >= 1.959 * r["bt_se"] * ELO_PER_NAT - 1e-9


# --- the published panels ----------------------------------------------------------------------


@pytest.mark.parametrize("rules", sorted(bp.PANELS))
def test_published_panel(rules):
    panel = bp.load_panel(rules)
    assert panel is not None, f"results/benchmark/panel_{rules}.json is missing"
    assert panel["rules"] == rules and panel["command"].startswith("python -m experiments.evaluation.benchmark_panel")
    assert panel["command"] in (ROOT / "results" / "benchmark" / "run.sh").read_text()
    members = panel["members"]
    assert set(members) | set(panel["left_out"]) == set(bp.PANELS[rules])
    assert sorted(row["agent"] for row in panel["ratings"]) == sorted(members)
    # each pairing's totals are its pair points, and each member's results give back its rating
    strengths = bp.panel_strengths(panel)
    for p in panel["pairings"]:
        assert len(p["a_pair_points2"]) == p["pairs"] == p["games"] // 2
        assert bp.decode_points(p["a_pair_points2"]).sum() == p["a_points"]
    for m in members:
        mine = [(p["agent_b"], p["a_points"], p["b_points"]) if p["agent_a"] == m else
                (p["agent_a"], p["b_points"], p["a_points"]) for p in panel["pairings"] if m in (p["agent_a"], p["agent_b"])]
        t, _ = bp.fit_against_panel([strengths[o] for o, _, _ in mine], [x for _, x, _ in mine],
                                    [x + y for _, x, y in mine])
        assert t == pytest.approx(strengths[m], abs=1e-6), m


# --- the command -------------------------------------------------------------------------------

BOT = '''import numpy as np

def policy(obs, mask):
    scores = np.where(mask, 0.0, -np.inf)
    scores[:, 52:104] += 1000.0
    return scores.argmax(axis=1)
'''


@pytest.fixture
def panel_dir(tmp_path):
    """A made-up panel of two members per game, so that the test does not depend on the figures."""
    folder = tmp_path / "panel"
    folder.mkdir()
    for rules in bp.PANELS:
        rows = [{"agent": "marjj", "elo": 60.0, "elo_low": 40.0, "elo_high": 80.0, "bt_strength": 60 / ELO_PER_NAT},
                {"agent": "simple", "elo": -20.0, "elo_low": -40.0, "elo_high": 0.0, "bt_strength": -20 / ELO_PER_NAT}]
        (folder / f"panel_{rules}.json").write_text(json.dumps(
            {"rules": rules, "seed": 1, "command": "made up", "version": "0", "ratings": rows}))
    return folder


def _run(capsys, argv):
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_benchmark_end_to_end(tmp_path, capsys, panel_dir):
    bot = tmp_path / "knocker.py"
    bot.write_text(BOT)
    spec = f"{bot}:policy"
    out_dir = tmp_path / "report"
    code, text, _ = _run(capsys, ["benchmark", spec, "--quick", "--games", "4", "--opponents", "simple,marjj,search",
                                  "--panel-dir", str(panel_dir), "--out", str(out_dir), "-q"])
    assert code == 0
    assert (out_dir / "report.md").read_text() == text
    for line in ("## Hollywood matches (rules `hollywood`)", "## EAAI games to 100 (rules `eaai`)",
                 "| opponent | panel Elo | matches won [95% CI] | points per hand [95% CI] | n |",
                 "| opponent | panel Elo | games won [95% CI] | points per hand [95% CI] | n |",
                 f"- command: `hollywood benchmark {spec} --quick --games 4 --opponents simple,marjj,search --seed 5200`",
                 "- seed: 5200", "- rules: `hollywood`", "`search` (slow, seconds a game: left out by --quick)",
                 "`neller` (not in --opponents)", "4 games per opponent", "16 games played in all"):
        assert line in text, line
    from experiments.cli import package_version

    assert f"hollywood-gin-rl {package_version()}" in text
    assert text.count("| `simple` | -20 |") == 2 and text.count("| `marjj` | +60 |") == 2
    assert text.count(f"**Rating: `{spec}` ") == 2
    report = json.loads((out_dir / "report.json").read_text())
    assert {"agent", "command", "seed", "version", "mode", "games_per_opponent", "games", "games_played"} <= set(report)
    assert report["mode"] == "quick" and report["games_played"] == 16
    for g in report["games"]:
        assert {"rules", "opponents", "rating", "left_out", "panel"} <= set(g)
        assert [row["opponent"] for row in g["opponents"]] == ["simple", "marjj"]
        for row in g["opponents"]:
            assert row["games"] == 4 and {"value", "low", "high", "n"} <= set(row["won"])
        assert g["rating"]["elo_low"] <= g["rating"]["elo"] <= g["rating"]["elo_high"]
        assert "search" in [x["agent"] for x in g["left_out"]]


def test_benchmark_json_and_one_game(capsys, panel_dir):
    code, text, _ = _run(capsys, ["benchmark", "random", "--rules", "eaai", "--games", "2", "--opponents", "simple",
                                  "--panel-dir", str(panel_dir), "--json", "-q", "--seed", "3"])
    assert code == 0
    report = json.loads(text)
    assert report["seed"] == 3 and report["mode"] == "full" and [g["rules"] for g in report["games"]] == ["eaai"]
    row = report["games"][0]["opponents"][0]
    assert row["opponent"] == "simple" and row["won"]["value"] == 0.0  # random wins no game to 100
    assert report["games"][0]["rating"]["elo"] < -20  # below simple, whom it never beat


def test_no_panel_file_says_so(tmp_path, capsys):
    code, text, _ = _run(capsys, ["benchmark", "random", "--rules", "hollywood", "--games", "2", "--opponents", "simple",
                                  "--panel-dir", str(tmp_path), "-q"])
    assert code == 0 and "No rating: no published panel for rules `hollywood`" in text


@pytest.mark.parametrize("argv,expected", [
    (["benchmark", "nosuchbot", "--games", "2"], ["unknown agent 'nosuchbot'"]),
    (["benchmark", "random", "--games", "1"], ["--games must be at least 2", "got 1"]),
    (["benchmark", "random", "--slow-games", "0"], ["--slow-games must be at least 2", "got 0"]),
    (["benchmark", "random", "--rules", "hollywod"], ["--rules", "'hollywod'", "hollywood, eaai", "did you mean"]),
    (["benchmark", "random", "--opponents", "simple,nobody"], ["--opponents", "'nobody'", "marjj"]),
    (["benchmark", "ppo-hollywood", "--rules", "eaai"], ["ppo-hollywood", "489"]),
])
def test_bad_input_is_one_line(tmp_path, capsys, monkeypatch, argv, expected):
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("hollywood benchmark: error: "), err
    for text in expected:
        assert text in err, (text, err)
    assert list(tmp_path.iterdir()) == []


def test_quick_and_full_plans():
    full, left = bp_plan("hollywood", quick=False)
    assert full == {"random": 400, "simple": 400, "neller": 400, "hollywood": 400, "marjj": 400, "ppo-hollywood": 400,
                    "search": 100} and left == []
    quick, left = bp_plan("eaai", quick=True)
    assert "search" not in quick and set(quick.values()) == {100} and [a for a, _ in left] == ["search"]


def bp_plan(rules, quick):
    from experiments.evaluation.benchmark import plan_games

    return plan_games(rules, quick, None, None, None)


def test_a_panel_member_benchmarked_gets_about_its_published_rating(capsys):
    """``simple`` played against four other members of the published EAAI panel, on other deals
    than the panel's: its published rating lies inside the interval of the benchmark's."""
    code, text, _ = _run(capsys, ["benchmark", "simple", "--rules", "eaai", "--games", "200", "--opponents",
                                  "random,neller,hollywood,marjj", "--json", "-q"])
    assert code == 0
    rating = json.loads(text)["games"][0]["rating"]
    published = {row["agent"]: row["elo"] for row in bp.load_panel("eaai")["ratings"]}["simple"]
    assert rating["elo_low"] < published < rating["elo_high"]
    assert rating["elo_high"] - rating["elo_low"] < 100  # narrow enough for the check to mean something


def test_exploit_adds_a_line_per_game(capsys, panel_dir, monkeypatch):
    """--exploit DECISIONS hands SPEC, each game's rules, the budget and the seed to run_exploit
    (stood in for here: training is hollywood exploit's own test) and prints what it won."""
    from experiments.evaluation import exploit

    calls = []

    def fake(target, rules, decisions, seed, start, games=1000, progress=True):
        calls.append((target, rules, decisions, seed, start, games))
        est = {"value": 0.75, "low": 0.3, "high": 0.95, "n": games}
        return {"decisions": decisions, "games": games, "eval_seed": seed + 1, "best_response": "ppo:br.pt",
                "metrics": {"match_win_rate": est, "points_per_hand": {**est, "value": 4.0, "low": 1.0, "high": 7.0}}}

    monkeypatch.setattr(exploit, "run_exploit", fake)
    code, text, _ = _run(capsys, ["benchmark", "random", "--games", "2", "--opponents", "simple", "--exploit", "40000",
                                  "--panel-dir", str(panel_dir), "-q"])
    assert code == 0
    assert calls == [("random", "hollywood", 40000, 5200, None, 2), ("random", "eaai", 40000, 5200, None, 2)]
    assert text.count("**Exploitability** (a lower bound): a PPO best response trained for 40,000 decisions against "
                      "`random` wins 75.0% [30.0, 95.0]") == 2
    assert "`hollywood exploit random --rules eaai --decisions 40000 --seed 5200 --games 2`" in text
    assert "--exploit 40000 --seed 5200`" in text  # the benchmark's own command line


def test_exploit_budget_too_small_is_one_line(capsys):
    code, out, err = _run(capsys, ["benchmark", "random", "--exploit", "10"])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith("hollywood benchmark: error: --exploit: must be at least") and "got 10" in err
