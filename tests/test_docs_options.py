"""A magic's usage written in a guide cannot drift from its parser: every usage line in README.md and docs/ (a code
line that starts ``%name [`` or ``%%name [``, with its indented continuation lines) names exactly the options
the magic's own ``%name?`` page lists — none it lacks, none it does not take."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
USAGE = re.compile(r"^(%%?)([a-z_]+) \[")
OPTION = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")


def usages() -> list[tuple[str, str, str]]:
    """(page, magic, the usage's text) for every usage line written in a code block of the docs."""
    found = []
    for page in PAGES:
        lines = page.read_text(encoding="utf-8").splitlines()
        fenced = False
        for number, line in enumerate(lines):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            match = USAGE.match(line)
            if not fenced or not match:
                continue
            text = [line.split("  #")[0]]  # a comment after the usage is prose
            for after in lines[number + 1:]:
                if not after.startswith(" ") or not after.strip().startswith("["):
                    break
                text.append(after)
            found.append((f"{page.relative_to(ROOT)}:{number + 1}", match.group(2), " ".join(text)))
    return found


def parser_options(shell, magic: str) -> list[tuple[str, ...]]:
    """Each option of ``magic`` as its ``%magic?`` page lists it: its spellings (``("-o", "--out")``)."""
    function = shell.magics_manager.magics["cell"].get(magic) or shell.magics_manager.magics["line"][magic]
    doc = inspect.getdoc(function) or ""
    section = doc.split("Arguments and options:", 1)[1].split("\n\n", 1)[0]
    return [tuple(OPTION.findall(line.strip().split("  ")[0])) for line in section.splitlines() if line.strip().startswith("-")]


def test_the_docs_write_usage_lines():
    assert len(usages()) >= 3, "no usage line found: the pattern no longer matches the docs"


@pytest.mark.parametrize(("where", "magic", "text"), usages(), ids=[where for where, _, _ in usages()])
def test_a_usage_in_the_docs_names_exactly_the_magics_options(shell, where, magic, text):
    options = parser_options(shell, magic)
    assert options, f"%{magic}'s help lists no options"
    written = set(OPTION.findall(text.split(" ", 1)[1]))
    known = {spelling for spellings in options for spelling in spellings}
    missing = [spellings[-1] for spellings in options if not written & set(spellings)]
    unknown = sorted(written - known)
    assert not missing, f"{where}: the usage of %{magic} omits {missing}"
    assert not unknown, f"{where}: the usage of %{magic} names {unknown}, which %{magic} does not take"
