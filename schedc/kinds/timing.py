"""Time kinds of interval families: ``time_window``, ``resource_downtime``, ``tardiness``.

They carry what a dynamic shop adds to a static one: release dates (and deadlines), machines
that are down for known periods, and due dates whose lateness is paid for. A row's *target*
is a job (it then applies to every activity of the job) or a single activity.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import msgspec

from schedc.core.literals import quote_word
from schedc.kinds.base import Constraint, NonNegative, Row, TableContext, ascii_int

if TYPE_CHECKING:
    from schedc.kinds.context import EvalContext, View, Violation
    from schedc.kinds.shapes import InstanceShape


def members(ctx: EvalContext, target: str) -> list[str]:
    """The activities a row target denotes: the activities of job ``target``, or the activity itself."""
    return ctx.jobs.get(target) or ([target] if target in ctx.activities else [])


class Window(msgspec.Struct, frozen=True, kw_only=True, array_like=True, omit_defaults=True):
    """``release ≤ S_a`` and, when given, ``E_a ≤ deadline``, ``S_a ≤ latest_start`` and
    ``E_a ≥ earliest_end`` for every activity a of ``target``; ``due`` and ``weight`` are data of
    the objective terms (:mod:`schedc.kinds.measures`), not enforced."""

    target: str
    release: NonNegative = 0
    deadline: NonNegative | None = None
    latest_start: NonNegative | None = None
    earliest_end: NonNegative | None = None
    due: NonNegative | None = None
    weight: NonNegative | None = None

    KEY: ClassVar[tuple[str, ...]] = ("target",)


#: the keyed cells of a time_window row, in canonical order
WINDOW_KEYS = ("latest_start", "earliest_end", "due", "weight")


class TimeWindow(Constraint, frozen=True, kw_only=True, tag="time_window"):
    """Release dates, deadlines, latest starts and earliest ends of jobs or activities.

    Formal meaning: for every row (target, r, d̄, ls, ee) and every performed activity a of the
    target, ``S_a ≥ r``; when given, ``E_a ≤ d̄``, ``S_a ≤ ls`` and ``E_a ≥ ee``. A row's ``due``
    and ``weight`` are not enforced: they are the due date and weight the objective terms read.

    Counting rule: one violation per activity and broken bound; its amount is the number of
    time units by which the bound is missed (``r − S_a``, ``E_a − d̄``, ``S_a − ls``, ``ee − E_a``).

    Table rows: ``TARGET RELEASE [DEADLINE] [latest_start=N] [earliest_end=N] [due=N] [weight=N]``
    (``-`` for no deadline).
    """

    COUNTS = "start and end times against release dates and deadlines"
    UNIT = "time unit early or late"

    windows: tuple[Window, ...] = ()

    TABLE_FIELD = "windows"

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[Window, ...]:
        out = []
        for row in rows:
            out.append(_parse_window(row))
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        lines = []
        for w in self.windows:
            keyed = [f"{k}={getattr(w, k)}" for k in WINDOW_KEYS if getattr(w, k) is not None]
            deadline = [] if w.deadline is None else [str(w.deadline)]
            lines.append(" ".join([w.target, str(w.release), *deadline, *keyed]))
        return lines

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for w in self.windows:
            for name in members(ctx, w.target):
                if name not in view.start:
                    continue  # an unscheduled activity is a structural error, reported once elsewhere
                start, end, shown = view.start[name], view.end[name], ctx.show(name)
                if start < w.release:
                    out.append(self.violation(f"{shown} starts at {start}, before its release date {w.release}",
                                              amount=w.release - start, entities=(shown,), time=start))
                if w.deadline is not None and end > w.deadline:
                    out.append(self.violation(f"{shown} ends at {end}, after its deadline {w.deadline}",
                                              amount=end - w.deadline, entities=(shown,), time=end))
                if w.latest_start is not None and start > w.latest_start:
                    out.append(self.violation(f"{shown} starts at {start}, after its latest start {w.latest_start}",
                                              amount=start - w.latest_start, entities=(shown,), time=start))
                if w.earliest_end is not None and end < w.earliest_end:
                    out.append(self.violation(f"{shown} ends at {end}, before its earliest end {w.earliest_end}",
                                              amount=w.earliest_end - end, entities=(shown,), time=end))
        return out


def _parse_window(row: Row) -> Window:
    """``TARGET RELEASE [DEADLINE] [key=N ...]``: positional cells first, then keyed ones."""
    positional = [i for i, cell in enumerate(row.cells) if "=" not in cell]
    if len(positional) not in (2, 3) or positional != list(range(len(positional))):
        raise row.error("expected TARGET RELEASE [DEADLINE] then key=N cells (latest_start= earliest_end= due= "
                        "weight=)", min(len(positional), len(row) - 1) if row.cells else 0)
    values: dict[str, int | None] = {"release": row.int(1, "release date")}
    if len(positional) == 3:
        values["deadline"] = row.opt_int(2, "deadline")
    for i in range(len(positional), len(row)):
        key, _, text = row.cells[i].partition("=")
        if key not in WINDOW_KEYS:
            raise row.error(f"unknown cell {key}=; expected one of {', '.join(k + '=' for k in WINDOW_KEYS)}", i)
        if key in values:
            raise row.error(f"{key}= given twice", i)
        value = ascii_int(text)
        if value is None or value < 0:
            raise row.error(f"{key}= expects a non-negative integer, found {text!r}", i)
        values[key] = value
    return Window(target=row.cells[0], **values)  # type: ignore[arg-type]


class Downtime(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """Resource ``resource`` is unavailable during ``[start, end)``; ``label`` says why."""

    resource: str
    start: NonNegative
    end: NonNegative
    label: str = ""


class ResourceDowntime(Constraint, frozen=True, kw_only=True, tag="resource_downtime"):
    """Periods in which a resource cannot be used (breakdowns, maintenance, breaks).

    Formal meaning: for every window (r, s, e) and every activity a whose chosen mode uses r
    with a positive duration, ``E_a ≤ s ∨ S_a ≥ e`` — activities are not interrupted, so one
    may neither overlap nor span a downtime window.

    With ``pausable=true`` the windows are *breaks* over which work pauses: an activity using r
    may not start inside a window (``S_a ∉ [s, e)``) but may span it, and its end is stretched:
    ``E_a`` is the first time by which ``d_a`` units of work have been done outside the breaks of
    every pausable resource its mode uses (:func:`stretched_end`). The interval ``[S_a, E_a)``
    still occupies its resources, breaks included.

    Counting rule: one violation per (activity, window) that overlap; its amount is the
    length of the overlap. Pausable: one violation per activity that starts inside a window;
    its amount is the time from its start to the end of the window.

    Statement: ``hard resource_downtime ID [pausable=true] table`` with rows
    ``RESOURCE START END [LABEL]``, ``START < END``.
    """

    COUNTS = "time an activity overlaps a downtime window"
    UNIT = "time unit of overlap"

    windows: tuple[Downtime, ...] = ()
    pausable: bool = False

    TABLE_FIELD = "windows"

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[Downtime, ...]:
        out = []
        for row in rows:
            row.expect_optional_last(4, "RESOURCE START END [LABEL]")
            start, end = row.int(1, "start"), row.int(2, "end")
            if end <= start:
                raise row.error(f"a downtime must end after it starts, found [{start}, {end})", 2)
            out.append(Downtime(resource=row.cells[0], start=start, end=end, label=row.cells[3] if len(row) == 4
                                else ""))
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [f"{w.resource} {w.start} {w.end}" + (f" {quote_word(w.label)}" if w.label else "")
                for w in self.windows]

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        by_resource: dict[str, list[Downtime]] = {}
        for w in self.windows:
            by_resource.setdefault(w.resource, []).append(w)
        out = []
        for name, start in view.start.items():
            end = view.end[name]
            if end <= start:
                continue
            if self.pausable:
                out += _started_in_break(self, ctx, view, name, by_resource)
                continue
            for use in view.uses(name):
                for w in by_resource.get(use.resource, ()):
                    overlap = min(end, w.end) - max(start, w.start)
                    if overlap > 0:
                        shown, resource = ctx.show(name), ctx.show(w.resource)
                        why = f" ({w.label})" if w.label else ""
                        out.append(self.violation(
                            f"{shown} [{start}, {end}) overlaps the downtime [{w.start}, {w.end}) of {resource}{why}",
                            amount=overlap, entities=(shown, resource), time=max(start, w.start)))
        return out


class DueDate(msgspec.Struct, frozen=True, kw_only=True, array_like=True):
    """Target ``target`` is due at ``due``; each time unit of lateness costs ``weight``."""

    target: str
    due: NonNegative
    weight: NonNegative = 1

    KEY: ClassVar[tuple[str, ...]] = ("target",)


class Tardiness(Constraint, frozen=True, kw_only=True, tag="tardiness"):
    """Due dates: weighted tardiness of jobs (or single activities).

    Formal meaning: the completion of a target is ``C = max_a E_a`` over its activities and
    its tardiness ``T = max(0, C − due)``. Soft: the penalty is ``Σ weight · T`` over the rows.
    Hard: ``C ≤ due`` for every row.

    Counting rule: one violation per late target; its amount is ``weight · T`` when soft
    (rows of weight 0 cost nothing) and ``T`` when hard.

    Table rows: ``TARGET DUE [WEIGHT]`` (weight 1 when omitted).
    """

    COUNTS = "completion time after the due date"
    UNIT = "weighted time unit of lateness"

    due_dates: tuple[DueDate, ...] = ()

    TABLE_FIELD = "due_dates"

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[DueDate, ...]:
        out = []
        for row in rows:
            row.expect_optional_last(3, "TARGET DUE [WEIGHT]")
            weight = row.int(2, "weight") if len(row) == 3 else 1
            out.append(DueDate(target=row.cells[0], due=row.int(1, "due date"), weight=weight))
        return tuple(out)

    def format_rows(self, ctx: TableContext) -> list[str]:
        return [f"{d.target} {d.due}" + ("" if d.weight == 1 else f" {d.weight}") for d in self.due_dates]

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        out = []
        for d in self.due_dates:
            ends = [view.end[a] for a in members(ctx, d.target) if a in view.end]
            if not ends:
                continue
            completion = max(ends)
            late = completion - d.due
            if late > 0 and (self.hard or d.weight > 0):
                shown = ctx.show(d.target)
                weight = f" (weight {d.weight})" if d.weight != 1 else ""
                out.append(self.violation(f"{shown} completes at {completion}, {late} after its due date "
                                          f"{d.due}{weight}", amount=late if self.hard else d.weight * late,
                                          entities=(shown,), time=completion))
        return out


def _started_in_break(c: ResourceDowntime, ctx: EvalContext, view: View, name: str,
                      by_resource: dict[str, list[Downtime]]) -> list[Violation]:
    """A pausable rule's violations by one activity: each break it starts inside."""
    out = []
    start = view.start[name]
    for use in view.uses(name):
        for w in by_resource.get(use.resource, ()):
            if w.start <= start < w.end:
                shown, resource = ctx.show(name), ctx.show(w.resource)
                out.append(c.violation(f"{shown} starts at {start}, inside the break [{w.start}, {w.end}) of "
                                       f"{resource}", amount=w.end - start, entities=(shown, resource), time=start))
    return out


