"""Parsing ``.sched`` text into the IR.

Two stages. Lark (LALR, ``grammar/sched.lark``) turns the text into a list of statements;
:class:`InstanceBuilder` / :func:`parse_family_text` then build IR nodes statement by
statement, reading table rows and typed parameters, and collect every error they meet as a
diagnostic. The semantic pass (:mod:`schedc.lang.semantic`) then checks cross references.
Everything wrong with the input is raised together as one :class:`SchedcError`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
from lark import Token

from schedc.core.diagnostics import SchedcError, Span
from schedc.core.inputs import MAX_SPEC_BYTES, read_bounded
from schedc.ir import (
    WEEKDAYS,
    Activity,
    Calendar,
    Entity,
    Family,
    Instance,
    Meta,
    Objective,
    Resource,
)
from schedc.kinds import Constraint, Row, RowError, TableContext
from schedc.kinds.measures import MEASURES, Term
from schedc.lang import tables
from schedc.lang.constraint_stmt import Stmt, build_constraint, table_rows, tok_span
from schedc.lang.family import load_family, looks_like_family
from schedc.lang.family_parser import parse_family_text
from schedc.lang.params import ParamError, coerce, field_types
from schedc.lang.semantic import check_instance
from schedc.lang.statements import Collector, parse_statements, word_of
from schedc.lang.tables import parse_int, read_activities, read_entity, read_jobs, read_resources

RESERVED_TABLES = ("resources", "jobs", "activities")


# ----------------------------------------------------------------------------- instances


class InstanceBuilder:
    """Builds an :class:`Instance` from statements, collecting every error."""

    def __init__(self, out: Collector, search: Sequence[Path]):
        self.out = out
        self.search = search
        self.family: Family | None = None
        self.fields: dict[str, Any] = {}
        self.seen: dict[str, Span | None] = {}
        self.resources: list[Resource] = []
        self.activities: list[Activity] = []
        self.entities: list[Entity] = []
        self.constraints: list[Constraint] = []
        self.resource_columns: list[tuple[str, Span]] = []
        self.resources_complete = True  # False once a resources row failed (its name is then unknown)

    def build(self, stmts: list[Stmt]) -> Instance | None:
        if not stmts or stmts[0].rule != "instance_stmt":
            span = stmts[0].span if stmts else Span(line=1, column=1)
            self.out.error("E101", "an instance file starts with 'instance NAME family FAMILY'", span,
                           "e.g. instance ft06 family jobshop")
            return None
        for stmt in stmts:
            handler = getattr(self, "on_" + stmt.rule, None)
            if handler is None:
                self.out.error("E118", f"a {stmt.rule.removesuffix('_stmt')} statement cannot appear in an "
                               "instance file", stmt.span)
                continue
            handler(stmt)
        self.check_resource_columns()
        if "objective" not in self.fields and self.family is not None:
            self.fields["objective"] = Objective(measure=self.family.objective)
        if self.out.diagnostics:
            return None
        return Instance(
            resources=tuple(self.resources), activities=tuple(self.activities), entities=tuple(self.entities),
            constraints=tuple(self.constraints), **self.fields,
        )

    def once(self, key: str, stmt: Stmt) -> bool:
        if key in self.seen:
            first = self.seen[key]
            where = f" (first at line {first.line})" if first else ""
            self.out.error("E102", f"'{key}' is given twice{where}", stmt.span)
            return False
        self.seen[key] = stmt.span
        return True

    # -- statements ------------------------------------------------------------------

    def on_instance_stmt(self, stmt: Stmt) -> None:
        if not self.once("instance", stmt):
            return
        name, family = (str(t) for t in stmt.parts)
        self.fields.update(name=name, family=family, span=stmt.span)
        try:

            self.family = load_family(family, self.search)
        except SchedcError as exc:
            located = [d if d.file != "<input>" else
                       msgspec.structs.replace(d, span=tok_span(stmt.parts[1]), file=self.out.file)
                       for d in exc.diagnostics]
            self.out.add(SchedcError(located, exc.sources))

    def on_meta_stmt(self, stmt: Stmt) -> None:
        if not self.once("meta", stmt):
            return
        values: dict[str, Any] = {}
        types = field_types(Meta)
        for item in stmt.parts:
            key = str(item.parts[0])
            raw = item.parts[1]
            if key not in types or key == "span":
                self.out.error("E104", f"unknown meta key {key!r}", item.span,
                               "meta keys: " + ", ".join(k for k in types if k != "span"))
                continue
            try:
                values[key] = coerce(raw, types[key])
            except ParamError as exc:
                self.out.error("E105", f"meta {key}: {exc}", item.span)
        self.fields["meta"] = Meta(span=stmt.span, **values)

    def on_horizon_stmt(self, stmt: Stmt) -> None:
        if not self.once("horizon", stmt):
            return
        value = parse_int(str(stmt.parts[0]))
        if value is None or value < 0:
            self.out.error("E105", f"horizon must be a non-negative integer, found {str(stmt.parts[0])!r}",
                           stmt.span)
            return
        self.fields.update(horizon=value, horizon_span=stmt.span)

    def on_calendar_stmt(self, stmt: Stmt) -> None:
        if not self.once("calendar", stmt):
            return
        values: dict[str, Any] = {}
        for key, raw, span in stmt.parts:
            try:
                values.update(_calendar_param(key, raw))
            except ParamError as exc:
                self.out.error("E114", f"calendar {key}: {exc}", span)
        if "days" not in values:
            self.out.error("E114", "calendar needs days=N", stmt.span)
            return
        self.fields["calendar"] = Calendar(span=stmt.span, **values)

    def on_objective_stmt(self, stmt: Stmt) -> None:
        if not self.once("objective", stmt):
            return
        terms: list[Term] = []
        for part in stmt.parts:
            words = [str(t) for t in part.parts if not (isinstance(t, Token) and t.type == "STAR")]
            measure = words[-1]
            if measure not in MEASURES:
                self.out.error("E105", f"unknown objective {measure!r}; expected {', '.join(MEASURES)}", part.span)
                return
            weight = parse_int(words[0]) if len(words) == 2 else 1
            if weight is None or weight < 0:
                self.out.error("E105", f"an objective weight is a non-negative integer, found {words[0]!r}", part.span)
                return
            if any(t.measure == measure for t in terms):
                self.out.error("E105", f"objective term {measure} given twice", part.span)
                return
            terms.append(Term(weight=weight, measure=measure))
        if len(terms) == 1 and terms[0].weight == 1:
            self.fields["objective"] = Objective(measure=terms[0].measure, span=stmt.span)  # type: ignore[arg-type]
        else:
            self.fields["objective"] = Objective(measure="sum", terms=tuple(terms), span=stmt.span)

    def on_table_stmt(self, stmt: Stmt) -> None:
        name = str(stmt.parts[0])
        columns = [str(t) for t in stmt.parts[1].parts] if len(stmt.parts) == 3 else None
        try:
            rows = table_rows(stmt.parts[-1], f"table {name}")
            if name == "resources":
                self.resources.extend(read_resources(rows, stmt.span))
            elif name == "jobs":
                self.activities.extend(read_jobs(rows))
            elif name == "activities":
                self.resource_columns.extend((str(t), tok_span(t)) for t in (stmt.parts[1].parts if columns else []))
                self.activities.extend(read_activities(rows, columns or []))
            else:
                self.read_entities(name, columns, rows, stmt)
        except RowError as exc:
            self.out.row_error(exc)
            self.resources_complete = self.resources_complete and name != "resources"

    def check_resource_columns(self) -> None:
        """Every column of an ``activities (...)`` header names a resource (unless a resource row failed)."""
        if self.resources_complete:
            for message, span, hint in tables.unknown_columns(self.resource_columns, self.resources):
                self.out.error("E202", message, span, hint)

    def read_entities(self, cls_name: str, columns: list[str] | None, rows: list[Row], stmt: Stmt) -> None:
        if self.family is None:
            return
        cls = self.family.entity_class(cls_name)
        if cls is None:
            known = ", ".join([*RESERVED_TABLES, *(c.name for c in self.family.classes)])
            self.out.error("E106", f"unknown table {cls_name!r} for family {self.family.name}", stmt.span,
                           f"tables of this family: {known}")
            return
        declared = [a.name for a in cls.attributes]
        if (columns or []) != declared:
            tokens = stmt.parts[1].parts if columns is not None else []
            wrong = next((t for k, t in enumerate(tokens) if k >= len(declared) or str(t) != declared[k]), None)
            self.out.error("E113", f"columns of {cls_name} must be ({' '.join(declared)}), found "
                           f"({' '.join(columns or [])})", tok_span(wrong) if wrong is not None else stmt.span)
            return
        for row in rows:
            if not cls.attributes:  # a class without attributes lists several names per row
                self.entities.extend(Entity(name=name, cls=cls.name, span=Span(line=row.line, column=col))
                                     for name, col in zip(row.cells, row.columns, strict=True))
            else:
                self.entities.append(read_entity(row, cls))

    def on_constraint_stmt(self, stmt: Stmt) -> None:
        built = build_constraint(stmt, self.out, self.table_context())
        if built is None:
            return
        if self.family is not None and self.family.kinds and built.__struct_config__.tag not in self.family.kinds:
            self.out.error("E115", f"kind {built.__struct_config__.tag!r} is not used by family "
                           f"{self.family.name}", stmt.span,
                           "kinds of this family: " + ", ".join(self.family.kinds))
            return
        self.constraints.append(built)

    def table_context(self) -> TableContext:
        calendar = self.fields.get("calendar")
        value_cls = self.family.decision.value if self.family and self.family.decision else None
        values = tuple(e.name for e in self.entities if e.cls == value_cls)
        return TableContext(days=calendar.days if calendar else 0, values=values)


def _calendar_param(key: str, raw: tuple[str, Any]) -> dict[str, Any]:
    word = word_of(raw)
    if key in ("days", "periods_per_day"):
        value = parse_int(word or "")
        if value is None or value < 1:
            raise ParamError(f"expected a positive integer, found {word!r}")
        return {key: value}
    if key == "start_date":
        try:
            return {key: dt.date.fromisoformat(word or "")}
        except ValueError:
            raise ParamError(f"expected a date YYYY-MM-DD, found {word!r}") from None
    if key == "start_weekday":
        if word not in WEEKDAYS:
            raise ParamError(f"expected a weekday name ({', '.join(WEEKDAYS)}), found {word!r}")
        return {key: word}
    raise ParamError("unknown calendar parameter; expected days, periods_per_day, start_date or start_weekday")


def parse_instance_text(text: str, file: str = "<input>", search: Sequence[Path] = (),
                        check: bool = True) -> Instance:
    """Parse the text of an instance file; all syntax, build and semantic errors raised together.

    A leading UTF-8 byte order mark (as some editors write) is ignored.
    """
    text = text.removeprefix("\ufeff")
    stmts = parse_statements(text, file)
    out = Collector(file, text)
    builder = InstanceBuilder(out, search)
    instance = builder.build(stmts)
    out.raise_if_any()
    assert instance is not None
    if check:
        check_instance(instance, family=builder.family, file=file, source=text)
    return instance


def read_spec(path: Path, limit: int = MAX_SPEC_BYTES) -> str:
    """The text of a spec file: a regular file of at most ``limit`` bytes, in UTF-8 (E100 otherwise)."""
    data = read_bounded(path, limit, code="E100", what="the spec")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SchedcError.at("E100", f"cannot read file: {exc}", file=str(path)) from None


def parse_file(path: str | Path, search: Sequence[Path] = ()) -> Instance | Family:
    """Parse a ``.sched`` file: an instance (its family looked up beside it first) or a family spec."""
    path = Path(path)
    text = read_spec(path)

    if looks_like_family(text):
        return parse_family_text(text, file=str(path))
    return parse_instance_text(text, file=str(path), search=[path.parent, *search])

