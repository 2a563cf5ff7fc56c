"""INRC-2010 competition XML → IR (family ``inrc2010``), following ``reference/inrc2010.md``.

Hard: one shift per employee and day; exact cover of every (day, shift), a (day, shift)
without demand must stay empty (``coverage complete=true``). Soft, per contract and for
the employees holding it, one constraint per active rule (on = 1 and weight > 0, or
true and weight > 0): assignment counts, consecutive working/free days and working
weekends, complete weekends (a W/F cost table from the closed form of the reference),
identical shift types on fully worked weekends, unwanted patterns (weight of the pattern,
weekday anchor on the first entry only), alternative skill category (a soft ``skill_eligibility``). Requests of positive
weight become assignment costs. Active NoNightShiftBeforeFreeWeekend rules are carried as
*inactive* constraints (the reference evaluator does not score them).
MaxWorkingWeekendsInFourWeeks and TwoFreeDaysAfterNightShifts are never switched on in the
competition files; when a file switches them on they are carried inactive as well.
Min-consecutive rules with value ≤ 1 are vacuous and dropped.
"""

from __future__ import annotations

from itertools import product
from pathlib import Path

from schedc.importers.common import BksRow, checked, make_meta
from schedc.importers.inrc2010_reader import (
    InrcContract,
    InrcData,
    InrcEmployee,
    InrcOnWeightRule,
    InrcPattern,
    read_inrc,
)
from schedc.ir import Calendar, Entity, Instance, Objective
from schedc.kinds import (
    AssignmentCost,
    ConsecutiveRunBounds,
    Constraint,
    CostEntry,
    CountBounds,
    Coverage,
    OnePerSlot,
    PatternCost,
    PatternProhibition,
    Requirement,
    Selector,
    SkillEligibility,
    ValueFilter,
    WindowPatternCost,
    Windows,
)
from schedc.kinds.context import WEEKEND_DEFINITIONS

NOT_SCORED = "not scored by the INRC-2010 reference evaluator"
WORK = ValueFilter(mode="work")
FREE = ValueFilter(mode="free")


def import_inrc2010(path: str | Path, bks: dict[str, BksRow] | None = None) -> Instance:
    """Import one INRC-2010 instance file."""
    data = read_inrc(path)
    return checked(inrc_to_ir(data, Path(path), bks))


def inrc_to_ir(data: InrcData, path: Path, bks: dict[str, BksRow] | None) -> Instance:
    """Convert a read INRC-2010 record into an ``inrc2010`` instance."""
    name = path.stem
    constraints: list[Constraint] = [OnePerSlot(id="single_assignment", per="agent"), _cover(data)]
    for contract in data.contracts:
        constraints += _contract_rules(data, contract)
    constraints += _requests(data)
    return Instance(name=name, family="inrc2010", meta=make_meta(name, f"INRC-2010 {path.name}", bks),
                    calendar=Calendar(days=data.n_days, start_date=data.start_date),
                    entities=_entities(data), constraints=tuple(constraints), objective=Objective(measure="penalty"))


def _entities(data: InrcData) -> tuple[Entity, ...]:
    shifts = [Entity(name=s.id, cls="shift", attrs={"start": s.start, "end": s.end, "skills": s.required_skills,
                                                    "description": s.description or ""})
              for s in data.shift_types]
    contracts = [Entity(name=c.id, cls="contract", attrs={"description": c.description or "",
                                                          "weekend": c.weekend_definition})
                 for c in data.contracts]
    employees = [Entity(name=e.id, cls="employee", attrs={"contract": e.contract, "skills": e.skills})
                 for e in data.employees]
    return tuple(shifts + contracts + employees)


def _cover(data: InrcData) -> Coverage:
    rows = tuple(Requirement(day=d, period=None, value=s.id, min=n, max=n)
                 for d, per_shift in enumerate(data.demand)
                 for s, n in zip(data.shift_types, per_shift, strict=True) if n > 0)
    return Coverage(id="cover", requirements=rows, complete=True)


def _contract_rules(data: InrcData, c: InrcContract) -> list[Constraint]:
    agents = Selector(cls="employee", where=(("contract", c.id),))
    prefix = f"c{c.id}_"
    weekends = Windows(over="weekends", weekend=c.weekend_definition)
    out: list[Constraint] = []

    def bound(rule: InrcOnWeightRule, rid: str, make: type, **kw: object) -> None:
        if rule.active:
            out.append(make(id=prefix + rid, hard=False, weight=rule.weight, agents=agents, **kw))

    bound(c.max_num_assignments, "max_assignments", CountBounds, max=c.max_num_assignments.value)
    bound(c.min_num_assignments, "min_assignments", CountBounds, min=c.min_num_assignments.value)
    bound(c.max_consecutive_working_days, "max_consecutive_working_days", ConsecutiveRunBounds,
          max=c.max_consecutive_working_days.value)
    if c.min_consecutive_working_days.value > 1:
        bound(c.min_consecutive_working_days, "min_consecutive_working_days", ConsecutiveRunBounds,
              min=c.min_consecutive_working_days.value)
    bound(c.max_consecutive_free_days, "max_consecutive_free_days", ConsecutiveRunBounds, values=FREE,
          max=c.max_consecutive_free_days.value)
    if c.min_consecutive_free_days.value > 1:
        bound(c.min_consecutive_free_days, "min_consecutive_free_days", ConsecutiveRunBounds, values=FREE,
              min=c.min_consecutive_free_days.value)
    bound(c.max_consecutive_working_weekends, "max_consecutive_working_weekends", ConsecutiveRunBounds,
          over=weekends, max=c.max_consecutive_working_weekends.value)
    if c.min_consecutive_working_weekends.value > 1:
        bound(c.min_consecutive_working_weekends, "min_consecutive_working_weekends", ConsecutiveRunBounds,
              over=weekends, min=c.min_consecutive_working_weekends.value)
    if c.complete_weekends.active:
        length = WEEKEND_DEFINITIONS[c.weekend_definition][1]
        out.append(WindowPatternCost(id=prefix + "complete_weekends", hard=False, weight=c.complete_weekends.weight,
                                     agents=agents, windows=weekends, table=complete_weekend_table(length)))
    if c.identical_shift_types_during_weekend.active:
        out.append(WindowPatternCost(id=prefix + "identical_shift_types_during_weekend", hard=False,
                                     weight=c.identical_shift_types_during_weekend.weight, agents=agents,
                                     windows=weekends, cost="mixed_values"))
    out += _inactive_rules(data, c, agents, prefix)
    if c.alternative_skill_category.active and _skill_mismatches(data, [e for e in data.employees
                                                                         if e.contract == c.id]):
        # NR-S14: one unit per assignment to a shift whose required skills the nurse lacks (some of them)
        out.append(SkillEligibility(id=prefix + "alternative_skill_category", hard=False,
                                    weight=c.alternative_skill_category.weight, agents=agents))
    patterns = {p.id: p for p in data.patterns}
    for pid in c.unwanted_patterns:
        out.append(_pattern(patterns[pid], agents, prefix))
    return out


