"""Schedule plots of interval instances: machine Gantt, resource profiles, activity and job Gantts.

:func:`plot_gantt` composes a figure from *panels* chosen by the instance's shape, not its
family name: each resource kind with a time-bound meaning has a panel builder in
:data:`PANELS_BY_KIND` (unary resources → one lane per machine; renewable resources → a
usage profile against the capacity each), and an activity Gantt is added whenever some
activity would otherwise appear in no lane (RCPSP). A job shop thus gets a machine Gantt,
an RCPSP profiles plus an activity Gantt, and a mixed instance both, with no family check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.ir import Instance, Resource
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
from schedc.plotting.output import (
    FONT_PT,
    NEUTRAL,
    PLOT_SHARE,
    WIDTH_IN,
    label_fits,
    lane_axis,
    new_figure,
    output_format,
    palette,
    save,
    time_limits,
)

LANE_IN = 0.42  # height of a machine or job lane
ACTIVITY_LANE_IN = 0.26  # activity lanes are many (RCPSP), so thinner
PROFILE_IN = 1.7
MAX_LEGEND = 20  # beyond this many colours a legend is a wall of near-identical swatches
BAR_HEIGHT = 0.7
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


@dataclass(frozen=True)
class Bar:
    """One rectangle on a lane, with an optional label and an SVG id (``gid``)."""

    lane: int
    start: int
    end: int
    colour: str
    label: str
    gid: str


def colour_key(s: ScheduledActivity | GanttRow) -> str:
    """What a bar is coloured by in resource views: its job, or the activity itself when it has none."""
    return s.job if s.job is not None else s.activity


def text_colour(colour: str) -> str:
    """Black or white, whichever reads better on ``colour`` (by relative luminance)."""
    r, g, b = to_rgb(colour)
    return "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5 else "white"


# ---------------------------------------------------------------------------- drawing helpers


def draw_bars(ax: Axes, bars: Sequence[Bar], span: float, lane_in: float, keys: dict[str, str] | None = None) -> None:
    """Draw the bars in one call and keep every label: inside the bar when it fits, else just right of
    it when the lane is free up to the label's end, else as a short numeric key (listed in ``keys``,
    which the figure's key legend explains)."""
    if not bars:
        return
    container = ax.barh([b.lane for b in bars], [b.end - b.start for b in bars], left=[b.start for b in bars],
                        height=BAR_HEIGHT, color=[b.colour for b in bars], edgecolor="black", linewidth=0.5,
                        zorder=2)
    room = _room_after(bars, span)
    for bar, patch in zip(bars, container.patches, strict=True):
        patch.set_gid(bar.gid)
        if not bar.label:
            continue
        if label_fits(bar.label, bar.end - bar.start, span, lane_in * BAR_HEIGHT):
            ax.text((bar.start + bar.end) / 2, bar.lane, bar.label, ha="center", va="center", fontsize=FONT_PT,
                    color=text_colour(bar.colour), zorder=3, clip_on=True, gid=f"label-{bar.gid}")
            continue
        text = bar.label
        if label_width(text, span) > room[bar.gid] and keys is not None:
            text = keys.setdefault(bar.label, str(len(keys) + 1))
        if label_fits(text, bar.end - bar.start, span, lane_in * BAR_HEIGHT):
            ax.text((bar.start + bar.end) / 2, bar.lane, text, ha="center", va="center", fontsize=FONT_PT,
                    color=text_colour(bar.colour), zorder=3, clip_on=True, gid=f"label-{bar.gid}")
        elif label_width(text, span) <= room[bar.gid]:
            ax.text(bar.end + 0.1 * label_width("x", span), bar.lane, text, ha="left", va="center",
                    fontsize=FONT_PT - 1, color="black", zorder=3, clip_on=True, gid=f"label-{bar.gid}")
        else:  # no room beside the bar either: the key sits on the bar's top edge
            ax.text((bar.start + bar.end) / 2, bar.lane - BAR_HEIGHT / 2, text, ha="center", va="bottom",
                    fontsize=FONT_PT - 1, color="black", zorder=7, clip_on=True, gid=f"label-{bar.gid}")


def label_width(text: str, span: float) -> float:
    """The width of ``text`` in time units on an axis of ``span`` (the estimate of :func:`label_fits`)."""
    return (len(text) * 0.6 + 0.8) * FONT_PT / 72 / (WIDTH_IN * PLOT_SHARE) * span


def _room_after(bars: Sequence[Bar], span: float) -> dict[str, float]:
    """Time free on each bar's lane after its end, up to the next bar (or the axis end)."""
    room: dict[str, float] = {}
    by_lane: dict[int, list[Bar]] = {}
    for b in bars:
        by_lane.setdefault(b.lane, []).append(b)
    for lane_bars in by_lane.values():
        ordered = sorted(lane_bars, key=lambda b: (b.start, b.end))
        for k, b in enumerate(ordered):
            following = [o.start for o in ordered[k + 1:] if o.start >= b.end]
            room[b.gid] = (min(following) if following else span) - b.end
    return room


