"""Why an instance is infeasible: a small set of hard constraints that cannot hold together.

The explain-mode model (:class:`CpsatModel` with ``explain=True``) switches every hard
constraint on and off with one enforcement literal. Solved with all of them as *assumptions*,
CP-SAT reports a subset that suffices for infeasibility
(``sufficient_assumptions_for_infeasibility``, see
https://github.com/google/or-tools/blob/stable/ortools/sat/samples/assumptions_sample_sat.py); the
subset is then minimised by deletion — drop one constraint, solve again, keep it out if the rest
is still infeasible — until the time budget runs out. A deletion check that times out keeps its
constraint (the set stays infeasible, only perhaps not minimal). Finally, the set is checked once
more with the ordinary model of only those constraints, so that the explanation never rests on
the explain-mode encoding alone.
"""

from __future__ import annotations

import time

import msgspec
from ortools.sat.python import cp_model

from schedc.backends.base import Conflict, ConflictItem
from schedc.backends.cpsat.model import CpsatModel
from schedc.ir import Family, Instance
from schedc.kinds import kind_name


class _Clock:
    """The time left of a budget, and a solver for each check within it."""

    def __init__(self, budget: float, seed: int):
        self.deadline = time.perf_counter() + budget
        self.began = time.perf_counter()
        self.seed = seed
        self.solves = 0

    def left(self) -> float:
        return self.deadline - time.perf_counter()

    def solve(self, model: cp_model.CpModel) -> tuple[int, cp_model.CpSolver]:
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = max(0.01, self.left())
        solver.parameters.num_workers = 1  # cores from assumptions need a single worker
        solver.parameters.random_seed = self.seed
        self.solves += 1
        return solver.solve(model), solver


def explain_infeasibility(instance: Instance, family: Family, budget: float = 10.0, seed: int = 0) -> Conflict | None:
    """A (deletion-minimised) set of hard constraints that cannot hold together, or None when the
    instance is feasible or its infeasibility is not established within ``budget`` seconds."""
    clock = _Clock(budget, seed)
    m = CpsatModel(instance, family, named=False, explain=True)
    index = {literal.Index(): cid for cid, literal in m.enforce.items()}
    m.model.add_assumptions(list(m.enforce.values()))
    status, solver = clock.solve(m.model)
    if status != cp_model.INFEASIBLE:
        return None
    core = [index[i] for i in solver.sufficient_assumptions_for_infeasibility() if i in index]
    core, minimal = _minimise(m, core, clock)
    verified = _infeasible_alone(instance, family, core, clock)
    by_id = {c.id: c for c in instance.constraints}
    items = tuple(ConflictItem(id=cid, kind=kind_name(by_id[cid]), span=by_id[cid].span) for cid in core)
    return Conflict(constraints=items, minimal=minimal, verified=verified, always_on=tuple(m.unconditional),
                    solves=clock.solves, seconds=round(time.perf_counter() - clock.began, 3))


def _minimise(m: CpsatModel, core: list[str], clock: _Clock) -> tuple[list[str], bool]:
    """Deletion filter over ``core``: (the constraints kept, whether each was shown necessary)."""
    kept = list(core)
    minimal = True
    for cid in list(core):
        if cid not in kept:
            continue  # already dropped with a smaller core found on the way
        if clock.left() <= 0:
            return kept, False
        trial = [x for x in kept if x != cid]
        m.model.clear_assumptions()
        m.model.add_assumptions([m.enforce[x] for x in trial])
        status, solver = clock.solve(m.model)
        if status == cp_model.INFEASIBLE:
            found = {m.enforce[x].Index() for x in trial} & set(solver.sufficient_assumptions_for_infeasibility())
            kept = [x for x in trial if m.enforce[x].Index() in found] or trial
        elif status != cp_model.FEASIBLE and status != cp_model.OPTIMAL:
            minimal = False  # undecided in time: keep it
    return kept, minimal


def _infeasible_alone(instance: Instance, family: Family, core: list[str], clock: _Clock) -> bool:
    """Whether the ordinary model with only the ``core`` hard constraints (soft ones kept) is infeasible."""
    chosen = set(core)
    constraints = tuple(c for c in instance.constraints if not c.hard or not c.active or c.id in chosen)
    m = CpsatModel(msgspec.structs.replace(instance, constraints=constraints), family, named=False)
    if clock.left() <= 0:
        return False
    status, _ = clock.solve(m.model)
    return status == cp_model.INFEASIBLE


def format_conflict(conflict: Conflict, file: str) -> str:
    """The explanation as text: one ``file:line:col: kind id`` line per constraint."""
    if not conflict.constraints:
        return "infeasible without any constraint: the data alone (durations, modes, capacities) admit no schedule"
    proof = "minimal: without any one of them the rest can hold" if conflict.minimal else \
        "not shown minimal within the time budget"
    lines = [f"these {len(conflict.constraints)} hard constraints cannot hold together ({proof}):"]
    for item in conflict.constraints:
        where = f"{file}:{item.span.line}:{item.span.column}" if item.span else file
        lines.append(f"  {where}: {item.kind} {item.id}")
    if conflict.always_on:
        lines.append("  (assumed throughout, not switched off: " + ", ".join(conflict.always_on) + ")")
    if not conflict.verified:
        lines.append("  (not confirmed with the ordinary model within the time budget)")
    return "\n".join(lines)
