"""Time: one read at several moments, drawn once with a time slider (``diff`` of two moments is in ``querying``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..session import REGISTRY

if TYPE_CHECKING:
    from ..temporal.timeline import TimelineResult


def timeline(query: str, moments: Any, params: dict[str, Any] | None = None, *, known_at: Any = None, limit: int | None = None,
             timeout: float | None = None, alias: str | None = None) -> TimelineResult:
    """What ``query`` returned at each of ``moments`` (valid times), drawn once, with a time slider on the canvas.

    Parameters
    ----------
    query : str
        A read; it runs once per moment, as ``run(query, as_of=moment)`` does (bounded, read-only).
    moments : list of str, date, datetime or number
        The valid times to step through, in the order the slider shows them (ISO text, dates, datetimes or epoch
        seconds); one moment is a timeline of one.
    params : dict, optional
        Values for the query's ``$name`` parameters.
    known_at : moment or list of moments, optional
        As recorded by this moment (default: everything recorded); a list gives the slider a second axis, recorded
        time, each valid moment read as recorded by each of these. At most 60 moments in all.
    limit : int, optional
        At most this many rows in each moment's read (default ``settings.row_limit``); a moment cut short says so.
    timeout : float, optional
        Seconds each moment's read may take (default ``settings.timeout``).
    alias : str, optional
        The connection to query; the current one by default.

    Returns
    -------
    TimelineResult
        ``.frames`` (one ``Subgraph`` per moment), ``.table`` (nodes and relationships per moment) and ``.subgraph``
        (all of them, laid out once); it displays as a canvas whose slider steps through the moments (play and step
        buttons; the moment shown written on the canvas), a node present at two moments standing in one place.

    Examples
    --------
    >>> gestalt_nb.timeline("MATCH (p:Person)-[r:WORKS_AT]->(c:Company) RETURN p, r, c",
    ...                     ["2021-01-01", "2022-01-01", "2023-01-01"])
    """
    return REGISTRY.get(alias).timeline(query, moments, params, known_at=known_at, limit=limit, timeout=timeout)
