"""``setup_times``: sequence-dependent setup times on unary resources.

Formal meaning: on a unary resource r, the *sequence* of r is the list of performed activities
whose chosen mode uses r with a positive duration, ordered by (start, end, name). For every pair
(a, b) consecutive in that sequence, ``E_a + s_r(a, b) ≤ S_b``: the setup occupies the machine
between the two operations (so nothing else can run there).

Table rows: ``RESOURCE FROM TO TIME``, in one of three forms:

* an *activity row* ``M1 J1.1 J2.1 3``: on M1, J2.1 directly after J1.1 needs 3 units;
* a *class row* ``M1 J1 J2 3`` whose FROM and TO name jobs: on M1, any activity of job J2 directly
  after any activity of job J1 needs 3 units (``M1 J1 J1 1``: between two activities of job J1).
  The jobs of the instance are its activity classes (families of operations);
* a *constant row* ``OR1 * * 15``: on OR1, every ordered pair of distinct activities needs 15 units.

FROM and TO are both activities, both jobs or both ``*`` (a mixed row is an error, E210); a name is
read as an activity when the instance has an activity of that name, else as a job. Let U_r be the
activities that can use r (some mode uses r with a positive amount). For distinct a, b in U_r,
``s_r(a, b)`` is, by precedence within one rule:

1. the TIME of the activity row ``r a b``, if there is one; else
2. the TIME of the class row ``r job(a) job(b)``, if both have jobs and there is one; else
3. the TIME of the constant row ``r * *``, if there is one; else
4. no setup (0), and the pair has no entry in the rule's matrix.

A more specific row overrides a more general one whatever its time (``OR1 * * 15`` with
``OR1 S3 S4 0`` means no setup from S3 to S4). :meth:`SetupTimes.matrix` resolves the rows to
this per-pair table once; the verifier, the measures, ``no_idle`` and both backends read only it,
so a rule means exactly the same as its expansion into activity rows. Several rules on one
resource are merged by keeping the largest time of each pair (:func:`setup_matrices`).

Counting rule: one violation per consecutive pair whose gap is shorter than its setup; its
amount is the shortfall ``E_a + s_r(a, b) − S_b``.

The objective term ``setup_time`` sums ``s_r(a, b)`` over every consecutive pair of every
resource with setup rows (:func:`total_setup_time`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, ClassVar, Literal

import msgspec

from schedc.kinds.base import Constraint, NonNegative, Row, TableContext

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation
    from schedc.kinds.shapes import ActivityShape, InstanceShape

#: the FROM and TO of a constant row: every activity on the resource
ANY = "*"

Times = dict[tuple[str, str], int]
RowForm = Literal["activity", "class", "constant"]
#: the row forms from the most specific to the most general (the precedence of the module docstring)
FORMS: tuple[RowForm, ...] = ("activity", "class", "constant")


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
            if (row.cells[1] == ANY) != (row.cells[2] == ANY):
                raise row.error(f"{ANY} stands for every activity in both FROM and TO or in neither",
                                1 if row.cells[1] == ANY else 2,
                                f"e.g. {row.cells[0]} {ANY} {ANY} {row.cells[3]} (a setup between any two activities)")
            out.append(Setup(resource=row.cells[0], before=row.cells[1], after=row.cells[2],
                             time=row.int(3, "setup time")))
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [f"{s.resource} {s.before} {s.after} {s.time}" for s in self.setups]

    def matrix(self, instance: InstanceShape) -> dict[str, dict[tuple[str, str], int]]:
        """The setup time per resource and (before, after) pair of activities, the rows resolved by
        their precedence (module docstring): an activity row over a class row over a constant row.
        Pairs no row covers have no entry."""
        names = {a.name for a in instance.activities}
        levels: dict[str, tuple[Times, Times, Times]] = {}
        for s in self.setups:
            form = row_form(s, names)
            if form is not None:
                levels.setdefault(s.resource, ({}, {}, {}))[FORMS.index(form)][(s.before, s.after)] = s.time
        out: dict[str, Times] = {}
        for resource, (pairs, classes, constant) in levels.items():
            if not classes and not constant:
                out[resource] = dict(pairs)
                continue
            users = [a for a in instance.activities if can_use(a, resource)]
            times: Times = {}
            for a in users:
                for b in users:
                    if a.name == b.name:
                        continue
                    time = pairs.get((a.name, b.name))
                    if time is None and a.job is not None and b.job is not None:
                        time = classes.get((a.job, b.job))
                    if time is None:
                        time = constant.get((ANY, ANY))
                    if time is not None:
                        times[(a.name, b.name)] = time
            out[resource] = times
        return out

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for resource, times in self.matrix(ctx.instance).items():
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


def row_form(s: Setup, activities: Collection[str]) -> RowForm | None:
    """The form of a setup row: both cells ``*`` (constant), both activities, or both other names (jobs,
    class rows); ``None`` for a mixed row, which the semantic pass rejects."""
    if s.before == ANY and s.after == ANY:
        return "constant"
    if ANY in (s.before, s.after):
        return None
    first, second = s.before in activities, s.after in activities
    if first and second:
        return "activity"
    return "class" if not first and not second else None


def can_use(activity: ActivityShape, resource: str) -> bool:
    """Whether some mode of ``activity`` uses ``resource`` with a positive amount."""
    return any(u.resource == resource and u.amount for m in activity.modes for u in m.uses)


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
            for resource, times in c.matrix(instance).items():
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
