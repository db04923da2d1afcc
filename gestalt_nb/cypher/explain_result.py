"""What ``--explain`` returns: the plan as a tree (``QueryPlan``) and the slow shapes it found (``SlowShape``)."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SlowShape:
    """One warning: what shape, why it is slow here, and a rewrite that avoids it."""

    kind: str
    reason: str
    rewrite: str

    def line(self) -> str:
        return f"{self.kind}: {self.reason} Rewrite: {self.rewrite}"


@dataclass(eq=False)
class QueryPlan:
    """The result of ``--explain``: plan tree, added LIMIT, read-only or not, warnings. Nothing ran."""

    query: str
    executed: str
    alias: str
    row_limit: int
    writes: tuple[str, ...]
    limit_note: str
    tree: list[str]
    warnings: list[SlowShape] = field(default_factory=list)
    columns: tuple[str, ...] = ()
    #: Untyped relationship patterns: rewritten to every type (the plan is of that text), or why not.
    rewrite: str | None = None

    @property
    def read_only(self) -> bool:
        return not self.writes

    def summary(self) -> str:
        mode = "read-only" if self.read_only else f"writes ({', '.join(self.writes)}; needs --write)"
        warned = f"{len(self.warnings)} warning(s)" if self.warnings else "no slow shapes found"
        return f"Plan on '{self.alias}' (not run): {mode}; {self.limit_note}; {warned}."

    def text(self) -> str:
        parts = [self.summary(), *([f"Rewritten: {self.rewrite}."] if self.rewrite else []), "", *self.tree]
        if self.warnings:
            parts += ["", "Warnings:"] + [f"  ! {w.line()}" for w in self.warnings]
        return "\n".join(parts)

    def shapes(self) -> str:
        """Each warning's kind and its rewrite, on one line."""
        return "; ".join(f"{w.kind} ({w.rewrite})" for w in self.warnings)

    def warning_line(self) -> str:
        """All warnings on one line (what ``warn_slow`` prints before a run)."""
        return f"gestalt-nb: slow shape — {self.shapes()}. See %%gcypher --explain for why."

    def __repr__(self) -> str:
        return self.text()

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(self.text())

    def _repr_html_(self) -> str:
        e = html.escape
        mode = "read-only" if self.read_only else f"writes: {e(', '.join(self.writes))} (needs --write)"
        warnings = "".join(
            f"<li><b>{e(w.kind)}</b>: {e(w.reason)}<br><i>Rewrite:</i> <code>{e(w.rewrite)}</code></li>" for w in self.warnings
        )
        warned = (
            f"<div style='color:#8a4b00'><b>Warnings</b><ul>{warnings}</ul></div>"
            if self.warnings
            else "<div style='color:#2d6a2d'>No slow shapes found.</div>"
        )
        return (
            "<div class='gestalt-plan'>"
            f"<div><b>Plan on '{e(self.alias)}'</b> — not run; {e(mode)}; {e(self.limit_note)}.</div>"
            + (f"<div><b>Rewritten</b>: {e(self.rewrite)}.</div>" if self.rewrite else "")
            + f"<pre style='margin:4px 0'>{e(chr(10).join(self.tree))}</pre>{warned}"
            f"<details><summary>Text that would run</summary><pre>{e(self.executed)}</pre></details></div>"
        )
