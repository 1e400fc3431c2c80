"""``hollywood quickstart``, ``publish`` and ``sb3-train``: a tiny real run of each, and bad input
reported as one line ``hollywood COMMAND: error: ...`` with exit status 2, no traceback, before
anything is trained or written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.cli import main

ROOT = Path(__file__).resolve().parents[2]
CONFIG = str(ROOT / "configs" / "ppo_tiny.yaml")
#: overrides for a training run of a few seconds and short matches in its tournaments
TINY = ["--total_steps", "1024", "--ppo.num_games", "16", "--eval.bots", "", "--league.snapshot_every", "0",
        "--league.gate_pairs", "2", "--env.rule_options", "{target: 10}"]


def _tree(root: Path) -> set:
    return {(str(p.relative_to(root)), p.stat().st_size) for p in root.rglob("*")}


def _bad(capsys, tmp_path, argv, needles):
    """``argv`` fails with status 2 and a message holding ``needles``, and writes nothing."""
    before = _tree(tmp_path)
    try:
        rc = main(argv)
    except SystemExit as e:  # argparse's errors
        rc = e.code
    err = capsys.readouterr().err
    assert rc == 2, (argv, err)
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"hollywood {argv[0]}: error: "), err
    for needle in needles:
        assert needle in last, (needle, err)
    assert _tree(tmp_path) == before, f"{argv}: files written"


def _no_traceback(argv):
    p = subprocess.run([sys.executable, "-m", "experiments.cli", *argv], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.strip().splitlines()[-1].startswith(f"hollywood {argv[0]}: error: "), p.stderr


# --- quickstart --------------------------------------------------------------------------------


def test_quickstart_trains_then_plays_the_round_robin(tmp_path, capsys):
    assert main(["quickstart", "--config", CONFIG, "--matches", "2", *TINY, "--log.root", str(tmp_path),
                 "--log.progress", "true"]) == 0
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    (run,) = tmp_path.iterdir()
    assert (run / "checkpoints" / "latest.pt").is_file() and (run / "metrics.jsonl").is_file()
    assert (run / "tournament" / "tournament.md").is_file() and (run / "tournament" / "ratings.csv").is_file()
    assert "2/2 round robin of the trained agent and random, simple, neller, hollywood" in out
    assert f"run folder: {run}" in out
    # the trained agent's result against each bot, from the round robin's table
    for bot in ("random", "simple", "neller", "hollywood"):
        assert re.search(rf"the trained agent (won \d+\.\d% \[\d+\.\d%, \d+\.\d%\] of 2 matches against {bot}|"
                         rf"against {bot}: no match of 2 was decided \(max_steps\))\n", out), out
    # commands that work however the package was installed: no .venv/bin paths
    assert f"hollywood evaluate ppo:{run} simple --matches 2000" in out
    assert f"hollywood play --opponent ppo:{run}" in out
    assert f"tensorboard --logdir {tmp_path}" in out and ".venv/bin" not in out
    # the tournament bar counts whole matches (it goes to stderr)
    shown = re.findall(r"tournament: .*?\| *([0-9.]+)/20 ", err)
    assert shown and all(n.isdigit() for n in shown), shown


def test_quickstart_closing_lines_without_tensorboard(monkeypatch, tmp_path):
    import importlib.util

    from experiments.training.quickstart import closing_lines

    summary = {"agents": [f"ppo:{tmp_path / 'run'}", "simple"], "pairs_per_pairing": 200,
               "matrix": {"rate": [[None, 0.6]], "low": [[None, 0.55]], "high": [[None, 0.65]]}}
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "tensorboard" else real(name, *a))
    text = closing_lines(tmp_path / "run", summary)
    assert "the trained agent won 60.0% [55.0%, 65.0%] of 400 matches against simple" in text
    assert f"pip install tensorboard, then tensorboard --logdir {tmp_path}" in text


def test_quickstart_bad_input(tmp_path, capsys):
    root = ["--log.root", str(tmp_path / "runs")]
    _bad(capsys, tmp_path, ["quickstart", "--matches", "1", *root], ["--matches", "at least 2"])
    _bad(capsys, tmp_path, ["quickstart", "--config", str(tmp_path / "nothere.yaml"), *root], ["nothere.yaml"])
    _bad(capsys, tmp_path, ["quickstart", "--config", CONFIG, "--ppo.lr", "-1", *root], ["ppo.lr", "-1"])
    _bad(capsys, tmp_path, ["quickstart", "--config", CONFIG, "--eval.bots", "nobot", *root], ["eval.bots", "'nobot'"])
    _no_traceback(["quickstart", "--config", CONFIG, "--ppo.lrr", "0.1", *root])


# --- publish -----------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Tight layout not applied")  # the heatmap of two agents with long names
def test_publish_trains_evaluates_and_writes_the_result(tmp_path, capsys):
    out = tmp_path / "result"
    assert main(["publish", CONFIG, "--seeds", "0", *TINY, "--log.root", str(tmp_path / "runs"),
                 "--checkpoint", "latest", "--opponents", "random", "--matches", "2", "--tournament", "simple",
                 "--tournament-matches", "2", "--out", str(out)]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    text = (out / "results.md").read_text()
    assert f"| {run.name} | random |" in text and "## Round robin (2 matches per pairing)" in text
    assert (out / "curves.png").is_file() and (out / "tournament" / "tournament.json").is_file()
    assert f"written: {out / 'results.md'}" in capsys.readouterr().out


def test_publish_bad_input(tmp_path, capsys):
    out = ["--out", str(tmp_path / "result"), "--log.root", str(tmp_path / "runs")]
    (tmp_path / "afile").write_text("")
    (tmp_path / "notarun").mkdir()
    _bad(capsys, tmp_path, ["publish", str(tmp_path / "nothere.yaml"), *out], ["nothere.yaml"])
    _bad(capsys, tmp_path, ["publish", CONFIG, "--ppo.lr", "-1", *out], ["ppo.lr", "-1"])
    _bad(capsys, tmp_path, ["publish", CONFIG, "--seeds", "zero", *out], ["--seeds", "'zero'"])
    _bad(capsys, tmp_path, ["publish", CONFIG, "--runs", str(tmp_path / "notarun"), *out],
         ["--runs", "notarun", "checkpoints/best.pt"])
    _bad(capsys, tmp_path, ["publish", CONFIG, "--opponents", "nobot", *out], ["'nobot'"])
    _bad(capsys, tmp_path, ["publish", CONFIG, "--matches", "1", *out], ["--matches", "at least 2"])
    _bad(capsys, tmp_path, ["publish", CONFIG, "--out", str(tmp_path / "afile")], ["--out", "not a folder"])
    _no_traceback(["publish", CONFIG, "--seeds", "0-x", *out])


# --- sb3-train ---------------------------------------------------------------------------------


def test_sb3_train_saves_a_model_that_plays_as_an_agent(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from agents.registry import make_agent

    path = tmp_path / "model.zip"
    assert main(["sb3-train", "--steps", "64", "--num-envs", "8", "--out", str(path)]) == 0
    assert f"saved {path}" in capsys.readouterr().out
    assert make_agent(f"sb3:{path}", "hollywood", seed=0).name.startswith("sb3:")


def test_sb3_train_bad_input(tmp_path, capsys):
    out = ["--out", str(tmp_path / "model.zip")]
    _bad(capsys, tmp_path, ["sb3-train", "--steps", "0", *out], ["--steps", "positive"])
    _bad(capsys, tmp_path, ["sb3-train", "--rules", "holywood", *out], ["--rules", "'holywood'"])
    _bad(capsys, tmp_path, ["sb3-train", "--seed", "-1", *out], ["--seed", ">= 0"])
    _no_traceback(["sb3-train", "--threads", "0", *out])


# --- rllib-export ------------------------------------------------------------------------------
# (the export of a trained RLlib checkpoint runs in tests/training/test_rllib.py, with the ray marker)


def test_rllib_export_bad_input(tmp_path, capsys):
    _bad(capsys, tmp_path, ["rllib-export", str(tmp_path / "nothere"), str(tmp_path / "p.pt")],
         ["nothere", "is not a folder"])
    (tmp_path / "ckpt").mkdir()
    _bad(capsys, tmp_path, ["rllib-export", str(tmp_path / "ckpt"), str(tmp_path)], ["is a folder"])
    _bad(capsys, tmp_path, ["rllib-export", str(tmp_path / "ckpt"), str(tmp_path / "p.pt"), "--rules", "nope"],
         ["--rules", "nope"])
