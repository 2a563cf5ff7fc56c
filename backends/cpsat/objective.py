"""CP-SAT encoder of ``objective_bound`` (formal meaning in :mod:`schedc.kinds.objective`)."""

from __future__ import annotations

from schedc.backends.cpsat.measures import objective_expr
from schedc.backends.cpsat.model import CpsatModel, encoder
from schedc.kinds import ObjectiveBound


@encoder(ObjectiveBound)
def objective_bound(m: CpsatModel, c: ObjectiveBound) -> None:
    """Makespan: ``E_a ≤ max`` for every performed activity. Penalty: ``Σ w·p ≤ max`` over the penalty terms,
    added once every soft rule has added its terms (penalty variables are bounded from below by
    the penalties they stand for, so the row bounds the true penalty too).

    In explain mode the bound is added after every hard rule, under this rule's enforcement literal; the
    rows that define the measure (and, for a penalty bound, the soft rules' penalty terms) stay on: they
    only define it.
    """
    if c.measure == "makespan":
        for name, end in m.end.items():
            row = m.model.add(end <= c.max)
            if name in m.performed:  # an optional activity left out ends nothing
                row.only_enforce_if(m.performed[name])
        return
    if m.explain:
        literal = m.enforce[c.id]
        if c.measure != "penalty":
            m.finishers.append(lambda: m.model.add(objective_expr(m) <= c.max).only_enforce_if(literal))
        else:
            m.finishers.append(lambda: m.terms and m.model.add(m.penalty() <= c.max).only_enforce_if(literal))
        return
    if c.measure != "penalty":  # a due-date, setup or weighted-sum objective: bound its expression
        m.finishers.append(lambda: m.model.add(objective_expr(m) <= c.max))
        return

    def finish() -> None:
        if m.terms:  # without soft rules the penalty is 0, within any (non-negative) bound
            m.model.add(m.penalty() <= c.max)

    m.finishers.append(finish)