Placed = list[tuple[TimeMark, int]]
MARK_STYLE = {"release": ("#2ca02c", ">"), "deadline": ("#d62728", "|"), "due": ("#ff7f0e", "d")}


def draw_marks(ax: Axes, placed: Placed) -> None:
    """Release dates (green ▶), deadlines (red bar) and due dates (orange ◆) at their lanes."""
    for mark, lane in placed:
        colour, marker = MARK_STYLE[mark.kind]
        ax.plot([mark.time], [lane], marker=marker, color=colour, markersize=7, markeredgewidth=1.6,
                linestyle="none", zorder=6, gid=f"{mark.kind}-{mark.target}")


def marks_on_lanes(schedule: Schedule, lane_of: Callable[[ScheduledActivity], int | None]) -> Placed:
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


def shade_downtimes(ax: Axes, lanes: dict[str, int], downtimes: Sequence[DowntimeRow], span: float) -> None:
    """Hatch the downtime windows of the resources that have a lane (drawn over bars: an overlap shows),
    with their label where it fits."""
    for d in downtimes:
        if d.resource not in lanes:
            continue
        patch = ax.barh(lanes[d.resource], d.end - d.start, left=d.start, height=0.92, zorder=4,
                        **DOWNTIME_STYLE).patches[0]
        patch.set_gid(f"downtime-{d.resource}-{d.start}")
        if d.label and label_fits(d.label, d.end - d.start, span, LANE_IN * BAR_HEIGHT):
            ax.text((d.start + d.end) / 2, lanes[d.resource], d.label, ha="center", va="center", fontsize=FONT_PT,
                    zorder=5, clip_on=True, bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0})


def mark_makespan(ax: Axes, value: int, annotate: bool) -> None:
    """A dashed vertical line at the makespan, with its value written above the top panel."""
    ax.axvline(value, color=MAKESPAN_COLOUR, linestyle="--", linewidth=1.1, zorder=5, gid="makespan")
    if annotate:
        ax.text(value, 1.0, f" makespan {value}", transform=ax.get_xaxis_transform(), ha="left", va="bottom",
                fontsize=FONT_PT + 1, color=MAKESPAN_COLOUR)


def add_legend(ax: Axes, colours: dict[str, str], title: str, downtime: bool, marks: Sequence[str] = ()) -> None:
    """A legend outside the top panel: one swatch per colour (when few enough), the downtime hatch and
    the kinds of date marks drawn."""
    handles: list[Patch | Line2D] = []
    if len(colours) <= MAX_LEGEND:
        handles = [Patch(facecolor=c, edgecolor="black", linewidth=0.5, label=k) for k, c in colours.items()]
    if downtime:
        handles.append(Patch(label="downtime", **DOWNTIME_STYLE))
    for kind in dict.fromkeys(marks):
        colour, marker = MARK_STYLE[kind]
        handles.append(Line2D([], [], color=colour, marker=marker, linestyle="none", markeredgewidth=1.6,
                              label=f"{kind} date" if kind != "due" else "due date"))
    if handles:
        ax.legend(handles=handles, title=title, loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=FONT_PT,
                  title_fontsize=FONT_PT + 1, frameon=False)


# ---------------------------------------------------------------------------- panels


def machine_panels(resources: Sequence[Resource], schedule: Schedule) -> list[Panel]:
    """One panel with a lane per unary resource (in natural order: M2 before M10): bars coloured by
    job, downtime hatched, release and due dates marked on the lanes of the activities they bound."""
    if not resources:
        return []
    lanes = {r.name: i for i, r in enumerate(sorted(resources, key=lambda r: natural_key(r.name)))}

    def lane_of(a: ScheduledActivity) -> int | None:
        return next((lanes[u.resource] for u in a.uses if u.resource in lanes), None)

    def draw(ax: Axes, s: Schedule) -> None:
        bars = [Bar(lanes[r.resource], r.start, r.end, s.colours[colour_key(r)], r.activity,
                    f"bar-{r.resource}-{r.activity}") for r in s.rows if r.resource in lanes]
        draw_bars(ax, bars, s.span, LANE_IN, s.keys)
        shade_downtimes(ax, lanes, s.downtimes, s.span)
        draw_marks(ax, marks_on_lanes(s, lane_of))
        lane_axis(ax, list(lanes))
        ax.set_ylabel("machine")

    return [Panel(height_in=0.5 + LANE_IN * len(lanes), draw=draw)]


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

    def draw(ax: Axes, s: Schedule) -> None:
        bars = [Bar(i, a.start, a.end, s.colours[colour_key(a)], a.activity, f"bar-{a.activity}")
                for i, a in enumerate(ordered)]
        draw_bars(ax, bars, s.span, ACTIVITY_LANE_IN, s.keys)
        draw_marks(ax, marks_on_lanes(s, lambda a: lanes.get(a.activity)))
        lane_axis(ax, [a.activity for a in ordered])
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


