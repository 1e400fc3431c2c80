"""Experiment configuration: dataclasses are the schema, YAML files the values, the command line
the overrides.

* :func:`load_config` reads a YAML file into a config dataclass, checking every key and type:
  an unknown key or a value of the wrong type is an error that says what was wrong and what is
  allowed (YAML 1.1 reads ``3e-4`` as a string: numbers in exponent notation are accepted for
  float fields and converted, anything else that is not a number is rejected).
* :func:`apply_overrides` applies ``--section.key value`` pairs (``--ppo.lr 1e-4``) the same way.
* :func:`to_dict` / :func:`save_resolved` write the resolved config, with the package version and
  git commit, into a run folder.
"""

from __future__ import annotations

import dataclasses
import subprocess
import types
import typing
from pathlib import Path
from typing import Any

import yaml


class ConfigError(ValueError):
    """A bad configuration value or key."""


def _type_name(tp) -> str:
    return getattr(tp, "__name__", str(tp))


def _convert(value: Any, tp, where: str):
    """Check and convert ``value`` to the annotated type ``tp``."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        errors = []
        for a in args:
            if a is type(None):
                continue
            try:
                return _convert(value, a, where)
            except ConfigError as e:
                errors.append(str(e))
        raise ConfigError(f"{where}: {value!r} is not any of {[ _type_name(a) for a in args ]}")
    if origin in (list, tuple):
        (inner, *_) = typing.get_args(tp) or (Any,)
        if isinstance(value, str):
            value = [v for v in value.split(",") if v]
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{where}: expected a list, got {type(value).__name__} {value!r}")
        out = [_convert(v, inner, f"{where}[{i}]") for i, v in enumerate(value)]
        return tuple(out) if origin is tuple else out
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a mapping, got {type(value).__name__} {value!r}")
        k_tp, v_tp = typing.get_args(tp) or (Any, Any)
        return {_convert(k, k_tp, where): _convert(v, v_tp, f"{where}.{k}") for k, v in value.items()}
    if tp is Any:
        return value
    if dataclasses.is_dataclass(tp):
        if isinstance(value, tp):
            return value
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a mapping of {_type_name(tp)} fields, got {value!r}")
        return from_dict(tp, value, where)
    if tp is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
            return value.lower() in ("true", "yes", "1")
        raise ConfigError(f"{where}: expected true/false, got {value!r}")
    if tp is int:
        if isinstance(value, bool):
            raise ConfigError(f"{where}: expected an int, got a bool {value!r}")
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            try:
                return int(value.replace("_", ""))
            except ValueError:
                pass
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise ConfigError(f"{where}: expected an int, got {type(value).__name__} {value!r}")
    if tp is float:
        if isinstance(value, bool):
            raise ConfigError(f"{where}: expected a number, got a bool {value!r}")
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)  # YAML 1.1 reads 3e-4 as a string
            except ValueError:
                pass
        raise ConfigError(f"{where}: expected a number, got {type(value).__name__} {value!r}")
    if tp is str:
        if isinstance(value, str):
            return value
        raise ConfigError(f"{where}: expected a string, got {type(value).__name__} {value!r}")
    return value


def from_dict(cls, data: dict, where: str = "config"):
    """Build the dataclass ``cls`` from a mapping, rejecting unknown keys and wrong types."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {unknown}; allowed keys: {', '.join(fields)}")
    kwargs = {k: _convert(v, hints[k], f"{where}.{k}") for k, v in data.items()}
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as e:
        raise ConfigError(f"{where}: {e}") from e


def to_dict(cfg) -> dict:
    return dataclasses.asdict(cfg)


def load_config(cls, path: str | Path | None = None, overrides: list[str] | None = None):
    """The config ``cls`` from a YAML file (missing keys keep their defaults) and overrides."""
    data: dict = {}
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise ConfigError(f"config file not found: {p}")
        loaded = yaml.safe_load(p.read_text()) or {}
        if not isinstance(loaded, dict):
            raise ConfigError(f"{p}: the top level must be a mapping of sections")
        data = loaded
    cfg = from_dict(cls, data, where=str(path) if path else "config")
    return apply_overrides(cfg, overrides or [])


def apply_overrides(cfg, overrides: list[str]):
    """Apply ``["--ppo.lr", "1e-4", "--seed=3", ...]`` to a config dataclass (returns a copy)."""
    data = to_dict(cfg)
    items = []
    i = 0
    while i < len(overrides):
        tok = overrides[i]
        if not tok.startswith("--"):
            raise ConfigError(f"expected an override like --section.key VALUE, got {tok!r}")
        if "=" in tok:
            key, val = tok[2:].split("=", 1)
            i += 1
        else:
            if i + 1 >= len(overrides):
                raise ConfigError(f"override {tok} has no value")
            key, val = tok[2:], overrides[i + 1]
            i += 2
        items.append((key, val))
    for key, val in items:
        node = data
        parts = key.split(".")
        cls = type(cfg)
        for j, part in enumerate(parts):
            names = [f.name for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) else []
            if part not in names:
                prefix = ".".join(parts[:j]) or "top level"
                raise ConfigError(f"unknown config key {key!r}: {prefix!r} has keys {', '.join(names)}")
            if j == len(parts) - 1:
                node[part] = yaml.safe_load(val) if val != "" else ""
            else:
                node = node[part]
                cls = typing.get_type_hints(cls)[part]
    return from_dict(type(cfg), data)


def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def save_resolved(cfg, run_dir: Path) -> None:
    """Write ``config.yaml`` (the resolved config) and ``meta.yaml`` (version, commit)."""
    from hollywood_env import __version__

    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(to_dict(cfg), sort_keys=False))
    meta = {"package_version": __version__, "git_commit": git_commit(), "config_class": type(cfg).__name__}
    (run_dir / "meta.yaml").write_text(yaml.safe_dump(meta, sort_keys=False))
