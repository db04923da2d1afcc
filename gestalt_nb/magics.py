"""``%gestalt`` and ``%%gcypher``: parse arguments, call the plain Python API, return what to show.

Settings live in :data:`gestalt_nb.options.settings`; ``%config GestaltMagic.<name>`` writes there.
"""

from __future__ import annotations

import argparse
import functools
import shlex
from collections.abc import Mapping
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_cell_magic, line_magic, magics_class
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
        where = "directory to build the demo in (a temp dir when left out)" if name == "demo" else "the database directory"
        command.add_argument("path", nargs="?" if name == "demo" else None, help=where)
        command.add_argument("--alias", help="name for the connection (the directory name by default)")
        command.add_argument("--map-size", help="LMDB map size, e.g. 16GiB (GestaltMagic.map_size by default)")
        command.add_argument("--claim-writes", action="store_true", help="allow claim writes without a per-command --write")
        if name == "create":
            command.add_argument("--backend", default="lmdb", help="storage backend")
    use = sub.add_parser("use", help="borrow a GestaltDBGraph or GraphDB from your namespace (never closed here)", add_help=False)
    use.add_argument("variable", help="name of the variable holding the graph")
    use.add_argument("--alias", help="name for the connection (the variable name by default)")
    sub.add_parser("switch", help="make another open connection current", add_help=False).add_argument(
        "alias", help="the connection to make current")
    sub.add_parser("list", help="the open connections and which is current", add_help=False)
    for name, help_text in (
        ("close", "close an owned database (a borrowed one is only forgotten)"),
        ("info", "path, backend, map size and property indexes"),
        ("tools", "the tools an agent gets on this connection, with their caps"),
    ):
        sub.add_parser(name, help=help_text, add_help=False).add_argument(
            "alias", nargs="?", help="a connection (the current one when left out)")
    return parser


def _claims_parser() -> _Parser:
    parser = _Parser(prog="%claims", add_help=False)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    def command(name: str, help_text: str, *positional: tuple[str, str], horizon: bool = True, commit: bool = False) -> _Parser:
        cmd = sub.add_parser(name, help=help_text, add_help=False)
        for item, meaning in positional:
            cmd.add_argument(item, help=meaning)
        cmd.add_argument("--alias", help="connection to use instead of the current one")
        cmd.add_argument("-o", "--out", help="store the result in this variable")
        if horizon:
            cmd.add_argument("--valid-time", help="ISO-8601 time the claim must hold at (default: now)")
            cmd.add_argument("--system-time", help="ISO-8601 knowledge horizon: what was known then")
        if commit:
            cmd.add_argument("--through-commit", type=int, help="knowledge horizon as a commit number")
        return cmd

    def filters(cmd: _Parser) -> None:
        cmd.add_argument("--world", help="only claims in this world")
        cmd.add_argument("--agent", help="only claims by this agent")
        cmd.add_argument("--source", help="only claims from this source")
        cmd.add_argument("--literal", action="store_true", help="the object is a JSON literal, not an entity id")

    triple = (("subject", "subject entity id"), ("predicate", "predicate name"), ("object", "object entity id or literal"))
    filters(command("status", "four-valued status with supporting and refuting evidence", *triple, commit=True))
    search = command("search", "claims matching the filters, as a table", commit=True)
    filters(search)
    search.add_argument("--subject", help="subject entity id")
    search.add_argument("--predicate", help="predicate name")
    search.add_argument("--object", help="object entity id or literal")
    search.add_argument("--statement-id", help="one statement's id")
    search.add_argument("--polarity", choices=("positive", "negative"), help="assertions or denials only")
    command("explain", "the derivation of a claim, drawn", ("claim_id", "the claim (version) id"))
    command("history", "every version of a claim", ("claim_id", "the claim id"), horizon=False)
    write = command("assert", "assert or deny a claim (a write)", *triple, horizon=False)
    filters(write)
    write.add_argument("--polarity", choices=("positive", "negative"), help="assert (positive) or deny (negative)")
    write.add_argument("--provenance", default=None, help="JSON object saying where the claim comes from")
    write.add_argument("--confidence", type=float, help="confidence between 0 and 1")
    for name in ("correct", "retract"):
        meaning = "a corrected version of a claim (a write)" if name == "correct" else "retract a claim (a write)"
        cmd = command(name, meaning, ("claim_id", "the claim id"), horizon=False)
        cmd.add_argument("--supersedes", required=True, help="the version id being replaced")
        if name == "correct":
            cmd.add_argument("--confidence", type=float, help="confidence between 0 and 1")
            cmd.add_argument("--provenance", help="JSON object saying where the correction comes from")
        else:
            cmd.add_argument("--reason", help="why it is retracted")
    for cmd in (write, sub.choices["correct"], sub.choices["retract"]):
        cmd.add_argument("--valid-from", help="ISO-8601 start of validity")
        cmd.add_argument("--valid-to", help="ISO-8601 end of validity (open when left out)")
        cmd.add_argument("--write", action="store_true", help="required: claim writes are explicit")
    return parser


