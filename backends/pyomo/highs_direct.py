"""The MILP handed to HiGHS as matrices through ``highspy``: one ``passModel`` call.

The model's store gives the matrices (:class:`schedc.backends.pyomo.linear.Matrices`): the light
store (:mod:`schedc.backends.pyomo.linear`) has them as it was built, row by row into CSR arrays;
the Pyomo store compiles its ``ConcreteModel`` with Pyomo's ``LinearStandardFormCompiler``.

Why not ``pyomo.contrib.solver``'s ``highs`` interface: it is a persistent interface that walks
every constraint expression again (``generate_standard_repn``) and adds rows one by one, which
on the larger timetables took several times longer than building the model itself, outside the
solver's time limit (measured on ITC-2007 comp12: 79,432 rows, 41,920 columns). And why not
Pyomo at all on this path: its expression objects and its standard-form walk still took ~3 s
on comp12, 15 % of a 20 s budget (issue #19; ``docs/solving.md`` has the measurements).

The program, in mixed form: a column per variable (bounds and integrality), a row per
``row_lower ≤ a·x ≤ row_upper`` (an infinite side for one-sided rows); the objective
``c·x + offset`` is minimised (every schedc objective is). The solution is loaded back into the
store, so extraction and verification read it through :meth:`PyomoModel.value`.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from schedc.backends.pyomo.linear import Matrices, Store


@dataclass(frozen=True)
class DirectRun:
    """What HiGHS reports: its model status name, incumbent, dual bound, whether values were loaded,
    and the seconds spent compiling the model to matrices (part of the model-building time)."""

    status: str
    objective: float | None
    bound: float | None
    loaded: bool
    compile_seconds: float


def pass_model(highs: Any, matrices: Matrices, objective: bool = True) -> None:
    """Hand ``matrices`` to ``highs`` in one call: the array form of ``Highs::passModel`` reads the
    numpy buffers directly (filling a ``HighsLp``'s vectors from Python converted each of comp12's
    1.4 million coefficients one by one: 0.35 s). Without ``objective`` every point costs 0."""
    import highspy

    cost = matrices.cost if objective else np.zeros_like(matrices.cost)
    status = highs.passModel(matrices.num_col, matrices.num_row, len(matrices.value),
                             int(highspy.MatrixFormat.kRowwise), int(highspy.ObjSense.kMinimize),
                             matrices.offset if objective else 0.0, cost, matrices.col_lower, matrices.col_upper,
                             matrices.row_lower, matrices.row_upper, matrices.start[:-1], matrices.index,
                             matrices.value, matrices.integer.astype(np.int32))  # 1: HighsVarType.kInteger
    if status == highspy.HighsStatus.kError:
        raise RuntimeError("HiGHS refused the model's matrices")


def solve_direct(store: Store, time_limit: float, options: dict[str, object],
                 start: Sequence[tuple[Any, float]] = (), stop: threading.Event | None = None,
                 objective: bool = True) -> DirectRun:
    """Solve the model of ``store`` with HiGHS (``options``: HiGHS option names and values) within
    ``time_limit`` seconds of solver time, and load the incumbent, if any, into the store.

    ``start``: (variable, value) pairs of a partial MIP start, which HiGHS completes by a
    MIP with those values fixed (bounded by its option ``mip_max_start_nodes``) and starts from
    when the completion is feasible (``Highs::setSolution`` with a sparse solution). ``stop``:
    once set from another thread, HiGHS is interrupted at its next interrupt point. Without
    ``objective`` (a feasibility probe) every point costs 0, so the first feasible one is optimal
    and ends the run; the objective and bound reported are then those of the zero objective.
    """
    import highspy

    highs = _quiet_highs()
    for name, value in options.items():
        highs.setOptionValue(name, value)
    # the solver gets the whole limit, as CP-SAT does: compiling is model building, reported as such
    highs.setOptionValue("time_limit", float(max(time_limit, 0.01)))
    began = time.perf_counter()
    matrices = store.matrices()
    pass_model(highs, matrices, objective)
    compiled = time.perf_counter() - began
    _set_start(highs, store, start)
    if stop is not None:
        _interrupt_when(highs, stop)
    highs.run()
    if highs.getModelStatus() == highspy.HighsModelStatus.kNotset:
        # HiGHS refuses a run whose thread count differs from its process-wide scheduler's, which
        # another highspy user in this process (a test, a user's own model) may have started with
        # its default count: restart the scheduler with ours and run again
        highspy.Highs.resetGlobalScheduler(True)
        highs.run()
    if start and objective and _returned_the_start(highs, matrices):
        # HiGHS 1.16 may report its optimum with the start's values as the solution (seen when
        # presolve settles a model whose start is feasible but not optimal): solve again without it
        return solve_direct(store, time_limit - (time.perf_counter() - began), options, (), stop, objective)
    status = highs.modelStatusToString(highs.getModelStatus())
    info = highs.getInfo()
    loaded = info.primal_solution_status == 2  # kSolutionStatusFeasible
    if loaded:
        store.load(highs.getSolution().col_value)
    integral = bool(matrices.integer.any())
    bound = info.mip_dual_bound if integral else info.objective_function_value  # an LP's optimum is its bound
    objective = info.objective_function_value if loaded else None
    return DirectRun(status, objective, bound if bound is not None and math.isfinite(bound) else None, loaded,
                     compiled)


def _returned_the_start(highs: Any, matrices: Matrices) -> bool:
    """Whether the values HiGHS returns disagree with the objective it reports (``c·x + offset``)."""
    info = highs.getInfo()
    if info.primal_solution_status != 2:
        return False
    values = np.asarray(highs.getSolution().col_value, dtype=float)
    cost = float(matrices.cost @ values) + matrices.offset
    reported = info.objective_function_value
    return abs(cost - reported) > 1e-6 * max(1.0, abs(reported))


def _quiet_highs() -> Any:
    """A ``highspy.Highs`` that prints nothing: the first one of a process writes a banner to the
    C-level standard output (which would corrupt ``schedc solve --json``), so that one is built
    with the file descriptor captured; every run has ``output_flag`` off."""
    import highspy

    with _silenced_stdout():
        highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    return highs


@contextmanager
def _silenced_stdout() -> Iterator[None]:
    """File descriptor 1 pointed at the null device meanwhile (C code writes there, not to ``sys.stdout``)."""
    sys.stdout.flush()
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def _set_start(highs: Any, store: Store, start: Sequence[tuple[Any, float]]) -> None:
    entries = {col: float(value) for var, value in start if (col := store.column(var)) is not None}
    if entries:
        index = np.fromiter(entries, dtype=np.int32, count=len(entries))
        highs.setSolution(len(entries), index, np.fromiter(entries.values(), dtype=np.float64, count=len(entries)))


def _interrupt_when(highs: Any, stop: threading.Event) -> None:
    def interrupt(event: Any) -> None:  # HiGHS asks this at every interrupt point
        if stop.is_set():
            event.interrupt()

    highs.cbSimplexInterrupt += interrupt
    highs.cbIpmInterrupt += interrupt
    highs.cbMipInterrupt += interrupt
