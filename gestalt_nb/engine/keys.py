"""GestaltDB's key layout in LMDB, spelled here only (and checked against GestaltDB's own key functions).

- the ``index`` table: ``_index_prefix(index, parts)`` + the entity id in URL-safe base64 without padding → the id;
  a label's or type's entries are ``<I or R>\\0<index>\\x1f<base64 name>\\x1f<base64 id>``, so the names an index
  holds are found one seek per name (``names_under``);
- the ``typed_adj`` table: ``out\\x1f<source>\\x1f<type>\\x1f<edge>`` → target and ``in\\x1f<target>\\x1f<type>\\x1f<edge>``
  → source, for every relationship (``adjacency_key``).
"""

from __future__ import annotations

import base64
from binascii import b2a_base64
from collections.abc import Iterator
from typing import Any

__all__ = ["OUT", "SEP", "adjacency_key", "adjacency_prefix", "index_part", "index_prefix", "kinds_at", "layout_checked", "names_under"]

SEP = b"\x1f"
#: Every relationship once, by its source: the ``typed_adj`` records under this prefix.
OUT = b"out" + SEP
_URLSAFE = bytes.maketrans(b"+/", b"-_")
_PREFIXES: dict[tuple, bytes] = {}  # (index, parts) → its key prefix, checked once per process
_CHECKED: list[bool] = []


def index_prefix(name: str, parts: list[bytes]) -> bytes:
    """The key prefix of GestaltDB's index ``name`` (``"node_label"``, ``"edge_type"``, …) over ``parts`` (none: the whole index)."""
    key = (name, *parts)
    prefix = _PREFIXES.get(key)
    if prefix is None:
        from gestaltdb.kvstores import _index_prefix  # deferred: start-up time (the engine loads on first use)

        prefix = _PREFIXES[key] = _index_prefix(name, parts)
    return prefix


def index_part(value: bytes) -> bytes:
    """GestaltDB's ``_index_part`` of bytes (URL-safe base64 without padding) in two C calls."""
    return b2a_base64(value, newline=False).translate(_URLSAFE).rstrip(b"=")


def adjacency_prefix(direction: bytes, node: bytes) -> bytes:
    """The ``typed_adj`` keys of one node in one direction (``b"out"`` or ``b"in"``) start with this; a type follows."""
    return direction + SEP + node + SEP


def adjacency_key(direction: bytes, node: bytes, kind: bytes, edge: bytes) -> bytes:
    """The ``typed_adj`` key of relationship ``edge`` of type ``kind`` at ``node`` (its value: the other end)."""
    return direction + SEP + node + SEP + kind + SEP + edge


def layout_checked() -> bool:
    """Whether the installed GestaltDB spells index and adjacency keys as above (asked once per process); writers that
    spell keys themselves fall back to GestaltDB's own calls when it does not."""
    if not _CHECKED:
        from gestaltdb import kvstores

        key = getattr(kvstores, "_typed_adjacency_key", None)
        index_key, prefix = getattr(kvstores, "_index_key", None), getattr(kvstores, "_index_prefix", None)
        _CHECKED.append(
            key is not None and index_key is not None and prefix is not None
            and key("out", b"a", "T", b"e") == adjacency_key(b"out", b"a", b"T", b"e")
            and key("in", b"b", "T", b"e") == adjacency_key(b"in", b"b", b"T", b"e")
            and all(prefix(name, [b"L"]) + index_part(b"id-1") == index_key(name, [b"L"], b"id-1") for name in ("node_label", "edge_type"))
        )
    return _CHECKED[0]


def _distinct(cursor: Any, prefix: bytes) -> Iterator[bytes]:
    """Each distinct next part of the keys under ``prefix`` (up to the separator): one cursor seek per part."""
    position = prefix
    while cursor.set_range(position):
        key = cursor.key()
        if not key.startswith(prefix):
            return
        part = key[len(prefix) :].split(SEP, 1)[0]
        yield part
        position = prefix + part + b"\x20"  # past every key with this part (the separator is \x1f)


def names_under(txn: Any, index_db: Any, prefix: bytes) -> list[str]:
    """The distinct names under ``prefix`` in GestaltDB's LMDB index: one cursor seek per name, not one per entry."""
    return [base64.urlsafe_b64decode(part + b"=" * (-len(part) % 4)).decode("utf-8") for part in _distinct(txn.cursor(db=index_db), prefix)]


def kinds_at(txn: Any, table: Any, node: bytes) -> set[str]:
    """The relationship types ``node`` has either way, from the ``typed_adj`` table: one seek per type."""
    cursor = txn.cursor(db=table)
    return {part.decode("utf-8") for direction in (b"out", b"in") for part in _distinct(cursor, adjacency_prefix(direction, node))}
