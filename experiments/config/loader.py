"""Experiment configuration: dataclasses are the schema, YAML files the values, the command line
the overrides.

* :func:`load_config` reads a YAML file into a config dataclass, checking every key and type:
  an unknown key or a value of the wrong type is an error that says what was wrong and what is
  allowed (YAML 1.1 reads ``3e-4`` as a string: numbers in exponent notation are accepted for
  float fields and converted, anything else that is not a number is rejected).
* :func:`apply_overrides` applies ``--section.key value`` pairs (``--ppo.lr 1e-4``) the same way.
* Every error is a :class:`ConfigError` (a ``ValueError``) whose message names the key (``ppo.lr``),
  the value and what is allowed, with the nearest valid name for a typo (:func:`suggest`).
  YAML is read with ``yaml.safe_load``: a tag such as ``!!python/object`` is refused (never
  constructed) with a message, like malformed YAML.
* :func:`to_dict` / :func:`save_resolved` write the resolved config, with the package version and
  git commit, into a run folder.
"""

from __future__ import annotations

import dataclasses
import difflib
import subprocess
import types
import typing
from pathlib import Path
from typing import Any

import yaml


class ConfigError(ValueError):
    """A bad configuration value or key."""


def suggest(word, choices) -> str:
    """``"; did you mean 'x'?"`` for the valid name nearest to ``word`` (or ``""``)."""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _key(where: str, name) -> str:
    return f"{where}.{name}" if where else str(name)


def parse_yaml(text: str, where: str):
    """``yaml.safe_load(text)``; malformed YAML and tags that would build Python objects
    (``!!python/...``, refused by the safe loader) become a :class:`ConfigError` naming ``where``."""
    try:
        return yaml.safe_load(text)
    except yaml.constructor.ConstructorError as e:
        problem = str(e.problem or e).replace("tag:yaml.org,2002:", "!!")
        mark = e.problem_mark
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        if "constructor for the tag" in problem:
            tag = problem.split("tag", 1)[1].strip().strip("'")
            raise ConfigError(f"{where}: the YAML tag {tag!r}{at} is not allowed: a config holds only plain values "
                              f"(numbers, strings, booleans, null, lists and mappings)") from None
        raise ConfigError(f"{where}: not valid YAML: {problem}{at}") from None
    except yaml.YAMLError as e:
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        mark = getattr(e, "problem_mark", None)
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise ConfigError(f"{where}: not valid YAML: {problem}{at}") from None


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
        options = [a for a in args if a is not type(None)]
        for a in options:
            try:
                return _convert(value, a, where)
            except ConfigError as e:
                errors.append(str(e))
        if len(options) == 1:
            raise ConfigError(errors[0] + (" (or null)" if type(None) in args else ""))
        raise ConfigError(f"{where}: {value!r} is not any of {[_type_name(a) for a in args]}")
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


