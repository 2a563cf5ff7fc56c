"""``same_sequence``: unary resources that process paired operations in the same order.

Formal meaning: the scope lists unary resources ``R_1, …, R_k`` (k ≥ 2; ``all``: every unary
resource in declaration order). For every two neighbours ``A = R_i``, ``B = R_{i+1}`` of the list,
a *pairing* ``P ⊆ acts(A) × acts(B)`` matches operations of A with their partners on B: the
table rows ``FIRST SECOND`` (only with exactly two resources), or by default the operations of the
same job, ``(a, b)`` with ``job(a) = job(b)``, a the job's activity that can use A and b the one that
can use B (a job without one of them has no pair). Let ``σ_r`` be the sequence of r (the performed
activities whose chosen mode uses r with a positive duration, by (start, end, name); see
:mod:`schedc.kinds.setup_times`). For every two pairs ``(a, b)``, ``(a', b')`` of P whose four
activities are in their sequences, ``a`` comes before ``a'`` in ``σ_A`` exactly when ``b`` comes
before ``b'`` in ``σ_B``. With one activity per job on every machine and pairing by job, this is the
permutation flow shop: the jobs pass every machine in one order. A pair with an activity left out
(optional) or run in a mode that does not use its resource constrains nothing. Operations of A or B
outside the pairing are not constrained. This is PyJobShop's ``add_same_sequence`` (there: the
direct successors agree, which for a pairing of all operations of both machines is the same).

Counting rule: one violation per two pairs whose order differs on A and B (the inversions between
the two orders, counted over every neighbouring pair of resources of the scope).

Statement: ``hard same_sequence ID resources=all|[M1 M2 ...]`` (pairs by job), or with two listed
resources and a table ``FIRST SECOND`` (FIRST on the first resource, SECOND its partner on the
second). Every resource in scope must be kept by a hard ``unary_no_overlap``.
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import msgspec

from schedc.kinds.base import Constraint, Row, TableContext
from schedc.kinds.resources import ResourceScope
from schedc.kinds.setup_times import sequence

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation
    from schedc.kinds.shapes import InstanceShape


class Partner(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """``first`` (on the scope's first resource) is paired with ``second`` (on its second)."""

    first: str
    second: str

    KEY: ClassVar[tuple[str, ...]] = ("first",)


class SameSequence(Constraint, frozen=True, kw_only=True, tag="same_sequence"):
    """Paired operations of unary resources in one order (the permutation flow shop)."""

    COUNTS = "pairs of paired operations whose order differs between two machines"
    UNIT = "pair out of order"

    resources: ResourceScope = "all"
    pairs: tuple[Partner, ...] = ()

    TABLE_FIELD = "pairs"

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[Partner, ...]:
        out = []
        for row in rows:
            row.expect_len(2, "FIRST SECOND")
            out.append(Partner(first=row.cells[0], second=row.cells[1]))
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [f"{p.first} {p.second}" for p in self.pairs]

    def pairings(self, instance: InstanceShape) -> list[tuple[str, str, list[tuple[str, str]]]]:
        """(A, B, pairing) for every two neighbouring resources of the scope (see the module docstring)."""
        return pairings(self, instance)

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for first, second, pairing in self.pairings(ctx.instance):
            for (a, b), (a2, b2) in _inversions(view, first, second, pairing):
                sa, sb, sa2, sb2 = ctx.show(a), ctx.show(b), ctx.show(a2), ctx.show(b2)
                ra, rb = ctx.show(first), ctx.show(second)
                out.append(self.violation(f"{sa} comes before {sa2} on {ra}, but {sb2} comes before {sb} on {rb}",
                                          entities=(sa, sa2, sb, sb2, ra, rb), time=view.start[b2]))
        return out

    def count(self, ctx: EvalContext, view: View) -> dict[int, int]:
        """The number of inversions, by a sorted sweep (``check`` lists them one by one)."""
        total = sum(_inversion_count(_ranks(view, first, second, pairing))
                    for first, second, pairing in self.pairings(ctx.instance))
        return {1: total} if total else {}


def scope_of(c: SameSequence, instance: InstanceShape) -> list[str]:
    """The resources of the scope in order (``all``: the unary resources in declaration order)."""
    if c.resources == "all":
        return [r.name for r in instance.resources if r.kind == "unary"]
    return list(c.resources)


def can_use(instance: InstanceShape, name: str, resource: str) -> bool:
    """Whether some mode of activity ``name`` uses ``resource`` with a positive duration."""
    activity = next(a for a in instance.activities if a.name == name)
    return any(m.duration > 0 and any(u.resource == resource and u.amount for u in m.uses) for m in activity.modes)


def job_pairing(instance: InstanceShape, first: str, second: str) -> list[tuple[str, str]]:
    """The default pairing: per job (in order of first appearance), its activity on ``first`` with its
    activity on ``second`` (jobs with several activities on one of them are refused by the semantic pass)."""
    on: dict[str, dict[str, str]] = {first: {}, second: {}}
    for a in instance.activities:
        for resource in on:
            if a.job is not None and any(any(u.resource == resource and u.amount for u in m.uses) for m in a.modes):
                on[resource].setdefault(a.job, a.name)
    return [(on[first][job], on[second][job]) for job in on[first] if job in on[second]]


def pairings(c: SameSequence, instance: InstanceShape) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """(A, B, pairing) for every two neighbouring resources of the scope of ``c``."""
    scope = scope_of(c, instance)
    if c.pairs:
        return [(scope[0], scope[1], [(p.first, p.second) for p in c.pairs])] if len(scope) == 2 else []
    return [(a, b, job_pairing(instance, a, b)) for a, b in zip(scope, scope[1:], strict=False)]


def _ranks(view: View, first: str, second: str, pairing: list[tuple[str, str]]) -> list[tuple[int, int, int]]:
    """(position on ``first``, position on ``second``, pair index) of the pairs both of whose
    activities are in their resource's sequence, ordered by the position on ``first``."""
    pos_a = {n: i for i, n in enumerate(sequence(view, first))}
    pos_b = {n: i for i, n in enumerate(sequence(view, second))}
    return sorted((pos_a[a], pos_b[b], k) for k, (a, b) in enumerate(pairing) if a in pos_a and b in pos_b)


def _inversions(view: View, first: str, second: str,
                pairing: list[tuple[str, str]]) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """Every two pairs ``(p, q)`` with p before q on ``first`` and q's partner before p's on ``second``."""
    ranks = _ranks(view, first, second, pairing)
    return [(pairing[p[2]], pairing[q[2]]) for i, p in enumerate(ranks) for q in ranks[i + 1:] if q[1] < p[1]]


def _inversion_count(ranks: list[tuple[int, int, int]]) -> int:
    """How many pairs ``i < j`` of ``ranks`` (ordered by the first position) have a larger second
    position first: insertion into a sorted list, O(n log n) comparisons."""
    seen: list[int] = []
    total = 0
    for _, b, _ in ranks:
        total += len(seen) - bisect_right(seen, b)
        insort(seen, b)
    return total
