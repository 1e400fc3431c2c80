"""Rollout shards and collectors (without Ray): config checks, shard state round trip,
interrupts leave a resumable checkpoint, sweep helpers. The Ray side is in test_ray.py."""


import numpy as np
import pytest
import torch

from agents.collectors import LocalCollector, shard_seeds, weights_to_numpy
from agents.ppo import PPOShard
from agents.checkpoint import load_checkpoint
from experiments.config import ConfigError, apply_overrides, load_config
from experiments.schema import TrainConfig
from experiments.runlog import read_metrics
from experiments.train import compare_metrics, run_training

# the tiny run of test_ppo.py: 4 updates of 16 games x 32 steps
TINY = ["--total_steps", "2048", "--ppo.num_games", "16", "--ppo.num_steps", "32", "--ppo.hidden", "[32, 32]",
        "--ppo.num_minibatches", "2", "--ppo.update_epochs", "2", "--league.snapshot_every", "2",
        "--league.gate_pairs", "2", "--eval.every", "2", "--eval.pairs", "2", "--env.max_steps", "100",
        "--league.bot_weight", "0.8", "--league.snapshot_weight", "0.1", "--log.progress", "false",
        "--torch_threads", "1", "--env.rule_options", "{target: 25}"]


def tiny(tmp_path, *extra):
    return load_config(TrainConfig, "configs/ppo_tiny.yaml", TINY + ["--log.root", str(tmp_path)] + list(extra))


def test_collector_config_is_checked():
    cfg = apply_overrides(TrainConfig(), ["--ppo.num_games", "64", "--collector.num_workers", "4"])
    assert cfg.collector.envs_per_worker(cfg.ppo.num_games) == 16
    with pytest.raises(ConfigError, match=r"ppo.num_games \(64\) must be a multiple of collector.num_workers \(3\)"):
        apply_overrides(TrainConfig(), ["--ppo.num_games", "64", "--collector.num_workers", "3"])
    with pytest.raises(ConfigError, match="collector.kind must be one of local, ray"):
        apply_overrides(TrainConfig(), ["--collector.kind", "dask"])
    with pytest.raises(ConfigError, match=r"dqn.num_games \(128\) must be a multiple of collector.num_workers \(3\)"):
        apply_overrides(TrainConfig(), ["--algo", "dqn", "--collector.num_workers", "3"])
    assert apply_overrides(TrainConfig(), ["--algo", "dqn", "--collector.num_workers", "2"]).collector.num_workers == 2
    assert apply_overrides(TrainConfig(), ["--collector.ray_address", "auto"]).collector.ray_address == "auto"


def test_shard_seeds_differ_by_shard_and_start():
    seeds = {shard_seeds(0, i, u) for i in range(4) for u in (1, 5)}
    assert len(seeds) == 8
    assert shard_seeds(0, 1) == shard_seeds(0, 1, 1)


def test_shard_state_round_trip_gives_the_same_next_batch(tmp_path):
    """What a restarted Ray worker does: a fresh shard given the state of the old one (and the
    weights of its live snapshots) collects exactly the batch the old one would have."""
    cfg = tiny(tmp_path, "--collector.num_workers", "2", "--league.snapshot_weight", "0.5")
    a = PPOShard(cfg, 1)
    torch.manual_seed(0)
    weights = weights_to_numpy(type(a.net)(a.obs_dim, a.num_actions, cfg.ppo.hidden).state_dict())
    snap = weights_to_numpy(type(a.net)(a.obs_dim, a.num_actions, cfg.ppo.hidden).state_dict())
    a.collect(weights, [("snapshot_2", snap)])
    state = a.get_state()
    league = state["rollout"]["league"]
    live = {k: (a.league.names[k], snap) for k in league["live"] if k not in league["bot_ids"]}
    assert live, "the snapshot should be live"
    b = PPOShard(cfg, 1)
    b.set_state(state, live)
    x, y = a.collect(weights), b.collect(weights)
    for f in ("obs", "mask", "action", "logp", "advantage", "ret", "value"):
        np.testing.assert_array_equal(getattr(x, f), getattr(y, f))
    assert x.episode_returns == y.episode_returns and x.n_learner == y.n_learner
    assert vars(x.stats) == vars(y.stats)


def test_two_local_shards_run_and_reproduce(tmp_path):
    run1, m1 = run_training(tiny(tmp_path, "--collector.num_workers", "2"))
    assert m1["charts/worker_restarts"] == 0
    run2, _ = run_training(tiny(tmp_path, "--collector.num_workers", "2"))
    assert compare_metrics(read_metrics(run1), read_metrics(run2)) == []
    assert [x["update"] for x in read_metrics(run1)] == [1, 2, 3, 4]


def test_a_signal_after_an_update_leaves_that_update_resumable(tmp_path):
    """SIGINT during update 2 (checkpoints every 10): the run finishes update 2, writes latest.pt
    with it and stops; --resume logs updates 3 and 4 (tests/test_resume.py: exactness)."""
    import os
    import signal

    from agents.stopping import TrainingStopped

    def stop(update, collector):
        assert isinstance(collector, LocalCollector)
        if update == 2:
            os.kill(os.getpid(), signal.SIGINT)

    cfg = tiny(tmp_path, "--log.checkpoint_every", "10")
    run_dir = tmp_path / "interrupted"
    with pytest.raises(TrainingStopped):
        run_training(cfg, run_dir=run_dir, on_update=stop)
    assert load_checkpoint(run_dir / "checkpoints" / "latest.pt")["update"] == 2
    run_training(cfg, run_dir=run_dir, resume_from=run_dir / "checkpoints" / "latest.pt")
    assert [x["update"] for x in read_metrics(run_dir)] == [1, 2, 3, 4]


