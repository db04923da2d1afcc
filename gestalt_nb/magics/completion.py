"""Completion inside ``%%gcypher`` cells and ``%gcypher`` lines, through IPython's completer API.

Registered as an IPython matcher (API v2), so JupyterLab, Notebook 7 and VS Code offer it with no
frontend extension. It knows where the cursor is: after ``:`` in a node pattern, labels; in a
relationship pattern, relationship types; after ``var.``, the properties seen for that variable's
label; after ``$``, the keys of the ``-P`` dict; on the magic's line, its options. Everything comes
from the connection's cached schema *sample* (the adapter's, at most 100 nodes and 100
relationships by default), so completion never scans the graph — and labels or properties outside
the sample are not offered. A failure of any kind gives no completions, never an error.
"""

from __future__ import annotations

import ast
import functools
import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..cypher.text import mask, open_brackets
from ..engine.store import sampled_schema
from ..options import RENDERERS
from ..session import REGISTRY
from .cypher_args import gcypher_parser, split_line, split_params

#: Cypher keywords of GestaltDB's dialect, offered in upper case.
KEYWORDS = (
    "MATCH", "OPTIONAL MATCH", "WHERE", "RETURN", "WITH", "UNWIND", "AS", "ORDER BY", "SKIP", "LIMIT",
    "DISTINCT", "ASC", "DESC", "AND", "OR", "XOR", "NOT", "IN", "IS NULL", "IS NOT NULL", "STARTS WITH",
    "ENDS WITH", "CONTAINS", "CASE", "WHEN", "THEN", "ELSE", "END", "UNION", "UNION ALL", "CALL", "YIELD",
    "CREATE", "MERGE", "ON CREATE SET", "ON MATCH SET", "SET", "REMOVE", "DELETE", "DETACH DELETE", "FOREACH",
    "SHORTEST", "ALL SHORTEST", "FOR VALID_TIME AS OF", "FOR SYSTEM_TIME AS OF", "SHOW INDEXES", "SHOW CONSTRAINTS",
    "true", "false", "null",
)
#: The engine keeps function names lower case; this is how people write them.
_CASING = {
    "elementid": "elementId", "endnode": "endNode", "randomuuid": "randomUUID", "startnode": "startNode",
    "systemfrom": "systemFrom", "toboolean": "toBoolean", "tofloat": "toFloat", "tointeger": "toInteger",
    "tolower": "toLower", "tostring": "toString", "toupper": "toUpper", "validfrom": "validFrom",
    "validto": "validTo", "versionid": "versionId",
}
#: Expressions the parser handles itself rather than through its function table.
_SPECIAL_FUNCTIONS = ("shortestPath", "allShortestPaths", "exists", "all", "any", "none", "single", "reduce")

_MAGIC_LINE = re.compile(r"(?:^|(?<=[\s=(]))%gcypher(?=\s|$)")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$|$")
_NODE_PATTERN = re.compile(r"\(\s*([A-Za-z_]\w*)\s*((?::\s*`?[A-Za-z_]\w*`?\s*(?:[|&]\s*`?[A-Za-z_]\w*`?\s*)*)+)")
_REL_PATTERN = re.compile(r"\[\s*([A-Za-z_]\w*)\s*:\s*((?:`?[A-Za-z_]\w*`?\s*\|?\s*)+)")
_NAMES = re.compile(r"[A-Za-z_]\w*")
_BOUND = re.compile(r"[(\[,]\s*([A-Za-z_]\w*)\s*[:){\]]|\bAS\s+([A-Za-z_]\w*)|\b([A-Za-z_]\w*)\s*=\s*(?:\(|SHORTEST|ALL)", re.I)
_PARAM_USE = re.compile(r"\$([A-Za-z_]\w*)")


@functools.lru_cache(maxsize=1)
def function_names() -> tuple[str, ...]:
    """The engine's function names, read at the first completion (importing the engine's function
    table builds its Cypher parser, which ``%load_ext`` should not wait for)."""
    try:
        from gestaltdb.query_engine.cypher.functions import FUNCTIONS

        names = [_CASING.get(name, name) for name in FUNCTIONS]
    except Exception:  # an engine without the table: keywords still work
        names = []
    return tuple(sorted(set(names) | set(_SPECIAL_FUNCTIONS), key=str.lower))


