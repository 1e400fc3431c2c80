"""A griffe extension for the API reference (mkdocs.yml): the project's docstrings use a few
reStructuredText forms that Markdown would garble; this turns them into Markdown.

* simple tables (rows between lines of ``=====  =====``) become fenced text blocks, as written;
* ``Name::`` before an indented block becomes ``Name:`` (the block stays a code block);
* roles such as ``:class:`~agents.rl.league.League``` become code spans (``League``);
* ``{OBSERVATION_TABLE}``, which the env modules fill in at import time, becomes the table of
  :mod:`hollywood_env.observation`.

Docs only: nothing here runs when the package is used.
"""

from __future__ import annotations

import re

from griffe import Extension

_RULE = re.compile(r"^\s*=+(\s+=+)+\s*$")  # a simple-table border: two or more columns of '='
_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|obj|exc|const):`~?([^`]+)`")
_LITERAL = re.compile(r"(\S)::[ \t]*$", re.M)


def _tables_to_fences(text: str) -> str:
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        borders = [j for j in range(i, len(lines)) if _RULE.match(lines[j])][:3] if _RULE.match(lines[i]) else []
        if len(borders) < 2:
            out.append(lines[i])
            i += 1
            continue
        # top border, header, border, rows, bottom border; or top border, rows, bottom border
        end = borders[2] if borders[1] == i + 2 and len(borders) == 3 else borders[1]
        indent = re.match(r"\s*", lines[i]).group(0)
        out += [indent + "```text", *lines[i:end + 1], indent + "```"]
        i = end + 1
    return "\n".join(out)


def rst_to_markdown(text: str, observation_table: str = "") -> str:
    if observation_table:
        text = text.replace("{OBSERVATION_TABLE}", observation_table)
    text = _tables_to_fences(text)
    text = _ROLE.sub(lambda m: f"``{m.group(1).rsplit('.', 1)[-1] if '~' in m.group(0) else m.group(1)}``", text)
    return _LITERAL.sub(r"\1:", text)


class RstDocstrings(Extension):
    """Rewrites every docstring of a loaded package (see the module docstring)."""

    def on_package(self, *, pkg, **kwargs) -> None:
        table = ""
        try:
            doc = pkg.modules_collection["hollywood_env.observation"].docstring.value
            table = doc[doc.index("=" * 25):doc.rindex("=" * 61) + 61]
        except (KeyError, AttributeError, ValueError):
            pass
        seen: set[int] = set()

        def walk(obj) -> None:
            if id(obj) in seen or getattr(obj, "is_alias", False):
                return
            seen.add(id(obj))
            if obj.docstring is not None:
                obj.docstring.value = rst_to_markdown(obj.docstring.value, table)
            for member in obj.members.values():
                walk(member)

        walk(pkg)
