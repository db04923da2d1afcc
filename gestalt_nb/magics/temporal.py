"""``%gdiff``: two moments of the graph compared (``Connection.diff``, which ``gestalt_nb.diff`` calls too)."""

from __future__ import annotations

from IPython.core.magic import line_magic, magics_class

from ..session import REGISTRY
from .common import MagicBase, Parser, user_errors, words

#: What ``%gdiff`` compares without ``--query``: every node and its outgoing relationships, bounded by ``--limit``.
WHOLE_GRAPH = "MATCH (n) OPTIONAL MATCH (n)-[r]->(m) RETURN n, r, m"


def gdiff_parser() -> Parser:
    parser = Parser(prog="%gdiff", add_help=False)
    parser.add_argument("before", metavar="WHEN1", help="the earlier moment: a date, datetime or epoch seconds")
    parser.add_argument("after", metavar="WHEN2", help="the later moment")
    parser.add_argument("--query", help=f"the read compared, quoted (default: the whole graph, {WHOLE_GRAPH}, cut at --limit rows)")
    parser.add_argument("--known-at", metavar="WHEN", help="both moments as recorded by WHEN (default: now), e.g. before a correction")
    parser.add_argument("--limit", type=int, help="row limit of each moment's read")
    parser.add_argument("--timeout", type=float, help="seconds each moment's read may run")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    parser.add_argument("-o", "--out", help="store the DiffResult in this variable")
    return parser


@magics_class
class TemporalMagics(MagicBase):
    """``%gdiff``."""

    @line_magic
    @user_errors
    def gdiff(self, line: str):
        """What was added, removed and changed between two moments: %gdiff WHEN1 WHEN2 [--query '...']."""
        args = gdiff_parser().parse_args(words(line))
        result = REGISTRY.get(args.alias).diff(args.query or WHOLE_GRAPH, args.before, args.after, known_at=args.known_at,
                                               limit=args.limit, timeout=args.timeout)
        return self._keep(result, args.out)
