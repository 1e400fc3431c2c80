"""Every Python snippet of the README runs as written."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)


def test_readme_has_snippets():
    assert len(SNIPPETS) >= 4


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_readme_snippet_runs(index, tmp_path):
    script = tmp_path / f"snippet_{index}.py"
    script.write_text(SNIPPETS[index])
    proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"README snippet {index} failed:\n{SNIPPETS[index]}\n{proc.stderr[-3000:]}"