def stretched_end(start: int, duration: int, breaks: Sequence[tuple[int, int]]) -> int:
    """The end of ``duration`` units of work from ``start`` that pause over the (merged, sorted) breaks."""
    t, left = start, duration
    for lo, hi in breaks:
        if hi <= t:
            continue
        if left == 0 or lo >= t + left:
            break
        left -= max(0, lo - t)
        t = max(t, hi)
    return t + left


def pause_breaks(instance: InstanceShape) -> dict[str, list[tuple[int, int]]]:
    """The merged breaks of every resource with an active pausable downtime rule."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for c in instance.constraints:
        if isinstance(c, ResourceDowntime) and c.active and c.pausable:
            for w in c.windows:
                spans.setdefault(w.resource, []).append((w.start, w.end))
    return {r: merge_spans(s) for r, s in spans.items()}


# --------------------------------------------------------------------------- the horizon

HORIZON = "horizon"
"""The constraint id and kind of the instance's ``horizon`` in violation records (no rule may take the id)."""


def horizon_violations(ctx: EvalContext, view: View) -> list[Violation]:
    """Every performed activity must be completed by the instance's horizon H: ``E_a ≤ H``.

    Times are integers from 0 and an activity occupies ``[S_a, E_a)``, so one ending exactly at H
    keeps the horizon (its last unit of work is ``[H − 1, H)``). An activity left out (optional)
    has no end and is free. Counting rule: one violation per activity ending after H; amount =
    ``E_a − H``. Without a horizon (or without activities) nothing is checked.
    """
    from schedc.kinds.base import Violation

    limit = ctx.instance.horizon
    if limit is None:
        return []
    return [Violation(constraint=HORIZON, kind=HORIZON, hard=True, amount=end - limit,
                      entities=(ctx.show(name),), time=end,
                      message=f"{ctx.show(name)} ends at {end}, after the horizon {limit}")
            for name, end in view.end.items() if end > limit]


