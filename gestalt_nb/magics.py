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
from IPython.core.magic import Magics, cell_magic, line_cell_magic, line_magic, magics_class
from traitlets import Bool, Enum, Int, TraitError, Unicode, observe, validate
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
    parser.add_argument("--live", action="store_true", help="keep the result open: re-run on every change")
    parser.add_argument("--limit", type=int, help="row limit (work bound) for this cell")
    parser.add_argument("-P", "--params", help="dict expression or variable name with $parameter values")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    parser.add_argument("--renderer", choices=RENDERERS)
    parser.add_argument("--display-limit", type=int, help="rows shown in the table")
    parser.add_argument("--max-nodes", type=int, help="nodes drawn before the graph is cut")
    parser.add_argument("--max-edges", type=int, help="relationships drawn before the graph is cut")
    return parser


#: Options of %gcypher that take a value; used to find where a line magic's query begins.
_VALUE_OPTIONS = {"-o", "--out", "--limit", "-P", "--params", "--alias", "--renderer", "--display-limit", "--max-nodes", "--max-edges"}
_TOKEN = re.compile(r"""\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\{[^}]*\}|\S+)""")


def split_line(line: str) -> tuple[str, str]:
    """Split ``%gcypher [options] QUERY`` into its option text and its query text."""
    position, expecting_value = 0, False
    while True:
        match = _TOKEN.match(line, position)
        if not match:
            return line, ""
        token = match.group(1)
        if expecting_value:
            expecting_value = False
        elif token.startswith("-"):
            expecting_value = token.split("=", 1)[0] in _VALUE_OPTIONS and "=" not in token
        else:
            return line[: match.start(1)], line[match.start(1) :]
        position = match.end()


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
        if args.command == "open":
            connection = REGISTRY.open(args.path, alias=args.alias, map_size=args.map_size)
        elif args.command == "create":
            connection = REGISTRY.create(args.path, backend=args.backend, alias=args.alias, map_size=args.map_size)
        else:
            connection = REGISTRY.demo(args.path, alias=args.alias, map_size=args.map_size)
        connection.claim_writes = connection.claim_writes or args.claim_writes
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
        args = _gcypher_parser().parse_args(_words(options_text))
        params = self._params(args.params) if args.params else None
        connection = REGISTRY.get(args.alias)
        if args.live:
            return self._keep(self._live(connection, query, params, args), args.out)
        result = connection.run(query or "", params, write=args.write, limit=args.limit)
        result.view_options = {
            "renderer": args.renderer,
            "display_limit": args.display_limit,
            "max_nodes": args.max_nodes,
            "max_edges": args.max_edges,
        }
        result.view_options = {key: value for key, value in result.view_options.items() if value is not None}
        settings.with_overrides(**result.view_options)  # reject bad display options now, not at display time
        return self._keep(result, args.out)

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
    def gsubgraph(self, line: str):
        """The neighbourhood of named entities: %gsubgraph NAME [NAME ...] [--relations T,U] [--hops N] [--min-confidence X]."""
        from .names import has_index

        parser = _Parser(prog="%gsubgraph", add_help=False)
        parser.add_argument("entities", nargs="*")
        parser.add_argument("--relations", help="comma-separated relationship types to keep")
        parser.add_argument("--hops", type=int, default=1)
        parser.add_argument("--min-confidence", type=float, default=0.0)
        parser.add_argument("--max-nodes", type=int, default=500)
        parser.add_argument("--max-edges", type=int, default=2000)
        parser.add_argument("--max-fanout", type=int, default=100)
        parser.add_argument("--include-internal", action="store_true")
        parser.add_argument("--filter-during-traversal", action="store_true")
        parser.add_argument("--drop-isolated", action="store_true")
        parser.add_argument("--alias")
        parser.add_argument("-o", "--out")
        args = parser.parse_args(_words(line))
        connection = REGISTRY.get(args.alias)
        relations = [name.strip() for name in args.relations.split(",") if name.strip()] if args.relations else None
        if args.entities and not has_index(connection.db):
            print(
                "This graph has no case-insensitive name index, so names are matched as exact node ids. "
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

        parser = _Parser(prog="%%gask", add_help=False)
        parser.add_argument("--model", help="variable holding a LangChain chat model")
        parser.add_argument("--timeout", type=float, default=30.0)
        parser.add_argument("--no-cypher", action="store_true", help="never use Cypher the model proposes")
        parser.add_argument("--answer", action="store_true", help="answer from the graph (GraphRAG) beside its drawn evidence")
        parser.add_argument("--max-depth", type=int, default=2)
        parser.add_argument("--alias")
        parser.add_argument("-o", "--out")
        args = parser.parse_args(_words(line))
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
                f"-P must give a dict with string keys (got {type(value).__name__}); e.g. -P \"{{'name': 'Ada'}}\"."
            )
        return dict(value)
