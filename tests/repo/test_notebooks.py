"""The notebooks run headless, and the modules that do their work are right.

The notebooks call :mod:`experiments.analysis.notebooks` (their inputs, and a facade over
:mod:`experiments.analysis.run_reader`, :mod:`experiments.analysis.plots`,
:mod:`experiments.analysis.playthrough` and :mod:`experiments.analysis.demo`); the functions are
tested here from their own modules, and the facade is checked to offer every name the notebooks
use. The notebooks are executed with nbclient in a kernel of this interpreter, pointed by
environment variables at a tiny demo run made in a temporary folder
(:func:`experiments.analysis.demo.make_demo`: two seeds of a few-second PPO run and a small
tournament).
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from experiments.analysis import notebooks as analysis
from experiments.analysis.demo import make_demo
from experiments.analysis.notebooks import setting
from experiments.analysis.playthrough import (
    cards_text,
    hand_markdown,
    match_markdown,
    match_table_markdown,
    plot_scoresheet,
    record_match,
    scoresheet_markdown,
    sheet_history,
)
from experiments.analysis.plots import plot_curves, plot_eval_win_rates, plot_tournament
from experiments.analysis.run_reader import (
    aggregate,
    aggregate_runs,
    curve_tags,
    ema,
    eval_win_rate_tags,
    final_values_markdown,
    find_runs,
    load_runs,
    load_tournament,
    ratings_markdown,
    read_ratings,
    short_label,
)
from hollywood_env.cards import CARD_VALUES
from hollywood_env.scoresheet import Scoresheet

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
NOTEBOOK_TIMEOUT = 120  # seconds per cell


@pytest.fixture(autouse=True)
def _agg_backend():
    import matplotlib

    matplotlib.use("Agg")
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


# --- notebook inputs ---------------------------------------------------------------------------


def test_setting_reads_typed_environment_overrides(monkeypatch):
    monkeypatch.delenv("HW_TEST_X", raising=False)
    assert setting("HW_TEST_X", 3) == 3
    for raw, default, want in [("7", 3, 7), ("0.5", 0.1, 0.5), ("yes", False, True), ("0", True, False),
                               ("runs/a*", "", "runs/a*"), ("{target: 50}", {}, {"target": 50})]:
        monkeypatch.setenv("HW_TEST_X", raw)
        assert setting("HW_TEST_X", default) == want
    monkeypatch.setenv("HW_TEST_X", "  ")
    assert setting("HW_TEST_X", "d") == "d"  # empty: the default
    monkeypatch.setenv("HW_TEST_X", "maybe")
    with pytest.raises(ValueError, match="HW_TEST_X"):
        setting("HW_TEST_X", False)


# --- aggregation across seeds ------------------------------------------------------------------


def _write_run(root: Path, name: str, seed: int, rows: list[dict]) -> Path:
    d = root / f"{name}__{seed}__20260101-000000"
    d.mkdir(parents=True)
    (d / "config.yaml").write_text(yaml.safe_dump({"algo": "ppo", "seed": seed, "log": {"name": name}}))
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return d


def test_mean_and_interval_across_seeds_of_synthetic_runs(tmp_path):
    # three seeds of cfg_a logging the same updates (global steps differ a little), one seed of cfg_b
    vals = np.array([[1.0, 2.0, 5.0], [2.0, 3.0, 5.0], [4.0, 4.0, 5.0]])
    for seed, v in enumerate(vals):
        rows = [{"update": u + 1, "global_step": 100 * (u + 1) + seed, "loss": float(v[u])} for u in range(3)]
        rows[1]["eval/win_rate_vs_simple"] = 0.25 * seed
        _write_run(tmp_path / "runs", "cfg_a", seed, rows)
    _write_run(tmp_path / "runs", "cfg_b", 0, [{"update": u + 1, "global_step": 100 * (u + 1), "loss": 10.0 + u}
                                              for u in range(3)])
    (tmp_path / "runs" / "not_a_run").mkdir()
    runs = load_runs(str(tmp_path / "runs"))  # a folder of runs
    assert sorted((r.name, r.seed) for r in runs) == [("cfg_a", 0), ("cfg_a", 1), ("cfg_a", 2), ("cfg_b", 0)]
    assert eval_win_rate_tags(runs) == ["eval/win_rate_vs_simple"]

    aggs = aggregate_runs(runs, "loss", x="update")
    a = aggs["cfg_a"]
    assert a.x.tolist() == [1, 2, 3] and a.n.tolist() == [3, 3, 3]
    mean = vals.mean(axis=0)
    half = 4.302653 * vals.std(axis=0, ddof=1) / math.sqrt(3)  # t(0.975, df=2)
    np.testing.assert_allclose(a.mean, mean)
    np.testing.assert_allclose(a.low, mean - half, rtol=1e-6)
    np.testing.assert_allclose(a.high, mean + half, rtol=1e-6)
    assert a.low[2] == a.high[2] == 5.0  # no spread, no width
    b = aggs["cfg_b"]  # one seed: the values, no interval
    np.testing.assert_allclose(b.mean, [10, 11, 12])
    assert b.n.tolist() == [1, 1, 1] and np.isnan(b.low).all() and np.isnan(b.high).all()

    # by global step the seeds are interpolated onto the shared range [102, 300]
    g = aggregate_runs(runs, "loss", x="global_step")["cfg_a"]
    assert g.x[0] == 102 and g.x[-1] == 300 and (g.n == 3).all()
    at_300 = [np.interp(300, 100 * np.arange(1, 4) + s, vals[s]) for s in range(3)]
    assert g.mean[-1] == pytest.approx(np.mean(at_300))

    # a tag logged at one update only
    e = aggregate_runs(runs, "eval/win_rate_vs_simple", x="update")["cfg_a"]
    assert e.x.tolist() == [2] and e.mean[0] == pytest.approx(0.25)

    table = final_values_markdown(runs, ["loss"])
    assert "cfg_a (n=3)" in table and "| loss | 5 [5, 5] | 12 |" in table


def test_aggregate_interpolates_on_a_grid_and_marks_missing_points():
    xs = [np.array([0.0, 10, 20]), np.array([0.0, 20, 40])]
    ys = [np.array([0.0, 1, 2]), np.array([0.0, 4, 8])]
    agg = aggregate(xs, ys)  # shared range [0, 20], two points (the median count)
    assert agg.x.tolist() == [0, 20]
    np.testing.assert_allclose(agg.mean, [0, 3])
    agg = aggregate(xs, ys, grid=np.array([0.0, 10, 30]))
    np.testing.assert_allclose(agg.mean, [0, 1.5, 6])  # at 30 only the second run: 6
    assert agg.n.tolist() == [2, 2, 1] and np.isnan(agg.low[2])
    with pytest.raises(ValueError):
        aggregate([np.arange(3)], [np.arange(2)])


def test_ema_is_tensorboard_smoothing():
    v = np.array([1.0, 3.0, 5.0])
    np.testing.assert_allclose(ema(v, 0.0), v)
    np.testing.assert_allclose(ema(np.full(5, 2.0), 0.9), 2.0)  # debiased: a constant stays constant
    w = 0.5
    np.testing.assert_allclose(ema(v, w), [1.0, (0.25 + 1.5) / 0.75, (0.875 + 2.5) / 0.875])


def test_find_runs_names_a_pattern_without_runs(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing_here"):
        find_runs(str(tmp_path / "nothing_here*"))


# --- a recorded match --------------------------------------------------------------------------


def _value(cards) -> int:
    return int(sum(CARD_VALUES[c] for c in cards))


@pytest.mark.parametrize("a, b, seed, max_steps, kinds", [
    ("simple", "hollywood", 3, 3000, {"knock", "undercut"}),
    ("simple", "neller", 7, 3000, {"gin", "wall"}),  # seed 7 since simple breaks ties as OpenSpiel
    ("random", "random", 0, 300, {"wall"}),  # walls, then truncated
])
def test_record_match_conserves_cards_and_matches_the_core_scoresheet(a, b, seed, max_steps, kinds):
    m = record_match(a, b, "hollywood", seed=seed, max_steps=max_steps)
    assert len(m) >= 1
    assert m.names == ((a, b) if a != b else (a, f"{b}#2"))
    assert kinds <= {h.kind for h in m}
    assert m.terminated or m.truncated
    ref = Scoresheet(m.rules)  # the reference scoresheet, fed with the recorded results
    for h in m:
        d0, d1 = set(h.dealt[0]), set(h.dealt[1])
        assert len(d0) == len(d1) == 10 and not d0 & d1 and h.upcard not in d0 | d1
        f0, f1, pile, stock = set(h.final_hands[0]), set(h.final_hands[1]), set(h.discard_pile), set(h.stock)
        sizes = [len(h.final_hands[0]), len(h.final_hands[1]), len(h.discard_pile), len(h.stock)]
        assert sum(sizes) == 52 and f0 | f1 | pile | stock == set(range(52)), f"hand {h.number}: cards lost"
        if h.wall:
            assert sizes[:2] == [10, 10] and len(h.stock) == m.rules.wall_stock_size
            assert h.winner is None and h.points == 0
            ref.record_wall()
        else:
            k, dfd = h.knocker, 1 - h.knocker
            assert len(h.final_hands[k]) == (11 if h.kind == "big_gin" else 10) and len(h.final_hands[dfd]) == 10
            k_melded = {c for mm in h.knocker_melds for c in mm}
            d_melded = {c for mm in h.defender_melds for c in mm}
            assert k_melded <= set(h.final_hands[k]) and d_melded <= set(h.final_hands[dfd])
            assert set(h.laid_off) <= set(h.final_hands[dfd]) and not set(h.laid_off) & d_melded
            assert _value(set(h.final_hands[k]) - k_melded) == h.knocker_deadwood
            assert _value(h.defender_deadwood_cards) == h.defender_deadwood
            ended = ref.record(h.winner, h.points)
            assert [g + 1 for g in ended] == h.games_ended
        np.testing.assert_array_equal(h.sheet.columns, ref.columns)
        np.testing.assert_array_equal(h.sheet.opened, ref.opened)
        np.testing.assert_array_equal(h.sheet.hands_scored, ref.hands_scored)
        np.testing.assert_array_equal(h.sheet.totals, ref.totals())
    sheet = m.state.sheet  # the core's own final scoresheet
    np.testing.assert_array_equal(m[-1].sheet.columns, sheet.columns[0])
    np.testing.assert_array_equal(m[-1].sheet.totals, sheet.totals()[0])
    np.testing.assert_array_equal(m[-1].sheet.game_winner, sheet.game_winner[0])
    assert [None if w < 0 else int(w) for w in sheet.game_winner[0]] == ref.game_winners
    if m.terminated:
        assert ref.match_over and m.match_winner == {-1: 2}.get(ref.match_winner, ref.match_winner)
    else:
        assert m.truncated and m.match_winner == -1 and m.decisions == max_steps
    assert sum(len(h.moves) for h in m) <= m.decisions
    # the same seed replays the same match
    again = record_match(a, b, "hollywood", seed=seed, max_steps=max_steps)
    assert [h.moves for h in again] == [h.moves for h in m]


def test_match_views_show_cards_melds_and_the_sheet():
    m = record_match("simple", "hollywood", "hollywood", seed=0)
    text = hand_markdown(m[0], m.names, html=False, show_moves=True, target=100)
    assert "### Hand 1" in text and "| melds |" in text and "<details>" in text
    assert any(s in text for s in "♣♦♥♠") and "| simple |" in text
    assert "color" in cards_text([13, 26], html=True) and cards_text([]) == "—"
    assert scoresheet_markdown(m[-1].sheet, m.names).count("\n") == 3
    assert "wins the match" in match_markdown(m)
    assert match_table_markdown(m).count("\n") == len(m) + 1
    x, v = sheet_history(m)
    assert x.tolist()[0] == 0 and v.shape == (len(m) + 1, 2, 3) and (v[0] == 0).all()
    fig = plot_scoresheet(m)
    assert len([ln for ln in fig.axes[0].get_lines() if ln.get_label().startswith("game")]) == 6


# --- the demo, plots and the notebooks ---------------------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return make_demo(tmp_path_factory.mktemp("demo"))


def test_demo_runs_read_alike_from_jsonl_and_tensorboard(demo):
    jl = load_runs(demo["runs"], source="jsonl")
    tb = load_runs(demo["runs"], source="tensorboard")
    assert len(jl) == 2 and {r.seed for r in jl} == {0, 1} and {r.name for r in jl} == {"demo_ppo"}
    assert eval_win_rate_tags(jl) == ["eval/win_rate_vs_neller", "eval/win_rate_vs_simple"]
    for r, t in zip(jl, tb, strict=True):
        assert t.source == "tensorboard" and set(r.tags) == set(t.tags)
        for tag in ("losses/entropy", "eval/win_rate_vs_simple"):
            np.testing.assert_array_equal(r.scalars[tag].step, t.scalars[tag].step)
            np.testing.assert_allclose(r.scalars[tag].value, t.scalars[tag].value, rtol=1e-6)
    fig = plot_curves(jl, curve_tags(jl), smooth=0.5)
    assert len([ax for ax in fig.axes if ax.get_visible()]) == len(curve_tags(jl))
    plot_eval_win_rates(tb)
    summary, ratings = load_tournament(demo["tournament"]), read_ratings(demo["tournament"])
    assert [r["agent"] for r in ratings] and isinstance(ratings[0]["elo"], float)
    assert short_label(summary["agents"][0]).startswith("ppo:demo_ppo__0__")
    plot_tournament(summary, ratings)
    assert "| rank |" in ratings_markdown(ratings)


def test_notebooks_are_saved_without_outputs():
    import nbformat

    paths = sorted(NOTEBOOKS.glob("*.ipynb"))
    assert {p.name for p in paths} >= {"analysis.ipynb", "play_through.ipynb"}
    for p in paths:
        nb = nbformat.read(p, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{p.name} has outputs"
                assert "def " not in cell.source and "class " not in cell.source, f"{p.name} defines logic"


def test_the_facade_offers_every_name_the_notebooks_use_and_defines_only_setting():
    import nbformat

    used = set()
    for p in sorted(NOTEBOOKS.glob("*.ipynb")):
        src = "\n".join(c.source for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code")
        for alias in re.findall(r"from experiments\.analysis import notebooks as (\w+)", src):
            used |= set(re.findall(rf"\b{alias}\.(\w+)", src))
        for names in re.findall(r"from experiments\.analysis\.notebooks import ([\w, ]+)", src):
            used |= {n.strip() for n in names.split(",")}
    assert {"setting", "load_runs", "plot_tournament", "record_match", "hand_markdown"} <= used  # the scan works
    assert used <= set(analysis.__all__), sorted(used - set(analysis.__all__))
    # thin: every other name is the object of the module that does the job, not a copy
    homes = {n: getattr(analysis, n).__module__ for n in analysis.__all__}
    assert [n for n, m in homes.items() if m == "experiments.analysis.notebooks"] == ["setting"]
    assert set(homes.values()) == {"experiments.analysis.notebooks", "experiments.analysis.run_reader",
                                   "experiments.analysis.plots", "experiments.analysis.playthrough",
                                   "experiments.analysis.demo"}


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """A kernelspec running this interpreter, so the notebooks see this environment."""
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    jp = tmp_path_factory.mktemp("jupyter")
    spec = jp / "kernels" / "hollywood-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "hollywood test", "language": "python"}))
    return str(jp)


def _run_notebook(name: str, kernel_dir: str, cwd: Path, env: dict):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    with pytest.MonkeyPatch.context() as mp:
        for k in [k for k in os.environ if k.startswith("HOLLYWOOD_")]:
            mp.delenv(k)  # only the inputs given here
        mp.setenv("JUPYTER_PATH", kernel_dir)
        mp.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")
        for k, v in env.items():
            mp.setenv(k, str(v))
        NotebookClient(nb, timeout=NOTEBOOK_TIMEOUT, startup_timeout=60, kernel_name="hollywood-test",
                       resources={"metadata": {"path": str(cwd)}}).execute()  # raises on any cell error
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    text = "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/markdown", "")) for o in outputs)
    images = sum("image/png" in o.get("data", {}) for o in outputs)
    return text, images


def test_analysis_notebook_runs_on_a_tiny_run(demo, kernel, tmp_path):
    text, images = _run_notebook("analysis.ipynb", kernel, tmp_path, {
        "HOLLYWOOD_RUNS": demo["runs"], "HOLLYWOOD_TOURNAMENT": demo["tournament"], "HOLLYWOOD_SMOOTH": "0.3"})
    assert images == 3  # learning curves, evaluation win rates, tournament
    assert "demo_ppo" in text and "eval/win_rate_vs_simple" in text and "| rank |" in text
    assert "demo runs in" not in text  # the inputs came from the environment
    assert list(tmp_path.iterdir()) == []  # nothing written next to the notebook


def test_analysis_notebook_makes_its_own_demo_without_inputs(kernel, tmp_path):
    cwd, tmp = tmp_path / "cwd", tmp_path / "tmp"
    cwd.mkdir()
    tmp.mkdir()
    text, images = _run_notebook("analysis.ipynb", kernel, cwd, {"TMPDIR": tmp})
    assert images == 3 and "demo runs in" in text and "demo_ppo" in text
    # the demo went to a temporary folder (torch may leave its own cache folders there too)
    names = sorted(p.name for p in tmp.iterdir())
    assert sum(n.startswith("hollywood-demo-") for n in names) == 1, names
    assert list(cwd.iterdir()) == []


def test_play_through_notebook_plays_a_match(kernel, tmp_path):
    text, images = _run_notebook("play_through.ipynb", kernel, tmp_path, {
        "HOLLYWOOD_AGENT_A": "neller", "HOLLYWOOD_AGENT_B": "hollywood", "HOLLYWOOD_SEED": 2,
        "HOLLYWOOD_SHOW_MOVES": "1"})
    m = record_match("neller", "hollywood", "hollywood", seed=2)
    assert images == 1
    assert "## neller (seat 0) vs hollywood (seat 1)" in text
    assert text.count("### Hand ") == len(m) and "<details>" in text and "♠" in text
    assert "Scoresheet" in text and ("wins the match" in text or "a draw" in text)
