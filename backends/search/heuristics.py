"""A serial schedule-generation heuristic for interval families.

Activities are taken in a topological order of the precedences; each gets a mode — the one
that finishes first when no mode consumes a non-renewable resource, else the first mode whose
consumption still fits the remaining budgets (else its first mode) — and the earliest start
at or after its predecessors' ends and its release date where every resource of that mode has
room for its whole duration (a resource that is down has none). The result respects
precedences, release dates, downtime, unary machines and renewable capacities by
construction; it is a baseline, a solver hint and a source of valid answers for tests and
benchmarks — not an optimiser.
"""

from __future__ import annotations

import bisect
import heapq
from collections import defaultdict, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from schedc.core.solution import Solution
from schedc.ir import Activity, Instance, Mode
from schedc.kinds import CumulativeRenewable, PrecedenceLag, SkillRequirements, UnaryNoOverlap
from schedc.kinds.measures import targets
from schedc.kinds.optional import optional_activities
from schedc.kinds.setup_times import max_total_setup
from schedc.kinds.skill_requirements import team_for
from schedc.kinds.timing import downtime_windows, release_dates, time_offset

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext


def topological_order(instance: Instance) -> list[str]:
    """Activity names in an order compatible with every precedence edge (file order otherwise)."""
    succ: dict[str, list[str]] = defaultdict(list)
    indegree = {a.name: 0 for a in instance.activities}
    for c in instance.constraints:
        if isinstance(c, PrecedenceLag) and c.active:
            for e in c.edges:
                if e.end_start:  # generalized relations (possibly cyclic, with maximum lags) do not order
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


def tails(instance: Instance) -> dict[str, int]:
    """Longest path from each activity's start to the end of the project (its shortest mode
    included): a lower bound on ``makespan − S_a`` for every precedence-feasible schedule."""
    succ: dict[str, list[tuple[str, int]]] = defaultdict(list)
    optional = optional_activities(instance)  # a successor that may be left out bounds nothing
    for c in instance.constraints:
        if isinstance(c, PrecedenceLag) and c.active and c.hard:
            for e in c.edges:
                if e.end_start and e.before not in optional and e.after not in optional:
                    succ[e.before].append((e.after, e.lag))
    shortest = {a.name: min(m.duration for m in a.modes) for a in instance.activities}
    tail: dict[str, int] = {}
    for name in reversed(topological_order(instance)):
        tail[name] = shortest[name] + max((lag + tail[nxt] for nxt, lag in succ[name]), default=0)
    return tail


class Network(NamedTuple):
    """What every serial schedule of an instance shares: the end-start precedence edges both
    ways, a time past every schedule's end (the size of the resource profiles), the release
    dates, the exclusive resources and a topological order."""

    preds: dict[str, list[tuple[str, int]]]
    succ: dict[str, list[str]]
    horizon: int
    release: dict[str, int]
    exclusive: set[str]
    order: list[str]


def network(instance: Instance) -> Network:
    """The :class:`Network` of an instance (computed once for several priority rules)."""
    preds: dict[str, list[tuple[str, int]]] = defaultdict(list)
    succ: dict[str, list[str]] = defaultdict(list)
    for c in instance.constraints:
        if isinstance(c, PrecedenceLag) and c.active:
            for e in c.edges:
                if e.end_start:
                    preds[e.after].append((e.before, e.lag))
                    succ[e.before].append(e.after)
    horizon = sum(max(m.duration for m in a.modes) for a in instance.activities) + 1 + time_offset(instance)
    horizon += sum(abs(e.lag) for c in instance.constraints if isinstance(c, PrecedenceLag) for e in c.edges)
    return Network(preds, succ, horizon, release_dates(instance), exclusive_resources(instance),
                   topological_order(instance))


