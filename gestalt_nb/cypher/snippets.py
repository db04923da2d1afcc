"""Named query snippets: ``--save NAME`` keeps a cell's query, ``--with NAME`` composes it in front.

Composition is ``CALL { <snippet> } <cell>``: the cell sees the snippet's RETURN columns, as a
SQL cell sees a CTE (jupysql's ``--save`` / ``--with``). Snippets live in this kernel's memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..errors import GestaltError

_NAME = re.compile(r"^[A-Za-z_][\w-]*$")


@dataclass(frozen=True)
class Snippet:
    name: str
    query: str
    columns: tuple[str, ...]
    alias: str | None
    saved: datetime


SNIPPETS: dict[str, Snippet] = {}


def save(name: str, query: str, columns: list[str] | tuple[str, ...], alias: str | None = None) -> Snippet:
    """Keep ``query`` (as written, without any LIMIT gestalt-nb added) under ``name``; replaces an old one."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise GestaltError(f"A snippet name is a word (letters, digits, _ or -), not {name!r}.")
    text = query.strip().rstrip(";").strip()
    if not text:
        raise GestaltError("There is no query to save as a snippet.")
    snippet = Snippet(name, text, tuple(columns), alias, datetime.now())
    SNIPPETS[name] = snippet
    return snippet


def get(name: str) -> Snippet:
    if name not in SNIPPETS:
        known = ", ".join(sorted(SNIPPETS)) or "none yet (save one with %%gcypher --save NAME)"
        raise GestaltError(f"No snippet named '{name}'. Snippets: {known}.")
    return SNIPPETS[name]


def compose(query: str, names: list[str]) -> str:
    """``CALL { snippet }`` for each name, in order, then the cell; an empty cell returns their columns."""
    snippets = [get(name) for name in names]
    calls = "".join(f"CALL {{\n{snippet.query}\n}}\n" for snippet in snippets)
    body = query.strip()
    if not body:
        columns = [column for snippet in snippets for column in snippet.columns]
        if not columns:
            raise GestaltError(f"Snippet '{names[-1]}' returns no columns; write the rest of the query in the cell.")
        body = "RETURN " + ", ".join(dict.fromkeys(columns))
    return calls + body


def drop(name: str) -> Snippet:
    return SNIPPETS.pop(get(name).name)


def frame():
    import pandas as pd

    rows = [
        {"name": s.name, "columns": ", ".join(s.columns), "alias": s.alias, "saved": s.saved, "query": s.query}
        for s in SNIPPETS.values()
    ]
    return pd.DataFrame(rows, columns=["name", "columns", "alias", "saved", "query"])
