"""``schedc perturb --mode boundary``: one scalar moved to the edge of feasibility.

For each kind of scalar the instance has — a hard deadline (``time_window``), a resource capacity
(``cumulative_renewable``/``nonrenewable_budget``), a hard coverage demand, a hard ``max`` of a run or
count rule, or the objective bound (the instance's own ``objective_bound``, else a new one) — one
scalar is picked at random and moved, by binary search with CP-SAT, between its current (feasible)
value and its most extreme valid value: the last value with a verified schedule and the first value
CP-SAT proves infeasible are the two variants. A scalar that stays feasible over its whole valid
range, or for which CP-SAT decides nothing within its time limit, has no boundary and is skipped.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import msgspec

from schedc.ir import Family, Instance
from schedc.kinds import ConsecutiveRunBounds, CountBounds, Coverage, ObjectiveBound, TimeWindow
from schedc.variants.common import solve_instance

Apply = Callable[[Instance, int], Instance]


@dataclass(frozen=True)
class Scalar:
    """One number of an instance that can be moved: ``value`` now (feasible), ``limit`` its most
    extreme valid value in the tightening direction, ``apply`` the instance with another value."""

    kind: str
    label: str
    value: int
    limit: int
    apply: Apply
    added: bool = False  # the scalar's constraint is new (an objective bound the base lacks)

    def change(self, value: int) -> str:
        """The change list entry of moving this scalar to ``value``."""
        return f"added {self.label} with max={value}" if self.added else f"{self.label}: {self.value} -> {value}"


@dataclass(frozen=True)
class Probe:
    """The outcome of one feasibility test: CP-SAT's status and, when feasible, its objective."""

    status: str
    objective: int | None


@dataclass(frozen=True)
class Boundary:
    """The edge found for one scalar: the last feasible and the first infeasible value."""

    scalar: Scalar
    feasible: int
    infeasible: int
    feasible_probe: Probe
    solves: int


def _replace_constraint(instance: Instance, index: int, constraint: object) -> Instance:
    constraints = list(instance.constraints)
    constraints[index] = constraint
    return msgspec.structs.replace(instance, constraints=tuple(constraints))


def _deadlines(instance: Instance) -> Iterator[Scalar]:
    for i, c in enumerate(instance.constraints):
        if isinstance(c, TimeWindow) and c.hard and c.active:
            for k, w in enumerate(c.windows):
                if w.deadline is not None:
                    def apply(inst: Instance, v: int, i: int = i, k: int = k, c: TimeWindow = c) -> Instance:
                        rows = list(c.windows)
                        rows[k] = msgspec.structs.replace(rows[k], deadline=v)
                        return _replace_constraint(inst, i, msgspec.structs.replace(c, windows=tuple(rows)))
                    yield Scalar("time_window", f"deadline of {w.target} ({c.id})", w.deadline, w.release + 1, apply)


def _capacities(instance: Instance) -> Iterator[Scalar]:
    kinds = {type(c).__struct_config__.tag for c in instance.constraints if c.hard and c.active}
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
    for i, c in enumerate(instance.constraints):
        if isinstance(c, Coverage) and c.hard and c.active:
            for k, q in enumerate(c.requirements):
                if q.min is not None and q.min < agents:
                    def apply(inst: Instance, v: int, i: int = i, k: int = k, c: Coverage = c) -> Instance:
                        rows = list(c.requirements)
                        q = rows[k]
                        rows[k] = msgspec.structs.replace(q, min=v, max=None if q.max is None else max(q.max, v))
                        return _replace_constraint(inst, i, msgspec.structs.replace(c, requirements=tuple(rows)))
                    slot = f"day {q.day}" + ("" if q.period is None else f" period {q.period}")
                    yield Scalar("coverage", f"demand for {q.value} on {slot} ({c.id})", q.min, agents, apply)


