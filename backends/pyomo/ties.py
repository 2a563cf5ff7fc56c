"""Pyomo encoder of ``resource_ties`` (formal meaning in :mod:`schedc.kinds.resource_ties`).

``x_{a,r} = Σ_k [mode k of a uses r] · y_{a,k}`` (0/1); ``same``: ``x_{a,r} = x_{b,r}`` for every unary
r, ``different``: ``x_{a,r} + x_{b,r} ≤ 1``, each relaxed by the number of the two left out (optional).
"""

from __future__ import annotations

from typing import Any

from schedc.backends.base import unsupported
from schedc.backends.pyomo.model import PyomoModel, encoder
from schedc.kinds.resource_ties import ResourceTies


def uses_expr(m: PyomoModel, name: str, resource: str) -> Any:
    modes = m.ctx.activities[name].modes
    return sum(m.present[(name, k)] for k, mode in enumerate(modes, start=1)
               if any(u.resource == resource and u.amount for u in mode.uses))


@encoder(ResourceTies)
def resource_ties(m: PyomoModel, c: ResourceTies) -> None:
    if not c.hard:
        raise unsupported("pyomo", c, form="soft")
    unary = [r.name for r in m.instance.resources if r.kind == "unary"]
    for t in c.ties:
        off = m.left_out(t.first, t.second)
        for r in unary:
            a, b = uses_expr(m, t.first, r), uses_expr(m, t.second, r)
            if t.rule == "same":
                m.add(c.id, a - b <= off)
                m.add(c.id, b - a <= off)
            else:
                m.add(c.id, a + b <= 1 + off)