def _gsubgraph_parser() -> _Parser:
    parser = _Parser(prog="%gsubgraph", add_help=False)
    parser.add_argument("entities", nargs="*", help="names (case-insensitive, through the name index) or node ids; none: a bounded sample")
    parser.add_argument("--relations", help="comma-separated relationship types to keep")
    parser.add_argument("--hops", type=int, default=1, help="hops out from the seeds (both directions)")
    parser.add_argument("--min-confidence", type=float, default=0.0, help="keep relationships whose confidence is at least this")
    parser.add_argument("--max-nodes", type=int, default=500, help="nodes collected before the walk stops")
    parser.add_argument("--max-edges", type=int, default=2000, help="relationships kept")
    parser.add_argument("--max-fanout", type=int, default=100, help="neighbours read per node and type")
    parser.add_argument("--include-internal", action="store_true", help="also walk gestalt-nb's own nodes and relationships")
    parser.add_argument("--filter-during-traversal", action="store_true", help="apply --relations/--min-confidence while walking")
    parser.add_argument("--drop-isolated", action="store_true", help="leave out nodes with no kept relationship")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    parser.add_argument("-o", "--out", help="store the result in this variable")
    return parser


def _gmemory_parser() -> _Parser:
    parser = _Parser(prog="%gmemory", add_help=False)
    parser.add_argument("prefix", nargs="?", default="", help="namespace prefix, labels separated by / (e.g. users/42)")
    parser.add_argument("--limit", type=int, default=200, help="items shown at most")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    parser.add_argument("-o", "--out", help="store the result in this variable")
    return parser


def _gask_parser() -> _Parser:
    parser = _Parser(prog="%%gask", add_help=False)
    parser.add_argument("--model", help="variable holding a LangChain chat model (default: set_planner_model's)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds the model may take before the broad search is used")
    parser.add_argument("--no-cypher", action="store_true", help="never use Cypher the model proposes")
    parser.add_argument("--answer", action="store_true", help="answer from the graph (GraphRAG) beside its drawn evidence")
    parser.add_argument("--max-depth", type=int, default=2, help="hops from the named entities when answering")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    parser.add_argument("-o", "--out", help="store the plan (or answer) in this variable")
    return parser


