"""Rollout shards and collectors (without Ray): config checks, shard state round trip,
interrupts leave a resumable checkpoint, the worker-process collector (same runs as local, a
killed worker restarted, exact resume, clean shutdown), sweep helpers. The Ray side is in
test_ray.py."""


import logging
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import assert_restarts_left_the_run_unchanged, tiny, tiny_dqn_two_shards

from agents.checkpoint import load_checkpoint
from agents.rl.collectors import LocalCollector, ProcessCollector, shard_seeds, weights_to_numpy
from agents.rl.ppo import PPOShard
from experiments.config.loader import ConfigError, apply_overrides
from experiments.config.schema import TrainConfig
from experiments.training.run_writer import read_metrics
from experiments.training.train import compare_metrics, run_training


def test_collector_config_is_checked():
    cfg = apply_overrides(TrainConfig(), ["--ppo.num_games", "64", "--collector.num_workers", "4"])
    assert cfg.collector.envs_per_worker(cfg.ppo.num_games) == 16
    with pytest.raises(ConfigError, match=r"ppo.num_games \(64\) must be a multiple of collector.num_workers \(3\)"):
        apply_overrides(TrainConfig(), ["--ppo.num_games", "64", "--collector.num_workers", "3"])
    with pytest.raises(ConfigError, match="collector.kind must be one of local, process, ray"):
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


@pytest.mark.slow  # two shards in one process; test_process_collector_matches_local covers two shards by default
def test_two_local_shards_run_and_reproduce(tmp_path):
    run1, m1 = run_training(tiny(tmp_path, "--collector.num_workers", "2"))
    assert m1["charts/worker_restarts"] == 0
    run2, _ = run_training(tiny(tmp_path, "--collector.num_workers", "2"))
    assert compare_metrics(read_metrics(run1), read_metrics(run2)) == []
    assert [x["update"] for x in read_metrics(run1)] == [1, 2, 3, 4]


def test_a_signal_after_an_update_leaves_that_update_resumable(tmp_path):
    """SIGINT during update 2 (checkpoints every 10): the run finishes update 2, writes latest.pt
    with it and stops; --resume logs updates 3 and 4 (tests/training/test_resume.py: exactness)."""
    import os
    import signal

    from agents.rl.stopping import TrainingStopped

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
    import experiments.training.train as T

    def boom(cfg, run_dir=None, resume_from=None, on_update=None):
        (run_dir / "checkpoints").mkdir(parents=True)
        (run_dir / "checkpoints" / "latest.pt").write_bytes(b"")
        raise KeyboardInterrupt

    monkeypatch.setattr(T, "run_training", boom)
    assert T.train_main(["configs/ppo_tiny.yaml", "--log.root", str(tmp_path)]) == 130
    assert "--resume" in capsys.readouterr().err


# --- worker processes (collector.kind: process) -----------------------------------------------


@pytest.fixture(scope="module")
def local_two_shards(tmp_path_factory):
    """The reference: the tiny run with two local shards."""
    run, _ = run_training(tiny(tmp_path_factory.mktemp("local"), "--collector.num_workers", "2"))
    return read_metrics(run)


def process_tiny(tmp_path, *extra):
    return tiny(tmp_path, "--collector.kind", "process", "--collector.num_workers", "2", *extra)


def assert_reaped(workers):
    """Every worker process has exited and been waited for (no zombies)."""
    assert workers and all(p.exitcode is not None for p in workers), [(p.pid, p.exitcode) for p in workers]
    assert multiprocessing.active_children() == []


def test_process_collector_matches_local(local_two_shards, tmp_path):
    seen = []
    run, metrics = run_training(process_tiny(tmp_path), on_update=lambda u, c: seen.extend(c.workers))
    assert compare_metrics(local_two_shards, read_metrics(run)) == []  # everything but charts/SPS*
    assert metrics["charts/worker_restarts"] == 0
    assert len({p.pid for p in seen}) == 2 and all(p.pid != os.getpid() for p in seen)
    assert_reaped(seen)


