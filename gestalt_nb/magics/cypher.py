"""``%%gcypher`` / ``%gcypher``, ``%ghistory`` and ``%gsnippets``: thin over ``Connection.run``,
``explain``, ``live`` and the history and snippet stores."""

from __future__ import annotations

import argparse
from typing import Any

from IPython.core.magic import line_cell_magic, line_magic, magics_class

from ..cypher import history, snippets
from ..errors import GestaltError
from ..options import Colour, Layout, Size, settings
from ..session import REGISTRY
from .common import MagicBase, user_errors, words
from .cypher_args import gcypher_parser, ghistory_parser, gsnippets_parser, split_line, split_params


def _drawing_options(args: argparse.Namespace) -> dict[str, Any]:
    """--color / --size / --caption / --layout as view options, each read into its value once, here (a bad layout
    or layout option fails now); the views, the settings and the canvas take the values as they are."""
    return {
        "color": None if args.color is None else Colour(args.color),
        "size": None if args.size is None else Size(args.size),
        "caption": args.caption,
        "layout": None if args.layout is None else Layout(args.layout),
    }


def _moments(text: str) -> str | list[str]:
    """``WHEN,WHEN,…`` as its moments (one moment as it is)."""
    return [part.strip() for part in text.split(",")] if "," in text else text


@magics_class
class CypherMagics(MagicBase):
    """``%%gcypher``, ``%ghistory``, ``%gsnippets``."""

    # -- %%gcypher ----------------------------------------------------------
    @line_cell_magic
    @user_errors
    def gcypher(self, line: str, cell: str | None = None):
        """Run Cypher: read-only unless --write, at most --limit rows, shown as graph/table/JSON/info."""
        options_text, query = (line, cell) if cell is not None else split_line(line)
        options_text, expression = split_params(options_text)
        args = gcypher_parser().parse_args(words(options_text))
        if args.with_:
            query = snippets.compose(query or "", args.with_)
        expression = expression if expression is not None else args.params  # -P=... / --params=...
        params = self._params(expression) if expression is not None else None
        connection = REGISTRY.get(args.alias)
        if args.explain:
            if args.save:
                raise GestaltError("--save keeps a query that ran; --explain runs nothing. Drop one of them.")
            from ..cypher.explain import explain  # deferred: keeps %load_ext light

            return self._keep(explain(connection, query or "", params, limit=args.limit, write=args.write), args.out)
        if args.live and (args.as_of or args.known_at):
            raise GestaltError("--live re-runs on every change of the present; drop --as-of/--known-at, or --live.")
        if args.live or "," in (args.as_of or "") or "," in (args.known_at or ""):  # live, or a time slider over moments
            return self._keep((self._live if args.live else self._timeline)(connection, query or "", params, args), args.out)
        if settings.warn_slow:
            from ..cypher.explain import slow_warning  # deferred: keeps %load_ext light

            warning = slow_warning(connection, query or "", limit=args.limit)
            if warning:
                print(warning)
        limit = args.limit
        if args.overview and limit is None:  # the row limit cuts what is drawn, not what is grouped
            from ..grouped.build import QUERY_ROWS  # deferred: keeps %load_ext light

            limit = QUERY_ROWS
        try:
            result = connection.run(
                query or "", params, write=args.write, limit=limit, timeout=args.timeout, memory_limit=args.memory_limit,
                as_of=args.as_of, known_at=args.known_at,
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
            **_drawing_options(args),
        }
        result.view_options = {key: value for key, value in result.view_options.items() if value is not None}
        result.params_source = expression
        settings.with_overrides(**result.view_options)  # reject bad display options now, not at display time
        if args.save:
            snippets.save(args.save, query, result.columns, connection.alias)
        if args.overview:
            from ..grouped.build import of_subgraph  # deferred: keeps %load_ext light

            grouped = of_subgraph(result.subgraph, args.overview, rows=len(result), cut=result.truncated)
            grouped.connection = connection  # its members are database nodes: drill and members() read them there
            return self._keep(grouped, args.out)
        return self._keep(result, args.out)

    def _timeline(self, connection: Any, query: str, params: dict[str, Any] | None, args: argparse.Namespace) -> Any:
        """--as-of WHEN,WHEN,… (or --known-at WHEN,WHEN,…): the read at each moment, drawn once with a time slider."""
        taken = [name for name, value in (("--write", args.write), ("--overview", args.overview), ("--save", args.save)) if value]
        if taken:
            raise GestaltError(f"--as-of with several moments draws a time slider; {', '.join(taken)} cannot go with it: drop it, "
                               "or give one moment.")
        if not args.as_of:
            raise GestaltError("--known-at with several moments steps recorded time at a valid time: give --as-of WHEN too.")
        result = connection.timeline(query, _moments(args.as_of), params, known_at=args.known_at and _moments(args.known_at),
                                     limit=args.limit, timeout=args.timeout)
        result.view_options = {key: value for key, value in _drawing_options(args).items() if value is not None}
        return result

    # -- %ghistory, %gsnippets ------------------------------------------------------
    @line_magic
    @user_errors
    def ghistory(self, line: str):
        """The queries this kernel ran."""
        args = ghistory_parser().parse_args(words(line))
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
    @user_errors
    def gsnippets(self, line: str):
        """The saved query snippets."""
        args = gsnippets_parser().parse_args(words(line))
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
        from ..feed.live import Live  # deferred: keeps %load_ext light

        if args.write:
            raise GestaltError("--live and --write do not mix: a live view only reads. Run the write in its own cell.")
        options = {"renderer": args.renderer, "max_nodes": args.max_nodes, "max_edges": args.max_edges, **_drawing_options(args)}
        options = {key: value for key, value in options.items() if value is not None}
        settings.with_overrides(**options)
        return Live(connection, query or "", params, limit=args.limit, view_options=options)