@functools.lru_cache(maxsize=1)  # built once: parse_args does not change it
def _gcypher_parser() -> _Parser:
    parser = _Parser(prog="%%gcypher", add_help=False)
    parser.add_argument("-o", "--out", help="store the result in this variable")
    parser.add_argument("--write", action="store_true", help="allow CREATE/MERGE/SET/DELETE/REMOVE")
    parser.add_argument("--live", action="store_true", help="keep the result open: re-run on every change")
    parser.add_argument("--limit", type=int, help="row limit (work bound) for this cell")
    parser.add_argument("--timeout", type=float, help="seconds this cell's read may run (time budget)")
    parser.add_argument("--memory-limit", help="memory this cell's read may add, e.g. 4GiB (memory budget)")
    parser.add_argument("-P", "--params", help="dict expression or variable name with $parameter values")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    parser.add_argument("--renderer", choices=RENDERERS, help="graph renderer for this result")
    parser.add_argument("--display-limit", type=int, help="rows shown in the table")
    parser.add_argument("--max-nodes", type=int, help="nodes drawn before the graph is cut")
    parser.add_argument("--max-edges", type=int, help="relationships drawn before the graph is cut")
    parser.add_argument("--explain", action="store_true", help="show the plan, the LIMIT added and slow-shape warnings; run nothing")
    parser.add_argument("--save", metavar="NAME", help="run the cell, then keep its query as snippet NAME")
    parser.add_argument("--with", dest="with_", metavar="NAME", action="append", default=[],
                        help="compose snippet NAME in front: CALL { snippet } cell")
    return parser


def _gschema_parser() -> _Parser:
    parser = _Parser(prog="%gschema", add_help=False)
    parser.add_argument("alias", nargs="?", help="a connection (the current one when left out)")
    parser.add_argument("--refresh", action="store_true", help="re-sample the cached schema (after writes)")
    parser.add_argument("--nodes", type=int, help="nodes in the sample (adapter default 100)")
    parser.add_argument("--edges", type=int, help="relationships in the sample (adapter default 100)")
    parser.add_argument("--exhaustive", action="store_true", help="inspect every node and relationship (slow on big graphs)")
    parser.add_argument("-o", "--out", help="store the SchemaResult in this variable")
    return parser


def _gexplore_parser() -> _Parser:
    parser = _Parser(prog="%gexplore", add_help=False)
    parser.add_argument("node_id", nargs="?", help="node to start from (pick one in the widget when left out)")
    parser.add_argument("alias", nargs="?", help="a connection (the current one when left out)")
    parser.add_argument("--budget", type=int, default=200, help="nodes drawn before expansion stops")
    parser.add_argument("--sample", type=int, default=10, help="neighbours per node and type on each expansion")
    return parser


def _gretrieve_parser() -> _Parser:
    parser = _Parser(prog="%gretrieve", add_help=False)
    parser.add_argument("query", nargs="?", default="", help="the retrieval query text")
    parser.add_argument("--seed-label", help="label of the seed nodes (with --seed-property)")
    parser.add_argument("--seed-property", help="indexed property matched against the query")
    parser.add_argument("--seed-ids", help="comma-separated seed node ids")
    parser.add_argument("--hop", action="append", default=[], help="TYPE[:out|in|any[:N]], one per hop")
    parser.add_argument("--max-entities", type=int, help="entities kept in the result")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    parser.add_argument("-o", "--out", help="store the retrieval in this variable")
    return parser


def _gload_parser() -> _Parser:
    parser = _Parser(prog="%gload", add_help=False)
    parser.add_argument("kind", choices=("nodes", "edges"), help="what the rows are")
    parser.add_argument("frame", help="name of the pandas DataFrame variable")
    parser.add_argument("--id", help="column of ids (required for nodes; optional for edges)")
    parser.add_argument("--label", help="one label for every node")
    parser.add_argument("--label-column", help="column holding each node's label")
    parser.add_argument("--source", help="column of start node ids (edges)")
    parser.add_argument("--target", help="column of end node ids (edges)")
    parser.add_argument("--type", help="one relationship type for every edge")
    parser.add_argument("--type-column", help="column holding each edge's type")
    parser.add_argument("--properties", help="comma-separated columns (default: all others)")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    return parser


def _ghistory_parser() -> _Parser:
    parser = _Parser(prog="%ghistory", add_help=False)
    parser.add_argument("-o", "--out", help="store the history DataFrame in this variable")
    parser.add_argument("-n", "--last", type=int, help="only the last N queries")
    parser.add_argument("--clear", action="store_true", help="forget the history")
    return parser


