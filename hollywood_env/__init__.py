"""Hollywood Gin: a vectorized Gin Rummy rules engine with three-column Hollywood scoring."""

from .rules import PRESETS, Rules, resolve_rules
from . import actions, cards, melds

__version__ = "0.1.0"

__all__ = ["Rules", "PRESETS", "resolve_rules", "actions", "cards", "melds", "__version__"]
