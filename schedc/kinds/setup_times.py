"""``setup_times``: sequence-dependent setup times on unary resources.

Formal meaning: on a unary resource r, the *sequence* of r is the list of performed activities
whose chosen mode uses r with a positive duration, ordered by (start, end, name). For every pair
(a, b) consecutive in that sequence, ``E_a + s_r(a, b) ≤ S_b``: the setup occupies the machine
between the two operations (so nothing else can run there). Pairs without a row need no setup.
With a hard ``unary_no_overlap`` the sequence is the machine's processing order.

Counting rule: one violation per consecutive pair whose gap is shorter than its setup; its
amount is the shortfall ``E_a + s_r(a, b) − S_b``.

Table rows: ``RESOURCE FROM TO TIME`` (on RESOURCE, TO directly after FROM needs TIME units).

The objective term ``setup_time`` sums ``s_r(a, b)`` over every consecutive pair of every
resource with setup rows (:func:`total_setup_time`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import msgspec

from schedc.kinds.base import Constraint, NonNegative, Row, TableContext

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation
    from schedc.kinds.shapes import InstanceShape


class Setup(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """On ``resource``, ``after`` directly after ``before`` needs ``time`` units of setup between them."""

    resource: str
    before: str
    after: str
    time: NonNegative

    KEY: ClassVar[tuple[str, ...]] = ("resource", "before", "after")


class SetupTimes(Constraint, frozen=True, kw_only=True, tag="setup_times"):
    """Sequence-dependent setup times between consecutive activities on unary resources."""

    COUNTS = "gap between consecutive activities on a resource against their setup time"
    UNIT = "time unit of setup missing"

    setups: tuple[Setup, ...] = ()

    TABLE_FIELD = "setups"

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[Setup, ...]:
        out = []
        for row in rows:
            row.expect_len(4, "RESOURCE FROM TO TIME")
            out.append(Setup(resource=row.cells[0], before=row.cells[1], after=row.cells[2],
                             time=row.int(3, "setup time")))
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [f"{s.resource} {s.before} {s.after} {s.time}" for s in self.setups]

    def matrix(self) -> dict[str, dict[tuple[str, str], int]]:
        """Setup time per resource and (before, after) pair."""
        out: dict[str, dict[tuple[str, str], int]] = {}
        for s in self.setups:
            out.setdefault(s.resource, {})[(s.before, s.after)] = s.time
        return out

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for resource, times in self.matrix().items():
            for a, b in consecutive_pairs(view, resource):
                need = times.get((a, b), 0)
                gap = view.start[b] - view.end[a]
                if gap < need:
                    sa, sb = ctx.show(a), ctx.show(b)
                    out.append(self.violation(
                        f"{sb} starts at {view.start[b]} on {ctx.show(resource)}, {gap} after {sa} ends at "
                        f"{view.end[a]}, but the setup from {sa} to {sb} takes {need}",
                        amount=need - gap, entities=(sa, sb, ctx.show(resource)), time=view.start[b]))
        return out


def sequence(view: View, resource: str) -> list[str]:
    """The performed activities using ``resource`` with a positive duration, by (start, end, name)."""
    users = [name for name in view.start if view.end[name] > view.start[name]
             and any(u.resource == resource and u.amount for u in view.uses(name))]
    return sorted(users, key=lambda n: (view.start[n], view.end[n], n))


def consecutive_pairs(view: View, resource: str) -> list[tuple[str, str]]:
    """Consecutive pairs of the sequence of ``resource``."""
    order = sequence(view, resource)
    return list(zip(order, order[1:], strict=False))


def total_setup_time(ctx: EvalContext, view: View) -> int:
    """``Σ s_r(a, b)`` over the consecutive pairs of every resource with setup rows (active rules)."""
    return sum(times.get(pair, 0) for resource, times in setup_matrices(ctx.instance).items()
               for pair in consecutive_pairs(view, resource))


def setup_matrices(instance: InstanceShape, hard_only: bool = False) -> dict[str, dict[tuple[str, str], int]]:
    """Every active setup row of the instance (of its hard rules only, with ``hard_only``), per
    resource (rows of several rules merged, the largest time kept)."""
    out: dict[str, dict[tuple[str, str], int]] = {}
    for c in instance.constraints:
        if isinstance(c, SetupTimes) and c.active and (c.hard or not hard_only):
            for resource, times in c.matrix().items():
                merged = out.setdefault(resource, {})
                for pair, time in times.items():
                    merged[pair] = max(merged.get(pair, 0), time)
    return out


def max_total_setup(instance: InstanceShape) -> int:
    """An upper bound on the setup time any schedule spends: the largest setup out of each activity."""
    total = 0
    for times in setup_matrices(instance).values():
        largest: dict[str, int] = {}
        for (before, _after), time in times.items():
            largest[before] = max(largest.get(before, 0), time)
        total += sum(largest.values())
    return total
