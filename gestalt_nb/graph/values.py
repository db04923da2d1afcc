"""Recognise the adapter's JSON value shapes and turn them into readable Python values.

``GestaltDBGraph.query`` returns nodes as ``{id, labels, properties}``, relationships as
``{id, source, target, properties}``, paths as ``{nodes, edges}`` and temporal values as
``{"$type": ..., ...}``. Shapes are matched on their exact key sets, so an ordinary map that
merely contains an ``id`` is left alone.
"""

from __future__ import annotations

import json
import math
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

NODE_KEYS = frozenset({"id", "labels", "properties"})
EDGE_KEYS = frozenset({"id", "source", "target", "properties"})
PATH_KEYS = frozenset({"nodes", "edges"})
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def is_node(value: Any) -> bool:
    return isinstance(value, dict) and value.keys() == NODE_KEYS


def is_edge(value: Any) -> bool:
    return isinstance(value, dict) and value.keys() == EDGE_KEYS


def is_path(value: Any) -> bool:
    return isinstance(value, dict) and value.keys() == PATH_KEYS and isinstance(value["nodes"], list)


def is_temporal(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("$type"), str) and value["$type"].startswith("Temporal")


def _instant(micros: int) -> datetime:
    return _EPOCH + timedelta(microseconds=micros)


def temporal_to_python(value: dict[str, Any]) -> Any:
    """Convert a ``$type`` temporal map to ``date``/``datetime``/``time``/``timedelta``.

    An interval becomes a ``(start, end)`` tuple of UTC datetimes (``end`` None when open).
    Unknown temporal kinds are returned unchanged rather than guessed at.
    """
    kind = value["$type"]
    if kind == "TemporalDate":
        return date.fromisoformat(value["value"])
    if kind == "TemporalInstant":
        return _instant(value["epoch_microseconds"])
    if kind == "TemporalLocalDateTime":
        return datetime.fromisoformat(value["value"])
    if kind == "TemporalDuration":
        return timedelta(microseconds=value["total_microseconds"])
    if kind == "TemporalLocalTime":
        return (datetime.min + timedelta(microseconds=value["microseconds"])).time()
    if kind == "TemporalTime":
        local = (datetime.min + timedelta(microseconds=value["local_microseconds"])).time()
        return local.replace(tzinfo=timezone(timedelta(seconds=value["offset_seconds"])))
    if kind == "TemporalInterval":
        start, end = value.get("start"), value.get("end")
        return (
            temporal_to_python(start) if is_temporal(start) else start,
            temporal_to_python(end) if is_temporal(end) else end,
        )
    return value


def readable_temporal(value: dict[str, Any]) -> str:
    """ISO-8601 text for a temporal map (``Z`` for UTC instants, ``[start, end)`` for intervals)."""
    converted = temporal_to_python(value)
    if isinstance(converted, tuple):
        start, end = converted
        return f"[{_iso(start)}, {_iso(end) if end is not None else '∞'})"
    return _iso(converted)


def _iso(value: Any) -> str:
    if isinstance(value, datetime) and value.tzinfo is timezone.utc:
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, (date, time, datetime)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return _duration(value)
    return str(value)


def _duration(value: timedelta) -> str:
    seconds = value.total_seconds()
    sign, seconds = ("-", -seconds) if seconds < 0 else ("", seconds)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{sign}P{int(days)}D" if days else f"{sign}P"
    clock = "".join(
        f"{int(amount) if unit != 'S' else round(amount, 6):g}{unit}"
        for amount, unit in ((hours, "H"), (minutes, "M"), (secs, "S"))
        if amount
    )
    return text + (f"T{clock}" if clock else ("" if days else "T0S"))


def to_python(value: Any) -> Any:
    """Turn temporal maps (at any depth) into Python values; leave everything else as it is."""
    if is_temporal(value):
        return temporal_to_python(value)
    if isinstance(value, list):
        return [to_python(item) for item in value]
    if isinstance(value, dict):
        return {key: to_python(item) for key, item in value.items()}
    return value


#: The largest integer a page's JavaScript number holds exactly (``Number.MAX_SAFE_INTEGER``).
SAFE_INTEGER = 2**53 - 1


