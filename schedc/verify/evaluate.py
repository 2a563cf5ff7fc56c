"""Judging a schedule: every active constraint's own ``check``, then the objective.

``evaluate`` is the one evaluator shared by the verifier and the solver backends (every
solver solution is re-evaluated here): hard constraints give violations, soft ones give
penalty units that, times their weights, sum to the objective of penalty families; interval
families minimise the makespan of the scheduled activities.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from schedc.core.solution import Solution
from schedc.ir import Family, Instance
from schedc.kinds.context import EvalContext, View, Violation
from schedc.kinds.measures import objective_value
from schedc.kinds.timing import HORIZON, horizon_violations


class Evaluation(msgspec.Struct, frozen=True, kw_only=True):
    """The verdict of the constraints on a schedule.

    ``violations``: hard violations; ``penalties``: soft violation units; ``components``:
    weighted penalty per soft constraint id and, for objectives other than a lone makespan or
    penalty, the value of each objective term keyed ``objective:<measure>``; ``hard_amounts``: violation amount per hard
    constraint id; ``objective``: the makespan (None if some activity is unscheduled) or the
    weighted penalty sum.
    """

    violations: tuple[Violation, ...]
    penalties: tuple[Violation, ...]
    components: dict[str, int]
    hard_amounts: dict[str, int]
    objective: int | None

    @property
    def feasible(self) -> bool:
        return not self.violations


class Tally(msgspec.Struct, frozen=True, kw_only=True):
    """What :func:`evaluate` finds, without the violation records (``bench eval`` needs only counts).

    ``sizes``: (kind, amount) → number of hard violations; ``components``, ``hard_amounts`` and
    ``objective`` as in :class:`Evaluation` — equal to them on every schedule.
    """

    sizes: dict[tuple[str, int], int]
    components: dict[str, int]
    hard_amounts: dict[str, int]
    objective: int | None

    @property
    def violations(self) -> int:
        """The number of hard violations (``len(Evaluation.violations)``)."""
        return sum(self.sizes.values())


def make_context(instance: Instance, family: Family | None = None,
                 names: Mapping[str, str] | None = None) -> EvalContext:
    """The evaluation context of an instance (build once, reuse for many answers)."""
    if family is None:
        from schedc.lang.family import load_family

        family = load_family(instance.family)
    return EvalContext(instance, family, names)


def evaluate(ctx: EvalContext, solution: Solution) -> Evaluation:
    """Check every active constraint of ``ctx.instance`` on ``solution`` (and, in an interval family with a
    ``horizon``, every end against it: :func:`~schedc.kinds.timing.horizon_violations`) and compute the
    objective."""
    view = View(ctx, solution)
    hard: list[Violation] = []
    soft: list[Violation] = []
    components: dict[str, int] = {}
    hard_amounts: dict[str, int] = {}
    for constraint in ctx.instance.constraints:
        if not constraint.active:
            continue
        found = constraint.check(ctx, view)
        if constraint.hard:
            hard.extend(found)
            hard_amounts[constraint.id] = sum(v.amount for v in found)
        else:
            soft.extend(found)
            components[constraint.id] = constraint.weight * sum(v.amount for v in found)
    if ctx.instance.horizon is not None and ctx.activities:  # the horizon binds like a hard rule
        late = horizon_violations(ctx, view)
        hard.extend(late)
        hard_amounts[HORIZON] = sum(v.amount for v in late)
    objective, terms = objective_value(ctx, view, components)
    return Evaluation(violations=tuple(hard), penalties=tuple(soft), components={**components, **terms},
                      hard_amounts=hard_amounts, objective=objective)


def tally(ctx: EvalContext, solution: Solution) -> Tally:
    """:func:`evaluate` by each constraint's :meth:`~schedc.kinds.base.Constraint.count`."""
    view = View(ctx, solution)
    sizes: dict[tuple[str, int], int] = {}
    components: dict[str, int] = {}
    hard_amounts: dict[str, int] = {}
    for constraint in ctx.instance.constraints:
        if not constraint.active:
            continue
        counts = constraint.count(ctx, view)
        total = sum(amount * number for amount, number in counts.items())
        if constraint.hard:
            kind = type(constraint).__struct_config__.tag
            for amount, number in counts.items():
                sizes[(kind, amount)] = sizes.get((kind, amount), 0) + number  # type: ignore[index]
            hard_amounts[constraint.id] = total
        else:
            components[constraint.id] = constraint.weight * total
    if ctx.instance.horizon is not None and ctx.activities:
        late = horizon_violations(ctx, view)
        for v in late:
            sizes[(HORIZON, v.amount)] = sizes.get((HORIZON, v.amount), 0) + 1
        hard_amounts[HORIZON] = sum(v.amount for v in late)
    objective, terms = objective_value(ctx, view, components)
    return Tally(sizes=sizes, components={**components, **terms}, hard_amounts=hard_amounts, objective=objective)
