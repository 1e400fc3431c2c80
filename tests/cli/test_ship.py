"""Shipped models: ``hollywood ship`` writes models/NAME.pt and its card, the short names load
them, ``hollywood reproduce models/NAME.pt`` retrains and checks the published intervals."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from agents import registry
from agents.checkpoint import load_checkpoint
from agents.registry import AgentSpecError, make_agent
from experiments.config.loader import load_config
from experiments.config.schema import TrainConfig
from experiments.training.train import run_training
from hollywood_env.rules import Rules

TINY = ["--total_steps", "2048", "--eval.every", "0", "--eval.pairs", "2", "--league.snapshot_every", "0"]


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ship")
    cfg = load_config(TrainConfig, "configs/ppo_tiny.yaml", TINY + ["--log.root", str(tmp / "runs")])
    run_dir, _ = run_training(cfg)
    models = tmp / "models"
    from experiments.release.ship import main

    assert main([str(run_dir), "ppo_tiny_model", "--opponents", "random", "simple", "--matches", "6",
                 "--models-dir", str(models), "--note", "a test model"]) == 0
    return run_dir, models


def test_ship_writes_an_inference_only_checkpoint_and_a_card(shipped):
    run_dir, models = shipped
    ckpt = load_checkpoint(models / "ppo_tiny_model.pt")
    assert "train_state" not in ckpt
    full = load_checkpoint(run_dir / "checkpoints" / "latest.pt")
    for k, v in full["model"].items():
        assert torch.equal(torch.as_tensor(ckpt["model"][k]), torch.as_tensor(v))
    card = ckpt["card"]
    assert card["source_run"] == run_dir.name and card["checkpoint"] == "latest"
    assert [e["opponent"] for e in card["evaluations"]] == ["random", "simple"]
    for e in card["evaluations"]:
        assert e["matches"] == 6 and 0.0 <= e["metrics"]["hand_win_rate"]["value"] <= 1.0
        assert e["command"].startswith(f"hollywood evaluate ppo:{models / 'ppo_tiny_model.pt'} {e['opponent']} --matches 6")
    text = (models / "ppo_tiny_model.md").read_text()
    for needle in ("# ppo_tiny_model", "## Training", "## Evaluation", "| `random` | 6 |", "hollywood reproduce",
                   "a test model", "## Resolved config", card["git_commit"]):
        assert needle in text, needle
    assert "dqn:" not in text.split("## Resolved config")[1]  # only the run's own algorithm section
    # written outside models/: the card loads and reproduces the file where it is
    head = text.split("## Training")[0]
    assert f"`ppo:{(models / 'ppo_tiny_model.pt').as_posix()}`" in head and "ppo:models/" not in head
    assert f"hollywood reproduce {(models / 'ppo_tiny_model.pt').as_posix()}" in text


def test_the_shipped_file_plays_and_reproduces_its_card(shipped):
    """The card's evaluation command gives the card's figure, and reproduce (same config, same seed,
    same machine) lands within every published interval."""
    _, models = shipped
    from experiments.evaluation.head_to_head import evaluate
    from experiments.release.ship import reproduce_model

    card = load_checkpoint(models / "ppo_tiny_model.pt")["card"]
    e = card["evaluations"][1]
    s, _ = evaluate(f"ppo:{models / 'ppo_tiny_model.pt'}", "simple", Rules(), matches=6, seed=e["seed"])
    assert {k: s["metrics"]["hand_win_rate"][k] for k in ("value", "low", "high", "n")} == e["metrics"]["hand_win_rate"]
    assert reproduce_model(models / "ppo_tiny_model.pt") == 0


def test_short_names_load_the_models_folder(shipped, monkeypatch, tmp_path):
    _, models = shipped
    (models / "ppo_hollywood.pt").write_bytes((models / "ppo_tiny_model.pt").read_bytes())
    monkeypatch.setattr(registry, "MODELS_DIR", models)
    policy = make_agent("ppo-hollywood", "hollywood", seed=0)
    assert policy.name.startswith("ppo:")
    monkeypatch.setattr(registry, "MODELS_DIR", tmp_path)  # an empty folder
    with pytest.raises(AgentSpecError, match="ppo-hollywood: the shipped model file .*ppo_hollywood.pt is missing"):
        make_agent("ppo-hollywood", "hollywood")
    with pytest.raises(AgentSpecError, match="dqn-hollywood: the shipped model file"):
        make_agent("dqn-hollywood", "hollywood")


def test_ship_and_reproduce_refuse_bad_input(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "experiments.cli", *args], capture_output=True, text=True)

    r = run("ship", str(tmp_path), "x")
    assert r.returncode == 2 and "checkpoints/latest.pt not found" in r.stderr and "Traceback" not in r.stderr
    r = run("ship", str(tmp_path), "bad/name")
    assert r.returncode == 2 and "NAME must be letters" in r.stderr
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    r = run("reproduce", str(tmp_path / "junk.pt"))
    assert r.returncode == 2 and "not a valid checkpoint" in r.stderr and "Traceback" not in r.stderr


def test_shipped_models_in_the_tree_load_when_present():
    """Every models/*.pt in the source tree loads by its short name and has its card beside it."""
    for short, stem in registry.SHIPPED_MODELS.items():
        path = registry.MODELS_DIR / f"{stem}.pt"
        if not path.exists():
            continue
        ckpt = load_checkpoint(path)
        rules = Rules.from_dict(ckpt["rules"])
        policy = make_agent(short, rules, seed=0)
        assert (registry.MODELS_DIR / f"{stem}.md").is_file()
        assert ckpt["card"]["evaluations"] and "train_state" not in ckpt
        assert path.stat().st_size < 10_000_000  # a few MB
        del policy


def test_reproduce_stops_where_an_early_stopped_model_stopped(tmp_path):
    """A model shipped from a run stopped after update 2 of 4 is reproduced by stopping at update 2."""
    import os
    import signal

    from agents.rl.stopping import TrainingStopped
    from experiments.release.ship import main, reproduce_model

    cfg = load_config(TrainConfig, "configs/ppo_tiny.yaml",
                      TINY + ["--total_steps", "4096", "--log.root", str(tmp_path / "runs")])  # 4 updates

    def stop_at_2(update, collector):
        if update == 2:
            os.kill(os.getpid(), signal.SIGTERM)

    with pytest.raises(TrainingStopped):
        run_training(cfg, on_update=stop_at_2)
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert main([str(run_dir), "stopped", "--opponents", "simple", "--matches", "4",
                 "--models-dir", str(tmp_path / "models")]) == 0
    assert load_checkpoint(tmp_path / "models" / "stopped.pt")["update"] == 2
    assert reproduce_model(tmp_path / "models" / "stopped.pt") == 0
    again = sorted((tmp_path / "runs").iterdir())[-1]
    assert load_checkpoint(again / "checkpoints" / "latest.pt")["update"] == 2


@pytest.fixture(scope="module")
def shipped_pair(shipped, tmp_path_factory):
    """Two training seeds of the tiny config shipped as one agent (seed 0's run, seed 1's run)."""
    run0, _ = shipped
    tmp = tmp_path_factory.mktemp("ship_pair")
    cfg = load_config(TrainConfig, "configs/ppo_tiny.yaml", TINY + ["--seed", "1", "--log.root", str(tmp / "runs")])
    run1, _ = run_training(cfg)
    from experiments.release.ship import main

    assert main([str(run0), str(run1), "pair", "--opponents", "simple", "--matches", "6",
                 "--models-dir", str(tmp / "models")]) == 0
    return run0, run1, tmp / "models" / "pair.pt"


def test_several_runs_ship_as_one_agent(shipped_pair):
    """The file holds each run's network (the first at the top, the others in ``ensemble``), loads
    as the ensemble of the two runs' checkpoints and plays as ``ppo-ensemble:`` of them does."""
    import numpy as np

    from agents.rl.policies import PPOEnsemblePolicy, PPOPolicy
    from hollywood_env import core
    from hollywood_env.observation import encode

    run0, run1, pt = shipped_pair
    ckpt = load_checkpoint(pt)
    assert len(ckpt["ensemble"]) == 1 and "train_state" not in ckpt
    for net, run in ((ckpt, run0), (ckpt["ensemble"][0], run1)):
        full = load_checkpoint(run / "checkpoints" / "latest.pt")
        assert all(np.array_equal(net["model"][k], full["model"][k]) for k in full["model"])
    card = ckpt["card"]
    assert [n["source_run"] for n in card["networks"]] == [run0.name, run1.name]
    assert [n["seed"] for n in card["networks"]] == [0, 1]
    shipped_agent = make_agent(f"ppo:{pt}", "hollywood")
    both = make_agent(f"ppo-ensemble:{run0}/checkpoints/latest.pt+{run1}/checkpoints/latest.pt", "hollywood")
    assert isinstance(shipped_agent, PPOEnsemblePolicy) and len(shipped_agent.members) == 2
    state = core.init(64, Rules(), seed=5)
    obs, masks = encode(state), state.legal_action_mask
    assert np.array_equal(shipped_agent(obs, masks), both(obs, masks))
    with pytest.raises(ValueError, match="holds 2 networks that play as one agent"):
        PPOPolicy.from_checkpoint(pt)
    text = (pt.parent / "pair.md").read_text()
    for needle in ("A PPO agent of 2 networks, the same config trained with seeds 0, 1",
                   "hollywood train configs/ppo_tiny.yaml --seed 1", f"`{run1.name}` (seed 1)",
                   "the others' differ in `seed` only"):
        assert needle in text, needle


def test_a_shipped_one_network_model_joins_an_ensemble(shipped, shipped_pair, tmp_path):
    """A model file written by ship can stand for its run: its network and its card's run facts."""
    from experiments.release.ship import main

    _, models = shipped
    _, run1, _ = shipped_pair
    assert main([str(models / "ppo_tiny_model.pt"), str(run1), "again", "--opponents", "random", "--matches", "2",
                 "--models-dir", str(tmp_path)]) == 0
    card = load_checkpoint(tmp_path / "again.pt")["card"]
    first = load_checkpoint(models / "ppo_tiny_model.pt")["card"]
    assert card["networks"][0]["source_run"] == first["source_run"] == card["source_run"]
    assert card["networks"][0]["git_commit"] == first["git_commit"]


def test_ship_refuses_an_ensemble_of_other_games(shipped, tmp_path):
    """The networks of one agent play one game: a run on other rules is refused in one line."""
    def run(*args):
        return subprocess.run([sys.executable, "-m", "experiments.cli", *args], capture_output=True, text=True)

    run0, models = shipped
    ckpt = load_checkpoint(run0 / "checkpoints" / "latest.pt")
    from agents.checkpoint import save_checkpoint

    other = tmp_path / "other_run"
    ckpt["rules"] = {**ckpt["rules"], "target": 150}
    save_checkpoint(ckpt, other / "checkpoints" / "latest.pt")
    r = run("ship", str(run0), str(other), "mixed", "--models-dir", str(tmp_path / "m"))
    assert r.returncode == 2 and "trained on other rules" in r.stderr and "Traceback" not in r.stderr


def test_a_shipped_ensemble_reproduces_by_training_each_seed(shipped_pair):
    from experiments.release.ship import reproduce_model

    _, _, pt = shipped_pair
    assert reproduce_model(pt) == 0


def test_a_network_starts_from_an_ensembles_first_network(shipped_pair):
    """ppo.init and exploit --start read one network: of a shipped ensemble, the first; the
    exploit report's start figures are that network's."""
    import numpy as np

    from agents.rl.loop import initial_weights
    from agents.rl.policies import PPOPolicy
    from experiments.evaluation.exploit import start_network

    run0, _, pt = shipped_pair
    first = load_checkpoint(run0 / "checkpoints" / "latest.pt")["model"]
    start = initial_weights(f"ppo:{pt}")
    assert all(np.array_equal(start["model"][k], first[k]) for k in first)
    policy, networks = start_network(f"ppo:{pt}", "hollywood")
    assert isinstance(policy, PPOPolicy) and "first network" in policy.name and networks == 2
    assert start_network("ppo-hollywood", "hollywood") == ("ppo-hollywood", 1)


def test_a_malformed_ensemble_is_not_a_checkpoint(shipped_pair, tmp_path):
    from agents.checkpoint import CheckpointError, save_checkpoint

    _, _, pt = shipped_pair
    ckpt = load_checkpoint(pt)
    for bad, message in (({**ckpt, "ensemble": {"a": 1}}, "field 'ensemble' is not a list"),
                         ({**ckpt, "ensemble": [{"model": {}}]}, "ensemble network 2: field 'obs_dim'"),
                         ({**ckpt, "ensemble": [{**ckpt["ensemble"][0], "rules": {"target": 5}}]},
                          "trained on other rules")):
        save_checkpoint(bad, tmp_path / "bad.pt")
        with pytest.raises(CheckpointError, match=message):
            load_checkpoint(tmp_path / "bad.pt")
