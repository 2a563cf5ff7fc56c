"""The data behind the schedule plots: scheduled activities, Gantt rows and downtime windows.

Everything here is plain, deterministic data (tested by snapshot); the drawing modules only
turn it into shapes. A solution is resolved strictly: an activity the instance does not
have, or a mode it does not offer, is an error rather than a silently missing bar, because a
plot that quietly drops part of an answer would mislead whoever reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.ir import Instance, Use

if TYPE_CHECKING:
    from schedc.verify.verifier import Verifier

#: The tag of the downtime kind; read by name so this module works whether or not the kind is registered.
DOWNTIME_TAG = "resource_downtime"
WINDOW_TAG, TARDINESS_TAG = "time_window", "tardiness"


class ScheduledActivity(msgspec.Struct, frozen=True, kw_only=True):
    """One activity of a solution: ``[start, end)`` in its chosen (1-based) ``mode``."""

    activity: str
    start: int
    end: int
    mode: int
    job: str | None = None
    step: int | None = None
    uses: tuple[Use, ...] = ()


class GanttRow(msgspec.Struct, frozen=True, kw_only=True):
    """One bar of a resource Gantt: ``activity`` occupies ``amount`` of ``resource`` during ``[start, end)``.

    Non-renewable resources have rows too (``amount`` is then the consumption, spent once);
    the plots draw only unary and renewable resources along time.
    """

    resource: str
    activity: str
    start: int
    end: int
    mode: int
    job: str | None = None
    step: int | None = None
    amount: int = 1


class DowntimeRow(msgspec.Struct, frozen=True, kw_only=True):
    """Resource ``resource`` is unavailable during ``[start, end)``; ``label`` says why."""

    resource: str
    start: int
    end: int
    label: str = ""


def require_intervals(instance: Instance) -> None:
    """Refuse instances without activities (slot families such as timetabling and rostering)."""
    if not instance.activities:
        raise SchedcError.at("E703", f"instance {instance.name!r} (family {instance.family}) has no activities: "
                             "only interval families (job shops, RCPSP) can be drawn as a schedule over time",
                             hint="slot families (timetabling, rostering) have no start times to plot")


def scheduled_activities(instance: Instance, solution: Solution) -> list[ScheduledActivity]:
    """The activities the solution schedules, in declaration order.

    Raises a SchedcError for a slot instance, for a solution naming an activity or a mode the
    instance does not have, and for a solution that schedules nothing.
    """
    require_intervals(instance)
    known = {a.name for a in instance.activities}
    unknown = sorted(set(solution.starts) - known)
    if unknown:
        raise SchedcError.at("E705", f"the solution schedules {len(unknown)} activities that instance "
                             f"{instance.name!r} does not have: {', '.join(unknown[:5])}")
    out = []
    for activity in instance.activities:
        start = solution.starts.get(activity.name)
        if start is None:
            continue
        mode = solution.modes.get(activity.name, 1)
        if not 1 <= mode <= len(activity.modes):
            raise SchedcError.at("E705", f"activity {activity.name!r} has no mode {mode} "
                                 f"(modes 1..{len(activity.modes)})")
        chosen = activity.modes[mode - 1]
        out.append(ScheduledActivity(activity=activity.name, start=start, end=start + chosen.duration, mode=mode,
                                     job=activity.job, step=activity.step, uses=chosen.uses))
    if not out:
        raise SchedcError.at("E702", f"nothing to plot: the solution schedules none of the "
                             f"{len(instance.activities)} activities of instance {instance.name!r}")
    return out


def makespan(scheduled: Sequence[ScheduledActivity]) -> int:
    """The latest end of the scheduled activities (0 for none)."""
    return max((s.end for s in scheduled), default=0)


def gantt_table(instance: Instance, solution: Solution) -> list[GanttRow]:
    """One row per (resource, scheduled activity whose chosen mode uses it).

    Sorted by resource declaration order, then start, then activity name, so the table (and
    every plot drawn from it) is the same however the solution's dictionaries are ordered.
    """
    return rows_of(instance, scheduled_activities(instance, solution))


def rows_of(instance: Instance, scheduled: Sequence[ScheduledActivity]) -> list[GanttRow]:
    """The Gantt rows of already resolved activities, in :func:`gantt_table` order."""
    order = {r.name: i for i, r in enumerate(instance.resources)}
    rows = [GanttRow(resource=use.resource, activity=s.activity, start=s.start, end=s.end, mode=s.mode,
                     job=s.job, step=s.step, amount=use.amount)
            for s in scheduled for use in s.uses]
    return sorted(rows, key=lambda r: (order.get(r.resource, len(order)), r.resource, r.start, r.activity))


def downtime_rows(instance: Instance) -> list[DowntimeRow]:
    """The windows of the instance's active ``resource_downtime`` constraints, by resource order then start."""
    order = {r.name: i for i, r in enumerate(instance.resources)}
    rows = [DowntimeRow(resource=w.resource, start=w.start, end=w.end, label=getattr(w, "label", ""))
            for c in instance.constraints
            if type(c).__struct_config__.tag == DOWNTIME_TAG and c.active
            for w in c.windows]
    return sorted(rows, key=lambda r: (order.get(r.resource, len(order)), r.resource, r.start, r.end))


