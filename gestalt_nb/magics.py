"""``%gestalt`` and ``%%gcypher``: parse arguments, call the plain Python API, return what to show.

Settings live in :data:`gestalt_nb.options.settings`; ``%config GestaltMagic.<name>`` writes there.
"""

from __future__ import annotations

import argparse
import functools
import re
import shlex
from collections.abc import Mapping
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from traitlets import Bool, Enum, Float, Int, TraitError, Unicode, observe, validate
from traitlets.config import Configurable

from .errors import GestaltError
from .options import RENDERERS, SETTING_NAMES, settings
from .session import REGISTRY


class _Parser(argparse.ArgumentParser):
    """argparse that reports problems as GestaltError instead of exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise GestaltError(f"{message}\n{self.format_usage().strip()}")

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        raise GestaltError(message or self.format_help())


def _user_errors(method):
    """Show GestaltError as a one-line UsageError (no traceback) when short_errors is on."""

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except GestaltError as exc:
            if settings.short_errors:
                raise UsageError(str(exc)) from None
            raise

    return wrapper


def _words(line: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise GestaltError(f"Cannot read the arguments: {exc}.") from exc


def _gestalt_parser() -> _Parser:
    parser = _Parser(prog="%gestalt", add_help=False)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    for name, help_text in (
        ("open", "open an existing database directory"),
        ("create", "create a new database directory"),
        ("demo", "build (or reopen) the bundled demo graph"),
    ):
        command = sub.add_parser(name, help=help_text, add_help=False)
        command.add_argument("path", nargs="?" if name == "demo" else None)
        command.add_argument("--alias")
        command.add_argument("--map-size")
        command.add_argument("--claim-writes", action="store_true", help="allow %%claims writes without --write")
        if name == "create":
            command.add_argument("--backend", default="lmdb")
    use = sub.add_parser("use", add_help=False)
    use.add_argument("variable")
    use.add_argument("--alias")
    sub.add_parser("switch", add_help=False).add_argument("alias")
    sub.add_parser("list", add_help=False)
    sub.add_parser("close", add_help=False).add_argument("alias", nargs="?")
    sub.add_parser("info", add_help=False).add_argument("alias", nargs="?")
    sub.add_parser("tools", add_help=False).add_argument("alias", nargs="?")
    return parser


def _claims_parser() -> _Parser:
    parser = _Parser(prog="%claims", add_help=False)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    def command(name: str, *positional: str, horizon: bool = True, commit: bool = False) -> _Parser:
        cmd = sub.add_parser(name, add_help=False)
        for item in positional:
            cmd.add_argument(item)
        cmd.add_argument("--alias")
        cmd.add_argument("-o", "--out")
        if horizon:
            cmd.add_argument("--valid-time")
            cmd.add_argument("--system-time")
        if commit:
            cmd.add_argument("--through-commit", type=int)
        return cmd

    def filters(cmd: _Parser) -> None:
        for option in ("--world", "--agent", "--source"):
            cmd.add_argument(option)
        cmd.add_argument("--literal", action="store_true", help="the object is a JSON literal, not an entity id")

    filters(command("status", "subject", "predicate", "object", commit=True))
    search = command("search", commit=True)
    filters(search)
    for option in ("--subject", "--predicate", "--object", "--statement-id"):
        search.add_argument(option)
    search.add_argument("--polarity", choices=("positive", "negative"))
    command("explain", "claim_id")
    command("history", "claim_id", horizon=False)
    write = command("assert", "subject", "predicate", "object", horizon=False)
    filters(write)
    write.add_argument("--polarity", choices=("positive", "negative"))
    write.add_argument("--provenance", default=None)
    write.add_argument("--confidence", type=float)
    for name in ("correct", "retract"):
        cmd = command(name, "claim_id", horizon=False)
        cmd.add_argument("--supersedes", required=True)
        if name == "correct":
            cmd.add_argument("--confidence", type=float)
            cmd.add_argument("--provenance")
        else:
            cmd.add_argument("--reason")
    for cmd in (write, sub.choices["correct"], sub.choices["retract"]):
        cmd.add_argument("--valid-from")
        cmd.add_argument("--valid-to")
        cmd.add_argument("--write", action="store_true", help="required: claim writes are explicit")
    return parser


def _gcypher_parser() -> _Parser:
    parser = _Parser(prog="%%gcypher", add_help=False)
    parser.add_argument("-o", "--out", help="store the result in this variable")
    parser.add_argument("--write", action="store_true", help="allow CREATE/MERGE/SET/DELETE/REMOVE")
    parser.add_argument("--limit", type=int, help="row limit (work bound) for this cell")
    parser.add_argument("--timeout", type=float, help="seconds this cell's read may run (time budget)")
    parser.add_argument("--memory-limit", help="memory this cell's read may add, e.g. 4GiB (memory budget)")
    parser.add_argument("-P", "--params", help="dict expression or variable name with $parameter values")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    parser.add_argument("--renderer", choices=RENDERERS)
    parser.add_argument("--display-limit", type=int, help="rows shown in the table")
    parser.add_argument("--max-nodes", type=int, help="nodes drawn before the graph is cut")
    parser.add_argument("--max-edges", type=int, help="relationships drawn before the graph is cut")
    return parser


#: Options of %gcypher that take a value; used to find where a line magic's query begins.
_VALUE_OPTIONS = {"-o", "--out", "--limit", "--timeout", "--memory-limit", "-P", "--params", "--alias", "--renderer", "--display-limit", "--max-nodes", "--max-edges"}
_PARAMS = ("-P", "--params")
_CLOSING = {"(": ")", "[": "]", "{": "}"}


def _token_end(text: str, start: int, *, expression: bool = False) -> int:
    """Where the token starting at ``start`` ends.

    A shell word ends at whitespace outside quotes. An ``expression`` (the ``-P`` value) is taken
    verbatim: brackets and string literals nest, so ``{'a': {'b': 1}}`` or ``dict(a=1, b=2)`` is one
    value; it ends at the first whitespace outside them (a bare variable name ends at whitespace).
    """
    depth, position = 0, start
    while position < len(text):
        char = text[position]
        if char in "'\"":
            position += 1
            while position < len(text) and text[position] != char:
                position += 2 if text[position] == "\\" and expression else 1
            position += 1
            continue
        if expression and char in _CLOSING:
            depth += 1
        elif expression and char in ")]}":
            depth -= 1
        elif char.isspace() and depth <= 0:
            break
        position += 1
    return min(position, len(text))


def _tokens(text: str):
    """(start, end, is_params_value) for each word of an option line, reading -P values verbatim."""
    position, params_next = 0, False
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return
        end = _token_end(text, position, expression=params_next)
        yield position, end, params_next
        word = text[position:end]
        params_next = word in _PARAMS
        position = end


def split_params(options: str) -> tuple[str, str | None]:
    """Take the ``-P`` expression out of an option line verbatim: (the other options, the expression)."""
    for start, end, is_value in _tokens(options):
        if not is_value:
            continue
        expression = options[start:end]
        if expression[:1] in "'\"" and _token_end(expression, 0) == len(expression):
            expression = shlex.split(expression)[0]  # the quoted form -P "{'name': 'Ada'}" still works
        flag = options.rfind("-", 0, start)
        flag = options.rfind(" ", 0, flag) + 1
        return options[:flag] + options[end:], expression
    return options, None


def split_line(line: str) -> tuple[str, str]:
    """Split ``%gcypher [options] QUERY`` into its option text and its query text."""
    expecting_value = False
    for start, end, is_value in _tokens(line):
        token = line[start:end]
        if expecting_value or is_value:
            expecting_value = False
        elif token.startswith("-"):
            expecting_value = token.split("=", 1)[0] in _VALUE_OPTIONS and "=" not in token and token not in _PARAMS
        else:
            return line[:start], line[start:]
    return line, ""


@magics_class
class GestaltMagic(Magics, Configurable):
    """Magics for GestaltDB. Configure with ``%config GestaltMagic.<name> = value``."""

    row_limit = Int(settings.row_limit, help="Rows a query may return before it is cut (work bound).").tag(config=True)
    display_limit = Int(settings.display_limit, help="Rows shown in tables (display bound).").tag(config=True)
    renderer = Enum(RENDERERS, settings.renderer, help="Graph renderer: gestaltdb (default) or pyvis.").tag(config=True)
    caption_property = Unicode(settings.caption_property, help="Node property used as caption.").tag(config=True)
    graph_height = Int(settings.graph_height, help="Graph height in pixels.").tag(config=True)
    max_nodes = Int(settings.max_nodes, help="Nodes drawn before the graph is cut.").tag(config=True)
    max_edges = Int(settings.max_edges, help="Relationships drawn before the graph is cut.").tag(config=True)
    static_max_nodes = Int(settings.static_max_nodes, help="Nodes in the static SVG kept for saved notebooks.").tag(config=True)
    json_max_chars = Int(settings.json_max_chars, help="Characters of JSON shown.").tag(config=True)
    short_errors = Bool(settings.short_errors, help="One-line errors (True) or full tracebacks.").tag(config=True)
    map_size = Unicode(settings.map_size, help="LMDB map size on create/open, e.g. 4GiB.").tag(config=True)
    timeout = Float(settings.timeout, help="Seconds a cell's read may run before it is stopped.").tag(config=True)
    memory_limit = Unicode(settings.memory_limit, help="Memory a cell's read may add to the process, e.g. 2GiB.").tag(config=True)
    tool_timeout = Float(settings.tool_timeout, help="Seconds an agent's query tool call may run.").tag(config=True)
    tool_memory_limit = Unicode(settings.tool_memory_limit, help="Memory an agent's query tool call may add, e.g. 512MiB.").tag(config=True)

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        Configurable.__init__(self, config=shell.config if shell is not None else None)
        Magics.__init__(self, shell=shell)
        for name in self.trait_names(config=True):
            setattr(settings, name, getattr(self, name))

    @validate(*SETTING_NAMES)
    def _check(self, proposal: Mapping[str, Any]) -> Any:
        """Reject a bad value before it is set, so the trait and the settings never disagree."""
        name = proposal["trait"].name
        try:
            settings.with_overrides(**{name: proposal["value"]})
        except GestaltError as exc:
            raise TraitError(str(exc)) from None
        return proposal["value"]

    @observe(*SETTING_NAMES)
    def _sync(self, change: Mapping[str, Any]) -> None:
        setattr(settings, change["name"], change["new"])

    # -- %gestalt -----------------------------------------------------------
    @line_magic
    @_user_errors
    def gestalt(self, line: str):
        """Manage connections: open | create | demo | use | switch | list | close | info | tools."""
        words = _words(line)
        if not words:
            return self._list()
        args = _gestalt_parser().parse_args(words)
        if args.command in ("open", "create", "demo"):
            return self._connect(args)
        if args.command == "use":
            value = self._evaluate(args.variable, "%gestalt use")
            connection = REGISTRY.use(value, alias=args.alias or args.variable)
            print(f"Using '{connection.alias}' (borrowed: never closed by gestalt-nb); it is the current connection.")
        elif args.command == "switch":
            print(f"Current connection: '{REGISTRY.switch(args.alias).alias}'.")
        elif args.command == "list":
            return self._list()
        elif args.command == "close":
            connection = REGISTRY.close(args.alias)
            what = "Closed" if connection.owned else "Forgot (still open for its owner)"
            current = f" Current connection: '{REGISTRY.current}'." if REGISTRY.current else ""
            print(f"{what} '{connection.alias}'.{current}")
        elif args.command == "tools":
            from .handoff import describe

            return describe(REGISTRY.get(args.alias).agent_tools())
        elif args.command == "info":
            for key, value in REGISTRY.get(args.alias).info().items():
                print(f"{key:>12}: {value}")
        return None

    def _connect(self, args: argparse.Namespace) -> None:
        before = set(REGISTRY.connections)
        if args.command == "open":
            connection = REGISTRY.open(args.path, alias=args.alias, map_size=args.map_size)
        elif args.command == "create":
            connection = REGISTRY.create(args.path, backend=args.backend, alias=args.alias, map_size=args.map_size)
        else:
            connection = REGISTRY.demo(args.path, alias=args.alias, map_size=args.map_size)
        connection.claim_writes = connection.claim_writes or args.claim_writes
        if connection.alias in before:
            print(f"Already open: '{connection.alias}' at {connection.path}; it is the current connection.")
            return
        print(f"Connected '{connection.alias}' ({connection.info()['backend']}) at {connection.path}; it is the current connection.")

    def _list(self):
        import pandas as pd

        rows = [
            {"alias": alias, "current": alias == REGISTRY.current, "path": str(c.path or ""), "owned": c.owned}
            for alias, c in REGISTRY.connections.items()
        ]
        if not rows:
            print("No open connections. Try %gestalt demo, %gestalt open PATH or %gestalt create PATH.")
            return None
        return pd.DataFrame(rows)

    def _evaluate(self, expression: str, where: str) -> Any:
        try:
            return eval(expression, self.shell.user_ns)  # noqa: S307 - the user's own namespace, on request
        except Exception as exc:
            raise GestaltError(f"{where}: cannot evaluate {expression!r}: {type(exc).__name__}: {exc}") from exc

    # -- %%gcypher ----------------------------------------------------------
    @line_cell_magic
    @_user_errors
    def gcypher(self, line: str, cell: str | None = None):
        """Run Cypher: read-only unless --write, at most --limit rows, shown as graph/table/JSON/info."""
        options_text, query = (line, cell) if cell is not None else split_line(line)
        options_text, expression = split_params(options_text)
        args = _gcypher_parser().parse_args(_words(options_text))
        expression = expression if expression is not None else args.params  # -P=... / --params=...
        params = self._params(expression) if expression is not None else None
        connection = REGISTRY.get(args.alias)
        result = connection.run(
            query or "", params, write=args.write, limit=args.limit, timeout=args.timeout, memory_limit=args.memory_limit
        )
        result.view_options = {
            "renderer": args.renderer,
            "display_limit": args.display_limit,
            "max_nodes": args.max_nodes,
            "max_edges": args.max_edges,
        }
        result.view_options = {key: value for key, value in result.view_options.items() if value is not None}
        result.params_source = expression
        settings.with_overrides(**result.view_options)  # reject bad display options now, not at display time
        return self._keep(result, args.out)

    # -- %gschema, %gexplore, %gretrieve ------------------------------------------
    @line_magic
    @_user_errors
    def gschema(self, line: str):
        """Show the schema sample: meta-graph, labels, relationship types, indexes."""
        parser = _Parser(prog="%gschema", add_help=False)
        parser.add_argument("alias", nargs="?")
        parser.add_argument("--refresh", action="store_true")
        parser.add_argument("--nodes", type=int)
        parser.add_argument("--edges", type=int)
        parser.add_argument("--exhaustive", action="store_true")
        parser.add_argument("-o", "--out")
        args = parser.parse_args(_words(line))
        result = REGISTRY.get(args.alias).schema(refresh=args.refresh, nodes=args.nodes, edges=args.edges, exhaustive=args.exhaustive)
        return self._keep(result, args.out)

    @line_magic
    @_user_errors
    def gexplore(self, line: str):
        """Open the neighbourhood explorer, optionally starting at NODE_ID."""
        from .explorer import Explorer
        from .views.explorer_view import ExplorerView

        parser = _Parser(prog="%gexplore", add_help=False)
        parser.add_argument("node_id", nargs="?")
        parser.add_argument("alias", nargs="?")
        parser.add_argument("--budget", type=int, default=200)
        parser.add_argument("--sample", type=int, default=10)
        args = parser.parse_args(_words(line))
        explorer = Explorer(REGISTRY.get(args.alias), node_budget=args.budget, sample_size=args.sample)
        if args.node_id:
            explorer.start(args.node_id)
        return ExplorerView(explorer)

    @line_magic
    @_user_errors
    def gretrieve(self, line: str):
        """Run a GestaltDBRetriever and draw its paths from the seeds."""
        from .retrieval import parse_hop, retrieve

        parser = _Parser(prog="%gretrieve", add_help=False)
        parser.add_argument("query", nargs="?", default="")
        parser.add_argument("--seed-label")
        parser.add_argument("--seed-property")
        parser.add_argument("--seed-ids")
        parser.add_argument("--hop", action="append", default=[])
        parser.add_argument("--max-entities", type=int)
        parser.add_argument("--alias")
        parser.add_argument("-o", "--out")
        args = parser.parse_args(_words(line))
        connection = REGISTRY.get(args.alias)
        options: dict[str, Any] = {"hops": tuple(parse_hop(hop) for hop in args.hop)}
        if args.seed_ids:
            options["seed_ids"] = tuple(seed.strip() for seed in args.seed_ids.split(",") if seed.strip())
        if args.seed_label or args.seed_property:
            options.update(seed_label=args.seed_label, seed_property=args.seed_property)
        if args.max_entities:
            options["max_entities"] = args.max_entities
        if not args.seed_ids and not args.seed_label:
            raise GestaltError("Say how to find seeds: --seed-ids a,b or --seed-label L --seed-property P.")
        result = retrieve(connection, connection.retriever(**options), args.query)
        return self._keep(result, args.out)

    @line_magic
    @_user_errors
    def gload(self, line: str):
        """Load a DataFrame: %gload nodes VAR --id COL (--label L | --label-column C) | %gload edges VAR ..."""
        from . import loading

        parser = _Parser(prog="%gload", add_help=False)
        parser.add_argument("kind", choices=("nodes", "edges"))
        parser.add_argument("frame")
        parser.add_argument("--id")
        parser.add_argument("--label")
        parser.add_argument("--label-column")
        parser.add_argument("--source")
        parser.add_argument("--target")
        parser.add_argument("--type")
        parser.add_argument("--type-column")
        parser.add_argument("--properties", help="comma-separated columns (default: all others)")
        parser.add_argument("--alias")
        args = parser.parse_args(_words(line))
        frame = self._evaluate(args.frame, "%gload")
        if not hasattr(frame, "to_dict") or not hasattr(frame, "columns"):
            raise GestaltError(f"%gload needs a pandas DataFrame; {args.frame} is a {type(frame).__name__}.")
        properties = [name.strip() for name in args.properties.split(",") if name.strip()] if args.properties else None
        connection = REGISTRY.get(args.alias)
        if args.kind == "nodes":
            if not args.id:
                raise GestaltError("%gload nodes needs --id COLUMN.")
            return loading.load_nodes(connection, frame, id=args.id, label=args.label, label_column=args.label_column, properties=properties)
        if not args.source or not args.target:
            raise GestaltError("%gload edges needs --source COLUMN and --target COLUMN.")
        return loading.load_edges(
            connection, frame, source=args.source, target=args.target, type=args.type,
            type_column=args.type_column, id=args.id, properties=properties,
        )

    @line_magic
    @_user_errors
    def claims(self, line: str):
        """Claims: status | search | explain | history | assert | correct | retract (writes need --write)."""
        args = _claims_parser().parse_args(_words(line))
        if args.command is None:
            raise GestaltError("Say what to do: %claims status|search|explain|history|assert|correct|retract ...")
        api = REGISTRY.get(args.alias).claims()
        horizon = {"valid_time": getattr(args, "valid_time", None), "system_time": getattr(args, "system_time", None)}
        if args.command == "status":
            result = api.status(args.subject, args.predicate, args.object, literal=args.literal, world=args.world,
                                agent=args.agent, source=args.source, through_commit=args.through_commit, **horizon)
        elif args.command == "search":
            result = api.search(subject=args.subject, predicate=args.predicate, object=args.object, literal=args.literal,
                                agent=args.agent, source=args.source, world=args.world, polarity=args.polarity,
                                statement_id=args.statement_id, through_commit=args.through_commit, **horizon)
        elif args.command == "explain":
            result = api.explain(args.claim_id, **horizon)
        elif args.command == "history":
            result = api.history(args.claim_id)
        elif args.command == "assert":
            result = api.assert_claim(args.subject, args.predicate, args.object, polarity=args.polarity, agent=args.agent,
                                      provenance=args.provenance, valid_from=args.valid_from, valid_to=args.valid_to,
                                      source=args.source, confidence=args.confidence, world=args.world or "default",
                                      literal=args.literal, write=args.write)
        elif args.command == "correct":
            result = api.correct(args.claim_id, supersedes=args.supersedes, confidence=args.confidence,
                                 provenance=args.provenance, valid_from=args.valid_from, valid_to=args.valid_to, write=args.write)
        else:
            result = api.retract(args.claim_id, supersedes=args.supersedes, reason=args.reason,
                                 valid_from=args.valid_from, valid_to=args.valid_to, write=args.write)
        return self._keep(result, args.out)

    def _keep(self, result: Any, out: str | None) -> Any:
        REGISTRY.last_result = result
        if out:
            if not out.isidentifier():
                raise GestaltError(f"-o needs a Python variable name, not {out!r}.")
            self.shell.user_ns[out] = result
        return result

    def _params(self, expression: str) -> dict[str, Any]:
        value = self._evaluate(expression, "-P")
        if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
            raise GestaltError(
                f"-P must give a dict with string keys; {expression} gave a {type(value).__name__}. "
                f"E.g. -P {{'name': 'Ada'}} or -P NAME_OF_A_DICT."
            )
        return dict(value)
