"""Solving a Pyomo model with a MILP solver and turning its answer into a verified :class:`SolveResult`.

HiGHS (through ``highspy``) is the default solver; it receives the matrices of the light linear
layer (:mod:`schedc.backends.pyomo.linear`, :mod:`schedc.backends.pyomo.highs_direct` says why),
and Pyomo is not imported on that path. Any other MILP solver Pyomo knows and finds installed
(``appsi_highs``, ``cbc``, ``glpk``, ``gurobi``, …) gets the same encoders' Pyomo model
(``store="pyomo"``) through the legacy ``SolverFactory`` interface with its ``timelimit``
keyword; those solvers keep their own default gap tolerances.

The model-building time reported (``build_seconds``) runs from the start of the build to the
matrices handed to HiGHS; the one-time imports of a process (``highspy``, Pyomo for another
solver) happen before it starts (:func:`preload`), so the first instance of a process is timed
like every other.

HiGHS stops at a relative gap of 1e-4 by default, which on objectives above 10,000 could
report a non-optimal integer value as optimal; every objective here is integral (integer
weights, integer auxiliaries), so the run uses a relative gap of 0 and an absolute gap just
below 1 instead: proving the incumbent within less than one unit of the bound proves it optimal.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from schedc.backends.base import SolveResult, Status, better_start, check_agreement, gap_pct
from schedc.backends.pyomo.highs_direct import solve_direct
from schedc.backends.pyomo.model import PyomoModel, StoreName
from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Assignment, Solution
from schedc.ir import Family, Instance
from schedc.verify.evaluate import evaluate

Progress = Callable[[int, float, float], None]

ABS_GAP = 0.999
"""Absolute gap that proves optimality of an integral objective (see the module docstring)."""
NOT_MILP = frozenset({"ipopt", "ipopt_v2", "appsi_ipopt", "cyipopt", "conopt", "path", "trustregion", "multistart",
                      "mpec_nlp", "scipy.fsolve", "scipy.newton", "scipy.root", "scipy.secant-newton"})
"""Solvers Pyomo knows that cannot solve a MILP (continuous NLP or equation solvers)."""


class SolveOptions(msgspec.Struct, frozen=True, kw_only=True):
    """Solver parameters: wall-clock limit in seconds, threads, random seed, Pyomo solver name."""

    time_limit: float = 10.0
    workers: int = 2
    seed: int = 0
    solver: str = "highs"


@dataclass(frozen=True)
class Run:
    """What a solver run reports: status, incumbent objective, dual bound, whether values were loaded."""

    status: Status
    objective: float | None
    bound: float | None
    loaded: bool
    #: seconds spent translating the model for the solver (counted as model building)
    compile_seconds: float = 0.0


def check_solver(name: str) -> None:
    """A clear SchedcError unless ``name`` is a MILP solver Pyomo knows and finds installed."""
    hint = "the default is highs (installed with highspy); see `pyomo help --solvers`"
    if name in RUNNERS:  # a runner of our own: its library is a dependency, Pyomo is not involved
        return
    import pyomo.environ as pyo

    if name in NOT_MILP:
        raise SchedcError.at("E504", f"the Pyomo solver {name!r} cannot solve mixed-integer programs", hint=hint)
    if name not in pyo.SolverFactory:  # asking the factory for an unknown name logs a traceback
        raise SchedcError.at("E504", f"unknown Pyomo solver {name!r}", hint=hint)
    logger = logging.getLogger("pyomo")
    level = logger.level
    logger.setLevel(logging.CRITICAL)  # an unavailable solver is reported below, not logged
    try:
        available = bool(pyo.SolverFactory(name).available(exception_flag=False))
    except (RuntimeError, OSError, ImportError, ValueError):
        available = False
    finally:
        logger.setLevel(level)
    if not available:
        raise SchedcError.at("E504", f"the Pyomo solver {name!r} is not installed or not usable here", hint=hint)


SLOT_HEURISTIC_EFFORT = 0.2
"""HiGHS's ``mip_heuristic_effort`` (its share of the branch-and-bound work spent in primal
heuristics; HiGHS's default 0.05) on slot models. Their penalty objectives have LP bounds that
stay far below the incumbents for the whole budget, so a better incumbent is what a run can
still gain. Measured at 20 s, one thread, the two settings side by side: sprint_late01 40 → 38,
medium01 245 → 243; sprint01 still proven optimal; sprint_hidden01, medium_late01, medium_hint01,
long_hint01, long_late01 and comp05 unchanged (0.5 gave the same as 0.2 on the two sprints).
Option reference: https://ergo-code.github.io/HiGHS/stable/options/definitions"""


