"""Schedule plots of interval instances: machine Gantt, resource profiles, activity and job Gantts.

:func:`plot_gantt` composes a figure from *panels* chosen by the instance's shape, not its
family name: each resource kind with a time-bound meaning has a panel builder in
:data:`PANELS_BY_KIND` (unary resources → one lane per machine; renewable resources → a
usage profile against the capacity each), and an activity Gantt is added whenever some
activity would otherwise appear in no lane (RCPSP). A job shop thus gets a machine Gantt,
an RCPSP profiles plus an activity Gantt, and a mixed instance both, with no family check.

Bars that run at once on one lane (an answer that overlaps operations on a machine) get tracks of
their own (:mod:`schedc.plotting.lanes`), and the hard violations of the answer are drawn on the
bars (:mod:`schedc.plotting.violations`: red frames, hatched overlaps, arrows for precedences,
window bounds), with their count by kind under the title.

Labels (:mod:`schedc.plotting.bars`) are explained, where they are numeric keys, in a key below the
plot (its own row of the layout, so it never covers the time axis), with the number of bars too
short for any label (a 500-operation shop stays legible).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.ir import Family, Instance, Resource
from schedc.plotting.bars import BAR_HEIGHT, Bar, draw_bars
from schedc.plotting.data import (
    DowntimeRow,
    GanttRow,
    ScheduledActivity,
    TimeMark,
    downtime_rows,
    load_profile,
    makespan,
    natural_key,
    rows_of,
    scheduled_activities,
    time_marks,
)
from schedc.plotting.lanes import LaneLayout
from schedc.plotting.output import (
    FONT_PT,
    NEUTRAL,
    WIDTH_IN,
    label_fits,
    new_figure,
    output_format,
    palette,
    save,
    time_limits,
)
from schedc.plotting.violations import (
    VIOLATION_COLOUR,
    ViolationShapes,
    draw_violations,
    hard_violations,
    legend_handles,
    summary,
    violation_shapes,
)

LANE_IN = 0.42  # height of a machine or job lane
ACTIVITY_LANE_IN = 0.26  # activity lanes are many (RCPSP), so thinner
PROFILE_IN = 1.7
MAX_LEGEND = 20  # beyond this many colours a legend is a wall of near-identical swatches
DOWNTIME_STYLE = {"facecolor": (0.4, 0.4, 0.4, 0.22), "edgecolor": "#555555", "hatch": "///", "linewidth": 0.6}
MAKESPAN_COLOUR = "#d62728"


@dataclass(frozen=True)
class Schedule:
    """What the panels of one plot read: the instance and the resolved solution."""

    instance: Instance
    activities: list[ScheduledActivity]
    rows: list[GanttRow]
    downtimes: list[DowntimeRow]
    makespan: int
    colours: dict[str, str]  # colour key (job, else activity) → colour
    marks: list[TimeMark] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict)  # label → its short key (labels too long for any bar room)
    unlabelled: set[str] = field(default_factory=set)  # bars (ids) left without a label: no room, no key left
    violations: ViolationShapes = field(default_factory=ViolationShapes)

    @property
    def last(self) -> int:
        """The latest time drawn: the makespan, or a later release, deadline or due date."""
        return max([self.makespan, *(m.time for m in self.marks)])

    @property
    def span(self) -> float:
        """The length of the time axis (what bar widths are measured against)."""
        low, high = time_limits(self.last)
        return high - low


@dataclass(frozen=True)
class Panel:
    """One subplot: its height and how to draw it."""

    height_in: float
    draw: Callable[[Axes, Schedule], None]


def colour_key(s: ScheduledActivity | GanttRow) -> str:
    """What a bar is coloured by in resource views: its job, or the activity itself when it has none."""
    return s.job if s.job is not None else s.activity


# ---------------------------------------------------------------------------- drawing helpers


Placed = list[tuple[TimeMark, float]]
MARK_STYLE = {"release": ("#2ca02c", ">"), "deadline": ("#d62728", "|"), "due": ("#ff7f0e", "d")}


def draw_marks(ax: Axes, placed: Placed) -> None:
    """Release dates (green ▶), deadlines (red bar) and due dates (orange ◆) at their lanes."""
    for mark, lane in placed:
        colour, marker = MARK_STYLE[mark.kind]
        ax.plot([mark.time], [lane], marker=marker, color=colour, markersize=7, markeredgewidth=1.6,
                linestyle="none", zorder=6, gid=f"{mark.kind}-{mark.target}")


def marks_on_lanes(schedule: Schedule, lane_of: Callable[[ScheduledActivity], float | None]) -> Placed:
    """Each mark at the lane of its target: a release at the target's first activity, a deadline or
    due date at its last (an activity target is its own first and last)."""
    placed = []
    for mark in schedule.marks:
        members = [a for a in schedule.activities if mark.target in (a.activity, a.job)]
        if not members:
            continue
        chosen = min(members, key=lambda a: a.start) if mark.kind == "release" else max(members, key=lambda a: a.end)
        lane = lane_of(chosen)
        if lane is not None:
            placed.append((mark, lane))
    return placed


def shade_downtimes(ax: Axes, lanes: dict[str, int], layout: LaneLayout, downtimes: Sequence[DowntimeRow],
                    span: float) -> None:
    """Hatch the downtime windows of the resources that have a lane, over all its tracks (drawn over
    bars: an overlap shows), with their label where it fits."""
    for d in downtimes:
        if d.resource not in lanes:
            continue
        lane = lanes[d.resource]
        patch = ax.barh(layout.centre(lane), d.end - d.start, left=d.start, height=layout.height(lane) - 0.08,
                        zorder=4, **DOWNTIME_STYLE).patches[0]
        patch.set_gid(f"downtime-{d.resource}-{d.start}")
        if d.label and label_fits(d.label, d.end - d.start, span, LANE_IN * BAR_HEIGHT):
            ax.text((d.start + d.end) / 2, layout.centre(lane), d.label, ha="center", va="center",
                    fontsize=FONT_PT, zorder=5, clip_on=True,
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0})


def mark_makespan(ax: Axes, value: int, annotate: bool) -> None:
    """A dashed vertical line at the makespan, with its value written above the top panel."""
    ax.axvline(value, color=MAKESPAN_COLOUR, linestyle="--", linewidth=1.1, zorder=5, gid="makespan")
    if annotate:
        ax.text(value, 1.0, f" makespan {value}", transform=ax.get_xaxis_transform(), ha="left", va="bottom",
                fontsize=FONT_PT + 1, color=MAKESPAN_COLOUR)


def add_legend(ax: Axes, colours: dict[str, str], title: str, downtime: bool, marks: Sequence[str] = (),
               violations: ViolationShapes | None = None) -> None:
    """A legend outside the top panel: one swatch per colour (when few enough), the downtime hatch,
    the kinds of date marks and the violation shapes drawn."""
    handles: list[Patch | Line2D] = []
    if len(colours) <= MAX_LEGEND:
        handles = [Patch(facecolor=c, edgecolor="black", linewidth=0.5, label=k) for k, c in colours.items()]
    if downtime:
        handles.append(Patch(label="downtime", **DOWNTIME_STYLE))
    for kind in dict.fromkeys(marks):
        colour, marker = MARK_STYLE[kind]
        handles.append(Line2D([], [], color=colour, marker=marker, linestyle="none", markeredgewidth=1.6,
                              label=f"{kind} date" if kind != "due" else "due date"))
    if violations is not None:
        handles += legend_handles(violations)
    if handles:
        ax.legend(handles=handles, title=title, loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=FONT_PT,
                  title_fontsize=FONT_PT + 1, frameon=False)


# ---------------------------------------------------------------------------- panels


def machine_panels(resources: Sequence[Resource], schedule: Schedule) -> list[Panel]:
    """One panel with a lane per unary resource (in natural order: M2 before M10): bars coloured by
    job (bars running at once on a lane in tracks of their own), downtime hatched, release and due
    dates marked on the bars of the activities they bound, hard violations drawn."""
    if not resources:
        return []
    names = [r.name for r in sorted(resources, key=lambda r: natural_key(r.name))]
    lanes = {name: i for i, name in enumerate(names)}
    rows = [r for r in schedule.rows if r.resource in lanes]
    layout, track = LaneLayout.of(names, [(lanes[r.resource], f"{r.resource}-{r.activity}", r.start, r.end)
                                          for r in rows])
    y = {(r.resource, r.activity): layout.y(lanes[r.resource], track[f"{r.resource}-{r.activity}"]) for r in rows}

    def y_of(a: ScheduledActivity) -> float | None:
        return next((y[(u.resource, a.activity)] for u in a.uses if (u.resource, a.activity) in y), None)

    def draw(ax: Axes, s: Schedule) -> None:
        bars = [Bar(y[(r.resource, r.activity)], r.start, r.end, s.colours[colour_key(r)], r.activity,
                    f"bar-{r.resource}-{r.activity}", r.activity) for r in rows]
        draw_bars(ax, bars, s.span, LANE_IN, s.keys, s.unlabelled)
        shade_downtimes(ax, lanes, layout, s.downtimes, s.span)
        draw_marks(ax, marks_on_lanes(s, y_of))
        draw_violations(ax, s.violations, [b.drawn() for b in bars])
        layout.draw_axis(ax)
        ax.set_ylabel("machine")

    return [Panel(height_in=0.5 + LANE_IN * layout.total, draw=draw)]


def profile_panels(resources: Sequence[Resource], schedule: Schedule) -> list[Panel]:
    """One panel per renewable resource: its usage over time as a step curve under its capacity."""
    return [Panel(height_in=PROFILE_IN, draw=lambda ax, s, r=r: draw_profile(ax, s, r)) for r in resources]


def draw_profile(ax: Axes, schedule: Schedule, resource: Resource) -> None:
    """Usage of ``resource`` (filled steps), its capacity (dashed) and any overload (red)."""
    points = load_profile([r for r in schedule.rows if r.resource == resource.name])
    # The curve returns to 0 after the last change; extend it to the makespan so the steps close.
    times = [t for t, _ in points] + [max(schedule.makespan, points[-1][0])]
    loads = [load for _, load in points] + [points[-1][1]]
    ax.fill_between(times, loads, step="post", color="#4c72b0", alpha=0.35, linewidth=0, gid=f"profile-{resource.name}")
    ax.step(times, loads, where="post", color="#4c72b0", linewidth=1.2)
    over = [load > resource.capacity for load in loads]
    if any(over):
        ax.fill_between(times, loads, resource.capacity, where=over, step="post", color=MAKESPAN_COLOUR, alpha=0.6,
                        linewidth=0, gid=f"overload-{resource.name}")
    ax.axhline(resource.capacity, color="black", linestyle="--", linewidth=1.0, label=f"capacity {resource.capacity}")
    for d in schedule.downtimes:
        if d.resource == resource.name:
            ax.axvspan(d.start, d.end, zorder=4, gid=f"downtime-{d.resource}-{d.start}", **DOWNTIME_STYLE)
    ax.set_ylim(0, max(resource.capacity, max(loads)) * 1.2 + 0.5)
    ax.set_ylabel(resource.name)
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=FONT_PT, frameon=False)
    ax.grid(axis="both", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)


def activity_panel(schedule: Schedule) -> Panel:
    """One lane per scheduled activity, in start order (a staircase that reads like a project plan)."""
    index = {a.name: i for i, a in enumerate(schedule.instance.activities)}
    ordered = sorted(schedule.activities, key=lambda s: (s.start, index[s.activity]))

    lanes = {a.activity: i for i, a in enumerate(ordered)}

    layout = LaneLayout(tuple(a.activity for a in ordered), (1,) * len(ordered))

    def draw(ax: Axes, s: Schedule) -> None:
        bars = [Bar(float(i), a.start, a.end, s.colours[colour_key(a)], a.activity, f"bar-{a.activity}", a.activity)
                for i, a in enumerate(ordered)]
        draw_bars(ax, bars, s.span, ACTIVITY_LANE_IN, s.keys, s.unlabelled)
        draw_marks(ax, marks_on_lanes(s, lambda a: lanes.get(a.activity)))
        draw_violations(ax, s.violations, [b.drawn() for b in bars])
        layout.draw_axis(ax)
        ax.tick_params(axis="y", labelsize=FONT_PT if len(ordered) <= 40 else FONT_PT - 2)
        ax.set_ylabel("activity")

    return Panel(height_in=0.5 + ACTIVITY_LANE_IN * len(ordered), draw=draw)


#: Panel builders per resource kind, top to bottom. Non-renewable budgets are spent once, not over
#: time, so they have no panel (their consumption is in :func:`~schedc.plotting.data.gantt_table`).
PANELS_BY_KIND: dict[str, Callable[[Sequence[Resource], Schedule], list[Panel]]] = {
    "unary": machine_panels,
    "renewable": profile_panels,
}


def panels_for(schedule: Schedule) -> list[Panel]:
    """The panels of a schedule plot, from the kinds of its resources (see the module docstring)."""
    resources = schedule.instance.resources
    panels = [p for kind, build in PANELS_BY_KIND.items()
              for p in build([r for r in resources if r.kind == kind], schedule)]
    unary = {r.name for r in resources if r.kind == "unary"}
    on_lanes = {r.activity for r in schedule.rows if r.resource in unary}
    if any(a.activity not in on_lanes for a in schedule.activities):
        panels.append(activity_panel(schedule))
    return panels


# ---------------------------------------------------------------------------- entry points


def build_schedule(instance: Instance, solution: Solution, family: Family | None = None) -> Schedule:
    """Resolve a solution into the data every panel reads, with its hard violations (errors as
    SchedcError, see data.py). ``family`` defaults to the built-in family of the instance's name."""
    activities = scheduled_activities(instance, solution)
    keys = [colour_key(a) for a in activities]
    shapes = violation_shapes(instance, activities, hard_violations(instance, family, solution))
    return Schedule(instance=instance, activities=activities, rows=rows_of(instance, activities),
                    downtimes=downtime_rows(instance), makespan=makespan(activities), colours=palette(keys),
                    marks=time_marks(instance), violations=shapes)


