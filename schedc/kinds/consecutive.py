"""``consecutive``: pairs of activities that run directly one after the other on a machine.

Formal meaning: for every row (a, b) and every unary resource r that the chosen modes of both a
and b use, b is the successor of a in the sequence of r (the performed activities using r with a
positive duration, by start; see :mod:`schedc.kinds.setup_times`): ``E_a ≤ S_b`` and no other
activity of the sequence starts in ``[S_a, S_b]``. A setup time may still separate them. A row
with an activity left out (optional), or whose modes share no unary resource, holds vacuously; one
whose chosen modes share r but one of them has zero duration is broken (that activity is in no
sequence).

Counting rule: one violation per row and shared resource where b does not directly follow a.

Table rows: ``A B``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import msgspec

from schedc.kinds.base import Constraint, Row, TableContext
from schedc.kinds.setup_times import sequence

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation


class Pair(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """``after`` runs directly after ``before`` on every unary resource both use."""

    before: str
    after: str

    KEY: ClassVar[tuple[str, ...]] = ("before", "after")


def unary_uses(ctx: EvalContext, view: View, name: str) -> set[str]:
    """The unary resources the chosen mode of a performed activity uses."""
    return {u.resource for u in view.uses(name) if u.amount and ctx.resources[u.resource].kind == "unary"}


class Consecutive(Constraint, frozen=True, kw_only=True, tag="consecutive"):
    """Directly consecutive pairs of activities on their shared unary resources."""

    COUNTS = "pairs that must run directly one after the other"
    UNIT = "pair not directly consecutive"

    pairs: tuple[Pair, ...] = ()

    TABLE_FIELD = "pairs"

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[Pair, ...]:
        out = []
        for row in rows:
            row.expect_len(2, "A B")
            out.append(Pair(before=row.cells[0], after=row.cells[1]))
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [f"{p.before} {p.after}" for p in self.pairs]

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for p in self.pairs:
            if p.before not in view.start or p.after not in view.start:
                continue  # left out: vacuous
            for resource in sorted(unary_uses(ctx, view, p.before) & unary_uses(ctx, view, p.after)):
                order = sequence(view, resource)
                ok = p.before in order and p.after in order and order.index(p.after) == order.index(p.before) + 1 \
                    and view.end[p.before] <= view.start[p.after]
                if not ok:
                    a, b, r = ctx.show(p.before), ctx.show(p.after), ctx.show(resource)
                    out.append(self.violation(f"{b} does not run directly after {a} on {r}", entities=(a, b, r),
                                              time=view.start[p.after]))
        return out
