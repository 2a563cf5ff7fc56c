"""A positioned token stream for the whitespace-separated canonical formats.

JSPLib, Taillard, FJSP, PSPLIB bodies, ITC-2007 and NSPLib files are all sequences of
blank/tab-separated tokens with CRLF or LF line ends. Readers pull typed tokens from a
:class:`TokenStream`; every failure names the file, line and column and says what was
expected, as a :class:`~schedc.core.diagnostics.SchedcError`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.core.inputs import MAX_SPEC_BYTES, read_bounded

_TOKEN = re.compile(r"\S+")


class Token(msgspec.Struct, frozen=True):
    """One token and its 1-based position."""

    text: str
    line: int
    column: int


def read_source(path: str | Path, code: str = "I001") -> str:
    """Read a source file as text (UTF-8, undecodable bytes replaced), with a clear error.

    It must be a regular file of at most 64 MiB (a FIFO or a device is refused without being read).
    """
    data = read_bounded(path, MAX_SPEC_BYTES, code=code, what="file")
    return data.decode("utf-8", errors="replace")


def tokenize_lines(text: str) -> Iterator[Token]:
    """Yield every whitespace-separated token with its line and column."""
    for line_no, line in enumerate(text.splitlines(), start=1):
        for match in _TOKEN.finditer(line):
            yield Token(match.group(), line_no, match.start() + 1)


class TokenStream:
    """Sequential typed access to the tokens of one file."""

    def __init__(self, text: str, file: str, code: str = "I002"):
        self.text = text
        self.file = file
        self.code = code
        self.tokens = list(tokenize_lines(text))
        self.pos = 0

    def at_end(self) -> bool:
        return self.pos >= len(self.tokens)

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def error(self, message: str, token: Token | None = None, hint: str | None = None) -> SchedcError:
        """An error at ``token`` (default: the next token, or the end of the file)."""
        token = token if token is not None else self.peek()
        if token is None:
            line = max(1, len(self.text.splitlines()))
            return SchedcError.at(self.code, message + " (reached the end of the file)", file=self.file,
                                  line=line, column=1, hint=hint, source=self.text)
        return SchedcError.at(self.code, message, file=self.file, line=token.line, column=token.column,
                              hint=hint, source=self.text)

    def next(self, what: str) -> Token:
        """The next token; ``what`` describes it for the error when the file ends early."""
        token = self.peek()
        if token is None:
            raise self.error(f"expected {what}")
        self.pos += 1
        return token

    def next_int(self, what: str, minimum: int | None = None) -> int:
        """The next token as an integer (optionally at least ``minimum``)."""
        token = self.next(what)
        try:
            value = int(token.text)
        except ValueError:
            raise self.error(f"expected {what} (an integer), found {token.text!r}", token) from None
        if minimum is not None and value < minimum:
            raise self.error(f"expected {what} to be at least {minimum}, found {value}", token)
        return value

    def expect(self, literal: str, what: str | None = None) -> Token:
        """The next token, which must equal ``literal``."""
        token = self.next(what or repr(literal))
        if token.text != literal:
            raise self.error(f"expected {what or repr(literal)}, found {token.text!r}", token)
        return token

    def expect_end(self, what: str = "the end of the file") -> None:
        """Fail if tokens remain."""
        token = self.peek()
        if token is not None:
            raise self.error(f"expected {what}, found extra token {token.text!r}", token)


def token_error(stream: TokenStream, code: str, message: str, token: Token, *, after: bool = False,
                hint: str | None = None) -> SchedcError:
    """An error of code ``code`` at ``token`` (or just after it when ``after``)."""
    column = token.column + len(token.text) if after else token.column
    return SchedcError.at(code, message, file=stream.file, line=token.line, column=column, hint=hint,
                          source=stream.text)


def group_by_line(tokens: Sequence[Token]) -> list[list[Token]]:
    """Group consecutive tokens by source line."""
    groups: list[list[Token]] = []
    for tok in tokens:
        if groups and groups[-1][0].line == tok.line:
            groups[-1].append(tok)
        else:
            groups.append([tok])
    return groups