_COLUMNS = ("resource", "activity", "job", "step", "mode", "start", "end", "amount")
_NUMERIC = frozenset({"step", "mode", "start", "end", "amount"})


def format_gantt_table(rows: Sequence[GanttRow]) -> str:
    """The rows as an aligned plain-text table with a header (numbers right-aligned, ``-`` for none)."""
    cells = [list(_COLUMNS)]
    for row in rows:
        values = msgspec.structs.asdict(row)
        cells.append(["-" if values[c] is None else str(values[c]) for c in _COLUMNS])
    widths = [max(len(line[i]) for line in cells) for i in range(len(_COLUMNS))]
    lines = []
    for line in cells:
        parts = [text.rjust(w) if col in _NUMERIC else text.ljust(w)
                 for col, text, w in zip(_COLUMNS, line, widths, strict=True)]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines) + "\n"


def solution_from_answer(verifier: Verifier, text: str) -> Solution:
    """The decisions an answer text states, resolved exactly as ``verifier`` resolves them.

    Lines the verifier would flag (unknown names, duplicates) are left out of the solution;
    reporting them is ``schedc check``'s job, drawing what remains is ours. Build the
    verifier with :func:`schedc.pipeline.checking.verifier_for` to read answers in a rendering's names.
    """
    from schedc.verify.answers import extract

    extraction = extract(text, verifier.format)
    if not extraction.ok:
        raise SchedcError.at("E702", "nothing to plot: the answer has no schedule line",
                             hint=f"schedule lines look like {verifier.format.template!r}")
    return verifier.decisions(extraction, [])


def load_profile(rows: Sequence[GanttRow]) -> list[tuple[int, int]]:
    """The step function of the summed ``amount`` of ``rows`` over time: ``(t, load from t on)``
    at every time the load changes, from load 0 at time 0 (or at the earliest start if negative)."""
    deltas: dict[int, int] = {}
    for row in rows:
        if row.end > row.start and row.amount:
            deltas[row.start] = deltas.get(row.start, 0) + row.amount
            deltas[row.end] = deltas.get(row.end, 0) - row.amount
    points = [(min(0, min(deltas, default=0)), 0)]
    load = 0
    for t in sorted(deltas):
        load += deltas[t]
        if t == points[-1][0]:
            points[-1] = (t, load)
        elif load != points[-1][1]:
            points.append((t, load))
    return points


class TimeMark(msgspec.Struct, frozen=True, kw_only=True):
    """A date of a job or an activity (``target``): its ``release``, ``deadline`` or ``due`` date."""

    target: str
    time: int
    kind: str


def time_marks(instance: Instance) -> list[TimeMark]:
    """The release dates and deadlines (``time_window``) and due dates (``tardiness``) of the active
    constraints, in constraint then row order (read by tag, like :func:`downtime_rows`)."""
    out = []
    for c in instance.constraints:
        tag = type(c).__struct_config__.tag
        if not c.active:
            continue
        if tag == WINDOW_TAG:
            for w in c.windows:
                if w.release > 0:
                    out.append(TimeMark(target=w.target, time=w.release, kind="release"))
                if w.deadline is not None:
                    out.append(TimeMark(target=w.target, time=w.deadline, kind="deadline"))
        elif tag == TARDINESS_TAG:
            out.extend(TimeMark(target=d.target, time=d.due, kind="due") for d in c.due_dates)
    return out


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders embedded numbers by value: M1, M2, …, M9, M10 (not M1, M10, M2)."""
    import re

    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", name) if part)