@pytest.mark.slow  # the mechanism is in the default suite (local resume, process restarts)
def test_dqn_collects_in_worker_processes_as_in_local_shards(tmp_path):
    local, _ = run_training(tiny_dqn_two_shards(tmp_path))
    processes, _ = run_training(tiny_dqn_two_shards(tmp_path, "--collector.kind", "process"))
    assert compare_metrics(read_metrics(local), read_metrics(processes)) == []


def test_killed_worker_process_is_restarted_and_the_run_is_unchanged(local_two_shards, tmp_path, caplog):
    killed, seen, victims = [], [], []

    def kill(update, collector):
        seen.extend(collector.workers)
        # worker 0 after update 1 (a fresh shard), worker 1 after update 3 (its league holds the
        # snapshot promoted at update 2, rebuilt from the learner's copy)
        if update == 3:
            league = collector.states[1]["rollout"]["league"]
            assert league["snapshot_ids"], "the promoted snapshot should be in its league"
        if update in (1, 3):
            victims.append(collector.workers[0 if update == 1 else 1])
            os.kill(victims[-1].pid, signal.SIGKILL)
            killed.append(update)

    with caplog.at_level(logging.WARNING, logger="agents.rl.collectors"):
        run, _ = run_training(process_tiny(tmp_path), on_update=kill)
    assert killed == [1, 3]
    assert_restarts_left_the_run_unchanged(run, caplog, local_two_shards)
    assert [p.exitcode for p in victims] == [-signal.SIGKILL, -signal.SIGKILL]  # reaped by the restarts
    assert len({p.pid for p in seen}) == 4  # two workers, each replaced once
    assert_reaped(seen)


def test_a_worker_that_keeps_dying_ends_the_run_with_a_clear_error(tmp_path):
    cfg = process_tiny(tmp_path, "--collector.max_restarts", "0")
    net = PPOShard(cfg, 0).net
    collector = ProcessCollector(PPOShard, cfg)
    try:
        collector.collect(net)
        os.kill(collector.workers[0].pid, signal.SIGKILL)
        with pytest.raises(RuntimeError, match="rollout worker 0 died 1 times in one update; giving up"):
            collector.collect(net)
    finally:
        collector.close()
    assert_reaped(collector.workers)


class ProbeShard(PPOShard):
    """A shard that reports its process's thread settings in its batch's ``stats``."""

    def collect(self, *args, **kwargs):
        b = super().collect(*args, **kwargs)
        b.stats = {"pid": os.getpid(), "threads": torch.get_num_threads(),
                   "deterministic": torch.are_deterministic_algorithms_enabled(),
                   "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY")}
        return b


def test_worker_processes_run_one_torch_thread_with_passive_openmp(tmp_path, monkeypatch):
    """The workers are the parallelism (one torch thread each) and start with idle OpenMP threads
    that sleep; the learner's own environment is left as it was."""
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    cfg = process_tiny(tmp_path)
    collector = ProcessCollector(ProbeShard, cfg)
    try:
        stats = [b.stats for b in collector.collect(PPOShard(cfg, 0).net)]
    finally:
        collector.close()
    assert [s["pid"] for s in stats] == [p.pid for p in collector.workers]
    assert all(s["threads"] == 1 and s["deterministic"] and s["OMP_WAIT_POLICY"] == "PASSIVE" for s in stats), stats
    assert "OMP_WAIT_POLICY" not in os.environ
    assert_reaped(collector.workers)


class BrokenShard(PPOShard):
    """A shard whose rollout raises (built in a worker process: imported from this module there)."""

    def collect(self, *args, **kwargs):
        raise ValueError("broken on purpose")