def _highs_options(options: SolveOptions, slots: bool = False) -> dict[str, object]:
    """HiGHS's options for a run; ``slots``: a slot model (no activities), see SLOT_HEURISTIC_EFFORT."""
    chosen: dict[str, object] = {"random_seed": options.seed, "mip_rel_gap": 0.0, "mip_abs_gap": ABS_GAP,
                                 "threads": options.workers}
    if slots:
        chosen["mip_heuristic_effort"] = SLOT_HEURISTIC_EFFORT
    return chosen


_scheduler_threads: list[int] = []  # thread count of HiGHS's process-wide scheduler, once started


def _use_threads(threads: int) -> None:
    """HiGHS keeps one process-wide thread scheduler and refuses a run (status "not set")
    that asks for another thread count; restart the scheduler when the count changes."""
    import highspy

    if _scheduler_threads != [threads]:  # also on first use: another highspy user may have started it
        highspy.Highs.resetGlobalScheduler(True)
    _scheduler_threads[:] = [threads]


@dataclass(frozen=True)
class Warm:
    """What a run gets beyond its options: a MIP start (decision variable → value, completed by
    HiGHS) and an event that, once set from another thread, interrupts the solver."""

    start: list[tuple[Any, int]] = field(default_factory=list)
    stop: threading.Event | None = None


def run_highs(m: PyomoModel, options: SolveOptions, warm: Warm | None = None) -> Run:
    """HiGHS on the model's matrices (see :mod:`schedc.backends.pyomo.highs_direct`), with the
    MIP start and interrupt of ``warm``; loads the incumbent's values when there is one."""
    warm = warm or Warm()
    extra = _highs_options(options, slots=not m.instance.activities)
    _use_threads(int(extra["threads"]))  # type: ignore[call-overload]
    outcome = solve_direct(m.store, options.time_limit, extra, start=warm.start, stop=warm.stop)
    if outcome.status == "Optimal" and outcome.loaded:
        status: Status = "optimal"
    elif outcome.status in ("Infeasible", "Primal infeasible or unbounded"):
        status = "infeasible"  # every variable is bounded, so "or unbounded" cannot be the case
    else:
        status = "feasible" if outcome.loaded else "unknown"
    return Run(status, outcome.objective if outcome.loaded else None, _integral(outcome.bound), outcome.loaded,
               outcome.compile_seconds)


def run_legacy(m: PyomoModel, options: SolveOptions, warm: Warm | None = None) -> Run:
    """Any other Pyomo solver through ``SolverFactory(name).solve`` (``timelimit`` keyword; no
    MIP start — :func:`solve` refuses one — and no interrupt) on the model of a Pyomo store."""
    import pyomo.environ as pyo
    from pyomo.opt import SolutionStatus, TerminationCondition

    solver = pyo.SolverFactory(options.solver)
    extra = {}
    if "highs" in options.solver:  # a HiGHS build behind another interface takes the same options
        extra = {"options": _highs_options(options, slots=not m.instance.activities)}
        _use_threads(options.workers)
    results = solver.solve(m.model, load_solutions=False, timelimit=options.time_limit, tee=False, **extra)
    condition = results.solver.termination_condition
    loaded = len(results.solution) > 0 and results.solution(0).status in (
        SolutionStatus.optimal, SolutionStatus.feasible, SolutionStatus.bestSoFar, SolutionStatus.globallyOptimal)
    if loaded:
        m.model.solutions.load_from(results)
    if condition == TerminationCondition.optimal and loaded:
        status: Status = "optimal"
    elif condition in (TerminationCondition.infeasible, TerminationCondition.infeasibleOrUnbounded):
        status = "infeasible"
    else:
        status = "feasible" if loaded else "unknown"
    bound = _integral(results.problem.lower_bound)
    return Run(status, m.value(m.objective) if loaded else None, bound, loaded)


