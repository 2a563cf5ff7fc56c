"""The facts of an instance: the atomic pieces of meaning a faithful rendering must state.

A fact is identified by a tuple — ``("duration", "J1.2")``, ``("uses", "A3", 2, "N1")``,
``("edge", "J1.1", "J1.2")``, ``("capacity", "R1")``, ``("attr", "course", "Math", "lectures")``
— and carries the *values* a statement expressing it must print: integers (durations,
capacities, costs, bounds) and verbatim strings (attribute texts, dates). Integers inside an
identifier are positions (mode numbers, days, periods), never data. Renderers claim facts
per statement; tests check that every fact of :func:`facts` is claimed in every variant and
that every printed number traces to a claimed fact.

The enumeration dispatches on the constraint class through :data:`CONSTRAINT_FACTS` (one
small function per kind); inactive constraints state nothing and have no facts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from schedc.core.diagnostics import SchedcError
from schedc.ir import Family, Instance
from schedc.ir.nodes import WEEKDAYS
from schedc.kinds import (
    AssignmentCost,
    AttrRef,
    Bound,
    CapacityOverflow,
    Compactness,
    Consecutive,
    ConsecutiveRunBounds,
    Constraint,
    CountBounds,
    Coverage,
    CumulativeRenewable,
    ModeChoice,
    NoIdle,
    NonrenewableBudget,
    ObjectiveBound,
    OnePerSlot,
    OptionalActivities,
    PatternProhibition,
    PrecedenceLag,
    ResourceDowntime,
    ResourceTies,
    SameSequence,
    Selector,
    SetupTimes,
    SharedCapacity,
    SkillDemand,
    SkillEligibility,
    SkillRequirements,
    SlotConflict,
    SlotCost,
    SlotOrder,
    Spacing,
    Spread,
    Stability,
    Tardiness,
    TimeWindow,
    UnaryNoOverlap,
    Unavailability,
    ValueMix,
    WindowPatternCost,
    kind_name,
)
from schedc.kinds.context import WEEKEND_DEFINITIONS

FactId = tuple[str | int, ...]
FactValue = tuple[int | str, ...]
Facts = dict[FactId, FactValue]


F = TypeVar("F")


def per_instance(compute: Callable[[Instance], F]) -> Callable[[Instance], F]:
    """``compute`` remembered for the last few instances (by identity: IR nodes are immutable), so that
    the five variants of one instance enumerate its facts and claims once. Callers must not mutate
    the result."""
    recent: dict[int, tuple[Instance, F]] = {}

    def cached(instance: Instance) -> F:
        found = recent.get(id(instance))
        if found is not None and found[0] is instance:
            return found[1]
        value = compute(instance)
        if len(recent) >= 8:
            recent.pop(next(iter(recent)))
        recent[id(instance)] = (instance, value)
        return value

    cached.__doc__ = compute.__doc__
    cached.__wrapped__ = compute  # type: ignore[attr-defined]
    return cached


@per_instance
def facts(instance: Instance) -> Facts:
    """Every fact of ``instance``, in a stable order, with the values that state it."""
    out: Facts = {}
    _size_facts(instance, out)
    _activity_facts(instance, out)
    _calendar_facts(instance, out)
    if instance.horizon is not None and instance.activities:  # every end is at most the horizon
        out[("horizon",)] = (instance.horizon,)
    _entity_facts(instance, out)
    for constraint in instance.constraints:
        if constraint.active:
            handler = CONSTRAINT_FACTS.get(type(constraint))
            if handler is None:
                raise SchedcError.at("E601", f"no fact enumeration for constraint kind {kind_name(constraint)!r}")
            handler(constraint, instance, out)
            out.setdefault(("rule", constraint.id), rule_values(constraint))  # every rule is stated once
    objective = instance.objective  # a weighted sum prints its terms' weights
    weights = tuple(t.weight for t in objective.terms) if objective.measure == "sum" else ()
    out[("objective", objective.measure)] = weights
    return out


@per_instance
def facts_by_constraint(instance: Instance) -> dict[str, tuple[FactId, ...]]:
    """Active constraint id → the facts it contributes (its rule, its table rows, its quantified entities),
    in ledger order; a fact two constraints share (the same edge in two tables) is listed by both."""
    out: dict[str, tuple[FactId, ...]] = {}
    for constraint in instance.constraints:
        if constraint.active:
            own: Facts = {}
            CONSTRAINT_FACTS[type(constraint)](constraint, instance, own)
            own.setdefault(("rule", constraint.id), rule_values(constraint))
            out[constraint.id] = tuple(own)
    return out


def row_key(c: Constraint, *parts: str | int) -> FactId:
    """The id of a table-row fact of ``c``: ``parts`` for a hard rule; for a soft one, qualified by the
    constraint (``("soft", id, *parts)``), since its rows are stated by its own rule sentence and may
    repeat a hard rule's row (a soft and a hard window of one job)."""
    return parts if c.hard else ("soft", c.id, *parts)


