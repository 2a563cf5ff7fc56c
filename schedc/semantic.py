"""The semantic pass: cross-reference and sanity checks over a whole instance.

Runs after parsing (and on importer output) and reports *all* problems at once:
duplicate and undefined names, kinds that do not fit the family's decision structure,
values outside the calendar, impossible data (a demand larger than its resource's
capacity, a precedence cycle, min > max) and absurd sizes. Checks of individual
constraint kinds are dispatched through a table keyed by the kind's class.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

import msgspec

from schedc.diagnostics import Diagnostic, SchedcError, Span
from schedc.ir import WEEKDAYS, Family, Instance
from schedc.kinds import (
    ANY_STRUCTURE_KINDS,
    INTERVAL_KINDS,
    AssignmentCost,
    AttrRef,
    CapacityOverflow,
    Compactness,
    ConsecutiveRunBounds,
    Constraint,
    CountBounds,
    Coverage,
    CumulativeRenewable,
    NonrenewableBudget,
    ObjectiveBound,
    OnePerSlot,
    PatternProhibition,
    PrecedenceLag,
    ResourceDowntime,
    Selector,
    SlotConflict,
    Spread,
    Stability,
    Tardiness,
    TimeWindow,
    UnaryNoOverlap,
    Unavailability,
    ValueFilter,
    WindowPatternCost,
    Windows,
    kind_name,
)
from schedc.kinds.context import WEEKEND_DEFINITIONS
from schedc.kinds.costs import ANY_DAY

MAX_TIME = 10**9
MAX_ITEMS = 10**6
MAX_DAYS = 10_000


class Checker:
    """Accumulates the diagnostics of one instance."""

    def __init__(self, instance: Instance, family: Family, file: str):
        self.instance = instance
        self.family = family
        self.file = file
        self.diagnostics: list[Diagnostic] = []
        self.resources = {r.name: r for r in instance.resources}
        self.activities = {a.name: a for a in instance.activities}
        self.jobs = {a.job: a for a in instance.activities if a.job is not None}
        self.by_class: dict[str, dict[str, Any]] = {}
        for e in instance.entities:
            self.by_class.setdefault(e.cls, {})[e.name] = e

    def error(self, code: str, message: str, span: Span | None, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(code=code, message=message, file=self.file, span=span, hint=hint))

    # ---------------------------------------------------------------- whole instance

    def run(self) -> list[Diagnostic]:
        self.check_structure()
        self.check_interval_data()
        self.check_slot_data()
        for c in self.instance.constraints:
            self.check_constraint(c)
        return self.diagnostics

    def check_structure(self) -> None:
        inst, fam = self.instance, self.family
        if fam.structure == "slot" and inst.calendar is None:
            self.error("E116", f"family {fam.name} assigns slots: the instance needs a calendar", inst.span,
                       "e.g. calendar days=28")
        if fam.structure == "slot" and (inst.activities or inst.resources):
            self.error("E117", f"family {fam.name} assigns slots; activities and resources belong to "
                       "interval families", (inst.activities or inst.resources)[0].span)
        if fam.structure == "interval" and inst.entities and not fam.classes:
            self.error("E117", f"family {fam.name} schedules intervals and declares no entity classes",
                       inst.entities[0].span)
        if not fam.allows(inst.objective.measure):
            allowed = " or ".join(fam.objectives or (fam.objective,))
            self.error("E117", f"family {fam.name} minimises {allowed}, not {inst.objective.measure}",
                       inst.objective.span)
        for c in inst.constraints:
            if kind_name(c) in ANY_STRUCTURE_KINDS:
                continue
            interval_kind = kind_name(c) in INTERVAL_KINDS
            if interval_kind != (fam.structure == "interval"):
                self.error("E117", f"kind {kind_name(c)} does not fit the {fam.structure} structure of "
                           f"family {fam.name}", c.span)
        self.duplicates(((c.id, c.span) for c in inst.constraints), "constraint id")

    def duplicates(self, items: Iterable[tuple[str, Span | None]], what: str) -> None:
        seen: dict[str, Span | None] = {}
        for name, span in items:
            if name in seen:
                first = seen[name]
                where = f"; first defined at line {first.line}" if first else ""
                self.error("E201", f"duplicate {what} {name!r}{where}", span)
            else:
                seen[name] = span

    # ---------------------------------------------------------------- interval data

    def check_interval_data(self) -> None:
        inst = self.instance
        self.duplicates(((r.name, r.span) for r in inst.resources), "resource")
        self.duplicates(((a.name, a.span) for a in inst.activities), "activity")
        if len(inst.activities) > MAX_ITEMS:
            self.error("E207", f"{len(inst.activities)} activities is more than schedc handles ({MAX_ITEMS})",
                       inst.span)
        if inst.horizon is not None and inst.horizon > MAX_TIME:
            self.error("E207", f"horizon {inst.horizon} exceeds {MAX_TIME}", inst.span)
        for r in inst.resources:
            if r.capacity > MAX_TIME:
                self.error("E207", f"capacity {r.capacity} of {r.name} exceeds {MAX_TIME}", r.span)
        for a in inst.activities:
            self.check_activity(a)

    def check_activity(self, a: Any) -> None:
        """Modes must use defined resources; at least one mode must fit every capacity.

        A mode that needs more than a resource's capacity can never run (real multi-mode
        PSPLIB files contain such modes); it is an error only when no mode of the activity
        can run, since then no schedule exists.
        """
        if not a.modes:
            self.error("E202", f"activity {a.name} has no mode", a.span)
            return
        too_large: list[str] = []
        for number, mode in enumerate(a.modes, start=1):
            if mode.duration > MAX_TIME:
                self.error("E207", f"duration {mode.duration} of {a.name} exceeds {MAX_TIME}", a.span)
            problems = [p for use in mode.uses if (p := self.check_use(a, number, use))]
            if problems:
                too_large.append(problems[0])
        if len(too_large) == len(a.modes):
            self.error("E206", f"activity {a.name} cannot run: {too_large[0]}"
                       + (" (and every other mode exceeds a capacity too)" if len(a.modes) > 1 else ""),
                       a.span, "a demand larger than its resource's capacity can never be scheduled")

    def check_use(self, a: Any, number: int, use: Any) -> str | None:
        """Report undefined resources and negative amounts; return why the use exceeds capacity."""
        resource = self.resources.get(use.resource)
        if resource is None:
            self.error("E202", f"activity {a.name} uses undefined resource {use.resource!r}", a.span,
                       _known(self.resources))
            return None
        if use.amount < 0:
            self.error("E203", f"activity {a.name} mode {number} has a negative amount of {use.resource}", a.span)
        elif use.amount > resource.capacity:
            return (f"mode {number} needs {use.amount} of {resource.name}, more than its capacity "
                    f"{resource.capacity}")
        return None

    # ---------------------------------------------------------------- slot data

    def check_slot_data(self) -> None:
        inst, fam = self.instance, self.family
        cal = inst.calendar
        if cal is not None and cal.days > MAX_DAYS:
            self.error("E207", f"{cal.days} days exceeds {MAX_DAYS}", cal.span)
        for cls in self.by_class:
            self.duplicates(((e.name, e.span) for e in inst.entities if e.cls == cls), cls)
        decision = fam.decision
        if fam.structure == "slot" and decision is not None:
            if decision.free is not None and decision.free not in self.by_class.get(decision.value, {}):
                self.error("E202", f"the free value {decision.free!r} is not a {decision.value}", inst.span)

    # ---------------------------------------------------------------- constraints

    def check_constraint(self, c: Constraint) -> None:
        check_annotations(self, c)
        handler = CONSTRAINT_CHECKS.get(type(c))
        if handler is not None:
            handler(self, c)

    def selector(self, sel: Selector, c: Constraint) -> None:
        members = self.by_class.get(sel.cls)
        cls = self.family.entity_class(sel.cls)
        if cls is None:
            self.error("E202", f"{c.id}: unknown class {sel.cls!r}", c.span,
                       "classes: " + ", ".join(k.name for k in self.family.classes))
            return
        for attr, _ in sel.where:
            if cls.attribute(attr) is None:
                self.error("E202", f"{c.id}: class {sel.cls} has no attribute {attr!r}", c.span)
        for name in sel.names:
            if name not in (members or {}):
                self.error("E202", f"{c.id}: undefined {sel.cls} {name!r}", c.span)

    def selected(self, sel: Selector) -> list[Any]:
        """The entities a selector denotes (as :meth:`EvalContext.select` reads it)."""
        members = self.by_class.get(sel.cls, {})
        if sel.names:
            return [members[n] for n in sel.names if n in members]
        return [e for e in members.values() if all(str(e.attrs.get(k)) == v for k, v in sel.where)]

    def value_names(self) -> dict[str, Any]:
        decision = self.family.decision
        return self.by_class.get(decision.value, {}) if decision else {}

    def value(self, name: str, c: Constraint, allow_any: bool = False) -> None:
        if allow_any and name == "*":
            return
        if name not in self.value_names():
            decision = self.family.decision
            self.error("E202", f"{c.id}: undefined {decision.value if decision else 'value'} {name!r}", c.span,
                       _known(self.value_names()))

    def agent(self, name: str, c: Constraint) -> None:
        decision = self.family.decision
        if decision and name not in self.by_class.get(decision.agent, {}):
            self.error("E202", f"{c.id}: undefined {decision.agent} {name!r}", c.span,
                       _known(self.by_class.get(decision.agent, {})))

    def value_filter(self, vf: ValueFilter, c: Constraint) -> None:
        for v in vf.values:
            self.value(v, c)

    def day(self, day: int, c: Constraint, period: int | None = None) -> None:
        cal = self.instance.calendar
        if cal is None:
            return
        if not 0 <= day < cal.days:
            self.error("E208", f"{c.id}: day {day} is outside the calendar (days 0..{cal.days - 1})", c.span)
        if period is not None and not 0 <= period < cal.periods_per_day:
            self.error("E208", f"{c.id}: period {period} is outside 0..{cal.periods_per_day - 1}", c.span)

    def bound(self, bound: Any, sel: Selector, c: Constraint) -> None:
        if isinstance(bound, AttrRef):
            cls = self.family.entity_class(sel.cls)
            decl = cls.attribute(bound.attr) if cls else None
            if cls is not None and (decl is None or decl.type != "int"):
                self.error("E209", f"{c.id}: @{bound.attr} is not an int attribute of {sel.cls}", c.span)

    def bounds(self, lo: Any, hi: Any, c: Constraint) -> None:
        if isinstance(lo, int) and isinstance(hi, int) and lo > hi:
            self.error("E210", f"{c.id}: min {lo} is greater than max {hi}", c.span)
        if lo is None and hi is None:
            self.error("E210", f"{c.id}: give min=, max= or both", c.span)

    def windows(self, w: Windows, c: Constraint) -> None:
        if w.over == "weekends" and w.weekend not in WEEKEND_DEFINITIONS:
            self.error("E211", f"{c.id}: unknown weekend definition {w.weekend!r}", c.span,
                       "definitions: " + ", ".join(WEEKEND_DEFINITIONS))
        elif w.over == "weekends" and self.instance.calendar and self.instance.calendar.first_weekday_index() is None:
            self.error("E211", f"{c.id}: weekends need a calendar with start_date or start_weekday", c.span)

    def group_class(self, groups: str, members: str, c: Constraint) -> None:
        cls = self.family.entity_class(groups)
        if cls is None:
            self.error("E202", f"{c.id}: unknown group class {groups!r}", c.span)
        elif (decl := cls.attribute(members)) is None or decl.type != "names":
            self.error("E209", f"{c.id}: class {groups} has no list attribute {members!r}", c.span)
        else:
            agents = self.by_class.get(self.family.decision.agent if self.family.decision else "", {})
            for g in self.by_class.get(groups, {}).values():
                for m in g.attrs.get(members, ()):
                    if m not in agents:
                        self.error("E202", f"{c.id}: {groups} {g.name} lists undefined member {m!r}", g.span)


def _known(names: dict[str, Any], limit: int = 8) -> str | None:
    if not names:
        return None
    shown = list(names)[:limit]
    return "known: " + ", ".join(shown) + (", ..." if len(names) > limit else "")


# ------------------------------------------------------------------- checks read from the kinds' annotations


def check_annotations(ch: Checker, c: Constraint) -> None:
    """What the kind's field annotations demand of every constraint and table row.

    A field annotated with a minimum (:data:`schedc.kinds.base.NonNegative`, ``Positive``) is
    at least that value — also every agent's attribute an ``@attribute`` bound reads; the rows of
    a table whose struct declares ``KEY`` have distinct keys.
    """
    for name, low in field_minimums(type(c)):
        value = getattr(c, name)
        if isinstance(value, AttrRef):
            _attribute_at_least(ch, c, name, value, low)
        elif isinstance(value, int) and value < low:
            ch.error("E203", f"{c.id}: {name} must be at least {low}, found {value}", c.span)
    if c.TABLE_FIELD is None:
        return
    rows = getattr(c, c.TABLE_FIELD)
    for index, row in enumerate(rows, start=1):
        for name, low in field_minimums(type(row)):
            value = getattr(row, name)
            if isinstance(value, int) and value < low:
                ch.error("E203", f"{c.id}: {name} must be at least {low}, found {value} (table entry {index}: "
                         f"{_row_text(row)})", c.span)
    _duplicate_rows(ch, c, rows)


def _attribute_at_least(ch: Checker, c: Constraint, name: str, ref: AttrRef, low: int) -> None:
    """Every selected agent's attribute that bound ``name`` reads is at least ``low``."""
    sel = getattr(c, "agents", None)
    if not isinstance(sel, Selector):
        return
    for e in ch.selected(sel):
        value = e.attrs.get(ref.attr)
        if isinstance(value, int) and not isinstance(value, bool) and value < low:
            ch.error("E203", f"{c.id}: {name}=@{ref.attr} must be at least {low}, but {e.cls} {e.name} has "
                     f"{ref.attr} {value}", e.span or c.span)


