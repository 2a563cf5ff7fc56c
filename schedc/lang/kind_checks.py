"""Checks of the individual constraint kinds, dispatched by the semantic pass (:mod:`schedc.lang.semantic`)
through :data:`CONSTRAINT_CHECKS`, keyed by the kind's class.

Each check reports through the :class:`~schedc.lang.semantic.Checker` it is given, so that the pass lists
every problem of an instance at once.
"""

from __future__ import annotations

import types
import typing
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

import msgspec

from schedc.core.diagnostics import Span
from schedc.ir import WEEKDAYS
from schedc.kinds import (
    AssignmentCost,
    AttrRef,
    CapacityOverflow,
    Compactness,
    Consecutive,
    ConsecutiveRunBounds,
    Constraint,
    CountBounds,
    Coverage,
    CumulativeRenewable,
    NoIdle,
    NonrenewableBudget,
    ObjectiveBound,
    OnePerSlot,
    OptionalActivities,
    PatternProhibition,
    PrecedenceLag,
    ResourceDowntime,
    ResourceTies,
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
from schedc.kinds.costs import ANY_DAY
from schedc.kinds.same_sequence import SameSequence
from schedc.kinds.setup_times import ANY as SETUP_ANY
from schedc.kinds.setup_times import Setup, can_use
from schedc.kinds.setup_times import row_form as setup_row_form
from schedc.kinds.skill_requirements import uncovered
from schedc.lang.check_common import activity_names as _activity_names
from schedc.lang.check_common import known_names
from schedc.lang.check_common import resource_scope as _resource_scope
from schedc.lang.check_common import sequenced as _sequenced
from schedc.lang.sequence_checks import check_same_sequence

if TYPE_CHECKING:
    from schedc.lang.semantic import Checker

#: Largest time, number of items and of days an instance may hold (larger ones are typing errors).
MAX_TIME = 10**9
MAX_ITEMS = 10**6
MAX_DAYS = 10_000


def row_of(c: Constraint, index: int) -> Span | None:
    """Where item ``index`` (0-based) of ``c``'s table is written: its row, else the statement."""
    return c.span.entry(index) if c.span is not None else None




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
                         f"{_row_text(row)})", row_of(c, index - 1))
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
        first = row_of(c, earlier - 1)
        where = f" at line {first.line}" if first is not None and c.span is not None and c.span.rows else ""
        ch.error("E201", f"{c.id}: table entry {index} ({_row_text(row)}) repeats entry {earlier}{where} (the "
                 f"same {', '.join(fields)}){more}", row_of(c, index - 1),
                 "each key may appear once in a table: remove or merge the repeated row")


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
    for index, e in enumerate(c.edges):
        for name in (e.before, e.after):
            if name not in ch.activities:
                ch.error("E202", f"{c.id}: undefined activity {name!r}", row_of(c, index),
                         known_names(ch.activities))
        if abs(e.lag) > MAX_TIME:
            ch.error("E207", f"{c.id}: lag {e.lag} exceeds {MAX_TIME} in size", row_of(c, index))
        if e.before == e.after and not e.end_start:
            ch.error("E205", f"{c.id}: {e.before} is related to itself", row_of(c, index))
        if e.end_start:  # cycles of the other relations may be satisfiable (maximum lags)
            succ.setdefault(e.before, []).append(e.after)
    cycle = _find_cycle(succ)
    if cycle:  # pointed at the row of the edge that closes the cycle
        closing = next(i for i, e in enumerate(c.edges) if (e.before, e.after) == (cycle[-2], cycle[-1]))
        ch.error("E205", f"{c.id}: precedence cycle {' -> '.join(cycle)}", row_of(c, closing),
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


def _target(ch: Checker, target: str, c: Constraint, at: Span | None) -> None:
    """A time row's target must be a job (the ``job`` of some activity) or an activity."""
    if target not in ch.activities and target not in ch.jobs:
        ch.error("E202", f"{c.id}: {target!r} is neither a job nor an activity", at,
                 known_names(ch.jobs) or known_names(ch.activities))


def _time_window(ch: Checker, c: TimeWindow) -> None:
    targets = _objective_targets(ch)
    for index, w in enumerate(c.windows):
        at = row_of(c, index)
        _target(ch, w.target, c, at)
        if max(w.release, w.deadline or 0, w.latest_start or 0, w.earliest_end or 0, w.due or 0) > MAX_TIME:
            ch.error("E207", f"{c.id}: a time of {w.target} exceeds {MAX_TIME}", at)
        if w.deadline is not None and w.deadline <= w.release:
            ch.error("E210", f"{c.id}: deadline {w.deadline} of {w.target} is not after its release {w.release}",
                     at)
        if w.latest_start is not None and w.latest_start < w.release:
            ch.error("E210", f"{c.id}: latest start {w.latest_start} of {w.target} is before its release "
                     f"{w.release}", at)
        if w.earliest_end is not None and w.deadline is not None and w.earliest_end > w.deadline:
            ch.error("E210", f"{c.id}: earliest end {w.earliest_end} of {w.target} is after its deadline "
                     f"{w.deadline}", at)
        if (w.due is not None or w.weight is not None) and w.target not in targets:
            what = "a job" if ch.jobs else "an activity"
            ch.error("E210", f"{c.id}: due=/weight= belong to the objective's targets ({what}), not to "
                     f"{w.target!r}", at, "give due dates and weights on job rows (activity rows when the "
                     "instance has no jobs)")


def _objective_targets(ch: Checker) -> set[str]:
    """The names the objective measures speak of: the jobs, or the activities when there are none."""
    return set(ch.jobs) if ch.jobs else set(ch.activities)


def _setup_times(ch: Checker, c: SetupTimes) -> None:
    """Setup rows name a unary resource and, on it, two distinct activities that can both use it, two
    jobs some activity of which can use it, or ``* *`` (the forms of :mod:`schedc.kinds.setup_times`)."""
    _sequenced(ch, c, sorted({s.resource for s in c.setups}))
    for index, s in enumerate(c.setups):
        at = row_of(c, index)
        r = ch.resources.get(s.resource)
        if r is None:
            ch.error("E202", f"{c.id}: undefined resource {s.resource!r}", at, known_names(ch.resources))
            continue
        if r.kind != "unary":
            ch.error("E209", f"{c.id}: resource {s.resource} is {r.kind}; setup times apply to unary resources",
                     at)
        if s.time > MAX_TIME:
            ch.error("E207", f"{c.id}: setup time {s.time} exceeds {MAX_TIME}", at)
        if s.before == SETUP_ANY and s.after == SETUP_ANY:
            continue
        form = setup_row_form(s, ch.activities)
        if form == "activity":
            _setup_activities(ch, c, s, at)
        elif form == "class":
            _setup_jobs(ch, c, s, at)
        else:
            ch.error("E210", f"{c.id}: FROM and TO of a setup row are both activities, both jobs or both *; "
                     f"{s.before} is {_setup_cell(ch, s.before)} and {s.after} is {_setup_cell(ch, s.after)}", at,
                     f"e.g. {s.resource} J1.1 J2.1 {s.time} (one pair), {s.resource} J1 J2 {s.time} (every activity "
                     f"of job J2 after one of job J1) or {s.resource} * * {s.time} (every pair)")


def _setup_cell(ch: Checker, name: str) -> str:
    """What a FROM or TO cell of a setup row names, in words."""
    if name in ch.activities:
        return "an activity"
    if name in ch.jobs:
        return "a job"
    return "every activity (*)" if name == SETUP_ANY else "undefined"


def _setup_activities(ch: Checker, c: SetupTimes, s: Setup, at: Span | None) -> None:
    """An activity row: two distinct activities that can both use the resource."""
    if s.before == s.after:
        ch.error("E210", f"{c.id}: a setup from {s.before} to itself", at)
    for name in (s.before, s.after):
        if not can_use(ch.activities[name], s.resource):
            ch.error("E209", f"{c.id}: {name} never uses {s.resource}, so no setup on it applies", at)


def _setup_jobs(ch: Checker, c: SetupTimes, s: Setup, at: Span | None) -> None:
    """A class row: two jobs (classes of activities), each with an activity that can use the resource."""
    for name in (s.before, s.after):
        if name not in ch.jobs:
            ch.error("E202", f"{c.id}: {name!r} is neither an activity nor a job", at,
                     known_names(ch.jobs) or known_names(ch.activities))
        elif not any(a.job == name and can_use(a, s.resource) for a in ch.activities.values()):
            ch.error("E209", f"{c.id}: no activity of job {name} uses {s.resource}, so no setup on it applies", at)


def _no_idle(ch: Checker, c: NoIdle) -> None:
    _resource_scope("unary")(ch, c)
    scope = [r for r, res in ch.resources.items() if res.kind == "unary"] if c.resources == "all" else c.resources
    _sequenced(ch, c, list(scope))


def _consecutive(ch: Checker, c: Consecutive) -> None:
    for p in c.pairs:
        _activity_names(ch, c, [p.before, p.after])
        if p.before == p.after:
            ch.error("E210", f"{c.id}: {p.before} cannot directly follow itself", c.span)
    _sequenced(ch, c, sorted({u.resource for p in c.pairs for name in (p.before, p.after)
                              if name in ch.activities for m in ch.activities[name].modes for u in m.uses
                              if ch.resources.get(u.resource) is not None
                              and ch.resources[u.resource].kind == "unary"}))


def _ties(ch: Checker, c: ResourceTies) -> None:
    for t in c.ties:
        _activity_names(ch, c, [t.first, t.second])
        if t.first == t.second:
            ch.error("E210", f"{c.id}: {t.first} is tied to itself", c.span)


def _optional(ch: Checker, c: OptionalActivities) -> None:
    """Selection rows name defined activities, each once per row."""
    for s in c.selections:
        for name in s.members:
            if name not in ch.activities:
                ch.error("E202", f"{c.id}: undefined activity {name!r}", c.span, known_names(ch.activities))
        repeated = sorted(a for a, n in Counter(s.members).items() if n > 1)
        if repeated:
            ch.error("E201", f"{c.id}: {', '.join(repeated)} listed twice in one {s.rule} group", c.span)


def _downtime(ch: Checker, c: ResourceDowntime) -> None:
    for index, w in enumerate(c.windows):
        at = row_of(c, index)
        r = ch.resources.get(w.resource)
        if r is None:
            ch.error("E202", f"{c.id}: undefined resource {w.resource!r}", at, known_names(ch.resources))
        elif r.kind == "nonrenewable":
            ch.error("E209", f"{c.id}: resource {w.resource} is nonrenewable; only unary and renewable "
                     "resources can be down", at)
        if w.end > MAX_TIME:
            ch.error("E207", f"{c.id}: downtime end {w.end} exceeds {MAX_TIME}", at)


def _tardiness(ch: Checker, c: Tardiness) -> None:
    for index, d in enumerate(c.due_dates):
        at = row_of(c, index)
        _target(ch, d.target, c, at)
        if d.due > MAX_TIME:
            ch.error("E207", f"{c.id}: due date {d.due} of {d.target} exceeds {MAX_TIME}", at)


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
    for index, r in enumerate(c.requirements):
        at = row_of(c, index)
        ch.day(r.day, c, r.period, at)
        ch.value(r.value, c, at=at)
        ch.bounds(r.min, r.max, c, at)


def _own_agents(ch: Checker, c: Any) -> None:
    """A rule that counts each selected agent's own assignments must select agents of the decision:
    the entities of another class hold no assignments, so the rule would count nothing for them."""
    decision = ch.family.decision
    cls = c.agents.cls
    if decision is None or cls == decision.agent or ch.family.entity_class(cls) is None:
        return
    ch.error("E209", f"{c.id}: {kind_name(c)} counts the assignments of each {decision.agent}, but agents= "
             f"selects {cls}, which holds no assignments", c.span,
             f"select {decision.agent}s (agents={decision.agent}, {decision.agent}[attr=value] or "
             f"{decision.agent}[name,...])")


def _spread(ch: Checker, c: Spread) -> None:
    """``agents=`` selects agents (their own days) or groups that list agents (the days of any member)."""
    ch.selector(c.agents, c)
    ch.bound(c.min, c.agents, c)
    if c.min is None:  # a spread without a minimum asks nothing (and its sentences state a minimum)
        ch.error("E210", f"{c.id}: give min=, the fewest days each one's assignments should cover", c.span,
                 "e.g. min=3 or min=@min_days")
    decision = ch.family.decision
    cls = c.agents.cls
    if decision is None or ch.family.entity_class(cls) is None:
        return
    if cls == decision.agent:
        if c.members is not None:
            ch.error("E210", f"{c.id}: members= applies to groups; spread over {cls} counts the days of each "
                     f"{cls} itself", c.span, "drop members=, or select a class of groups listing "
                     f"{decision.agent}s")
        return
    attr = c.members or "members"
    decl = ch.family.entity_class(cls).attribute(attr)  # type: ignore[union-attr]
    if decl is None or decl.type != "names":
        ch.error("E209", f"{c.id}: spread over {cls} counts the days on which any {decision.agent} of a {cls} "
                 f"is assigned, but {cls} has no list attribute {attr!r} naming its {decision.agent}s", c.span,
                 f"select {decision.agent}s, or give members=ATTR: a names attribute of {cls}")
        return
    ch.group_class(cls, attr, c)


def _count_bounds(ch: Checker, c: CountBounds) -> None:
    ch.selector(c.agents, c)
    _own_agents(ch, c)
    ch.value_filter(c.values, c)
    ch.bound(c.min, c.agents, c)
    ch.bound(c.max, c.agents, c)
    ch.bounds(c.min, c.max, c)


def _runs(ch: Checker, c: ConsecutiveRunBounds) -> None:
    ch.selector(c.agents, c)
    _own_agents(ch, c)
    ch.value_filter(c.values, c)
    ch.windows(c.over, c)
    ch.bounds(c.min, c.max, c)


def _pattern(ch: Checker, c: PatternProhibition) -> None:
    ch.selector(c.agents, c)
    _own_agents(ch, c)
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
    _own_agents(ch, c)
    ch.windows(c.windows, c)
    if c.windows.over != "weekends":  # its sentences, claims and W/F patterns speak of weekends
        ch.error("E211", f"{c.id}: window_pattern_cost prices the pattern of each weekend; windows=days makes "
                 "every day a window of its own", c.span,
                 "write windows=weekends(SaturdaySunday) (or another definition); a cost per worked day is an "
                 "assignment_cost")
    if c.cost == "table" and not c.table:
        ch.error("E210", f"{c.id}: cost=table needs a table of W/F patterns", c.span)


def _stability(ch: Checker, c: Stability) -> None:
    ch.selector(c.agents, c)
    _own_agents(ch, c)


def _unavailability(ch: Checker, c: Unavailability) -> None:
    for index, u in enumerate(c.slots):
        at = row_of(c, index)
        ch.agent(u.agent, c, at)
        ch.day(u.day, c, u.period, at)


def _assignment_cost(ch: Checker, c: AssignmentCost) -> None:
    for index, e in enumerate(c.entries):
        at = row_of(c, index)
        ch.agent(e.agent, c, at)
        if e.day != ANY_DAY:
            ch.day(e.day, c, at=at)
        ch.value(e.value, c, allow_any=True, at=at)


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


def _int_attr(ch: Checker, c: Constraint, cls_name: str | None, attr: str | None) -> None:
    """``attr`` is an int attribute of class ``cls_name`` (E209 otherwise)."""
    if cls_name is None or attr is None:
        return
    cls = ch.family.entity_class(cls_name)
    decl = cls.attribute(attr) if cls else None
    if decl is None or decl.type != "int":
        ch.error("E209", f"{c.id}: {cls_name} has no int attribute {attr!r}", c.span)


def _spacing(ch: Checker, c: Spacing) -> None:
    ch.group_class(c.groups, c.members, c)
    _int_attr(ch, c, c.groups, c.size)
    if c.within == "gap" and c.gap < 1:
        ch.error("E210", f"{c.id}: within=gap needs gap= at least 1", c.span)
    for index, r in enumerate(c.lengths):
        ch.day(r.day, c, r.periods - 1 if r.periods else None, row_of(c, index))


def _slot_order(ch: Checker, c: SlotOrder) -> None:
    for index, r in enumerate(c.rows):
        ch.agent(r.first, c, row_of(c, index))
        ch.agent(r.second, c, row_of(c, index))


def _shared_capacity(ch: Checker, c: SharedCapacity) -> None:
    d = ch.family.decision
    if d is not None:
        _int_attr(ch, c, d.agent, c.demand)
        _int_attr(ch, c, d.value, c.capacity)
        _int_attr(ch, c, d.agent, c.exclusive)


def _value_mix(ch: Checker, c: ValueMix) -> None:
    d = ch.family.decision
    cls = ch.family.entity_class(d.agent) if d else None
    if d is not None and (cls is None or cls.attribute(c.attr) is None):
        ch.error("E209", f"{c.id}: {d.agent} has no attribute {c.attr!r}", c.span)


def _slot_cost(ch: Checker, c: SlotCost) -> None:
    for index, r in enumerate(c.rows):
        at = row_of(c, index)
        if r.agent != "*":
            ch.agent(r.agent, c, at)
        ch.value(r.value, c, allow_any=True, at=at)
        if r.day >= 0:
            ch.day(r.day, c, r.period if r.period >= 0 else None, at)
        elif r.period >= 0:
            ch.day(0, c, r.period, at)


def _skill_list(ch: Checker, c: Constraint, role: str, attr: str, what: str) -> bool:
    """The decision's ``role`` class (agent or value) lists skills in its ``names`` attribute ``attr``;
    False (reported E209) when it has no such attribute."""
    decision = ch.family.decision
    if decision is None:
        return False
    cls_name = decision.agent if role == "agent" else decision.value
    cls = ch.family.entity_class(cls_name)
    decl = cls.attribute(attr) if cls else None
    if decl is not None and decl.type == "names":
        return True
    key = "skills" if role == "agent" else "requires"
    ch.error("E209", f"{c.id}: {kind_name(c)} reads the skills each {cls_name} {what} from its list attribute "
             f"{attr!r}, which class {cls_name} does not have", c.span,
             f"declare `class {cls_name} (... {attr}:names)`, or name its skill list with {key}=ATTR")
    return False


def _skill_eligibility(ch: Checker, c: SkillEligibility) -> None:
    ch.selector(c.agents, c)
    _own_agents(ch, c)
    _skill_list(ch, c, "agent", c.skills, "has")
    _skill_list(ch, c, "value", c.requires, "requires")


def _skill_demand(ch: Checker, c: SkillDemand) -> None:
    """Rows name a slot, a value and a skill some agent has (a skill nobody lists is a typing error more
    often than a demand no one can meet)."""
    known = None
    if _skill_list(ch, c, "agent", c.skills, "has") and ch.family.decision is not None:
        agents = ch.by_class.get(ch.family.decision.agent, {})
        known = dict.fromkeys(s for e in agents.values() for s in e.attrs.get(c.skills, ()) or ())
    for index, r in enumerate(c.needs):
        at = row_of(c, index)
        ch.day(r.day, c, r.period, at)
        ch.value(r.value, c, at=at)
        ch.bounds(r.min, r.max, c, at)
        if known is not None and r.skill not in known:
            ch.error("E202", f"{c.id}: no {ch.family.decision.agent} has the skill {r.skill!r}", at,  # type: ignore[union-attr]
                     known_names(known))


def _skill_requirements(ch: Checker, c: SkillRequirements) -> None:
    """Workers of a declared class with a ``names`` skill list; rows name activities and ask for no more
    workers with a skill than the selection holds (E206: the activity could never run)."""
    ch.selector(c.workers, c)
    cls = ch.family.entity_class(c.workers.cls)
    if cls is None:
        return
    decl = cls.attribute(c.skills)
    if decl is None or decl.type != "names":
        ch.error("E209", f"{c.id}: skill_requirements reads the skills of each {c.workers.cls} from its list "
                 f"attribute {c.skills!r}, which class {c.workers.cls} does not have", c.span,
                 f"declare `class {c.workers.cls} (... {c.skills}:names)`, or name the skill list with skills=ATTR")
        return
    holders: Counter[str] = Counter(s for e in ch.selected(c.workers) for s in set(e.attrs.get(c.skills, ()) or ()))
    short_rows = set()
    for index, r in enumerate(c.needs):
        at = row_of(c, index)
        if r.activity not in ch.activities:
            ch.error("E202", f"{c.id}: undefined activity {r.activity!r}", at, known_names(ch.activities))
            short_rows.add(r.activity)
        elif r.count > holders[r.skill]:
            ch.error("E206", f"{c.id}: activity {r.activity} needs {r.count} workers with the skill {r.skill!r}, "
                     f"but only {holders[r.skill]} {c.workers.cls}{'s' if holders[r.skill] != 1 else ''} "
                     "of the rule have it", at)
            short_rows.add(r.activity)
    staff = {e.name: frozenset(e.attrs.get(c.skills, ()) or ()) for e in ch.selected(c.workers)}
    for activity, rows in c.by_activity().items():
        if activity in short_rows:
            continue
        short = sum(missing for _row, missing in uncovered(rows, list(staff), staff.__getitem__))
        if short:  # each skill has enough holders, but not enough distinct ones for all units at once
            ch.error("E206", f"{c.id}: no team of the {c.workers.cls}s of the rule covers every skill unit of "
                     f"activity {activity} ({short} unit{'s' if short > 1 else ''} short: a worker serves one "
                     "skill of an activity)", c.span)


# ------------------------------------------------------------------- forms no solver backend encodes

HARD_ONLY = (UnaryNoOverlap, CumulativeRenewable, ResourceDowntime, SameSequence, SkillRequirements)
"""Kinds whose soft form neither backend encodes (``backends/{cpsat,pyomo}`` raise E501 for it)."""


def solver_forms(ch: Checker, c: Constraint) -> None:
    """An active constraint in a form that neither solver backend encodes is an error where it is written,
    rather than a spec that parses, renders and checks but that ``solve`` refuses (E213).

    The forms: the soft form of the :data:`HARD_ONLY` kinds; hard ``compactness``; soft ``time_window``
    rows and ``tardiness`` rows (either modality) whose target has an optional activity.
    """
    if not c.active:
        return
    if isinstance(c, HARD_ONLY) and not c.hard:
        ch.error("E213", f"{c.id}: no solver backend encodes a soft {kind_name(c)}", c.span,
                 f"write `hard {kind_name(c)} ...`, or leave the rule out")
    elif isinstance(c, Compactness) and c.hard:
        ch.error("E213", f"{c.id}: no solver backend encodes a hard compactness", c.span,
                 "write `soft W compactness ...` (each isolated assignment costs W)")
    elif isinstance(c, (TimeWindow, Tardiness)) and (isinstance(c, Tardiness) or not c.hard):
        _optional_targets(ch, c)


def _optional_targets(ch: Checker, c: TimeWindow | Tardiness) -> None:
    """Rows whose target has an activity that may be left out (see :func:`solver_forms`)."""
    from schedc.kinds.optional import optional_activities

    optional = optional_activities(ch.instance)
    if not optional:
        return
    rows = c.windows if isinstance(c, TimeWindow) else c.due_dates
    what = "a soft time window" if isinstance(c, TimeWindow) else f"a {'hard' if c.hard else 'soft'} tardiness row"
    for index, row in enumerate(rows):
        left = [a for a in _row_activities(ch, row.target) if a in optional]
        if left:
            ch.error("E213", f"{c.id}: no solver backend encodes {what} of {row.target!r}, whose activity "
                     f"{left[0]} is optional", row_of(c, index),
                     "give the row only targets that are always performed, or make the rule hard"
                     if isinstance(c, TimeWindow) else "give due dates only to targets that are always performed")


def _row_activities(ch: Checker, target: str) -> list[str]:
    """The activities a row target denotes: a job's, or the activity itself."""
    if target in ch.activities:
        return [target]
    return [a.name for a in ch.instance.activities if a.job == target]


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
    Spread: _spread,
    Stability: _stability,
    Unavailability: _unavailability,
    AssignmentCost: _assignment_cost,
    CapacityOverflow: _capacity,
    SlotConflict: _conflict,
    Compactness: _compactness,
    OnePerSlot: lambda ch, c: None,
    TimeWindow: _time_window,
    ResourceDowntime: _downtime,
    Tardiness: _tardiness,
    ObjectiveBound: _objective_bound,
    SetupTimes: _setup_times,
    OptionalActivities: _optional,
    NoIdle: _no_idle,
    Consecutive: _consecutive,
    ResourceTies: _ties,
    SameSequence: check_same_sequence,
    SkillEligibility: _skill_eligibility,
    SkillDemand: _skill_demand,
    SkillRequirements: _skill_requirements,
    Spacing: _spacing,
    SlotOrder: _slot_order,
    SharedCapacity: _shared_capacity,
    ValueMix: _value_mix,
    SlotCost: _slot_cost,
}
