"""The ``%%gcypher`` command line: its options (also read by Tab completion and the ``%magic?`` pages),
``%ghistory`` / ``%gsnippets`` options, and where a line magic's options end and its query begins."""

from __future__ import annotations

import functools
import shlex

from ..options import RENDERERS, SIZE_METRICS, layout_usage
from .common import Parser


@functools.lru_cache(maxsize=1)  # built once: parse_args does not change it
def gcypher_parser() -> Parser:
    parser = Parser(prog="%%gcypher", add_help=False)
    parser.add_argument("-o", "--out", help="store the result in this variable")
    parser.add_argument("--write", action="store_true", help="allow CREATE/MERGE/SET/DELETE/REMOVE")
    parser.add_argument("--live", action="store_true", help="keep the result open: re-run on every change")
    parser.add_argument("--limit", type=int, help="row limit (work bound) for this cell")
    parser.add_argument("--timeout", type=float, help="seconds this cell's read may run (time budget)")
    parser.add_argument("--memory-limit", help="memory this cell's read may add, e.g. 4GiB (memory budget)")
    parser.add_argument("--as-of", metavar="WHEN", help="read the graph as it was valid at WHEN (a date, datetime or epoch seconds), from its history; WHEN,WHEN,…: a time slider over those moments")
    parser.add_argument("--known-at", metavar="WHEN", help="with --as-of: as it was recorded by WHEN (default: now), e.g. before a correction")
    parser.add_argument("-P", "--params", help="dict expression or variable name with $parameter values")
    parser.add_argument("--alias", help="connection to use instead of the current one")
    parser.add_argument("--renderer", choices=RENDERERS, help="graph renderer for this result")
    parser.add_argument("--display-limit", type=int, help="rows shown in the table")
    parser.add_argument("--max-nodes", type=int, help="nodes drawn before the graph is cut")
    parser.add_argument("--max-edges", type=int, help="relationships drawn before the graph is cut")
    parser.add_argument("--color", help="node colour: label (default), community, or a node property")
    parser.add_argument("--size", help=f"node size: {SIZE_METRICS[0]} (default), {', '.join(SIZE_METRICS[1:])}, or a numeric property")
    parser.add_argument("--caption", help="node property used as the caption")
    parser.add_argument("--layout", help=layout_usage())
    parser.add_argument("--overview", nargs="?", const="community", metavar="BY",
                        help="draw every node of the result grouped (community, the default, or label) instead of the capped slice")
    parser.add_argument("--explain", action="store_true", help="show the plan, the LIMIT added and slow-shape warnings; run nothing")
    parser.add_argument("--save", metavar="NAME", help="run the cell, then keep its query as snippet NAME")
    parser.add_argument("--with", dest="with_", metavar="NAME", action="append", default=[],
                        help="compose snippet NAME in front: CALL { snippet } cell")
    return parser


def ghistory_parser() -> Parser:
    parser = Parser(prog="%ghistory", add_help=False)
    parser.add_argument("-o", "--out", help="store the history DataFrame in this variable")
    parser.add_argument("-n", "--last", type=int, help="only the last N queries")
    parser.add_argument("--clear", action="store_true", help="forget the history")
    return parser


def gsnippets_parser() -> Parser:
    parser = Parser(prog="%gsnippets", add_help=False)
    parser.add_argument("-o", "--out", help="store the snippets DataFrame in this variable")
    parser.add_argument("--drop", metavar="NAME", help="forget snippet NAME")
    return parser


#: Options of %gcypher that take a value; used to find where a line magic's query begins.
_VALUE_OPTIONS = {option for action in gcypher_parser()._actions if action.nargs != 0 for option in action.option_strings}
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
