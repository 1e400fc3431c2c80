"""A report's two files: ``--out DIR`` of ``evaluate``, ``benchmark`` and ``exploit`` writes the
JSON object and its Markdown rendering side by side as ``DIR/NAME.json`` and ``DIR/NAME.md``."""

from __future__ import annotations

import json
from pathlib import Path


def write_report(out: str | Path, name: str, data: dict, markdown: str) -> Path:
    """Write ``out/name.json`` (``data``) and ``out/name.md`` (``markdown``), making ``out``;
    returns the Markdown file's path."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    md = folder / f"{name}.md"
    md.write_text(markdown + "\n", encoding="utf-8")
    return md
