"""The semantic pass: cross-reference and sanity checks over a whole instance.

Runs after parsing (and on importer output) and reports *all* problems at once:
duplicate and undefined names, kinds that do not fit the family's decision structure,
values outside the calendar, impossible data (a demand larger than its resource's
capacity, a precedence cycle, min > max) and absurd sizes. Checks of individual
constraint kinds are dispatched through a table keyed by the kind's class.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from schedc.core.diagnostics import Diagnostic, SchedcError, Span
from schedc.ir import Family, Instance
from schedc.ir.answer_roles import mode_roles, role_fields, role_members
from schedc.kinds import (
    ANY_STRUCTURE_KINDS,
    INTERVAL_KINDS,
    AttrRef,
    Constraint,
    Selector,
    ValueFilter,
    Windows,
    kind_name,
)
from schedc.kinds.context import WEEKEND_DEFINITIONS
from schedc.kinds.timing import HORIZON
from schedc.lang.kind_checks import (
    CONSTRAINT_CHECKS,
    MAX_DAYS,
    MAX_ITEMS,
    MAX_TIME,
    check_annotations,
    known_names,
    solver_forms,
)


class Checker:
    """Accumulates the diagnostics of one instance."""

    def __init__(self, instance: Instance, family: Family, file: str):
        self.instance = instance
        self.family = family
        self.file = file
        self.diagnostics: list[Diagnostic] = []
        self._seen: set[Diagnostic] = set()
        self.resources = {r.name: r for r in instance.resources}
        self.activities = {a.name: a for a in instance.activities}
        self.jobs = {a.job: a for a in instance.activities if a.job is not None}
        self.by_class: dict[str, dict[str, Any]] = {}
        for e in instance.entities:
            self.by_class.setdefault(e.cls, {})[e.name] = e

    def error(self, code: str, message: str, span: Span | None, hint: str | None = None) -> None:
        """Record a diagnostic; the same one twice (two items of one table row, say) is recorded once."""
        diag = Diagnostic(code=code, message=message, file=self.file, span=span.head() if span else None,
                          hint=hint)
        if diag not in self._seen:
            self._seen.add(diag)
            self.diagnostics.append(diag)

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
        for measure in inst.objective.measures():
            if not fam.allows(measure):
                allowed = " or ".join(fam.objectives or (fam.objective,))
                self.error("E117", f"family {fam.name} minimises {allowed}, not {measure}", inst.objective.span)
        for c in inst.constraints:
            if kind_name(c) in ANY_STRUCTURE_KINDS:
                continue
            interval_kind = kind_name(c) in INTERVAL_KINDS
            if interval_kind != (fam.structure == "interval"):
                self.error("E117", f"kind {kind_name(c)} does not fit the {fam.structure} structure of "
                           f"family {fam.name}", c.span)
        self.duplicates(((c.id, c.span) for c in inst.constraints), "constraint id")
        self.check_horizon()

    def check_horizon(self) -> None:
        """A ``horizon`` bounds the end of every activity (interval families only); its violations are
        reported under the id ``horizon``, which no rule may then take."""
        inst, fam = self.instance, self.family
        if inst.horizon is None:
            return
        if fam.structure != "interval":
            self.error("E117", f"family {fam.name} assigns slots: its horizon is the calendar, not a `horizon` "
                       "statement", inst.horizon_span or inst.span,
                       "drop the horizon statement (calendar days=N sets the days)")
        for c in inst.constraints:
            if c.id == HORIZON:
                self.error("E201", f"constraint id {HORIZON!r} is taken by the instance's horizon (its "
                           "violations are reported under that name)", c.span, "rename the constraint")

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
        self.check_roles()

    def check_roles(self) -> None:
        """An answer line that names the mode by its resources per role (``room=<room>``, a family class; see
        :mod:`schedc.ir.answer_roles`) needs every member of a role to be a unary resource, every mode to use
        exactly one resource of each role, and the modes of an activity to differ in them (E214)."""
        roles = role_fields(self.family)
        if not roles:
            return
        members = role_members(self.instance, roles)
        for role in roles:
            for e in self.by_class.get(role, {}).values():
                resource = self.resources.get(e.name)
                if resource is None or resource.kind != "unary":
                    what = "not a resource" if resource is None else f"a {resource.kind} resource"
                    self.error("E214", f"{role} {e.name!r} is {what}: the answer names each mode's {role}, a unary "
                               "resource", e.span, f"declare {e.name} in the resources table as '{e.name} unary'")
        for a in self.instance.activities:
            self.check_mode_roles(a, roles, members)

    def check_mode_roles(self, a: Any, roles: tuple[str, ...], members: dict[str, str]) -> None:
        seen: dict[tuple[str, ...], int] = {}
        for number, mode in enumerate(a.modes, start=1):
            used = mode_roles(mode, members)
            for role in roles:
                if len(used.get(role, ())) != 1:
                    found = ", ".join(used.get(role, ())) or "none"
                    self.error("E214", f"activity {a.name} mode {number} uses {len(used.get(role, ()))} {role} "
                               f"resources ({found}); the answer names the one {role} of the chosen mode", a.span,
                               f"each mode needs exactly one of the {role} resources "
                               f"{', '.join(n for n, r in members.items() if r == role) or '(none declared)'}")
            key = tuple(used[r][0] for r in roles if len(used.get(r, ())) == 1)
            if len(key) == len(roles) and key in seen:
                pairs = ", ".join(f"{r}={n}" for r, n in zip(roles, key, strict=True))
                self.error("E214", f"activity {a.name} modes {seen[key]} and {number} both use {pairs}: an answer "
                           "naming them could not tell them apart", a.span,
                           "merge the two modes or give one of them another resource")
            seen.setdefault(key, number)

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
                       known_names(self.resources))
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
        solver_forms(self, c)
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

    def value(self, name: str, c: Constraint, allow_any: bool = False, at: Span | None = None) -> None:
        """``name`` is a value of the decision; ``at`` is the table row that names it (else the statement)."""
        if allow_any and name == "*":
            return
        if name not in self.value_names():
            decision = self.family.decision
            self.error("E202", f"{c.id}: undefined {decision.value if decision else 'value'} {name!r}",
                       at or c.span, known_names(self.value_names()))

    def agent(self, name: str, c: Constraint, at: Span | None = None) -> None:
        decision = self.family.decision
        if decision and name not in self.by_class.get(decision.agent, {}):
            self.error("E202", f"{c.id}: undefined {decision.agent} {name!r}", at or c.span,
                       known_names(self.by_class.get(decision.agent, {})))

    def value_filter(self, vf: ValueFilter, c: Constraint) -> None:
        for v in vf.values:
            self.value(v, c)

    def day(self, day: int, c: Constraint, period: int | None = None, at: Span | None = None) -> None:
        cal = self.instance.calendar
        if cal is None:
            return
        if not 0 <= day < cal.days:
            self.error("E208", f"{c.id}: day {day} is outside the calendar (days 0..{cal.days - 1})", at or c.span)
        if period is not None and not 0 <= period < cal.periods_per_day:
            self.error("E208", f"{c.id}: period {period} is outside 0..{cal.periods_per_day - 1}", at or c.span)

    def bound(self, bound: Any, sel: Selector, c: Constraint) -> None:
        if isinstance(bound, AttrRef):
            cls = self.family.entity_class(sel.cls)
            decl = cls.attribute(bound.attr) if cls else None
            if cls is not None and (decl is None or decl.type != "int"):
                self.error("E209", f"{c.id}: @{bound.attr} is not an int attribute of {sel.cls}", c.span)

    def bounds(self, lo: Any, hi: Any, c: Constraint, at: Span | None = None) -> None:
        if isinstance(lo, int) and isinstance(hi, int) and lo > hi:
            self.error("E210", f"{c.id}: min {lo} is greater than max {hi}", at or c.span)
        if lo is None and hi is None:
            self.error("E210", f"{c.id}: give min=, max= or both", at or c.span)

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


def check_instance(instance: Instance, family: Family | None = None, file: str = "<input>",
                   source: str | None = None) -> None:
    """Raise a SchedcError listing every semantic problem of ``instance`` (none: return)."""
    if family is None:
        from schedc.lang.family import load_family

        family = load_family(instance.family)
    diagnostics = Checker(instance, family, file).run()
    if diagnostics:
        raise SchedcError(diagnostics, source)