def build_schedule(instance: Instance, solution: Solution) -> Schedule:
    """Resolve a solution into the data every panel reads (errors as SchedcError, see data.py)."""
    activities = scheduled_activities(instance, solution)
    keys = [colour_key(a) for a in activities]
    return Schedule(instance=instance, activities=activities, rows=rows_of(instance, activities),
                    downtimes=downtime_rows(instance), makespan=makespan(activities), colours=palette(keys),
                    marks=time_marks(instance))


def add_key_legend(fig: Figure, keys: dict[str, str]) -> None:
    """The labels that stand as numeric keys on bars too short for them, below the plot."""
    if not keys:
        return
    shown = [f"{k} = {label}" for label, k in keys.items()]
    text = "labels: " + ", ".join(shown[:60]) + (f", … ({len(shown)} in all)" if len(shown) > 60 else "")
    fig.text(0.01, 0.005, text, ha="left", va="bottom", fontsize=FONT_PT, wrap=True, gid="key-legend")


def plot_gantt(instance: Instance, solution: Solution, out: Path, title: str | None = None) -> Path:
    """Draw the schedule of an interval instance and write it to ``out`` (``.png``, ``.svg`` or ``.pdf``).

    Unary resources give a machine Gantt (lanes per machine, bars coloured by job, downtime
    hatched); renewable resources give usage profiles against capacity plus an activity Gantt.
    A dashed line marks the makespan. Returns ``out``.
    """
    output_format(out)  # refuse a bad suffix before any work
    return save(gantt_figure(instance, solution, title), out)


def gantt_figure(instance: Instance, solution: Solution, title: str | None = None) -> Figure:
    """The figure of :func:`plot_gantt` (for inspection; nothing is written)."""
    schedule = build_schedule(instance, solution)
    panels = panels_for(schedule)
    fig = new_figure(sum(p.height_in for p in panels) + 0.9)
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False,
                        gridspec_kw={"height_ratios": [p.height_in for p in panels]})[:, 0]
    for i, (panel, ax) in enumerate(zip(panels, axes, strict=True)):
        panel.draw(ax, schedule)
        mark_makespan(ax, schedule.makespan, annotate=i == 0)
    has_jobs = any(a.job is not None for a in schedule.activities)
    add_legend(axes[0], schedule.colours if has_jobs else {}, "job", downtime=bool(schedule.downtimes),
               marks=[m.kind for m in schedule.marks])
    axes[0].set_xlim(*time_limits(schedule.last))
    axes[-1].set_xlabel("time")
    fig.suptitle(title or f"{instance.name} ({instance.family}): makespan {schedule.makespan}")
    add_key_legend(fig, schedule.keys)
    return fig


def plot_job_gantt(instance: Instance, solution: Solution, out: Path, title: str | None = None) -> Path:
    """Draw one lane per job, its operations as bars coloured by the machine they run on.

    Activities without a job share a ``(no job)`` lane; an instance without any job
    (an RCPSP) is refused with a hint to use :func:`plot_gantt`. Returns ``out``.
    """
    output_format(out)
    return save(job_gantt_figure(instance, solution, title), out)


def job_gantt_figure(instance: Instance, solution: Solution, title: str | None = None) -> Figure:
    """The figure of :func:`plot_job_gantt`."""
    schedule = build_schedule(instance, solution)
    if all(a.job is None for a in instance.activities):
        raise SchedcError.at("E706", f"instance {instance.name!r} has no jobs to draw lanes for",
                             hint="plot_gantt draws activities and resource profiles")
    jobs = sorted(dict.fromkeys(a.job or "(no job)" for a in instance.activities), key=natural_key)
    lanes = {job: i for i, job in enumerate(jobs)}
    machine = {a.activity: machine_of(instance, a) for a in schedule.activities}
    colours = palette(sorted((r.name for r in instance.resources if r.kind != "nonrenewable"), key=natural_key))
    bars = [Bar(lanes[a.job or "(no job)"], a.start, a.end, colours.get(machine[a.activity] or "", NEUTRAL),
                machine[a.activity] or "", f"bar-{a.activity}") for a in schedule.activities]
    fig = new_figure(0.5 + LANE_IN * len(lanes) + 0.9)
    ax = fig.subplots()
    draw_bars(ax, bars, schedule.span, LANE_IN, schedule.keys)
    draw_marks(ax, marks_on_lanes(schedule, lambda a: lanes[a.job or "(no job)"]))
    lane_axis(ax, list(lanes))
    mark_makespan(ax, schedule.makespan, annotate=True)
    add_legend(ax, colours, "machine", downtime=False, marks=[m.kind for m in schedule.marks])
    ax.set_xlim(*time_limits(schedule.last))
    ax.set_xlabel("time")
    ax.set_ylabel("job")
    fig.suptitle(title or f"{instance.name} ({instance.family}) by job: makespan {schedule.makespan}")
    add_key_legend(fig, schedule.keys)
    return fig


def machine_of(instance: Instance, activity: ScheduledActivity) -> str | None:
    """The resource an activity's bar is coloured by: its first unary use, else its first time-bound use."""
    kinds = {r.name: r.kind for r in instance.resources}
    for wanted in ("unary", "renewable"):
        for use in activity.uses:
            if kinds.get(use.resource) == wanted:
                return use.resource
    return None
