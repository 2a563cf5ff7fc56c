"""Pyomo encoder of ``optional`` (formal meaning in :mod:`schedc.kinds.optional`).

The presence binaries ``p_a`` are made with the activity variables
(:meth:`PyomoModel._optional_variables`); the resource rows already gate every mode by its
presence, so a left-out activity takes no room. The selection rules are rows over the ``p_a``.
"""

from __future__ import annotations

from schedc.backends.pyomo.linear import quicksum
from schedc.backends.pyomo.model import PyomoModel, encoder
from schedc.kinds.optional import OptionalActivities


@encoder(OptionalActivities)
def optional(m: PyomoModel, c: OptionalActivities) -> None:
    """``all_or_none``: equal presences; ``at_least_one``: ``Σ p ≥ 1``; ``exactly_one``: ``Σ p = 1``.
    Soft: an amount ``v ≥`` the evaluator's (``min(k, n − k)`` through a binary choosing the side,
    ``1 − k``, ``±(k − 1)``), tight under minimisation."""
    for s in c.selections:
        if s.rule == "optional":
            continue
        literals = [m.performed[a] for a in s.members]
        count = quicksum(literals)
        n = len(literals)
        if c.hard:
            if s.rule == "all_or_none":
                for literal in literals[1:]:
                    m.add(c.id, literal == literals[0])
            else:
                m.add(c.id, count >= 1 if s.rule == "at_least_one" else count == 1)
            continue
        amount = m.new_var("select", 0, n)
        if s.rule == "all_or_none":
            side = m.new_var("side", 0, 1, binary=True)  # 1: count the performed ones, 0: the others
            m.add(c.id, amount >= count - n * (1 - side))
            m.add(c.id, amount >= n - count - n * side)
        elif s.rule == "at_least_one":
            m.add(c.id, amount >= 1 - count)
        else:
            m.add(c.id, amount >= count - 1)
            m.add(c.id, amount >= 1 - count)
        m.penalize(c, amount)
