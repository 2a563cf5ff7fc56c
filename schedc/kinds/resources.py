"""Resource kinds of interval families: ``unary_no_overlap``, ``cumulative_renewable``,
``nonrenewable_budget``.

Each applies to the resources it names (``resources=[M1 M2]``) or to every resource of its
type (``resources=all``, the default). The intervals involved are those of the activities
whose *chosen* mode uses the resource.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from typing import TYPE_CHECKING, Literal

from schedc.kinds.base import Constraint, Violation

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View

ResourceScope = Literal["all"] | tuple[str, ...]


def _in_scope(scope: ResourceScope, ctx: EvalContext, kind: str) -> list[str]:
    if scope == "all":
        return [r.name for r in ctx.instance.resources if r.kind == kind]
    return list(scope)


def _intervals_by_resource(view: View) -> dict[str, list[tuple[int, int, str, int]]]:
    """(start, end, activity, amount) of every scheduled activity, per resource its mode uses."""
    out: dict[str, list[tuple[int, int, str, int]]] = defaultdict(list)
    for name, start in view.start.items():
        for use in view.uses(name):
            out[use.resource].append((start, view.end[name], name, use.amount))
    return out


class UnaryNoOverlap(Constraint, frozen=True, kw_only=True, tag="unary_no_overlap"):
    """Unary resources: present intervals on the resource are pairwise disjoint.

    Formal meaning: for every resource r and activities a ≠ b whose chosen modes use r,
    ``E_a ≤ S_b ∨ E_b ≤ S_a``. Touching intervals (``E_a = S_b``) are allowed and
    zero-length intervals never conflict.

    Counting rule: one violation per overlapping pair on a resource (amount 1 each).
    """

    COUNTS = "activities in progress on a unary resource"
    UNIT = "overlapping pair"

    resources: ResourceScope = "all"

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        by_resource = _intervals_by_resource(view)
        out: list[Violation] = []
        tag = type(self).__struct_config__.tag
        for resource in _in_scope(self.resources, ctx, "unary"):
            items = sorted(i for i in by_resource.get(resource, ()) if i[1] > i[0])
            machine = ctx.show(resource)
            # (end, "name [start, end)", name shown) of the intervals still running: an answer with every
            # activity at 0 has a quadratic number of pairs, so each pair only formats its message
            active: list[tuple[int, str, str]] = []
            for start, end, name, _ in items:
                active = [a for a in active if a[0] > start]
                shown = ctx.show(name)
                here = f"{shown} [{start}, {end})"
                out += [Violation(constraint=self.id, kind=tag, hard=self.hard, time=start,  # type: ignore[arg-type]
                                  entities=(other, shown, machine), message=f"{there} and {here} overlap on {machine}")
                        for _, there, other in active]
                active.append((end, here, shown))
        return out


    def count(self, ctx: EvalContext, view: View) -> dict[int, int]:
        """The number of overlapping pairs by a sweep over start times with a heap of running ends."""
        by_resource = _intervals_by_resource(view)
        pairs = 0
        for resource in _in_scope(self.resources, ctx, "unary"):
            running: list[int] = []
            for start, end, _, _ in sorted(i for i in by_resource.get(resource, ()) if i[1] > i[0]):
                while running and running[0] <= start:
                    heapq.heappop(running)
                pairs += len(running)
                heapq.heappush(running, end)
        return {1: pairs} if pairs else {}


class CumulativeRenewable(Constraint, frozen=True, kw_only=True, tag="cumulative_renewable"):
    """Renewable resources: the running demand never exceeds the capacity.

    Formal meaning: for every renewable resource r with capacity C_r and every integer
    time t, ``Σ_{a : S_a ≤ t < E_a} q_{a,r}(mode_a) ≤ C_r``.

    Counting rule: one violation per resource and maximal time segment where the load
    exceeds the capacity; its amount is the excess summed over the time units of the
    segment.
    """

    COUNTS = "demand of the activities in progress, per time unit"
    UNIT = "unit of excess per time unit"

    resources: ResourceScope = "all"

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        by_resource = _intervals_by_resource(view)
        out = []
        for resource in _in_scope(self.resources, ctx, "renewable"):
            capacity = ctx.resources[resource].capacity
            for first, last, excess, peak in _overloads(by_resource.get(resource, ()), capacity):
                out.append(self.violation(
                    f"{ctx.show(resource)} is used {peak} > capacity {capacity} during [{first}, {last})",
                    amount=excess, entities=(ctx.show(resource),), time=first))
        return out


class NonrenewableBudget(Constraint, frozen=True, kw_only=True, tag="nonrenewable_budget"):
    """Non-renewable resources: total consumption stays within the budget.

    Formal meaning: for every non-renewable resource r with budget B_r,
    ``Σ_a q_{a,r}(mode_a) ≤ B_r`` (consumed once per activity).

    Counting rule: one violation per resource over budget; amount = the excess.
    """

    COUNTS = "consumption over the whole project"
    UNIT = "unit over the budget"

    resources: ResourceScope = "all"

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        by_resource = _intervals_by_resource(view)
        out = []
        for resource in _in_scope(self.resources, ctx, "nonrenewable"):
            budget = ctx.resources[resource].capacity
            used = sum(item[3] for item in by_resource.get(resource, ()))
            if used > budget:
                out.append(self.violation(f"{ctx.show(resource)} consumes {used} > budget {budget}",
                                          amount=used - budget, entities=(ctx.show(resource),)))
        return out


class ModeChoice(Constraint, frozen=True, kw_only=True, tag="mode_choice"):
    """Every activity executes in exactly one of its modes (for job shops with machine
    choice, a mode is an eligible machine). The mode fixes the duration and resource use.

    Formal meaning: ``mode_a ∈ {1, …, |modes(a)|}`` for every activity a.

    Counting rule: one violation per activity given a mode it does not have.
    """

    COUNTS = "modes chosen per activity"
    UNIT = "activity without a valid mode"

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for name, number in view.solution.modes.items():
            activity = ctx.activities.get(name)
            if activity is not None and not 1 <= number <= len(activity.modes):
                out.append(self.violation(f"{ctx.show(name)} has no mode {number} (modes 1..{len(activity.modes)})",
                                          entities=(ctx.show(name),)))
        return out


def _overloads(items: list[tuple[int, int, str, int]] | tuple, capacity: int) -> list[tuple[int, int, int, int]]:
    """Maximal segments [first, last) where the summed amount exceeds ``capacity``:
    (first, last, excess summed over the time units, peak load)."""
    events: dict[int, int] = defaultdict(int)
    for start, end, _name, amount in items:
        if end > start and amount:
            events[start] += amount
            events[end] -= amount
    out = []
    load = 0
    segment: list[int] | None = None  # [first, excess, peak]
    times = sorted(events)
    for i, t in enumerate(times):
        load += events[t]
        nxt = times[i + 1] if i + 1 < len(times) else t
        if load > capacity and nxt > t:
            if segment is None:
                segment = [t, 0, 0]
            segment[1] += (load - capacity) * (nxt - t)
            segment[2] = max(segment[2], load)
        elif segment is not None:
            out.append((segment[0], t, segment[1], segment[2]))
            segment = None
    return out
