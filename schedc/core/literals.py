"""How names and strings are written in ``.sched`` text: bare words and ``"..."`` literals.

Shared by the language (parser and printer) and by the kinds that print their own table rows.
"""

from __future__ import annotations

import re

_PLAIN_WORD = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_UNESCAPES = {v[1]: k for k, v in _ESCAPES.items()}
_ESCAPED = re.compile(r"\\(.)")


def quote(text: str) -> str:
    """A string literal: ``"..."`` with backslash, quote, newline, tab and CR escaped."""
    return '"' + "".join(_ESCAPES.get(ch, ch) for ch in text) + '"'


def unquote(literal: str) -> str:
    """The text of a ``"..."`` literal (inverse of :func:`quote`; unknown escapes keep the character)."""
    return _ESCAPED.sub(lambda m: _UNESCAPES.get(m.group(1), m.group(1)), literal[1:-1])


def quote_word(text: str) -> str:
    """A name as written in the text: bare when it is a plain word, else quoted."""
    if _PLAIN_WORD.match(text) and text.isascii():
        return text
    return quote(text)
