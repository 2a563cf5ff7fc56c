"""Agent-row large-neighbourhood search for rosters (see :mod:`~schedc.backends.cpsat.roster_start`).

From a feasible roster, each step frees the assignment variables of a few agents (every day)
or of every agent over a few consecutive days, fixes all the others to the incumbent, and
lets CP-SAT (one worker, the LP at level 2) re-optimise that neighbourhood for a short time;
the step's roster is kept when the model's objective does not get worse. This is the
neighbourhood of nurse-rostering LNS (re-roster a few nurses against the others' fixed
cover), which CP-SAT's generic neighbourhoods do not pick out. Every random choice comes
from ``random.Random(seed)``; the result is verified by the evaluator before it is used.

The neighbourhood size adapts: a step solved to optimality grows it by one agent (up to
half of them), a step that ran out of time shrinks it. The first step frees every variable for
at most :data:`WHOLE_STEP_SECONDS`: when that proves the roster optimal, there is nothing left to do.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ortools.sat.python import cp_model

from schedc.backends.base import stopping
from schedc.core.solution import Assignment, Solution
from schedc.verify.evaluate import evaluate

if TYPE_CHECKING:
    from schedc.backends.cpsat.model import CpsatModel

STEP_SECONDS = 1.0
"""Time limit of one neighbourhood solve."""
WHOLE_STEP_SECONDS = 1.0
"""Time limit of the first step, which frees every variable: a roster small enough to be solved
and proven optimal in it needs no LNS (and CP-SAT's own search, which follows, proves it again at
once), so the LNS's share of the budget is not spent on it."""
LINEARIZATION = 2
PRESOLVE = True


class _Neighbourhoods:
    """The working copy of the model whose assignment-variable domains each step rewrites."""

    def __init__(self, m: CpsatModel):
        self.m = m
        self.copy = m.model.clone()
        self.cells = [(key, var.Index()) for key, var in m.x.items() if var is not m.zero]
        self.by_agent: dict[str, list[int]] = {}
        self.by_day: dict[int, list[int]] = {}
        for k, ((agent, day, _p, _v), _index) in enumerate(self.cells):
            self.by_agent.setdefault(agent, []).append(k)
            self.by_day.setdefault(day, []).append(k)
        self.full: list[int] | None = None  # every variable's value in the incumbent, once known
        self.last: list[int] = []

    def solve(self, values: list[int], free: set[int], seconds: float, seed: int,
              stop: Callable[[], bool] | None = None) -> tuple[list[int] | None, float, bool]:
        """Re-optimise the cells ``free`` with the others fixed to ``values``: (the new values or
        None, the model's objective of them, whether the step proved them optimal); ``stop()``
        turning true ends the step early."""
        proto = self.copy.proto
        proto.clear_solution_hint()
        hint = proto.solution_hint
        for k, (_key, index) in enumerate(self.cells):
            domain = proto.variables[index].domain  # a Boolean's domain is the one interval [lo, hi]
            domain[0], domain[1] = (0, 1) if k in free else (values[k], values[k])
        if self.full is None:  # the start: its assignment variables only
            for k, (_key, index) in enumerate(self.cells):
                hint.vars.append(index)
                hint.values.append(values[k])
        else:  # every variable of the last step's solution: nothing left for CP-SAT to complete
            hint.vars.extend(range(len(self.full)))
            hint.values.extend(self.full)
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = seconds
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = seed
        solver.parameters.linearization_level = LINEARIZATION
        solver.parameters.cp_model_presolve = PRESOLVE
        with stopping(stop, solver.stop_search):
            status = solver.solve(self.copy)
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return None, float("inf"), False
        solution = list(solver.response_proto.solution)
        self.last = solution
        return [int(solution[i]) for _k, i in self.cells], solver.objective_value, status == cp_model.OPTIMAL


def improve_roster(m: CpsatModel, start: Solution, seconds: float, seed: int,
                   stop: Callable[[], bool] | None = None) -> Solution:
    """``start`` improved by agent-row and day-window LNS steps for at most ``seconds``, or until
    ``stop()`` turns true (the portfolio's other backend has proven its answer): the step under
    way is stopped, and the best roster so far is returned."""
    began = time.perf_counter()
    hoods = _Neighbourhoods(m)
    chosen = {(a.agent, a.day, a.period, a.value) for a in start.assignments}
    values = [int(key in chosen) for key, _i in hoods.cells]
    agents = sorted(hoods.by_agent)
    rng = random.Random(seed)
    size = min(3, len(agents))
    days = m.ctx.days
    step = 0
    best = float("inf")  # the model's objective of ``values`` (unknown for the start)
    found, objective, solved = hoods.solve(values, set(range(len(hoods.cells))), min(WHOLE_STEP_SECONDS, seconds),
                                           seed, stop)
    if found is not None:
        values, best, hoods.full = found, objective, hoods.last
    while not solved and (left := seconds - (time.perf_counter() - began)) > 0.2 and not (stop is not None
                                                                                         and stop()):
        step += 1
        if step % 4 == 0 and days > 7:  # every fourth step: all agents over a week-long window
            first = rng.randrange(days - 6)
            free = {k for d in range(first, first + 7) for k in hoods.by_day.get(d, ())}
        else:
            free = {k for a in rng.sample(agents, size) for k in hoods.by_agent[a]}
        found, objective, proven = hoods.solve(values, free, min(STEP_SECONDS, left), rng.randrange(1 << 30), stop)
        if found is not None and objective <= best:  # a step that did not complete the hint may be worse
            values, best, hoods.full = found, objective, hoods.last
        if step % 4:  # grow after a proven step, shrink after an open one; never beyond the agents there are
            size = min(max(2, len(agents) // 2), size + 1) if proven else max(2, size - 1)
            size = min(size, len(agents))
    keys = [key for key, _i in hoods.cells]
    improved = Solution(assignments=tuple(Assignment(*key) for key, v in zip(keys, values, strict=True) if v))
    before, after = evaluate(m.ctx, start), evaluate(m.ctx, improved)
    if after.feasible and after.objective is not None and (before.objective is None
                                                           or after.objective <= before.objective):
        return improved
    return start