def _duplicate_rows(ch: Checker, c: Constraint, rows: tuple[Any, ...]) -> None:
    """Rows of one table sharing their struct's ``KEY`` (the same fact stated twice, or two ways).

    One error per table: the first repeated entry, and how many there are (a repeated row of a
    dense table repeats all of its entries).
    """
    fields = getattr(type(rows[0]), "KEY", None) if rows else None
    if not fields:
        return
    first: dict[tuple[Any, ...], int] = {}
    repeats: list[tuple[int, int, Any]] = []
    for index, row in enumerate(rows, start=1):
        key = tuple(getattr(row, f) for f in fields)
        if key in first:
            repeats.append((index, first[key], row))
        else:
            first[key] = index
    if repeats:
        index, earlier, row = repeats[0]
        more = f"; {len(repeats)} repeated entries in all" if len(repeats) > 1 else ""
        ch.error("E201", f"{c.id}: table entry {index} ({_row_text(row)}) repeats entry {earlier} (the same "
                 f"{', '.join(fields)}){more}", c.span, "each key may appear once in a table: remove or merge "
                 "the repeated row")


def _row_text(row: Any) -> str:
    """A table entry as ``field=value`` pairs (for messages)."""
    return " ".join(f"{f}={getattr(row, f)}" for f in row.__struct_fields__)


