"""Small escaped-HTML building blocks shared by every view and every static fallback.

Everything that comes from the graph passes through ``html.escape`` here (tables use pandas'
escaping); pictures are embedded as ``<img>`` data URIs, so an SVG can never run script.
"""

from __future__ import annotations

import base64
import html
import json
from typing import Any

from ..shorten import shorten as cut

CELL_CHARS = 200


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def shorten(value: Any, limit: int = CELL_CHARS) -> Any:
    """Cut long strings (and the text of long containers) for display, marking the cut."""
    if isinstance(value, (list, dict, tuple)):
        value = str(value)
    return cut(value, limit) if isinstance(value, str) else value


def banner(notes: list[str], *, kind: str = "warning") -> str:
    if not notes:
        return ""
    colour = {"warning": "#fff4e5;border-color:#f0b429", "info": "#eef6ff;border-color:#7aa7e0"}[kind]
    items = "".join(f"<div>{esc(note)}</div>" for note in notes)
    return f'<div class="gestalt-banner" style="background:{colour};border:1px solid;padding:4px 8px;margin:4px 0;border-radius:3px">{items}</div>'


def _cell(value: Any, exact: bool = False) -> str:
    """One escaped, shortened table cell; a missing value (None, NaN, NaT, NA) is empty, but a NaN in a column
    of objects (``exact``: pandas did not put it there) reads ``NaN``."""
    if value is None:
        return ""
    try:
        if value != value:  # NaN, NaT
            return "NaN" if exact and isinstance(value, float) else ""
    except (TypeError, ValueError):  # pd.NA and array-likes refuse comparison
        if type(value).__name__ == "NAType":
            return ""
    return esc(shorten(value))


def table(df: Any, limit: int, *, total: int | None = None) -> str:
    """The first ``limit`` rows as a plain HTML table (every cell escaped here), with a row note.

    Written directly rather than with ``DataFrame.to_html``, which costs several times more for
    the same plain table. ``total`` is the full row count when ``df`` is only the head of a longer table.
    """
    shown = df.head(limit)
    total = len(df) if total is None else total
    note = f"<div><small>showing {len(shown):,} of {total:,} rows</small></div>" if total > len(shown) else ""
    head = "".join(f"<th>{esc(column)}</th>" for column in shown.columns)
    kept = [dtype.kind == "O" for dtype in shown.dtypes]  # in a column of objects a NaN is a stored NaN, not a gap
    body = "".join(
        "<tr>" + "".join(f"<td>{_cell(value, exact)}</td>" for value, exact in zip(row, kept)) + "</tr>"
        for row in shown.itertuples(index=False, name=None)
    )
    return (
        f'<table class="dataframe gestalt-table"><thead><tr style="text-align: right;">{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>{note}"
    )


def pre(text: str, max_chars: int) -> str:
    cut = len(text) > max_chars
    body = esc(text[:max_chars])
    more = f"\n… cut at {max_chars:,} of {len(text):,} characters" if cut else ""
    return f'<pre style="max-height:500px;overflow:auto;white-space:pre-wrap">{body}{esc(more)}</pre>'


def json_block(items: list[Any], max_chars: int) -> str:
    """Items as indented JSON, encoded one at a time and stopped once ``max_chars`` is reached."""
    parts, size = [], 0
    for item in items:
        if size >= max_chars:
            break
        parts.append(json.dumps(item, indent=2, ensure_ascii=False, default=str))
        size += len(parts[-1]) + 2
    text = "[\n" + ",\n".join(parts) + "\n]"
    if len(text) <= max_chars and len(parts) == len(items):
        return pre(text, max_chars)
    note = f"\n… cut at {max_chars:,} characters ({len(items):,} items in all; the full JSON is in the result object)"
    return f'<pre style="max-height:500px;overflow:auto;white-space:pre-wrap">{esc(text[:max_chars])}{esc(note)}</pre>'


def key_values(rows: list[tuple[str, Any]]) -> str:
    body = "".join(f"<tr><th style='text-align:left;padding-right:1em'>{esc(key)}</th><td>{value}</td></tr>" for key, value in rows)
    return f"<table class='gestalt-info'>{body}</table>"


def svg_image(svg: str, *, alt: str) -> str:
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return f'<img alt="{esc(alt)}" src="data:image/svg+xml;base64,{data}" style="max-width:100%"/>'
