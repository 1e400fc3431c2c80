"""Checkpoint files: written atomically, read weights-only, never able to run code.

A checkpoint is a ``torch.save`` file of one dict made only of tensors and plain values (str,
int, float, bool, None, bytes, dicts, lists, tuples). :func:`load_checkpoint` reads it with
``torch.load(weights_only=True)``: torch's restricted unpickler, which refuses every class and
function outside that set, so a crafted file (a pickle whose ``__reduce__`` calls ``os.system``,
inside a zip checkpoint or as a raw pickle) is refused before anything in it runs, with a
:class:`CheckpointError` saying that the file is not a valid checkpoint.

numpy arrays (game states, replay buffers, RNG states of numpy generators are plain dicts already)
go through :func:`to_plain` / :func:`from_plain`: an array becomes ``{"__ndarray__": tensor,
"dtype": str}`` (a zero-copy tensor view, the dtype string to restore it exactly).

The fields of a checkpoint written by ``hollywood train`` (``FORMAT`` 2):

==================  =============================================================================
``format``          ``"hollywood-checkpoint"``, ``version``: 2
``algo``            ``"ppo"`` or ``"dqn"``
``model``           the network's ``state_dict`` (what inference needs, with the fields down to ``rules``)
``obs_dim``         input size (observation + derived features [+ belief]), ``num_actions``, ``hidden``
``critic_inputs``   PPO: the privileged values its critic reads (0 or absent: none)
``encoder``         PPO: what its trunk reads, ``"mlp"`` or ``"conv"`` (absent: ``"mlp"``)
``belief_input``    PPO: True when the network also reads the learned belief (absent: False)
``features``        the version of :mod:`agents.rl.features` the network reads
``rules``           the rules as a dict (:meth:`hollywood_env.Rules.to_dict`)
``config``          the resolved training config as a dict
``update``          updates done; ``global_step``: learner decisions done
``ensemble``        PPO, shipped models only: the further networks that play with this one as one
                    agent (:class:`agents.rl.policies.PPOEnsemblePolicy`), each a dict of the
                    fields ``model`` to ``global_step`` of its own run; this one is the first
``train_state``     ``latest.pt`` only: everything else the run mutates (optimiser, RNGs, league,
                    games in progress, replay buffer...), so that ``--resume`` continues exactly
==================  =============================================================================

Writes go to a temporary file in the same folder, are flushed and fsynced, then renamed over the
target (``os.replace``): a kill at any moment leaves either the old file or the new one, whole.
"""

from __future__ import annotations

import io
import os
import pickle
import tempfile
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import torch

FORMAT = "hollywood-checkpoint"
VERSION = 2
ALGOS = ("ppo", "dqn")
_INFERENCE_KEYS = {"algo": str, "model": dict, "obs_dim": int, "num_actions": int, "hidden": (list, tuple),
                   "rules": dict}


class CheckpointError(ValueError):
    """A file that is not a valid checkpoint (or not one of the expected kind)."""


# --- plain data ----------------------------------------------------------------------------------


