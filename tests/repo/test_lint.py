"""``ruff check`` (the configuration in pyproject.toml: pycodestyle errors, pyflakes, import
order, bugbear, pyupgrade) is clean over the whole repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_check_is_clean():
    p = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"ruff check found problems (fix them, or `ruff check --fix`):\n{p.stdout}{p.stderr}"