def from_dict(cls, data: dict, where: str = ""):
    """Build the dataclass ``cls`` from a mapping, rejecting unknown keys and wrong types.
    ``where``: the key of this mapping in the config (``"ppo"``; ``""`` for the top level). The
    dataclasses' own checks (``__post_init__``) raise ``ValueError`` naming the full key."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where or 'config'}: expected a mapping, got {type(data).__name__} {data!r}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields), key=str)
    if unknown:
        raise ConfigError(f"{where or 'top level'}: unknown key(s) {unknown}; allowed keys: {', '.join(fields)}"
                          f"{suggest(unknown[0], fields)}")
    kwargs = {k: _convert(v, hints[k], _key(where, k)) for k, v in data.items()}
    try:
        return cls(**kwargs)
    except ConfigError:
        raise
    except (TypeError, ValueError) as e:
        raise ConfigError(str(e)) from e


def to_dict(cfg) -> dict:
    return dataclasses.asdict(cfg)


def describe_keys(cls, width: int = 100) -> str:
    """The config keys of the dataclass ``cls`` with their defaults, one section per line group
    (``ppo: lr=0.00025 num_games=256 ...``), for ``--help`` texts."""
    top, sections = [], []
    for f in dataclasses.fields(cls):
        default = f.default_factory() if f.default is dataclasses.MISSING else f.default
        if dataclasses.is_dataclass(default):
            items = [f"{g.name}={_show(getattr(default, g.name))}" for g in dataclasses.fields(default)]
            sections.append((f.name, items))
        else:
            top.append(f"{f.name}={_show(default)}")
    lines = []
    for name, items in [("top level", top)] + sections:
        line = f"  {name}:"
        for item in items:
            if len(line) + 1 + len(item) > width:
                lines.append(line)
                line = " " * (len(name) + 3) + " " + item
            else:
                line += " " + item
        lines.append(line)
    return "\n".join(lines)


def _show(value) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value) or "[]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {v}" for k, v in value.items()) + "}"
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


def plain_text(doc: str | None) -> str:
    """A docstring as ``--help`` text: reStructuredText markup (````code````, ``:mod:`x```,
    ``Examples::``) turned into plain text."""
    import re

    text = doc or ""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", text)
    text = re.sub(r"``([^`]+)``", r"\1", text)
    text = re.sub(r"(?<=\w)::$", ":", text, flags=re.M)
    return text


def load_config(cls, path: str | Path | None = None, overrides: list[str] | None = None):
    """The config ``cls`` from a YAML file (missing keys keep their defaults) and overrides; ``path``
    may name a shipped config instead (``ppo_tiny``: :func:`agents.paths.find_config`)."""
    from agents.paths import find_config, shipped_configs

    data: dict = {}
    if path is not None:
        p = find_config(path)  # a file, or a shipped config's name (ppo_tiny, configs/ppo_tiny.yaml)
        if p.is_dir():
            raise ConfigError(f"config file {p} is a directory; give a YAML file such as configs/ppo_quick.yaml")
        if not p.is_file():
            raise ConfigError(f"config file not found: {p} (or give a shipped config by name: "
                              f"{', '.join(shipped_configs())})")
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise ConfigError(f"{p}: not a YAML text file (not UTF-8: byte {e.start} is {e.object[e.start]:#04x})") from None
        except OSError as e:
            raise ConfigError(f"{p}: cannot read the config file: {e.strerror or e}") from None
        loaded = parse_yaml(text, str(p))
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise ConfigError(f"{p}: the top level must be a mapping of sections (algo, seed, ppo, ...), "
                              f"got a {type(loaded).__name__}")
        data = loaded
        try:
            cfg = from_dict(cls, data)
        except ConfigError as e:
            raise ConfigError(f"{p}: {e}") from None
    else:
        cfg = from_dict(cls, data)
    return apply_overrides(cfg, overrides or [])


def apply_overrides(cfg, overrides: list[str]):
    """Apply ``["--ppo.lr", "1e-4", "--seed=3", ...]`` to a config dataclass (returns a copy)."""
    data = to_dict(cfg)
    items = []
    i = 0
    while i < len(overrides):
        tok = overrides[i]
        if not tok.startswith("--") or len(tok) == 2:
            raise ConfigError(f"expected an override like --section.key VALUE, got {tok!r}")
        if "=" in tok:
            key, val = tok[2:].split("=", 1)
            i += 1
        else:
            if i + 1 >= len(overrides):
                raise ConfigError(f"override {tok} has no value: it needs one, e.g. {tok} VALUE or {tok}=VALUE")
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
                allowed = f"{prefix!r} has keys {', '.join(names)}" if names else f"{prefix!r} has no sub-keys"
                raise ConfigError(f"unknown config key {key!r}: {allowed}{suggest(part, names)}")
            if j == len(parts) - 1:
                node[part] = parse_yaml(val, f"--{key} {val}") if val != "" else ""
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
