"""Parsing family specs (``family NAME { ... }``) into :class:`~schedc.ir.Family`."""

from __future__ import annotations

from typing import Any

import msgspec

from schedc.core.diagnostics import Span
from schedc.ir import AttributeDecl, EntityClass, Family, PlanStep, SlotDecision
from schedc.ir.answer_roles import INT_FIELDS, NAME_FIELDS, answer_problems
from schedc.kinds import KINDS
from schedc.lang.constraint_stmt import Stmt
from schedc.lang.params import ParamError, coerce, field_types
from schedc.lang.statements import Collector, parse_statements, word_of


def parse_family_text(text: str, file: str = "<input>") -> Family:
    """Parse a family spec file (``family NAME { ... }``; a leading byte order mark is ignored)."""
    text = text.removeprefix("\ufeff")
    stmts = parse_statements(text, file)
    out = Collector(file, text)
    families = [s for s in stmts if s.rule == "family_stmt"]
    if len(stmts) != 1 or len(families) != 1:
        span = stmts[0].span if stmts else Span(line=1, column=1)
        out.error("E120", "a family spec file holds exactly one 'family NAME { ... }' block", span)
        out.raise_if_any()
    family = _build_family(families[0], out)
    out.raise_if_any()
    assert family is not None
    return family


_FAMILY_FIELDS = {"title": str, "structure": str, "objective": str, "answer": str, "answer_header": str,
                  "day_names": str, "background": str}
_PAIR_FIELDS = ("roles", "rename")


def _build_family(stmt: Stmt, out: Collector) -> Family | None:
    values: dict[str, Any] = {"name": str(stmt.parts[0]), "span": stmt.span}
    classes: list[EntityClass] = []
    for item in stmt.parts[1:]:
        if item.rule == "class_decl":
            classes.append(_class_decl(item, out))
        elif item.rule == "decision_decl":
            values["decision"] = _decision_decl(item, out)
        elif item.rule == "plan_decl":
            values["plan"] = tuple(PlanStep(category=str(p.parts[0]), shuffle=len(p.parts) > 1, span=p.span)
                                   for p in item.parts)
        else:
            _family_field(item, values, out)
    values["classes"] = tuple(classes)
    for required in ("structure", "objective"):
        if required not in values:
            out.error("E121", f"family spec needs '{required}'", stmt.span)
    if out.diagnostics:
        return None
    try:
        family = msgspec.convert(values, Family, from_attributes=True)
    except msgspec.ValidationError as exc:
        out.error("E121", f"invalid family spec: {exc}", stmt.span)
        return None
    for problem in answer_problems(family):
        out.error("E124", problem, stmt.span, "placeholders: " + ", ".join(f"<{f}>" for f in NAME_FIELDS + INT_FIELDS)
                  + ", or a class of an interval family (a resource role: <room>)")
    return family


def _class_decl(item: Stmt, out: Collector) -> EntityClass:
    attrs = []
    for decl in item.parts[1:]:
        name, type_ = (str(t) for t in decl.parts)
        if type_ not in ("int", "name", "names", "str"):
            out.error("E122", f"unknown attribute type {type_!r}; expected int, name, names or str", decl.span)
            continue
        attrs.append(AttributeDecl(name=name, type=type_, span=decl.span))  # type: ignore[arg-type]
    return EntityClass(name=str(item.parts[0]), attributes=tuple(attrs), span=item.span)


def _decision_decl(item: Stmt, out: Collector) -> SlotDecision | None:
    values: dict[str, Any] = {"span": item.span}
    types = field_types(SlotDecision)
    for key, raw, span in item.parts:
        if key not in types or key == "span":
            out.error("E109", f"unknown decision parameter {key!r}", span, "parameters: agent, value, grain, free")
            continue
        try:
            values[key] = coerce(raw, types[key])
        except ParamError as exc:
            out.error("E110", f"{key}: {exc}", span)
    try:
        return SlotDecision(**values)
    except TypeError:
        out.error("E111", "decision needs agent=CLASS and value=CLASS", item.span)
        return None


def _family_field(item: Stmt, values: dict[str, Any], out: Collector) -> None:
    key = str(item.parts[0])
    raw = item.parts[1]
    if key == "objective" and raw[0] == "list":
        measures = [word_of(r) for r in raw[1]]
        if not measures or None in measures:
            out.error("E110", "objective: expected a measure or a list of measures [makespan penalty]", item.span)
        else:
            values["objective"], values["objectives"] = measures[0], tuple(measures)
    elif key in _FAMILY_FIELDS:
        word = word_of(raw)
        if word is None:
            out.error("E110", f"{key}: expected a name or a string", item.span)
        else:
            values[key] = word
    elif key == "kinds":
        names = [word_of(r) for r in raw[1]] if raw[0] == "list" else [word_of(raw)]
        unknown = [n for n in names if n not in KINDS]
        if unknown:
            out.error("E108", f"unknown constraint kind(s): {', '.join(map(str, unknown))}", item.span)
        values["kinds"] = tuple(n for n in names if n)
    elif key in _PAIR_FIELDS:
        items = raw[1] if raw[0] == "list" else []
        words = [word_of(r) for r in items]
        if len(words) % 2 or None in words:
            out.error("E110", f"{key}: expected a list of pairs [name \"word\" ...]", item.span)
        else:
            values[key] = tuple(zip(words[::2], words[1::2], strict=True))
    else:
        out.error("E123", f"unknown family field {key!r}", item.span,
                  "fields: " + ", ".join([*_FAMILY_FIELDS, *_PAIR_FIELDS, "kinds", "class", "decision", "plan"]))