@dataclass(frozen=True)
class SchemaWords:
    """Labels, relationship types and properties of one schema sample."""

    labels: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    node_props: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    rel_props: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def from_schema(cls, schema: Mapping[str, Any]) -> SchemaWords:
        def props(entries: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
            return {key: tuple(sorted({p["property"] for p in value})) for key, value in entries.items()}

        node_props = props(schema.get("node_props", {}))
        rel_props = props(schema.get("rel_props", {}))
        rels = schema.get("relationships", [])
        labels = (set(node_props) | {r[k] for r in rels for k in ("start", "end")}) - {"__unlabeled__"}
        types = ({r["type"] for r in rels} | set(rel_props)) - {"__untyped__"}
        return cls(tuple(sorted(labels)), tuple(sorted(types)), node_props, rel_props)


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def vocabulary(connection: Any) -> SchemaWords:
    """The connection's schema sample as completion words; rebuilt only when the adapter re-samples."""
    graph = connection.graph
    cached = _CACHE.get(graph)
    current = sampled_schema(graph)  # the adapter's sample; None until first taken
    if cached is not None and current is not None and cached[0] is current:
        return cached[1]
    words = SchemaWords.from_schema(graph.get_structured_schema)  # bounded sample, lazily taken once
    _CACHE[graph] = (sampled_schema(graph), words)
    return words


def variable_kinds(masked_query: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Which labels each node variable and which types each relationship variable is written with."""
    nodes: dict[str, set[str]] = {}
    rels: dict[str, set[str]] = {}
    for match in _NODE_PATTERN.finditer(masked_query):
        nodes.setdefault(match.group(1), set()).update(_NAMES.findall(match.group(2)))
    for match in _REL_PATTERN.finditer(masked_query):
        rels.setdefault(match.group(1), set()).update(_NAMES.findall(match.group(2)))
    return nodes, rels


def bound_variables(masked_query: str) -> list[str]:
    found = []
    for match in _BOUND.finditer(masked_query):
        name = next(group for group in match.groups() if group)
        if name.upper() not in {"MATCH", "WHERE", "RETURN", "WITH", "AS", "SHORTEST", "ALL"} and name not in found:
            found.append(name)
    return found


# -- what to offer ----------------------------------------------------------------------------
@dataclass
class Offer:
    fragment: str
    items: list[tuple[str, str]]  # (text, type)


def _filter(fragment: str, words: list[tuple[str, str]]) -> list[tuple[str, str]]:
    low = fragment.lower()
    seen, out = set(), []
    for text, kind in words:
        if text.lower().startswith(low) and text not in seen:
            seen.add(text)
            out.append((text, kind))
    return out


def cypher_offer(before: str, query: str, words: SchemaWords, params: list[str]) -> Offer | None:
    """Completions for Cypher text ``before`` the cursor (``query`` is the whole query)."""
    read = mask(before)
    if read.open_kind is not None:
        return Offer("", [])  # inside a string, a `name` or a comment: nothing to offer
    masked = read.text
    fragment = _WORD.search(masked).group(0)
    head = masked[: len(masked) - len(fragment)]
    stripped = head.rstrip()
    last = stripped[-1:] if stripped else ""
    whole = mask(query).text
    node_vars, rel_vars = variable_kinds(whole)
    stack = open_brackets(head)
    inner = stack[-1][0] if stack else None

    if head.endswith("$"):
        used = _PARAM_USE.findall(whole)
        return Offer(fragment, _filter(fragment, [(name, "parameter") for name in [*params, *used]]))
    dotted = re.search(r"(?<![\w.])([A-Za-z_]\w*)\.$", head)
    if dotted:
        return Offer(fragment, _filter(fragment, _properties(dotted.group(1), node_vars, rel_vars, words)))
    if last in ":|&" and inner in ("(", "[", None):
        if inner == "[":
            return Offer(fragment, _filter(fragment, [(kind, "relationship type") for kind in words.types]))
        if last == ":" or inner == "(":
            return Offer(fragment, _filter(fragment, [(label, "label") for label in words.labels]))
    if inner == "{" and last in "{," and len(stack) >= 2 and stack[-2][0] in "([":
        opener, start = stack[-2]
        pattern = head[start + 1 : stack[-1][1]]
        names = _NAMES.findall(pattern.split(":", 1)[1]) if ":" in pattern else []
        table = words.node_props if opener == "(" else words.rel_props
        pool = [p for name in names for p in table.get(name, ())] if names else [p for v in table.values() for p in v]
        return Offer(fragment, _filter(fragment, [(p, "property") for p in sorted(set(pool))]))
    if re.search(r"[\w)\]}'\"]\s*$", head) and not fragment and head and not head[-1].isspace():
        return Offer("", [])  # right after a name or a closing bracket: nothing sensible to add
    items = [(name, "variable") for name in bound_variables(whole)]
    items += [(keyword, "keyword") for keyword in KEYWORDS]
    items += [(f"{name}(", "function") for name in function_names()]
    return Offer(fragment, _filter(fragment, items))


def _properties(variable, node_vars, rel_vars, words: SchemaWords) -> list[tuple[str, str]]:
    if variable in rel_vars:
        pool = [p for kind in rel_vars[variable] for p in words.rel_props.get(kind, ())]
    elif node_vars.get(variable):
        pool = [p for label in node_vars[variable] for p in words.node_props.get(label, ())]
    else:  # a variable we cannot type (WITH x AS y, UNWIND ...): every property in the sample
        pool = [p for props in (*words.node_props.values(), *words.rel_props.values()) for p in props]
    return [(p, "property") for p in sorted(set(pool))]


def option_offer(before: str, namespace: Mapping[str, Any]) -> Offer:
    """Completions on the magic's own line: options, and values for --alias/--renderer/--with/-P."""
    fragment = re.search(r"[-\w]*$", before).group(0)
    previous = before[: len(before) - len(fragment)].split()
    previous_word = previous[-1] if previous else ""
    values = {
        "--alias": [(alias, "connection") for alias in REGISTRY.connections],
        "--renderer": [(name, "renderer") for name in RENDERERS],
        "-P": [(name, "dict") for name, value in namespace.items() if isinstance(value, Mapping) and not name.startswith("_")],
    }
    values["--params"] = values["-P"]
    try:
        from ..cypher.snippets import SNIPPETS  # deferred: keeps %load_ext light

        values["--with"] = [(name, "snippet") for name in SNIPPETS]
    except ImportError:
        pass
    if previous_word in values and not fragment.startswith("-"):
        return Offer(fragment, _filter(fragment, values[previous_word]))
    parser = gcypher_parser()
    options = [(option, "option") for action in parser._actions for option in action.option_strings]
    options.sort(key=lambda item: (not item[0].startswith("--"), item[0]))
    return Offer(fragment, _filter(fragment, options))


def _param_keys(options_text: str, namespace: Mapping[str, Any]) -> list[str]:
    """Keys of the ``-P`` value when it names a dict variable or is a dict literal (never evaluated)."""
    _, value = split_params(options_text)  # the -P expression exactly as %%gcypher reads it
    if value is None:
        inline = [word.split("=", 1)[1] for word in options_text.split() if word.startswith(("-P=", "--params="))]
        if not inline:
            return []
        value = inline[0]
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    if value.isidentifier():
        found = namespace.get(value)
        return [key for key in found if isinstance(key, str)] if isinstance(found, Mapping) else []
    try:
        tree = ast.parse(value, mode="eval").body
    except SyntaxError:
        return []
    if isinstance(tree, ast.Dict):
        return [key.value for key in tree.keys if isinstance(key, ast.Constant) and isinstance(key.value, str)]
    return []


def _option_alias(options_text: str) -> str | None:
    match = re.search(r"--alias(?:=|\s+)(\S+)", options_text)
    return match.group(1) if match else None


def offer(full_text: str, offset: int, namespace: Mapping[str, Any]) -> Offer | None:
    """What to offer at ``offset`` in a cell, or None when the cursor is not in gestalt-nb Cypher."""
    before_all = full_text[:offset]
    stripped = full_text.lstrip()
    lead = len(full_text) - len(stripped)
    if stripped.startswith("%%gcypher") and stripped[9:10] in ("", " ", "\t", "\n"):
        first_end = full_text.find("\n", lead)
        first_end = len(full_text) if first_end < 0 else first_end
        options_text = full_text[lead + 9 : first_end]
        if offset <= first_end:
            return option_offer(before_all[lead + 9 :], namespace)
        query = full_text[first_end + 1 :]
        before = full_text[first_end + 1 : offset]
    else:
        line_start = before_all.rfind("\n") + 1
        line_end = full_text.find("\n", offset)
        line = full_text[line_start : len(full_text) if line_end < 0 else line_end]
        column = offset - line_start
        magic = None
        for found in _MAGIC_LINE.finditer(line):
            if found.end() <= column:
                magic = found
        if magic is None:
            return None
        rest_before = line[magic.end() : column]
        options_text, typed = split_line(rest_before)
        if not typed:
            return option_offer(rest_before, namespace)
        options_text, query = split_line(line[magic.end() :])
        before = typed
    words = SchemaWords()
    try:
        alias = _option_alias(options_text)
        if alias is not None or REGISTRY.current is not None:
            words = vocabulary(REGISTRY.get(alias))
    except Exception:  # no connection, a closed one: keywords and functions still complete
        pass
    return cypher_offer(before, query, words, _param_keys(options_text, namespace))


class CypherMatcher:
    """The IPython matcher (API v2). Inside gestalt-nb Cypher, Python completions are kept out.

    IPython lets a matcher suppress the others only when it has completions; when the cursor is in
    Cypher with nothing to offer (no labels known, inside a string), this matcher — which runs
    first — disables the other matchers for that one request and re-enables them on the next.
    """

    matcher_api_version = 2
    matcher_priority = 100
    matcher_identifier = "gestalt_nb.cypher"

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.__qualname__ = self.matcher_identifier  # IPython reads it even when an identifier is set
        self._silenced: list[str] = []

    def _restore(self, completer: Any) -> None:
        for identifier in self._silenced:
            while identifier in completer.disable_matchers:
                completer.disable_matchers.remove(identifier)
        self._silenced = []

    def _silence(self, completer: Any) -> None:
        from IPython.core.completer import _get_matcher_id

        others = [_get_matcher_id(m) for m in completer.matchers if m is not self]
        self._silenced = [i for i in others if i not in completer.disable_matchers and i != self.matcher_identifier]
        completer.disable_matchers.extend(self._silenced)

    def __call__(self, context: Any) -> dict[str, Any]:
        from IPython.core.completer import SimpleCompletion

        completer = getattr(self.shell, "Completer", None)
        try:
            if completer is not None:
                self._restore(completer)
            lines = context.full_text.split("\n")
            offset = sum(len(line) + 1 for line in lines[: context.cursor_line]) + context.cursor_position
            found = offer(context.full_text, offset, getattr(self.shell, "user_ns", {}))
            if found is not None and not found.items and completer is not None:
                self._silence(completer)
        except Exception:  # completion must never raise into the frontend
            found = None
        if found is None:
            return {"completions": [], "suppress": False}
        limit = context.limit or len(found.items)
        return {
            "completions": [SimpleCompletion(text, type=kind) for text, kind in found.items[:limit]],
            "matched_fragment": found.fragment,
            "suppress": True,
            "ordered": True,
        }


def register(shell: Any) -> None:
    """Add the matcher to the shell's completer once (re-loading the extension does not duplicate it)."""
    completer = getattr(shell, "Completer", None)
    if completer is None:
        return
    for old in [m for m in completer.custom_matchers if getattr(m, "matcher_identifier", None) == CypherMatcher.matcher_identifier]:
        if isinstance(old, CypherMatcher):
            old._restore(completer)
        completer.custom_matchers.remove(old)
    completer.custom_matchers.append(CypherMatcher(shell))
