"""A range of an LMDB table's records read from its B+tree pages in the data file, a batch of pages at a time.

A cursor makes two Python objects per record (its key and its value); at 3M relationships that walk is most
of an overview's read. Here the data file is mapped read-only beside LMDB's own map and the table's leaf pages
are read with numpy: the branch pages from the table's root give its leaf pages in key order (only those whose
keys can start with the prefix), each batch of them is copied out whole, and each record's key and value become
one row of an Arrow binary array (two ``take``s over the copy, no Python statement per record). The pages
read are the snapshot of the read transaction held meanwhile: LMDB frees no page a reader can still reach.

LMDB's page format (``mdb.c``, 0.9): a 16-byte page header (its own page number, flags, the lower and upper
ends of its free space), then one 2-byte offset per node in key order; a node is an 8-byte header (data size,
flags, key size; a branch node's child page number in the size and flag words), its key, then its data.
Whatever this reader does not expect (a table with duplicate keys or values on overflow pages, a page whose
number, kind or bounds are not right) makes ``read`` return None before any record is read: the caller walks
the records with a cursor instead.
"""

from __future__ import annotations

import mmap
import os
import struct
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..errors import GestaltError

__all__ = ["Pages", "open_pages", "spans"]

_BRANCH, _LEAF, _LEAF2 = 0x01, 0x02, 0x20
_BIGDATA, _SUBDATA, _DUPDATA = 0x01, 0x02, 0x04
_HEADER = 16  # page header: page number (8), pad (2), flags (2), lower (2), upper (2)
_NODE = 8  # node header: data size low (2), high (2), flags (2), key size (2)
#: Leaf pages read at a time (4 MiB with 4 KiB pages: about 70k records of the typed adjacency).
BATCH = 1024