def to_plain(obj: Any) -> Any:
    """``obj`` with every numpy array (and numpy scalar) turned into data ``torch.load`` accepts
    with ``weights_only=True``. Raises TypeError on anything else that is not plain data."""
    if isinstance(obj, np.ndarray):
        if obj.dtype.hasobject or obj.dtype.kind in "USV":
            raise TypeError(f"cannot store a numpy array of dtype {obj.dtype} in a checkpoint")
        return {"__ndarray__": torch.from_numpy(np.array(obj, copy=True, order="C")), "dtype": obj.dtype.str}
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, dict):
        return {k: to_plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [to_plain(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(to_plain(v) for v in obj)
    if obj is None or isinstance(obj, (str, int, float, bool, bytes, torch.Tensor)):
        return obj
    raise TypeError(f"cannot store a {type(obj).__name__} in a checkpoint (only tensors, arrays and plain values)")


def from_plain(obj: Any) -> Any:
    """The inverse of :func:`to_plain` (arrays come back as numpy arrays of their own dtype)."""
    if isinstance(obj, dict):
        if "__ndarray__" in obj and set(obj) == {"__ndarray__", "dtype"}:
            t = obj["__ndarray__"]
            if not isinstance(t, torch.Tensor) or not isinstance(obj["dtype"], str):
                raise CheckpointError("malformed array entry")
            return t.numpy().astype(np.dtype(obj["dtype"]), copy=False)
        return {k: from_plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [from_plain(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(from_plain(v) for v in obj)
    return obj


# --- atomic writes -------------------------------------------------------------------------------


def atomic_write(path: str | Path, write: Callable[[BinaryIO], Any]) -> None:
    """Call ``write(binary_file)`` on a temporary file next to ``path``, flush and fsync it, then
    rename it over ``path``: readers (and a later run) see the old file or the new one, never a
    part of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:  # pragma: no cover - some filesystems refuse fsync on folders
        pass


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write(path, lambda f: f.write(text.encode("utf-8")))


def save_checkpoint(ckpt: dict, path: str | Path) -> None:
    """Write ``ckpt`` (tensors, arrays, plain values) to ``path`` atomically."""
    data = {"format": FORMAT, "version": VERSION, **to_plain(ckpt)}
    atomic_write(path, lambda f: torch.save(data, f))


# --- reading -------------------------------------------------------------------------------------


def resolve_checkpoint_path(path: str | Path) -> Path:
    """A ``.pt`` file, or a run folder's ``checkpoints/best.pt`` (else ``latest.pt``)."""
    p = Path(path)
    if p.is_dir():
        for name in ("best.pt", "latest.pt"):
            if (p / "checkpoints" / name).is_file():
                return p / "checkpoints" / name
        raise FileNotFoundError(f"no checkpoint in {path}: a run folder holds checkpoints/best.pt or latest.pt")
    if not p.is_file():
        raise FileNotFoundError(f"checkpoint not found: {path} (give a .pt file or a run folder with checkpoints/)")
    return p


def read_weights_only(p: Path, what: str) -> Any:
    """The object in the torch file ``p``, read weights-only (tensors and plain values; a pickle
    that holds code is refused). Every failure is a :class:`CheckpointError` that starts with
    ``what``."""
    if p.stat().st_size == 0:
        raise CheckpointError(f"{what}: the file is empty (a write that was cut off?)")
    try:
        with open(p, "rb") as f, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns about raw pickles before refusing them
            return torch.load(io.BytesIO(f.read()), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        if "Weights only load failed" in first or "weights_only" in str(e):
            raise CheckpointError(f"{what}: it holds objects other than tensors and plain values, which are "
                                  f"never loaded (a checkpoint must not be able to run code)") from None
        raise CheckpointError(f"{what}: {first}") from None
    except (RuntimeError, EOFError, zipfile.BadZipFile, ValueError, OSError, AttributeError, KeyError,
            IndexError, TypeError, UnicodeDecodeError) as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        raise CheckpointError(f"{what}: not a readable torch checkpoint file ({type(e).__name__}: {first})") from None


def read_model_file(path: str | Path, kind: str, file_format: str, how_to_make: str) -> tuple[dict, str]:
    """``(data, what)``: the dict in the model file ``path``, read weights-only
    (:func:`read_weights_only`) and of format ``file_format``, and the start of its error messages
    (``"<path> is not a valid <kind>"``) for the caller's own checks. A :class:`CheckpointError`
    for a missing file (its message names ``how_to_make``), an unreadable one or another format."""
    p = Path(path)
    if not p.is_file():
        raise CheckpointError(f"{kind} not found: {p} ({how_to_make})")
    what = f"{p} is not a valid {kind}"
    data = read_weights_only(p, what)
    if not isinstance(data, dict) or data.get("format") != file_format:
        raise CheckpointError(f"{what}: it is not a {file_format!r} file")
    return data, what


def _check_member(member: Any, first: dict, what: str) -> None:
    """A network of a checkpoint's ``ensemble``: the inference fields of one PPO network, with the
    first network's rules and actions."""
    if first["algo"] != "ppo" or not isinstance(member, dict):
        raise CheckpointError(f"{what}: an ensemble is a list of PPO networks' fields")
    for key, kind in _INFERENCE_KEYS.items():
        if key != "algo" and not isinstance(member.get(key), kind):
            raise CheckpointError(f"{what}: field {key!r} is missing or not a {getattr(kind, '__name__', kind)}")
    if not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in member["model"].items()):
        raise CheckpointError(f"{what}: field 'model' is not a state dict of tensors")
    if member["rules"] != first["rules"] or member["num_actions"] != first["num_actions"]:
        raise CheckpointError(f"{what}: trained on other rules than the first network")


def load_checkpoint(path: str | Path, expect_algo: str | None = None, need_train_state: bool = False) -> dict:
    """Read a checkpoint weights-only and check its fields; arrays come back as numpy arrays.

    Raises :class:`CheckpointError` for anything that is not a checkpoint written by ``hollywood
    train`` (empty, truncated, not a torch file, a pickle with code in it, missing fields, another
    algorithm than ``expect_algo``, no training state when ``need_train_state``)."""
    p = resolve_checkpoint_path(path)
    what = f"{p} is not a valid checkpoint"
    data = read_weights_only(p, what)
    if not isinstance(data, dict):
        raise CheckpointError(f"{what}: it holds a {type(data).__name__}, not a checkpoint dict")
    if not isinstance(data.get("ensemble", []), list):
        raise CheckpointError(f"{what}: field 'ensemble' is not a list")
    if "format" in data and (data.get("format") != FORMAT or data.get("version") != VERSION):
        raise CheckpointError(f"{what}: format {data.get('format')!r} version {data.get('version')!r} "
                              f"(this code reads {FORMAT!r} version {VERSION})")
    for key, kind in _INFERENCE_KEYS.items():
        if not isinstance(data.get(key), kind):
            raise CheckpointError(f"{what}: field {key!r} is missing or not a {getattr(kind, '__name__', kind)}")
    if data["algo"] not in ALGOS:
        raise CheckpointError(f"{what}: unknown algo {data['algo']!r} (one of {', '.join(ALGOS)})")
    if expect_algo and data["algo"] != expect_algo:
        raise CheckpointError(f"{p} is a {data['algo']} checkpoint, not {expect_algo} "
                              f"(load it as {data['algo']}:{path})")
    if not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in data["model"].items()):
        raise CheckpointError(f"{what}: field 'model' is not a state dict of tensors")
    for i, member in enumerate(data.get("ensemble", [])):
        _check_member(member, data, f"{what}: ensemble network {i + 2}")
    if need_train_state and not isinstance(data.get("train_state"), dict):
        raise CheckpointError(f"{p} holds no training state to resume from (best.pt and exported models "
                              f"do not; resume from the run folder's checkpoints/latest.pt)")
    return from_plain(data)
