"""What constraint kinds need to judge a schedule: indexes of the instance and of the answer.

:class:`EvalContext` is built once per instance (and display-name mapping) and reused for
every answer checked against it; :class:`View` is built once per answer. Kinds read both
and return :class:`Violation` records, so each kind's meaning lives in its own ``check``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from schedc.core.solution import Assignment, Solution
from schedc.kinds.base import AttrRef, Bound, Selector, ValueFilter, Windows
from schedc.kinds.base import Violation as Violation  # defined beside Constraint.violation, kept importable here
from schedc.kinds.measures import targets as objective_targets
from schedc.kinds.optional import optional_activities
from schedc.kinds.timing import merge_spans, pause_breaks, stretched_end

if TYPE_CHECKING:  # the IR holds constraints of these kinds, so they read it through protocols
    from schedc.kinds.shapes import ActivityShape, FamilyShape, InstanceShape

WEEKEND_DEFINITIONS = {
    "SaturdaySunday": ("Saturday", 2),
    "FridaySaturdaySunday": ("Friday", 3),
    "SaturdaySundayMonday": ("Saturday", 3),
    "FridaySaturdaySundayMonday": ("Friday", 4),
}


class EvalContext:
    """Indexes of one instance for checking answers against it."""

    def __init__(self, instance: InstanceShape, family: FamilyShape, names: Mapping[str, str] | None = None):
        self.instance = instance
        self.family = family
        self.names = dict(names or {})
        self.activities: dict[str, ActivityShape] = {a.name: a for a in instance.activities}
        self.resources = {r.name: r for r in instance.resources}
        self.jobs: dict[str, list[str]] = {}
        for a in instance.activities:
            if a.job is not None:
                self.jobs.setdefault(a.job, []).append(a.name)
        cal = instance.calendar
        self.days = cal.days if cal else 0
        self.periods = cal.periods_per_day if cal else 1
        decision = family.decision
        self.agent_cls = decision.agent if decision else ""
        self.value_cls = decision.value if decision else ""
        self.free = decision.free if decision else None
        self.by_class: dict[str, dict[str, dict[str, Any]]] = {}
        for e in instance.entities:
            self.by_class.setdefault(e.cls, {})[e.name] = e.attrs
        self.agents = list(self.by_class.get(self.agent_cls, {}))
        self.values = list(self.by_class.get(self.value_cls, {}))
        self._selections: dict[Selector, list[str]] = {}
        #: objective targets (jobs, or activities without jobs) with weights and due dates
        self.targets = objective_targets(instance)
        #: activities an answer may leave out (named by an ``optional`` rule)
        self.optional: frozenset[str] = optional_activities(instance)
        #: merged breaks of the resources over which work pauses (``resource_downtime pausable=true``)
        self.breaks = pause_breaks(instance)
        self._windows: dict[Windows, list[tuple[int, ...]]] = {}

    def mode_breaks(self, mode: Any) -> list[tuple[int, int]]:
        """The breaks a mode's work pauses over: those of every pausable resource it uses."""
        return merge_spans([b for u in mode.uses if u.amount for b in self.breaks.get(u.resource, ())])

    def stretched(self, mode: Any, start: int) -> int:
        """The end of a mode started at ``start``, its work pausing over the breaks of its resources."""
        return stretched_end(start, mode.duration, self.mode_breaks(mode))

    # ---------------------------------------------------------------- names and data

    def show(self, name: str) -> str:
        """The display name of an IR name (as the prompt shows it)."""
        return self.names.get(name, name)

    def attrs(self, cls: str, name: str) -> dict[str, Any]:
        return self.by_class.get(cls, {}).get(name, {})

    def select(self, sel: Selector) -> list[str]:
        """The entities a selector denotes, in declaration order."""
        cached = self._selections.get(sel)
        if cached is None:
            members = self.by_class.get(sel.cls, {})
            if sel.names:
                cached = [n for n in sel.names if n in members]
            else:
                cached = [n for n, attrs in members.items()
                          if all(str(attrs.get(k)) == v for k, v in sel.where)]
            self._selections[sel] = cached
        return cached

    def bound(self, bound: Bound, agent: str, cls: str | None = None) -> int | None:
        """A bound's value for ``agent`` (attribute references read the agent's attribute), or for the
        entity ``agent`` of class ``cls`` when a rule selects another class (a group)."""
        if isinstance(bound, AttrRef):
            value = self.attrs(cls or self.agent_cls, agent).get(bound.attr)
            return value if isinstance(value, int) else None
        return bound

    def weekday(self, day: int) -> str | None:
        return self.instance.calendar.weekday(day) if self.instance.calendar else None

    def windows(self, w: Windows) -> list[tuple[int, ...]]:
        """The day blocks of a sequence: one per day, or one per weekend (cut at the horizon end)."""
        cached = self._windows.get(w)
        if cached is None:
            if w.over == "days":
                cached = [(d,) for d in range(self.days)]
            else:
                first, length = WEEKEND_DEFINITIONS[w.weekend or "SaturdaySunday"]
                cached = [tuple(range(d, min(d + length, self.days))) for d in range(self.days)
                          if self.weekday(d) == first]
            self._windows[w] = cached
        return cached

    def matches(self, vf: ValueFilter, values: Sequence[str]) -> bool:
        """Whether an agent-day holding ``values`` matches the filter (see ValueFilter)."""
        if vf.mode == "work":
            return any(v != self.free for v in values)
        if vf.mode == "free":
            return not any(v != self.free for v in values)
        return any(v in vf.values for v in values)

    def day_label(self, day: int, period: int | None = None) -> str:
        """A day (and period) as the prompt shows it: ``day 3``, 1-based or the day of the month
        when the family says so, ``day 3 period 2`` when days have several periods."""
        shown = day
        if self.family.day_names == "index1":
            shown = day + 1
        elif self.family.day_names == "date":
            cal = self.instance.calendar
            shown = day + (cal.start_date.day if cal is not None and cal.start_date is not None else 1)
        text = f"day {shown}"
        return text if period is None or self.periods == 1 else f"{text} period {period}"