def complete_weekend_table(length: int, min_length: int = 2) -> tuple[PatternCost, ...]:
    """The CompleteWeekends costs of every W/F pattern of ``min_length..length`` days.

    Closed form of the reference: for every maximal run of worked days, add i if it starts
    at position i > 0 and ``L − 1 − i`` if it ends at position i < L − 1 (L = window length).
    """
    table = []
    for size in range(min_length, length + 1):
        for letters in product("WF", repeat=size):
            pattern = "".join(letters)
            cost = _run_edge_cost(pattern)
            if cost:
                table.append(PatternCost(pattern=pattern, cost=cost))
    return tuple(table)


def _run_edge_cost(pattern: str) -> int:
    size = len(pattern)
    cost = 0
    for i, ch in enumerate(pattern):
        if ch != "W":
            continue
        if i > 0 and pattern[i - 1] == "F":
            cost += i
        if i < size - 1 and pattern[i + 1] == "F":
            cost += size - 1 - i
    return cost


def _inactive_rules(data: InrcData, c: InrcContract, agents: Selector, prefix: str) -> list[Constraint]:
    """Rules switched on in the file that the reference evaluator does not score."""
    out: list[Constraint] = []
    nights = [s.id for s in data.shift_types if s.is_night]
    first, length = WEEKEND_DEFINITIONS[c.weekend_definition]
    from schedc.ir import WEEKDAYS

    eve = WEEKDAYS[(WEEKDAYS.index(first) - 1) % 7]
    if c.no_night_shift_before_free_weekend.active:
        for night in nights:
            out.append(PatternProhibition(
                id=f"{prefix}no_night_shift_before_free_weekend_{night}", hard=False,
                weight=c.no_night_shift_before_free_weekend.weight, active=False, reason=NOT_SCORED,
                agents=agents, pattern=(night, *["free"] * length), anchor=eve))
    if c.two_free_days_after_night_shifts.active:
        for night in nights:
            for pattern in ((night, "work"), (night, "free", "work")):
                out.append(PatternProhibition(
                    id=f"{prefix}two_free_days_after_night_{night}_{len(pattern)}", hard=False,
                    weight=c.two_free_days_after_night_shifts.weight, active=False, reason=NOT_SCORED,
                    agents=agents, pattern=pattern))
    rule = c.max_working_weekends_in_four_weeks
    if rule.active:
        out.append(CountBounds(id=prefix + "max_working_weekends_in_four_weeks", hard=False, weight=rule.weight,
                               active=False, reason=NOT_SCORED + f" (at most {rule.value} working weekends in "
                               "any four weeks; not representable exactly, shown for information)",
                               agents=agents, max=rule.value))
    return out


def _skill_mismatches(data: InrcData, employees: list[InrcEmployee]) -> bool:
    """Whether some employee lacks a skill some shift requires (else the rule can cost nothing: left out)."""
    return any(not set(s.required_skills) <= set(e.skills) for e in employees for s in data.shift_types)


def _pattern(p: InrcPattern, agents: Selector, prefix: str) -> PatternProhibition:
    entries = tuple("free" if e.shift == "None" else "work" if e.shift == "Any" else e.shift for e in p.entries)
    return PatternProhibition(id=f"{prefix}pattern_{p.id}", hard=False, weight=p.weight, agents=agents,
                              pattern=entries, anchor=p.anchor_weekday)


def _requests(data: InrcData) -> list[Constraint]:
    groups = (
        ("day_off_requests", [CostEntry(agent=r.employee, day=r.day, value="*", cost=r.weight)
                              for r in data.day_off_requests if r.active]),
        ("day_on_requests", [CostEntry(agent=r.employee, day=r.day, value="*", cost=r.weight, when="unassigned")
                             for r in data.day_on_requests if r.active]),
        ("shift_off_requests", [CostEntry(agent=r.employee, day=r.day, value=r.shift, cost=r.weight)
                                for r in data.shift_off_requests if r.active]),
        ("shift_on_requests", [CostEntry(agent=r.employee, day=r.day, value=r.shift, cost=r.weight,
                                         when="unassigned") for r in data.shift_on_requests if r.active]),
    )
    return [AssignmentCost(id=rid, hard=False, weight=1, entries=tuple(entries)) for rid, entries in groups if entries]
