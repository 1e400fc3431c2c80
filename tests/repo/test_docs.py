"""The documentation site builds with ``mkdocs build --strict`` (every link between the pages
resolves, every API page renders), and the pages hold no reference outside the repository."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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
    # use_directory_urls: false, so the built site can be browsed from the disk (file://): pages are
    # NAME.html and the links between them name those files, not folders
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert 'href="rules.html"' in index and 'href="rules/"' not in index
    api = (tmp_path / "site" / "api.html").read_text(encoding="utf-8")
    for module in ("hollywood_env.core", "hollywood_env.vector_env", "agents.registry", "agents.search.search"):
        assert f'id="{module}"' in api, module
    assert "{OBSERVATION_TABLE}" not in api


def test_no_reference_outside_the_repository():
    for page in DOCS:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\.\./shared|RULES\.md", text), page  # the rule book is docs/rules.md


def _rows(text: str, pattern: str) -> dict[str, str]:
    """The table rows whose first cell matches ``pattern`` (a backquoted agent name), by that name."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\| `(" + pattern + r")` \|", line)
        if m:
            rows[m.group(1)] = line
    return rows


SHIPPED = r"(?:ppo|dqn)-[a-z0-9-]+"
FIGURE = re.compile(r"\d+\.\d%(?: \[\d+\.\d, \d+\.\d\])?")


def test_readme_agents_table_agrees_with_the_results_page_and_the_cards():
    """Every shipped model has a row in the README's table, with one figure and the command that made
    it; the figure is the one of that agent's row on the results page (or of its report), and the
    command is printed on a page, in the model card or in a results script."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    results = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    rows = _rows(readme[readme.index("## Shipped agents"):readme.index("## The EAAI game")], SHIPPED + r"|search|marjj")
    results_rows = _rows(results[results.index("## Shipped agents"):].split("\n## ")[0], SHIPPED)
    cards = {p.stem.replace("_", "-"): p for p in (ROOT / "models").glob("*.md") if re.match(r"(ppo|dqn)_", p.stem)}
    assert cards and set(cards) <= set(rows), f"shipped models without a README row: {set(cards) - set(rows)}"
    assert set(results_rows) == set(cards), "docs/results.md's shipped-agents table must list every shipped model"
    sources = "\n".join(p.read_text(encoding="utf-8") for p in [*DOCS, *(ROOT / "models").glob("*.md"),
                                                                 *(ROOT / "results").rglob("*.sh")])
    sources = sources.replace("**", "")
    reports = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "results").rglob("evaluate.md"))
    for name, row in rows.items():
        figures = FIGURE.findall(row)
        assert len(figures) == 1 and "[" in figures[0], f"the README row of {name} needs one figure with its interval"
        commands = re.findall(r"`(hollywood (?:evaluate|tournament) [^`]+)`", row)
        assert len(commands) == 1 and "--seed" in commands[0], f"the README row of {name} needs its command, seeded"
        assert commands[0] in sources.replace(".venv/bin/hollywood", "hollywood"), (
            f"{name}: the command {commands[0]!r} is printed nowhere else")
        if name in results_rows:
            assert figures[0] in results_rows[name], f"{name}: {figures[0]} is not in its docs/results.md row"
        else:
            assert figures[0] in reports or figures[0] in sources, f"{name}: {figures[0]} is in no page or report"


def test_results_index_lists_every_folder():
    index = (ROOT / "results" / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([^`]+)/` \|", index, flags=re.M))
    folders = {str(p.relative_to(ROOT / "results")) for p in (ROOT / "results").rglob("*") if p.is_dir()
               and "__pycache__" not in p.parts}
    regenerate = "commit the folders, then run `python results/make_index.py`"
    assert folders - listed == set(), f"results/README.md does not list {sorted(folders - listed)}: {regenerate}"
    assert listed - folders == set(), f"results/README.md lists missing folders {sorted(listed - folders)}: {regenerate}"
    for line in index.splitlines():
        if line.startswith("| `") and line.count("|") == 5:
            assert re.search(r"\| [0-9a-f]{7,}[^|]*\|$", line), f"no commit: {line}"


def test_result_folders_are_named_for_what_they_hold():
    history = {"final", "trials", "gated", "new", "old", "tmp", "def", "latest", "flagship"}
    for p in (ROOT / "results").rglob("*"):
        if p.is_dir():
            assert p.name not in history and not re.match(r"v\d", p.name), (
                f"{p.relative_to(ROOT)}: name the folder after what it holds")