class View:
    """The decisions of one answer, indexed for the kinds.

    Interval part: ``start``/``mode``/``end`` of the activities the answer schedules (with a
    valid mode). Slot part: for each agent, the values it holds in each (day, period).
    """

    def __init__(self, ctx: EvalContext, solution: Solution):
        self.ctx = ctx
        self.solution = solution
        self.start: dict[str, int] = {}
        self.mode: dict[str, int] = {}
        self.end: dict[str, int] = {}
        for name, start in solution.starts.items():
            activity = ctx.activities.get(name)
            if activity is None:
                continue
            number = solution.modes.get(name, 1)
            if not 1 <= number <= len(activity.modes):
                continue
            self.start[name] = start
            self.mode[name] = number
            self.end[name] = start + activity.modes[number - 1].duration
            if ctx.breaks:
                self.end[name] = ctx.stretched(activity.modes[number - 1], start)
        self.assignments: Sequence[Assignment] = solution.assignments
        self.cells: dict[str, dict[tuple[int, int], list[str]]] = {}
        for a in solution.assignments:
            self.cells.setdefault(a.agent, {}).setdefault((a.day, a.period), []).append(a.value)
        self._days: dict[str, list[list[str]]] = {}
        self._sequences: dict[tuple[str, ValueFilter, int], tuple[Sequence[tuple[int, ...]], list[bool]]] = {}

    def uses(self, activity: str) -> tuple[Any, ...]:
        """The resource uses of the chosen mode of a scheduled activity."""
        return self.ctx.activities[activity].modes[self.mode[activity] - 1].uses

    def day_values(self, agent: str) -> list[list[str]]:
        """For each day, every value the agent holds that day (all periods)."""
        cached = self._days.get(agent)
        if cached is None:
            cached = [[] for _ in range(self.ctx.days)]
            for (day, _period), values in self.cells.get(agent, {}).items():
                if 0 <= day < self.ctx.days:
                    cached[day].extend(values)
            self._days[agent] = cached
        return cached

    def sequence(self, agent: str, vf: ValueFilter, windows: Sequence[tuple[int, ...]]) -> list[bool]:
        """Whether each window (a day, or a weekend: any of its days) matches the filter."""
        # several rules of one contract (runs of work, free days, weekends) read the same sequence;
        # (the entry keeps ``windows`` alive, so its id cannot name another list meanwhile)
        key = (agent, vf, id(windows))
        entry = self._sequences.get(key)
        if entry is not None and entry[0] is windows:
            return entry[1]
        days = self.day_values(agent)
        matches = self.ctx.matches
        if vf.mode == "free":  # a window is free when all its days are free
            cached = [all(matches(vf, days[d]) for d in w) for w in windows]
        else:
            cached = [any(matches(vf, days[d]) for d in w) for w in windows]
        self._sequences[key] = (windows, cached)
        return cached


def runs(flags: Sequence[bool]) -> list[tuple[int, int]]:
    """Maximal runs of True as (first index, length)."""
    out = []
    start = None
    for i, flag in enumerate(flags):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            out.append((start, i - start))
            start = None
    if start is not None:
        out.append((start, len(flags) - start))
    return out
