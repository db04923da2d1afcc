"""``%gestalt``: open, create, demo, use, switch, list, info, tools and close connections."""

from __future__ import annotations

import argparse

from IPython.core.magic import line_magic, magics_class

from ..session import REGISTRY
from .common import MagicBase, Parser, user_errors, words


def gestalt_parser() -> Parser:
    parser = Parser(prog="%gestalt", add_help=False)
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
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
        if name == "open":
            command.add_argument("--read-only", action="store_true", help="open through LMDB's read-only mode: nothing can be written")
            command.add_argument("--index-names", action="store_true", help="build the case-insensitive name index in the database if missing")
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


@magics_class
class ConnectionMagics(MagicBase):
    """``%gestalt``."""

    # -- %gestalt -----------------------------------------------------------
    @line_magic
    @user_errors
    def gestalt(self, line: str):
        """Manage connections: open | create | demo | use | switch | list | close | info | tools."""
        argv = words(line)
        if not argv:
            return self._list()
        args = gestalt_parser().parse_args(argv)
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
            from ..agents.handoff import describe  # deferred: keeps %load_ext light

            return describe(REGISTRY.get(args.alias).agent_tools())
        elif args.command == "info":
            for key, value in REGISTRY.get(args.alias).info().items():
                print(f"{key:>12}: {value}")
        return None

    def _connect(self, args: argparse.Namespace) -> None:
        before = set(REGISTRY.connections)
        if args.command == "open":
            connection = REGISTRY.open(args.path, alias=args.alias, map_size=args.map_size, read_only=args.read_only,
                                       index_names=args.index_names)
        elif args.command == "create":
            connection = REGISTRY.create(args.path, backend=args.backend, alias=args.alias, map_size=args.map_size)
        else:
            connection = REGISTRY.demo(args.path, alias=args.alias, map_size=args.map_size)
        connection.claim_writes = connection.claim_writes or args.claim_writes
        if connection.alias in before:
            print(f"Already open: '{connection.alias}' at {connection.path}; it is the current connection.")
            return
        mode = ", read-only" if connection.read_only else ""
        print(f"Connected '{connection.alias}' ({connection.info()['backend']}{mode}) at {connection.path}; it is the current connection.")

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
