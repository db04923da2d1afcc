"""A load's rows → GestaltDB's own node and relationship versions (``NodeVersionWrite`` / ``EdgeVersionWrite``).

Each row is one version of its node or relationship, asserted over ``[valid_from, valid_to)``. A later load that
asserts a version over part of an earlier one wins there (GestaltDB reads the latest commit where versions
overlap): that is how a correction recorded after the fact is loaded, and ``known_at`` before it reads the old belief.
"""

from __future__ import annotations

from typing import Any

from gestaltdb.graphdb import Edge, EdgeVersionWrite, Node, NodeVersionWrite, VersionOperation
from gestaltdb.temporal import TemporalInstant, TemporalInterval

Interval = tuple[TemporalInstant, TemporalInstant | None]


def _interval(interval: Interval) -> TemporalInterval:
    return TemporalInterval(interval[0], interval[1])


def node_writes(ids: list[str], labels: list[list[str]], rows: list[dict[str, Any]], intervals: list[Interval]) -> list[NodeVersionWrite]:
    """One asserted node version per row."""
    return [
        NodeVersionWrite(VersionOperation.ASSERT, node_id, _interval(interval), Node(node_id, labels=row_labels, properties=props))
        for node_id, row_labels, props, interval in zip(ids, labels, rows, intervals)
    ]


def edge_writes(edges: list[tuple[str, str, str, dict[str, Any]]], intervals: list[Interval]) -> list[EdgeVersionWrite]:
    """One asserted relationship version per row: ``edges`` holds (id, source, target, properties with ``type``)."""
    return [
        EdgeVersionWrite(VersionOperation.ASSERT, edge_id, _interval(interval), Edge(edge_id, source, target, properties=props))
        for (edge_id, source, target, props), interval in zip(edges, intervals)
    ]


def valid_at(intervals: list[Interval], moment: TemporalInstant) -> list[bool]:
    """Which rows' intervals hold ``moment`` (half-open: the end is excluded)."""
    return [start <= moment and (end is None or moment < end) for start, end in intervals]


def node_ids(db: Any) -> set[str]:
    """The ids of every node with a version in GestaltDB's history."""
    return {version.logical_id for version in db.iter_node_versions()}
