"""How GestaltStore lays items out in the graph: names, ids, the path order, and reading nodes back.

An item's path is its encoded namespace, then ``.`` and its key. An item node's id is
``__mem2:`` and the path's first ``INDEXED_PATH_BYTES`` UTF-8 bytes (control characters escaped;
then ``~`` and a hash of namespace and key when the path is longer), so a get is one lookup, node
ids sort in path order
and prefix search is a range of the node table; one batch's items of one namespace sit side by
side in every table they touch (node, label index, ``IN_NAMESPACE`` edge and adjacency).

Stores written before this layout (item ids ``__mem:`` + hash, found by the range-indexed
``__mem_path`` property) stay readable and writable: ``find_item`` tries both ids and
``items_under`` merges both orders; such an item keeps its id and its path property when updated.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import json
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from typing import Any

from gestaltdb.graphdb import GraphDB, Node
from gestaltdb.kvstores import LMDBStore, LMDBTransactionStore
from gestaltdb.serializers import JSONSerializer
from langgraph.store.base import Item
from langgraph.store.memory import _compare_values

from ..errors import GestaltError
from ..graph.bookkeeping import MEMORY_ITEM, MEMORY_NAMESPACE

ITEM = MEMORY_ITEM
NAMESPACE = MEMORY_NAMESPACE
#: Indexed properties: the encoded namespace path (namespaces, and items of the earlier layout) and
#: the expiry (TTL sweeps).
PATH = "__mem_path"
EXPIRES = "__mem_expires"
VECTORS = "__mem_vectors"
INTERNAL_PROPERTIES = frozenset({PATH, EXPIRES, VECTORS})
#: Bytes of a path kept in an item id (as UTF-8) and in the path index (as hex, so JSON never escapes
#: it): index keys base64- or hex-encode ids and values again next to labels and property names, and
#: GestaltDB refuses index keys over 511 bytes.
INDEXED_PATH_BYTES = 80
CAPTION_BYTES = 32
_ITEM_FIELDS = ("namespace", "key", "created_at", "updated_at")


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def encode_namespace(namespace: tuple[str, ...]) -> str:
    """``("users", "42")`` → ``"users.42."``: labels never contain ``.``, so this is unambiguous
    and a namespace's encoding is a string prefix of its descendants' (``".."`` ends a namespace)."""
    return "".join(f"{label}." for label in namespace)


def index_value(path: str) -> str:
    """What the path index holds: the path's first ``INDEXED_PATH_BYTES`` UTF-8 bytes, in hex."""
    return path.encode("utf-8")[:INDEXED_PATH_BYTES].hex()


def successor(text: str) -> str | None:
    """The least string greater than every string that starts with ``text`` (None: no bound)."""
    chars = list(text)
    while chars:
        code = ord(chars.pop()) + 1
        if 0xD800 <= code <= 0xDFFF:
            code = 0xE000
        if code <= 0x10FFFF:
            return "".join(chars) + chr(code)
    return None


def digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode("utf-8")).hexdigest()[:32]


ITEM_IDS = "__mem2:"  # this layout's item ids (path-ordered)
#: Control characters in an id's path, each as ``\x01`` + one printable character: the order of
#: paths is kept (the code is prefix-free and ordered) and no ``\x1f`` — the separator of GestaltDB's
#: adjacency keys, which hold node ids as they are — is left in an id.
_ESCAPES = {code: "\x01" + chr(0x21 + code) for code in range(0x20)}


def item_path(namespace: tuple[str, ...], key: str) -> str:
    return encode_namespace(namespace) + "." + key


def _id_path(path: str) -> tuple[str, bool]:
    """The path as an id holds it (control characters escaped, cut on a character boundary at
    ``INDEXED_PATH_BYTES`` bytes), and whether it was cut."""
    text = path.translate(_ESCAPES)
    raw = text.encode("utf-8")
    if len(raw) <= INDEXED_PATH_BYTES:
        return text, False
    return raw[:INDEXED_PATH_BYTES].decode("utf-8", "ignore"), True


