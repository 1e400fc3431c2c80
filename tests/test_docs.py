"""The documentation site builds with ``mkdocs build --strict`` (every link between the pages
resolves, every API page renders), and the pages hold no reference outside the repository."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_mkdocs_build_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings_handlers.python")
    pytest.importorskip("material")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(tmp_path / "site")], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    for module in ("hollywood_env.core", "hollywood_env.vector_env", "agents.registry", "agents.search"):
        assert f'id="{module}"' in api, module
    assert "{OBSERVATION_TABLE}" not in api


def test_no_reference_outside_the_repository():
    for page in DOCS:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\.\./shared|RULES\.md", text), page  # the rule book is docs/rules.md


def _shipped_rows(text: str) -> list[str]:
    rows = [line for line in text.splitlines() if re.match(r"\| `(ppo|dqn)-[a-z-]+` \| `models/", line)]
    return [re.sub(r"\[card\]\((models/[^)]+)\)", r"`\1`", row) for row in rows]


def test_shipped_agents_table_is_the_same_in_the_readme_and_the_results_page():
    readme = _shipped_rows((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(readme) >= 3
    assert _shipped_rows((ROOT / "docs" / "results.md").read_text(encoding="utf-8")) == readme, (
        "the shipped-agents table of README.md and docs/results.md differ: update both")
