"""``schedc perturb --mode boundary``: one scalar moved to the edge of feasibility.

For each kind of scalar the instance has (:mod:`schedc.variants.scalars`: a hard deadline or release
date, a resource capacity, a hard coverage demand, a hard minimum or maximum of a run or count rule,
or the objective bound) one scalar is picked at random and moved, by binary search with CP-SAT,
between its current (feasible) value and its most extreme valid value: the last value with a
verified schedule and the first value CP-SAT proves infeasible are the two variants. A scalar that
stays feasible over its whole valid range, or for which CP-SAT decides nothing within its time
limit, has no boundary and is skipped.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from schedc.ir import Family, Instance
from schedc.variants.common import solve_instance
from schedc.variants.scalars import Scalar, scalars

__all__ = ["Boundary", "Probe", "Scalar", "boundary_variants", "find_boundary"]


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
    base = solve_instance(instance, family, time_limit, seed)
    groups = scalars(instance, family, base.objective if base.status in ("optimal", "feasible") else None)
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
