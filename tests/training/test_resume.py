"""Safe checkpoints and crash-proof runs.

* No checkpoint can run code: crafted files (a zip checkpoint and a raw pickle whose
  ``__reduce__`` calls ``os.system``) go through every entry point that reads one; nothing runs,
  and the error says the file is not a valid checkpoint.
* Writes are atomic: a write cut off midway leaves the previous checkpoint whole.
* A run stopped at any moment (SIGINT, SIGTERM, SIGKILL) and resumed ends with the same weights
  and the same metrics as one that never stopped, each update logged exactly once in
  ``metrics.jsonl`` and in TensorBoard.
* Engine and learner state round-trips (games, replay buffer, transition assembler) are exact.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers import assert_same_weights

from agents.checkpoint import CheckpointError, atomic_write, load_checkpoint, save_checkpoint
from agents.rl.stopping import StopSignals, TrainingStopped
from experiments.config.loader import load_config
from experiments.config.schema import TrainConfig
from experiments.training.run_writer import read_metrics
from experiments.training.train import compare_metrics, run_training

ROOT = Path(__file__).resolve().parents[2]
TINY = {
    "ppo": ["--ppo.num_games", "16", "--ppo.num_steps", "32", "--ppo.hidden", "[32, 32]", "--ppo.num_minibatches", "2",
            "--ppo.update_epochs", "2"],
    "dqn": ["--dqn.num_games", "16", "--dqn.num_steps", "32", "--dqn.hidden", "[32, 32]", "--dqn.learning_starts", "128",
            "--dqn.buffer_size", "2000", "--dqn.gradient_steps", "2", "--dqn.batch_size", "32"],
}
# evaluation against `simple` (it knocks at once: short matches); untrained agents against `random`
# play to the wall for thousands of steps, which would dominate the test's time
COMMON = ["--league.snapshot_every", "2", "--league.gate_pairs", "2", "--eval.every", "3", "--eval.pairs", "2",
          "--eval.bots", "[simple]", "--league.bots", "[random, simple]",
          "--env.max_steps", "200", "--log.progress", "false", "--torch_threads", "1", "--log.checkpoint_every", "3",
          "--env.rule_options", "{target: 25}"]


def tiny_args(algo: str, root: Path, updates: int) -> list[str]:
    return TINY[algo] + COMMON + ["--total_steps", str(16 * 32 * updates), "--log.root", str(root)]


def tiny_config(algo: str, root: Path, updates: int) -> TrainConfig:
    """``algo``: ppo, dqn, ppo-privileged (PPO with the asymmetric critic), ppo-conv (PPO with the
    card-plane encoder), ppo-belief (PPO whose network reads the learned belief), ppo-expert (PPO
    that imitates marjj over the first half of the run) or
    dqn-expert (DQN with DQfD's margin term toward marjj over 80% of the run: the updates after a
    resume at 4 still train on the labels restored with the replay buffer and the open
    transitions)."""
    base = algo.partition("-")[0]
    extra = {"ppo-privileged": ["--ppo.privileged_critic", "true"], "ppo-conv": ["--ppo.encoder", "conv"],
             "ppo-belief": ["--ppo.belief_input", "true"],
             "ppo-expert": ["--ppo.expert", "marjj", "--ppo.expert_until", "0.5"],
             "dqn-expert": ["--dqn.expert", "marjj", "--dqn.expert_until", "0.8"]}.get(algo, [])
    return load_config(TrainConfig, ROOT / "configs" / f"{base}_tiny.yaml", tiny_args(base, root, updates) + extra)


def tensorboard_steps(run: Path, tag: str) -> list[int]:
    """The steps of ``tag`` as TensorBoard shows them (purged events dropped)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run), purge_orphaned_data=True)
    acc.Reload()
    return [e.step for e in acc.Scalars(tag)]


# --- crafted files -------------------------------------------------------------------------------


