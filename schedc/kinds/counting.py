"""Counting kinds of slot families: ``one_per_slot``, ``coverage``, ``count_bounds``.

All three bound the number of assignments ``x[agent, slot, value] = 1`` in some box.
A count below ``min`` has a *deficit* ``min − count``, above ``max`` an *excess*
``count − max``; the penalty of a soft rule is ``weight × (deficit + excess)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import groupby
from typing import TYPE_CHECKING, ClassVar, Literal

import msgspec

from schedc.kinds.base import (
    WORK,
    Constraint,
    CountBound,
    NonNegative,
    Row,
    Selector,
    TableContext,
    ValueFilter,
    ascii_int,
    fmt_opt,
)

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation


def slot_label(ctx: EvalContext, day: int, period: int) -> str:
    """A slot in the prompt's words: ``day 3`` or ``day 3 period 2``."""
    return ctx.day_label(day, period)


def bounds_text(lo: int | None, hi: int | None) -> str:
    if lo is not None and lo == hi:
        return f"exactly {lo}"
    if hi is None:
        return f"at least {lo}"
    if lo is None:
        return f"at most {hi}"
    return f"between {lo} and {hi}"


class OnePerSlot(Constraint, frozen=True, kw_only=True, tag="one_per_slot"):
    """At most (or, with ``exactly``, exactly) one assignment per agent-slot or value-slot.

    ``per=agent``: for every agent e and slot s, ``Σ_v x[e,s,v] ≤ 1`` (``= 1`` if exactly):
    an employee works at most one shift per day; a course has at most one lecture per period.
    ``per=value``: for every value v and slot s, ``Σ_e x[e,s,v] ≤ 1``: a room hosts at most
    one lecture per period.

    Counting rule: per (agent or value, slot), an excess of k assignments is k violations;
    with ``exactly``, a missing assignment is one violation.
    """

    COUNTS = "assignments per agent (or value) and slot"
    UNIT = "assignment in excess or missing"

    per: Literal["agent", "value"] = "agent"
    exactly: bool = False

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        return self._per_agent(ctx, view) if self.per == "agent" else self._per_value(ctx, view)

    def _per_agent(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for agent, cells in view.cells.items():
            for (day, period), values in cells.items():
                if len(values) > 1:
                    shown = ", ".join(ctx.show(v) for v in values)
                    out.append(self.violation(
                        f"{ctx.show(agent)} has {len(values)} assignments on {slot_label(ctx, day, period)} ({shown})",
                        amount=len(values) - 1, entities=(ctx.show(agent),), day=day))
        if self.exactly:
            for agent in ctx.agents:
                cells = view.cells.get(agent, {})
                for day in range(ctx.days):
                    for period in range(ctx.periods):
                        if (day, period) not in cells:
                            out.append(self.violation(
                                f"{ctx.show(agent)} has no assignment on {slot_label(ctx, day, period)}",
                                entities=(ctx.show(agent),), day=day))
        return out

    def _per_value(self, ctx: EvalContext, view: View) -> list[Violation]:
        holders: dict[tuple[str, int, int], list[str]] = {}
        for a in view.assignments:
            holders.setdefault((a.value, a.day, a.period), []).append(a.agent)
        out = []
        for (value, day, period), agents in holders.items():
            if len(agents) > 1:
                shown = ", ".join(ctx.show(a) for a in agents)
                out.append(self.violation(
                    f"{ctx.show(value)} is assigned to {len(agents)} at once on {slot_label(ctx, day, period)} "
                    f"({shown})", amount=len(agents) - 1, entities=(ctx.show(value), *map(ctx.show, agents)),
                    day=day))
        return out


class Requirement(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """Staffing of one (slot, value): between ``min`` and ``max`` agents (None = unbounded).

    ``day`` is 0-based; ``period`` is None for day-grained families."""

    day: int
    period: int | None
    value: str
    min: NonNegative | None
    max: NonNegative | None

    KEY: ClassVar[tuple[str, ...]] = ("day", "period", "value")


class Coverage(Constraint, frozen=True, kw_only=True, tag="coverage"):
    """Staffing requirements per slot and value, counted over all agents.

    Formal meaning: for every requirement (s, v, lo, hi): ``lo ≤ Σ_e x[e,s,v] ≤ hi``
    (exact when lo = hi). A (slot, value) without a row has no requirement, unless
    ``complete`` is set, in which case it must have ``0`` assignments (over-staffing a
    shift with no demand is then a violation, as in INRC-2010).

    Counting rule: each missing or surplus agent in a (slot, value) is one violation unit;
    one violation record per (slot, value) with amount = deficit + excess.

    Table rows: ``day value min max`` (day-grained) or ``day period value min max``;
    ``-`` for an absent bound. Compact form for day-grained requirements, one row per day:
    ``day VALUE=N VALUE=LO..HI VALUE=LO.. VALUE=..HI`` (exact, range, minimum, maximum) —
    the form the printer uses.
    """

    COUNTS = "agents per slot and value"
    UNIT = "agent missing or in excess"

    requirements: tuple[Requirement, ...] = ()
    complete: bool = False

    TABLE_FIELD = "requirements"

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        counts: Counter[tuple[int, int, str]] = Counter((a.day, a.period, a.value) for a in view.assignments)
        per_day: Counter[tuple[int, str]] = Counter()
        for (day, _period, value), n in counts.items():
            per_day[(day, value)] += n
        out = []
        required: set[tuple[int, int | None, str]] = set()
        for r in self.requirements:
            required.add((r.day, r.period, r.value))
            n = per_day[(r.day, r.value)] if r.period is None else counts[(r.day, r.period, r.value)]
            gap = (r.min - n if r.min is not None and n < r.min else 0) + (n - r.max if r.max is not None
                                                                              and n > r.max else 0)
            if gap:
                where = ctx.day_label(r.day, r.period)
                out.append(self.violation(
                    f"{ctx.show(r.value)} on {where} has {n} assigned, needs {bounds_text(r.min, r.max)}",
                    amount=gap, entities=(ctx.show(r.value),), day=r.day))
        if self.complete:
            for (day, period, value), n in sorted(counts.items()):
                if (day, period, value) not in required and (day, None, value) not in required:
                    out.append(self.violation(
                        f"{ctx.show(value)} on {slot_label(ctx, day, period)} has {n} assigned, needs none",
                        amount=n, entities=(ctx.show(value),), day=day))
        return out

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[Requirement, ...]:
        out: list[Requirement] = []
        for row in rows:
            if len(row) >= 2 and "=" in row.cells[1]:
                out.extend(_parse_day_row(row))
            else:
                out.append(_parse_requirement(row))
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        if any(r.period is not None for r in self.requirements):
            return [_format_requirement(r) for r in self.requirements]
        lines: list[str] = []
        for day, group in groupby(self.requirements, key=lambda r: r.day):
            lines.append(f"{day} " + " ".join(f"{r.value}={_format_range(r.min, r.max)}" for r in group))
        return lines


def _parse_day_row(row: Row) -> list[Requirement]:
    day = row.int(0, "a day")
    out = []
    for k in range(1, len(row)):
        value, sep, spec = row.cells[k].rpartition("=")
        if not sep or not value:
            raise row.error(f"expected VALUE=N, VALUE=LO..HI, VALUE=LO.. or VALUE=..HI, found {row.cells[k]!r}", k)
        lo, hi = _parse_range(row, k, spec)
        out.append(Requirement(day=day, period=None, value=value, min=lo, max=hi))
    return out


def _parse_range(row: Row, k: int, spec: str) -> tuple[int | None, int | None]:
    lo_text, dots, hi_text = spec.partition("..")
    lo = ascii_int(lo_text) if lo_text else None
    hi = ascii_int(hi_text) if hi_text else None
    if (lo_text and lo is None) or (hi_text and hi is None):
        raise row.error(f"expected a count or a range LO..HI, found {spec!r}", k)
    if not dots:
        hi = lo
    if (lo is None and hi is None) or (lo is not None and lo < 0) or (hi is not None and hi < 0):
        raise row.error(f"expected non-negative counts, found {spec!r}", k)
    return lo, hi


def _format_range(lo: int | None, hi: int | None) -> str:
    if lo is not None and lo == hi:
        return str(lo)
    return f"{'' if lo is None else lo}..{'' if hi is None else hi}"


def _parse_requirement(row: Row) -> Requirement:
    if len(row) == 4:
        return Requirement(day=row.int(0, "a day"), period=None, value=row.cells[1],
                           min=row.opt_int(2, "a minimum"), max=row.opt_int(3, "a maximum"))
    if len(row) == 5:
        return Requirement(day=row.int(0, "a day"), period=row.int(1, "a period"), value=row.cells[2],
                           min=row.opt_int(3, "a minimum"), max=row.opt_int(4, "a maximum"))
    raise row.error(f"expected 'day value min max' or 'day period value min max', found {len(row)} cells")


def _format_requirement(r: Requirement) -> str:
    slot = str(r.day) if r.period is None else f"{r.day} {r.period}"
    return f"{slot} {r.value} {fmt_opt(r.min)} {fmt_opt(r.max)}"


class CountBounds(Constraint, frozen=True, kw_only=True, tag="count_bounds"):
    """Per-agent bounds on the number of matching assignments over the horizon.

    Formal meaning: for every agent e selected by ``agents``,
    ``min(e) ≤ #{(s, v) : x[e,s,v] = 1, v matches values} ≤ max(e)``, where a bound may be
    a constant or an attribute of e (``min=@lectures``). For ``values=free`` the count is
    the number of slots where e has no working assignment.

    Counting rule: one violation record per agent out of bounds; amount = deficit + excess
    (a course with 4 of 6 lectures has amount 2, as the ITC-2007 "Lectures" count).
    """

    COUNTS = "working assignments"
    UNIT = "assignment outside the bounds"

    agents: Selector
    values: ValueFilter = WORK
    min: CountBound = None
    max: CountBound = None

    def claim_counts(self) -> tuple[str, str]:
        """Working assignments (the free value excluded), free slots, or assignments of the listed values."""
        counts = {"work": "working assignments (the free value excluded)", "free": "free slots",
                  "values": "assignments of the listed values"}[self.values.mode]
        return counts, self.UNIT

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for agent in ctx.select(self.agents):
            if self.values.mode == "free":  # slots (not days) without a working value
                cells = view.cells.get(agent, {})
                count = sum(ctx.matches(self.values, cells.get((day, period), ()))
                            for day in range(ctx.days) for period in range(ctx.periods))
            else:
                count = sum(ctx.matches(self.values, [v]) for vals in view.cells.get(agent, {}).values() for v in vals)
            lo, hi = ctx.bound(self.min, agent), ctx.bound(self.max, agent)
            gap = (lo - count if lo is not None and count < lo else 0) + (count - hi if hi is not None
                                                                          and count > hi else 0)
            if gap:
                out.append(self.violation(
                    f"{ctx.show(agent)} has {count} {_describe(ctx, self.values)}, needs {bounds_text(lo, hi)}",
                    amount=gap, entities=(ctx.show(agent),)))
        return out


def _describe(ctx: EvalContext, vf: ValueFilter) -> str:
    if vf.mode == "work":
        return "working assignments"
    if vf.mode == "free":
        return "free days"
    return "assignments of " + "/".join(ctx.show(v) for v in vf.values)
