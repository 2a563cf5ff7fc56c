"""Cost kinds of slot families: ``assignment_cost``, ``capacity_overflow``, ``spread``,
``stability``, ``compactness``.

These are the soft terms of timetabling and rostering objectives; as hard rules (rare)
each unit of penalty is one violation unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Literal

import msgspec

from schedc.kinds.base import WORK, Constraint, CountBound, NonNegative, Row, Selector, TableContext

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation

ANY_DAY = -1


class CostEntry(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """Cost ``cost`` when agent ``agent`` is assigned ``value`` on ``day`` (``when=assigned``)
    or when it is not (``when=unassigned``). ``value = "*"`` stands for any working value,
    ``day = -1`` (``*`` in the text) for every day."""

    agent: str
    day: int
    value: str
    cost: int
    when: Literal["assigned", "unassigned"] = "assigned"

    KEY: ClassVar[tuple[str, ...]] = ("agent", "day", "value", "when")


class AssignmentCost(Constraint, frozen=True, kw_only=True, tag="assignment_cost"):
    """Linear costs of individual assignments (preferences, requests, skill mismatches).

    Formal meaning: penalty ``Σ_entries cost · [condition]`` where the condition of an
    entry (e, d, v, c, assigned) is "e has value v on day d" (v = ``*``: any working
    value; d = ``*``: each day counts separately) and of an ``unassigned`` entry its
    negation.

    Counting rule (hard): one violation per entry whose condition holds.

    Table rows (``layout=sparse``): ``agent day value cost`` with ``*`` wildcards and
    ``!value`` for ``unassigned``. ``layout=dense``: ``agent c(0,v1) c(0,v2) …`` — one row per
    agent, every day in order and within a day every value of the value class in
    declaration order (a full preference matrix, as NSPLib).
    """

    COUNTS = "costs of the listed assignments that are made"
    UNIT = "unit of cost"

    entries: tuple[CostEntry, ...] = ()
    layout: Literal["sparse", "dense"] = "sparse"

    TABLE_FIELD = "entries"

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for e in self.entries:
            if not e.cost:
                continue
            days = view.day_values(e.agent) if e.agent in view.cells else [[] for _ in range(ctx.days)]
            for day in range(ctx.days) if e.day == ANY_DAY else (e.day,):
                held = ctx.matches(WORK, days[day]) if e.value == "*" else e.value in days[day]
                if held == (e.when == "assigned"):
                    out.append(self.violation(_entry_message(ctx, e, day), amount=e.cost,
                                              entities=(ctx.show(e.agent),), day=day))
        return out

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[CostEntry, ...]:
        if params.get("layout") == "dense":
            return tuple(e for row in rows for e in _parse_dense(row, ctx))
        return tuple(_parse_sparse(row) for row in rows)

    def format_rows(self, ctx: TableContext) -> list[str]:
        if self.layout == "dense":
            return _format_dense(self.entries, ctx)
        return [_format_sparse(e) for e in self.entries]


def _entry_message(ctx: EvalContext, e: CostEntry, day: int) -> str:
    what = "works" if e.value == "*" else f"has {ctx.show(e.value)}"
    if e.when == "unassigned":
        what = "does not work" if e.value == "*" else f"does not have {ctx.show(e.value)}"
    return f"{ctx.show(e.agent)} {what} on {ctx.day_label(day)} (cost {e.cost})"


def _parse_sparse(row: Row) -> CostEntry:
    row.expect_len(4, "agent day value cost")
    day = ANY_DAY if row.cells[1] == "*" else row.int(1, "a day (or *)")
    value = row.cells[2]
    when: Literal["assigned", "unassigned"] = "assigned"
    if value.startswith("!"):
        value, when = value[1:], "unassigned"
    if not value:
        raise row.error("expected a value name (or *) after '!'", 2)
    return CostEntry(agent=row.cells[0], day=day, value=value, cost=row.int(3, "a cost", minimum=None), when=when)


def _format_sparse(e: CostEntry) -> str:
    day = "*" if e.day == ANY_DAY else str(e.day)
    value = ("!" if e.when == "unassigned" else "") + e.value
    return f"{e.agent} {day} {value} {e.cost}"


def _parse_dense(row: Row, ctx: TableContext) -> list[CostEntry]:
    width = ctx.days * len(ctx.values)
    if len(row) != width + 1:
        raise row.error(f"a dense cost row is an agent and {ctx.days} days x {len(ctx.values)} values = "
                        f"{width} costs, found {len(row) - 1}", min(len(row) - 1, width + 1))
    agent = row.cells[0]
    return [CostEntry(agent=agent, day=k // len(ctx.values), value=ctx.values[k % len(ctx.values)],
                      cost=row.int(k + 1, "a cost", minimum=None)) for k in range(width)]


def _format_dense(entries: Sequence[CostEntry], ctx: TableContext) -> list[str]:
    width = ctx.days * len(ctx.values)
    return [entries[i].agent + " " + " ".join(str(e.cost) for e in entries[i:i + width])
            for i in range(0, len(entries), width)]


def is_dense_grid(entries: Sequence[CostEntry], ctx: TableContext) -> bool:
    """True when ``entries`` are a full agent × day × value grid in canonical order."""
    width = ctx.days * len(ctx.values)
    if width == 0 or len(entries) % width:
        return False
    for i, e in enumerate(entries):
        k = i % width
        if (e.day != k // len(ctx.values) or e.value != ctx.values[k % len(ctx.values)]
                or e.when != "assigned" or e.agent != entries[i - k].agent):
            return False
    return True


class CapacityOverflow(Constraint, frozen=True, kw_only=True, tag="capacity_overflow"):
    """Each assignment costs the agent's demand in excess of the value's capacity.

    Formal meaning: penalty ``Σ_{x[e,s,v]=1} max(0, e.demand − v.capacity)`` with the
    attribute names given by ``demand`` and ``capacity`` (ITC-2007 RoomCapacity: students
    without a seat, per lecture).

    Counting rule (hard): one violation per overflowing assignment; amount = the overflow.
    """

    COUNTS = "demand above the capacity, per assignment"
    UNIT = "unit of overflow"

    demand: str
    capacity: str

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for a in view.assignments:
            demand = ctx.attrs(ctx.agent_cls, a.agent).get(self.demand, 0)
            capacity = ctx.attrs(ctx.value_cls, a.value).get(self.capacity, 0)
            if demand > capacity:
                out.append(self.violation(
                    f"{ctx.show(a.agent)} has {demand} {self.demand} in {ctx.show(a.value)} of {self.capacity} "
                    f"{capacity} on {ctx.day_label(a.day, a.period)}", amount=demand - capacity,
                    entities=(ctx.show(a.agent), ctx.show(a.value)), day=a.day))
        return out


class Spread(Constraint, frozen=True, kw_only=True, tag="spread"):
    """Each selected agent's (or group's) assignments should cover at least ``min`` distinct days.

    ``agents`` selects either agents of the family's decision (courses, nurses) or *groups*: the
    entities of another class that list agents in their ``members`` attribute (a curriculum
    listing its courses; ``members=ATTR`` names another list attribute). A day is *used* by an
    agent when it holds some value in some period of that day; by a group when at least one of
    its members does. Formal meaning, for every selected e with members M(e) (``{e}`` for an
    agent): ``#{d : Σ_{a ∈ M(e)} Σ_{p,v} x[a,(d,p),v] ≥ 1} ≥ min(e)``, ``min(e)`` read from e's
    own attribute for ``min=@attr``. Penalty: the number of missing days
    ``max(0, min(e) − #days)`` (ITC-2007 MinWorkingDays).

    Counting rule (hard): one violation per agent or group short of days; amount = missing days.
    """

    COUNTS = "distinct days with an assignment"
    UNIT = "day missing from the minimum"

    agents: Selector
    min: CountBound = None
    members: str | None = None

    def units(self, ctx: EvalContext) -> list[tuple[str, list[str]]]:
        """(selected entity, the agents whose assignments count for it), in declaration order: an agent
        counts for itself, a group for each of its members that is an agent."""
        chosen = ctx.select(self.agents)
        if self.agents.cls == ctx.agent_cls:
            return [(agent, [agent]) for agent in chosen]
        attr = self.members or "members"
        known = set(ctx.agents)
        return [(group, [a for a in dict.fromkeys(ctx.attrs(self.agents.cls, group).get(attr, ())) if a in known])
                for group in chosen]

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for name, members in self.units(ctx):
            lo = ctx.bound(self.min, name, self.agents.cls)
            used = sum(1 for d in range(ctx.days) if any(view.day_values(a)[d] for a in members))
            if lo is not None and used < lo:
                out.append(self.violation(f"{ctx.show(name)} is spread over {used} days, at least {lo} wanted",
                                          amount=lo - used, entities=(ctx.show(name),)))
        return out


class Stability(Constraint, frozen=True, kw_only=True, tag="stability"):
    """Each agent should use at most ``max`` distinct values.

    Formal meaning: ``#{v : ∃s x[e,s,v] = 1} ≤ max``. Penalty: ``max(0, #values − max)``
    (ITC-2007 RoomStability with max = 1: every extra room costs 1).

    Counting rule (hard): one violation per agent over the limit; amount = the excess.
    """

    COUNTS = "distinct values used"
    UNIT = "value beyond the maximum"

    agents: Selector
    max: NonNegative = 1

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for agent in ctx.select(self.agents):
            used = sorted({v for values in view.cells.get(agent, {}).values() for v in values})
            if len(used) > self.max:
                shown = ", ".join(ctx.show(v) for v in used)
                out.append(self.violation(f"{ctx.show(agent)} uses {len(used)} different values ({shown}), "
                                          f"at most {self.max} wanted", amount=len(used) - self.max,
                                          entities=(ctx.show(agent),)))
        return out


class Compactness(Constraint, frozen=True, kw_only=True, tag="compactness"):
    """Group timetables without isolated lectures.

    For a group g (an entity of class ``groups`` listing agents in its ``members``
    attribute) let ``a[g,p] = Σ_{e ∈ g} u[e,p]`` with ``u[e,p] = Σ_v x[e,p,v]`` taken as 0/1
    (a member holding two values in p counts once, as ITC-2007's ``u_{c,p}``). Period p is
    *isolated* for g when ``a[g,p] > 0`` and neither the previous nor the next period **of the
    same day** has ``a[g,·] > 0``. Penalty: ``Σ_g Σ_{p isolated} a[g,p]`` (ITC-2007 CurriculumCompactness,
    weight 2: a course in k curricula can be isolated k times).

    Counting rule (hard): one violation per (group, isolated period); amount = a[g,p].
    """

    COUNTS = "isolated assignments of a group"
    UNIT = "isolated assignment"

    groups: str
    members: str = "members"

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for group, attrs in ctx.by_class.get(self.groups, {}).items():
            occupancy: dict[tuple[int, int], int] = {}
            for member in attrs.get(self.members, ()):
                for slot in view.cells.get(member, {}):
                    occupancy[slot] = occupancy.get(slot, 0) + 1
            for (day, period), count in sorted(occupancy.items()):
                if (day, period - 1) not in occupancy and (day, period + 1) not in occupancy:
                    where = ctx.day_label(day, period)
                    out.append(self.violation(f"{ctx.show(group)} has an isolated lecture on {where}",
                                              amount=count, entities=(ctx.show(group),), day=day))
        return out
