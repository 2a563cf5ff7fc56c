"""Pyomo encoder of ``objective_bound`` (formal meaning in :mod:`schedc.kinds.objective`)."""

from __future__ import annotations

from schedc.backends.pyomo.measures import objective_expr
from schedc.backends.pyomo.model import PyomoModel, encoder
from schedc.kinds import ObjectiveBound


@encoder(ObjectiveBound)
def objective_bound(m: PyomoModel, c: ObjectiveBound) -> None:
    """Makespan: ``E_a ≤ max`` for every performed activity (an optional one left out is relaxed by its
    latest end, as in the makespan's own rows: it ends nothing). Penalty: ``Σ w·p ≤ max`` over the penalty
    terms, added once every soft rule has added its terms (penalty variables are bounded from below by the
    penalties they stand for, so the row bounds the true penalty too)."""
    if c.measure == "makespan":
        for name, end in m.end.items():
            m.require(c, end <= c.max + m.latest_end(name) * m.left_out(name))
        return
    if c.measure != "penalty":  # a due-date, setup or weighted-sum objective: bound its expression
        m.finishers.append(lambda: m.require(c, objective_expr(m) <= c.max))
        return
    m.finishers.append(lambda: m.require(c, m.penalty() <= c.max))