def item_id(namespace: tuple[str, ...], key: str) -> str:
    """The item's node id: ``__mem2:`` + its path (``users.42..key``), cut at ``INDEXED_PATH_BYTES``
    bytes (then ``~`` + a hash of namespace and key), so ids sort as paths do."""
    text, cut = _id_path(item_path(namespace, key))
    return f"{ITEM_IDS}{text}~{digest(list(namespace), key)}" if cut else ITEM_IDS + text


def item_ids(namespace: tuple[str, ...]) -> Callable[[str], str]:
    """``item_id(namespace, ·)`` for many keys of one namespace: its part of the path escaped once,
    a short printable ASCII key appended as it is (nothing to escape or cut), any other key by ``item_id``."""
    head = encode_namespace(namespace).translate(_ESCAPES) + "."
    room = INDEXED_PATH_BYTES - len(head.encode("utf-8"))
    head = ITEM_IDS + head

    def make(key: str) -> str:
        if len(key) <= room and key.isascii() and key.isprintable():
            return head + key
        return item_id(namespace, key)

    return make


def legacy_item_id(namespace: tuple[str, ...], key: str) -> str:
    """The id the earlier layout gave an item (a hash of namespace and key)."""
    return f"__mem:{digest(list(namespace), key)}"


def link_id(item_node_id: str) -> str:
    """The id of an item's ``IN_NAMESPACE`` edge: ``__memin`` + the item id after ``__mem``."""
    return "__memin" + item_node_id[5:]


def namespace_id(namespace: tuple[str, ...]) -> str:
    return f"__memns:{digest(list(namespace))}"


def caption(text: str) -> str:
    """At most CAPTION_BYTES of UTF-8 (a stored bound, in bytes, unlike ``shorten``'s characters), "…" when cut."""
    short = text.encode("utf-8")[:CAPTION_BYTES].decode("utf-8", "ignore")
    return short if short == text else short + "…"


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat()


def text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def as_namespace(namespace: Any) -> Any:
    """A list namespace (``["test", "docs"]``) read as the tuple it names, as SqliteStore does."""
    return tuple(namespace) if isinstance(namespace, list) else namespace


# -- reading nodes -------------------------------------------------------------------------
def is_item(node: Node | None) -> bool:
    """A node this store wrote (a node a person labelled by hand without these properties is not)."""
    return node is not None and ITEM in node.labels and all(name in node.properties for name in _ITEM_FIELDS)


def expired(node: Node, now: float | None) -> bool:
    """Expired at ``now`` (a timestamp); ``now=None`` never counts anything expired."""
    expires = node.properties.get(EXPIRES)
    return now is not None and expires is not None and expires <= now


def to_item(node: Node, cls: type = Item, **extra: Any) -> Item:
    props = node.properties
    return cls(
        namespace=tuple(props["namespace"]),
        key=props["key"],
        value=props.get("value") or {},
        created_at=datetime.fromisoformat(props["created_at"]),
        updated_at=datetime.fromisoformat(props["updated_at"]),
        **extra,
    )


#: In GestaltDB's tagged values (temporal types, escaped dicts); Python's json never escapes it. A stored
#: record or a value's JSON without it needs none of GestaltDB's tag handling.
TAG = "gestaltdb_type"
_TAG = TAG.encode("ascii")


def load_node(db: GraphDB, data: bytes | None) -> Node | None:
    """A stored node from its bytes, as ``db.get_node`` reads it: with GestaltDB's JSON serialiser
    and no tagged value in it, one ``json.loads`` (its walk for tagged values would change nothing)."""
    if data is None:
        return None
    serializer = db.entity_serializer
    if type(serializer.serializer) is JSONSerializer and _TAG not in data:
        record = json.loads(data)
        return Node(record["id"], properties=record["properties"], labels=record.get("labels"))
    return serializer.deserialize(data, "Node")


def find_item(db: GraphDB, namespace: tuple[str, ...], key: str, *, legacy: bool = True, node_id: str | None = None) -> Node | None:
    """The item node for ``(namespace, key)`` (this layout's id — ``node_id`` when computed already —
    then, with ``legacy``, the earlier one)."""
    node_id = node_id or item_id(namespace, key)
    ids = (node_id, legacy_item_id(namespace, key)) if legacy else (node_id,)
    for node_id in ids:
        node = load_node(db, db.store.get_node(node_id.encode("utf-8")))
        if is_item(node) and tuple(node.properties["namespace"]) == namespace and node.properties["key"] == key:
            return node
    return None