class _RunsCode:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.fixture
def crafted(tmp_path):
    """A zip checkpoint (torch.save) and a raw pickle, each with a payload that would create
    ``marker`` when unpickled, shaped like our checkpoints otherwise."""
    marker = tmp_path / "PAYLOAD_RAN"
    payload = {"algo": "ppo", "model": {}, "obs_dim": 3, "num_actions": 108, "hidden": [4], "rules": {},
               "evil": _RunsCode(marker)}
    zip_file, raw_file = tmp_path / "crafted_zip.pt", tmp_path / "crafted_raw.pt"
    torch.save(payload, zip_file)
    with open(raw_file, "wb") as f:
        pickle.dump(payload, f)
    # the payload is real: an unrestricted load runs it
    with open(raw_file, "rb") as f:
        pickle.load(f)
    assert marker.exists()
    marker.unlink()
    return marker, [zip_file, raw_file]


def _entry_points(path: Path, tmp_path: Path):
    from agents.registry import make_agent
    from agents.rl.policies import DQNPolicy, PPOPolicy

    cfg = tiny_config("ppo", tmp_path / "runs", 1)
    return {
        "load_checkpoint": lambda: load_checkpoint(path),
        "PPOPolicy.from_checkpoint": lambda: PPOPolicy.from_checkpoint(path),
        "DQNPolicy.from_checkpoint": lambda: DQNPolicy.from_checkpoint(path),
        "make_agent ppo:": lambda: make_agent(f"ppo:{path}", "hollywood"),
        "make_agent dqn:": lambda: make_agent(f"dqn:{path}", "hollywood"),
        "train --resume": lambda: run_training(cfg, run_dir=tmp_path / "resumed", resume_from=path),
    }


def test_crafted_checkpoints_run_nothing_through_any_entry_point(crafted, tmp_path):
    marker, files = crafted
    for path in files:
        for name, load in _entry_points(path, tmp_path).items():
            with pytest.raises(ValueError, match="not a valid checkpoint") as info:
                load()
            assert not marker.exists(), f"{name} ran the payload of {path.name}"
            assert "never loaded" in str(info.value) or "not a readable" in str(info.value), (name, str(info.value))


def test_crafted_checkpoint_through_the_cli_is_a_clear_error(crafted, tmp_path):
    marker, files = crafted
    for path in files:
        for argv in (["evaluate", f"ppo:{path}", "random", "--matches", "2"],
                     ["evaluate", f"dqn:{path}", "random", "--matches", "2"]):
            p = subprocess.run([sys.executable, "-m", "experiments.cli", *argv], cwd=tmp_path, capture_output=True,
                               text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
            assert p.returncode == 2, (argv, p.stderr)
            assert "Traceback" not in p.stderr and "not a valid checkpoint" in p.stderr, p.stderr
            assert not marker.exists()


@pytest.mark.parametrize("content", [b"", b"hello", b"PK\x03\x04 truncated zip", pickle.dumps([1, 2, 3]),
                                     pickle.dumps({"algo": "ppo"})])
def test_broken_files_are_not_valid_checkpoints(tmp_path, content):
    path = tmp_path / "broken.pt"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match="not a valid checkpoint"):
        load_checkpoint(path)


def test_wrong_algorithm_and_missing_training_state_are_clear_errors(tmp_path):
    ckpt = {"algo": "dqn", "model": {"w": torch.zeros(2)}, "obs_dim": 3, "num_actions": 108, "hidden": [4],
            "rules": {}}
    save_checkpoint(ckpt, tmp_path / "m.pt")
    with pytest.raises(CheckpointError, match="is a dqn checkpoint, not ppo"):
        load_checkpoint(tmp_path / "m.pt", expect_algo="ppo")
    with pytest.raises(CheckpointError, match="no training state"):
        load_checkpoint(tmp_path / "m.pt", need_train_state=True)


# --- atomic writes -------------------------------------------------------------------------------


def test_a_write_cut_off_midway_leaves_the_previous_checkpoint(tmp_path):
    path = tmp_path / "checkpoints" / "latest.pt"
    good = {"algo": "ppo", "model": {"w": torch.arange(4.0)}, "obs_dim": 3, "num_actions": 108, "hidden": [4],
            "rules": {}, "update": 1, "arr": np.arange(5, dtype=np.uint64)}
    save_checkpoint(good, path)

    def dies_halfway(f):
        f.write(b"PK\x03\x04 half a checkpoint")
        raise KeyboardInterrupt  # the kill arrives during the write

    with pytest.raises(KeyboardInterrupt):
        atomic_write(path, dies_halfway)
    back = load_checkpoint(path)
    assert back["update"] == 1 and torch.equal(back["model"]["w"], torch.arange(4.0))
    assert back["arr"].dtype == np.uint64 and (back["arr"] == np.arange(5)).all()
    assert sorted(p.name for p in path.parent.iterdir()) == ["latest.pt"], "temporary file left behind"


