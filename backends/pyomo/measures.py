"""Pyomo expressions of the objective measures and their weighted sums (meanings in
:mod:`schedc.kinds.measures`).

Objective weights are non-negative, so every auxiliary needs only the side that minimisation
pushes against: ``T_j ≥ C_j − d_j``, ``T_j ≥ 0``; ``U_j`` binary with ``C_j − d_j ≤ M·U_j``; a
maximum ``Z ≥ x_j``. The completion ``C_j`` is the exception: earliness rewards a *late*
completion, so ``C_j`` is the exact maximum of the target's ends — ``C_j ≥ E_a`` for each
activity and ``C_j ≤ E_a + M·(1 − u_a)`` with ``Σ_a u_a = 1`` (one binary per activity of a
target with several; a single activity's end is its completion, with no variable at all). An optional
activity's row ``C_j ≥ E_a`` is relaxed by ``M·(1 − p_a)`` and ``u_a ≤ p_a``. A target whose
activities are all optional may have no completion at all, and the evaluator then leaves it out of
every term: ``h_j`` (the OR of its presences) replaces the 1 in ``Σ_a u_a = h_j``, ``C_j ≤ M·h_j``
makes ``C_j = 0``, and the terms that would not vanish at ``C_j = 0`` are gated by it — flow time
``w_j (C_j − r_j h_j)``, earliness ``E_j ≥ d_j h_j − C_j``, lateness ``Z ≥ C_j − d_j − M(1 − h_j)``
(and a maximum lateness of 0 when no target is performed at all).
"""

from __future__ import annotations

from typing import Any

from schedc.backends.pyomo.linear import quicksum
from schedc.backends.pyomo.model import PyomoModel, measure_objective
from schedc.backends.pyomo.sequencing import setup_time_expr
from schedc.kinds.measures import TargetData, targets, terms_of


@measure_objective
def objective_expr(m: PyomoModel) -> Any:
    """``Σ W_k · measure_k`` of the instance's objective (built once)."""
    if ("objective",) not in m.cache:
        objective = m.instance.objective
        terms = terms_of(objective.measure, objective.terms)
        exprs = {t.measure: measure_expr(m, t.measure) for t in terms}
        m.cache[("measures",)] = exprs  # each term's expression, for the components of fixed_verdict
        m.cache[("objective",)] = quicksum(t.weight * exprs[t.measure] for t in terms)
    return m.cache[("objective",)]


def measure_expr(m: PyomoModel, measure: str) -> Any:
    """The expression of one measure."""
    if measure == "makespan":
        return m.makespan_var()
    if measure == "penalty":
        return m.penalty()
    if measure == "setup_time":
        return setup_time_expr(m)
    all_targets = targets(m.instance)
    if measure == "completion":
        return quicksum(t.weight * completion(m, t) for t in all_targets)
    if measure == "flow_time":
        return quicksum(t.weight * (completion(m, t) - t.release * performed(m, t)) for t in all_targets)
    due = [t for t in all_targets if t.due is not None]
    if measure == "tardiness":
        return quicksum(t.weight * _tardiness(m, t) for t in due)
    if measure == "earliness":
        return quicksum(t.weight * _earliness(m, t) for t in due)
    if measure == "tardy_jobs":
        return quicksum(t.weight * _tardy(m, t) for t in due)
    if measure == "max_tardiness":
        return _max(m, [_tardiness(m, t) for t in due], 0)
    if measure == "max_lateness":
        return _max_lateness(m, due)
    raise ValueError(f"unknown measure {measure!r}")  # the parser admits only the measures above


def completion(m: PyomoModel, t: TargetData) -> Any:
    """``C_j = max E_a`` exactly, 0 when none of the target's activities is performed (built once per target)."""
    key = ("completion", t.name)
    if key not in m.cache:
        if len(t.activities) == 1 and t.activities[0] not in m.performed:
            m.cache[key] = m.end[t.activities[0]]
        else:  # an optional activity counts only when performed: its rows are relaxed by M·(1 − p_a)
            top = _top(m, t)
            var = m.new_var("completion", 0, top)
            last = {a: m.new_var("last", 0, 1, binary=True) for a in t.activities}
            m.add("completion", quicksum(last.values()) == performed(m, t))
            m.add("completion", var <= top * performed(m, t))
            for a, u in last.items():
                m.add("completion", var >= m.end[a] - top * m.left_out(a))
                m.add("completion", var <= m.end[a] + top * (1 - u))
                if a in m.performed:
                    m.add("completion", u <= m.performed[a])
            m.cache[key] = var
    return m.cache[key]


def performed(m: PyomoModel, t: TargetData) -> Any:
    """``h_j``: 1 when some activity of the target is performed (the constant 1 when one is required),
    else 0 — the OR of the presence binaries, exact."""
    if any(a not in m.performed for a in t.activities):
        return 1
    key = ("has", t.name)
    if key not in m.cache:
        m.cache[key] = m.any_of([m.performed[a] for a in t.activities], "has", "completion")
    return m.cache[key]


def _top(m: PyomoModel, t: TargetData) -> int:
    return max(m.latest_end(a) for a in t.activities)


def _tardiness(m: PyomoModel, t: TargetData) -> Any:
    var = m.new_var("tardiness", 0, max(0, _top(m, t) - (t.due or 0)))
    m.add("measures", var >= completion(m, t) - (t.due or 0))  # C_j = 0 when left out: no tardiness
    return var


def _earliness(m: PyomoModel, t: TargetData) -> Any:
    var = m.new_var("earliness", 0, max(0, t.due or 0))
    m.add("measures", var >= (t.due or 0) * performed(m, t) - completion(m, t))
    return var


def _tardy(m: PyomoModel, t: TargetData) -> Any:
    var = m.new_var("tardy", 0, 1, binary=True)
    m.add("measures", completion(m, t) - (t.due or 0) <= max(0, _top(m, t) - (t.due or 0)) * var)
    return var


def _max_lateness(m: PyomoModel, due: list[TargetData]) -> Any:
    """``Z ≥ C_j − d_j − M·(1 − h_j)`` for each target (0 when none is performed, as the evaluator counts it)."""
    if not due:
        return 0
    low = -m.horizon - max(t.due or 0 for t in due)  # C_j − d_j ≥ −d_j
    var = m.new_var("maximum", low, max(_top(m, t) for t in due))
    for t in due:
        m.add("measures", var >= completion(m, t) - (t.due or 0) + (low + (t.due or 0)) * (1 - performed(m, t)))
    if not any(isinstance(performed(m, t), int) for t in due):  # all may be left out: then the maximum is 0
        some = m.any_of([performed(m, t) for t in due], "has", "measures")
        result = m.new_var("max_lateness", low, max(_top(m, t) for t in due))
        m.add("measures", result >= var - (-low + max(_top(m, t) for t in due)) * (1 - some))
        m.add("measures", result >= low * some)
        return result
    return var


def _max(m: PyomoModel, exprs: list[Any], low: int) -> Any:
    """``Z ≥ x`` for each expression (0 when there is none, as the evaluator counts it)."""
    if not exprs:
        return 0
    var = m.new_var("maximum", low, m.horizon + max(m.latest_end(a) for a in m.end))
    for expr in exprs:
        m.add("measures", var >= expr)
    return var
