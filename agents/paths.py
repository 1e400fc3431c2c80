"""Where the shipped model files and training configs live (a module of its own so that reading it
loads nothing else).

In a source checkout they are the checkout's ``models/`` and ``configs/`` folders (where
``hollywood ship`` writes and the docs point). An installed wheel carries the same files as package
data, ``agents/_models/`` and ``agents/_configs/`` (``pyproject.toml`` maps the two folders there), so
the shipped agents (``ppo-hollywood``, the ``search`` agent's belief model) and the named configs
(``hollywood train ppo_tiny``) work from any folder. ``HOLLYWOOD_MODELS`` overrides the models'
folder.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

__all__ = ["MODELS_DIR", "CONFIGS_DIR", "find_config", "find_model", "shipped_configs"]

#: the source checkout this module lies in, or its install folder (site-packages) in a wheel
_ROOT = Path(__file__).resolve().parent.parent


def _data_dir(folder: str, packaged: str) -> Path:
    """``folder`` of the source checkout when this module runs from one, else the installed copy."""
    if (_ROOT / "pyproject.toml").is_file() and (_ROOT / folder).is_dir():
        return _ROOT / folder
    return Path(str(resources.files(__package__ or "agents") / packaged))


#: the folder of the shipped models (``models/`` of the source tree, ``agents/_models`` of a wheel);
#: HOLLYWOOD_MODELS overrides it
MODELS_DIR = Path(os.environ.get("HOLLYWOOD_MODELS") or _data_dir("models", "_models"))
#: the folder of the shipped training configs (``configs/`` of the source tree, ``agents/_configs`` of a wheel)
CONFIGS_DIR = _data_dir("configs", "_configs")


def _shipped(path: str | Path, folder: str, folder_dir: Path, suffixes: tuple[str, ...]) -> Path:
    p = Path(path)
    if p.exists():
        return p
    parts = p.parts
    if len(parts) == 1 or (len(parts) == 2 and parts[0] == folder):
        stem = parts[-1]
        for suffix in suffixes:
            if stem.endswith(suffix):
                stem = stem[: -len(suffix)]
                break
        candidate = folder_dir / f"{stem}{suffixes[0]}"
        if stem and candidate.is_file():
            return candidate
    return p


def find_config(path: str | Path) -> Path:
    """The config file ``path`` names: ``path`` itself when it exists; else, for a bare name
    (``ppo_tiny``, ``ppo_tiny.yaml``) or a ``configs/NAME.yaml`` path, the shipped
    ``CONFIGS_DIR/NAME.yaml`` when there is one (so ``configs/ppo_tiny.yaml`` of the docs works
    from any folder); else ``path`` unchanged, for the caller to report missing."""
    return _shipped(path, "configs", CONFIGS_DIR, (".yaml", ".yml"))


def find_model(path: str | Path) -> Path:
    """The model file ``path`` names: ``path`` itself when it exists; else, for ``NAME.pt`` or
    ``models/NAME.pt``, the shipped ``MODELS_DIR/NAME.pt`` when there is one; else ``path``."""
    p = Path(path)
    if p.suffix != ".pt":
        return p
    return _shipped(p, "models", Path(MODELS_DIR), (".pt",))


def shipped_configs() -> list[str]:
    """The names of the shipped configs (``ppo_tiny``, ...), for ``hollywood train NAME``."""
    return sorted(p.stem for p in CONFIGS_DIR.glob("*.yaml"))