def _maxima(instance: Instance) -> Iterator[Scalar]:
    for i, c in enumerate(instance.constraints):
        if isinstance(c, ConsecutiveRunBounds | CountBounds) and c.hard and c.active and isinstance(c.max, int):
            def apply(inst: Instance, v: int, i: int = i, c: object = c) -> Instance:
                return _replace_constraint(inst, i, msgspec.structs.replace(c, max=v))  # type: ignore[type-var]
            low = c.min if isinstance(c.min, int) else 0
            yield Scalar(type(c).__struct_config__.tag, f"max of {c.id}", c.max, low, apply)  # type: ignore[attr-defined]


def _objective(instance: Instance, family: Family, time_limit: float, seed: int) -> Iterator[Scalar]:
    """The instance's hard objective bound, or a new one starting at CP-SAT's value of the objective."""
    for i, c in enumerate(instance.constraints):
        if isinstance(c, ObjectiveBound) and c.hard and c.active:
            def apply(inst: Instance, v: int, i: int = i, c: ObjectiveBound = c) -> Instance:
                return _replace_constraint(inst, i, msgspec.structs.replace(c, max=v))
            yield Scalar("objective_bound", f"max of {c.id}", c.max, 0, apply)
            return
    result = solve_instance(instance, family, time_limit, seed)
    if result.objective is None:
        return
    taken = {c.id for c in instance.constraints}
    cid = next(f"bound_{k}" for k in range(1, len(taken) + 2) if f"bound_{k}" not in taken)

    def add(inst: Instance, v: int) -> Instance:
        bound = ObjectiveBound(id=cid, measure=inst.objective.measure, max=v)
        return msgspec.structs.replace(inst, constraints=(*inst.constraints, bound))
    yield Scalar("objective_bound", f"objective_bound {cid} on the {instance.objective.measure}", result.objective, 0,
                 add, added=True)


def scalars(instance: Instance, family: Family, time_limit: float = 2.0, seed: int = 0) -> dict[str, list[Scalar]]:
    """The movable scalars of an instance, grouped by kind (in a stable order)."""
    out: dict[str, list[Scalar]] = {}
    for found in (_deadlines(instance), _capacities(instance), _coverage(instance, family), _maxima(instance),
                  _objective(instance, family, time_limit, seed)):
        for s in found:
            if s.limit != s.value:
                out.setdefault(s.kind, []).append(s)
    return out


def _probe(instance: Instance, family: Family, time_limit: float, seed: int) -> Probe:
    result = solve_instance(instance, family, time_limit, seed)
    return Probe(result.status, result.objective)


def find_boundary(base: Instance, family: Family, scalar: Scalar, time_limit: float = 2.0,
                  seed: int = 0) -> Boundary | None:
    """Binary search between the scalar's value and its limit; None when there is no edge to find."""
    probes: dict[int, Probe] = {}

    def test(v: int) -> Probe:
        if v not in probes:
            probes[v] = _probe(scalar.apply(base, v), family, time_limit, seed)
        return probes[v]

    feasible, infeasible = scalar.value, scalar.limit
    if test(feasible).status not in ("optimal", "feasible") or test(infeasible).status != "infeasible":
        return None
    while abs(feasible - infeasible) > 1:
        mid = (feasible + infeasible) // 2
        status = test(mid).status
        if status in ("optimal", "feasible"):
            feasible = mid
        elif status == "infeasible":
            infeasible = mid
        else:
            return None  # undecided within the time limit: no proven edge
    return Boundary(scalar, feasible, infeasible, probes[feasible], len(probes))


def boundary_variants(instance: Instance, family: Family, count: int, seed: int,
                      time_limit: float = 2.0) -> list[Boundary]:
    """Up to ``count`` boundaries, each of a different kind, the scalar of each kind picked by ``seed``."""
    rng = random.Random(seed)
    groups = scalars(instance, family, time_limit, seed)
    kinds = sorted(groups)
    rng.shuffle(kinds)
    out = []
    for kind in kinds:
        if len(out) >= count:
            break
        candidates = list(groups[kind])
        rng.shuffle(candidates)
        for scalar in candidates[:3]:  # a few tries per kind: some scalars have no edge in range
            found = find_boundary(instance, family, scalar, time_limit, seed)
            if found is not None:
                out.append(found)
                break
    return out
