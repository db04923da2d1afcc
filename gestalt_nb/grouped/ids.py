"""Stored ids to node integers, many times against one table built once, in numpy (no Python per id).

Arrow's ``index_in`` builds its hash of the node keys on every call: 0.2 s at 1M nodes, paid again for
each batch of ids. Here each id gets a 64-bit fingerprint (its bytes read eight at a time, mixed); the
node keys' fingerprints are sorted once, with the start of each bucket of their top bits, so an id's
candidate is one array read away. Every candidate is then compared byte for byte with the id (Arrow's
``take`` and ``equal``): an id is found only when it is that node's key, so the answer is exact. Two node
keys with the same fingerprint (about one chance in 40 million at 1M nodes) would make the table ambiguous:
then every lookup goes to Arrow's ``index_in`` instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_MIX = np.uint64(0x9E3779B97F4A7C15)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


def fingerprints(ids: Any) -> np.ndarray:
    """A 64-bit fingerprint of each value of an Arrow binary array (the same bytes, the same fingerprint)."""
    count = len(ids)
    if count == 0:
        return np.zeros(0, np.uint64)
    import pyarrow as pa  # deferred: start-up time

    width = np.int64 if pa.types.is_large_binary(ids.type) or pa.types.is_large_string(ids.type) else np.int32
    offsets = np.frombuffer(ids.buffers()[1], width, count + 1, ids.offset * np.dtype(width).itemsize).astype(np.int64)
    data = np.frombuffer(ids.buffers()[2], np.uint8) if ids.buffers()[2] is not None else np.zeros(0, np.uint8)
    padded = np.zeros(data.size + 8, np.uint8)
    padded[:data.size] = data
    words = np.ndarray((data.size + 1,), dtype="<u8", buffer=padded, strides=(1,))  # the 8 bytes from each position
    starts, lengths = offsets[:-1], np.diff(offsets)
    found = lengths.astype(np.uint64) * _MIX
    for word in range((int(lengths.max()) + 7) // 8):
        left = np.clip(lengths - 8 * word, 0, 8).astype(np.uint64)
        mask = _ALL >> (np.uint64(64) - left * np.uint64(8))  # the id's bytes of this word (a word past its end is not mixed in)
        mixed = (found ^ (words[np.minimum(starts + 8 * word, data.size)] & mask)) * _MIX
        found = np.where(left > 0, mixed ^ (mixed >> np.uint64(29)), found)
    return found


class Table:
    """The node keys (an Arrow binary array): ``numbers(ids)`` gives each id's position in it, -1 for none."""

    def __init__(self, keys: Any) -> None:
        self.keys = keys
        prints = fingerprints(keys)
        self.order = np.argsort(prints).astype(np.int32)
        self.sorted = np.append(prints[self.order], _ALL)  # one past the end: a bucket's start may be there
        self.unique = not bool((self.sorted[1:-1] == self.sorted[:-2]).any())
        bits = max(1, len(keys).bit_length() + 1)  # about two buckets per key
        self.shift = np.uint64(64 - bits)
        self.starts = np.zeros((1 << bits) + 1, np.int32)  # where each bucket's keys start in ``sorted``
        np.cumsum(np.bincount((prints >> self.shift).astype(np.int64), minlength=1 << bits), out=self.starts[1:])

    def numbers(self, ids: Any) -> np.ndarray:
        """int32 node integers of the stored ids in ``ids`` (an Arrow binary array), -1 where no node has that id."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if not self.unique:
            return pc.index_in(ids, value_set=self.keys).fill_null(-1).to_numpy().astype(np.int32, copy=False)
        prints = fingerprints(ids)
        at = self.starts[prints >> self.shift]  # a bucket's first key: the one in most buckets that hold any
        missed = np.flatnonzero(self.sorted[at] != prints)
        at[missed] = np.minimum(at[missed] + 1, len(self.order))  # its second (a bucket of two keys)
        missed = missed[self.sorted[at[missed]] != prints[missed]]
        at[missed] = np.searchsorted(self.sorted[:-1], prints[missed])
        where = np.flatnonzero((self.sorted[at] == prints) & (at < len(self.order)))
        candidates = self.order[at[where]]
        found = ids if where.size == len(ids) else pc.take(ids, pa.array(where))  # every id has a candidate: the common case
        same = pc.equal(pc.take(self.keys, pa.array(candidates)), found).to_numpy(zero_copy_only=False)
        numbers = np.full(len(ids), -1, np.int32)
        numbers[where[same]] = candidates[same]
        return numbers
