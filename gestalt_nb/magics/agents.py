"""``%%gask`` (a question in words, planned or answered) and ``%gmemory`` (agent memory in the graph)."""

from __future__ import annotations

from IPython.core.magic import cell_magic, line_magic, magics_class

from ..errors import GestaltError
from ..session import REGISTRY
from .common import MagicBase, Parser, user_errors, words


def gmemory_parser() -> Parser:
    parser = Parser(prog="%gmemory", add_help=False)
    parser.add_argument("prefix", nargs="?", default="", help="namespace prefix, labels separated by / (e.g. users/42)")
    parser.add_argument("--limit", type=int, default=200, help="items shown at most")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    parser.add_argument("-o", "--out", help="store the result in this variable")
    return parser


def gask_parser() -> Parser:
    parser = Parser(prog="%%gask", add_help=False)
    parser.add_argument("--model", help="variable holding a LangChain chat model (default: set_planner_model's)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds the model may take before the broad search is used")
    parser.add_argument("--no-cypher", action="store_true", help="never use Cypher the model proposes")
    parser.add_argument("--answer", action="store_true", help="answer from the graph (GraphRAG) beside its drawn evidence")
    parser.add_argument("--max-depth", type=int, default=2, help="hops from the named entities when answering")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    parser.add_argument("-o", "--out", help="store the plan (or answer) in this variable")
    return parser


@magics_class
class AgentMagics(MagicBase):
    """``%%gask``, ``%gmemory``."""

    @cell_magic
    @user_errors
    def gask(self, line: str, cell: str):
        """A question in words: plan it with a chat model, show the plan and the drawn result. %%gask [--model VAR] [--answer]."""
        from ..agents import planner  # deferred: LangChain stays out of %load_ext
        from ..graphrag import answering  # deferred: LangChain stays out of %load_ext

        args = gask_parser().parse_args(words(line))
        model = self._evaluate(args.model, "%%gask --model") if args.model else None
        connection = REGISTRY.get(args.alias)
        if args.answer:
            if model is None:
                raise GestaltError("%%gask --answer needs --model VAR (a LangChain chat model).")
            return self._keep(answering.answer(connection, cell, model, max_depth=args.max_depth), args.out)
        plan = planner.plan(cell, planner.chosen_model(model), connection=connection, timeout=args.timeout,
                            allow_cypher=not args.no_cypher)
        plan.execute()
        return self._keep(plan, args.out)

    @line_magic
    @user_errors
    def gmemory(self, line: str):
        """Show agent memory: %gmemory [PREFIX] (labels separated by /) [--limit N] [--alias A] [-o VAR]."""
        from ..memory.result import browse, parse_prefix  # deferred: needs LangGraph (the agents extra)

        args = gmemory_parser().parse_args(words(line))
        result = browse(REGISTRY.get(args.alias), parse_prefix(args.prefix), limit=args.limit)
        return self._keep(result, args.out)
