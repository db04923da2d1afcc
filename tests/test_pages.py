"""A table's records read from LMDB's pages in the data file (gestalt_nb/engine/pages.py) are exactly what a cursor
walks: any prefix, any insertion order, across batches; tables it cannot read are left to the cursor."""

from __future__ import annotations

import lmdb
import numpy as np
import pyarrow as pa
import pytest

from gestalt_nb.engine import pages as pages_module
from gestalt_nb.engine.pages import open_pages


def walked(txn, table, prefix: bytes) -> list[tuple[bytes, bytes]]:
    cursor = txn.cursor(db=table)
    found = []
    if cursor.set_range(prefix):
        for key, value in cursor:
            if not key.startswith(prefix):
                break
            found.append((key, value))
    return found


def read(pages, name: bytes, table, prefix: bytes, values: bool = True) -> list[tuple[bytes, bytes | None]] | None:
    chunks = pages.read(name, table, prefix, values)
    if chunks is None:
        return None
    found = []
    for keys, got in chunks:
        assert pa.types.is_binary(keys.type)
        found += zip(keys.to_pylist(), got.to_pylist() if values else [None] * len(keys))
    return found


@pytest.fixture
def env(tmp_path):
    opened = lmdb.open(str(tmp_path / "env"), max_dbs=4, map_size=1 << 28)
    yield opened
    opened.close()


def test_pages_give_what_a_cursor_walks_for_every_prefix_in_any_insertion_order(env, monkeypatch):
    monkeypatch.setattr(pages_module, "BATCH", 7)  # many batches, the prefix's first and last pages in different ones
    rng = np.random.default_rng(8)
    table = env.open_db(b"t")
    words = ["n", "ключ", "🙂", "x" * 30, "0", "\x1f"]
    records = {}
    for number in range(30_000):
        head = [b"in\x1f", b"out\x1f", b"out\x1fn1", b"zz\xff"][number % 4]
        key = head + "".join(rng.choice(words, rng.integers(0, 4))).encode() + str(number).encode()
        records[key] = bytes(rng.integers(0, 256, rng.integers(0, 120), dtype=np.uint8))
    keys = list(records)
    rng.shuffle(keys)  # records land in their pages out of order, and pages split
    with env.begin(write=True, db=table) as txn:
        for key in keys:
            txn.put(key, records[key])
        for key in keys[::5]:
            txn.delete(key)  # freed room inside pages, used again below
        for key in keys[::10]:
            txn.put(key, records[key][::-1])
    with env.begin() as txn:
        assert txn.stat(table)["depth"] >= 3  # the root and branch pages are read too
        pages = open_pages(env, txn)
        try:
            for prefix in (b"out\x1f", b"in\x1f", b"", b"out\x1fn1", b"zz\xff", b"zz\xff\xff", b"absent", b"out\x1fn1\xd0"):
                expected = walked(txn, table, prefix)
                assert read(pages, b"t", table, prefix) == expected, prefix
                assert read(pages, b"t", table, prefix, values=False) == [(key, None) for key, _ in expected], prefix
            assert len(read(pages, b"t", table, b"out\x1f")) > 10_000
        finally:
            pages.close()


def test_tables_the_pages_cannot_give_are_left_to_the_cursor(env):
    """Duplicate keys, values kept on overflow pages (their keys still read), and a handle of another table."""
    duplicates = env.open_db(b"dups", dupsort=True)
    big = env.open_db(b"big")
    small = env.open_db(b"small")
    with env.begin(write=True) as txn:
        for number in range(50):
            txn.put(b"k%d" % (number % 5), b"v%d" % number, db=duplicates)
            txn.put(b"k%03d" % number, (b"x" * 20_000) if number == 7 else b"v", db=big)
            txn.put(b"s%03d" % number, b"v", db=small)
    with env.begin() as txn:
        pages = open_pages(env, txn)
        try:
            assert pages.read(b"dups", duplicates, b"") is None
            assert pages.read(b"big", big, b"") is None  # one value lives on overflow pages
            assert read(pages, b"big", big, b"", values=False) == [(key, None) for key, _ in walked(txn, big, b"")]
            assert pages.read(b"small", big, b"") is None  # the name and the handle are not one table
            assert read(pages, b"small", small, b"s01") == walked(txn, small, b"s01")
            assert read(pages, b"nothing", small, b"") is None
        finally:
            pages.close()


def test_keys_cut_at_their_separators_as_arrow_splits_them():
    """The typed adjacency's keys cut by numpy (out SEP source SEP type SEP edge), and by Arrow when an id holds a SEP."""
    import pyarrow.compute as pc

    from gestalt_nb.grouped.compact import _Edges, _fields

    plain = pa.array([b"out\x1fn1\x1fKNOWS\x1fe1", b"out\x1fn1\x1fLIKES\x1fe2", b"out\x1f\xd0\xba\x1fT\x1f", b"out\x1f\x1f\x1fe"], pa.binary())
    odd = pa.array([b"out\x1fn1\x1fKNOWS\x1fe1", b"out\x1fa\x1fb\x1fT\x1fe"], pa.binary())  # a SEP inside an id
    for keys in (plain, plain.slice(1, 3), odd, pa.array([], pa.binary())):
        parts = pc.split_pattern(keys, pattern=b"\x1f", max_splits=3)
        sources, kinds = _Edges.cut(keys)
        assert sources.to_pylist() == pc.list_element(parts, 1).to_pylist()
        assert kinds.to_pylist() == pc.list_element(parts, 2).to_pylist()
    assert _fields(plain) is not None and _fields(odd) is None
