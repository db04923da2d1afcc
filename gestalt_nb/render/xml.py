"""Graph text made safe for an SVG (XML) file: markup escaped, and the characters XML forbids replaced.

``html.escape`` makes text inert but keeps C0 control characters (a NUL, a form feed), U+FFFE/U+FFFF and
lone surrogates, which XML 1.0 forbids: a file holding one does not open. Each is replaced visibly: a
control character by its Unicode control picture (NUL as "␀", ESC as "␛"), the others by U+FFFD ("�"),
so the picture opens and the reader sees what was there.
"""

from __future__ import annotations

import html
import re

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return chr(0x2400 + code) if code < 0x20 else "\ufffd"


def xml_text(text: object) -> str:
    """``text`` escaped for an XML text node or attribute value (quotes too), forbidden characters shown visibly."""
    return html.escape(_NOT_XML.sub(_visible, str(text)), quote=True)
