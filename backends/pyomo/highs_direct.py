"""The Pyomo model handed to HiGHS as matrices: Pyomo's standard-form compiler, then ``highspy``.

Why not ``pyomo.contrib.solver``'s ``highs`` interface: it is a persistent interface that walks
every constraint expression again (``generate_standard_repn``) and adds rows one by one, which
on the larger timetables took several times longer than building the model itself, outside the
solver's time limit (measured on ITC-2007 comp12: 79,432 rows, 41,920 columns). The compiler
``pyomo.repn.plugins.standard_form.LinearStandardFormCompiler`` produces the same linear program
as sparse matrices in one pass of the faster linear-representation visitor, and ``highspy``
takes them in one call. (The compiler's first use in a process imports ``scipy`` through
pyomo's deferred-import machinery, which also imports ``scipy.stats``: once per process,
2–5 s measured on a loaded 2-core machine.)

The compiled program, in mixed form: a column per Pyomo variable (bounds and integrality from
the variable), a row per constraint bound: ``bound_type`` 1 is ``a·x ≤ rhs``, −1 is
``a·x ≥ rhs``, 0 is ``a·x = rhs`` (a ranged constraint gives one row per side); the objective
``c·x + c_offset`` is minimised (every schedc objective is). The solution is written back into
the Pyomo variables, so extraction and verification are those of any other Pyomo solver.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyomo.environ as pyo
from pyomo.common.tee import capture_output
from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

INF = math.inf


@dataclass(frozen=True)
class DirectRun:
    """What HiGHS reports: its model status name, incumbent, dual bound, whether values were loaded,
    and the seconds spent compiling the model to matrices (part of the model-building time)."""

    status: str
    objective: float | None
    bound: float | None
    loaded: bool
    compile_seconds: float


def _bounds(value: float | None, default: float) -> float:
    return default if value is None else float(value)


def compile_lp(model: pyo.ConcreteModel) -> Any:
    """The ``highspy.HighsLp`` of ``model`` and the Pyomo variables of its columns, in order."""
    import highspy

    info = LinearStandardFormCompiler().write(model, mixed_form=True)
    columns = info.columns
    matrix = info.A.tocsc()
    lp = highspy.HighsLp()
    lp.num_col_ = len(columns)
    lp.num_row_ = len(info.rows)
    cost = np.asarray(info.c.toarray()[0] if hasattr(info.c, "toarray") else info.c[0], dtype=float)
    lp.col_cost_ = cost if len(cost) else np.zeros(len(columns))
    lp.offset_ = float(info.c_offset[0]) if len(info.c_offset) else 0.0
    lp.col_lower_ = np.array([_bounds(v.lb, -INF) for v in columns], dtype=float)
    lp.col_upper_ = np.array([_bounds(v.ub, INF) for v in columns], dtype=float)
    rhs = np.asarray(info.rhs, dtype=float)
    kinds = np.array([row.bound_type for row in info.rows], dtype=int)
    lp.row_lower_ = np.where(kinds <= 0, rhs, -INF)  # ≥ and = rows bound from below
    lp.row_upper_ = np.where(kinds >= 0, rhs, INF)   # ≤ and = rows bound from above
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = matrix.indptr.astype(np.int32)
    lp.a_matrix_.index_ = matrix.indices.astype(np.int32)
    lp.a_matrix_.value_ = matrix.data.astype(float)
    lp.integrality_ = [highspy.HighsVarType.kInteger if v.is_integer() else highspy.HighsVarType.kContinuous
                       for v in columns]
    return lp, columns


def solve_direct(model: pyo.ConcreteModel, time_limit: float, options: dict[str, object],
                 start: Sequence[tuple[Any, float]] = (), stop: threading.Event | None = None) -> DirectRun:
    """Solve ``model`` with HiGHS (``options``: HiGHS option names and values) within ``time_limit``
    seconds of solver time, and write the incumbent, if any, into the model's variables.

    ``start``: (Pyomo variable, value) pairs of a partial MIP start, which HiGHS completes by a
    MIP with those values fixed (bounded by its option ``mip_max_start_nodes``) and starts from
    when the completion is feasible (``Highs::setSolution`` with a sparse solution). ``stop``:
    once set from another thread, HiGHS is interrupted at its next interrupt point.
    """
    import highspy

    began = time.perf_counter()
    lp, columns = compile_lp(model)
    compiled = time.perf_counter() - began
    highs = _quiet_highs()
    for name, value in options.items():
        highs.setOptionValue(name, value)
    # the solver gets the whole limit, as CP-SAT does: compiling is model building, reported as such
    highs.setOptionValue("time_limit", float(max(time_limit, 0.01)))
    highs.passModel(lp)
    _set_start(highs, columns, start)
    if stop is not None:
        _interrupt_when(highs, stop)
    highs.run()
    if highs.getModelStatus() == highspy.HighsModelStatus.kNotset:
        # HiGHS refuses a run whose thread count differs from its process-wide scheduler's, which
        # another highspy user in this process (a test, a user's own model) may have started with
        # its default count: restart the scheduler with ours and run again
        highspy.Highs.resetGlobalScheduler(True)
        highs.run()
    status = highs.modelStatusToString(highs.getModelStatus())
    info = highs.getInfo()
    loaded = info.primal_solution_status == 2  # kSolutionStatusFeasible
    if loaded:
        values = highs.getSolution().col_value
        for var, value in zip(columns, values, strict=True):
            var.set_value(value, skip_validation=True)
    integral = any(kind == highspy.HighsVarType.kInteger for kind in lp.integrality_)
    bound = info.mip_dual_bound if integral else info.objective_function_value  # an LP's optimum is its bound
    objective = info.objective_function_value if loaded else None
    return DirectRun(status, objective, bound if bound is not None and math.isfinite(bound) else None, loaded,
                     compiled)


def _quiet_highs() -> Any:
    """A ``highspy.Highs`` that prints nothing: the first one of a process writes a banner to the
    C-level standard output (which would corrupt ``schedc solve --json``), so that one is built
    with the file descriptor captured; every run has ``output_flag`` off."""
    import highspy

    with capture_output(capture_fd=True):
        highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    return highs


def _set_start(highs: Any, columns: list[Any], start: Sequence[tuple[Any, float]]) -> None:
    position = {id(var): j for j, var in enumerate(columns)}
    entries = {position[id(var)]: float(value) for var, value in start if id(var) in position}
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
