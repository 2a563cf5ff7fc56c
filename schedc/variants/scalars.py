"""The movable scalars of an instance, for ``schedc perturb --mode boundary``.

A scalar is one number of the instance together with the direction that makes the instance
harder and the most extreme *valid* value in that direction (its ``limit``). Per kind:

* ``time_window`` deadline: down to release + 1 (a window stays non-empty);
* ``time_window`` release: up to deadline − 1, or, without a deadline and with a makespan
  objective, up to z (the base's CP-SAT makespan) against an added bound ``makespan ≤ z``: a
  release date is only binding under some horizon, and the base's own makespan is that horizon;
* a renewable or nonrenewable capacity: down to the largest demand of an activity's cheapest mode;
* a hard coverage demand (a minimum): up to the number of agents;
* a hard run or count minimum: up to its maximum, else the calendar's length;
* a hard run or count maximum: down to its minimum (or 0);
* the objective bound: the instance's own, else a new one starting at z, down to 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec

from schedc.ir import Family, Instance
from schedc.kinds import ConsecutiveRunBounds, CountBounds, Coverage, ObjectiveBound, TimeWindow

Apply = Callable[[Instance, int], Instance]
T = TypeVar("T")


@dataclass(frozen=True)
class Scalar:
    """One number of an instance that can be moved: ``value`` now (feasible), ``limit`` its most
    extreme valid value in the tightening direction, ``apply`` the instance with another value.

    ``added``: the scalar's constraint is new (an objective bound the base lacks); ``context``: the
    changes every value of this scalar comes with (the horizon a release date is moved against).
    """

    kind: str
    label: str
    value: int
    limit: int
    apply: Apply
    added: bool = False
    context: tuple[str, ...] = ()

    def change(self, value: int) -> str:
        """The change list entry of moving this scalar to ``value``."""
        return f"added {self.label} with max={value}" if self.added else f"{self.label}: {self.value} -> {value}"

    def changes(self, value: int) -> list[str]:
        """The whole change list of the variant at ``value``: the context, then the move."""
        return [*self.context, self.change(value)]


def _replace_constraint(instance: Instance, index: int, constraint: Any) -> Instance:
    constraints = list(instance.constraints)
    constraints[index] = constraint
    return msgspec.structs.replace(instance, constraints=tuple(constraints))


def _hard(instance: Instance, kind: type[T] | tuple[type[T], ...]) -> Iterator[tuple[int, T]]:
    """The active hard constraints of a kind, with their index."""
    for i, c in enumerate(instance.constraints):
        if isinstance(c, kind) and c.hard and c.active:
            yield i, c  # type: ignore[misc]


def _free_bound_id(instance: Instance) -> str:
    taken = {c.id for c in instance.constraints}
    return next(f"bound_{k}" for k in range(1, len(taken) + 2) if f"bound_{k}" not in taken)


def _with_window(inst: Instance, i: int, k: int, **change: int | None) -> Instance:
    c: TimeWindow = inst.constraints[i]
    rows = list(c.windows)
    rows[k] = msgspec.structs.replace(rows[k], **change)
    return _replace_constraint(inst, i, msgspec.structs.replace(c, windows=tuple(rows)))


def _deadlines(instance: Instance) -> Iterator[Scalar]:
    for i, c in _hard(instance, TimeWindow):
        for k, w in enumerate(c.windows):
            if w.deadline is not None:
                def apply(inst: Instance, v: int, i: int = i, k: int = k) -> Instance:
                    return _with_window(inst, i, k, deadline=v)
                yield Scalar("time_window", f"deadline of {w.target} ({c.id})", w.deadline, w.release + 1, apply)


def _releases(instance: Instance, horizon: int | None) -> Iterator[Scalar]:
    """Release dates: up to the deadline − 1, or up to ``horizon`` against an added makespan bound."""
    bound_id = _free_bound_id(instance)
    has_bound = any(True for _ in _hard(instance, ObjectiveBound))
    for i, c in _hard(instance, TimeWindow):
        for k, w in enumerate(c.windows):
            label = f"release of {w.target} ({c.id})"
            if w.deadline is not None:
                def apply(inst: Instance, v: int, i: int = i, k: int = k) -> Instance:
                    return _with_window(inst, i, k, release=v)
                yield Scalar("release", label, w.release, w.deadline - 1, apply)
            elif horizon is not None and not has_bound and instance.objective.measure == "makespan":
                def against(inst: Instance, v: int, i: int = i, k: int = k, z: int = horizon) -> Instance:
                    bound = ObjectiveBound(id=bound_id, measure="makespan", max=z)
                    moved = _with_window(inst, i, k, release=v)
                    return msgspec.structs.replace(moved, constraints=(*moved.constraints, bound))
                context = (f"added objective_bound {bound_id} on the makespan with max={horizon}",)
                yield Scalar("release", label, w.release, horizon, against, context=context)


def _capacities(instance: Instance) -> Iterator[Scalar]:
    kinds = {_tag(c) for c in instance.constraints if c.hard and c.active}
    wanted = {"renewable": "cumulative_renewable", "nonrenewable": "nonrenewable_budget"}
    for j, r in enumerate(instance.resources):
        kind = wanted.get(r.kind)
        if kind is None or kind not in kinds:
            continue
        # the smallest valid capacity: every activity keeps a mode that fits (semantic check E2xx)
        demands = [min(next((u.amount for u in m.uses if u.resource == r.name), 0) for m in a.modes)
                   for a in instance.activities]
        def apply(inst: Instance, v: int, j: int = j) -> Instance:
            resources = list(inst.resources)
            resources[j] = msgspec.structs.replace(resources[j], capacity=v)
            return msgspec.structs.replace(inst, resources=tuple(resources))
        yield Scalar(kind, f"capacity of {r.name}", r.capacity, max(demands, default=0), apply)


def _coverage(instance: Instance, family: Family) -> Iterator[Scalar]:
    agent_cls = family.decision.agent if family.decision else ""
    agents = sum(1 for e in instance.entities if e.cls == agent_cls)
    for i, c in _hard(instance, Coverage):
        for k, q in enumerate(c.requirements):
            if q.min is not None and q.min < agents:
                slot = f"day {q.day}" + ("" if q.period is None else f" period {q.period}")
                yield Scalar("coverage", f"demand for {q.value} on {slot} ({c.id})", q.min, agents,
                             _raise_demand(i, k))


def _raise_demand(i: int, k: int) -> Apply:
    """Row ``k`` of coverage constraint ``i`` with minimum v (its maximum raised to v if below)."""
    def apply(inst: Instance, v: int) -> Instance:
        c: Coverage = inst.constraints[i]
        rows = list(c.requirements)
        q = rows[k]
        rows[k] = msgspec.structs.replace(q, min=v, max=None if q.max is None else max(q.max, v))
        return _replace_constraint(inst, i, msgspec.structs.replace(c, requirements=tuple(rows)))
    return apply


def _set_bound(field: str) -> Callable[[int], Apply]:
    def at(i: int) -> Apply:
        def apply(inst: Instance, v: int) -> Instance:
            constraint: Any = inst.constraints[i]
            return _replace_constraint(inst, i, msgspec.structs.replace(constraint, **{field: v}))
        return apply
    return at


def _tag(constraint: object) -> str:
    """The kind name of a constraint (its tag in the ``.sched`` language)."""
    return str(type(constraint).__struct_config__.tag)  # type: ignore[attr-defined]


def _minima(instance: Instance) -> Iterator[Scalar]:
    """Run and count minimums, up to the maximum (or the number of elements of the calendar)."""
    calendar = instance.calendar
    for i, c in _hard(instance, (ConsecutiveRunBounds, CountBounds)):
        low, high = c.min, c.max
        if isinstance(low, int):
            # a run has at most one element per day; a count at most one assignment per slot
            per_day = calendar.periods_per_day if calendar and isinstance(c, CountBounds) else 1
            limit = high if isinstance(high, int) else (calendar.days * per_day if calendar else 0)
            yield Scalar(f"{_tag(c)}.min", f"min of {c.id}", low, limit, _set_bound("min")(i))


def _maxima(instance: Instance) -> Iterator[Scalar]:
    for i, c in _hard(instance, (ConsecutiveRunBounds, CountBounds)):
        if isinstance(c.max, int):
            low = c.min if isinstance(c.min, int) else 0
            yield Scalar(_tag(c), f"max of {c.id}", c.max, low, _set_bound("max")(i))


def _objective(instance: Instance, z: int | None) -> Iterator[Scalar]:
    """The instance's hard objective bound, or a new one starting at the base's CP-SAT value ``z``."""
    for i, c in _hard(instance, ObjectiveBound):
        yield Scalar("objective_bound", f"max of {c.id}", c.max, 0, _set_bound("max")(i))
        return
    if z is None:
        return
    cid = _free_bound_id(instance)

    def add(inst: Instance, v: int) -> Instance:
        bound = ObjectiveBound(id=cid, measure=inst.objective.measure, max=v)
        return msgspec.structs.replace(inst, constraints=(*inst.constraints, bound))
    yield Scalar("objective_bound", f"objective_bound {cid} on the {instance.objective.measure}", z, 0, add,
                 added=True)


def scalars(instance: Instance, family: Family, z: int | None) -> dict[str, list[Scalar]]:
    """The movable scalars of an instance, grouped by kind (in a stable order); ``z`` the base's CP-SAT value."""
    out: dict[str, list[Scalar]] = {}
    for found in (_deadlines(instance), _releases(instance, z), _capacities(instance), _coverage(instance, family),
                  _minima(instance), _maxima(instance), _objective(instance, z)):
        for s in found:
            if s.limit != s.value:
                out.setdefault(s.kind, []).append(s)
    return out