class Pages:
    """The data file of ``env`` mapped read-only, for reading tables' pages while ``txn`` (a read transaction) is open."""

    def __init__(self, env: Any, txn: Any) -> None:
        path = os.path.join(env.path(), "data.mdb") if env.flags()["subdir"] else env.path()
        self.psize = int(env.stat()["psize"])
        self.txn = txn
        with open(path, "rb") as handle:
            self.map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        size = len(self.map) // self.psize * self.psize
        self.pages = np.frombuffer(self.map, dtype=np.uint8, count=size).reshape(-1, self.psize)

    def close(self) -> None:
        del self.pages
        try:
            self.map.close()
        except BufferError:  # an array still looks into the map: it closes once that is gone
            pass

    def read(self, name: bytes, handle: Any, prefix: bytes, values: bool = True) -> Iterator[tuple[Any, Any]] | None:
        """The records of table ``name`` (opened as ``handle``) whose keys start with ``prefix``, as (keys, values)
        Arrow binary arrays a batch at a time (``values=False``: keys only, values None), in key order; None when
        the table's pages are not as expected (see the module docstring)."""
        try:
            leaves = self._leaves(name, handle, prefix, values)
        except _Unexpected:
            leaves = None
        return None if leaves is None else self._records(leaves, prefix, values)

    def _leaves(self, name: bytes, handle: Any, prefix: bytes, values: bool) -> np.ndarray | None:
        raw = self.txn.get(name)
        stat = self.txn.stat(handle)
        if raw is None or len(raw) != 48:
            return None
        _, flags, depth, _, leaf_pages, overflow, entries, root = struct.unpack("<IHHQQQQQ", raw)
        if (flags or (values and overflow) or (depth, leaf_pages, entries) != (stat["depth"], stat["leaf_pages"], stat["entries"])
                or self.psize != stat["psize"]):
            return None  # not the table the handle opened, duplicate keys, or values kept on overflow pages
        if not entries:
            return np.zeros(0, dtype=np.int64)
        cursor = self.txn.cursor(db=handle)
        if not (cursor.first() and self._end_key(root, depth, 0) == cursor.key() and cursor.last()
                and self._end_key(root, depth, -1) == cursor.key()):
            return None  # the name's table is not the handle's
        rows = np.asarray([root], dtype=np.int64)
        end = _after(prefix)
        for level in range(depth):
            kind = _LEAF if level == depth - 1 else _BRANCH
            if not self._sound(rows, kind):
                return None
            if kind == _LEAF:
                return rows
            local = self.pages[rows]
            starts, key_sizes, low, high, node_flags, within = _nodes(local, self.psize)
            if (starts + _NODE + key_sizes > (starts // self.psize + 1) * self.psize).any():
                return None
            keys, _ = _slices(local.reshape(-1), starts + _NODE, starts + _NODE + key_sizes, None)
            # child i holds keys from its key up to the next child's; a page's first key is empty (from its
            # parent's key) and its last child's bound is in the next page: those are kept when unsure
            keep = _less(keys, end) if end is not None else np.ones(len(keys), dtype=bool)
            following = _greater(keys, prefix) | (within == 0)
            keep[:-1] &= following[1:]
            rows = _child_pages(low, high, node_flags)[keep]  # checked by the next level's ``_sound``
        return None

    def _end_key(self, root: int, depth: int, end: int) -> bytes | None:
        """The first (``end`` 0) or last (-1) key of the table whose root page is ``root``, down its edge of pages."""
        row = root
        for level in range(depth):
            if not self._sound(np.asarray([row], dtype=np.int64), _LEAF if level == depth - 1 else _BRANCH):
                return None
            local = self.pages[[row]]
            starts, key_sizes, low, high, node_flags, _ = _nodes(local, self.psize)
            if not starts.size:
                return None
            if level == depth - 1:
                start = int(starts[end]) + _NODE
                return local.reshape(-1)[start:start + int(key_sizes[end])].tobytes()
            row = int(_child_pages(low, high, node_flags)[end])
        return None

    def _sound(self, rows: np.ndarray, kind: int) -> bool:
        """Whether each page of ``rows`` says it is that page, of ``kind``, with sane bounds (header fields only)."""
        if rows.size and (rows.max() >= self.pages.shape[0] or rows.min() < 2):
            return False
        heads = self.pages[rows, :_HEADER]
        numbers = heads[:, :8].copy().view("<u8").ravel()
        words = heads[:, 8:].copy().view("<u2")  # pad, flags, lower, upper
        flags, lower, upper = words[:, 1], words[:, 2], words[:, 3]
        return bool((numbers == rows).all() and ((flags & (_BRANCH | _LEAF | _LEAF2)) == kind).all()
                    and (lower >= _HEADER).all() and (lower <= upper).all() and (upper <= self.psize).all())

    def _records(self, leaves: np.ndarray, prefix: bytes, values: bool) -> Iterator[tuple[Any, Any]]:
        end = _after(prefix)
        for first in range(0, leaves.size, BATCH):
            local = self.pages[leaves[first:first + BATCH]]  # a copy: the records' bytes side by side
            try:
                starts, key_sizes, low, high, node_flags, _ = _nodes(local, self.psize)
            except _Unexpected:
                raise _error() from None
            sizes = np.where(node_flags & _BIGDATA, 8, low | (high << 16))  # a value on an overflow page: its page number
            key_at = starts + _NODE
            value_at = key_at + key_sizes
            ends = value_at + sizes
            if (values and (node_flags & (_BIGDATA | _SUBDATA | _DUPDATA)).any()) or (ends > (starts // self.psize + 1) * self.psize).any():
                raise _error()
            keys, found = _slices(local.reshape(-1), key_at, value_at, ends if values else None)
            del local
            if len(keys) and (_less(keys[:1], prefix)[0] or (end is not None and not _less(keys[-1:], end)[0])):
                # the first or last leaf: it may hold keys before or after the prefix's (the others are all inside)
                inside = ~_less(keys, prefix) & (_less(keys, end) if end is not None else True)
                keys, found = keys.filter(inside), (found.filter(inside) if values else None)
            yield keys, found


def open_pages(env: Any, txn: Any) -> Pages | None:
    """``Pages`` over ``env``'s data file, or None when it cannot be mapped (a reader then walks with a cursor)."""
    try:
        return Pages(env, txn)
    except (OSError, ValueError, KeyError):
        return None


class _Unexpected(Exception):
    """A page is not as LMDB's format has it."""


def _error() -> Exception:
    return GestaltError("The database's file does not read as LMDB pages where its own index says it should; "
                        "check it with `mdb_stat`, or copy it with `mdb_copy` and open the copy.")


def _nodes(local: np.ndarray, psize: int) -> tuple[np.ndarray, ...]:
    """Every node of the pages ``local`` (rows of a copy), in key order: its start in ``local``'s bytes, key size,
    the two data-size words, its flags and its place in its page (int64 each)."""
    words = local.view("<u2")  # psize // 2 words per page
    counts = (words[:, 6].astype(np.int64) - _HEADER) // 2
    page = np.repeat(np.arange(local.shape[0], dtype=np.int64), counts)
    within = np.arange(page.size, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    offsets = words[page, _HEADER // 2 + within].astype(np.int64)
    if ((offsets < _HEADER) | (offsets > psize - _NODE) | (offsets % 2 == 1)).any():
        raise _Unexpected
    half = (page * psize + offsets) // 2
    flat = words.reshape(-1)
    low, high, flags, key_sizes = (flat[half + k].astype(np.int64) for k in range(4))
    return half * 2, key_sizes, low, high, flags, within


def _slices(flat: np.ndarray, starts: np.ndarray, middles: np.ndarray, ends: np.ndarray | None) -> tuple[Any, Any]:
    """``flat[starts[i]:middles[i]]`` and ``flat[middles[i]:ends[i]]`` for each i (a record's key and value), as two
    Arrow binary arrays (``ends`` None: the first only). The records do not overlap, so sorted by where they start,
    their keys, values and the bytes between them tile ``flat``: one array over ``flat`` of all of those, from
    which the keys and the values are taken, in the records' own order."""
    import pyarrow as pa

    count = starts.size
    # Arrow wants an array's offsets in order, so the slices go in the order they lie in ``flat``
    order = np.argsort(starts, kind="stable")  # a page's records usually lie in reverse key order: runs a merge sort finds
    bounds = np.empty(3 * count + 1, dtype=np.int64)
    bounds[0] = 0
    bounds[1::3], bounds[2::3] = starts[order], middles[order]
    bounds[3::3] = ends[order] if ends is not None else middles[order]
    rank = np.empty(count, dtype=np.int64)
    rank[order] = np.arange(1, 3 * count, 3, dtype=np.int64)
    keys, *found = spans(pa.py_buffer(flat), bounds, [rank] + ([rank + 1] if ends is not None else []))
    return keys, (found[0] if found else None)


def spans(buffer: Any, bounds: np.ndarray, picks: list[np.ndarray]) -> list[Any]:
    """Byte spans of ``buffer`` as Arrow binary arrays: ``bounds`` (in order, from 0) cut it into pieces, and each
    of ``picks`` lists the pieces wanted (by number) in one array, in that order."""
    import pyarrow as pa

    whole = pa.LargeBinaryArray.from_buffers(pa.large_binary(), bounds.size - 1, [None, pa.py_buffer(bounds), buffer])
    return [whole.take(pa.array(pick)).cast(pa.binary()) for pick in picks]


def _child_pages(low: np.ndarray, high: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """A branch node's child page number: its data-size words and, on 64 bits, its flags word."""
    return low | (high << 16) | (flags << 32)


def _after(prefix: bytes) -> bytes | None:
    """The least key greater than every key starting with ``prefix`` (None: no such key, or no prefix)."""
    stripped = prefix.rstrip(b"\xff")
    return stripped[:-1] + bytes([stripped[-1] + 1]) if stripped else None


def _less(keys: Any, bound: bytes) -> np.ndarray:
    return _compare("less", keys, bound)


def _greater(keys: Any, bound: bytes) -> np.ndarray:
    return _compare("greater", keys, bound)


def _compare(how: str, keys: Any, bound: bytes) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    return np.asarray(getattr(pc, how)(keys, pa.scalar(bound, pa.binary())).to_numpy(zero_copy_only=False), dtype=bool)
