"""Starting or joining a Ray cluster (for the rollout collectors and the experiments' Ray tools).

Ray is an optional dependency (``pip install 'hollywood-gin-rl[ray]'``); nothing here imports it
before it is needed, and :func:`require_ray` says how to install it when it is missing.
"""

from __future__ import annotations

from types import ModuleType


class RayUnavailable(RuntimeError):
    """Ray is needed and not installed."""


def require_ray() -> ModuleType:
    """The ``ray`` module, or :class:`RayUnavailable` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayUnavailable("this needs Ray: pip install 'hollywood-gin-rl[ray]' (or pip install 'ray[tune]>=2.9'), "
                           "or `make test-ray` to set it up in .venv") from None
    return ray


def init_ray(address: str | None = None, num_cpus: int | None = None) -> bool:
    """Connect to Ray unless already connected: ``address`` None starts a local Ray (``num_cpus``
    CPUs, None: all), ``"auto"`` joins the cluster of ``ray start --head`` on this machine,
    ``"ray://HOST:10001"`` a remote one. Returns True when this call connected (the caller then
    shuts Ray down when done)."""
    ray = require_ray()
    if ray.is_initialized():
        return False
    kwargs = {"address": address, "include_dashboard": False, "logging_level": "WARNING"}
    if address is None and num_cpus is not None:
        kwargs["num_cpus"] = int(num_cpus)
    ray.init(**kwargs)
    return True
