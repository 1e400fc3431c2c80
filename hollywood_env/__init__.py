"""Hollywood Gin: a vectorized Gin Rummy rules engine with three-column Hollywood scoring."""

from typing import Any

from . import actions, cards, melds
from .rules import PRESETS, Rules, resolve_rules

__version__ = "0.1.0"

from .rewards import MODES as REWARD_MODES
from .rewards import RewardConfig

__all__ = ["Rules", "PRESETS", "resolve_rules", "actions", "cards", "melds", "__version__",
           "RewardConfig", "REWARD_MODES", "env", "raw_env", "HollywoodGinVectorEnv", "HollywoodGinEnv",
           "SelfPlayBatch", "RandomOpponent", "HollywoodGinSB3VecEnv", "hollywood_gin_v0"]


def env(**kwargs: Any) -> Any:
    """The PettingZoo AEC env in the classic wrappers (see :mod:`hollywood_env.aec_env`)."""
    from .aec_env import env as _env

    return _env(**kwargs)


_LAZY = {
    "raw_env": ("aec_env", "raw_env"),
    "HollywoodGinVectorEnv": ("vector_env", "HollywoodGinVectorEnv"),
    "HollywoodGinEnv": ("vector_env", "HollywoodGinEnv"),
    "SelfPlayBatch": ("selfplay", "SelfPlayBatch"),
    "RandomOpponent": ("selfplay", "RandomOpponent"),
    "HollywoodGinSB3VecEnv": ("sb3", "HollywoodGinSB3VecEnv"),  # needs the sb3 extra
}


def __getattr__(name):  # lazy: pettingzoo and gymnasium load only when an env is used
    if name == "hollywood_gin_v0":  # the versioned PettingZoo module (from hollywood_env import hollywood_gin_v0)
        import importlib

        return importlib.import_module(".hollywood_gin_v0", __name__)
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(f".{module}", __name__), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _register() -> None:
    try:
        import gymnasium
    except ImportError:  # pragma: no cover - gymnasium is optional for the core
        return
    if "HollywoodGin-v0" not in gymnasium.registry:
        gymnasium.register(
            id="HollywoodGin-v0",
            entry_point="hollywood_env.vector_env:HollywoodGinEnv",
            vector_entry_point="hollywood_env.vector_env:HollywoodGinVectorEnv",
        )


_register()
