"""A hard bound on the instance's own objective: ``objective_bound`` (written by ``schedc tighten``).

It turns "any feasible answer is scored by how good it is" into "only near-optimal answers are
feasible": the makespan, or the total weighted penalty of the soft rules, may not exceed a bound.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from schedc.kinds.base import Constraint, NonNegative

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation

Measure = Literal["makespan", "penalty", "completion", "flow_time", "tardy_jobs", "tardiness", "earliness",
                  "max_tardiness", "max_lateness", "setup_time", "sum"]


class ObjectiveBound(Constraint, frozen=True, kw_only=True, tag="objective_bound"):
    """The objective may not exceed a bound.

    Formal meaning: with ``measure=makespan``, ``max_a E_a ≤ max`` over the scheduled activities
    (every activity ends by the bound); with ``measure=penalty``, ``Σ_c w_c · p_c ≤ max`` over the
    other active soft constraints c (weight w_c, penalty p_c by c's own counting rule); with any other
    measure (``sum`` for a weighted sum), the instance's objective value (:mod:`schedc.kinds.measures`)
    ``≤ max``. The measure must be the instance's objective, and the constraint is hard: a soft
    bound on the objective would be part of the objective itself.

    Counting rule: at most one violation; its amount is the excess, ``objective − max``.

    Statement: ``hard objective_bound ID measure=makespan|penalty max=N`` (no table).
    """

    COUNTS = "the objective value against its bound"
    UNIT = "unit of the objective above the bound"

    measure: Measure = "makespan"
    max: NonNegative = 0

    def value(self, ctx: EvalContext, view: View) -> int:
        """The measured objective of a schedule: the latest end, or the weighted soft penalty."""
        if self.measure == "makespan":
            return max(view.end.values(), default=0)
        components: dict[str, int] = {}
        for other in ctx.instance.constraints:
            if other.active and not other.hard and other is not self:
                components[other.id] = other.weight * sum(v.amount for v in other.check(ctx, view))
        if self.measure == "penalty":
            return sum(components.values())
        from schedc.kinds.measures import objective_value  # measures imports the kinds

        return objective_value(ctx, view, components)[0] or 0

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        value = self.value(ctx, view)
        if value <= self.max:
            return []
        return [self.violation(f"the {self.measure} is {value}, above its bound {self.max}",
                               amount=value - self.max)]
