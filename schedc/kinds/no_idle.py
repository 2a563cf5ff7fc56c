"""``no_idle``: resources that work without idle time between their first and last operation.

Formal meaning: for every unary resource r in scope and every pair (a, b) consecutive in its
sequence (the performed activities using r with a positive duration, by start; see
:mod:`schedc.kinds.setup_times`), ``S_b ≤ E_a + s_r(a, b)``, where ``s_r(a, b)`` is the setup time
of the pair (0 without one). With a hard ``unary_no_overlap`` and the setups, this is
``S_b = E_a + s_r(a, b)``: from its first start to its last end the resource never waits.

Counting rule: one violation per consecutive pair with idle time; its amount is the idle time
``S_b − E_a − s_r(a, b)``.

Statement: ``hard no_idle ID resources=all|[M1 M2]`` (no table). Every resource in scope must also
be kept by a hard ``unary_no_overlap`` (the backends sequence it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schedc.kinds.base import Constraint
from schedc.kinds.resources import ResourceScope, _in_scope
from schedc.kinds.setup_times import consecutive_pairs, setup_matrices

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation


class NoIdle(Constraint, frozen=True, kw_only=True, tag="no_idle"):
    """No idle time between consecutive operations of a unary resource."""

    COUNTS = "idle time between consecutive activities on a resource"
    UNIT = "time unit of idle time"

    resources: ResourceScope = "all"

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        setups = setup_matrices(ctx.instance)
        out = []
        for resource in _in_scope(self.resources, ctx, "unary"):
            times = setups.get(resource, {})
            for a, b in consecutive_pairs(view, resource):
                idle = view.start[b] - view.end[a] - times.get((a, b), 0)
                if idle > 0:
                    sa, sb, sr = ctx.show(a), ctx.show(b), ctx.show(resource)
                    out.append(self.violation(f"{sr} is idle for {idle} between {sa} (ends {view.end[a]}) and "
                                              f"{sb} (starts {view.start[b]})", amount=idle, entities=(sa, sb, sr),
                                              time=view.end[a]))
        return out
