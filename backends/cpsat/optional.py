"""CP-SAT encoder of ``optional`` (formal meaning in :mod:`schedc.kinds.optional`).

The presence literals ``p_a`` are made with the activity variables (:meth:`CpsatModel._optional_variables`):
an optional activity's mode literals sum to ``p_a`` and its intervals are optional, so a left-out
activity takes no room on any resource. The selection rules are rows over the ``p_a``.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from schedc.backends.cpsat.model import CpsatModel, encoder
from schedc.kinds.optional import OptionalActivities


@encoder(OptionalActivities)
def optional(m: CpsatModel, c: OptionalActivities) -> None:
    """``all_or_none``: ``p_{a_1} = … = p_{a_n}``; ``at_least_one``: ``Σ p ≥ 1``; ``exactly_one``: ``Σ p = 1``.
    Soft: the evaluator's amount (``min(k, n − k)``, ``[k = 0]``, ``|k − 1|``) as an exact variable."""
    for s in c.selections:
        literals = [m.performed[a] for a in s.members]
        count = cp_model.LinearExpr.sum(literals)
        n = len(literals)
        if s.rule == "optional":
            continue
        if c.hard:
            if s.rule == "all_or_none":
                for literal in literals[1:]:
                    m.model.add(literal == literals[0])
            else:
                m.model.add(count >= 1) if s.rule == "at_least_one" else m.model.add(count == 1)
            continue
        amount = m.model.new_int_var(0, n, f"select_{c.id}")
        if s.rule == "all_or_none":
            m.model.add_min_equality(amount, [count, n - count])
        elif s.rule == "at_least_one":
            m.model.add_max_equality(amount, [0, 1 - count])
        else:
            m.model.add_abs_equality(amount, count - 1)
        m.penalize(c, amount)