def serial_schedule(instance: Instance, priority: dict[str, int] | None = None, net: Network | None = None) -> Solution:
    """Schedule activities one at a time, each as early as its predecessors and resources allow.

    Among the activities whose predecessors are all scheduled, the one with the highest
    ``priority`` goes next (ties: declaration order); without priorities, topological order.
    ``net`` is the instance's :func:`network`, when already computed.
    """
    net = net or network(instance)
    activities = {a.name: a for a in instance.activities}
    capacity = {r.name: r.capacity for r in instance.resources}
    busy = {name: BusySpans() for name in net.exclusive}
    load = {r.name: np.zeros(net.horizon, dtype=np.int32) for r in instance.resources
            if r.kind != "nonrenewable" and r.name not in busy}
    for w in downtime_windows(instance):  # a resource that is down has no room left
        if w.resource in load:
            load[w.resource][w.start:w.end] += capacity[w.resource]
        elif w.resource in busy:
            busy[w.resource].block(w.start, w.end)
    budget_left = {r.name: r.capacity for r in instance.resources if r.kind == "nonrenewable"}
    starts: dict[str, int] = {}
    modes: dict[str, int] = {}
    ends: dict[str, int] = {}
    staffing = Staffing(instance)
    preds, release = net.preds, net.release
    for name in _dispatch_order(instance, net, priority):
        activity = activities[name]
        earliest = max([release.get(name, 0), *(ends[p] + lag for p, lag in preds[name])])
        number, mode, start = _place(activity, earliest, budget_left, load, capacity, busy)
        while staffing.rules and (later := staffing.earliest(name, start, mode.duration)) > start:
            number, mode, start = _place(activity, later, budget_left, load, capacity, busy)
        staffing.assign(name, start, mode.duration)
        for use in mode.uses:
            if use.resource in busy and mode.duration and use.amount:
                busy[use.resource].block(start, start + mode.duration)
            elif use.resource in load and mode.duration:
                load[use.resource][start:start + mode.duration] += use.amount
            elif use.resource in budget_left:
                budget_left[use.resource] -= use.amount
        starts[name], modes[name], ends[name] = start, number, start + mode.duration
    return Solution(starts=starts, modes=modes, workers=staffing.teams)


class _NoFamily:
    """What :class:`~schedc.kinds.context.EvalContext` reads of a family, for an interval instance's workers."""

    decision = None
    day_names = "index0"


_NO_FAMILY = _NoFamily()


class Staffing:
    """The workers of the hard ``skill_requirements`` rules while a serial schedule is built: each worker's
    busy spans, and the team given to each activity placed so far (the first team that is free for its whole
    run and fills every unit of every rule, :func:`~schedc.kinds.skill_requirements.team_for`)."""

    def __init__(self, instance: Instance):
        from schedc.kinds.context import EvalContext  # the context reads the kinds, which this module serves

        self.rules = [c for c in instance.constraints if isinstance(c, SkillRequirements) and c.hard and c.active]
        ctx = EvalContext(instance, _NO_FAMILY) if self.rules else None
        self.staff = {c.id: c.staff(ctx) for c in self.rules} if ctx else {}
        self.skills = {(c.id, w): c.skill_set(ctx, w) for c in self.rules for w in self.staff[c.id]} if ctx else {}
        self.rows = {c.id: c.by_activity() for c in self.rules}
        self.busy: dict[str, BusySpans] = defaultdict(BusySpans)
        self.teams: dict[str, tuple[str, ...]] = {}

    def _team(self, activity: str, start: int, duration: int) -> tuple[str, ...] | None:
        team: list[str] = []
        for c in self.rules:
            rows = self.rows[c.id].get(activity)
            if not rows:
                continue
            free = [w for w in self.staff[c.id] if not duration or self.busy[w].free_from(start, duration) == start]
            found = team_for(rows, free, lambda w, cid=c.id: self.skills[(cid, w)])
            if found is None:
                return None
            team += [w for w in found if w not in team]
        return tuple(team)

    def earliest(self, activity: str, start: int, duration: int) -> int:
        """The earliest time ≥ ``start`` at which a team of free workers fills every unit of ``activity``."""
        times = sorted({start, *(e for spans in self.busy.values() for e in spans.ends if e > start)})
        return next((t for t in times if self._team(activity, t, duration) is not None), times[-1])

    def assign(self, activity: str, start: int, duration: int) -> None:
        """Give ``activity`` the first free team at ``start`` (none found: no team, the schedule breaks the rule)."""
        if not self.rules:
            return
        team = self._team(activity, start, duration) or ()
        if team:
            self.teams[activity] = team
        for w in team:
            self.busy[w].block(start, start + duration)


