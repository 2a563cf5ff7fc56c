"""``optional``: activities that may be left out, and rules on how many of a group are performed.

Formal meaning: every activity named in the table is optional, with a presence ``p_a ∈ {0, 1}``
(``p_a = 1``: performed, with a start and a mode; ``p_a = 0``: not performed, no answer line);
every other activity is required (``p_a = 1``). A row (rule, a_1 … a_n) with ``k = Σ_i p_{a_i}``
requires: ``optional`` — nothing; ``all_or_none`` — ``k ∈ {0, n}``; ``at_least_one`` — ``k ≥ 1``;
``exactly_one`` — ``k = 1``. An activity that is not performed uses no resource, and every other
rule that names it (precedence, time window, tie, setup) holds vacuously for it.

Counting rule: one violation per row whose rule fails; its amount is the number of activities
that would have to change: ``min(k, n − k)`` for ``all_or_none``, 1 for ``at_least_one``,
``|k − 1|`` for ``exactly_one``.

Table rows: ``RULE ACTIVITY...`` with RULE one of ``optional all_or_none at_least_one exactly_one``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import msgspec

from schedc.kinds.base import Constraint, Row, TableContext

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation
    from schedc.kinds.shapes import InstanceShape

SelectRule = Literal["optional", "all_or_none", "at_least_one", "exactly_one"]
SELECT_RULES: tuple[str, ...] = ("optional", "all_or_none", "at_least_one", "exactly_one")


class Selection(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """A group of optional activities and how many of them are performed."""

    rule: SelectRule
    members: tuple[str, ...]


class OptionalActivities(Constraint, frozen=True, kw_only=True, tag="optional"):
    """Optional activities with the selection rules all-or-none, at-least-one, exactly-one."""

    COUNTS = "performed activities of a group"
    UNIT = "activity to add or leave out"

    selections: tuple[Selection, ...] = ()

    TABLE_FIELD = "selections"

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[Selection, ...]:
        out = []
        for row in rows:
            if len(row) < 2:
                raise row.error("expected RULE ACTIVITY... (RULE: optional all_or_none at_least_one exactly_one)",
                                len(row) - 1 if row.cells else 0)
            if row.cells[0] not in SELECT_RULES:
                raise row.error(f"unknown selection rule {row.cells[0]!r}; expected one of {', '.join(SELECT_RULES)}")
            out.append(Selection(rule=row.cells[0], members=tuple(row.cells[1:])))  # type: ignore[arg-type]
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [" ".join([s.rule, *s.members]) for s in self.selections]

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for s in self.selections:
            performed = [a for a in s.members if a in view.start]
            k, n = len(performed), len(s.members)
            amount = {"optional": 0, "all_or_none": min(k, n - k), "at_least_one": int(k == 0),
                      "exactly_one": abs(k - 1)}[s.rule]
            if amount:
                shown = tuple(ctx.show(a) for a in s.members)
                rule = s.rule.replace("_", " ")
                out.append(self.violation(f"{k} of {', '.join(shown)} are performed, against the rule {rule}",
                                          amount=amount, entities=shown))
        return out


def optional_activities(instance: InstanceShape) -> frozenset[str]:
    """The activities named by the active ``optional`` rules of an instance."""
    return frozenset(a for c in instance.constraints if isinstance(c, OptionalActivities) and c.active
                     for s in c.selections for a in s.members)