def _gsnippets_parser() -> _Parser:
    parser = _Parser(prog="%gsnippets", add_help=False)
    parser.add_argument("-o", "--out", help="store the snippets DataFrame in this variable")
    parser.add_argument("--drop", metavar="NAME", help="forget snippet NAME")
    return parser


#: Options of %gcypher that take a value; used to find where a line magic's query begins.
_VALUE_OPTIONS = {option for action in _gcypher_parser()._actions if action.nargs != 0 for option in action.option_strings}
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
    renderer = Enum(RENDERERS, settings.renderer, help="Graph renderer: canvas (default), gestaltdb or pyvis.").tag(config=True)
    caption_property = Unicode(settings.caption_property, help="Node property used as caption.").tag(config=True)
    graph_height = Int(settings.graph_height, help="Graph height in pixels.").tag(config=True)
    max_nodes = Int(settings.max_nodes, help="Nodes drawn before the graph is cut.").tag(config=True)
    max_edges = Int(settings.max_edges, help="Relationships drawn before the graph is cut.").tag(config=True)
    static_max_nodes = Int(settings.static_max_nodes, help="Nodes in the static SVG kept for saved notebooks.").tag(config=True)
    json_max_chars = Int(settings.json_max_chars, help="Characters of JSON shown.").tag(config=True)
    short_errors = Bool(settings.short_errors, help="One-line errors (True) or full tracebacks.").tag(config=True)
    map_size = Unicode(settings.map_size, help="LMDB map size on create/open, e.g. 4GiB.").tag(config=True)
    warn_slow = Bool(settings.warn_slow, help="Warn (one line) before running a query with a known slow shape.").tag(config=True)
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
        from . import history, snippets

        options_text, query = (line, cell) if cell is not None else split_line(line)
        options_text, expression = split_params(options_text)
        args = _gcypher_parser().parse_args(_words(options_text))
        if args.with_:
            query = snippets.compose(query or "", args.with_)
        expression = expression if expression is not None else args.params  # -P=... / --params=...
        params = self._params(expression) if expression is not None else None
        connection = REGISTRY.get(args.alias)
        if args.explain:
            if args.save:
                raise GestaltError("--save keeps a query that ran; --explain runs nothing. Drop one of them.")
            from .query_plan import explain

            return self._keep(explain(connection, query or "", params, limit=args.limit, write=args.write), args.out)
        if args.live:
            return self._keep(self._live(connection, query, params, args), args.out)
        if settings.warn_slow:
            from .query_plan import slow_warning

            warning = slow_warning(connection, query or "", limit=args.limit)
            if warning:
                print(warning)
        try:
            result = connection.run(
                query or "", params, write=args.write, limit=args.limit, timeout=args.timeout, memory_limit=args.memory_limit
            )
        except GestaltError as exc:
            history.record_failure(connection.alias, query or "", exc, write=args.write)
            raise
        history.record(result)
        result.view_options = {
            "renderer": args.renderer,
            "display_limit": args.display_limit,
            "max_nodes": args.max_nodes,
            "max_edges": args.max_edges,
        }
        result.view_options = {key: value for key, value in result.view_options.items() if value is not None}
        result.params_source = expression
        settings.with_overrides(**result.view_options)  # reject bad display options now, not at display time
        if args.save:
            snippets.save(args.save, query, result.columns, connection.alias)
        return self._keep(result, args.out)

    # -- %ghistory, %gsnippets ------------------------------------------------------
    @line_magic
    @_user_errors
    def ghistory(self, line: str):
        """The queries this kernel ran."""
        from . import history

        args = _ghistory_parser().parse_args(_words(line))
        if args.clear:
            history.clear()
            print("History cleared.")
            return None
        if args.last is not None and args.last < 1:
            raise GestaltError(f"-n must be a positive whole number, not {args.last}.")
        frame = history.frame(args.last)
        if args.out:
            self._store(args.out, frame)
        return frame

    @line_magic
    @_user_errors
    def gsnippets(self, line: str):
        """The saved query snippets."""
        from . import snippets

        args = _gsnippets_parser().parse_args(_words(line))
        if args.drop:
            snippets.drop(args.drop)
            print(f"Dropped snippet '{args.drop}'.")
            return None
        frame = snippets.frame()
        if args.out:
            self._store(args.out, frame)
        if frame.empty:
            print("No snippets yet. Save one with %%gcypher --save NAME, use it with %%gcypher --with NAME.")
            return None
        return frame

    def _live(self, connection: Any, query: str | None, params: Any, args: argparse.Namespace):
        from .live_result import Live

        if args.write:
            raise GestaltError("--live and --write do not mix: a live view only reads. Run the write in its own cell.")
        options = {"renderer": args.renderer, "max_nodes": args.max_nodes, "max_edges": args.max_edges}
        options = {key: value for key, value in options.items() if value is not None}
        settings.with_overrides(**options)
        return Live(connection, query or "", params, limit=args.limit, view_options=options)

    # -- %gschema, %gexplore, %gretrieve ------------------------------------------
    @line_magic
    @_user_errors
    def gschema(self, line: str):
        """Show the schema sample: meta-graph, labels, relationship types, indexes."""
        parser = _gschema_parser()
        args = parser.parse_args(_words(line))
        result = REGISTRY.get(args.alias).schema(refresh=args.refresh, nodes=args.nodes, edges=args.edges, exhaustive=args.exhaustive)
        return self._keep(result, args.out)

    @line_magic
    @_user_errors
    def gexplore(self, line: str):
        """Open the neighbourhood explorer, optionally starting at NODE_ID."""
        from .explorer import Explorer
        from .views.explorer_view import ExplorerView

        parser = _gexplore_parser()
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

        parser = _gretrieve_parser()
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
    def gsubgraph(self, line: str):
        """The neighbourhood of named entities: %gsubgraph NAME [NAME ...] [--relations T,U] [--hops N] [--min-confidence X]."""
        from .names import has_index

        args = _gsubgraph_parser().parse_args(_words(line))
        connection = REGISTRY.get(args.alias)
        relations = [name.strip() for name in args.relations.split(",") if name.strip()] if args.relations else None
        if args.entities and not has_index(connection.db):
            print(
                "This graph has no case-insensitive name index, so names are matched exactly (as node ids, or through a 'name' index). "
                "Build it once (one transaction) with gestalt_nb.connection().index_names()."
            )
        result = connection.subgraph(
            args.entities or None, relations, args.min_confidence, args.hops, max_nodes=args.max_nodes,
            max_edges=args.max_edges, max_fanout=args.max_fanout, include_internal=args.include_internal,
            filter_during_traversal=args.filter_during_traversal, drop_isolated=args.drop_isolated,
        )
        return self._keep(result, args.out)

    @cell_magic
    @_user_errors
    def gask(self, line: str, cell: str):
        """A question in words: plan it with a chat model, show the plan and the drawn result. %%gask [--model VAR] [--answer]."""
        import gestalt_nb

        args = _gask_parser().parse_args(_words(line))
        model = self._evaluate(args.model, "%%gask --model") if args.model else None
        if args.answer:
            if model is None:
                raise GestaltError("%%gask --answer needs --model VAR (a LangChain chat model).")
            return self._keep(gestalt_nb.answer(cell, model, max_depth=args.max_depth, alias=args.alias), args.out)
        plan = gestalt_nb.plan(cell, model, alias=args.alias, timeout=args.timeout, allow_cypher=not args.no_cypher)
        plan.execute()
        return self._keep(plan, args.out)

    @line_magic
    @_user_errors
    def gload(self, line: str):
        """Load a DataFrame: %gload nodes VAR --id COL (--label L | --label-column C) | %gload edges VAR ..."""
        from . import loading

        parser = _gload_parser()
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
    def gmemory(self, line: str):
        """Show agent memory: %gmemory [PREFIX] (labels separated by /) [--limit N] [--alias A] [-o VAR]."""
        from .memory_result import browse, parse_prefix

        args = _gmemory_parser().parse_args(_words(line))
        result = browse(REGISTRY.get(args.alias), parse_prefix(args.prefix), limit=args.limit)
        return self._keep(result, args.out)

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
            self._store(out, result)
        return result

    def _store(self, out: str, value: Any) -> None:
        if not out.isidentifier():
            raise GestaltError(f"-o needs a Python variable name, not {out!r}.")
        self.shell.user_ns[out] = value

    def _params(self, expression: str) -> dict[str, Any]:
        value = self._evaluate(expression, "-P")
        if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
            raise GestaltError(
                f"-P must give a dict with string keys; {expression} gave a {type(value).__name__}. "
                f"E.g. -P {{'name': 'Ada'}} or -P NAME_OF_A_DICT."
            )
        return dict(value)


