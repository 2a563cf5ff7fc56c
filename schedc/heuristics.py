"""A serial schedule-generation heuristic for interval families.

Activities are taken in a topological order of the precedences; each gets its first mode
whose non-renewable consumption still fits the remaining budgets (else its first mode) and
the earliest start at or after its predecessors' ends where every resource of that mode has
room for its whole duration. The result respects precedences, unary machines and renewable
capacities by construction; it is a baseline, a solver hint and a source of valid answers
for tests and benchmarks — not an optimiser.
"""

from __future__ import annotations

from collections import defaultdict, deque

import numpy as np

from schedc.ir import Activity, Instance, Mode
from schedc.kinds import PrecedenceLag
from schedc.solution import Solution


def topological_order(instance: Instance) -> list[str]:
    """Activity names in an order compatible with every precedence edge (file order otherwise)."""
    succ: dict[str, list[str]] = defaultdict(list)
    indegree = {a.name: 0 for a in instance.activities}
    for c in instance.constraints:
        if isinstance(c, PrecedenceLag) and c.active:
            for e in c.edges:
                succ[e.before].append(e.after)
                indegree[e.after] += 1
    queue = deque(a.name for a in instance.activities if indegree[a.name] == 0)
    order = []
    while queue:
        name = queue.popleft()
        order.append(name)
        for nxt in succ[name]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                queue.append(nxt)
    return order


def serial_schedule(instance: Instance) -> Solution:
    """A feasible-by-construction schedule for precedences and renewable/unary resources."""
    activities = {a.name: a for a in instance.activities}
    preds: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for c in instance.constraints:
        if isinstance(c, PrecedenceLag) and c.active:
            for e in c.edges:
                preds[e.after].append((e.before, e.lag))
    horizon = sum(max(m.duration for m in a.modes) for a in instance.activities) + 1
    horizon += sum(e.lag for c in instance.constraints if isinstance(c, PrecedenceLag) for e in c.edges)
    load = {r.name: np.zeros(horizon, dtype=np.int64) for r in instance.resources if r.kind != "nonrenewable"}
    capacity = {r.name: r.capacity for r in instance.resources}
    budget_left = {r.name: r.capacity for r in instance.resources if r.kind == "nonrenewable"}
    starts: dict[str, int] = {}
    modes: dict[str, int] = {}
    ends: dict[str, int] = {}
    for name in topological_order(instance):
        activity = activities[name]
        number, mode = _pick_mode(activity, budget_left)
        earliest = max((ends[p] + lag for p, lag in preds[name]), default=0)
        start = _earliest_fit(mode, earliest, load, capacity)
        for use in mode.uses:
            if use.resource in load and mode.duration:
                load[use.resource][start:start + mode.duration] += use.amount
            elif use.resource in budget_left:
                budget_left[use.resource] -= use.amount
        starts[name], modes[name], ends[name] = start, number, start + mode.duration
    return Solution(starts=starts, modes=modes)


def _pick_mode(activity: Activity, budget_left: dict[str, int]) -> tuple[int, Mode]:
    for number, mode in enumerate(activity.modes, start=1):
        if all(budget_left.get(u.resource, u.amount) >= u.amount for u in mode.uses):
            return number, mode
    return 1, activity.modes[0]


def _earliest_fit(mode: Mode, earliest: int, load: dict[str, np.ndarray], capacity: dict[str, int]) -> int:
    renewable = [(load[u.resource], capacity[u.resource] - u.amount) for u in mode.uses if u.resource in load]
    if not renewable or mode.duration == 0:
        return earliest
    start = earliest
    while True:
        blocked = -1
        for profile, room in renewable:
            window = profile[start:start + mode.duration]
            over = np.flatnonzero(window > room)
            if over.size:
                blocked = max(blocked, start + int(over[-1]))
        if blocked < 0:
            return start
        start = blocked + 1
