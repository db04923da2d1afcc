"""``%gschema``, ``%gexplore``, ``%gretrieve`` and ``%gsubgraph``: the graph's shape and neighbourhoods."""

from __future__ import annotations

from typing import Any

from IPython.core.magic import line_magic, magics_class

from ..errors import GestaltError
from ..options import Colour
from ..session import REGISTRY
from .common import MagicBase, Parser, user_errors, words


def gschema_parser() -> Parser:
    parser = Parser(prog="%gschema", add_help=False)
    parser.add_argument("alias", nargs="?", help="a connection (the current one when left out)")
    parser.add_argument("--refresh", action="store_true", help="re-sample the cached schema (after writes)")
    parser.add_argument("--nodes", type=int, help="nodes in the sample (adapter default 100)")
    parser.add_argument("--edges", type=int, help="relationships in the sample (adapter default 100)")
    parser.add_argument("--exhaustive", action="store_true", help="inspect every node and relationship (slow on big graphs)")
    parser.add_argument("-o", "--out", help="store the SchemaResult in this variable")
    return parser


def gexplore_parser() -> Parser:
    parser = Parser(prog="%gexplore", add_help=False)
    parser.add_argument("node_id", nargs="?", help="node to start from (pick one in the widget when left out)")
    parser.add_argument("alias", nargs="?", help="a connection (the current one when left out)")
    parser.add_argument("--budget", type=int, default=200, help="nodes drawn before expansion stops")
    parser.add_argument("--sample", type=int, default=10, help="neighbours per node and type on each expansion")
    return parser


def gretrieve_parser() -> Parser:
    parser = Parser(prog="%gretrieve", add_help=False)
    parser.add_argument("query", nargs="?", default="", help="the retrieval query text")
    parser.add_argument("--seed-label", help="label of the seed nodes (with --seed-property)")
    parser.add_argument("--seed-property", help="indexed property matched against the query")
    parser.add_argument("--seed-ids", help="comma-separated seed node ids")
    parser.add_argument("--hop", action="append", default=[], help="TYPE[:out|in|any[:N]], one per hop")
    parser.add_argument("--max-entities", type=int, help="entities kept in the result")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    parser.add_argument("-o", "--out", help="store the retrieval in this variable")
    return parser


def gsubgraph_parser() -> Parser:
    parser = Parser(prog="%gsubgraph", add_help=False)
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


def goverview_parser() -> Parser:
    parser = Parser(prog="%goverview", add_help=False)
    parser.add_argument("--by", default="community", help="community (Leiden), label (one group per label set) or a property name")
    parser.add_argument("--labels", help="comma-separated labels: only nodes with one of them")
    parser.add_argument("--types", help="comma-separated relationship types: only these")
    parser.add_argument("--resolution", type=float, default=1.0, help="Leiden resolution: higher gives more, smaller communities")
    parser.add_argument("--max-groups", type=int, default=300, help="groups drawn; the smallest past it are merged into \"other\"")
    parser.add_argument("--color", help="super-node colour: label (their most common label) or group (one colour each); default: label where labels tell the groups apart, else group")
    parser.add_argument("--timeout", type=float, help="seconds the overview may take (default: %config GestaltMagic.timeout)")
    parser.add_argument("--memory-limit", help="memory it may add, e.g. 2GiB (default: %config GestaltMagic.memory_limit)")
    parser.add_argument("--as-of", metavar="WHEN", help="group the graph as it was valid at WHEN (a date, datetime or epoch seconds), from its history")
    parser.add_argument("--known-at", metavar="WHEN", help="as it was recorded by WHEN (default: now)")
    parser.add_argument("--since", metavar="WHEN", help="each group's growth since WHEN (members before, after, added, removed)")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    parser.add_argument("-o", "--out", help="store the OverviewResult in this variable")
    return parser


def _names(text: str | None) -> list[str] | None:
    return [name.strip() for name in text.split(",") if name.strip()] if text else None


@magics_class
class GraphMagics(MagicBase):
    """``%gschema``, ``%gexplore``, ``%gretrieve``, ``%gsubgraph``."""

    # -- %gschema, %gexplore, %gretrieve ------------------------------------------
    @line_magic
    @user_errors
    def gschema(self, line: str):
        """Show the schema sample: meta-graph, labels, relationship types, indexes."""
        parser = gschema_parser()
        args = parser.parse_args(words(line))
        result = REGISTRY.get(args.alias).schema(refresh=args.refresh, nodes=args.nodes, edges=args.edges, exhaustive=args.exhaustive)
        return self._keep(result, args.out)

    @line_magic
    @user_errors
    def gexplore(self, line: str):
        """Open the neighbourhood explorer, optionally starting at NODE_ID."""
        from ..graph.explorer import Explorer  # deferred: keeps %load_ext light
        from ..views.explorer_view import ExplorerView  # deferred: keeps %load_ext light

        parser = gexplore_parser()
        args = parser.parse_args(words(line))
        explorer = Explorer(REGISTRY.get(args.alias), node_budget=args.budget, sample_size=args.sample)
        if args.node_id:
            explorer.start(args.node_id)
        return ExplorerView(explorer)

    @line_magic
    @user_errors
    def gretrieve(self, line: str):
        """Run a GestaltDBRetriever and draw its paths from the seeds."""
        from ..graph.retrieval import parse_hop, retrieve  # deferred: keeps %load_ext light

        parser = gretrieve_parser()
        args = parser.parse_args(words(line))
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
    @user_errors
    def goverview(self, line: str):
        """The whole graph seen as groups, drawn as super-nodes; double-click one to drill in."""
        args = goverview_parser().parse_args(words(line))
        if args.color not in (None, "label", "group"):
            raise GestaltError(f"--color is label or group, not {args.color!r}.")
        result = REGISTRY.get(args.alias).overview(
            args.by, labels=_names(args.labels), types=_names(args.types), resolution=args.resolution,
            max_groups=args.max_groups, timeout=args.timeout, memory_limit=args.memory_limit, as_of=args.as_of,
            known_at=args.known_at, since=args.since,
        )
        if args.color:  # else by label where labels tell the groups apart, by group where they do not (OverviewView)
            result.view_options["color"] = Colour(args.color)
        return self._keep(result, args.out)

    @line_magic
    @user_errors
    def gsubgraph(self, line: str):
        """The neighbourhood of named entities: %gsubgraph NAME [NAME ...] [--relations T,U] [--hops N] [--min-confidence X]."""
        args = gsubgraph_parser().parse_args(words(line))
        connection = REGISTRY.get(args.alias)
        relations = [name.strip() for name in args.relations.split(",") if name.strip()] if args.relations else None
        result = connection.subgraph(
            args.entities or None, relations, args.min_confidence, args.hops, max_nodes=args.max_nodes,
            max_edges=args.max_edges, max_fanout=args.max_fanout, include_internal=args.include_internal,
            filter_during_traversal=args.filter_during_traversal, drop_isolated=args.drop_isolated,
        )
        return self._keep(result, args.out)