def test_stop_signals_first_requests_second_interrupts():
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with StopSignals() as stop:
        assert not stop.requested
        os.kill(os.getpid(), signal.SIGTERM)
        assert stop.signum == signal.SIGTERM  # the process did not die: only a request
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
    assert {s: signal.getsignal(s) for s in before} == before  # the previous handlers are back


# --- exact resume ---------------------------------------------------------------------------------


@pytest.mark.parametrize("algo", ["ppo", "dqn", "ppo-expert", "dqn-expert", "ppo-conv", "ppo-belief",
                                  pytest.param("ppo-privileged", marks=pytest.mark.slow)])
def test_stop_and_resume_equals_an_uninterrupted_run(tmp_path, algo):
    """Stopped by a signal after update 4 (checkpoints every 3), resumed: same weights, same
    metrics, each update once in metrics.jsonl and in TensorBoard."""
    updates = 7
    straight, _ = run_training(tiny_config(algo, tmp_path / "a", updates))

    def signal_at_4(update, collector):
        if update == 4:
            os.kill(os.getpid(), signal.SIGTERM)

    with pytest.raises(TrainingStopped) as info:
        run_training(tiny_config(algo, tmp_path / "b", updates), on_update=signal_at_4)
    assert info.value.update == 4 and info.value.signum == signal.SIGTERM
    (stopped,) = (tmp_path / "b").iterdir()
    assert load_checkpoint(stopped / "checkpoints" / "latest.pt")["update"] == 4
    cfg = load_config(TrainConfig, stopped / "config.yaml")
    run_training(cfg, run_dir=stopped, resume_from=stopped / "checkpoints" / "latest.pt")

    assert compare_metrics(read_metrics(straight), read_metrics(stopped)) == []
    assert [x["update"] for x in read_metrics(stopped)] == list(range(1, updates + 1))
    assert_same_weights(straight, stopped)
    assert tensorboard_steps(stopped, "charts/learning_rate") == tensorboard_steps(straight, "charts/learning_rate")


def test_resume_trims_updates_logged_after_the_checkpoint(tmp_path):
    """As after a SIGKILL: metrics.jsonl holds updates past latest.pt (and a line cut in half);
    resuming drops them and logs each update once, in TensorBoard too."""
    updates = 6
    straight, _ = run_training(tiny_config("ppo", tmp_path / "a", updates))

    def dies_in_update_5(update, collector):  # no signal handler runs: as a SIGKILL
        if update == 5:
            raise SystemError("killed")

    with pytest.raises(SystemError):
        run_training(tiny_config("ppo", tmp_path / "b", updates), on_update=dies_in_update_5)
    (run,) = (tmp_path / "b").iterdir()
    assert load_checkpoint(run / "checkpoints" / "latest.pt")["update"] == 3
    assert [x["update"] for x in read_metrics(run)] == [1, 2, 3, 4, 5]
    with open(run / "metrics.jsonl", "a") as f:
        f.write('{"update": 6, "global_step": 99')  # cut off by the kill
    cfg = load_config(TrainConfig, run / "config.yaml")
    run_training(cfg, run_dir=run, resume_from=run / "checkpoints" / "latest.pt")
    lines = read_metrics(run)
    assert [x["update"] for x in lines] == list(range(1, updates + 1))
    assert compare_metrics(read_metrics(straight), lines) == []
    steps = tensorboard_steps(run, "losses/value_loss")
    assert steps == sorted(set(steps)) and len(steps) == updates


