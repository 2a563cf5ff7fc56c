"""Spacing and room-sharing kinds of slot families: ``spacing``, ``slot_order``, ``shared_capacity``,
``value_mix``, ``slot_cost`` (the ITC-2007 examination track's rules, usable over any agent class).

Slots are numbered globally in time order, ``t(d, p) = d · P + p`` with P periods per day: "the next
period" of the last period of a day is the first of the next day, but "the same day" is the day.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, ClassVar, Literal

import msgspec

from schedc.kinds.base import Constraint, NonNegative, Row, TableContext

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation

WILD = "*"


def _slot_index(ctx: EvalContext, day: int, period: int) -> int:
    return day * ctx.periods + period


class DayLength(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """Day ``day`` has only ``periods`` periods (its first ones)."""

    day: NonNegative
    periods: NonNegative

    KEY: ClassVar[tuple[str, ...]] = ("day",)


class Spacing(Constraint, frozen=True, kw_only=True, tag="spacing"):
    """Agents that share a group should not be placed close together in time.

    Pair weight: ``w(a, b) = Σ_{g : a, b ∈ g.members} g.size`` over the entities g of class ``groups``
    (``size=ATTR`` names g's weight attribute; 1 when absent), for distinct agents a ≠ b. Two
    assignments of a and b in slots s = (d, p), s' = (d', p') with ``Δ = |t(s) − t(s')|`` are *close*:

    - ``within=row``: d = d' and Δ = 1 (two in a row: adjacent periods of one day);
    - ``within=day``: d = d' and Δ ≥ 2 (two in a day, not adjacent);
    - ``within=gap``: 1 ≤ Δ ≤ ``gap`` (period spread, across days).

    With a table of day lengths (rows ``day n``: that day has only its first n periods, as an examination
    session whose days differ), t counts only the periods that exist: ``t(d, p) = Σ_{d' < d} n(d') + p``
    with ``n(d') = P`` for a day not listed.

    Penalty: ``Σ_{a<b} Σ_{close (s, s')} w(a, b) · u[a,s] · u[b,s']`` (ITC-2007 examination
    TWOINAROW, TWOINADAY and PERIODSPREAD with groups = pairs of exams weighted by their
    shared students, or cohorts and curricula weighted 1 or by their head count).

    Counting rule (hard): one violation per close pair of assignments; amount = w(a, b).

    Table rows (optional): ``day periods``.
    """

    COUNTS = "pairs of assignments of agents sharing a group placed close together"
    UNIT = "shared member placed close"

    groups: str
    members: str = "members"
    size: str | None = None
    within: Literal["row", "day", "gap"] = "row"
    gap: NonNegative = 1
    lengths: tuple[DayLength, ...] = ()

    TABLE_FIELD = "lengths"

    def pair_weights(self, ctx: EvalContext) -> dict[tuple[str, str], int]:
        """(a, b) with a < b → w(a, b) > 0, over agents of the decision."""
        known = set(ctx.agents)
        out: dict[tuple[str, str], int] = {}
        for attrs in ctx.by_class.get(self.groups, {}).values():
            weight = int(attrs.get(self.size, 1)) if self.size is not None else 1
            members = sorted({a for a in attrs.get(self.members, ()) if a in known})
            for a, b in combinations(members, 2):
                out[(a, b)] = out.get((a, b), 0) + weight
        return {pair: w for pair, w in out.items() if w > 0}

    def index(self, ctx: EvalContext, day: int, period: int) -> int:
        """t(d, p): the periods of the days before d that exist, plus p."""
        short = {r.day: r.periods for r in self.lengths}
        return sum(short.get(d, ctx.periods) for d in range(day)) + period

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[DayLength, ...]:
        out = []
        for row in rows:
            row.expect_len(2, "day periods")
            out.append(DayLength(day=row.int(0, "a day"), periods=row.int(1, "a number of periods")))
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [f"{r.day} {r.periods}" for r in self.lengths]

    def close(self, ctx: EvalContext, s: tuple[int, int], s2: tuple[int, int]) -> bool:
        """True when slots s and s2 are close in this rule's sense."""
        delta = abs(self.index(ctx, *s) - self.index(ctx, *s2))
        if self.within == "row":
            return s[0] == s2[0] and delta == 1
        if self.within == "day":
            return s[0] == s2[0] and delta >= 2
        return 1 <= delta <= self.gap

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        slots: dict[str, set[tuple[int, int]]] = {}  # occupied slots: two values in one slot count once (u)
        for a in view.assignments:
            slots.setdefault(a.agent, set()).add((a.day, a.period))
        out = []
        for (a, b), w in sorted(self.pair_weights(ctx).items()):
            for s in sorted(slots.get(a, ())):
                for s2 in sorted(slots.get(b, ())):
                    if self.close(ctx, s, s2):
                        out.append(self.violation(
                            f"{ctx.show(a)} on {ctx.day_label(*s)} and {ctx.show(b)} on {ctx.day_label(*s2)} "
                            f"are close and share {w} {self.groups} member(s)", amount=w,
                            entities=(ctx.show(a), ctx.show(b)), day=min(s[0], s2[0])))
        return out


class OrderRow(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """``first relation second``."""

    first: str
    relation: Literal["after", "exclusion", "coincidence"]
    second: str

    KEY: ClassVar[tuple[str, ...]] = ("first", "relation", "second")


class SlotOrder(Constraint, frozen=True, kw_only=True, tag="slot_order"):
    """Relations between the slots of two agents.

    With T(e) the set of global slot indices ``t(d, p)`` of e's assignments, a row (a, r, b) holds when
    ``r = after``: every slot of a is strictly later than every slot of b (``min T(a) > max T(b)``, true
    when either set is empty); ``r = exclusion``: ``T(a) ∩ T(b) = ∅``; ``r = coincidence``:
    ``T(a) = T(b)`` (so an agent placed while the other is not breaks it) — ITC-2007 examination AFTER,
    EXCLUSION and EXAM_COINCIDENCE.

    Counting rule: one violation per row that does not hold.

    Table rows: ``agent after|exclusion|coincidence agent``.
    """

    COUNTS = "rows whose relation does not hold"
    UNIT = "broken relation"

    rows: tuple[OrderRow, ...] = ()

    TABLE_FIELD = "rows"

    @staticmethod
    def holds(relation: str, ta: set[int], tb: set[int]) -> bool:
        """Whether ``relation`` holds between the slot sets of the two agents."""
        if relation == "after":
            return not ta or not tb or min(ta) > max(tb)
        if relation == "exclusion":
            return not ta & tb
        return ta == tb

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        slots: dict[str, set[int]] = {}
        for a in view.assignments:
            slots.setdefault(a.agent, set()).add(_slot_index(ctx, a.day, a.period))
        out = []
        for r in self.rows:
            if not self.holds(r.relation, slots.get(r.first, set()), slots.get(r.second, set())):
                wanted = {"after": "be strictly later than", "exclusion": "share no period with",
                          "coincidence": "be in the same period as"}[r.relation]
                out.append(self.violation(f"{ctx.show(r.first)} must {wanted} {ctx.show(r.second)}",
                                          entities=(ctx.show(r.first), ctx.show(r.second))))
        return out

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[OrderRow, ...]:
        out = []
        for row in rows:
            row.expect_len(3, "agent after|exclusion|coincidence agent")
            if row.cells[1] not in ("after", "exclusion", "coincidence"):
                raise row.error(f"expected after, exclusion or coincidence, found {row.cells[1]!r}", 1)
            out.append(OrderRow(first=row.cells[0], relation=row.cells[1], second=row.cells[2]))  # type: ignore[arg-type]
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [f"{r.first} {r.relation} {r.second}" for r in self.rows]


def _cells(view: View) -> dict[tuple[int, int, str], list[str]]:
    """(day, period, value) → the agents assigned there, in order of the answer."""
    out: dict[tuple[int, int, str], list[str]] = {}
    for a in view.assignments:
        out.setdefault((a.day, a.period, a.value), []).append(a.agent)
    return out


class SharedCapacity(Constraint, frozen=True, kw_only=True, tag="shared_capacity"):
    """Several agents may share a value (a room) in one slot, within its capacity.

    Formal meaning: for every slot s and value v, ``Σ_e demand(e) · x[e,s,v] ≤ capacity(v)``; and an
    agent e with a non-zero ``exclusive`` attribute shares no (s, v): ``x[e,s,v] + x[f,s,v] ≤ 1`` for
    every other agent f (ITC-2007 examination room capacity and ROOM_EXCLUSIVE).

    Counting rule: one violation per overfull (slot, value), amount = the demand above the capacity;
    one per (exclusive agent, other agent) sharing a (slot, value).
    """

    COUNTS = "demand above a value's capacity per slot, and agents sharing with an exclusive agent"
    UNIT = "unit over capacity"

    demand: str
    capacity: str
    exclusive: str | None = None

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for (day, period, value), agents in sorted(_cells(view).items()):
            where = ctx.day_label(day, period)
            total = sum(int(ctx.attrs(ctx.agent_cls, e).get(self.demand, 0)) for e in agents)
            cap = int(ctx.attrs(ctx.value_cls, value).get(self.capacity, 0))
            if total > cap:
                out.append(self.violation(f"{ctx.show(value)} holds {total} {self.demand} on {where}, "
                                          f"{self.capacity} {cap}", amount=total - cap,
                                          entities=(ctx.show(value),), day=day))
            if self.exclusive is None:
                continue
            for e in agents:
                if ctx.attrs(ctx.agent_cls, e).get(self.exclusive, 0):
                    for f in agents:
                        if f != e:
                            out.append(self.violation(f"{ctx.show(e)} must have {ctx.show(value)} to itself on "
                                                      f"{where}, but {ctx.show(f)} is there too",
                                                      entities=(ctx.show(e), ctx.show(f)), day=day))
        return out


class ValueMix(Constraint, frozen=True, kw_only=True, tag="value_mix"):
    """Agents sharing a value (a room) in one slot should agree on an attribute (a duration).

    Formal meaning: penalty ``Σ_{s, v used} (#{attr(e) : x[e,s,v] = 1} − 1)``: the number of distinct
    ``attr`` values among the agents in (s, v), less one (ITC-2007 examination NONMIXEDDURATIONS).

    Counting rule (hard): one violation per (slot, value) with mixed values; amount = distinct − 1.
    """

    COUNTS = "distinct attribute values beyond the first in one value and slot"
    UNIT = "extra distinct value"

    attr: str

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for (day, period, value), agents in sorted(_cells(view).items()):
            distinct = sorted({ctx.attrs(ctx.agent_cls, e).get(self.attr) for e in agents}, key=str)
            if len(distinct) > 1:
                shown = ", ".join(str(x) for x in distinct)
                out.append(self.violation(f"{ctx.show(value)} on {ctx.day_label(day, period)} mixes {self.attr} "
                                          f"{shown}", amount=len(distinct) - 1, entities=(ctx.show(value),), day=day))
        return out


class SlotCostRow(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """Cost ``cost`` of every assignment of ``agent`` on (``day``, ``period``) in ``value``; ``*`` (-1 for
    the numbers) matches any."""

    agent: str
    day: int
    period: int
    value: str
    cost: int

    KEY: ClassVar[tuple[str, ...]] = ("agent", "day", "period", "value")


class SlotCost(Constraint, frozen=True, kw_only=True, tag="slot_cost"):
    """Linear costs of assignments by slot and value (period and room penalties, front load).

    Formal meaning: penalty ``Σ_rows cost · Σ x[e,(d,p),v]`` over the assignments matching the row
    (each of agent, day, period, value either equal or ``*``); an assignment matching several rows
    pays each.

    Counting rule (hard): one violation per (row, matching assignment); amount = the row's cost.

    Table rows: ``agent day period value cost``, each of the first four may be ``*``.
    """

    COUNTS = "costs of assignments in priced slots and values"
    UNIT = "unit of cost"

    rows: tuple[SlotCostRow, ...] = ()

    TABLE_FIELD = "rows"

    @staticmethod
    def matches(r: SlotCostRow, agent: str, day: int, period: int, value: str) -> bool:
        return ((r.agent == WILD or r.agent == agent) and r.day in (-1, day) and r.period in (-1, period)
                and (r.value == WILD or r.value == value))

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for a in view.assignments:
            for r in self.rows:
                if r.cost and self.matches(r, a.agent, a.day, a.period, a.value):
                    out.append(self.violation(f"{ctx.show(a.agent)} in {ctx.show(a.value)} on "
                                              f"{ctx.day_label(a.day, a.period)} costs {r.cost}", amount=r.cost,
                                              entities=(ctx.show(a.agent),), day=a.day))
        return out

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[SlotCostRow, ...]:
        out = []
        for row in rows:
            row.expect_len(5, "agent day period value cost, * for any")
            day = -1 if row.cells[1] == WILD else row.int(1, "a day")
            period = -1 if row.cells[2] == WILD else row.int(2, "a period")
            out.append(SlotCostRow(agent=row.cells[0], day=day, period=period, value=row.cells[3],
                                   cost=row.int(4, "a cost", minimum=None)))
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        def cell(n: int) -> str:
            return WILD if n < 0 else str(n)
        return [f"{r.agent} {cell(r.day)} {cell(r.period)} {r.value} {r.cost}" for r in self.rows]