def number_text(value: Any) -> str | None:
    """How a number no JSON page can hold is shown: ``NaN``, ``inf``, ``-inf``, or an integer past
    ``SAFE_INTEGER`` in full; None for every other value (shown as it is)."""
    kind = type(value)
    if kind is float or (isinstance(value, float) and kind is not bool):
        if value != value:
            return "NaN"
        if value in (math.inf, -math.inf):
            return "inf" if value > 0 else "-inf"
        return None
    if (kind is int or (isinstance(value, int) and kind is not bool)) and not -SAFE_INTEGER <= value <= SAFE_INTEGER:
        return str(value)
    return None


def literal(value: Any) -> str:
    """Cypher-like literal text for a property value: strings quoted, temporals as ISO text, ``NaN`` / ``inf`` as such."""
    if isinstance(value, float) and (text := number_text(value)) is not None:
        return text
    if is_temporal(value):
        return readable_temporal(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {literal(item)}" for key, item in value.items()) + "}"
    return json.dumps(value)


def _props(properties: dict[str, Any], skip: str | None = None) -> str:
    items = [f"{key}: {literal(item)}" for key, item in properties.items() if key != skip]
    return " {" + ", ".join(items) + "}" if items else ""


def _id(value: Any) -> Any:
    """A stored integer id (``__lc_int__:N``) as the number a person gave; other ids unchanged."""
    if isinstance(value, str) and value.startswith("__lc_int__:") and value[11:].lstrip("-").isdigit():
        return int(value[11:])
    return value


def node_text(node: dict[str, Any]) -> str:
    labels = "".join(f":{label}" for label in node["labels"])
    return f"({_id(node['id'])}{labels}{_props(node['properties'])})"


def edge_text(edge: dict[str, Any], *, with_endpoints: bool = True) -> str:
    kind = edge["properties"].get("type", "")
    body = f"[:{kind}{_props(edge['properties'], skip='type')}]"
    return f"({_id(edge['source'])})-{body}->({_id(edge['target'])})" if with_endpoints else body


def path_text(path: dict[str, Any]) -> str:
    nodes = path["nodes"]
    if not nodes:
        return "()"
    parts = [f"({_id(nodes[0]['id'])})"]
    for edge, node in zip(path["edges"], nodes[1:]):
        body = edge_text(edge, with_endpoints=False)
        if edge["target"] == node["id"]:
            parts.append(f"-{body}->({_id(node['id'])})")
        else:
            parts.append(f"<-{body}-({_id(node['id'])})")
    return "".join(parts)


def cell(value: Any) -> Any:
    """The value a DataFrame cell should hold: entities as readable text, temporals as Python values."""
    if is_node(value):
        return node_text(value)
    if is_edge(value):
        return edge_text(value)
    if is_path(value):
        return path_text(value)
    if is_temporal(value):
        return temporal_to_python(value)
    if isinstance(value, str):
        return _id(value)
    if isinstance(value, list):
        if any(isinstance(item, dict) for item in value):
            return [cell(item) for item in value]
        return value
    if isinstance(value, dict):
        return {key: cell(item) for key, item in value.items()}
    return value


def frame(records: list[dict[str, Any]], columns: list[str], *, exact: bool = False):
    """A pandas DataFrame of records, every cell through :func:`cell`. ``exact``: every column of type object, so a
    missing value stays None and a stored ``NaN`` stays apart from it (what a view shows), not pandas's own types."""
    import pandas as pd

    return pd.DataFrame([[cell(record.get(column)) for column in columns] for record in records], columns=columns,
                        dtype=object if exact else None)


def display_properties(properties: dict[str, Any]) -> dict[str, Any]:
    """Properties as a person should read them: temporal maps become ISO-8601 text, numbers a page cannot hold
    (``NaN``, ``inf``, integers past 2**53) their text (``number_text``)."""
    if not any(isinstance(value, (dict, list)) or number_text(value) is not None for value in properties.values()):
        return properties  # plain values (the common case) need no copy
    return {key: _display_value(value) for key, value in properties.items()}


def _display_value(value: Any) -> Any:
    text = number_text(value)
    if text is not None:
        return text
    if is_temporal(value):
        return readable_temporal(value)
    if isinstance(value, list):
        return [_display_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _display_value(item) for key, item in value.items()}
    return value