def add_key_legend(fig: Figure, keys: dict[str, str], unlabelled: int) -> None:
    """The labels that stand as numeric keys on short bars, in a legend of its own below the plot (the
    constrained layout gives it a row, so that it never covers the time axis), and how many bars are
    left without any label."""
    if not keys and not unlabelled:
        return
    blank = Patch(visible=False)
    entries = [f"{k} = {label}" for label, k in keys.items()]
    width = max((len(e) for e in entries), default=1)
    columns = max(1, min(len(entries) or 1, int(WIDTH_IN * 72 / FONT_PT / 0.6 / (width + 3))))
    title = "labels of short bars" if keys else ""
    if unlabelled:
        plural = "s" if unlabelled != 1 else ""
        title = (f"{title} ({unlabelled} more bar{plural} too short for a label)" if keys
                 else f"{unlabelled} bar{plural} too short for a label")
    legend = fig.legend([blank] * len(entries), entries, loc="outside lower left", ncols=columns, fontsize=FONT_PT,
                        title=title, title_fontsize=FONT_PT, frameon=False, handlelength=0, handletextpad=0,
                        columnspacing=1.2, alignment="left")
    legend.set_gid("key-legend")


def plot_gantt(instance: Instance, solution: Solution, out: Path, title: str | None = None,
               family: Family | None = None) -> Path:
    """Draw the schedule of an interval instance and write it to ``out`` (``.png``, ``.svg`` or ``.pdf``).

    Unary resources give a machine Gantt (lanes per machine, bars coloured by job, downtime
    hatched); renewable resources give usage profiles against capacity plus an activity Gantt.
    A dashed line marks the makespan; hard violations are drawn (module docstring). Returns ``out``.
    """
    output_format(out)  # refuse a bad suffix before any work
    return save(gantt_figure(instance, solution, title, family), out)


