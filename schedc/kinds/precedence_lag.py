"""``precedence_lag``: generalized precedence, the eight relations of two time points with a delay.

Formal meaning: an edge ``(a, b, δ, X→Y)`` compares the time point X ∈ {S, E} of ``a`` with the
point Y of ``b``: *before* relations (``X->Y``) require ``X_a + δ ≤ Y_b``, *at* relations
(``X=Y``) require ``X_a + δ = Y_b``, where ``E_a = S_a + d_a`` and ``d_a`` is the duration of
the mode chosen for ``a``. The classic end-to-start precedence with a minimum lag is ``e->s``
(``S_b ≥ E_a + δ``). The delay may be negative: a *maximum* lag L between Y_b and X_a
(``Y_b ≤ X_a + L``) is the negative delay of the reverse relation, ``b Y->X-L a``
(``Y_b − L ≤ X_a``). An edge with an activity that is not performed (an optional one left
out) holds vacuously.

Counting rule: one violation per edge whose relation fails (amount 1 per broken edge).

Table rows: ``a -> b -> c`` (a chain: edges a→b, b→c), ``a -> b c d`` (a fan-out: edges
a→b, a→c, a→d); an arrow is ``->`` (end before start) or one of ``s->s s->e e->s e->e``
(before) and ``s=s s=e e=s e=e`` (at), followed by an optional delay ``+δ`` or ``-δ``
(``->+3``, ``s->s-10``, ``e=s+1``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Literal

import msgspec

from schedc.kinds.base import Constraint, Row, TableContext

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation

_ARROW = re.compile(r"^(?:([se])(->|=)([se])|->)([+-][0-9]{1,12})?$")
Relation = Literal["e->s", "s->s", "s->e", "e->e", "s=s", "s=e", "e=s", "e=e"]
RELATIONS: tuple[str, ...] = ("e->s", "s->s", "s->e", "e->e", "s=s", "s=e", "e=s", "e=e")


class Edge(msgspec.Struct, frozen=True, kw_only=True, array_like=True, omit_defaults=True):
    """``X_before + lag ≤ Y_after`` (``=`` for an *at* relation); the default ``e->s`` is
    ``S_after ≥ E_before + lag``."""

    before: str
    after: str
    lag: int = 0  # the text writes delays as ->+L, ->-L, s->s+L ...
    relation: Relation = "e->s"

    KEY: ClassVar[tuple[str, ...]] = ("before", "after", "relation")

    @property
    def end_start(self) -> bool:
        """Whether this is a classic precedence (end before start, non-negative lag): the edges
        that order activities (earliest starts, tails, dispatching, cycle checks)."""
        return self.relation == "e->s" and self.lag >= 0

    def holds(self, start: dict[str, int], end: dict[str, int]) -> bool:
        """Whether the relation holds for the given start and end times."""
        x = (start if self.relation[0] == "s" else end)[self.before] + self.lag
        y = (start if self.relation[-1] == "s" else end)[self.after]
        return x == y if "=" in self.relation else x <= y


def end_start_edges(constraints: Sequence[object], hard_only: bool = False) -> list[Edge]:
    """The classic precedences (:attr:`Edge.end_start`) of the active precedence constraints."""
    return [e for c in constraints if isinstance(c, PrecedenceLag) and c.active and (c.hard or not hard_only)
            for e in c.edges if e.end_start]


class PrecedenceLag(Constraint, frozen=True, kw_only=True, tag="precedence_lag"):
    """Generalized precedences over the listed edges (see the module docstring)."""

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
                continue  # not performed (optional), or unscheduled: a structural error reported elsewhere
            if not e.holds(view.start, view.end):
                out.append(self.violation(_message(ctx, view, e), entities=(ctx.show(e.before), ctx.show(e.after)),
                                          time=view.start[e.after]))
        return out


def _message(ctx: EvalContext, view: View, e: Edge) -> str:
    before, after = ctx.show(e.before), ctx.show(e.after)
    if e.relation == "e->s":
        lag = f" + lag {e.lag}" if e.lag else ""
        return f"{after} starts at {view.start[e.after]} before {before} ends at {view.end[e.before]}{lag}"
    point = {"s": ("start", view.start), "e": ("end", view.end)}
    (xname, xs), (yname, ys) = point[e.relation[0]], point[e.relation[-1]]
    relation = "=" if "=" in e.relation else "≤"
    delay = f" {'+' if e.lag >= 0 else '-'} {abs(e.lag)}" if e.lag else ""
    return (f"{before} {xname} {xs[e.before]}{delay} {relation} {after} {yname} {ys[e.after]} fails "
            f"({e.relation} relation)")


def _arrow_of(row: Row, index: int) -> tuple[str, int] | None:
    """The (relation, delay) an arrow cell writes, or None."""
    match = _ARROW.match(row.cells[index])
    if match is None:
        return None
    relation = "e->s" if match.group(1) is None else f"{match.group(1)}{match.group(2)}{match.group(3)}"
    return relation, int(match.group(4) or 0)


def _parse_row(row: Row) -> list[Edge]:
    cells = row.cells
    if len(cells) < 3 or _arrow_of(row, 1) is None:
        raise row.error("expected a precedence row 'a -> b' (chain 'a -> b -> c', fan-out 'a -> b c', or an arrow "
                        "s->s s->e e->s e->e s=s s=e e=s e=e with a delay +d/-d)", min(1, len(cells) - 1))
    arrows = [i for i in range(len(cells)) if _ARROW.match(cells[i])]
    if arrows == [1]:
        relation, lag = _arrow_of(row, 1) or ("e->s", 0)
        return [Edge(before=cells[0], after=after, lag=lag, relation=relation) for after in cells[2:]]  # type: ignore[arg-type]
    if arrows != list(range(1, len(cells) - 1, 2)) or len(cells) % 2 == 0:
        raise row.error("a chain alternates names and arrows ('a -> b -> c'); a fan-out has one arrow",
                        next((i for i in range(len(cells)) if (i % 2 == 1) != bool(_ARROW.match(cells[i]))),
                             len(cells) - 1))
    out = []
    for i in arrows:
        relation, lag = _arrow_of(row, i) or ("e->s", 0)
        out.append(Edge(before=cells[i - 1], after=cells[i + 1], lag=lag, relation=relation))  # type: ignore[arg-type]
    return out


def _arrow(e: Edge) -> str:
    head = "->" if e.relation == "e->s" else e.relation
    return head if e.lag == 0 else f"{head}{e.lag:+d}"


def _format_edges(edges: Sequence[Edge]) -> list[str]:
    """Group consecutive edges into fan-outs (same tail) or chains (head feeds the next tail)."""
    lines: list[str] = []
    i = 0
    while i < len(edges):
        first = edges[i]
        j = i + 1
        while (j < len(edges) and edges[j].before == first.before and edges[j].lag == first.lag
               and edges[j].relation == first.relation):
            j += 1
        if j - i > 1:
            heads = " ".join(e.after for e in edges[i:j])
            lines.append(f"{first.before} {_arrow(first)} {heads}")
            i = j
            continue
        parts = [first.before, _arrow(first), first.after]
        j = i + 1
        while j < len(edges) and edges[j].before == edges[j - 1].after and (
            j + 1 >= len(edges) or edges[j + 1].before != edges[j].before
        ):
            parts += [_arrow(edges[j]), edges[j].after]
            j += 1
        lines.append(" ".join(parts))
        i = j
    return lines
