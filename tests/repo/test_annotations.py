"""Every public function and method of the ``hollywood_env`` and ``agents`` packages has parameter
and return annotations.

Public: the name has no leading underscore (module-level functions defined in the module, and
the methods, static and class methods and property getters of the module's public classes;
``self`` / ``cls`` need none). Each module is imported and walked with :mod:`inspect`; a module
that cannot be imported here for want of an optional dependency (``hollywood_env.rllib`` without
Ray) is read with :mod:`ast` instead, by the same rules.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("hollywood_env", "agents")



def _module_names() -> list[str]:
    names = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            names.append(".".join(parts))
    return names


def _missing(fn, skip_first: bool) -> list[str]:
    """The parameters of ``fn`` without an annotation, and ``return`` if it has none."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())[1 if skip_first else 0:]
    out = [p.name for p in params if p.annotation is inspect.Parameter.empty]
    if sig.return_annotation is inspect.Signature.empty:
        out.append("return")
    return out


def _unannotated_inspect(mod) -> list[str]:
    bad = []
    for name, obj in vars(mod).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != mod.__name__:
            continue
        if inspect.isfunction(obj):
            missing = _missing(obj, skip_first=False)
            if missing:
                bad.append(f"{mod.__name__}.{name}: {', '.join(missing)}")
        elif inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, staticmethod):
                    fn, skip = member.__func__, False
                elif isinstance(member, classmethod):
                    fn, skip = member.__func__, True
                elif isinstance(member, property):
                    fn, skip = member.fget, True
                elif inspect.isfunction(member):
                    fn, skip = member, True
                else:
                    continue
                if fn is None:
                    continue
                missing = _missing(fn, skip)
                if missing:
                    bad.append(f"{mod.__name__}.{name}.{attr}: {', '.join(missing)}")
    return bad


def _missing_ast(fn: ast.FunctionDef | ast.AsyncFunctionDef, skip_first: bool) -> list[str]:
    a = fn.args
    params = a.posonlyargs + a.args
    params = params[1 if skip_first else 0:] + a.kwonlyargs + [p for p in (a.vararg, a.kwarg) if p is not None]
    out = [p.arg for p in params if p.annotation is None]
    if fn.returns is None:
        out.append("return")
    return out


def _unannotated_ast(name: str, path: pathlib.Path) -> list[str]:
    bad = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    funcs = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in tree.body:
        if isinstance(node, funcs) and not node.name.startswith("_"):
            missing = _missing_ast(node, skip_first=False)
            if missing:
                bad.append(f"{name}.{node.name}: {', '.join(missing)}")
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for member in node.body:
                if isinstance(member, funcs) and not member.name.startswith("_"):
                    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in member.decorator_list)
                    missing = _missing_ast(member, skip_first=not static)
                    if missing:
                        bad.append(f"{name}.{node.name}.{member.name}: {', '.join(missing)}")
    return bad


def _path_of(name: str) -> pathlib.Path:
    base = ROOT.joinpath(*name.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


@pytest.mark.parametrize("name", _module_names())
def test_public_functions_are_annotated(name):
    try:
        mod = importlib.import_module(name)
    except ImportError:  # an optional dependency (Ray for hollywood_env.rllib): read the source
        bad = _unannotated_ast(name, _path_of(name))
    else:
        bad = _unannotated_inspect(mod)
    assert not bad, "public functions without parameter or return annotations:\n  " + "\n  ".join(bad)


def test_every_module_is_walked():
    names = _module_names()
    for pkg in PACKAGES:
        assert pkg in names
    assert "hollywood_env.melds" in names and "agents.bots" in names and "hollywood_env.rllib" in names
