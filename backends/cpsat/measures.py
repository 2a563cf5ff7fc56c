"""CP-SAT expressions of the objective measures and their weighted sums (meanings in
:mod:`schedc.kinds.measures`).

Every auxiliary is defined *exactly* (``add_max_equality``, a reified comparison), not only
bounded from one side, so that a model with fixed decisions gives the evaluator's value of every
term (the oracle tests compare them).
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from schedc.backends.cpsat.model import CpsatModel, measure_objective
from schedc.backends.cpsat.sequencing import setup_time_expr
from schedc.kinds.measures import TargetData, targets, terms_of


@measure_objective
def objective_expr(m: CpsatModel) -> cp_model.LinearExprT:
    """``Σ W_k · measure_k`` of the instance's objective (built once; ``m.measure_exprs`` keeps each term)."""
    cached = m.__dict__.get("objective_cache")
    if cached is not None:
        return cached
    objective = m.instance.objective
    exprs: dict[str, cp_model.LinearExprT] = {}
    for term in terms_of(objective.measure, objective.terms):
        exprs[term.measure] = measure_expr(m, term.measure)
    m.measure_exprs = exprs  # type: ignore[attr-defined]
    total = cp_model.LinearExpr.sum([t.weight * exprs[t.measure] for t in terms_of(objective.measure,
                                                                                   objective.terms)])
    m.__dict__["objective_cache"] = total
    return total


def measure_expr(m: CpsatModel, measure: str) -> cp_model.LinearExprT:
    """The expression of one measure."""
    if measure == "makespan":
        return m.makespan_var()
    if measure == "penalty":
        return cp_model.LinearExpr.sum([w * expr for w, expr in m.terms]) if m.terms else 0
    if measure == "setup_time":
        return setup_time_expr(m)
    all_targets = targets(m.instance)
    if measure == "completion":
        return cp_model.LinearExpr.sum([t.weight * completion(m, t) for t in all_targets])
    if measure == "flow_time":
        return cp_model.LinearExpr.sum([t.weight * _gated(m, t, completion(m, t) - t.release, 0)
                                        for t in all_targets])
    due = [t for t in all_targets if t.due is not None]
    if measure == "tardiness":
        return cp_model.LinearExpr.sum([t.weight * _tardiness(m, t) for t in due])
    if measure == "earliness":
        return cp_model.LinearExpr.sum([t.weight * _gated(m, t, _earliness(m, t), 0) for t in due])
    if measure == "tardy_jobs":
        return cp_model.LinearExpr.sum([t.weight * _tardy(m, t) for t in due])
    if measure == "max_tardiness":
        return _max(m, [_tardiness(m, t) for t in due], 0, "max_tardiness")
    if measure == "max_lateness":
        low = -m.horizon - max((t.due or 0 for t in due), default=0)
        value = _max(m, [_gated(m, t, completion(m, t) - (t.due or 0), low) for t in due], low, "max_lateness")
        return _zero_unless_performed(m, due, value)
    raise ValueError(f"unknown measure {measure!r}")  # the parser admits only the measures above


def completion(m: CpsatModel, t: TargetData) -> cp_model.IntVar:
    """``C_j = max E_a`` over the target's activities (built once per target)."""
    cache: dict[str, cp_model.IntVar] = m.__dict__.setdefault("completions", {})
    if t.name not in cache:
        var = m.model.new_int_var(0, m.horizon, f"C_{t.name}")
        m.model.add_max_equality(var, [_end_if_performed(m, a) for a in t.activities])
        cache[t.name] = var
    return cache[t.name]


def _end_if_performed(m: CpsatModel, name: str) -> cp_model.LinearExprT:
    """``E_a``, or 0 for an optional activity left out (it does not complete its target)."""
    if name not in m.performed:
        return m.end[name]
    var = m.model.new_int_var(0, m.horizon, f"Ep_{name}")
    m.model.add(var == m.end[name]).only_enforce_if(m.performed[name])
    m.model.add(var == 0).only_enforce_if(m.performed[name].Not())
    return var


def _gated(m: CpsatModel, t: TargetData, expr: cp_model.LinearExprT, low: int) -> cp_model.LinearExprT:
    """``expr`` of a target, or ``low`` when none of its activities is performed (then the evaluator
    leaves the target out: ``low`` is the value that adds nothing)."""
    has = _has(m, t)
    if has is None:
        return expr  # a required activity: the target always completes
    var = m.model.new_int_var(min(low, -m.horizon), m.horizon + abs(low), f"g_{t.name}")
    m.model.add(var == expr).only_enforce_if(has)
    m.model.add(var == low).only_enforce_if(has.Not())
    return var


def _has(m: CpsatModel, t: TargetData) -> cp_model.IntVar | None:
    """A Boolean equal to "some activity of the target is performed"; None when one is required."""
    literals = [m.performed.get(a) for a in t.activities]
    if any(lit is None for lit in literals):
        return None
    cache: dict[str, cp_model.IntVar] = m.__dict__.setdefault("has", {})
    if t.name not in cache:
        has = cache[t.name] = m.model.new_bool_var(f"has_{t.name}")
        m.model.add_max_equality(has, literals)
    return cache[t.name]


def _zero_unless_performed(m: CpsatModel, due: list[TargetData], value: cp_model.LinearExprT) -> cp_model.LinearExprT:
    """``value``, or 0 when no target is performed at all (the evaluator's maximum of nothing)."""
    literals = [_has(m, t) for t in due]
    if not literals or any(lit is None for lit in literals):
        return value
    some = m.model.new_bool_var("some_target")
    m.model.add_max_equality(some, literals)
    var = m.model.new_int_var(-m.horizon - max(t.due or 0 for t in due), m.horizon, "max_lateness_or_0")
    m.model.add(var == value).only_enforce_if(some)
    m.model.add(var == 0).only_enforce_if(some.Not())
    return var


def _tardiness(m: CpsatModel, t: TargetData) -> cp_model.IntVar:
    var = m.model.new_int_var(0, max(0, m.horizon - (t.due or 0)), f"T_{t.name}")
    m.model.add_max_equality(var, [0, completion(m, t) - (t.due or 0)])
    return var


def _earliness(m: CpsatModel, t: TargetData) -> cp_model.IntVar:
    var = m.model.new_int_var(0, max(0, t.due or 0), f"Ea_{t.name}")
    m.model.add_max_equality(var, [0, (t.due or 0) - completion(m, t)])
    return var


def _tardy(m: CpsatModel, t: TargetData) -> cp_model.IntVar:
    """``U_j ⇔ C_j > d_j``."""
    var = m.model.new_bool_var(f"U_{t.name}")
    m.model.add(completion(m, t) > (t.due or 0)).only_enforce_if(var)
    m.model.add(completion(m, t) <= (t.due or 0)).only_enforce_if(var.Not())
    return var


def _max(m: CpsatModel, exprs: list[cp_model.LinearExprT], low: int, name: str) -> cp_model.LinearExprT:
    """``max(exprs)`` (0 when there is none, as the evaluator counts it)."""
    if not exprs:
        return 0
    var = m.model.new_int_var(low, m.horizon, name)
    m.model.add_max_equality(var, exprs)
    return var