def test_an_error_in_a_worker_is_raised_with_its_traceback_not_restarted(tmp_path):
    cfg = process_tiny(tmp_path)
    collector = ProcessCollector(BrokenShard, cfg)
    try:
        with pytest.raises(RuntimeError, match=r"rollout worker 0 failed:\n(.|\n)*ValueError: broken on purpose"):
            collector.collect(PPOShard(cfg, 0).net)
        assert collector.restarts == 0 and all(p.is_alive() for p in collector.workers)
    finally:
        collector.close()
    assert_reaped(collector.workers)


@pytest.mark.slow  # the mechanism is in the default suite (local resume, process restarts)
def test_a_signal_with_worker_processes_leaves_a_checkpoint_and_resumes_exactly(local_two_shards, tmp_path):
    from agents.rl.stopping import TrainingStopped

    seen = []

    def stop(update, collector):
        seen.extend(collector.workers)
        if update == 1:
            os.kill(os.getpid(), signal.SIGTERM)

    run_dir = tmp_path / "interrupted"
    cfg = process_tiny(tmp_path, "--log.checkpoint_every", "10")
    with pytest.raises(TrainingStopped):
        run_training(cfg, run_dir=run_dir, on_update=stop)
    assert load_checkpoint(run_dir / "checkpoints" / "latest.pt")["update"] == 1
    assert_reaped(seen)  # the collector ended its workers on the way out
    run_training(cfg, run_dir=run_dir, resume_from=run_dir / "checkpoints" / "latest.pt")
    assert [x["update"] for x in read_metrics(run_dir)] == [1, 2, 3, 4]
    assert compare_metrics(local_two_shards, read_metrics(run_dir)) == []  # the workers' games were restored


def _exited(pid: int) -> bool:
    """The process is gone, or a zombie nobody has waited for yet (it has exited)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_worker_processes_exit_when_the_learner_dies():
    """A learner killed with SIGKILL runs no cleanup: its workers see their pipe close and exit."""
    root = Path(__file__).resolve().parents[2]
    script = ("import os, signal\n"
              "from agents.rl.collectors import ProcessCollector\n"
              "from agents.rl.ppo import PPOShard\n"
              "from experiments.config.loader import load_config\n"
              "from experiments.config.schema import TrainConfig\n"
              "cfg = load_config(TrainConfig, 'configs/ppo_tiny.yaml', ['--collector.kind', 'process',\n"
              "                  '--collector.num_workers', '2', '--ppo.num_games', '16'])\n"
              "c = ProcessCollector(PPOShard, cfg)\n"
              "c.collect(PPOShard(cfg, 0).net)\n"
              "print(*(p.pid for p in c.workers), flush=True)\n"
              "os.kill(os.getpid(), signal.SIGKILL)\n")
    p = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": str(root)})
    assert p.returncode == -signal.SIGKILL, p.stderr
    pids = [int(x) for x in p.stdout.split()]
    assert len(pids) == 2
    deadline = time.time() + 30
    try:
        while time.time() < deadline and not all(_exited(pid) for pid in pids):
            time.sleep(0.1)
        assert all(_exited(pid) for pid in pids)
    finally:
        for pid in pids:
            if not _exited(pid):
                os.kill(pid, signal.SIGKILL)


# --- sweep helpers (the sweep itself needs Ray: test_ray.py) ------------------------------------


def test_sweep_arguments():
    from experiments.training.sweep import grid_points, parse_grid, parse_seeds, point_label, run_name

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
    from experiments.training.sweep import format_summary, summarize_sweep

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
    from experiments.training.train import train_main

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    argv = ["configs/ppo_tiny.yaml", "--collector.kind", "ray", "--log.root", str(tmp_path)]
    assert train_main(argv) == 2
    assert "pip install 'hollywood-gin-rl[ray]'" in capsys.readouterr().err
    assert main(["tournament", "random", "simple", "--matches", "2", "--ray", "-q", "--out", str(tmp_path)]) == 2
    assert "needs Ray" in capsys.readouterr().err
    assert main(["sweep", "configs/ppo_tiny.yaml", "--seeds", "0-1", "--log.root", str(tmp_path)]) == 2
    assert "needs Ray" in capsys.readouterr().err
