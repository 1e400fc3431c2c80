"""Readable functions in ``agents/``: none is longer than 120 lines, and no closure (a function
or lambda defined inside another function) reads a variable of the enclosing function that is
assigned only after the closure is defined (read with ast, nothing is run)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 120
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _sources() -> list[Path]:
    return sorted((ROOT / "agents").rglob("*.py"))


def _assigned_lines(fn: ast.AST) -> dict[str, list[int]]:
    """Per name, the lines where ``fn`` itself (not a nested function) binds it: assignments,
    loop targets, ``with ... as``, imports, nested definitions and parameters (line 0)."""
    out: dict[str, list[int]] = {}
    args = fn.args
    for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if a is not None:
            out.setdefault(a.arg, []).append(0)

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (*FUNCTIONS, ast.ClassDef)):
                out.setdefault(child.name, []).append(child.lineno)
                continue  # a nested scope: its own names
            if isinstance(child, ast.Lambda):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                out.setdefault(child.id, []).append(child.lineno)
            elif isinstance(child, ast.alias):
                name = (child.asname or child.name).split(".")[0]
                out.setdefault(name, []).append(getattr(child, "lineno", node.lineno))
            visit(child)

    visit(fn)
    return out


def _free_reads(closure: ast.AST) -> set[str]:
    """Names a closure reads but does not bind itself."""
    bound = set()
    if not isinstance(closure, ast.Lambda):
        bound |= set(_assigned_lines(closure))
    else:
        a = closure.args
        bound |= {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x is not None}
    return {n.id for n in ast.walk(closure) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound


def _closures(fn: ast.AST):
    for node in ast.walk(fn):
        if node is not fn and isinstance(node, (*FUNCTIONS, ast.Lambda)):
            yield node


def test_no_function_in_agents_is_longer_than_120_lines():
    long = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, FUNCTIONS):
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if node.end_lineno - start + 1 > MAX_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {node.end_lineno - start + 1} lines")
    assert not long, "split these functions:\n" + "\n".join(long)


def test_no_closure_reads_a_variable_assigned_after_it():
    late = []
    for path in _sources():
        for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(fn, FUNCTIONS):
                continue
            assigned = _assigned_lines(fn)
            for closure in _closures(fn):
                for name in _free_reads(closure):
                    lines = assigned.get(name, [])
                    if lines and min(lines) > closure.lineno:
                        late.append(f"{path.relative_to(ROOT)}:{closure.lineno} reads {name!r}, "
                                    f"first assigned in {fn.name} at line {min(lines)}")
    assert not late, "\n".join(late)


def test_the_closure_check_sees_a_late_variable():
    """The check itself: a closure that reads a name bound after it is found, one bound before is not."""
    tree = ast.parse("def f():\n    x = 1\n    def g():\n        return x + y\n    y = 2\n    return g\n")
    fn = tree.body[0]
    assigned = _assigned_lines(fn)
    (closure,) = _closures(fn)
    late = {n for n in _free_reads(closure) if assigned.get(n) and min(assigned[n]) > closure.lineno}
    assert late == {"y"}