def _dispatch_order(instance: Instance, net: Network, priority: dict[str, int] | None) -> list[str]:
    if priority is None:
        return net.order
    index = {a.name: i for i, a in enumerate(instance.activities)}
    waiting = {a.name: len(net.preds[a.name]) for a in instance.activities}
    ready = [(-priority[n], index[n], n) for n, k in waiting.items() if k == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _p, _i, name = heapq.heappop(ready)
        order.append(name)
        for nxt in net.succ[name]:
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                heapq.heappush(ready, (-priority[nxt], index[nxt], nxt))
    return order


def best_serial_schedule(instance: Instance, feasible: Callable[[Solution], bool],
                         tail: dict[str, int] | None = None) -> Solution | None:
    """The serial schedule of least makespan among a few priority rules (topological order,
    longest tail, most remaining work of the job; ties: that order) of those ``feasible``
    accepts (the schedules respect precedences and resources by construction, not every other
    kind). Only the candidates up to the first accepted one are judged, in makespan order.
    ``tail`` is :func:`tails` of the instance, when already computed."""
    tail = tail if tail is not None else tails(instance)
    remaining: dict[str, int] = {}
    for a in reversed(instance.activities):
        shortest = min(m.duration for m in a.modes)
        same_job = a.job is not None and remaining.get(f"{a.job}.{(a.step or 0) + 1}") is not None
        remaining[a.name] = shortest + (remaining[f"{a.job}.{(a.step or 0) + 1}"] if same_job else 0)
    net = network(instance)
    # in a job shop every tail is the job's remaining work: the third rule would repeat the second
    rules = [None, tail] + ([remaining] if remaining != tail else [])
    candidates = [serial_schedule(instance, priority, net) for priority in rules]
    ranked = sorted(range(len(candidates)), key=lambda k: (schedule_end(instance, candidates[k]), k))
    return next((candidates[k] for k in ranked if feasible(candidates[k])), None)


def _place(activity: Activity, earliest: int, budget_left: dict[str, int], load: dict[str, np.ndarray],
           capacity: dict[str, int], busy: dict[str, BusySpans]) -> tuple[int, Mode, int]:
    """Mode and start of the next activity: without non-renewable uses, the mode that finishes
    first (a flexible step takes the machine that completes it earliest); otherwise the first
    mode that fits the remaining budgets, as early as it fits."""
    if len(activity.modes) == 1:  # both rules pick the only mode
        return 1, activity.modes[0], _fit(activity.modes[0], earliest, load, capacity, busy)
    if not any(u.resource in budget_left for m in activity.modes for u in m.uses):
        placed = [(number, mode, _fit(mode, earliest, load, capacity, busy))
                  for number, mode in enumerate(activity.modes, start=1)]
        return min(placed, key=lambda p: (p[2] + p[1].duration, p[0]))
    number, mode = _pick_mode(activity, budget_left)
    return number, mode, _fit(mode, earliest, load, capacity, busy)


def exclusive_resources(instance: Instance) -> set[str]:
    """Renewable resources that every use occupies whole (amount = capacity, or 0: no room
    needed), such as the unary machines of a shop: "room for the use" is then "no busy span
    overlaps", which :class:`BusySpans` answers without a profile over the whole horizon."""
    amounts: dict[str, set[int]] = defaultdict(set)
    for a in instance.activities:
        for m in a.modes:
            for u in m.uses:
                amounts[u.resource].add(u.amount)
    return {r.name for r in instance.resources
            if r.kind != "nonrenewable" and r.capacity > 0 and amounts[r.name] <= {0, r.capacity}}


class BusySpans:
    """The disjoint busy spans ``[s, e)`` of an exclusive resource, in time order."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def block(self, start: int, end: int) -> None:
        """Mark ``[start, end)`` busy (merged with the spans it touches or overlaps)."""
        if end <= start:
            return
        lo = bisect.bisect_left(self.ends, start)  # the first span that ends at or after `start`
        hi = bisect.bisect_right(self.starts, end)  # past the last span that starts at or before `end`
        if lo < hi:
            start, end = min(start, self.starts[lo]), max(end, self.ends[hi - 1])
        self.starts[lo:hi], self.ends[lo:hi] = [start], [end]

    def free_from(self, earliest: int, duration: int) -> int:
        """The smallest start ≥ ``earliest`` whose window ``[start, start + duration)`` meets no busy span."""
        k = bisect.bisect_right(self.ends, earliest)  # the first span that ends after `earliest`
        start = earliest
        while k < len(self.starts) and self.starts[k] < start + duration:
            start = max(start, self.ends[k])
            k += 1
        return start


def _fit(mode: Mode, earliest: int, load: dict[str, np.ndarray], capacity: dict[str, int],
         busy: dict[str, BusySpans]) -> int:
    """The smallest start ≥ ``earliest`` where every renewable resource of ``mode`` has room for
    the whole duration: the exclusive ones by their busy spans, the others by their profiles
    (:func:`_earliest_fit`), alternating until one start suits all (each step only moves it later)."""
    spans = [busy[u.resource] for u in mode.uses if u.resource in busy and u.amount]
    if not spans:
        return _earliest_fit(mode, earliest, load, capacity)
    profiled = any(u.resource in load for u in mode.uses)
    start = earliest
    while True:
        moved = start
        for timeline in spans:
            moved = timeline.free_from(moved, mode.duration) if mode.duration else moved
        if profiled:
            moved = _earliest_fit(mode, moved, load, capacity)
        if moved == start:
            return start
        start = moved


def _pick_mode(activity: Activity, budget_left: dict[str, int]) -> tuple[int, Mode]:
    for number, mode in enumerate(activity.modes, start=1):
        if all(budget_left.get(u.resource, u.amount) >= u.amount for u in mode.uses):
            return number, mode
    return 1, activity.modes[0]


def _earliest_fit(mode: Mode, earliest: int, load: dict[str, np.ndarray], capacity: dict[str, int]) -> int:
    """The smallest start ≥ ``earliest`` at which every renewable resource of ``mode`` has room
    for the whole duration (time past the end of the profiles is free).

    Scans windows of doubling length with one vectorised pass each (a cumulative count of the
    blocked instants), so that a machine busy far ahead costs a few array operations rather
    than one step per busy stretch.
    """
    renewable = [(load[u.resource], capacity[u.resource] - u.amount) for u in mode.uses if u.resource in load]
    duration = mode.duration
    if not renewable or duration == 0:
        return earliest
    if all(not (profile[earliest:earliest + duration] > room).any() for profile, room in renewable):
        return earliest
    size = len(renewable[0][0])
    span = 4 * duration + 256
    while True:
        stop = min(size, earliest + span)
        blocked = np.zeros(stop - earliest + duration, dtype=bool)  # the padding past `stop` is free
        for profile, room in renewable:
            blocked[:stop - earliest] |= profile[earliest:stop] > room
        counts = np.concatenate(([0], np.cumsum(blocked)))
        # windows [s, s + duration) lying in the scanned part (or reaching past the profile's end)
        last = stop - earliest + 1 if stop == size else stop - earliest - duration + 1
        fits = np.flatnonzero(counts[duration:duration + last] == counts[:last])
        if fits.size:
            return earliest + int(fits[0])
        span *= 2


# --------------------------------------------------------------------------- bounds shared by the solver backends


def earliest_starts(instance: Instance, preds: dict[str, list[tuple[str, int]]]) -> dict[str, int]:
    """Longest-path earliest starts (each predecessor in its shortest mode) from the release
    dates: a lower bound on every activity's start in every feasible schedule."""
    acts = {a.name: a for a in instance.activities}
    release = release_dates(instance)
    est: dict[str, int] = {}
    for name in topological_order(instance):
        est[name] = max([release.get(name, 0),
                         *(est[p] + min(m.duration for m in acts[p].modes) + lag for p, lag in preds[name])])
    return {a: est.get(a, 0) for a in acts}


def capacity_kept(instance: Instance) -> set[str]:
    """The resources whose capacity an active hard rule keeps: the unary resources in the scope of a
    ``unary_no_overlap``, the renewable ones in the scope of a ``cumulative_renewable``.

    Only these bound the makespan by their load (work / capacity): the activities of a resource that
    no rule keeps may all run at once.
    """
    kept: set[str] = set()
    for c in instance.constraints:
        kind = {UnaryNoOverlap: "unary", CumulativeRenewable: "renewable"}.get(type(c))
        if kind is not None and c.active and c.hard:
            scope = c.resources  # type: ignore[attr-defined]
            kept |= {r.name for r in instance.resources if r.kind == kind} if scope == "all" else set(scope)
    return kept


def schedule_horizon(ctx: EvalContext, preds: dict[str, list[tuple[str, int]]],
                     fixed: Solution | None = None,
                     tail: dict[str, int] | None = None) -> tuple[int, Solution | None]:
    """An upper bound on the end of every activity in some optimal schedule, and the heuristic
    schedule it comes from (a solver hint), if any.

    After every downtime, release date and earliest end (:func:`~schedc.kinds.timing.time_offset`) the
    activities can run one after another, waiting for the setups and the delays of the precedence edges,
    which bounds some optimal schedule (the *trivial* bound; ``preds`` is no longer read: every edge is
    taken from the instance, soft ones and the other relations too). When the objective is the makespan, the best
    feasible serial schedule's makespan bounds the optimum. A penalty objective (tardiness)
    may prefer a longer schedule, so only the trivial bound is valid then; an objective with
    earliness may wait for the due dates, so its trivial bound starts after the latest one. With ``fixed``
    decisions, every fixed end is included so that the model can represent them. ``tail`` is
    :func:`tails` of the instance, when the caller has it already.
    """
    from schedc.verify.evaluate import evaluate  # evaluate imports the kinds, which import this module's users

    instance = ctx.instance
    trivial = time_offset(instance) + sum(max(m.duration for m in a.modes) for a in instance.activities)
    # setups and the delays of precedence edges can add waiting time too: the positive delay of a "before"
    # relation, either sign of an "at" relation (E_a − 6 = E_b keeps b 6 before a), hard or soft (a soft
    # edge is kept by waiting, which an optimum of the penalty may do)
    trivial += max_total_setup(instance) + sum(abs(e.lag) if "=" in e.relation else max(0, e.lag)
                                               for c in instance.constraints if isinstance(c, PrecedenceLag)
                                               and c.active for e in c.edges)
    if "earliness" in instance.objective.measures():
        # earliness rewards ending late: an optimal schedule may wait for the due dates, so the
        # back-to-back bound starts after the latest of them (idle time past it gains nothing)
        trivial += max([0, *(t.due for t in targets(instance) if t.due is not None)])
    if fixed is not None:
        ends = [s + max(m.duration for m in a.modes) for a in instance.activities
                if (s := fixed.starts.get(a.name)) is not None]
        return max([trivial, *ends]), None

    heuristic = best_serial_schedule(instance, lambda candidate: evaluate(ctx, candidate).feasible, tail)
    if heuristic is None or instance.objective.measure != "makespan":
        return trivial, heuristic
    return min(trivial, schedule_end(instance, heuristic)), heuristic


def schedule_end(instance: Instance, solution: Solution) -> int:
    """The latest end of the activities a solution schedules (0 when it schedules none)."""
    ends = [start + a.modes[solution.modes.get(a.name, 1) - 1].duration for a in instance.activities
            if (start := solution.starts.get(a.name)) is not None]
    return max(ends, default=0)
