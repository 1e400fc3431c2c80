"""Every fenced code block of the README and of the documentation pages (docs/*.md) runs as printed,
or says why it does not.

A block is marked by HTML comments on the lines right above its opening fence (they do not show
in the rendered page or on the site):

* ``<!-- not-run: REASON -->``: not run (an install, a server, a placeholder such as ``<time>``, an
  output sample, a config excerpt); the reason is required.
* ``<!-- slow -->``: runs only in the slow suite (``make test-slow``, ``pytest -m slow``).
* ``<!-- needs: MODULE -->``: runs only where MODULE imports (an optional extra); such blocks also
  carry the ``integrations`` or ``ray`` marker of the tests that need those extras.
* ``<!-- expect: TEXT -->``: the block's output must contain TEXT (a figure the page prints);
  repeatable.

Python blocks (```python, ```py) run in a fresh interpreter; shell blocks (```bash, ```sh) run in
``bash -e`` with the venv's ``bin/`` first on ``PATH`` (so ``hollywood ...`` and ``.venv/bin/hollywood
...`` are both the venv's). Each block runs in its own sandbox folder that mirrors the checkout (a
link to each top-level entry) with an empty ``runs/``, so what a block writes there does not land
in the checkout. Every other fenced block must carry ``not-run``. A block that appears on several
pages runs once.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PYTHON = {"python", "py"}
SHELL = {"bash", "sh"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
MARK = re.compile(r"^\s*<!--\s*(?P<key>not-run|slow|needs|expect)\s*(?::\s*(?P<value>.*?))?\s*-->\s*$")
SKIP_LINKS = {".git", "runs", "site", ".pytest_cache", ".venv"}


@dataclass
class Block:
    page: Path
    line: int  # the opening fence's line, 1-based
    lang: str
    code: str
    marks: dict[str, list[str]] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def parse_blocks(text: str, page: Path) -> list[Block]:
    """The fenced blocks of a Markdown page with the marks written right above each."""
    lines = text.splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, indent = m.group("fence"), m.group("indent")
        lang = (m.group("info").strip().split() or [""])[0].lower()
        body, j = [], i + 1
        while j < len(lines) and not (lines[j].strip().startswith(fence[0] * len(fence))
                                      and lines[j].strip().strip(fence[0]) == ""):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
            j += 1
        marks: dict[str, list[str]] = {}
        k = i - 1
        while k >= 0 and (mm := MARK.match(lines[k])):
            marks.setdefault(mm.group("key"), []).insert(0, (mm.group("value") or "").strip())
            k -= 1
        blocks.append(Block(page, i + 1, lang, "\n".join(body) + "\n", marks))
        i = j + 1
    return blocks


def _all_blocks() -> list[Block]:
    return [b for page in PAGES for b in parse_blocks(page.read_text(encoding="utf-8"), page)]


BLOCKS = _all_blocks()


def _runnable() -> list:
    params, seen = [], set()
    for b in BLOCKS:
        if "not-run" in b.marks or (b.lang, b.code) in seen:
            continue
        seen.add((b.lang, b.code))
        marks = [pytest.mark.slow] if "slow" in b.marks else []
        for module in b.marks.get("needs", []):
            marks.append(pytest.mark.ray if module.split(".")[0] in {"ray"} else pytest.mark.integrations)
        params.append(pytest.param(b, id=b.where, marks=marks))
    return params


RUNNABLE = _runnable()


def test_every_block_is_run_or_says_why_not():
    assert len(BLOCKS) >= 30, "the parser found too few code blocks"
    for b in BLOCKS:
        if "not-run" in b.marks:
            assert all(reason for reason in b.marks["not-run"]), f"{b.where}: not-run needs a reason"
            assert not ({"slow", "expect"} & set(b.marks)), f"{b.where}: a not-run block cannot be slow or expect output"
        else:
            assert b.lang in PYTHON | SHELL, (
                f"{b.where}: a ```{b.lang or '(no language)'} block can only be marked <!-- not-run: reason -->")
            assert "<time>" not in b.code and "<run>" not in b.code, f"{b.where}: a placeholder cannot run as printed"
        for expected in b.marks.get("expect", []):
            assert expected, f"{b.where}: an empty expect mark"


def test_marks_are_read():
    blocks = parse_blocks("<!-- not-run: an install -->\n```bash\npip install .\n```\n\n<!-- slow -->\n"
                          "<!-- expect: 1 -->\n<!-- expect: 2 -->\n```python\nprint(1, 2)\n```\n"
                          "```\nplain\n```\n  ```bash\n  echo indented\n  ```\n", ROOT / "x.md")
    assert [(b.lang, b.code, b.marks) for b in blocks] == [
        ("bash", "pip install .\n", {"not-run": ["an install"]}),
        ("python", "print(1, 2)\n", {"slow": [""], "expect": ["1", "2"]}),
        ("", "plain\n", {}),
        ("bash", "echo indented\n", {}),
    ]


def test_readme_and_pages_have_runnable_blocks():
    readme = [p for p in RUNNABLE if p.values[0].page.name == "README.md"]
    assert any(p.values[0].lang in PYTHON for p in readme) and any(p.values[0].lang in SHELL for p in readme)
    fast = [p for p in RUNNABLE if not p.marks]
    assert len(fast) >= 6, len(fast)


def _sandbox(tmp_path: Path) -> Path:
    box = tmp_path / "checkout"
    box.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in SKIP_LINKS:
            (box / entry.name).symlink_to(entry)
    (box / ".venv").symlink_to(Path(sys.prefix))  # the interpreter running the tests, wherever its venv lives
    (box / "runs").mkdir()
    if (ROOT / ".git").exists():
        (box / ".git").symlink_to(ROOT / ".git")
    return box


@pytest.mark.parametrize("block", RUNNABLE)
def test_block_runs(block: Block, tmp_path):
    for module in block.marks.get("needs", []):
        pytest.importorskip(module)
    box = _sandbox(tmp_path)
    env = dict(os.environ,
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
               MPLBACKEND="Agg", HOLLYWOOD_PLAY_DIR=str(tmp_path / "play"))
    if block.lang in PYTHON:
        script = tmp_path / "block.py"
        script.write_text(block.code, encoding="utf-8")
        cmd = [sys.executable, str(script)]
    else:
        cmd = ["bash", "-e", "-o", "pipefail", "-c", block.code]
    timeout = 3 * 3600 if "slow" in block.marks else 600
    proc = subprocess.run(cmd, cwd=box, env=env, capture_output=True, text=True, timeout=timeout)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{block.where} failed:\n{block.code}\n{out[-3000:]}"
    for expected in block.marks.get("expect", []):
        assert expected in out, f"{block.where}: expected {expected!r} in the output:\n{out[-3000:]}"
