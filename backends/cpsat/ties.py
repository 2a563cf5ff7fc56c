"""CP-SAT encoder of ``resource_ties`` (formal meaning in :mod:`schedc.kinds.resource_ties`).

``x_{a,r} = Σ_k [mode k of a uses r] · y_{a,k}`` is 1 exactly when a's chosen mode uses r; ``same``
is ``x_{a,r} = x_{b,r}`` for every unary r, ``different`` is ``x_{a,r} + x_{b,r} ≤ 1``, both only
when the two activities are performed.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from schedc.backends.base import unsupported
from schedc.backends.cpsat.model import CpsatModel, encoder
from schedc.kinds.resource_ties import ResourceTies


def uses_expr(m: CpsatModel, name: str, resource: str) -> cp_model.LinearExprT:
    """1 exactly when the chosen mode of ``name`` uses ``resource``."""
    modes = m.ctx.activities[name].modes
    return sum(m.present[(name, k)] for k, mode in enumerate(modes, start=1)
               if any(u.resource == resource and u.amount for u in mode.uses))


@encoder(ResourceTies)
def resource_ties(m: CpsatModel, c: ResourceTies) -> None:
    if not c.hard:
        raise unsupported("cpsat", c, form="soft")
    unary = [r.name for r in m.instance.resources if r.kind == "unary"]
    for t in c.ties:
        performed = m.when_performed(t.first, t.second)
        for r in unary:
            a, b = uses_expr(m, t.first, r), uses_expr(m, t.second, r)
            if isinstance(a, int) and isinstance(b, int):
                if (a != b) if t.rule == "same" else (a + b > 1):
                    m.model.add_bool_or(performed and [lit.Not() for lit in performed])  # only when left out
                continue
            relation = (a == b) if t.rule == "same" else (a + b <= 1)
            m.model.add(relation).only_enforce_if(performed)