# --------------------------------------------------------------------------- instance data


def _size_facts(instance: Instance, out: Facts) -> None:
    jobs = list(dict.fromkeys(a.job for a in instance.activities if a.job is not None))
    if jobs:
        out[("size", "jobs")] = (len(jobs),)
    unary = [r for r in instance.resources if r.kind == "unary"]
    if unary:
        out[("size", "machines")] = (len(unary),)
    free = [a for a in instance.activities if a.job is None]
    if free:
        out[("size", "activities")] = (len(free),)
    classes = list(dict.fromkeys(e.cls for e in instance.entities))
    for cls in classes:
        out[("size", cls)] = (sum(1 for e in instance.entities if e.cls == cls),)


def is_multi_mode(instance: Instance) -> bool:
    """True when some activity has several modes: then every duration and use id names its mode."""
    return any(len(a.modes) > 1 for a in instance.activities)


def _activity_facts(instance: Instance, out: Facts) -> None:
    """Durations and resource uses per mode; in a single-mode instance ids name no mode."""
    kinds = {r.name: r.kind for r in instance.resources}
    multi = is_multi_mode(instance)
    for activity in instance.activities:
        for number, mode in enumerate(activity.modes, start=1):
            where: FactId = (activity.name, number) if multi else (activity.name,)
            out[("duration", *where)] = (mode.duration,)
            for use in mode.uses:
                out[("uses", *where, use.resource)] = () if kinds.get(use.resource) == "unary" else (use.amount,)


def _calendar_facts(instance: Instance, out: Facts) -> None:
    cal = instance.calendar
    if cal is None:
        return
    values: list[int | str] = [cal.days]
    if cal.periods_per_day > 1:
        values.append(cal.periods_per_day)
    if cal.start_date is not None:
        values.append(cal.start_date.isoformat())
    elif cal.start_weekday is not None:
        values.append(cal.start_weekday)
    out[("calendar",)] = tuple(values)


def _entity_facts(instance: Instance, out: Facts) -> None:
    """Per attribute: an int or string value, or one membership fact per listed name.

    Ids name the class as well: two classes may use the same names (INRC contract ``0`` and
    employee ``0``).
    """
    for entity in instance.entities:
        for attr, value in entity.attrs.items():
            if isinstance(value, tuple):
                for member in value:
                    out[("member", entity.cls, entity.name, attr, member)] = ()
            else:
                out[("attr", entity.cls, entity.name, attr)] = (attribute_text(value),)


def day_number(family: Family, instance: Instance, day: int) -> int:
    """How day index ``day`` is written (the family's ``day_names``, as the verifier reads it)."""
    cal = instance.calendar
    if family.day_names == "index1":
        return day + 1
    if family.day_names == "date" and cal is not None and cal.start_date is not None:
        return day + cal.start_date.day
    return day


def attribute_text(value: int | str) -> int | str:
    """How an attribute value is printed: as given, except a weekend definition (``SaturdaySunday``),
    which is printed as its days (``Saturday and Sunday``)."""
    if isinstance(value, str) and value in WEEKEND_DEFINITIONS:
        days = weekend_days(value)
        return ", ".join(days[:-1]) + " and " + days[-1]
    return value


def weekend_days(definition: str | None) -> list[str]:
    """The weekdays of a weekend definition (``SaturdaySunday`` → Saturday, Sunday)."""
    if definition is None or definition not in WEEKEND_DEFINITIONS:
        return []
    first, length = WEEKEND_DEFINITIONS[definition]
    start = WEEKDAYS.index(first)
    return [WEEKDAYS[(start + i) % 7] for i in range(length)]


# --------------------------------------------------------------------------- interval kinds


def _precedence(c: PrecedenceLag, instance: Instance, out: Facts) -> None:
    """One fact per edge: ``edge`` for a classic precedence (end before start, delay ≥ 0), ``relation``
    for the other relations (a negative delay is printed as "minus" its size)."""
    for e in c.edges:
        if e.end_start:
            out[row_key(c, "edge", e.before, e.after)] = (e.lag,) if e.lag else ()
        else:
            out[row_key(c, "relation", e.before, e.after, e.relation)] = (abs(e.lag),) if e.lag else ()


def _scope(scope: str | tuple[str, ...], instance: Instance, kind: str) -> list[str]:
    if scope == "all":
        return [r.name for r in instance.resources if r.kind == kind]
    return list(scope)


