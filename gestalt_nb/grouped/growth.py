"""The overview at a moment (``overview(as_of=, known_at=)``) and each group's growth since another (``since=``).

The graph at a moment is the scratch database the as-of reads use (``temporal/visible.py``: GestaltDB's own history,
read once per database state; the data file is only read), grouped as any graph is: the same database state and
moment give the same scratch database, so the same groups in every process. With ``since``, the groups are made
over every node present at either moment (one grouping, so a group is the same group at both), and each group
counts its members at ``since`` and at ``as_of``: ``before``, ``after``, ``added`` (present at ``as_of`` only) and
``removed`` (present at ``since`` only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..cypher.budget import Budget
from ..errors import GestaltError
from ..temporal import asof, moments, visible

if TYPE_CHECKING:
    from ..session import Connection
    from .compact import Compact

#: The columns growth adds to ``OverviewResult.groups``.
COLUMNS = ("before", "after", "added", "removed")


@dataclass(frozen=True)
class Moment:
    """Where an overview stands in time: its words, and with ``since`` the nodes present at each moment."""

    words: str
    since: str | None = None
    before: frozenset[str] = frozenset()
    after: frozenset[str] = frozenset()
    #: What reading the database's history first cost, when it had to be (``asof.at_moment``).
    read: str | None = None

    def notes(self) -> list[str]:
        said = [f"Overview {self.words}: the graph valid then, from the database's own history (the database is only read)."]
        if self.read:
            said.append(self.read)
        if self.since is not None:
            said.append(f"Growth since {self.since}: the groups are of every node present at either moment; each group's "
                        "before / after / added / removed count its members at each (.groups).")
        return said


def at(connection: Connection, as_of: Any, known_at: Any, since: Any, budget: Budget) -> tuple[Connection, Moment]:
    """A connection to the graph at the moment (with ``since``: at either moment), and the ``Moment`` it stands at."""
    valid, recorded, words = asof.when(as_of, known_at)
    start = None if since is None else moments.instant(since, "since")
    if start is not None and start.epoch_microseconds >= valid.epoch_microseconds:
        raise GestaltError(f"since={since!r} is not before the moment shown ({moments.text(valid)}): give an earlier since, or a later as_of.")
    scratch, read = asof.at_moment(connection, valid, recorded, words, budget, start)
    if start is None:
        return scratch, Moment(words, read=read)
    db = connection.db
    return scratch, Moment(words, moments.text(start), visible.node_ids(db, start, recorded), visible.node_ids(db, valid, recorded), read)


def counts(moment: Moment, compact: Compact, membership: np.ndarray, count: int) -> dict[str, np.ndarray]:
    """Per group: its members at ``since`` (``before``), at the moment (``after``), ``added`` and ``removed``."""
    keys = [key.decode("utf-8") for key in compact.keys]
    then = np.fromiter((key in moment.before for key in keys), dtype=bool, count=len(keys))
    now = np.fromiter((key in moment.after for key in keys), dtype=bool, count=len(keys))
    grouped = membership >= 0

    def per_group(present: np.ndarray) -> np.ndarray:
        return np.bincount(membership[present & grouped], minlength=count)[:count]

    return {"before": per_group(then), "after": per_group(now), "added": per_group(now & ~then), "removed": per_group(then & ~now)}