@cache
def field_minimums(cls: type) -> tuple[tuple[str, int], ...]:
    """(field, minimum) for every field of a struct whose annotation carries ``msgspec.Meta(ge=…)``."""
    hints = typing.get_type_hints(cls, include_extras=True)
    out = []
    for name in cls.__struct_fields__:
        low = _ge(hints[name])
        if low is not None:
            out.append((name, low))
    return tuple(out)


def _ge(tp: Any) -> int | None:
    """The ``ge`` bound of an annotation (searched through unions), or None."""
    if typing.get_origin(tp) is typing.Annotated:
        return next((m.ge for m in tp.__metadata__ if isinstance(m, msgspec.Meta) and m.ge is not None), None)
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return next((low for arg in typing.get_args(tp) if (low := _ge(arg)) is not None), None)
    return None


# ------------------------------------------------------------------- per-kind checks


def _precedence(ch: Checker, c: PrecedenceLag) -> None:
    succ: dict[str, list[str]] = {}
    for e in c.edges:
        for name in (e.before, e.after):
            if name not in ch.activities:
                ch.error("E202", f"{c.id}: undefined activity {name!r}", c.span, _known(ch.activities))
        if e.lag > MAX_TIME:
            ch.error("E207", f"{c.id}: lag {e.lag} exceeds {MAX_TIME}", c.span)
        succ.setdefault(e.before, []).append(e.after)
    cycle = _find_cycle(succ)
    if cycle:
        ch.error("E205", f"{c.id}: precedence cycle {' -> '.join(cycle)}", c.span,
                 "no schedule can satisfy a cycle of end-to-start precedences")


