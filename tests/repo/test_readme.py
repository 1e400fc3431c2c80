"""The README is the front door: what the project is, how to install it (make and pip), the two
commands, three short examples, one table of the shipped agents, room for the EAAI game's table, a
map of the repository and links into the docs; at most 150 lines. Its code blocks run in
tests/repo/test_doc_blocks.py; its agents table is checked against docs/results.md in tests/repo/test_docs.py."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_is_short():
    assert len(README.splitlines()) <= 150


def test_install_and_the_two_commands():
    for text in ("make setup", "make quickstart", "make test", "pip install .", "pip install 'hollywood-gin-rl[play]'",
                 "CPU build of torch"):
        assert text in README, text


def test_three_examples():
    examples = README[README.index("## Examples"):README.index("## Shipped agents")]
    assert "```python" in examples and "hollywood_env.env(" in examples
    assert re.search(r"```bash\n\.venv/bin/hollywood evaluate \S+ \S+ .*--seed \d+", examples)
    assert re.search(r"```bash\n\.venv/bin/hollywood play", examples)


def test_one_agents_table():
    section = README[README.index("## Shipped agents"):README.index("## The EAAI game")]
    tables = re.findall(r"^\|---", section, flags=re.M)
    assert len(tables) == 1, "one table of the shipped agents"
    assert "| `search` |" in section and "| `ppo-hollywood` |" in section


def test_room_for_the_eaai_table():
    assert "## The EAAI game: Gin Rummy to 100" in README
    section = README[README.index("## The EAAI game"):README.index("## Where things live")]
    assert "<!-- eaai-table -->" in section


def test_map_of_the_repository_names_existing_paths():
    section = README[README.index("## Where things live"):README.index("## Documentation")]
    paths = re.findall(r"^\| `([^`]+)` \|", section, flags=re.M)
    for top in ("hollywood_env/", "agents/", "experiments/", "configs/", "models/", "results/", "benchmarks/",
                "docs/", "tests/", "notebooks/"):
        assert any(p.startswith(top) for p in paths), top
    for p in paths:
        assert (ROOT / p).exists(), f"the map names {p}, which does not exist"


def test_links_resolve():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if "://" not in target:
            assert (ROOT / target).exists(), target
    for page in ("rules", "environments", "agents", "training", "evaluation", "playing", "results", "benchmarks",
                 "libraries", "api"):
        assert f"(docs/{page}.md)" in README, page


def test_no_research_log():
    """The figures of the research live in docs/results.md and docs/agents.md: the README keeps one per
    agent (in its table) and the head-to-head of the two strongest."""
    outside_eaai = README[:README.index("## The EAAI game")] + README[README.index("## Where things live"):]
    figures = re.findall(r"\d+\.\d% \[\d+\.\d, \d+\.\d\]", outside_eaai)
    assert len(figures) <= 10, figures


def test_the_eaai_table_gives_games_and_points_with_their_command():
    section = README[README.index("## The EAAI game"):README.index("## Where things live")]
    rows = re.findall(r"^\| `([a-z-]+)` \| [\d,]+ \| (.+) \| (.+) \|$", section, flags=re.M)
    agents = {r[0] for r in rows}
    assert {"ppo-gin-rummy", "search", "marjj", "simple"} <= agents, agents
    for _, vs_simple, vs_marjj in rows:
        for cell in (vs_simple, vs_marjj):
            assert cell == "—" or re.fullmatch(r"\d+\.\d% \[\d+\.\d, \d+\.\d\], [+-]\d+\.\d", cell), cell
    assert re.search(r"hollywood evaluate \S+ \S+ --rules eaai --games \d+ --seed \d+", section)
