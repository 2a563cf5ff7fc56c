"""``precedence_lag``: end-to-start precedence with a minimum lag.

Formal meaning: for every edge ``(a, b, lag)``, ``S_b ≥ E_a + lag`` where ``E_a = S_a + d_a``
and ``d_a`` is the duration of the mode chosen for ``a``.

Counting rule: one violation per edge whose inequality fails (amount 1 per broken edge).

Table rows: ``a -> b -> c`` (a chain: edges a→b, b→c), ``a -> b c d`` (a fan-out: edges
a→b, a→c, a→d); an arrow ``->+L`` carries lag ``L``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import msgspec

from schedc.kinds.base import Constraint, NonNegative, Row, TableContext

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation

_ARROW = re.compile(r"^->(?:\+([0-9]+))?$")


class Edge(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """``S_after ≥ E_before + lag``."""

    before: str
    after: str
    lag: NonNegative = 0  # the text writes lags as ->+L

    KEY: ClassVar[tuple[str, ...]] = ("before", "after")


class PrecedenceLag(Constraint, frozen=True, kw_only=True, tag="precedence_lag"):
    """End-to-start precedences ``S_b ≥ E_a + lag`` over the listed edges."""

    COUNTS = "start of a successor against its predecessor's end"
    UNIT = "precedence broken"

    edges: tuple[Edge, ...] = ()

    TABLE_FIELD = "edges"

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[Edge, ...]:
        edges: list[Edge] = []
        for row in rows:
            edges.extend(_parse_row(row))
        return tuple(edges)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return _format_edges(self.edges)

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for e in self.edges:
            if e.before not in view.end or e.after not in view.start:
                continue  # an unscheduled activity is a structural error, reported once elsewhere
            if view.start[e.after] < view.end[e.before] + e.lag:
                lag = f" + lag {e.lag}" if e.lag else ""
                before, after = ctx.show(e.before), ctx.show(e.after)
                out.append(self.violation(
                    f"{after} starts at {view.start[e.after]} before {before} ends at {view.end[e.before]}{lag}",
                    entities=(before, after), time=view.start[e.after]))
        return out

    def count(self, ctx: EvalContext, view: View) -> dict[int, int]:
        """The edges :meth:`check` lists (amount 1 each), without formatting their messages."""
        start, end = view.start, view.end
        broken = sum(1 for e in self.edges
                     if e.before in end and e.after in start and start[e.after] < end[e.before] + e.lag)
        return {1: broken} if broken else {}


def _arrow_lag(row: Row, index: int) -> int | None:
    match = _ARROW.match(row.cells[index])
    if match is None:
        return None
    return int(match.group(1) or 0)


def _parse_row(row: Row) -> list[Edge]:
    cells = row.cells
    if len(cells) < 3 or _arrow_lag(row, 1) is None:
        raise row.error("expected a precedence row 'a -> b' (chain 'a -> b -> c' or fan-out 'a -> b c')",
                        min(1, len(cells) - 1))
    arrows = [i for i in range(len(cells)) if _ARROW.match(cells[i])]
    if arrows == [1]:
        lag = _arrow_lag(row, 1) or 0
        return [Edge(before=cells[0], after=after, lag=lag) for after in cells[2:]]
    if arrows != list(range(1, len(cells) - 1, 2)) or len(cells) % 2 == 0:
        raise row.error("a chain alternates names and arrows ('a -> b -> c'); a fan-out has one arrow",
                        next((i for i in range(len(cells)) if (i % 2 == 1) != bool(_ARROW.match(cells[i]))),
                             len(cells) - 1))
    return [Edge(before=cells[i - 1], after=cells[i + 1], lag=_arrow_lag(row, i) or 0) for i in arrows]


def _arrow(lag: int) -> str:
    return "->" if lag == 0 else f"->+{lag}"


def _format_edges(edges: Sequence[Edge]) -> list[str]:
    """Group consecutive edges into fan-outs (same tail) or chains (head feeds the next tail)."""
    lines: list[str] = []
    i = 0
    while i < len(edges):
        first = edges[i]
        j = i + 1
        while j < len(edges) and edges[j].before == first.before and edges[j].lag == first.lag:
            j += 1
        if j - i > 1:
            heads = " ".join(e.after for e in edges[i:j])
            lines.append(f"{first.before} {_arrow(first.lag)} {heads}")
            i = j
            continue
        parts = [first.before, _arrow(first.lag), first.after]
        j = i + 1
        while j < len(edges) and edges[j].before == edges[j - 1].after and (
            j + 1 >= len(edges) or edges[j + 1].before != edges[j].before
        ):
            parts += [_arrow(edges[j].lag), edges[j].after]
            j += 1
        lines.append(" ".join(parts))
        i = j
    return lines

