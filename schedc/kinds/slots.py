"""Placement kinds of slot families: ``slot_conflict``, ``unavailability``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import msgspec

from schedc.kinds.base import Constraint, Row, TableContext, fmt_opt

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation


class SlotConflict(Constraint, frozen=True, kw_only=True, tag="slot_conflict"):
    """Conflicting agents never share a slot.

    Two distinct agents conflict when some entity of class ``groups`` lists both in its
    ``members`` attribute (e.g. a curriculum), or when they have the same value of the
    attribute ``by`` (e.g. the same teacher). Formal meaning: for every conflicting pair
    (a, b) and slot s, ``u[a,s] + u[b,s] ≤ 1`` with ``u[e,s] = Σ_v x[e,s,v]`` taken as 0/1.

    Counting rule: one violation per conflicting pair per slot, counted once however many
    reasons (groups, shared attribute) make the pair conflict.
    """

    COUNTS = "slots shared by conflicting agents"
    UNIT = "clash"

    groups: str | None = None
    members: str = "members"
    by: str | None = None

    def cliques(self, ctx: EvalContext) -> list[list[str]]:
        """The groups of mutually conflicting agents: each group's members, and the agents
        sharing each value of the ``by`` attribute (groups of at least two)."""
        out: list[list[str]] = []
        if self.groups is not None:
            out += [list(attrs.get(self.members, ())) for attrs in ctx.by_class.get(self.groups, {}).values()]
        if self.by is not None:
            shared: dict[object, list[str]] = {}
            for agent in ctx.agents:
                shared.setdefault(ctx.attrs(ctx.agent_cls, agent).get(self.by), []).append(agent)
            out += list(shared.values())
        return [members for members in out if len(members) > 1]

    def conflicts(self, ctx: EvalContext) -> dict[str, set[str]]:
        """For each agent, the agents it conflicts with (one relation for all reasons)."""
        adjacent: dict[str, set[str]] = {}
        for members in self.cliques(ctx):
            for a in members:
                adjacent.setdefault(a, set()).update(b for b in members if b != a)
        return adjacent

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        adjacent = self.conflicts(ctx)
        present: dict[tuple[int, int], set[str]] = {}
        for a in view.assignments:
            present.setdefault((a.day, a.period), set()).add(a.agent)
        out = []
        for (day, period), agents in sorted(present.items()):
            for a in sorted(agents):
                for b in sorted(adjacent.get(a, set()) & agents):
                    if a < b:
                        where = ctx.day_label(day, period)
                        out.append(self.violation(f"{ctx.show(a)} and {ctx.show(b)} conflict but share {where}",
                                                  entities=(ctx.show(a), ctx.show(b)), day=day))
        return out


class Unavailable(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """Agent ``agent`` may not be assigned in ``day`` (period ``period``, or any period if None)."""

    agent: str
    day: int
    period: int | None

    KEY: ClassVar[tuple[str, ...]] = ("agent", "day", "period")


class Unavailability(Constraint, frozen=True, kw_only=True, tag="unavailability"):
    """Forbidden slots of agents.

    Formal meaning: for every row (e, d, p): ``Σ_v x[e, (d, p), v] = 0`` (every period of
    day d if p is absent).

    Counting rule: one violation per assignment placed in a forbidden slot.

    Table rows: ``agent day period`` or ``agent day`` (whole day).
    """

    COUNTS = "assignments in forbidden slots"
    UNIT = "assignment in a forbidden slot"

    slots: tuple[Unavailable, ...] = ()

    TABLE_FIELD = "slots"

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        forbidden = {(u.agent, u.day, u.period) for u in self.slots}
        out = []
        for a in view.assignments:
            if (a.agent, a.day, a.period) in forbidden or (a.agent, a.day, None) in forbidden:
                where = ctx.day_label(a.day, a.period)
                out.append(self.violation(f"{ctx.show(a.agent)} is not available on {where}",
                                          entities=(ctx.show(a.agent),), day=a.day))
        return out

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[Unavailable, ...]:
        out = []
        for row in rows:
            if len(row) not in (2, 3):
                raise row.error(f"expected 'agent day period' or 'agent day', found {len(row)} cells")
            period = row.int(2, "a period") if len(row) == 3 else None
            out.append(Unavailable(agent=row.cells[0], day=row.int(1, "a day"), period=period))
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [f"{u.agent} {u.day}" + ("" if u.period is None else f" {fmt_opt(u.period)}") for u in self.slots]
