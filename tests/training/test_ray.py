"""The Ray side: the Ray collector matches the local one, a killed rollout worker is restarted
and the run goes on unchanged, an interrupt leaves a checkpoint, a two-seed sweep, a tournament
on Ray tasks. Marked ``ray``: run with ``make test-ray`` (``pytest -m ray``), on a 2-CPU local Ray."""

import logging

import numpy as np
import pytest
from helpers import TINY, assert_restarts_left_the_run_unchanged, tiny, tiny_dqn_two_shards

from agents.checkpoint import load_checkpoint
from experiments.training.run_writer import read_metrics
from experiments.training.train import compare_metrics, run_training

pytestmark = pytest.mark.ray
ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def local_two_shards(tmp_path_factory):
    """The reference: the tiny run with two local shards."""
    run, _ = run_training(tiny(tmp_path_factory.mktemp("local"), "--collector.num_workers", "2"))
    return read_metrics(run)


def test_ray_collector_matches_local(local_ray, local_two_shards, tmp_path):
    run, metrics = run_training(tiny(tmp_path, "--collector.kind", "ray", "--collector.num_workers", "2"))
    assert compare_metrics(local_two_shards, read_metrics(run)) == []
    assert metrics["charts/worker_restarts"] == 0


def test_killed_worker_is_restarted_and_the_run_is_unchanged(local_ray, local_two_shards, tmp_path, caplog):
    killed = []

    def kill(update, collector):
        # worker 0 after update 1 (a fresh shard), worker 1 after update 3 (its league holds the
        # snapshot promoted at update 2, rebuilt from the learner's copy)
        if update == 3:
            assert collector.states[1]["rollout"]["league"]["snapshot_ids"], "the promoted snapshot should be in its league"
        if update in (1, 3):
            ray.kill(collector.workers[0 if update == 1 else 1])
            killed.append(update)

    with caplog.at_level(logging.WARNING, logger="agents.rl.collectors"):
        run, metrics = run_training(tiny(tmp_path, "--collector.kind", "ray", "--collector.num_workers", "2"),
                                    on_update=kill)
    assert killed == [1, 3]
    assert_restarts_left_the_run_unchanged(run, caplog, local_two_shards)


def test_a_signal_with_ray_workers_leaves_a_checkpoint_and_resumes_exactly(local_ray, local_two_shards, tmp_path):
    import os
    import signal

    from agents.rl.stopping import TrainingStopped

    seen = {}

    def stop(update, collector):
        seen["workers"] = list(collector.workers)
        if update == 1:
            os.kill(os.getpid(), signal.SIGTERM)

    run_dir = tmp_path / "interrupted"
    cfg = tiny(tmp_path, "--collector.kind", "ray", "--collector.num_workers", "2", "--log.checkpoint_every", "10")
    with pytest.raises(TrainingStopped):
        run_training(cfg, run_dir=run_dir, on_update=stop)
    assert load_checkpoint(run_dir / "checkpoints" / "latest.pt")["update"] == 1
    for w in seen["workers"]:  # the collector killed its actors on the way out
        with pytest.raises(ray.exceptions.RayActorError):
            ray.get(w.pid.remote(), timeout=60)
    run_training(cfg, run_dir=run_dir, resume_from=run_dir / "checkpoints" / "latest.pt")
    assert [x["update"] for x in read_metrics(run_dir)] == [1, 2, 3, 4]
    assert compare_metrics(local_two_shards, read_metrics(run_dir)) == []  # the workers' games were restored


def test_dqn_collects_on_ray_workers_as_in_local_shards(local_ray, tmp_path):
    local, _ = run_training(tiny_dqn_two_shards(tmp_path))
    remote, _ = run_training(tiny_dqn_two_shards(tmp_path, "--collector.kind", "ray"))
    assert compare_metrics(read_metrics(local), read_metrics(remote)) == []


def test_two_seed_sweep_makes_two_runs_and_a_summary(local_ray, tmp_path):
    from experiments.training.sweep import run_sweep

    res = run_sweep("configs/ppo_tiny.yaml", [0, 1], [], TINY + ["--log.root", str(tmp_path),
                                                                 "--total_steps", "1024"],
                    out=str(tmp_path / "sweep"))
    assert res["failed"] == []
    runs = sorted(p for p in tmp_path.iterdir() if p.name.startswith("ppo_tiny__"))
    assert [p.name.split("__")[1] for p in runs] == ["0", "1"]
    for p in runs:
        assert list(p.glob("events.out.tfevents.*")) and (p / "checkpoints" / "latest.pt").is_file()
    for name in ("summary.md", "summary.csv", "summary.json"):
        assert (tmp_path / "sweep" / name).is_file()
    rows = {r["metric"]: r for r in res["rows"]}
    r = rows["eval/win_rate_vs_simple"]
    assert r["seeds"] == 2 and r["point"] == "(base)"
    assert r["mean"] == pytest.approx(np.mean(r["values"]))
    assert "| (base) | eval/win_rate_vs_simple | 2 |" in (tmp_path / "sweep" / "summary.md").read_text()


def test_tournament_on_ray_tasks_matches_local(local_ray):
    from experiments.evaluation.tournament import round_robin, summarize_tournament

    agents = ["random", "simple", "neller"]
    a = round_robin(agents, "hollywood", n_pairs=6, seed=5, max_steps=300)
    b = round_robin(agents, "hollywood", n_pairs=6, seed=5, max_steps=300, ray=True)
    assert a.pairings.keys() == b.pairings.keys()
    for key, ra in a.pairings.items():
        rb = b.pairings[key]
        for name, va in vars(ra).items():
            if name in ("seconds", "rules"):
                continue
            vb = getattr(rb, name)
            assert np.array_equal(va, vb) if isinstance(va, np.ndarray) else va == vb, (key, name)
    sa = summarize_tournament(a, n_boot=50, n_boot_ratings=20)
    sb = summarize_tournament(b, n_boot=50, n_boot_ratings=20)
    assert sa["ratings"] == sb["ratings"] and sa["matrix"] == sb["matrix"]
