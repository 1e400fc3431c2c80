"""Engine objects as plain data: dicts of numpy arrays and plain values, for checkpoints.

A training run that stops and resumes must continue the very games it was playing. Pickling the
objects would make every checkpoint a program (unpickling can run code), so the state of B games
is written out field by field instead, and rebuilt from a whitelist of known fields:

* :func:`state_to_dict` / :func:`state_from_dict`: a :class:`~hollywood_env.core.State` (every
  array field, ``max_steps``, the rules as :meth:`Rules.to_dict`, the scoresheet's arrays).
* :meth:`hollywood_env.selfplay.SelfPlayBatch.get_state` builds on these.

The dicts hold only ``np.ndarray``, ``int``, ``str``, ``bool``, ``None`` and dicts of them.
Round trips are exact (tests/training/test_resume.py): a restored State steps on to the same games.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .core import State
from .rules import Rules
from .scoring import BatchScoresheet

_SHEET_FIELDS = ("columns", "hands_scored", "opened", "game_winner", "version")
_SCALAR_FIELDS = ("rules", "max_steps", "sheet")


def state_to_dict(state: State) -> dict:
    """The plain-data form of ``state`` (arrays copied)."""
    out = {f.name: np.array(getattr(state, f.name), copy=True)
           for f in dataclasses.fields(State) if f.name not in _SCALAR_FIELDS}
    out["rules"] = state.rules.to_dict()
    out["max_steps"] = None if state.max_steps is None else int(state.max_steps)
    out["sheet"] = {k: np.array(getattr(state.sheet, k), copy=True) for k in _SHEET_FIELDS}
    return out


def state_from_dict(d: dict) -> State:
    """Rebuild a :class:`State` from :func:`state_to_dict`; raises ValueError on missing or extra
    fields, or arrays whose batch sizes disagree."""
    names = {f.name for f in dataclasses.fields(State)}
    missing, extra = sorted(names - set(d)), sorted(set(d) - names)
    if missing or extra:
        raise ValueError(f"not a saved game state: missing fields {missing}, unknown fields {extra}")
    rules = Rules.from_dict(d["rules"])
    sheet_d = d["sheet"]
    if not isinstance(sheet_d, dict) or set(sheet_d) != set(_SHEET_FIELDS):
        raise ValueError(f"not a saved scoresheet: fields {sorted(sheet_d) if isinstance(sheet_d, dict) else sheet_d}")
    arrays = {k: np.array(v, copy=True) for k, v in d.items() if k not in _SCALAR_FIELDS}
    b = arrays["phase"].shape[0]
    bad = sorted(k for k, v in arrays.items() if v.ndim == 0 or v.shape[0] != b)
    if bad:
        raise ValueError(f"saved game state: fields {bad} do not have the batch size {b}")
    sheet = BatchScoresheet(b, rules)
    for k in _SHEET_FIELDS:
        v = np.array(sheet_d[k], copy=True)
        if v.shape != getattr(sheet, k).shape:
            raise ValueError(f"saved scoresheet: {k} has shape {v.shape}, expected {getattr(sheet, k).shape}")
        setattr(sheet, k, v.astype(getattr(sheet, k).dtype, copy=False))
    max_steps = d["max_steps"]
    return State(rules=rules, max_steps=None if max_steps is None else int(max_steps), sheet=sheet, **arrays)
