"""Solving a CP-SAT model and turning its answer into a verified :class:`SolveResult`."""

from __future__ import annotations

import time
from collections.abc import Callable

import msgspec
from ortools.sat.python import cp_model

from schedc.backends.base import SolveResult, check_agreement, gap_pct
from schedc.backends.cpsat.model import CpsatModel
from schedc.evaluate import evaluate
from schedc.ir import Family, Instance
from schedc.solution import Assignment, Solution

Progress = Callable[[int, float, float], None]
_STATUS = {cp_model.OPTIMAL: "optimal", cp_model.FEASIBLE: "feasible", cp_model.INFEASIBLE: "infeasible",
           cp_model.UNKNOWN: "unknown", cp_model.MODEL_INVALID: "invalid"}


class SolveOptions(msgspec.Struct, frozen=True, kw_only=True):
    """Solver parameters: wall-clock limit in seconds, search workers, random seed."""

    time_limit: float = 10.0
    workers: int = 2
    seed: int = 0
    hint: bool = True


class _Progress(cp_model.CpSolverSolutionCallback):
    def __init__(self, report: Progress):
        super().__init__()
        self.report = report
        self.start = time.perf_counter()

    def on_solution_callback(self) -> None:
        self.report(int(self.objective_value), self.best_objective_bound, time.perf_counter() - self.start)


def configured_solver(options: SolveOptions) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = options.time_limit
    solver.parameters.num_workers = options.workers
    solver.parameters.random_seed = options.seed
    return solver


def extract_solution(m: CpsatModel, solver: cp_model.CpSolver) -> Solution:
    """The decisions of the solver's best solution."""
    if m.instance.activities:
        performed = [a for a in m.instance.activities  # an optional activity left out has no line
                     if a.name not in m.performed or solver.boolean_value(m.performed[a.name])]
        starts = {a.name: solver.value(m.start[a.name]) for a in performed}
        modes = {a.name: next((k for k in range(1, len(a.modes) + 1) if _chosen(solver, m.present[(a.name, k)])), 1)
                 for a in performed}
        return Solution(starts=starts, modes=modes)
    assignments = tuple(Assignment(e, d, p, v) for (e, d, p, v), var in m.x.items() if solver.boolean_value(var))
    return Solution(assignments=assignments)


def _chosen(solver: cp_model.CpSolver, literal: object) -> bool:
    return literal == 1 if isinstance(literal, int) else solver.boolean_value(literal)


def solve(instance: Instance, family: Family, options: SolveOptions | None = None,
          progress: Progress | None = None, start: Solution | None = None) -> SolveResult:
    """Build, solve, extract and verify; a solution the evaluator rejects raises SolverDisagreement.

    ``start`` is a known schedule (a dispatching rule's, a previous run's) given to CP-SAT as
    its hint when it is feasible and better than the built-in heuristic's.
    """
    options = options or SolveOptions()
    began = time.perf_counter()
    m = CpsatModel(instance, family, named=False)
    hint = _better_start(m, start) if options.hint else None
    if hint is not None:
        m.add_hint(hint)
    built = time.perf_counter() - began
    solver = configured_solver(options)
    status = solver.solve(m.model, _Progress(progress) if progress else None)
    seconds = time.perf_counter() - began
    name = _STATUS.get(status, "unknown")
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return SolveResult(instance=instance.name, backend="cpsat", status=name, objective=None, bound=None,
                           bks=instance.meta.bks, gap_pct=None, seconds=seconds, build_seconds=built)
    solution = extract_solution(m, solver)
    result = evaluate(m.ctx, solution)
    claimed = int(round(solver.objective_value))
    check_agreement("cpsat", claimed, result.objective, result.feasible, result.components,
                    optimal=status == cp_model.OPTIMAL)
    return SolveResult(instance=instance.name, backend="cpsat", status=name, objective=result.objective,
                       bound=solver.best_objective_bound, bks=instance.meta.bks,
                       gap_pct=gap_pct(result.objective, instance.meta.bks), seconds=seconds, build_seconds=built,
                       solution=solution, components=result.components)


def _better_start(m: CpsatModel, start: Solution | None) -> Solution | None:
    """The better feasible one of the model's heuristic schedule and ``start`` (by the objective)."""
    candidates = [s for s in (m.hint, start) if s is not None]
    scored = [(r.objective, k, s) for k, s in enumerate(candidates)
              if (r := evaluate(m.ctx, s)).feasible and r.objective is not None]
    return min(scored, key=lambda t: (t[0], t[1]))[2] if scored else None


def fixed_verdict(instance: Instance, family: Family, solution: Solution,
                  time_limit: float = 10.0) -> tuple[bool, int | None, dict[str, int]]:
    """CP-SAT's verdict on a complete assignment with every decision fixed:
    (feasible, objective, per-constraint penalty) — the oracle the evaluator is tested against."""
    m = CpsatModel(instance, family, fixed=solution, named=False)
    # With the decisions fixed, minimising the penalty terms makes every auxiliary variable
    # tight, so each component equals its penalty (a makespan is fixed by the starts anyway).
    m.model.minimize(sum(w * expr for w, expr in m.terms))
    solver = configured_solver(SolveOptions(time_limit=time_limit, workers=1))
    status = solver.solve(m.model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return False, None, {}
    weights = {c.id: c.weight for c in instance.constraints}
    components = {cid: weights[cid] * int(sum(solver.value(e) for e in exprs)) for cid, exprs in m.components.items()}
    if instance.objective.measure == "makespan":
        return True, solver.value(m.makespan), components
    if instance.objective.measure != "penalty" and instance.activities:
        return True, int(solver.value(m.objective_expr)), components
    return True, int(round(solver.objective_value)), components
