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

Assumptions keep CP-SAT's presolve from using the enforcement literals, which on some instances
(ITC-2007 comp01 with one course of more lectures than periods) leaves even the first solve
undecided. So the assumption solve gets a fifth of the budget; if it is undecided, the deletion
starts from every hard constraint. Deletion checks fix the literals instead (their domains set to
0 or 1), which presolve simplifies away.

Every solve here has CP-SAT's LP at ``linearization_level`` 2, which puts the exactly-one rows
into the LP (level 1, the default, leaves them out): an over-demanded roster whose capacity comes
from "one value per agent and day" and "at least 8 days off" (``tests/data/callcentre``) is
refuted by the LP at once at level 2 (0.1 s) and stays undecided at level 1 (no explanation in 10 s).
"""

from __future__ import annotations

import time

import msgspec
from ortools.sat.python import cp_model

from schedc.backends.base import Conflict, ConflictItem
from schedc.backends.cpsat.model import CpsatModel
from schedc.core.diagnostics import Span
from schedc.ir import Family, Instance
from schedc.kinds import Constraint, ObjectiveBound, SetupTimes, TimeWindow, kind_name
from schedc.kinds.measures import DUE_MEASURES, terms_of

#: Of the time budget: the share the assumption solve may take, and the share kept for the final check.
ASSUMPTION_SHARE = 0.2
CHECK_RESERVE = 0.15


class _Clock:
    """The time left of a budget, and a solver for each check within it."""

    def __init__(self, budget: float, seed: int):
        self.budget = budget
        self.deadline = time.perf_counter() + budget
        self.began = time.perf_counter()
        self.seed = seed
        self.solves = 0

    def left(self) -> float:
        return self.deadline - time.perf_counter()

    def solve(self, model: cp_model.CpModel, share: float = 1.0, keep: float = 0.0) -> tuple[int, cp_model.CpSolver]:
        """Solve within ``share`` of the time left, less ``keep`` seconds."""
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = max(0.01, self.left() * share - keep)
        solver.parameters.num_workers = 1  # cores from assumptions need a single worker
        solver.parameters.linearization_level = 2  # the exactly-one rows in the LP (module docstring)
        solver.parameters.random_seed = self.seed
        self.solves += 1
        return solver.solve(model), solver


def explain_infeasibility(instance: Instance, family: Family, budget: float = 10.0, seed: int = 0) -> Conflict | None:
    """A (deletion-minimised) set of hard constraints that cannot hold together, or None when the
    instance is feasible or its infeasibility is not established within ``budget`` seconds."""
    clock = _Clock(budget, seed)
    m = CpsatModel(instance, family, named=False, explain=True)
    core = _first_core(m, clock)
    if core is None:
        return None
    core, minimal = _minimise(m, core, clock)
    always_on = list(dict.fromkeys([*m.unconditional, *(cid for cid in measure_data(instance) if cid not in core)]))
    verified = _infeasible_alone(instance, family, [*core, *always_on], clock)
    by_id = {c.id: c for c in instance.constraints}
    items = tuple(ConflictItem(id=cid, kind=kind_name(by_id[cid]), span=_statement_span(by_id[cid])) for cid in core)
    return Conflict(constraints=items, minimal=minimal, verified=verified, always_on=tuple(always_on),
                    solves=clock.solves, seconds=round(time.perf_counter() - clock.began, 3))


def measure_data(instance: Instance) -> list[str]:
    """The hard rules whose data a bound on a measure reads whether they are switched on or not: the
    setup rows of a ``setup_time`` bound, the time windows (due dates, weights) of a bound on a due date,
    completion or flow time measure. The explain model cannot switch that data off, so they are named as
    assumed throughout and kept on in the confirming solve."""
    measures = {t.measure for c in instance.constraints if isinstance(c, ObjectiveBound) and c.active and c.hard
                for t in terms_of(c.measure, instance.objective.terms)}
    out = []
    for c in instance.constraints:
        if not (c.active and c.hard):
            continue
        if isinstance(c, SetupTimes) and "setup_time" in measures:
            out.append(c.id)
        elif isinstance(c, TimeWindow) and measures & (DUE_MEASURES | {"completion", "flow_time"}) and any(
                w.due is not None or w.weight is not None for w in c.windows):
            out.append(c.id)
    return out


def _first_core(m: CpsatModel, clock: _Clock) -> list[str] | None:
    """Constraints that suffice for infeasibility: from assumptions, else all of them (None: feasible
    or undecided)."""
    index = {literal.Index(): cid for cid, literal in m.enforce.items()}
    m.model.add_assumptions(list(m.enforce.values()))
    status, solver = clock.solve(m.model, share=ASSUMPTION_SHARE)
    m.model.clear_assumptions()
    if status == cp_model.INFEASIBLE:
        return [index[i] for i in solver.sufficient_assumptions_for_infeasibility() if i in index]
    if status in (cp_model.FEASIBLE, cp_model.OPTIMAL):
        return None
    everything = list(m.enforce)
    return everything if _holds(m, everything, clock) is False else None


def _holds(m: CpsatModel, on: list[str], clock: _Clock) -> bool | None:
    """Whether the explain-mode model with exactly the constraints ``on`` switched on has a solution
    (None: undecided in time). The literals are fixed through their domains, for presolve."""
    chosen = set(on)
    for cid, literal in m.enforce.items():
        domain = m.model.proto.variables[literal.Index()].domain
        domain[0] = domain[1] = int(cid in chosen)
    status, _solver = clock.solve(m.model, keep=CHECK_RESERVE * clock.budget)
    if status == cp_model.INFEASIBLE:
        return False
    return True if status in (cp_model.FEASIBLE, cp_model.OPTIMAL) else None


def _minimise(m: CpsatModel, core: list[str], clock: _Clock) -> tuple[list[str], bool]:
    """Deletion filter over ``core``: (the constraints kept, whether each was shown necessary)."""
    kept = list(core)
    for cid in core:
        if clock.left() <= CHECK_RESERVE * clock.budget:
            return kept, False
        trial = [x for x in kept if x != cid]
        verdict = _holds(m, trial, clock)
        if verdict is False:
            kept = trial
        elif verdict is None:
            return kept, False  # undecided in time: keep it, and the rest is not shown necessary
    return kept, True


def _infeasible_alone(instance: Instance, family: Family, core: list[str], clock: _Clock) -> bool:
    """Whether the ordinary model with only the ``core`` hard constraints (soft ones kept) is infeasible
    (``core`` names, besides the conflict, what the explain model could not switch off)."""
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
        if conflict.always_on:  # the horizon, say: every activity must end by it, and none can
            return ("infeasible with every hard constraint switched off: the data (durations, modes, capacities) "
                    "and what cannot be switched off (" + ", ".join(conflict.always_on) + ") admit no schedule")
        return "infeasible without any constraint: the data alone (durations, modes, capacities) admit no schedule"
    if len(conflict.constraints) == 1:
        what = "this hard constraint cannot hold"
        proof = "minimal: without it the rest can hold" if conflict.minimal else \
            "not shown minimal within the time budget"
    else:
        what = f"these {len(conflict.constraints)} hard constraints cannot hold together"
        proof = "minimal: without any one of them the rest can hold" if conflict.minimal else \
            "not shown minimal within the time budget"
    lines = [f"{what} ({proof}):"]
    for item in conflict.constraints:
        where = f"{file}:{item.span.line}:{item.span.column}" if item.span else file
        lines.append(f"  {where}: {item.kind} {item.id}")
    if conflict.always_on:
        lines.append("  (assumed throughout, not switched off: " + ", ".join(conflict.always_on) + ")")
    if not conflict.verified:
        lines.append("  (not confirmed with the ordinary model within the time budget)")
    return "\n".join(lines)


def _statement_span(constraint: Constraint) -> Span | None:
    """Where the constraint's statement is, without the line table of its rows."""
    return constraint.span.head() if constraint.span is not None else None
