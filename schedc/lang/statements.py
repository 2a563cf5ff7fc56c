"""Reading ``.sched`` text into statement records: the Lark parse, before any meaning.

:func:`parse_statements` runs the LALR parser (``grammar/sched.lark``) and turns the tree into flat
:class:`~schedc.lang.constraint_stmt.Stmt` records with raw parameter values; syntax errors become
diagnostics people can act on (:mod:`schedc.lang.syntax_errors`). Both readers of statements — the
instance builder (:mod:`schedc.lang.parser`) and the family parser — start here, and
:class:`Collector` gathers their diagnostics.
"""

from __future__ import annotations

import textwrap
from functools import cache
from typing import Any

import lark
from lark import Token, Transformer, v_args

from schedc.core.diagnostics import Diagnostic, SchedcError, Span
from schedc.core.literals import unquote
from schedc.kinds import RowError
from schedc.lang.constraint_stmt import Stmt
from schedc.lang.resources import data_dir
from schedc.lang.syntax_errors import syntax_error


def looks_like_family(text: str) -> bool:
    """Whether a ``.sched`` text is a family spec (its first statement is ``family``)."""
    for line in text.removeprefix("\ufeff").splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped.startswith("family ")
    return False


@cache
def _lark() -> lark.Lark:
    grammar = (data_dir("grammar") / "sched.lark").read_text(encoding="utf-8")
    return lark.Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


def _span(meta: Any) -> Span | None:
    if getattr(meta, "empty", True):
        return None
    return Span(line=meta.line, column=meta.column, end_line=meta.end_line, end_column=meta.end_column)


@v_args(meta=True)
class _ToStatements(Transformer):
    """Tree → flat statement records and raw parameter values (see :mod:`schedc.lang.params`)."""

    def start(self, meta: Any, items: list[Stmt]) -> list[Stmt]:
        return items

    def __default__(self, data: str, children: list[Any], meta: Any) -> Stmt:
        return Stmt(rule=str(data), parts=children, span=_span(meta))

    def word(self, meta: Any, items: list[Token]) -> tuple[str, Any]:
        return ("word", str(items[0]))

    def string(self, meta: Any, items: list[Token]) -> tuple[str, Any]:
        return ("string", unquote(str(items[0])))

    def long_string(self, meta: Any, items: list[Token]) -> tuple[str, Any]:
        return ("string", _dedent_long(str(items[0])[3:-3]))

    def attr_ref(self, meta: Any, items: list[Token]) -> tuple[str, Any]:
        return ("attr", str(items[0]))

    def list(self, meta: Any, items: list[Any]) -> tuple[str, Any]:
        return ("list", items)

    def selector(self, meta: Any, items: list[Token]) -> tuple[str, Any]:
        return ("selector", str(items[0]))

    def call(self, meta: Any, items: list[Token]) -> tuple[str, Any]:
        return ("call", str(items[0]))

    def param(self, meta: Any, items: list[Any]) -> tuple[str, Any, Span | None]:
        return (str(items[0])[:-1], items[1], _span(meta))


def _dedent_long(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def parse_statements(text: str, file: str = "<input>") -> list[Stmt]:
    """Run the LALR parser and return the statement records (syntax errors raised; a leading BOM ignored)."""
    text = text.removeprefix("\ufeff")
    try:
        tree = _lark().parse(text)
    except lark.exceptions.LarkError as exc:
        raise syntax_error(exc, file, text, in_family=looks_like_family(text)) from None
    return _ToStatements().transform(tree)


class Collector:
    """Collects diagnostics for one file."""

    def __init__(self, file: str, text: str):
        self.file = file
        self.text = text
        self.diagnostics: list[Diagnostic] = []
        self.sources: dict[str, str] = {file: text}

    def error(self, code: str, message: str, span: Span | None, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(code=code, message=message, file=self.file, span=span, hint=hint))

    def row_error(self, exc: RowError, code: str = "E107") -> None:
        self.error(code, exc.message, Span(line=exc.line, column=exc.column), exc.hint)

    def add(self, exc: SchedcError) -> None:
        """Take over the diagnostics (and source texts) of another error."""
        self.diagnostics.extend(exc.diagnostics)
        self.sources.update({k: v for k, v in exc.sources.items() if k not in self.sources})

    def raise_if_any(self) -> None:
        if self.diagnostics:
            raise SchedcError(self.diagnostics, self.sources)


def word_of(raw: tuple[str, Any]) -> str | None:
    return raw[1] if raw[0] in ("word", "string") else None