def _find_cycle(succ: dict[str, list[str]]) -> list[str] | None:
    """A cycle of the graph as a list of nodes (first repeated last), or None (iterative DFS)."""
    state: dict[str, int] = {}
    for root in succ:
        if state.get(root):
            continue
        stack = [(root, iter(succ.get(root, ())))]
        path = [root]
        state[root] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state.get(child) == 1:
                return path[path.index(child):] + [child]
            elif not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append((child, iter(succ.get(child, ()))))
    return None


def _resource_scope(kind: str) -> Callable[[Checker, Any], None]:
    def check(ch: Checker, c: Any) -> None:
        if c.resources == "all":
            return
        for name in c.resources:
            r = ch.resources.get(name)
            if r is None:
                ch.error("E202", f"{c.id}: undefined resource {name!r}", c.span, _known(ch.resources))
            elif r.kind != kind:
                ch.error("E209", f"{c.id}: resource {name} is {r.kind}, not {kind}", c.span)
    return check


def _target(ch: Checker, target: str, c: Constraint) -> None:
    """A time row's target must be a job (the ``job`` of some activity) or an activity."""
    if target not in ch.activities and target not in ch.jobs:
        ch.error("E202", f"{c.id}: {target!r} is neither a job nor an activity", c.span,
                 _known(ch.jobs) or _known(ch.activities))


