"""``%gload``: a pandas DataFrame in as nodes or relationships, in one transaction."""

from __future__ import annotations

from IPython.core.magic import line_magic, magics_class

from ..errors import GestaltError
from ..session import REGISTRY
from .common import MagicBase, Parser, user_errors, words


def gload_parser() -> Parser:
    parser = Parser(prog="%gload", add_help=False)
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
    parser.add_argument("--valid-from", help="column of the moment each row's version starts (history; empty: since always)")
    parser.add_argument("--valid-to", help="column of the moment each row's version ends, excluded (history; empty: still valid)")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    return parser


@magics_class
class DataMagics(MagicBase):
    """``%gload``."""

    @line_magic
    @user_errors
    def gload(self, line: str):
        """Load a DataFrame: %gload nodes VAR --id COL (--label L | --label-column C) | %gload edges VAR ..."""
        from ..data import loading  # deferred: keeps %load_ext light

        parser = gload_parser()
        args = parser.parse_args(words(line))
        frame = self._evaluate(args.frame, "%gload")
        if not hasattr(frame, "to_dict") or not hasattr(frame, "columns"):
            raise GestaltError(f"%gload needs a pandas DataFrame; {args.frame} is a {type(frame).__name__}.")
        properties = [name.strip() for name in args.properties.split(",") if name.strip()] if args.properties else None
        connection = REGISTRY.get(args.alias)
        if args.kind == "nodes":
            if not args.id:
                raise GestaltError("%gload nodes needs --id COLUMN.")
            return loading.load_nodes(connection, frame, id=args.id, label=args.label, label_column=args.label_column, properties=properties,
                valid_from=args.valid_from, valid_to=args.valid_to)
        if not args.source or not args.target:
            raise GestaltError("%gload edges needs --source COLUMN and --target COLUMN.")
        return loading.load_edges(
            connection, frame, source=args.source, target=args.target, type=args.type,
            type_column=args.type_column, id=args.id, properties=properties, valid_from=args.valid_from, valid_to=args.valid_to,
        )