# --------------------------------------------------------------------------- shared by solvers and heuristics


def release_dates(instance: InstanceShape) -> dict[str, int]:
    """The latest hard, active release date of every activity that has one (for bounds and heuristics)."""
    jobs: dict[str, list[str]] = {}
    for a in instance.activities:
        if a.job is not None:
            jobs.setdefault(a.job, []).append(a.name)
    out: dict[str, int] = {}
    for c in instance.constraints:
        if isinstance(c, TimeWindow) and c.hard and c.active:
            for w in c.windows:
                for name in jobs.get(w.target) or [w.target]:
                    out[name] = max(out.get(name, 0), w.release)
    return out


def downtime_windows(instance: InstanceShape) -> list[Downtime]:
    """Every hard, active downtime window of the instance."""
    return [w for c in instance.constraints if isinstance(c, ResourceDowntime) and c.hard and c.active
            for w in c.windows]


def time_offset(instance: InstanceShape) -> int:
    """A time after every downtime, release date and earliest end: from it on, activities run back to back
    without waiting for anything but each other (used in horizon bounds). An activity may have to wait
    for its release date or its earliest end, hard (to be feasible) or soft (to cost nothing), so a bound
    that does not start after them is none."""
    windows = [max(w.release, w.earliest_end or 0) for c in instance.constraints if isinstance(c, TimeWindow)
               and c.active for w in c.windows]
    return max([0, *windows, *(w.end for w in downtime_windows(instance))])


def merge_spans(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The union of half-open spans ``[start, end)`` as disjoint spans in time order."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