def _time_window(ch: Checker, c: TimeWindow) -> None:
    for w in c.windows:
        _target(ch, w.target, c)
        if max(w.release, w.deadline or 0) > MAX_TIME:
            ch.error("E207", f"{c.id}: a time of {w.target} exceeds {MAX_TIME}", c.span)
        if w.deadline is not None and w.deadline <= w.release:
            ch.error("E210", f"{c.id}: deadline {w.deadline} of {w.target} is not after its release {w.release}",
                     c.span)


def _downtime(ch: Checker, c: ResourceDowntime) -> None:
    for w in c.windows:
        r = ch.resources.get(w.resource)
        if r is None:
            ch.error("E202", f"{c.id}: undefined resource {w.resource!r}", c.span, _known(ch.resources))
        elif r.kind == "nonrenewable":
            ch.error("E209", f"{c.id}: resource {w.resource} is nonrenewable; only unary and renewable "
                     "resources can be down", c.span)
        if w.end > MAX_TIME:
            ch.error("E207", f"{c.id}: downtime end {w.end} exceeds {MAX_TIME}", c.span)


def _tardiness(ch: Checker, c: Tardiness) -> None:
    for d in c.due_dates:
        _target(ch, d.target, c)
        if d.due > MAX_TIME:
            ch.error("E207", f"{c.id}: due date {d.due} of {d.target} exceeds {MAX_TIME}", c.span)


def _objective_bound(ch: Checker, c: ObjectiveBound) -> None:
    """A bound on the objective is hard, bounds the instance's own measure and fits the time range."""
    if not c.hard:
        ch.error("E212", f"{c.id}: an objective_bound must be hard", c.span,
                 "write `hard objective_bound ...`; a soft bound would be part of the objective itself")
    measure = ch.instance.objective.measure
    if c.measure != measure:
        ch.error("E212", f"{c.id}: the instance minimises {measure}, so its bound must have measure={measure}, "
                 f"not {c.measure}", c.span)
    if c.max > MAX_TIME:
        ch.error("E207", f"{c.id}: bound {c.max} exceeds {MAX_TIME}", c.span)


def _coverage(ch: Checker, c: Coverage) -> None:
    for r in c.requirements:
        ch.day(r.day, c, r.period)
        ch.value(r.value, c)
        ch.bounds(r.min, r.max, c)


def _count_bounds(ch: Checker, c: CountBounds) -> None:
    ch.selector(c.agents, c)
    ch.value_filter(c.values, c)
    ch.bound(c.min, c.agents, c)
    ch.bound(c.max, c.agents, c)
    ch.bounds(c.min, c.max, c)


def _runs(ch: Checker, c: ConsecutiveRunBounds) -> None:
    ch.selector(c.agents, c)
    ch.value_filter(c.values, c)
    ch.windows(c.over, c)
    ch.bounds(c.min, c.max, c)