def _unary(c: UnaryNoOverlap, instance: Instance, out: Facts) -> None:
    for name in _scope(c.resources, instance, "unary"):
        out[("unary", name)] = ()


def _cumulative(c: CumulativeRenewable, instance: Instance, out: Facts) -> None:
    capacity = {r.name: r.capacity for r in instance.resources}
    for name in _scope(c.resources, instance, "renewable"):
        out[row_key(c, "capacity", name)] = (capacity[name],)


def _budget(c: NonrenewableBudget, instance: Instance, out: Facts) -> None:
    capacity = {r.name: r.capacity for r in instance.resources}
    for name in _scope(c.resources, instance, "nonrenewable"):
        out[row_key(c, "budget", name)] = (capacity[name],)


def _mode_choice(c: ModeChoice, instance: Instance, out: Facts) -> None:
    for activity in instance.activities:
        if len(activity.modes) > 1:
            out[("choice", activity.name)] = ()


def _time_window(c: TimeWindow, instance: Instance, out: Facts) -> None:
    for w in c.windows:
        out[row_key(c, "release", w.target)] = (w.release,)
        for bound in ("deadline", "latest_start", "earliest_end"):
            if getattr(w, bound) is not None:
                out[row_key(c, bound, w.target)] = (getattr(w, bound),)
        if w.due is not None or w.weight is not None:  # objective data, listed in the rule sentence
            out[("window_due", w.target)] = tuple(v for v in (w.due, w.weight) if v is not None)


def _setup_times(c: SetupTimes, instance: Instance, out: Facts) -> None:
    """The rule, and one fact per setup row (stated in the rule sentence itself)."""
    out[("rule", c.id)] = rule_values(c)
    for s in c.setups:
        out[("setup", s.resource, s.before, s.after)] = (s.time,)


def _downtime(c: ResourceDowntime, instance: Instance, out: Facts) -> None:
    """One fact per window, numbered per resource (the number is a position, not data)."""
    count: dict[str, int] = {}
    for w in c.windows:
        count[w.resource] = count.get(w.resource, 0) + 1
        out[row_key(c, "downtime", w.resource, count[w.resource])] = (w.start, w.end,
                                                                       *((w.label,) if w.label else ()))


def _tardiness(c: Tardiness, instance: Instance, out: Facts) -> None:
    out[("rule", c.id)] = rule_values(c)
    for d in c.due_dates:
        out[("due", d.target)] = (d.due,) if d.weight == 1 else (d.due, d.weight)


def _objective_bound(c: ObjectiveBound, instance: Instance, out: Facts) -> None:
    out[("rule", c.id)] = rule_values(c, c.max)


# --------------------------------------------------------------------------- slot kinds


def rule_values(c: Constraint, *numbers: Bound) -> FactValue:
    """The values of a rule fact: its weight when soft, then its constant parameters."""
    values: list[int | str] = [] if c.hard else [c.weight]
    values += [n for n in numbers if isinstance(n, int) and not isinstance(n, bool)]
    return tuple(values)


def selector_values(sel: Selector) -> FactValue:
    """The strings a selector shows: its attribute filters' values and its listed names."""
    return tuple(v for _, v in sel.where) + tuple(sel.names)


def _rule(c: Constraint, instance: Instance, out: Facts) -> None:
    out[("rule", c.id)] = rule_values(c)


def _coverage(c: Coverage, instance: Instance, out: Facts) -> None:
    out[("rule", c.id)] = rule_values(c)
    for r in c.requirements:
        slot: FactId = (r.day,) if r.period is None else (r.day, r.period)
        bounds = (r.min,) if r.min == r.max else (r.min, r.max)
        out[("cover", c.id, *slot, r.value)] = tuple(v for v in bounds if v is not None)


def _range(lo: Bound, hi: Bound) -> tuple[Bound, ...]:
    """A lower and an upper bound; an exact bound (lo = hi) is stated once."""
    return (lo,) if lo == hi else (lo, hi)


def _count_bounds(c: CountBounds, instance: Instance, out: Facts) -> None:
    out[("rule", c.id)] = rule_values(c, *_range(c.min, c.max)) + selector_values(c.agents) + tuple(c.values.values)


def _runs(c: ConsecutiveRunBounds, instance: Instance, out: Facts) -> None:
    out[("rule", c.id)] = rule_values(c, *_range(c.min, c.max)) + selector_values(c.agents) + tuple(c.values.values)


def _pattern(c: PatternProhibition, instance: Instance, out: Facts) -> None:
    out[("rule", c.id)] = rule_values(c) + selector_values(c.agents)


def _window(c: WindowPatternCost, instance: Instance, out: Facts) -> None:
    out[("rule", c.id)] = rule_values(c, c.min_length) + selector_values(c.agents)
    for p in c.table:
        out[("pattern_cost", c.id, p.pattern)] = (p.cost,)