def has_legacy_items(db: GraphDB) -> bool:
    """Whether any item of the earlier layout (found through the path index) is stored."""
    return next(iter(_range(db, ITEM, "")), None) is not None


def _range(db: GraphDB, label: str, encoded: str) -> Iterator[bytes]:
    if not encoded:
        return db.iter_node_ids_by_label_property_range(label, PATH, None, None)
    start = index_value(encoded)
    return db.iter_node_ids_by_label_property_range(label, PATH, start, successor(start), include_end=False)


def _id_range(db: GraphDB, encoded: str) -> Iterator[Node]:
    """The nodes whose ids fall in this layout's item-id range for paths starting with ``encoded``."""
    first = ITEM_IDS + _id_path(encoded)[0]
    start, end = first.encode("utf-8"), successor(first).encode("utf-8")
    if isinstance(db.store, (LMDBStore, LMDBTransactionStore)):  # keys and values in one pass
        for key, data in db.store.range_iter(start, end):  # inclusive of end
            if key >= end:
                return
            yield load_node(db, data)
        return
    for key in db.store.get_node_keys_generator(key_offset=start):
        if key < start or key >= end:  # (a store that starts from its first key when none is ≥ start)
            return
        node = db.get_node(key)
        if node is not None:
            yield node


def _order(node: Node) -> str:
    props = node.properties
    return index_value(item_path(tuple(props["namespace"]), props["key"]))


def _verified(nodes: Iterator[Node | None], prefix: tuple[str, ...], exact: bool) -> Iterator[Node]:
    depth = len(prefix)
    for node in nodes:
        if not is_item(node):
            continue
        namespace = tuple(node.properties["namespace"])
        if (namespace == prefix) if exact else (namespace[:depth] == prefix):
            yield node


def items_under(db: GraphDB, prefix: tuple[str, ...], *, exact: bool = False, legacy: bool = True) -> Iterator[Node]:
    """Item nodes whose namespace starts with (or, ``exact``, equals) ``prefix``, in path order.

    A range of item ids (and, for items of the earlier layout — ``legacy=False``: none are stored —
    of the path index, merged in), then each node verified, so cut paths and hashes can never let a
    wrong item through.
    """
    encoded = encode_namespace(prefix) + ("." if exact else "")
    ordered = _verified(_id_range(db, encoded), prefix, exact)
    if not legacy:
        yield from ordered
        return
    earlier = _verified((db.get_node(node_id) for node_id in _range(db, ITEM, encoded)), prefix, exact)
    first = next(earlier, None)
    if first is None:
        yield from ordered
        return
    yield from heapq.merge(ordered, itertools.chain([first], earlier), key=_order)


def namespaces_under(db: GraphDB, prefix: tuple[str, ...]) -> Iterator[Node]:
    for node_id in _range(db, NAMESPACE, encode_namespace(prefix)):
        node = db.get_node(node_id)
        if node is not None and NAMESPACE in node.labels and "namespace" in node.properties:
            if tuple(node.properties["namespace"])[: len(prefix)] == prefix:
                yield node


def literal_head(path: tuple[str, ...]) -> tuple[str, ...]:
    head = []
    for label in path:
        if label == "*":
            break
        head.append(label)
    return tuple(head)


_MISSING = object()


def value_at(value: Any, key: str) -> Any:
    """A filter key read as SqliteStore/PostgresStore read it: ``"user.level"`` is a path into
    nested objects (``value["user"]["level"]``); a key without dots is a top-level field."""
    for part in key.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part, _MISSING)
        if value is _MISSING:
            return None
    return value


def matches(node: Node, wanted: dict[str, Any] | None) -> bool:
    """Whether an item's value passes a search filter (LangGraph's own comparison function)."""
    if not wanted:
        return True
    value = node.properties.get("value")
    value = value if isinstance(value, dict) else {}  # a value a person replaced through Cypher
    try:
        return all(_compare_values(value_at(value, key), expected) for key, expected in wanted.items())
    except (TypeError, ValueError) as exc:
        raise GestaltError(f"filter={wanted!r} cannot be compared with a stored value: {exc}") from exc