def test_a_hard_interrupt_during_a_rollout_resumes_from_the_last_checkpoint(tmp_path, monkeypatch):
    """A KeyboardInterrupt raised inside update 2's rollout (as a second Ctrl-C): latest.pt still
    holds the last checkpoint (update 0 here), and --resume redoes update 1 without logging it twice."""
    calls = {"n": 0}
    collect = LocalCollector.collect

    def flaky(self, net, additions=(), **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return collect(self, net, additions, **kwargs)

    monkeypatch.setattr(LocalCollector, "collect", flaky)
    run_dir = tmp_path / "interrupted"
    cfg = tiny(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        run_training(cfg, run_dir=run_dir)
    assert load_checkpoint(run_dir / "checkpoints" / "latest.pt")["update"] == 0
    assert [x["update"] for x in read_metrics(run_dir)] == [1]
    monkeypatch.setattr(LocalCollector, "collect", collect)
    run_training(cfg, run_dir=run_dir, resume_from=run_dir / "checkpoints" / "latest.pt")
    assert [x["update"] for x in read_metrics(run_dir)] == [1, 2, 3, 4]


def test_train_main_reports_an_interrupt(tmp_path, monkeypatch, capsys):
    import experiments.train as T

    def boom(cfg, run_dir=None, resume_from=None, on_update=None):
        (run_dir / "checkpoints").mkdir(parents=True)
        (run_dir / "checkpoints" / "latest.pt").write_bytes(b"")
        raise KeyboardInterrupt

    monkeypatch.setattr(T, "run_training", boom)
    assert T.train_main(["configs/ppo_tiny.yaml", "--log.root", str(tmp_path)]) == 130
    assert "--resume" in capsys.readouterr().err


# --- sweep helpers (the sweep itself needs Ray: test_ray.py) ------------------------------------


def test_sweep_arguments():
    from experiments.sweep import grid_points, parse_grid, parse_seeds, point_label, run_name

    assert parse_seeds("0-4") == [0, 1, 2, 3, 4]
    assert parse_seeds("0,3,7") == [0, 3, 7] and parse_seeds("0-2,9,1") == [0, 1, 2, 9]
    for bad in ("a", "3-1", "-1"):
        with pytest.raises(ConfigError):
            parse_seeds(bad)
    grid = parse_grid(["ppo.lr=1e-4,3e-4", "ppo.hidden=[32,32],[64,64]"])
    assert grid == [("ppo.lr", ["1e-4", "3e-4"]), ("ppo.hidden", ["[32,32]", "[64,64]"])]
    points = grid_points(grid)
    assert len(points) == 4 and points[1] == {"ppo.lr": "1e-4", "ppo.hidden": "[64,64]"}
    assert grid_points([]) == [{}] and point_label({}) == "(base)"
    assert run_name("ppo", {"ppo.lr": "1e-4"}) == "ppo-lr=1e-4"
    with pytest.raises(ConfigError, match="KEY=V1,V2"):
        parse_grid(["ppo.lr"])
    with pytest.raises(ConfigError, match="--seeds"):
        parse_grid(["seed=1,2"])


def test_sweep_summary_has_t_intervals():
    from experiments.sweep import format_summary, summarize_sweep

    trials = [{"point": "lr=1", "seed": s, "run_dir": f"r{s}", "metrics": {"eval/win_rate_vs_random": v}}
              for s, v in enumerate([0.5, 0.7, 0.6])]
    trials.append({"point": "lr=2", "seed": 0, "run_dir": "x", "metrics": {"eval/win_rate_vs_random": 0.9}})
    rows = summarize_sweep(trials)
    assert [(r["point"], r["seeds"]) for r in rows] == [("lr=1", 3), ("lr=2", 1)]
    r = rows[0]
    assert r["mean"] == pytest.approx(0.6)
    half = 4.303 * 0.1 / np.sqrt(3)  # t(0.975, 2) * sd / sqrt(n)
    assert r["low"] == pytest.approx(0.6 - half, abs=2e-3) and r["high"] == pytest.approx(0.6 + half, abs=2e-3)
    text = format_summary(rows)
    assert "| lr=1 | eval/win_rate_vs_random | 3 | 0.600 |" in text and "n/a (one seed)" in text


def test_without_ray_the_ray_options_say_how_to_install_it(tmp_path, monkeypatch, capsys):
    import sys

    from experiments.cli import main
    from experiments.train import train_main

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    argv = ["configs/ppo_tiny.yaml", "--collector.kind", "ray", "--log.root", str(tmp_path)]
    assert train_main(argv) == 2
    assert "pip install 'hollywood-gin-rl[ray]'" in capsys.readouterr().err
    assert main(["tournament", "random", "simple", "--matches", "2", "--ray", "-q", "--out", str(tmp_path)]) == 2
    assert "needs Ray" in capsys.readouterr().err
    assert main(["sweep", "configs/ppo_tiny.yaml", "--seeds", "0-1", "--log.root", str(tmp_path)]) == 2
    assert "needs Ray" in capsys.readouterr().err
