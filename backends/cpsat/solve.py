"""Solving a CP-SAT model and turning its answer into a verified :class:`SolveResult`."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable

import msgspec
from ortools.sat.python import cp_model

from schedc.backends.base import (
    Probe,
    SolverDisagreement,
    SolveResult,
    better_start,
    check_agreement,
    gap_pct,
    stopping,
)
from schedc.backends.cpsat import ctt_period, warmstart
from schedc.backends.cpsat.model import CpsatModel, extract_solution
from schedc.backends.cpsat.warmstart import bound_makespan, local_search_start
from schedc.backends.search import ctt_search
from schedc.backends.search.heuristics import schedule_end
from schedc.core.solution import Solution
from schedc.ir import Family, Instance
from schedc.verify.evaluate import evaluate

Progress = Callable[[int, float, float], None]
_STATUS = {cp_model.OPTIMAL: "optimal", cp_model.FEASIBLE: "feasible", cp_model.INFEASIBLE: "infeasible",
           cp_model.UNKNOWN: "unknown", cp_model.MODEL_INVALID: "invalid"}


class SolveOptions(msgspec.Struct, frozen=True, kw_only=True):
    """Solver parameters: wall-clock limit in seconds, search workers, random seed."""

    time_limit: float = 10.0
    workers: int = 2
    seed: int = 0
    hint: bool = True
    #: share of ``time_limit`` spent on a local search (pure job shops: N5 tabu for a start; room-and-period
    #: timetables: any value > 0 turns on the annealing, which takes ctt_period.SEARCH_SHARE; 0: none)
    local_search: float = 0.7
    #: bound the makespan by the start's (a schedule that good exists) before solving
    bound: bool = True
    #: slot instances with interchangeable rooms: period model + exact room assignment (ctt_period)
    rooms: bool = True


class _Progress(cp_model.CpSolverSolutionCallback):
    """Each solution: reported to ``report`` (``--progress``), and the first one to ``probe``."""

    def __init__(self, report: Progress | None, probe: Probe | None = None):
        super().__init__()
        self.report = report
        self.probe = probe
        self.start = time.perf_counter()

    def on_solution_callback(self) -> None:
        if self.probe is not None:
            self.probe.feasible()
            self.probe = None
        if self.report is not None:
            self.report(int(self.objective_value), self.best_objective_bound, time.perf_counter() - self.start)


def configured_solver(options: SolveOptions) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = options.time_limit
    solver.parameters.num_workers = options.workers
    solver.parameters.random_seed = options.seed
    return solver


def anneals(instance: Instance, family: Family, options: SolveOptions | None = None) -> bool:
    """Whether :func:`solve` takes the room-and-period path with the timetable annealing
    (:mod:`schedc.backends.cpsat.ctt_period`), which runs one annealing per worker."""
    options = options or SolveOptions()
    return (options.rooms and options.local_search > 0 and ctt_period.room_relaxation(instance, family) is not None
            and ctt_search.search_problem(instance, family) is not None)


def solve(instance: Instance, family: Family, options: SolveOptions | None = None,
          progress: Progress | None = None, start: Solution | None = None,
          stop: threading.Event | None = None, probe: Probe | None = None) -> SolveResult:
    """Build, solve, extract and verify; a solution the evaluator rejects raises SolverDisagreement.

    ``start`` is a known schedule (a dispatching rule's, a previous run's) given to CP-SAT as
    its hint when it is feasible and better than the built-in heuristic's. Setting ``stop``
    (from another thread: the portfolio, when HiGHS has proven its answer) ends the tabu search
    and CP-SAT's search within about 50 ms; the best answer so far is reported. ``probe`` is
    begun when no verified start exists, and told of CP-SAT's first solution (:class:`Probe`).
    """
    options = options or SolveOptions()
    relax = ctt_period.room_relaxation(instance, family) if options.rooms else None
    if relax is not None:
        share = ctt_period.SEARCH_SHARE if options.local_search > 0 else 0.0  # its own share: see ctt_period
        return ctt_period.solve(instance, family, relax, options.time_limit, options.workers, options.seed, start,
                                share, stop, probe)
    began = time.perf_counter()
    m = CpsatModel(instance, family, named=False)
    hint = better_start(m.ctx, m.hint, start) if options.hint else None
    built = time.perf_counter() - began
    hint = local_search_start(m, hint, options.local_search * options.time_limit, options.seed,
                              stop.is_set if stop is not None else None,
                              left=options.time_limit - (time.perf_counter() - began))
    if hint is None and probe is not None:  # nothing shows the instance feasible yet
        probe.begin()
    if hint is not None:
        m.add_hint(hint)
        if options.bound:
            bound_makespan(m, schedule_end(instance, hint))
    # the build and the local search run inside the budget: CP-SAT gets what is left of it
    spent = time.perf_counter() - began
    solver = configured_solver(msgspec.structs.replace(options, time_limit=max(0.1, options.time_limit - spent)))
    for key, value in warmstart.structure_parameters(m, options.workers).items():
        if isinstance(value, list):  # a repeated field (e.g. the subsolvers' names)
            getattr(solver.parameters, key).extend(value)
        else:
            setattr(solver.parameters, key, value)
    with stopping(stop, solver.stop_search):
        watch = hint is None and probe is not None
        status = solver.solve(m.model, _Progress(progress, probe if watch else None) if progress or watch else None)
    seconds = time.perf_counter() - began
    name = _STATUS.get(status, "unknown")
    if status == cp_model.UNKNOWN and hint is not None:
        # no solution of CP-SAT's own in time (a large model with little budget left after the
        # local search): the hint is a verified schedule, reported as feasible
        return _from_start(m, hint, solver, seconds, built)
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


def _from_start(m: CpsatModel, start: Solution, solver: cp_model.CpSolver, seconds: float,
                built: float) -> SolveResult:
    """The result of a run that found no solution but had a verified start (CP-SAT's bound kept)."""
    result = evaluate(m.ctx, start)
    if not result.feasible or result.objective is None:  # better_start only keeps feasible starts
        raise SolverDisagreement("cpsat: a start that verified before solving no longer verifies")
    bound = solver.best_objective_bound
    instance = m.instance
    return SolveResult(instance=instance.name, backend="cpsat", status="feasible", objective=result.objective,
                       bound=bound if math.isfinite(bound) and bound <= result.objective else None,
                       bks=instance.meta.bks, gap_pct=gap_pct(result.objective, instance.meta.bks), seconds=seconds,
                       build_seconds=built, solution=start, components=result.components)


def fixed_verdict(instance: Instance, family: Family, solution: Solution,
                  time_limit: float = 10.0) -> tuple[bool, int | None, dict[str, int]]:
    """CP-SAT's verdict on a complete assignment with every decision fixed:
    (feasible, objective, per-constraint penalty) — the oracle the evaluator is tested against."""
    m = CpsatModel(instance, family, fixed=solution, named=False)
    # With the decisions fixed, minimising the penalty terms makes every auxiliary variable
    # tight, so each component equals its penalty (a makespan is fixed by the starts anyway).
    measured = getattr(m, "objective_expr", None)  # a due-date, setup or weighted-sum objective
    # the measure's auxiliaries and the penalty ones are disjoint, so minimising both makes each tight
    m.model.minimize(m.penalty() + (0 if measured is None else measured))
    solver = configured_solver(SolveOptions(time_limit=time_limit, workers=1))
    status = solver.solve(m.model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return False, None, {}
    weights = {c.id: c.weight for c in instance.constraints}
    components = {cid: weights[cid] * int(sum(solver.value(e) for e in exprs)) for cid, exprs in m.components.items()}
    if instance.objective.measure == "makespan":
        return True, solver.value(m.makespan), components
    if measured is not None:
        components |= {f"objective:{k}": int(solver.value(e)) for k, e in m.measure_exprs.items()}
        return True, int(solver.value(measured)), components
    return True, int(round(solver.objective_value)), components
