"""Tournament pairings as Ray tasks (starting or joining Ray: :mod:`agents.rl.ray_support`).

Ray is an optional dependency (``pip install 'hollywood-gin-rl[ray]'``); nothing here imports it
before it is needed.
"""

from __future__ import annotations

import os
import sys

from agents.rl.ray_support import init_ray, require_ray

# --- tournaments -------------------------------------------------------------------------------


def _absolute_spec(spec):
    """``ppo:runs/x`` -> ``ppo:/abs/runs/x`` (and ``file.py:f``) so that a worker elsewhere finds it."""
    if not isinstance(spec, str) or ":" not in spec:
        return spec
    head, rest = spec.split(":", 1)
    if os.path.exists(rest):
        return f"{head}:{os.path.abspath(rest)}"
    if head.endswith(".py") and os.path.exists(head):
        return f"{os.path.abspath(head)}:{rest}"
    return spec


def _play_pairing_task(kwargs: dict, torch_threads: int | None):
    from agents.matches import play_pairing

    if torch_threads:
        import torch

        torch.set_num_threads(torch_threads)
    return play_pairing(**kwargs)


def play_pairings_ray(jobs: list, progress=None, address: str | None = None, num_cpus: int | None = None,
                      cpus_per_task: float = 1.0) -> dict:
    """Run ``play_pairing(**kwargs)`` for each ``(key, kwargs)`` of ``jobs`` as one Ray task each;
    returns ``{key: PairingResult}``. The results are those of the same calls made here: each
    pairing gets its deals and its agents' seeds in ``kwargs``. ``progress`` is told of each
    finished pairing's games. Agents given by path are made absolute for workers elsewhere; the
    tasks use this process's torch thread count (when torch is loaded) so that networks compute
    exactly as they would here."""
    ray = require_ray()
    owns = init_ray(address, num_cpus)
    try:
        threads = sys.modules["torch"].get_num_threads() if "torch" in sys.modules else None
        task = ray.remote(num_cpus=cpus_per_task)(_play_pairing_task)
        refs = {}
        for key, kw in jobs:
            kw = dict(kw, agent_a=_absolute_spec(kw["agent_a"]), agent_b=_absolute_spec(kw["agent_b"]), progress=None)
            refs[task.remote(kw, threads)] = key
        results = {}
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                r = ray.get(ref)
                results[refs[ref]] = r
                if progress is not None:
                    progress.update(r.n_games)
        return {key: results[key] for key, _ in jobs}
    finally:
        if owns:
            ray.shutdown()
