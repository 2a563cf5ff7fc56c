"""Constraint statements: a ``<modality> <kind> <id> [params] [table]`` statement read into its kind's IR node.

The kind's class names its parameters (typed, checked by :mod:`schedc.lang.params`) and reads its table
rows (:meth:`~schedc.kinds.base.Constraint.parse_rows`, one row at a time so that each row keeps its
own span); every problem is collected as a diagnostic of the parse, not raised.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec
from lark import Token

from schedc.core.diagnostics import Span
from schedc.kinds import KINDS, Constraint, Row, RowError, TableContext
from schedc.lang.params import ParamError, coerce, field_types, unquote
from schedc.lang.tables import parse_int, split_table

if TYPE_CHECKING:
    from schedc.lang.statements import Collector


class Stmt(msgspec.Struct):
    """A parsed statement before IR building: its rule name, parts and position."""

    rule: str
    parts: list[Any]
    span: Span | None


COMMON_FIELDS = ("id", "hard", "weight", "active", "reason", "span")


def tok_span(tok: Token) -> Span:
    """Where a token is written."""
    return Span(line=tok.line or 1, column=tok.column or 1, end_line=tok.end_line or 0, end_column=tok.end_column or 0)


def table_rows(tok: Token, owner: str) -> list[Row]:
    """The rows of a TABLE token; ``owner`` names the table in the message about a missing ``end``."""
    return split_table(str(tok), tok.line or 1, owner)


def build_constraint(stmt: Stmt, out: Collector, ctx: TableContext) -> Constraint | None:
    parts = list(stmt.parts)
    strength = parts.pop(0)
    reason = None
    if isinstance(parts[0], Stmt) and parts[0].rule == "inactive":
        reason = unquote(str(parts.pop(0).parts[0]))
    kind_tok, id_tok = parts[0], parts[1]
    table = parts[-1] if parts and isinstance(parts[-1], Token) and parts[-1].type == "TABLE" else None
    params = [p for p in parts[2:] if isinstance(p, tuple)]
    cls = KINDS.get(str(kind_tok))
    if cls is None:
        out.error("E108", f"unknown constraint kind {str(kind_tok)!r}", tok_span(kind_tok),
                  _closest(str(kind_tok), KINDS) or "kinds: " + ", ".join(sorted(KINDS)))
        return None
    cid = unquote(str(id_tok)) if id_tok.type == "STRING" else str(id_tok)
    common: dict[str, Any] = {"id": cid, "span": stmt.span, "hard": strength.rule == "hard"}
    if strength.rule == "soft":
        weight = parse_int(str(strength.parts[0]))
        if weight is None or weight < 0:
            out.error("E110", f"a soft weight is a non-negative integer, found {str(strength.parts[0])!r}",
                      stmt.span)
            return None
        common["weight"] = weight
    if reason is not None:
        common.update(active=False, reason=reason)
    values = _kind_params(cls, params, out, stmt)
    if values is None:
        return None
    lines = _fill_table(cls, table, values, out, ctx, f"the table of constraint {cid}")
    if lines is None:
        return None
    if lines and stmt.span is not None:
        common["span"] = msgspec.structs.replace(stmt.span, rows=lines)
    try:
        return cls(**common, **values)
    except TypeError as exc:
        missing = str(exc).split("'")[1] if "'" in str(exc) else str(exc)
        out.error("E111", f"{cls.__struct_config__.tag} needs the parameter {missing}=...", stmt.span)
        return None


def _kind_params(cls: type[Constraint], params: list[tuple[str, Any, Span | None]], out: Collector,
                 stmt: Stmt) -> dict[str, Any] | None:
    types = field_types(cls)
    allowed = [k for k in types if k not in COMMON_FIELDS and k != cls.TABLE_FIELD]
    values: dict[str, Any] = {}
    ok = True
    for key, raw, span in params:
        if key not in allowed:
            hint = _closest(key, allowed) or ("parameters: " + ", ".join(allowed) if allowed else
                                              "this kind takes no parameters")
            out.error("E109", f"unknown parameter {key!r} for {cls.__struct_config__.tag}", span, hint)
            ok = False
            continue
        if key in values:
            out.error("E102", f"parameter {key!r} is given twice", span)
            ok = False
            continue
        try:
            values[key] = coerce(raw, types[key])
        except ParamError as exc:
            out.error("E110", f"{key}: {exc}", span)
            ok = False
    return values if ok else None


def _fill_table(cls: type[Constraint], table: Token | None, values: dict[str, Any], out: Collector,
                ctx: TableContext, owner: str) -> tuple[tuple[int, int, int], ...] | None:
    """Read the statement's table into ``values``; return its line table (None after an error).

    The kind reads one row at a time, so that the line table records how many items each row
    gives (see :class:`~schedc.core.diagnostics.Span`).
    """
    tag = cls.__struct_config__.tag
    if table is None:
        return ()
    if cls.TABLE_FIELD is None:
        out.error("E112", f"{tag} takes no table", tok_span(table))
        return None
    items: list[object] = []
    lines: list[tuple[int, int, int]] = []
    try:
        for row in table_rows(table, owner):
            got = cls.parse_rows([row], values, ctx)
            items.extend(got)
            lines.append((row.line, row.columns[0], len(items)))
    except RowError as exc:
        out.row_error(exc)
        return None
    values[cls.TABLE_FIELD] = tuple(items)
    return tuple(lines)


def _closest(word: str, options: Any) -> str | None:
    import difflib

    match = difflib.get_close_matches(word, list(options), n=1)
    return f"did you mean {match[0]!r}?" if match else None


# ----------------------------------------------------------------------------- entry points