def test_resumed_progress_bar_starts_at_the_checkpoint(tmp_path, monkeypatch):
    """The bar of a run resumed at update 3 of 5 moves from its first 0/5 (drawn before the
    checkpoint is read) to 3/5, then 4/5 and 5/5: it never counts the updates before the resume again."""
    import io

    import tqdm

    import experiments.progress

    def dies_in_update_4(update, collector):
        if update == 4:
            raise SystemError("killed")

    with pytest.raises(SystemError):
        run_training(tiny_config("ppo", tmp_path, 5), on_update=dies_in_update_4)
    (run,) = tmp_path.iterdir()
    screen = io.StringIO()
    bars = []

    def text_bar(*args, **kwargs):
        bars.append(tqdm.tqdm(*args, **{**kwargs, "disable": False, "file": screen, "mininterval": 0}))
        return bars[-1]

    monkeypatch.setattr(experiments.progress, "progress_bar", text_bar)
    run_training(load_config(TrainConfig, run / "config.yaml"), run_dir=run,
                 resume_from=run / "checkpoints" / "latest.pt")
    shown = [c for c in ("0/5", "3/5", "4/5", "5/5") if c in screen.getvalue()]
    assert shown == ["0/5", "3/5", "4/5", "5/5"] and bars[0].n == 5
    assert screen.getvalue().index("3/5") < screen.getvalue().index("4/5")


def _cli_train(args: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "experiments.cli", "train", *args], cwd=cwd,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for_lines(run_root: Path, n: int, proc: subprocess.Popen, timeout: float = 120) -> Path:
    t0 = time.time()
    while time.time() - t0 < timeout:
        runs = list(run_root.glob("*__*"))
        if runs and (runs[0] / "metrics.jsonl").is_file():
            if len((runs[0] / "metrics.jsonl").read_text().splitlines()) >= n:
                return runs[0]
        if proc.poll() is not None:
            raise AssertionError(f"training ended early: {proc.stderr.read()}")
        time.sleep(0.01)
    raise AssertionError("training too slow")


@pytest.mark.parametrize("algo,sig", [("ppo", signal.SIGKILL), pytest.param("dqn", signal.SIGTERM, marks=pytest.mark.slow),
                                      pytest.param("dqn", signal.SIGKILL, marks=pytest.mark.slow),
                                      pytest.param("ppo", signal.SIGINT, marks=pytest.mark.slow)])
def test_killed_cli_run_resumes_to_the_same_result(tmp_path, algo, sig):
    updates = 9
    config = str(ROOT / "configs" / f"{algo}_tiny.yaml")
    straight, _ = run_training(tiny_config(algo, tmp_path / "a", updates))
    proc = _cli_train([config, *tiny_args(algo, tmp_path / "b", updates)], tmp_path)
    try:
        run = _wait_for_lines(tmp_path / "b", 5, proc)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == (-sig if sig == signal.SIGKILL else 128 + sig), err
    if sig != signal.SIGKILL:
        assert "Traceback" not in err and "--resume" in err, err
    p = subprocess.run([sys.executable, "-m", "experiments.cli", "train", "--resume", str(run)], cwd=tmp_path,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert [x["update"] for x in read_metrics(run)] == list(range(1, updates + 1))
    assert compare_metrics(read_metrics(straight), read_metrics(run)) == []
    assert_same_weights(straight, run)


# --- state round trips ----------------------------------------------------------------------------


def test_selfplay_batch_state_round_trip_through_a_checkpoint(tmp_path):
    from hollywood_env import SelfPlayBatch

    a = SelfPlayBatch(16, "hollywood-nordic", "hollywood", seed=3, max_steps=300)
    rng = np.random.default_rng(0)
    _, mask, _ = a.reset()
    for _ in range(250):
        mask = a.step(np.argmax(rng.random(mask.shape) * mask, axis=1))[1]
    save_checkpoint({"algo": "ppo", "model": {}, "obs_dim": 1, "num_actions": 108, "hidden": [1], "rules": {},
                     "games": a.get_state()}, tmp_path / "g.pt")
    b = SelfPlayBatch(16, "hollywood-nordic", "hollywood", seed=99, max_steps=300)
    b.set_state(load_checkpoint(tmp_path / "g.pt")["games"])
    r1, r2 = np.random.default_rng(1), np.random.default_rng(1)
    ma = mb = mask
    for _ in range(400):
        x = a.step(np.argmax(r1.random(ma.shape) * ma, axis=1))
        y = b.step(np.argmax(r2.random(mb.shape) * mb, axis=1))
        ma, mb = x[1], y[1]
        for u, v in zip(x[:6], y[:6], strict=True):
            np.testing.assert_array_equal(u, v)
    with pytest.raises(ValueError, match="games"):
        SelfPlayBatch(8, "hollywood-nordic").set_state(a.get_state())
