"""Graph text for SVG (XML): escaped, and never a character XML 1.0 forbids.

A NUL or another C0 control character (other than tab, newline and carriage return), a lone surrogate,
U+FFFE or U+FFFF makes a document that no XML parser opens, however well it is escaped. Each such
character is replaced visibly: a control character by its Unicode control picture (NUL as "␀", U+0001
as "␁" …), the others by "\ufffd". Everything else is kept, then escaped with ``html.escape`` (quotes
too, so the result is safe in an attribute value as well).
"""

from __future__ import annotations

import html
import re
from typing import Any

_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return chr(0x2400 + code) if code < 0x20 else "\ufffd"


def xml_safe(value: Any) -> str:
    """``value`` as text with every character XML forbids replaced visibly (not escaped)."""
    return _FORBIDDEN.sub(_visible, str(value))


def xml_text(value: Any) -> str:
    """``value`` as escaped XML text or attribute value that always parses."""
    return html.escape(xml_safe(value), quote=True)
