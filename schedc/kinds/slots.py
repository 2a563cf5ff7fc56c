"""Placement kinds of slot families: ``slot_conflict``, ``unavailability``."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from schedc.kinds.base import Constraint, Row, TableContext, fmt_opt


class SlotConflict(Constraint, frozen=True, kw_only=True, tag="slot_conflict"):
    """Conflicting agents never share a slot.

    Two distinct agents conflict when some entity of class ``groups`` lists both in its
    ``members`` attribute (e.g. a curriculum), or when they have the same value of the
    attribute ``by`` (e.g. the same teacher). Formal meaning: for every conflicting pair
    (a, b) and slot s, ``u[a,s] + u[b,s] ≤ 1`` with ``u[e,s] = Σ_v x[e,s,v]`` taken as 0/1.

    Counting rule: one violation per conflicting pair per slot, counted once however many
    reasons (groups, shared attribute) make the pair conflict.
    """

    groups: str | None = None
    members: str = "members"
    by: str | None = None


class Unavailable(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """Agent ``agent`` may not be assigned in ``day`` (period ``period``, or any period if None)."""

    agent: str
    day: int
    period: int | None


class Unavailability(Constraint, frozen=True, kw_only=True, tag="unavailability"):
    """Forbidden slots of agents.

    Formal meaning: for every row (e, d, p): ``Σ_v x[e, (d, p), v] = 0`` (every period of
    day d if p is absent).

    Counting rule: one violation per assignment placed in a forbidden slot.

    Table rows: ``agent day period`` or ``agent day`` (whole day).
    """

    slots: tuple[Unavailable, ...] = ()

    TABLE_FIELD = "slots"

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
