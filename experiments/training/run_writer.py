"""Writing a run folder: TensorBoard events, a JSONL of metrics, the resolved config and checkpoints.

``runs/<name>__<seed>__<time>/`` holds ``config.yaml`` (resolved), ``meta.yaml`` (package version,
git commit), ``events.out.tfevents.*``, ``metrics.jsonl`` (one JSON object per logging point,
with ``update`` and ``global_step``) and ``checkpoints/{latest,best}.pt``. :func:`new_run_dir`
makes the folder, :class:`RunLogger` writes its scalars, and :func:`read_metrics` reads its
``metrics.jsonl`` back (to compare runs); reading runs for analysis (curves over seeds,
TensorBoard files) is :mod:`experiments.analysis.run_reader`.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

from agents.checkpoint import ALGOS, atomic_write_text
from experiments.config.loader import save_resolved, to_dict


def new_run_dir(root: str, name: str, seed: int) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(root) / f"{name}__{seed}__{stamp}"
    path, k = base, 1
    while path.exists():
        path = Path(f"{base}-{k}")
        k += 1
    path.mkdir(parents=True)
    return path


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def run_hyperparameters(cfg) -> dict:
    """The run's hyperparameters, flattened (``ppo.lr``): every section of the config except
    those of the algorithms the run does not use (a PPO run lists no ``dqn.*`` key)."""
    d = to_dict(cfg)
    algo = d.get("algo")
    return _flatten({k: v for k, v in d.items() if k not in ALGOS or k == algo})


class RunLogger:
    """Writes scalars to TensorBoard and to ``metrics.jsonl`` at once.

    TensorBoard also gets the hyperparameters (:func:`run_hyperparameters`): as a text table at
    the start, and in the HParams tab at the end of a run (:meth:`hparams`, with the final
    ``eval/*`` metrics). The scalar tags follow CleanRL's (``charts/episodic_return``,
    ``charts/episodic_length``, ``charts/SPS``, ``losses/...``), plus ``hollywood/*``,
    ``league/*`` and ``eval/*``.

    A resumed run (``resume=True``) must call :meth:`resume_at` with the update and global step
    its checkpoint holds before logging: the lines of later updates (logged before the run was
    stopped) are removed from ``metrics.jsonl``, and TensorBoard is told to drop their events
    (``purge_step``), so that every update appears exactly once in both.
    """

    def __init__(self, run_dir: Path, cfg, resume: bool = False):
        self.run_dir = Path(run_dir)
        self.cfg = cfg
        self.writer = self.jsonl = None
        if not resume:
            save_resolved(cfg, self.run_dir)
            self._open(purge_step=None)
            flat = run_hyperparameters(cfg)
            table = "|param|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in flat.items())
            self.writer.add_text("hyperparameters", table)

    def _open(self, purge_step: int | None) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(str(self.run_dir), purge_step=purge_step)
        self.jsonl = open(self.run_dir / "metrics.jsonl", "a")

    def resume_at(self, update: int, global_step: int) -> None:
        """Continue after ``update`` (logged at ``global_step``): forget everything logged later."""
        path = self.run_dir / "metrics.jsonl"
        kept = []
        if path.is_file():
            for line in path.read_text().splitlines():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:  # a line cut off by a kill
                    continue
                if isinstance(row, dict) and row.get("update", update + 1) <= update:
                    kept.append(line)
        atomic_write_text(path, "".join(x + "\n" for x in kept))
        self._open(purge_step=global_step + 1)

    def log(self, update: int, global_step: int, scalars: dict) -> None:
        if self.writer is None:
            raise RuntimeError("a resumed RunLogger needs resume_at(update, global_step) before log()")
        clean = {k: float(v) for k, v in scalars.items() if v is not None and math.isfinite(float(v))}
        for k, v in clean.items():
            self.writer.add_scalar(k, v, global_step)
        self.jsonl.write(json.dumps({"update": update, "global_step": global_step, **clean}, sort_keys=True) + "\n")
        self.jsonl.flush()
        self.writer.flush()

    def hparams(self, final_metrics: dict) -> None:
        flat = {k: (v if isinstance(v, (int, float, str, bool)) else str(v)) for k, v in run_hyperparameters(self.cfg).items()}
        metrics = {f"hparam/{k.replace('/', '_')}": float(v) for k, v in final_metrics.items()}
        if metrics:
            self.writer.add_hparams(flat, metrics, run_name="hparams")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.flush()
            self.writer.close()
            self.jsonl.close()


def read_metrics(run_dir: str | Path) -> list[dict]:
    path = Path(run_dir) / "metrics.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"no metrics.jsonl in {run_dir}")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