def gantt_figure(instance: Instance, solution: Solution, title: str | None = None,
                 family: Family | None = None) -> Figure:
    """The figure of :func:`plot_gantt` (for inspection; nothing is written)."""
    schedule = build_schedule(instance, solution, family)
    panels = panels_for(schedule)
    fig = new_figure(sum(p.height_in for p in panels) + 0.9)
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False,
                        gridspec_kw={"height_ratios": [p.height_in for p in panels]})[:, 0]
    for i, (panel, ax) in enumerate(zip(panels, axes, strict=True)):
        panel.draw(ax, schedule)
        mark_makespan(ax, schedule.makespan, annotate=i == 0)
    has_jobs = any(a.job is not None for a in schedule.activities)
    add_legend(axes[0], schedule.colours if has_jobs else {}, "job" if has_jobs else "",
               downtime=bool(schedule.downtimes),
               marks=[m.kind for m in schedule.marks], violations=schedule.violations)
    axes[0].set_xlim(*time_limits(schedule.last))
    axes[-1].set_xlabel("time")
    fig.suptitle(title or f"{instance.name} ({instance.family}): makespan {schedule.makespan}")
    _violation_title(axes[0], schedule.violations)
    add_key_legend(fig, schedule.keys, len(schedule.unlabelled))
    return fig


