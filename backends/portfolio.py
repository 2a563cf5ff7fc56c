"""``--backend auto``: the portfolio of every backend that supports the instance, in one budget.

The backends that encode every active constraint kind of the instance (CP-SAT, and the Pyomo
MILP with HiGHS) run at the same time, each with the whole wall-clock budget, and the best
*verified* answer is returned (each backend re-checks its own solution with the evaluator
before it reports it) together with the best proven lower bound of either (the larger one:
every objective is minimised, and a bound proven by one model holds for the instance).

How the cores are shared: with ``workers = W ≥ 2`` CP-SAT gets ``W − 1`` search workers and
HiGHS one thread, so the two together use W cores; with ``W = 1`` they run one after the other,
each for half of the budget. Both searches release the interpreter lock, so the two runs
overlap; the two model *builds* are Python and would share the lock, each taking about as long
as both together. So they are built one after the other: the MILP first (HiGHS starts its search
as soon as it holds the matrices), then CP-SAT's model while HiGHS searches — CP-SAT waits for
the MILP build at most :data:`BUILD_WAIT` of the budget, then builds regardless. When only one
backend supports the instance it gets the whole budget and every worker. A ``start`` (``--hint``) goes to both:
CP-SAT's solution hint, HiGHS's MIP start.

What is stopped when: as soon as one backend *proves* its result — an optimal answer, or
infeasibility — the other is stopped, so the wall time is that of the faster proof (plus the
stopped backend's reporting of its best answer so far). CP-SAT is stopped through
``CpSolver.stop_search`` (and its tabu-search start through its stop test); HiGHS through an
interrupt callback that ends its simplex, interior-point or branch-and-bound run at the next
interrupt point. A backend that merely ends its budget stops nothing. With ``W = 1`` (one after
the other) a proof by CP-SAT, which runs first, skips the HiGHS run.

The status is ``optimal`` when one backend proved its answer optimal or the best answer meets
the best bound, ``infeasible`` when a backend proved the instance infeasible.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import msgspec

from schedc.backends import cpsat, pyomo
from schedc.backends.base import SolveResult, gap_pct
from schedc.ir import Family, Instance
from schedc.kinds import kind_name
from schedc.solution import Solution

Progress = Callable[[int, float, float], None]
SUPPORTED_KINDS = cpsat.SUPPORTED_KINDS | pyomo.SUPPORTED_KINDS


class SolveOptions(msgspec.Struct, frozen=True, kw_only=True):
    """Portfolio parameters: the wall-clock budget, the cores to share, the random seed."""

    time_limit: float = 10.0
    workers: int = 2
    seed: int = 0


def supporting(instance: Instance) -> list[str]:
    """The backends (``cpsat``, ``pyomo``) that encode every active constraint kind of the instance."""
    kinds = {kind_name(c) for c in instance.constraints if c.active}
    return [name for name, module in (("cpsat", cpsat), ("pyomo", pyomo)) if kinds <= module.SUPPORTED_KINDS]


BUILD_WAIT = 0.1
"""The longest CP-SAT waits for the MILP to be built, as a share of the budget."""
PROOF = ("optimal", "infeasible")
"""The statuses that settle an instance: a backend reporting one stops the other."""


def solve(instance: Instance, family: Family, options: SolveOptions | None = None,
          progress: Progress | None = None, start: Solution | None = None) -> SolveResult:
    """Run the supporting backends within ``options.time_limit`` and keep the best verified answer;
    a proof by either stops the other."""
    options = options or SolveOptions()
    names = supporting(instance) or ["cpsat"]  # none: CP-SAT names the unsupported kind in its error
    if len(names) == 1:
        return _run(names[0], instance, family, options.time_limit, options.workers, options.seed, progress, start)
    began = time.perf_counter()
    results = _side_by_side(instance, family, options, progress, start) if options.workers >= 2 else \
        _one_after_the_other(instance, family, options, progress, start)
    # the wall time of the portfolio itself: a stopped run reports less than the budget
    return msgspec.structs.replace(combine(instance, results), seconds=time.perf_counter() - began)


def _one_after_the_other(instance: Instance, family: Family, options: SolveOptions, progress: Progress | None,
                         start: Solution | None) -> list[SolveResult]:
    """One worker: CP-SAT, then HiGHS unless CP-SAT proved its result, each for half the budget."""
    half = options.time_limit / 2
    first = _run("cpsat", instance, family, half, 1, options.seed, progress, start)
    if first.status in PROOF:
        return [first]
    return [first, _run("pyomo", instance, family, half, 1, options.seed, None, start)]


def _side_by_side(instance: Instance, family: Family, options: SolveOptions, progress: Progress | None,
                  start: Solution | None) -> list[SolveResult]:
    """HiGHS in a thread (one core), CP-SAT here (the other workers) once HiGHS holds its model;
    a proof by one stops the other."""
    stop_cp, stop_mip, mip_ready = threading.Event(), threading.Event(), threading.Event()

    def settled(done: Future[SolveResult]) -> None:  # runs in HiGHS's thread as soon as it returns
        if done.exception() is None and done.result().status in PROOF:
            stop_cp.set()

    with ThreadPoolExecutor(max_workers=1) as pool:
        mip = pool.submit(_run, "pyomo", instance, family, options.time_limit, 1, options.seed, None, start,
                          stop_mip, mip_ready)
        mip.add_done_callback(settled)
        began = time.perf_counter()
        mip_ready.wait(BUILD_WAIT * options.time_limit)  # the builds would share the interpreter lock
        left = max(0.1, options.time_limit - (time.perf_counter() - began))  # the wait is part of the budget
        try:
            cp = _run("cpsat", instance, family, left, options.workers - 1, options.seed, progress, start, stop_cp)
        except BaseException:
            stop_mip.set()  # the error propagates; leaving the pool must not wait for HiGHS's budget
            raise
        if cp.status in PROOF:
            stop_mip.set()
        return [cp, mip.result()]


def _run(name: str, instance: Instance, family: Family, time_limit: float, workers: int, seed: int,
         progress: Progress | None, start: Solution | None, stop: threading.Event | None = None,
         ready: threading.Event | None = None) -> SolveResult:
    if name == "cpsat":
        return cpsat.solve(instance, family, cpsat.SolveOptions(time_limit=time_limit, workers=workers, seed=seed),
                           progress, start=start, stop=stop)
    return pyomo.solve(instance, family, pyomo.SolveOptions(time_limit=time_limit, workers=workers, seed=seed),
                       progress, start=start, stop=stop, ready=ready)


def combine(instance: Instance, results: list[SolveResult]) -> SolveResult:
    """One result from several runs on the same instance: the best objective (ties: the first
    run's), the largest bound, the total of the build times, the longest wall time."""
    solved = [r for r in results if r.objective is not None]
    bounds = [r.bound for r in results if r.bound is not None and math.isfinite(r.bound)]
    bound = max(bounds) if bounds else None
    seconds = max(r.seconds for r in results)
    built = sum(r.build_seconds for r in results)
    if not solved:
        status = "infeasible" if any(r.status == "infeasible" for r in results) else "unknown"
        return SolveResult(instance=instance.name, backend="auto", status=status, objective=None, bound=bound,
                           bks=instance.meta.bks, gap_pct=None, seconds=seconds, build_seconds=built)
    best = min(solved, key=lambda r: r.objective if r.objective is not None else math.inf)
    assert best.objective is not None
    proven = any(r.status == "optimal" and r.objective == best.objective for r in solved)
    if bound is not None and best.objective <= math.ceil(bound - 1e-6):
        proven = True
    return msgspec.structs.replace(best, backend=f"auto:{best.backend}", status="optimal" if proven else "feasible",
                                   bound=bound, seconds=seconds, build_seconds=built,
                                   gap_pct=gap_pct(best.objective, instance.meta.bks))