def _integral(value: object) -> float | None:
    """A dual bound rounded up to an integer (objectives are integral), None when absent or infinite."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if math.isinf(number) or math.isnan(number):
        return None
    return float(math.ceil(number - 1e-6))


RUNNERS: dict[str, Callable[[PyomoModel, SolveOptions, Warm | None], Run]] = {"highs": run_highs}
"""Solvers with a runner of their own: a MIP start and an interrupt (others: :func:`run_legacy`)."""


def run(m: PyomoModel, options: SolveOptions, warm: Warm | None = None) -> Run:
    return RUNNERS.get(options.solver, run_legacy)(m, options, warm)


def store_for(solver: str) -> StoreName:
    """The light store for the solvers with a runner of their own, the Pyomo one for the others."""
    return "light" if solver in RUNNERS else "pyomo"


def preload(solver: str) -> None:
    """Import what a run with ``solver`` needs, once per process, before any build is timed."""
    if solver in RUNNERS:
        import highspy  # noqa: F401
    else:
        import pyomo.environ  # noqa: F401
        import pyomo.repn.plugins.standard_form  # noqa: F401


def extract_solution(m: PyomoModel) -> Solution:
    """The decisions of the loaded solution (binaries and starts rounded: solvers return floats)."""
    if m.instance.activities:
        performed = [a for a in m.instance.activities  # an optional activity left out has no line
                     if a.name not in m.performed or _chosen(m, m.performed[a.name])]
        starts = {a.name: int(round(m.value(m.start[a.name]) or 0)) for a in performed}
        modes = {a.name: next((k for k in range(1, len(a.modes) + 1) if _chosen(m, m.present[(a.name, k)])), 1)
                 for a in performed}
        teams = {a: tuple(w for w, var in members if _chosen(m, var))  # skill_requirements
                 for a, members in m.__dict__.get("teams", {}).items() if a in starts}
        return Solution(starts=starts, modes=modes, workers={a: t for a, t in teams.items() if t})
    return Solution(assignments=tuple(Assignment(e, d, p, v) for (e, d, p, v), var in m.x.items()
                                      if _chosen(m, var)))


def _chosen(m: PyomoModel, literal: object) -> bool:
    return literal == 1 if isinstance(literal, int) else (m.value(literal) or 0) > 0.5


def solve(instance: Instance, family: Family, options: SolveOptions | None = None,
          progress: Progress | None = None, start: Solution | None = None,
          stop: threading.Event | None = None) -> SolveResult:
    """Build, solve, extract and verify; a solution the evaluator rejects raises SolverDisagreement.

    HiGHS starts from the better feasible one of ``start`` (a published or previous answer) and
    the serial heuristic's schedule (which sets the horizon of interval models), given as the
    values of the decision variables (:meth:`PyomoModel.decisions`) that HiGHS completes. When
    the solver ends without a solution of its own, that verified start is reported as
    ``feasible``. Setting ``stop`` (from another thread: the portfolio, when CP-SAT has proven
    its answer) interrupts HiGHS at its next interrupt point.
    ``progress`` is called once, after the run (HiGHS runs with its output off).
    """
    return _solve(instance, family, options or SolveOptions(), progress, start, Warm(stop=stop))


def _solve(instance: Instance, family: Family, options: SolveOptions, progress: Progress | None,
           start: Solution | None, warm: Warm) -> SolveResult:
    check_solver(options.solver)
    if start is not None and options.solver not in RUNNERS:
        raise SchedcError.at("E506", f"the Pyomo solver {options.solver!r} takes no MIP start (--hint) here",
                             hint="the default --solver highs takes one")
    preload(options.solver)
    began = time.perf_counter()
    m = PyomoModel(instance, family, store=store_for(options.solver))
    first = better_start(m.ctx, m.hint, start)
    built = time.perf_counter() - began
    # the build runs inside the budget: the solver gets what is left of it
    left = msgspec.structs.replace(options, time_limit=max(0.1, options.time_limit - built))
    outcome = run(m, left, Warm(m.decisions(first) if first is not None else [], warm.stop))
    built += outcome.compile_seconds
    solution = extract_solution(m) if outcome.loaded else None
    status = outcome.status
    if solution is None and first is not None and status == "unknown":
        solution, status = first, "feasible"
    if solution is None:
        return SolveResult(instance=instance.name, backend="pyomo", status=status, objective=None,
                           bound=outcome.bound, bks=instance.meta.bks, gap_pct=None,
                           seconds=time.perf_counter() - began,
                           build_seconds=built)
    result = evaluate(m.ctx, solution)
    claimed, exact = _claimed(outcome)
    check_agreement("pyomo", claimed, result.objective, result.feasible, result.components, optimal=exact)
    if first is not None and solution is not first and status != "optimal":
        kept = evaluate(m.ctx, first)  # HiGHS may drop a start (one outside the model's horizon, say)
        if kept.objective is not None and result.objective is not None and kept.objective < result.objective:
            solution, result = first, kept
    seconds = time.perf_counter() - began  # the answer extracted and verified
    if progress is not None and result.objective is not None:
        progress(result.objective, outcome.bound if outcome.bound is not None else float("nan"), seconds)
    return SolveResult(instance=instance.name, backend="pyomo", status=status, objective=result.objective,
                       bound=outcome.bound, bks=instance.meta.bks, gap_pct=gap_pct(result.objective, instance.meta.bks),
                       seconds=seconds, build_seconds=built, solution=solution, components=result.components)


def probe(instance: Instance, family: Family, options: SolveOptions | None = None,
          progress: Progress | None = None, start: Solution | None = None,
          stop: threading.Event | None = None) -> SolveResult:
    """Whether the MILP has a feasible point at all: HiGHS on the light model without its
    objective, so that presolve and the LP relaxation refute most infeasible instances at once
    (an over-demanded roster: 0.16 s, where CP-SAT's default search stayed undecided for 60 s)
    and the first feasible point found ends the run. The status is ``infeasible`` (proved),
    ``feasible`` (with that point, verified by the evaluator, and its objective) or ``unknown``;
    no bound is reported (the objective was left out). ``stop`` interrupts HiGHS; ``progress``
    and ``start`` are not used (the call has :func:`solve`'s signature, so that the portfolio's
    worker process runs either, :mod:`schedc.backends.milp_child`).
    """
    options = options or SolveOptions()
    preload("highs")
    began = time.perf_counter()
    m = PyomoModel(instance, family, store="light")
    built = time.perf_counter() - began
    extra = _highs_options(options, slots=not m.instance.activities)
    _use_threads(int(extra["threads"]))  # type: ignore[call-overload]
    outcome = solve_direct(m.store, max(0.1, options.time_limit - built), extra, stop=stop, objective=False)
    built += outcome.compile_seconds
    status: Status = "infeasible" if outcome.status in ("Infeasible", "Primal infeasible or unbounded") else \
        "feasible" if outcome.loaded else "unknown"
    solution = extract_solution(m) if outcome.loaded else None
    result = evaluate(m.ctx, solution) if solution is not None else None
    if result is not None:
        check_agreement("pyomo probe", None, result.objective, result.feasible, result.components)
    return SolveResult(instance=instance.name, backend="pyomo-probe", status=status,
                       objective=result.objective if result is not None else None, bound=None,
                       bks=instance.meta.bks, gap_pct=gap_pct(result.objective, instance.meta.bks) if result else None,
                       seconds=time.perf_counter() - began, build_seconds=built, solution=solution,
                       components=result.components if result is not None else {})


def _claimed(outcome: Run) -> tuple[int | None, bool]:
    """The objective the model claims for its incumbent, and whether the claim is exact.

    At proven optimality it is exact: every auxiliary is tight. A merely feasible incumbent may
    carry slack (a makespan variable above the last end, a penalty auxiliary above its
    violation; HiGHS's incumbents on the large timetables carry a lot), so its value is only an
    upper bound of the evaluator's, never below it. Recomputing the model's exact value of the
    decisions (``fixed_verdict``: the whole model rebuilt with everything fixed) took 1.6 s past a
    20 s budget on comp07, and past a portfolio's stop; that exactness, on fixed assignments of
    every family, is what the oracle tests check instead.
    """
    if not outcome.loaded or outcome.objective is None:
        return None, False
    return int(round(outcome.objective)), outcome.status == "optimal"


def fixed_verdict(instance: Instance, family: Family, solution: Solution, time_limit: float = 10.0,
                  solver: str = "highs") -> tuple[bool, int | None, dict[str, int]]:
    """The model's verdict on a complete assignment with every decision fixed:
    (feasible, objective, per-constraint penalty) — the oracle the evaluator is tested against.

    With the decisions fixed, minimising the penalty terms makes every auxiliary variable
    tight, so each component equals its penalty. For makespan families the makespan variable
    is minimised after the penalties (a lexicographic weight), so it equals the last end.
    """
    m = PyomoModel(instance, family, fixed=solution, store=store_for(solver))
    penalty = m.penalty()
    measured = getattr(m, "objective_expr", None)
    if measured is not None:  # the measure auxiliaries and the penalty ones are disjoint: each is tight
        m.objective = penalty + measured
    elif m.makespan is not None:
        m.objective = penalty * (m.horizon + 1) + m.makespan
    else:
        m.objective = penalty
    m.store.set_objective(m.objective, "verdict")
    outcome = run(m, SolveOptions(time_limit=time_limit, workers=1, solver=solver))
    if not outcome.loaded or outcome.status not in ("optimal", "feasible"):
        return False, None, {}
    weights = {c.id: c.weight for c in instance.constraints}
    components = {cid: weights[cid] * int(round(sum(m.value(e) or 0 for e in exprs)))
                  for cid, exprs in m.components.items()}
    if measured is not None:
        if instance.objective.measure not in ("makespan", "penalty"):  # the verifier reports each term too
            components |= {f"objective:{k}": int(round(m.value(e) or 0)) for k, e in m.cache[("measures",)].items()}
        return True, int(round(m.value(measured) or 0)), components
    if m.makespan is not None:
        return True, int(round(m.value(m.makespan) or 0)), components
    return True, int(round(m.value(penalty) or 0)), components