def _unavailability(c: Unavailability, instance: Instance, out: Facts) -> None:
    out[("rule", c.id)] = rule_values(c)
    for u in c.slots:
        slot: FactId = (u.day,) if u.period is None else (u.day, u.period)
        out[("unavailable", c.id, u.agent, *slot)] = ()


def _assignment_cost(c: AssignmentCost, instance: Instance, out: Facts) -> None:
    out[("rule", c.id)] = rule_values(c)
    for e in c.entries:
        out[("cost", c.id, e.agent, e.day, e.value, e.when)] = (e.cost,)


def _spread(c: Spread, instance: Instance, out: Facts) -> None:
    out[("rule", c.id)] = rule_values(c, c.min) + selector_values(c.agents)


def _stability(c: Stability, instance: Instance, out: Facts) -> None:
    out[("rule", c.id)] = rule_values(c, c.max) + selector_values(c.agents)


def _skill_eligibility(c: SkillEligibility, instance: Instance, out: Facts) -> None:
    """The rule (which skills each agent has and each value requires are membership facts of the entities)."""
    out[("rule", c.id)] = rule_values(c) + selector_values(c.agents)


def _skill_demand(c: SkillDemand, instance: Instance, out: Facts) -> None:
    """The rule, and one fact per row (stated in the rule sentence itself)."""
    out[("rule", c.id)] = rule_values(c)
    for r in c.needs:
        slot: FactId = (r.day,) if r.period is None else (r.day, r.period)
        out[("skill_need", c.id, *slot, r.value, r.skill)] = tuple(v for v in _range(r.min, r.max) if v is not None)


def _skill_requirements(c: SkillRequirements, instance: Instance, out: Facts) -> None:
    """The rule, and one fact per row: the number of workers with the skill (stated in the rule sentence;
    which skills each worker has are membership facts of the worker entities)."""
    out[("rule", c.id)] = rule_values(c) + selector_values(c.workers)
    for r in c.needs:
        out[("skill_unit", c.id, r.activity, r.skill)] = (r.count,)
def _spacing(c: Spacing, instance: Instance, out: Facts) -> None:
    """The rule, and the day lengths it counts periods by (stated in the rule sentence itself)."""
    out[("rule", c.id)] = rule_values(c, c.gap if c.within == "gap" else None)
    for r in c.lengths:
        out[("day_length", c.id, r.day)] = (r.periods,)


def _slot_order(c: SlotOrder, instance: Instance, out: Facts) -> None:
    """The rule, and one fact per row (stated in the rule sentence itself)."""
    out[("rule", c.id)] = rule_values(c)
    for r in c.rows:
        out[("slot_relation", c.id, r.first, r.relation, r.second)] = ()


def _slot_cost(c: SlotCost, instance: Instance, out: Facts) -> None:
    """The rule, and one fact per row (stated in the rule sentence itself)."""
    out[("rule", c.id)] = rule_values(c)
    for r in c.rows:
        out[("slot_cost_row", c.id, r.agent, r.day, r.period, r.value)] = (r.cost,)


CONSTRAINT_FACTS: dict[type[Constraint], Callable[..., None]] = {
    PrecedenceLag: _precedence,
    SetupTimes: _setup_times,
    OptionalActivities: _rule,
    NoIdle: _rule,
    Consecutive: _rule,
    ResourceTies: _rule,
    SameSequence: _rule,
    UnaryNoOverlap: _unary,
    CumulativeRenewable: _cumulative,
    NonrenewableBudget: _budget,
    ModeChoice: _mode_choice,
    TimeWindow: _time_window,
    ResourceDowntime: _downtime,
    Tardiness: _tardiness,
    OnePerSlot: _rule,
    Coverage: _coverage,
    CountBounds: _count_bounds,
    SlotConflict: _rule,
    Unavailability: _unavailability,
    ConsecutiveRunBounds: _runs,
    PatternProhibition: _pattern,
    WindowPatternCost: _window,
    AssignmentCost: _assignment_cost,
    CapacityOverflow: _rule,
    Spread: _spread,
    Stability: _stability,
    Compactness: _rule,
    ObjectiveBound: _objective_bound,
    SkillEligibility: _skill_eligibility,
    SkillDemand: _skill_demand,
    SkillRequirements: _skill_requirements,
    Spacing: _spacing,
    SlotOrder: _slot_order,
    SharedCapacity: _rule,
    ValueMix: _rule,
    SlotCost: _slot_cost,
}
"""Constraint class → the function adding its facts (a new kind adds one line)."""


def is_attr_bound(bound: Bound) -> bool:
    """True for a bound read from an agent attribute (``@lectures``)."""
    return isinstance(bound, AttrRef)
