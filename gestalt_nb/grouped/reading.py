"""A drilled group's members' relationships, read from GestaltDB's typed adjacency (both directions).

One cursor range per member and direction (``out``/``in`` SEP member SEP …): the relationships
between two drawn members come back as ids (their records are then read by id), and those to any
other node are counted per (member, group) — the member's own group when the neighbour is one of
its members not drawn — to be drawn as one super-edge each.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.keys import SEP as _SEP
from ..engine.keys import adjacency_prefix
from ..engine.store import lmdb_store
from .compact import Compact


def adjacency(db: Any, ids: list[str], compact: Compact, membership: np.ndarray, group: int) -> tuple[list[str], dict[tuple[str, int], int]]:
    store = lmdb_store(db)
    drawn = {item.encode("utf-8") for item in ids}
    index = compact.index
    inside: dict[str, None] = {}
    outside: dict[tuple[str, int], int] = {}
    with store.env.begin(write=False) as txn:
        cursor = txn.cursor(db=store.typed_adj_db)
        for direction in (b"out", b"in"):
            for member in ids:
                prefix = adjacency_prefix(direction, member.encode("utf-8"))
                if not cursor.set_range(prefix):
                    continue
                for key, neighbour in cursor:
                    if not key.startswith(prefix):
                        break
                    if neighbour in drawn:
                        inside[key.rsplit(_SEP, 1)[1].decode("utf-8")] = None
                        continue
                    number = index.get(neighbour, -1)
                    other = int(membership[number]) if number >= 0 else -1
                    if other >= 0:
                        outside[(member, other)] = outside.get((member, other), 0) + 1
    return list(inside), outside
