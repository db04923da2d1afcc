"""One read at several moments, drawn once with a time slider: ``TimelineResult``.

Each moment's read is the usual read at that moment (:func:`.asof.run`: bounded, read-only, over the graph valid then
as recorded by ``known_at``). The drawing is every node and relationship of any moment, laid out once, so a node present
at two moments stands in the same place; the canvas's slider shows one moment at a time (``TimelineResult.frames``),
valid time on one axis and, when several ``known_at`` moments are given, recorded time on another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..display import Displayable
from ..errors import GestaltError
from ..graph.subgraph import Subgraph
from . import asof, moments

if TYPE_CHECKING:  # only for annotations: capabilities never import the session at run time
    from ..session import Connection

#: At most this many moments (valid × recorded) per timeline: each is one bounded read.
MAX_FRAMES = 60


@dataclass
class TimelineResult(Displayable):
    """What a read returned at each of several moments, drawn once with a slider.

    ``valid`` and ``known`` are the moments as ISO text (``known`` empty when recorded time is not scrubbed: every
    read then sees everything recorded, or the one ``known_at`` given); ``frames[i * max(len(known), 1) + j]`` is the
    drawing at ``valid[i]`` as recorded by ``known[j]``; ``subgraph`` is all of them in one drawing (each node and
    relationship as it was at the last moment it was present).
    """

    query: str
    valid: list[str]
    known: list[str]
    frames: list[Subgraph]
    subgraph: Subgraph
    notes: list[str] = field(default_factory=list)
    view_options: dict[str, Any] = field(default_factory=dict)

    def frame(self, valid: int = 0, known: int = 0) -> Subgraph:
        """The drawing at ``self.valid[valid]`` as recorded by ``self.known[known]`` (positions in those lists)."""
        return self.frames[valid * max(len(self.known), 1) + known]

    @property
    def table(self) -> pd.DataFrame:
        """One row per moment: valid, known (None: everything recorded), nodes, relationships."""
        rows = [(valid, known or None, len(self.frame(i, j).nodes), len(self.frame(i, j).edges))
                for i, valid in enumerate(self.valid) for j, known in enumerate(self.known or [""])]
        return pd.DataFrame(rows, columns=["valid", "known", "nodes", "relationships"])

    def __repr__(self) -> str:
        axes = f"{len(self.valid)} valid" + (f" × {len(self.known)} recorded" if self.known else "")
        return f"<TimelineResult {axes} moments: {self.subgraph.summary()} in all>"


def _instants(value: Any, what: str) -> list[Any]:
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if not values:
        raise GestaltError(f"{what} is empty: give at least one moment (a date, ISO text or epoch seconds).")
    return [moments.instant(item, what) for item in values]


def timeline(connection: Connection, query: str, moments_: Any, params: dict[str, Any] | None = None, *, known_at: Any = None,
             limit: int | None = None, timeout: float | None = None) -> TimelineResult:
    """The work of :func:`gestalt_nb.timeline` (documented there, once), ``connection`` first."""
    valid = _instants(moments_, "moments")
    several = isinstance(known_at, (list, tuple))
    known = _instants(known_at, "known_at") if several else ([] if known_at is None else [moments.instant(known_at, "known_at")])
    count = len(valid) * max(len(known), 1)
    if count > MAX_FRAMES:
        raise GestaltError(f"{count} moments asked ({len(valid)} valid × {max(len(known), 1)} recorded); at most {MAX_FRAMES} "
                           "per timeline (each is one read): give fewer moments.")
    results = [asof.run(connection, query, params, limit=limit, timeout=timeout, as_of=moments.text(at),
                        known_at=None if recorded is None else moments.text(recorded))
               for at in valid for recorded in known or [None]]
    frames = [result.subgraph for result in results]
    drawing = Subgraph(title=query if len(query) <= 80 else query[:79] + "…", notes=asof.notes_of(results),
                       truncated=any(frame.truncated for frame in frames))
    for frame in frames:  # the latest version of each stands for it; no highlight: the slider marks what changed
        drawing.nodes.update(frame.nodes)
        drawing.edges.update(frame.edges)
        drawing.asked |= frame.asked
    words = [moments.text(at) for at in valid]
    recorded_words = [moments.text(at) for at in known] if several else []
    if known and not several:
        drawing.notes.insert(0, f"Every moment as recorded by {moments.text(known[0])}.")
    return TimelineResult(query, words, recorded_words, frames, drawing, notes=drawing.notes)
