"""Every Python snippet of the README and of the documentation pages (docs/*.md) runs as written.

Each snippet runs in its own interpreter with a fresh temporary folder as its working directory
(what it writes, such as ``runs/...``, lands there, not in the checkout) and the repository on
``PYTHONPATH``. A snippet that appears on several pages runs once.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _snippets():
    found, seen = [], set()
    for page in PAGES:
        for i, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)):
            if code not in seen:
                seen.add(code)
                found.append(pytest.param(page, code, id=f"{page.relative_to(ROOT)}-{i}"))
    return found


SNIPPETS = _snippets()


def test_pages_have_snippets():
    assert len(re.findall(r"```python\n", (ROOT / "README.md").read_text(encoding="utf-8"))) >= 3
    assert len(SNIPPETS) >= 5


@pytest.mark.parametrize("page,code", SNIPPETS)
def test_snippet_runs(page, code, tmp_path):
    script = tmp_path / "snippet.py"
    script.write_text(code, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, f"snippet of {page.name} failed:\n{code}\n{proc.stderr[-3000:]}"
