"""A drawing's time slider, as the page gets it (``tl`` in the base payload; ``js/src/timeline.js`` shows it).

The drawing holds every node and relationship of every moment, laid out once; each moment (a frame) says which of them
are present then — nodes as positions in the payload's node list, relationships by id — and the panel's properties of
those whose properties then differ from the drawing's own. Stepping from one frame to the next is done on the page, as
a delta of what appeared, went (a ghost for that step) and changed; nothing moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..graph.subgraph import Subgraph
from .payload import Vocabulary


@dataclass
class Frames:
    """The moments a drawing steps through: ``valid`` (and ``known``, recorded time, or empty) as words, and one
    ``Subgraph`` per (valid, known) pair, valid-major: ``frames[i * max(len(known), 1) + j]``."""

    valid: list[str]
    known: list[str]
    frames: list[Subgraph]


def pack(frames: Frames, drawn: Subgraph, vocabulary: Vocabulary, caption_property: str) -> dict[str, Any]:
    """``frames`` against the drawing ``drawn`` (its node order is the payload's): what the page's slider reads."""
    index = {node_id: number for number, node_id in enumerate(drawn.nodes)}
    packed = []
    for frame in frames.frames:
        item: dict[str, Any] = {"n": [index[node_id] for node_id in frame.nodes if node_id in index],
                                "e": [edge_id for edge_id in frame.edges if edge_id in drawn.edges]}
        props = {}
        for node_id, node in frame.nodes.items():
            base = drawn.nodes.get(node_id)
            if base is not None and node.properties != base.properties:
                props[str(index[node_id])] = vocabulary.node(node, caption_property, False).get("p") or {}
        if props:
            item["p"] = props
        packed.append(item)
    return {"valid": list(frames.valid), "known": list(frames.known), "f": packed}