def _violation_title(ax: Axes, shapes: ViolationShapes) -> None:
    """The count of hard violations by kind, in red above the top panel (nothing for a feasible schedule)."""
    text = summary(shapes)
    if text:
        # raised above the makespan's value, which sits on the axes' top edge
        ax.set_title(text, loc="left", color=VIOLATION_COLOUR, fontsize=FONT_PT + 1, pad=FONT_PT + 9,
                     gid="violation-summary")


def plot_job_gantt(instance: Instance, solution: Solution, out: Path, title: str | None = None,
                   family: Family | None = None) -> Path:
    """Draw one lane per job, its operations as bars coloured by the machine they run on.

    Activities without a job share a ``(no job)`` lane; an instance without any job
    (an RCPSP) is refused with a hint to use :func:`plot_gantt`. Returns ``out``.
    """
    output_format(out)
    return save(job_gantt_figure(instance, solution, title, family), out)


def job_gantt_figure(instance: Instance, solution: Solution, title: str | None = None,
                     family: Family | None = None) -> Figure:
    """The figure of :func:`plot_job_gantt`."""
    if all(a.job is None for a in instance.activities):
        raise SchedcError.at("E706", f"instance {instance.name!r} has no jobs to draw lanes for",
                             hint="plot_gantt draws activities and resource profiles")
    schedule = build_schedule(instance, solution, family)
    jobs = sorted(dict.fromkeys(a.job or "(no job)" for a in instance.activities), key=natural_key)
    lanes = {job: i for i, job in enumerate(jobs)}
    layout, track = LaneLayout.of(jobs, [(lanes[a.job or "(no job)"], a.activity, a.start, a.end)
                                         for a in schedule.activities])
    y = {a.activity: layout.y(lanes[a.job or "(no job)"], track[a.activity]) for a in schedule.activities}
    machine = {a.activity: machine_of(instance, a) for a in schedule.activities}
    colours = palette(sorted((r.name for r in instance.resources if r.kind != "nonrenewable"), key=natural_key))
    bars = [Bar(y[a.activity], a.start, a.end, colours.get(machine[a.activity] or "", NEUTRAL),
                machine[a.activity] or "", f"bar-{a.activity}", a.activity) for a in schedule.activities]
    fig = new_figure(0.5 + LANE_IN * layout.total + 0.9)
    ax = fig.subplots()
    draw_bars(ax, bars, schedule.span, LANE_IN, schedule.keys, schedule.unlabelled)
    draw_marks(ax, marks_on_lanes(schedule, lambda a: y[a.activity]))
    draw_violations(ax, schedule.violations, [b.drawn() for b in bars])
    layout.draw_axis(ax)
    mark_makespan(ax, schedule.makespan, annotate=True)
    add_legend(ax, colours, "machine", downtime=False, marks=[m.kind for m in schedule.marks],
               violations=schedule.violations)
    ax.set_xlim(*time_limits(schedule.last))
    ax.set_xlabel("time")
    ax.set_ylabel("job")
    fig.suptitle(title or f"{instance.name} ({instance.family}) by job: makespan {schedule.makespan}")
    _violation_title(ax, schedule.violations)
    add_key_legend(fig, schedule.keys, len(schedule.unlabelled))
    return fig


def machine_of(instance: Instance, activity: ScheduledActivity) -> str | None:
    """The resource an activity's bar is coloured by: its first unary use, else its first time-bound use."""
    kinds = {r.name: r.kind for r in instance.resources}
    for wanted in ("unary", "renewable"):
        for use in activity.uses:
            if kinds.get(use.resource) == wanted:
                return use.resource
    return None