def _pattern(ch: Checker, c: PatternProhibition) -> None:
    ch.selector(c.agents, c)
    if not c.pattern:
        ch.error("E210", f"{c.id}: empty pattern", c.span)
    for entry in c.pattern:
        if entry not in ("work", "free"):
            ch.value(entry, c)
    if c.anchor is not None and c.anchor not in WEEKDAYS:
        ch.error("E211", f"{c.id}: unknown weekday {c.anchor!r}", c.span, "weekdays: " + ", ".join(WEEKDAYS))
    elif c.anchor is not None and ch.instance.calendar and ch.instance.calendar.first_weekday_index() is None:
        ch.error("E211", f"{c.id}: a weekday anchor needs a calendar with start_date or start_weekday", c.span)


def _window(ch: Checker, c: WindowPatternCost) -> None:
    ch.selector(c.agents, c)
    ch.windows(c.windows, c)
    if c.cost == "table" and not c.table:
        ch.error("E210", f"{c.id}: cost=table needs a table of W/F patterns", c.span)


def _agents_only(ch: Checker, c: Any) -> None:
    ch.selector(c.agents, c)
    if isinstance(c, Spread):
        ch.bound(c.min, c.agents, c)


def _unavailability(ch: Checker, c: Unavailability) -> None:
    for u in c.slots:
        ch.agent(u.agent, c)
        ch.day(u.day, c, u.period)


def _assignment_cost(ch: Checker, c: AssignmentCost) -> None:
    for e in c.entries:
        ch.agent(e.agent, c)
        if e.day != ANY_DAY:
            ch.day(e.day, c)
        ch.value(e.value, c, allow_any=True)


def _capacity(ch: Checker, c: CapacityOverflow) -> None:
    d = ch.family.decision
    if d is None:
        return
    for cls_name, attr in ((d.agent, c.demand), (d.value, c.capacity)):
        cls = ch.family.entity_class(cls_name)
        decl = cls.attribute(attr) if cls else None
        if decl is None or decl.type != "int":
            ch.error("E209", f"{c.id}: {cls_name} has no int attribute {attr!r}", c.span)


def _conflict(ch: Checker, c: SlotConflict) -> None:
    if c.groups is None and c.by is None:
        ch.error("E210", f"{c.id}: give groups=CLASS, by=ATTRIBUTE or both", c.span)
    if c.groups is not None:
        ch.group_class(c.groups, c.members, c)
    if c.by is not None and ch.family.decision is not None:
        cls = ch.family.entity_class(ch.family.decision.agent)
        if cls is None or cls.attribute(c.by) is None:
            ch.error("E209", f"{c.id}: {ch.family.decision.agent} has no attribute {c.by!r}", c.span)


def _compactness(ch: Checker, c: Compactness) -> None:
    ch.group_class(c.groups, c.members, c)


def _no_check(ch: Checker, c: Any) -> None:
    return None


CONSTRAINT_CHECKS: dict[type, Callable[[Checker, Any], None]] = {
    PrecedenceLag: _precedence,
    UnaryNoOverlap: _resource_scope("unary"),
    CumulativeRenewable: _resource_scope("renewable"),
    NonrenewableBudget: _resource_scope("nonrenewable"),
    Coverage: _coverage,
    CountBounds: _count_bounds,
    ConsecutiveRunBounds: _runs,
    PatternProhibition: _pattern,
    WindowPatternCost: _window,
    Spread: _agents_only,
    Stability: _agents_only,
    Unavailability: _unavailability,
    AssignmentCost: _assignment_cost,
    CapacityOverflow: _capacity,
    SlotConflict: _conflict,
    Compactness: _compactness,
    OnePerSlot: _no_check,
    TimeWindow: _time_window,
    ResourceDowntime: _downtime,
    Tardiness: _tardiness,
    ObjectiveBound: _objective_bound,
}


def check_instance(instance: Instance, family: Family | None = None, file: str = "<input>",
                   source: str | None = None) -> None:
    """Raise a SchedcError listing every semantic problem of ``instance`` (none: return)."""
    if family is None:
        from schedc.family import load_family

        family = load_family(instance.family)
    diagnostics = Checker(instance, family, file).run()
    if diagnostics:
        raise SchedcError(diagnostics, source)