#: (magic, parser, what it does, one example, usage override) — the source of every ``%magic?`` page.
HELP = (
    ("gestalt", _gestalt_parser, "Manage GestaltDB connections; the newest one is current.",
     "%gestalt demo\n%gestalt open ./graph --map-size 16GiB --alias g", None),
    ("gcypher", _gcypher_parser,
     "Run Cypher on the current connection: read-only unless --write, at most --limit rows (a LIMIT is pushed "
     "into reads), shown as Graph | Table | JSON | Info. Tab completes labels, relationship types, properties, "
     "$parameters and options from the schema sample.",
     "%%gcypher -o people --limit 50\nMATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c",
     "%%gcypher [options]  +  Cypher in the cell body   |   %gcypher [options] QUERY"),
    ("gschema", _gschema_parser, "Show the schema sample: meta-graph, labels, relationship types, indexes.",
     "%gschema --nodes 1000 -o schema", None),
    ("gexplore", _gexplore_parser, "Open the neighbourhood explorer, optionally starting at NODE_ID.",
     "%gexplore alice --budget 100 --sample 5", None),
    ("gretrieve", _gretrieve_parser, "Run a GestaltDBRetriever and draw its paths from the seeds.",
     "%gretrieve 'who works with Alice' --seed-ids alice --hop KNOWS:out --hop WORKS_FOR", None),
    ("gload", _gload_parser, "Load a pandas DataFrame as nodes or relationships, in one transaction.",
     "%gload nodes people --id pid --label Person --properties name,age", None),
    ("claims", _claims_parser, "Sourced, bitemporal claims: read them, and write them only with --write.",
     "%claims status alice works_at acme --valid-time 2024-06-01T00:00:00Z", None),
    ("ghistory", _ghistory_parser, "The queries this kernel ran: text, connection, rows, time, truncated, errors.",
     "%ghistory -n 10 -o runs", None),
    ("gsnippets", _gsnippets_parser, "The query snippets saved with %%gcypher --save NAME (used with --with NAME).",
     "%gsnippets\n%gsnippets --drop people", None),
    ("gsubgraph", _gsubgraph_parser, "The bounded neighbourhood of named entities, over typed adjacency in both directions.",
     "%gsubgraph 'Alice Chen' bob --hops 2 --relations KNOWS,WORKS_FOR", None),
    ("gask", _gask_parser, "A question in words: a chat model plans it (or, with --answer, answers from the graph); the plan and the drawn result.",
     "%%gask --model llm\nWho does Carla Ruiz know?", "%%gask [options]  +  the question in the cell body"),
    ("gmemory", _gmemory_parser, "Agent memory kept in this graph (GestaltStore): the namespace tree and its items.",
     "%gmemory users/42", None),
)


def _document() -> None:
    from .magic_help import document

    for name, parser, summary, example, usage in HELP:
        document(getattr(GestaltMagic, name), parser(), summary, example, usage)


_document()
