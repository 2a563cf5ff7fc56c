"""Pyomo expressions of the objective measures and their weighted sums (meanings in
:mod:`schedc.kinds.measures`).

Objective weights are non-negative, so every auxiliary needs only the side that minimisation
pushes against: ``T_j ≥ C_j − d_j``, ``T_j ≥ 0``; ``U_j`` binary with ``C_j − d_j ≤ M·U_j``; a
maximum ``Z ≥ x_j``. The completion ``C_j`` is the exception: earliness rewards a *late*
completion, so ``C_j`` is the exact maximum of the target's ends — ``C_j ≥ E_a`` for each
activity and ``C_j ≤ E_a + M·(1 − u_a)`` with ``Σ_a u_a = 1`` (one binary per activity of a
target with several; a single activity's end is its completion, with no variable at all). An optional
activity's row ``C_j ≥ E_a`` is relaxed by ``M·(1 − p_a)`` and ``u_a ≤ p_a``; a target whose
activities are all optional (it may have no completion at all) is refused with E501.
"""

from __future__ import annotations

from typing import Any

import pyomo.environ as pyo

from schedc.backends.pyomo.model import PyomoModel
from schedc.diagnostics import SchedcError
from schedc.kinds.measures import TargetData, targets, terms_of


def objective_expr(m: PyomoModel) -> Any:
    """``Σ W_k · measure_k`` of the instance's objective (built once)."""
    if ("objective",) not in m.cache:
        objective = m.instance.objective
        terms = terms_of(objective.measure, objective.terms)
        exprs = {t.measure: measure_expr(m, t.measure) for t in terms}
        m.cache[("measures",)] = exprs  # each term's expression, for the components of fixed_verdict
        m.cache[("objective",)] = pyo.quicksum(t.weight * exprs[t.measure] for t in terms)
    return m.cache[("objective",)]


def measure_expr(m: PyomoModel, measure: str) -> Any:
    """The expression of one measure."""
    if measure == "makespan":
        return m.makespan_var()
    if measure == "penalty":
        return m.penalty()
    if measure == "setup_time":
        from schedc.backends.pyomo.sequencing import setup_time_expr

        return setup_time_expr(m)
    all_targets = targets(m.instance)
    if measure == "completion":
        return pyo.quicksum(t.weight * completion(m, t) for t in all_targets)
    if measure == "flow_time":
        return pyo.quicksum(t.weight * (completion(m, t) - t.release) for t in all_targets)
    due = [t for t in all_targets if t.due is not None]
    if measure == "tardiness":
        return pyo.quicksum(t.weight * _tardiness(m, t) for t in due)
    if measure == "earliness":
        return pyo.quicksum(t.weight * _earliness(m, t) for t in due)
    if measure == "tardy_jobs":
        return pyo.quicksum(t.weight * _tardy(m, t) for t in due)
    if measure == "max_tardiness":
        return _max(m, [_tardiness(m, t) for t in due], 0)
    if measure == "max_lateness":
        return _max(m, [completion(m, t) - (t.due or 0) for t in due], -m.horizon)
    raise ValueError(f"unknown measure {measure!r}")  # the parser admits only the measures above


def _latest_end(m: PyomoModel, name: str) -> int:
    return m.lst[name] + max(mode.duration for mode in m.ctx.activities[name].modes)


def completion(m: PyomoModel, t: TargetData) -> Any:
    """``C_j = max E_a`` exactly (built once per target)."""
    key = ("completion", t.name)
    if all(a in m.performed for a in t.activities):
        raise SchedcError.at("E501", f"the pyomo backend does not encode objective terms of a target whose "
                             f"activities are all optional ({t.name})", hint="use --backend cpsat")
    if key not in m.cache:
        if len(t.activities) == 1:
            m.cache[key] = m.end[t.activities[0]]
        else:  # an optional activity counts only when performed: its rows are relaxed by M·(1 − p_a)
            top = max(_latest_end(m, a) for a in t.activities)
            var = m.new_var("completion", 0, top)
            last = {a: m.new_var("last", 0, 1, binary=True) for a in t.activities}
            m.add("completion", pyo.quicksum(last.values()) == 1)
            for a, u in last.items():
                m.add("completion", var >= m.end[a] - top * m.left_out(a))
                m.add("completion", var <= m.end[a] + top * (1 - u))
                if a in m.performed:
                    m.add("completion", u <= m.performed[a])
            m.cache[key] = var
    return m.cache[key]


def _top(m: PyomoModel, t: TargetData) -> int:
    return max(_latest_end(m, a) for a in t.activities)


def _tardiness(m: PyomoModel, t: TargetData) -> Any:
    var = m.new_var("tardiness", 0, max(0, _top(m, t) - (t.due or 0)))
    m.add("measures", var >= completion(m, t) - (t.due or 0))
    return var


def _earliness(m: PyomoModel, t: TargetData) -> Any:
    var = m.new_var("earliness", 0, max(0, t.due or 0))
    m.add("measures", var >= (t.due or 0) - completion(m, t))
    return var


def _tardy(m: PyomoModel, t: TargetData) -> Any:
    var = m.new_var("tardy", 0, 1, binary=True)
    m.add("measures", completion(m, t) - (t.due or 0) <= max(0, _top(m, t) - (t.due or 0)) * var)
    return var


def _max(m: PyomoModel, exprs: list[Any], low: int) -> Any:
    """``Z ≥ x`` for each expression (0 when there is none, as the evaluator counts it)."""
    if not exprs:
        return 0
    var = m.new_var("maximum", low, m.horizon + max(_latest_end(m, a) for a in m.end))
    for expr in exprs:
        m.add("measures", var >= expr)
    return var
