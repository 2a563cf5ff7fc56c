"""``resource_ties``: pairs of activities that must run on the same, or on different, unary resources.

Formal meaning: with ``U(a)`` the set of unary resources the chosen mode of a uses, a row
``same a b`` requires ``U(a) = U(b)`` and a row ``different a b`` requires ``U(a) ∩ U(b) = ∅``.
A row with an activity left out (optional) holds vacuously.

Counting rule: one violation per broken row.

Table rows: ``same A B`` or ``different A B``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Literal

import msgspec

from schedc.kinds.base import Constraint, Row, TableContext
from schedc.kinds.consecutive import unary_uses

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation


class Tie(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """``first`` and ``second`` run on the same (``same``) or on different (``different``) unary resources."""

    rule: Literal["same", "different"]
    first: str
    second: str

    KEY: ClassVar[tuple[str, ...]] = ("first", "second")


class ResourceTies(Constraint, frozen=True, kw_only=True, tag="resource_ties"):
    """Identical or different unary resources for pairs of activities."""

    COUNTS = "unary resources chosen for tied pairs of activities"
    UNIT = "tie broken"

    ties: tuple[Tie, ...] = ()

    TABLE_FIELD = "ties"

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[Tie, ...]:
        out = []
        for row in rows:
            row.expect_len(3, "same|different A B")
            if row.cells[0] not in ("same", "different"):
                raise row.error(f"expected same or different, found {row.cells[0]!r}")
            out.append(Tie(rule=row.cells[0], first=row.cells[1], second=row.cells[2]))  # type: ignore[arg-type]
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [f"{t.rule} {t.first} {t.second}" for t in self.ties]

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for t in self.ties:
            if t.first not in view.start or t.second not in view.start:
                continue
            first, second = unary_uses(ctx, view, t.first), unary_uses(ctx, view, t.second)
            broken = first != second if t.rule == "same" else bool(first & second)
            if broken:
                a, b = ctx.show(t.first), ctx.show(t.second)
                where = ", ".join(sorted(ctx.show(r) for r in first)) or "none"
                there = ", ".join(sorted(ctx.show(r) for r in second)) or "none"
                out.append(self.violation(f"{a} ({where}) and {b} ({there}) must run on {t.rule} resources",
                                          entities=(a, b)))
        return out
