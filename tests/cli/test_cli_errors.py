"""User mistakes on the ``hollywood`` command line end in one message and exit status 2: no
traceback, and nothing written (no run folder, no output folder, nothing in a run being resumed).

Each row is a bad invocation and the pieces of text its message must contain (the offending key
or option, the value, what is allowed). Most rows call :func:`experiments.cli.main` in-process
(an uncaught exception fails the test); the rows marked so (their last field) also run as real
subprocesses of ``python -m experiments.cli`` whose stderr must hold no ``Traceback``. Every row
works in a fresh folder (the cwd; its configs send runs to ``runs/`` inside it) whose whole tree
must be unchanged afterwards.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

from experiments import cli

ROOT = Path(__file__).resolve().parents[2]

#: overrides that make a training run take a few seconds (no evaluation, short matches)
QUICK = ["--total_steps", "512", "--ppo.num_games", "16", "--ppo.num_steps", "32", "--ppo.hidden", "[16]",
         "--eval.bots", "", "--league.bots", "random", "--league.gate_pairs", "2", "--env.max_steps", "50"]


def _write_run(folder: Path, cfg: dict | None, checkpoint: bytes | None) -> None:
    """A run folder with ``config.yaml`` (``cfg``; None: malformed YAML) and ``latest.pt``."""
    folder.mkdir()
    text = yaml.safe_dump(cfg, sort_keys=False) if cfg is not None else "ppo: [1, 2\n"
    (folder / "config.yaml").write_text(text)
    if checkpoint is not None:
        (folder / "checkpoints").mkdir()
        (folder / "checkpoints" / "latest.pt").write_bytes(checkpoint)


@pytest.fixture
def ws(tmp_path, monkeypatch):
    """The workspace of one row: configs, broken files and run folders; the cwd."""
    cfg = yaml.safe_load((ROOT / "configs" / "ppo_tiny.yaml").read_text())
    cfg["log"].update(root=str(tmp_path / "runs"), progress=False)
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    (tmp_path / "unclosed.yaml").write_text("ppo: {lr: 0.1\nseed: 1\n")
    (tmp_path / "python_tag.yaml").write_text("seed: !!python/object/apply:os.system ['echo pwned > pwned.txt']\n")
    (tmp_path / "list.yaml").write_text("- ppo\n- dqn\n")
    (tmp_path / "scalar.yaml").write_text("just some text\n")
    (tmp_path / "section_scalar.yaml").write_text("ppo: 3\n")
    (tmp_path / "typo_key.yaml").write_text("sed: 1\n")
    (tmp_path / "binary.yaml").write_bytes(b"\xff\xfe\x00\x01garbage")
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("a file, not a folder\n")
    (tmp_path / "empty.pt").write_bytes(b"")
    (tmp_path / "text.pt").write_text("hello, I am not a checkpoint\n")
    (tmp_path / "bad_agent.py").write_text("def policy(:\n")
    bad_lr = {**cfg, "ppo": {**cfg.get("ppo", {}), "lr": -1}}
    bad_bot = {**cfg, "eval": {**cfg.get("eval", {}), "bots": ["nobot"]}}
    _write_run(tmp_path / "run_empty", cfg, b"")
    _write_run(tmp_path / "run_text", cfg, b"not a checkpoint\n")
    _write_run(tmp_path / "run_nockpt", cfg, None)
    _write_run(tmp_path / "run_badyaml", None, None)
    _write_run(tmp_path / "run_badlr", bad_lr, None)
    _write_run(tmp_path / "run_badbot", bad_bot, None)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _tree(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.is_dir(), p.stat().st_size if p.is_file() else 0, p.stat().st_mtime_ns)
            for p in root.rglob("*")}


def _fill(argv, ws: Path) -> list[str]:
    return [a.replace("WS/", f"{ws}/") for a in argv]


def _cuda() -> bool:
    return torch.cuda.is_available()


T = "WS/tiny.yaml"

# (id, argv with WS/ for the workspace, texts the message must contain, run as a subprocess too)
ROWS = [
    # --- train: the config file --------------------------------------------------------------
    ("yaml-malformed", ["train", "WS/unclosed.yaml"], ["unclosed.yaml", "not valid YAML", "line"], True),
    ("yaml-python-tag", ["train", "WS/python_tag.yaml"], ["python_tag.yaml", "python/object/apply", "not allowed"],
     True),
    ("yaml-list", ["train", "WS/list.yaml"], ["list.yaml", "mapping"], False),
    ("yaml-scalar", ["train", "WS/scalar.yaml"], ["scalar.yaml", "mapping"], False),
    ("yaml-section-scalar", ["train", "WS/section_scalar.yaml"], ["ppo", "mapping", "3"], False),
    ("yaml-binary", ["train", "WS/binary.yaml"], ["binary.yaml", "not"], False),
    ("yaml-typo-key", ["train", "WS/typo_key.yaml"], ["'sed'", "did you mean 'seed'"], False),
    ("config-missing", ["train", "WS/nothere.yaml"], ["nothere.yaml", "not found"], False),
    ("config-directory", ["train", "WS/adir"], ["adir", "directory"], False),
    ("config-none", ["train"], ["config file", "--resume"], False),
    ("config-two", ["train", T, T], ["one config", "tiny.yaml"], False),
    # --- train: override syntax -------------------------------------------------------------
    ("override-no-value", ["train", T, "--ppo.lr"], ["--ppo.lr", "needs a value"], False),
    ("override-value-is-option", ["train", T, "--eval.greedy", "--seed", "1"], ["--eval.greedy", "needs a value"],
     False),
    ("override-single-dash", ["train", T, "-x", "1"], ["'-x'", "--section.key VALUE"], False),
    ("override-bad-yaml", ["train", T, "--ppo.hidden", "[1, 2"], ["ppo.hidden", "[1, 2", "not valid YAML"], False),
    ("override-python-tag", ["train", T, "--seed", "!!python/object/apply:os.system [ls]"],
     ["seed", "python/object/apply", "not allowed"], False),
    ("override-unknown-key", ["train", T, "--ppo.lrr", "0.1"], ["ppo.lrr", "did you mean 'lr'"], False),
    ("override-unknown-section", ["train", T, "--ppp.lr", "0.1"], ["ppp.lr", "did you mean 'ppo'"], False),
    ("override-unknown-top", ["train", T, "--sed", "1"], ["'sed'", "did you mean 'seed'"], False),
    ("override-before-config", ["train", "--ppo.lr", "1e-4", T, "--log.checkpoint_every", "0"],
     ["log.checkpoint_every", ">= 1", "got 0"], False),
    # --- train: values ---------------------------------------------------------------------
    ("ppo-lr-negative", ["train", T, "--ppo.lr", "-1"], ["ppo.lr", "-1", "> 0"], True),
    ("ppo-lr-nan", ["train", T, "--ppo.lr", "nan"], ["ppo.lr", "nan", "> 0"], False),
    ("ppo-lr-inf", ["train", T, "--ppo.lr", "inf"], ["ppo.lr", "inf", "finite"], False),
    ("ppo-lr-zero", ["train", T, "--ppo.lr", "0"], ["ppo.lr", "got 0", "> 0"], False),
    ("ppo-lr-word", ["train", T, "--ppo.lr", "fast"], ["ppo.lr", "'fast'", "number"], False),
    ("ppo-gamma-above-1", ["train", T, "--ppo.gamma", "1.5"], ["ppo.gamma", "1.5", "(0, 1]"], False),
    ("ppo-gamma-zero", ["train", T, "--ppo.gamma", "0"], ["ppo.gamma", "got 0", "(0, 1]"], False),
    ("ppo-gae-lambda", ["train", T, "--ppo.gae_lambda", "-0.5"], ["ppo.gae_lambda", "-0.5", "[0, 1]"], False),
    ("ppo-clip-coef-zero", ["train", T, "--ppo.clip_coef", "0"], ["ppo.clip_coef", "got 0", "> 0"], False),
    ("ppo-ent-coef-negative", ["train", T, "--ppo.ent_coef", "-0.01"], ["ppo.ent_coef", "-0.01", ">= 0"], False),
    ("ppo-max-grad-norm", ["train", T, "--ppo.max_grad_norm", "0"], ["ppo.max_grad_norm", "got 0", "> 0"], False),
    ("ppo-target-kl", ["train", T, "--ppo.target_kl", "-1"], ["ppo.target_kl", "-1", "> 0"], False),
    ("ppo-num-games-zero", ["train", T, "--ppo.num_games", "0"], ["ppo.num_games", ">= 1", "got 0"], False),
    ("ppo-num-games-float", ["train", T, "--ppo.num_games", "3.5"], ["ppo.num_games", "3.5", "int"], False),
    ("ppo-hidden-zero", ["train", T, "--ppo.hidden", "[64, 0]"], ["ppo.hidden", "0", ">= 1"], False),
    ("ppo-hidden-empty", ["train", T, "--ppo.hidden", "[]"], ["ppo.hidden", "at least one"], False),
    ("dqn-lr-negative", ["train", T, "--algo", "dqn", "--dqn.lr", "-0.1"], ["dqn.lr", "-0.1", "> 0"], False),
    ("dqn-tau-zero", ["train", T, "--algo", "dqn", "--dqn.tau", "0"], ["dqn.tau", "got 0", "(0, 1]"], False),
    ("dqn-batch-over-buffer", ["train", T, "--algo", "dqn", "--dqn.batch_size", "512", "--dqn.buffer_size", "100"],
     ["dqn.batch_size", "512", "dqn.buffer_size", "100"], False),
    ("dqn-per-eps", ["train", T, "--algo", "dqn", "--dqn.per_eps", "0"], ["dqn.per_eps", "got 0", "> 0"], False),
    ("collector-workers-split", ["train", T, "--collector.num_workers", "3"],
     ["collector.num_workers", "3", "multiple"], False),
    ("collector-cpus-nan", ["train", T, "--collector.cpus_per_worker", "nan"],
     ["collector.cpus_per_worker", "nan", "> 0"], False),
    ("log-checkpoint-every-zero", ["train", T, "--log.checkpoint_every", "0"],
     ["log.checkpoint_every", ">= 1", "got 0"], True),
    ("log-name-empty", ["train", T, "--log.name", ""], ["log.name", "''", "non-empty"], False),
    ("log-root-is-file", ["train", T, "--log.root", "WS/afile"], ["log.root", "afile", "not a folder"], False),
    ("eval-every-negative", ["train", T, "--eval.every", "-1"], ["eval.every", "-1", ">= 0"], False),
    ("eval-pairs-zero", ["train", T, "--eval.pairs", "0"], ["eval.pairs", "got 0", ">= 1"], False),
    ("eval-bots-unknown", ["train", T, "--eval.bots", "nobot"], ["eval.bots", "'nobot'", "random, simple"], True),
    ("eval-bots-typo", ["train", T, "--eval.bots", "random,smiple"], ["eval.bots", "'smiple'",
                                                                       "did you mean 'simple'"], False),
    ("eval-bots-missing-ckpt", ["train", T, "--eval.bots", "ppo:WS/missing.pt"], ["eval.bots", "missing.pt"], False),
    ("league-bots-unknown", ["train", T, "--league.bots", "nobot"], ["league.bots", "'nobot'", "random"], False),
    ("league-bots-prefix", ["train", T, "--league.bots", "nosuchprefix:x"], ["league.bots", "nosuchprefix"], False),
    ("league-bots-empty-ckpt", ["train", T, "--league.bots", "ppo:WS/empty.pt"], ["league.bots", "empty.pt"], False),
    ("league-weight-negative", ["train", T, "--league.self_play_weight", "-1"],
     ["league.self_play_weight", "-1", ">= 0"], False),
    ("league-gate-threshold", ["train", T, "--league.gate_threshold", "2"],
     ["league.gate_threshold", "2", "[0, 1]"], False),
    ("league-pool-size", ["train", T, "--league.pool_size", "0"], ["league.pool_size", "got 0", ">= 1"], False),
    ("env-rules-typo", ["train", T, "--env.rules", "holywood"], ["env.rules", "'holywood'",
                                                                  "did you mean 'hollywood'"], False),
    ("env-reward-unknown", ["train", T, "--env.reward", "points"], ["env.reward", "'points'", "hand"], False),
    ("env-rule-option-typo", ["train", T, "--env.rule_options", "{knock: 3}"],
     ["env.rule_options", "'knock'", "did you mean 'knock_limit'"], False),
    ("env-rule-option-type", ["train", T, "--env.rule_options", "{knock_limit: abc}"],
     ["env.rule_options", "knock_limit", "abc"], False),
    ("env-max-steps-zero", ["train", T, "--env.max_steps", "0"], ["env.max_steps", "got 0", ">= 1"], False),
    ("env-reward-scale-nan", ["train", T, "--env.reward_scale", "nan"], ["env.reward_scale", "nan", "> 0"], False),
    ("total-steps-zero", ["train", T, "--total_steps", "0"], ["total_steps", "got 0", ">= 1"], False),
    ("seed-negative", ["train", T, "--seed", "-1"], ["seed", "-1", ">= 0"], False),
    ("torch-threads-zero", ["train", T, "--torch_threads", "0"], ["torch_threads", "got 0", ">= 1"], False),
    ("algo-unknown", ["train", T, "--algo", "sac"], ["algo", "'sac'", "ppo", "dqn"], False),
    ("device-unknown", ["train", T, "--device", "tpu"], ["device", "'tpu'", "cpu"], False),
    ("device-cuda-index", ["train", T, "--device", "cuda:99"], ["device", "cuda:99"], True),
    pytest.param("device-cuda", ["train", T, "--device", "cuda"], ["device", "'cuda'", "cpu"], False,
                 marks=pytest.mark.skipif(_cuda(), reason="CUDA is available here")),
    # --- train --resume ------------------------------------------------------------------------
    ("resume-not-a-run", ["train", "--resume", "WS/adir"], ["--resume", "adir", "config.yaml"], False),
    ("resume-no-checkpoint", ["train", "--resume", "WS/run_nockpt"], ["--resume", "latest.pt"], False),
    ("resume-empty-checkpoint", ["train", "--resume", "WS/run_empty"], ["--resume", "latest.pt", "checkpoint"], True),
    ("resume-empty-checkpoint-seed", ["train", "--resume", "WS/run_empty", "--seed", "1"],
     ["--resume", "latest.pt", "checkpoint"], False),
    ("resume-text-checkpoint-file", ["train", "--resume", "WS/run_text/checkpoints/latest.pt"],
     ["--resume", "latest.pt", "checkpoint"], False),
    ("resume-with-config", ["train", T, "--resume", "WS/run_empty"], ["--resume", "tiny.yaml"], False),
    ("resume-bad-override", ["train", "--resume", "WS/run_empty", "--ppo.lr", "-1"], ["ppo.lr", "-1"], False),
    ("resume-no-value", ["train", "--resume"], ["--resume", "needs a value"], False),
    # --- evaluate ------------------------------------------------------------------------------
    ("evaluate-unknown-agent", ["evaluate", "nobot", "simple"], ["'nobot'", "random, simple"], False),
    ("evaluate-agent-typo", ["evaluate", "radnom", "simple"], ["'radnom'", "did you mean 'random'"], False),
    ("evaluate-prefix-typo", ["evaluate", "random", "pp:x.pt"], ["pp:x.pt", "did you mean 'ppo:"], False),
    ("evaluate-missing-ckpt", ["evaluate", "ppo:WS/missing.pt", "simple"], ["missing.pt", "no such"], False),
    ("evaluate-empty-ckpt", ["evaluate", "ppo:WS/empty.pt", "simple"], ["empty.pt", "checkpoint"], True),
    ("evaluate-text-ckpt", ["evaluate", "ppo:WS/text.pt", "simple"], ["text.pt", "checkpoint"], False),
    ("evaluate-dqn-empty-ckpt", ["evaluate", "random", "dqn:WS/empty.pt"], ["empty.pt", "checkpoint"], False),
    ("evaluate-ckpt-no-path", ["evaluate", "ppo:", "simple"], ["ppo:PATH", "path"], False),
    ("evaluate-ckpt-empty-run", ["evaluate", "ppo:WS/adir", "simple"], ["adir"], False),
    ("evaluate-unknown-prefix", ["evaluate", "nosuchprefix:x", "simple"], ["nosuchprefix"], False),
    ("evaluate-module-no-attr", ["evaluate", "agents.bots:NoSuchBot", "simple"], ["NoSuchBot"], False),
    ("evaluate-user-file-syntax", ["evaluate", "WS/bad_agent.py:policy", "simple"],
     ["bad_agent.py", "SyntaxError"], False),
    ("evaluate-matches-zero", ["evaluate", "random", "simple", "--matches", "0"], ["--matches", "at least 2"], False),
    ("evaluate-matches-negative", ["evaluate", "random", "simple", "--matches", "-4"], ["--matches", "-4"], False),
    ("evaluate-matches-word", ["evaluate", "random", "simple", "--matches", "abc"], ["--matches", "'abc'"], False),
    ("evaluate-hands-one", ["evaluate", "random", "simple", "--hands", "1"], ["--hands", "at least 2"], False),
    ("evaluate-matches-and-hands", ["evaluate", "random", "simple", "--matches", "4", "--hands", "4"],
     ["--hands", "not allowed with"], False),
    ("evaluate-rules-typo", ["evaluate", "random", "simple", "--rules", "holywood"],
     ["'holywood'", "did you mean 'hollywood'"], False),
    ("evaluate-reward-unknown", ["evaluate", "random", "simple", "--reward", "points"],
     ["'points'", "hand, hands, hollywood, games, match"], False),
    ("evaluate-set-typo", ["evaluate", "random", "simple", "--set", "knock=3"], ["'knock'", "did you mean"], False),
    ("evaluate-set-type", ["evaluate", "random", "simple", "--set", "knock_limit=abc"],
     ["knock_limit", "abc", "integer"], False),
    ("evaluate-set-range", ["evaluate", "random", "simple", "--set", "knock_limit=500"],
     ["knock_limit", "500", "0..100"], False),
    ("evaluate-set-no-equals", ["evaluate", "random", "simple", "--set", "knock_limit"],
     ["--set", "KEY=VALUE", "knock_limit"], False),
    ("evaluate-seed-negative", ["evaluate", "random", "simple", "--seed", "-1"], ["--seed", "-1", ">= 0"], False),
    ("evaluate-max-steps-negative", ["evaluate", "random", "simple", "--max-steps", "-1"],
     ["--max-steps", "-1", ">= 0"], False),
    ("evaluate-batch-pairs-zero", ["evaluate", "random", "simple", "--batch-pairs", "0"],
     ["--batch-pairs", "0", ">= 1"], False),
    ("evaluate-out-is-file", ["evaluate", "random", "simple", "--matches", "2", "--out", "WS/afile"],
     ["--out", "afile", "not a folder"], False),
    ("evaluate-missing-agent", ["evaluate", "random"], ["hollywood evaluate", "required"], False),
    # --- tournament ----------------------------------------------------------------------------
    ("tournament-one-agent", ["tournament", "random"], ["at least two agents"], False),
    ("tournament-unknown-agent", ["tournament", "random", "nobot"], ["'nobot'", "random"], False),
    ("tournament-empty-ckpt", ["tournament", "random", "ppo:WS/empty.pt"], ["empty.pt", "checkpoint"], False),
    ("tournament-matches-zero", ["tournament", "random", "simple", "--matches", "0"],
     ["--matches", "at least 2"], False),
    ("tournament-ray-address", ["tournament", "random", "simple", "--ray-address", "auto"],
     ["--ray-address", "--ray"], False),
    ("tournament-out-is-file", ["tournament", "random", "simple", "--out", "WS/afile"],
     ["--out", "afile", "not a folder"], False),
    ("tournament-reward-unknown", ["tournament", "random", "simple", "--reward", "points"], ["'points'"], False),
    # --- reproduce -----------------------------------------------------------------------------
    ("reproduce-not-a-run", ["reproduce", "WS/adir"], ["adir", "config.yaml"], False),
    ("reproduce-bad-yaml", ["reproduce", "WS/run_badyaml"], ["config.yaml", "not valid YAML"], False),
    ("reproduce-bad-value", ["reproduce", "WS/run_badlr"], ["ppo.lr", "-1", "> 0"], False),
    ("reproduce-bad-bot", ["reproduce", "WS/run_badbot"], ["eval.bots", "'nobot'"], False),
    ("reproduce-rel-tol-negative", ["reproduce", "WS/run_empty", "--rel-tol", "-1"], ["--rel-tol", "-1", ">= 0"],
     False),
    ("reproduce-rel-tol-nan", ["reproduce", "WS/run_empty", "--rel-tol", "nan"], ["--rel-tol", "nan"], False),
    ("reproduce-no-run", ["reproduce"], ["hollywood reproduce", "required"], False),
    # --- the command itself --------------------------------------------------------------------
    ("command-unknown", ["evaluat", "random", "simple"], ["'evaluat'", "invalid choice"], False),
]


def _ids(rows):
    return [r.values[0] if hasattr(r, "values") else r[0] for r in rows]


def _check(rc, err, row_id, expected, before, after):
    assert rc == 2, f"{row_id}: exit status {rc}, expected 2\n{err}"
    assert "Traceback" not in err, f"{row_id}: traceback\n{err}"
    for text in expected:
        assert text in err, f"{row_id}: the message does not mention {text!r}:\n{err}"
    assert not Path("pwned.txt").exists(), "a YAML tag ran code"
    changed = sorted(set(before.items()) ^ set(after.items()))
    assert not changed, f"{row_id}: files written or changed: {changed}"


@pytest.mark.parametrize("row_id,argv,expected,sub", ROWS, ids=_ids(ROWS))
def test_bad_invocation(ws, capsys, row_id, argv, expected, sub):
    before = _tree(ws)
    try:
        rc = cli.main(_fill(argv, ws))
    except SystemExit as e:  # argparse's own errors (status 2, a usage line and a message)
        rc = e.code
    _, err = capsys.readouterr()
    _check(rc, err, row_id, expected, before, _tree(ws))


SUBPROCESS_ROWS = [r for r in ROWS if not hasattr(r, "values") and r[3]]


@pytest.mark.parametrize("row_id,argv,expected,sub", SUBPROCESS_ROWS, ids=_ids(SUBPROCESS_ROWS))
def test_bad_invocation_subprocess(ws, row_id, argv, expected, sub):
    before = _tree(ws)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "experiments.cli", *_fill(argv, ws)], cwd=ws, env=env,
                       capture_output=True, text=True, timeout=120)
    _check(p.returncode, p.stderr, row_id, expected, before, _tree(ws))
    assert p.stderr.strip().splitlines()[-1].startswith(f"hollywood {argv[0]}: "), p.stderr


def test_enough_rows():
    assert len(ROWS) >= 40
    assert len({r.values[1][0] if hasattr(r, "values") else r[1][0] for r in ROWS}) >= 4  # subcommands


@pytest.mark.parametrize("command", ["train", "reproduce", "evaluate", "tournament"])
def test_help_still_works(capsys, command):
    try:
        rc = cli.main([command, "--help"])
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert f"usage: hollywood {command}" in out


def test_overrides_anywhere_and_with_resume(ws, capsys):
    """``train --ppo.lr 1e-4 CONFIG`` reads CONFIG as the config; ``train --resume RUN --seed 1``
    continues RUN with the override applied (and makes no new run folder)."""
    assert cli.main(["train", "--ppo.lr", "1e-4", str(ws / "tiny.yaml"), *QUICK]) == 0, capsys.readouterr().err
    (run,) = (ws / "runs").iterdir()
    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert saved["ppo"]["lr"] == pytest.approx(1e-4) and saved["total_steps"] == 512
    capsys.readouterr()
    assert cli.main(["train", "--resume", str(run), "--seed", "1", "--total_steps", "1024"]) == 0, \
        capsys.readouterr().err
    assert [p.name for p in (ws / "runs").iterdir()] == [run.name]
