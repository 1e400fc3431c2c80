"""Where the shipped model files live (a module of its own so that reading it loads nothing else)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["MODELS_DIR"]

#: the folder of the shipped models (``models/`` of the source tree); HOLLYWOOD_MODELS overrides it
MODELS_DIR = Path(os.environ.get("HOLLYWOOD_MODELS") or Path(__file__).resolve().parent.parent / "models")
