"""Release files: LICENSE, CHANGELOG.md, CITATION.cff and py.typed agree with pyproject.toml."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
VERSION = PYPROJECT["project"]["version"]


def test_license_is_mit_as_pyproject_says():
    assert PYPROJECT["project"]["license"] == {"text": "MIT"}
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Hollywood Gin RL contributors" in text


def test_changelog_has_the_current_version_and_unreleased():
    text = (ROOT / "CHANGELOG.md").read_text()
    versions = re.findall(r"^## \[([^\]]+)\]", text, flags=re.M)
    assert versions[0] == "Unreleased" and VERSION in versions


def test_citation_cff_is_cff_1_2_0():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors"):  # required by the CFF 1.2.0 schema
        assert cff[key]
    assert all("name" in a or "family-names" in a for a in cff["authors"])
    assert str(cff["version"]) == VERSION and cff["license"] == "MIT"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(cff["date-released"]))


def test_py_typed_in_every_package_and_shipped():
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    for pkg in ("hollywood_env", "agents", "experiments"):
        assert (ROOT / pkg / "py.typed").is_file()
        assert "py.typed" in data.get(pkg, [])
