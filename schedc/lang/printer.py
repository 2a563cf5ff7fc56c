"""The canonical printer: IR → ``.sched`` text.

``parse(print(ir))`` equals ``ir`` (spans aside) and ``print(parse(text))`` is a fixed
point, which is what ``schedc fmt`` relies on. Layout rules: one statement per line, bulk
data in ``table … end`` blocks indented by two blanks, constraint parameters in field
order with defaults omitted.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import groupby

from schedc.ir import Activity, Entity, Family, Instance, Meta, Resource
from schedc.kinds import KINDS, Constraint, TableContext, kind_name
from schedc.kinds.costs import AssignmentCost, is_dense_grid
from schedc.kinds.measures import format_objective
from schedc.lang.constraint_stmt import COMMON_FIELDS
from schedc.lang.params import field_types, format_value, quote, quote_word

INDENT = "  "
NAMES_PER_ROW = 20


def print_instance(instance: Instance, family: Family | None = None) -> str:
    """The canonical text of an instance."""
    if family is None:
        from schedc.lang.family import load_family

        family = load_family(instance.family)
    lines = [f"instance {instance.name} family {instance.family}"]
    lines += _meta(instance.meta)
    if instance.horizon is not None:
        lines.append(f"horizon {instance.horizon}")
    if instance.calendar is not None:
        lines.append(_calendar(instance))
    if instance.resources:
        lines += _table("resources", None, (_resource_row(r) for r in instance.resources))
    if instance.activities:
        lines += _activities(instance.activities, instance.resources)
    for cls_name, group in groupby(instance.entities, key=lambda e: e.cls):
        lines += _entities(cls_name, list(group), family)
    ctx = _context(instance, family)
    for constraint in instance.constraints:
        lines += _constraint(constraint, ctx)
    lines.append(f"minimize {format_objective(instance.objective.measure, instance.objective.terms)}")
    return "\n".join(lines) + "\n"


def _context(instance: Instance, family: Family) -> TableContext:
    value_cls = family.decision.value if family.decision else None
    return TableContext(days=instance.calendar.days if instance.calendar else 0,
                        values=tuple(e.name for e in instance.entities if e.cls == value_cls))


def _meta(meta: Meta) -> list[str]:
    items = [(k, getattr(meta, k)) for k in field_types(Meta) if k != "span" and getattr(meta, k) is not None]
    if not items:
        return []
    return ["meta {"] + [f"{INDENT}{k} {_scalar(v)}" for k, v in items] + ["}"]


def _scalar(value: object) -> str:
    return str(value) if isinstance(value, int) else quote_word(str(value))


def _calendar(instance: Instance) -> str:
    cal = instance.calendar
    assert cal is not None
    parts = [f"days={cal.days}"]
    if cal.periods_per_day != 1:
        parts.append(f"periods_per_day={cal.periods_per_day}")
    if cal.start_date is not None:
        parts.append(f"start_date={cal.start_date.isoformat()}")
    if cal.start_weekday is not None:
        parts.append(f"start_weekday={cal.start_weekday}")
    return "calendar " + " ".join(parts)


def _table(head: str, columns: Sequence[str] | None, rows: Iterator[str] | Sequence[str]) -> list[str]:
    cols = f" ({' '.join(columns)})" if columns is not None else ""
    return [f"{head}{cols} table", *(INDENT + r for r in rows), "end"]


def _resource_row(r: Resource) -> str:
    return f"{r.name} {r.kind}" + ("" if r.kind == "unary" else f" {r.capacity}")


def _is_job_form(activities: Sequence[Activity]) -> bool:
    steps: dict[str, int] = {}
    for a in activities:
        if a.job is None or a.name != f"{a.job}.{a.step}" or a.step != steps.get(a.job, 0) + 1:
            return False
        steps[a.job] = a.step
        if any(len(m.uses) != 1 or m.uses[0].amount != 1 for m in a.modes):
            return False
    return True


def _activities(activities: Sequence[Activity], resources: Sequence[Resource]) -> list[str]:
    if _is_job_form(activities):
        rows = []
        for job, ops in groupby(activities, key=lambda a: a.job):
            cells = ["/".join(f"{m.uses[0].resource}:{m.duration}" for m in a.modes) for a in ops]
            rows.append(f"{job} " + " ".join(cells))
        return _table("jobs", None, rows)
    used = {u.resource for a in activities for m in a.modes for u in m.uses}
    columns = [r.name for r in resources if r.name in used]
    rows = []
    for a in activities:
        for number, mode in enumerate(a.modes, start=1):
            amounts = {u.resource: u.amount for u in mode.uses}
            rows.append(" ".join([a.name, str(number), str(mode.duration), *(str(amounts.get(c, 0)) for c in columns)]))
    return _table("activities", columns, rows)


def _entities(cls_name: str, entities: Sequence[Entity], family: Family) -> list[str]:
    cls = family.entity_class(cls_name)
    attrs = [a.name for a in cls.attributes] if cls else sorted(entities[0].attrs)
    if not attrs:
        names = [_cell(e.name) for e in entities]
        return _table(cls_name, attrs, (" ".join(names[i:i + NAMES_PER_ROW])
                                         for i in range(0, len(names), NAMES_PER_ROW)))
    return _table(cls_name, attrs, (" ".join([_cell(e.name)] + [_attr_cell(e.attrs.get(a)) for a in attrs])
                                     for e in entities))


def _cell(text: str) -> str:
    if text and not any(c.isspace() or c in '"#' for c in text) and text != "end":
        return text
    return quote(text)


def _attr_cell(value: object) -> str:
    if isinstance(value, tuple):
        if not value:
            return "-"
        joined = ",".join(value)
        if any(not v or "," in v or v == "-" for v in value):
            raise ValueError(f"list attribute values cannot be empty, '-' or contain commas: {value!r}")
        return _cell(joined)
    return _cell(str(value))


def _constraint(c: Constraint, ctx: TableContext) -> list[str]:
    head = "hard" if c.hard else f"soft {c.weight}"
    if not c.active:
        head += " inactive " + _quoted(c.reason or "")
    line = f"{head} {kind_name(c)} {quote_word(c.id)}"
    cls = type(c)
    defaults = _defaults(cls)
    for name in field_types(cls):
        if name in COMMON_FIELDS or name == cls.TABLE_FIELD:
            continue
        value = getattr(c, name)
        if name in defaults and defaults[name] == value:
            continue
        line += f" {name}={format_value(value)}"
    if cls.TABLE_FIELD is None or (not getattr(c, cls.TABLE_FIELD) and cls.TABLE_FIELD in defaults):
        return [line]
    if isinstance(c, AssignmentCost) and c.layout == "dense" and not is_dense_grid(c.entries, ctx):
        raise ValueError(f"assignment_cost {c.id}: layout=dense needs a full agent x day x value grid")
    return _table(line, None, c.format_rows(ctx))


def _defaults(cls: type[Constraint]) -> dict[str, object]:
    import msgspec

    return {f.name: f.default for f in msgspec.structs.fields(cls) if f.default is not msgspec.NODEFAULT}


def print_family(family: Family) -> str:
    """The canonical text of a family spec."""
    lines = [f"family {family.name} {{"]
    if family.title:
        lines.append(f"{INDENT}title {_quoted(family.title)}")
    lines.append(f"{INDENT}structure {family.structure}")
    objective = f"[{' '.join(family.objectives)}]" if family.objectives else family.objective
    lines.append(f"{INDENT}objective {objective}")
    if family.kinds:
        lines.append(f"{INDENT}kinds [{' '.join(family.kinds)}]")
    for cls in family.classes:
        attrs = " ".join(f"{a.name}:{a.type}" for a in cls.attributes)
        lines.append(f"{INDENT}class {cls.name} ({attrs})")
    if family.decision is not None:
        d = family.decision
        text = f"{INDENT}decision agent={d.agent} value={d.value} grain={d.grain}"
        lines.append(text + (f" free={d.free}" if d.free else ""))
    if family.answer:
        lines.append(f"{INDENT}answer {_quoted(family.answer)}")
    if family.answer_header:
        lines.append(f"{INDENT}answer_header {_quoted(family.answer_header)}")
    if family.day_names != "index0":
        lines.append(f"{INDENT}day_names {family.day_names}")
    for key in ("rename", "roles"):
        pairs = getattr(family, key)
        if pairs:
            lines.append(f"{INDENT}{key} [" + " ".join(f"{r} {_quoted(w)}" for r, w in pairs) + "]")
    if family.plan:
        lines.append(f"{INDENT}plan [" + " ".join(p.category + ("*" if p.shuffle else "") for p in family.plan) + "]")
    if family.background:
        body = "\n".join(INDENT * 2 + ln if ln else "" for ln in family.background.split("\n"))
        lines.append(f'{INDENT}background """\n{body}\n{INDENT}"""')
    lines.append("}")
    return "\n".join(lines) + "\n"


_quoted = quote


__all__ = ["print_instance", "print_family", "KINDS"]
