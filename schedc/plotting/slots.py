"""Pictures of slot schedules: a roster heat map and a timetable grid.

A slot family decides assignments ``x[agent, (day, period), value] = 1`` (:mod:`schedc.core.solution`).

* :func:`plot_roster` — day-grained families (nurse rostering): one row per agent, one column
  per day, each cell coloured by the value assigned (the shift) and labelled with it; a free
  day is white.
* :func:`plot_timetable` — period-grained families (course timetabling): one row per value
  (the room), one column per (day, period), each cell labelled with the agents placed there
  (the courses) and coloured by the first of them; days are separated by a heavier line.

Hard violations are marked where they happen: a cell whose agent (roster) or one of whose
agents (timetable) a violation names on that cell's day gets a red frame (SVG id
``violation-…``); a violation that names an agent but no day marks the agent's row name in
red, and one that names a value on a day (a cover short that day) the day's name in red.
Every cell is one rectangle with an SVG id (``cell-…``), so tests count them exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.ir import Family, Instance
from schedc.plotting.bars import text_colour
from schedc.plotting.output import FONT_PT, WIDTH_IN, new_figure, output_format, palette, save

VIOLATION_COLOUR = "#d62728"
FREE_COLOUR = "#ffffff"
ROW_IN = 0.28
MAX_LEGEND = 20


@dataclass(frozen=True)
class Grid:
    """The cells of one slot picture: ``cells[(row, column)]`` lists the labels placed there."""

    rows: list[str]
    columns: list[tuple[int, int]]  # (day, period)
    cells: dict[tuple[int, int], list[str]]
    marked: set[tuple[int, int]]  # cells with a hard violation
    marked_rows: set[int]  # rows named by a violation without a day
    marked_days: set[int] = field(default_factory=set)  # days of violations that name a value, not an agent


def _decision(instance: Instance, family: Family) -> tuple[str, str, str, str | None]:
    """(agent class, value class, grain, free value) of a slot instance; E703 for an interval one."""
    if instance.activities or family.decision is None or instance.calendar is None:
        raise SchedcError.at("E703", f"instance {instance.name!r} (family {instance.family}) is not a slot schedule: "
                             "rosters and timetables are drawn for families that assign slots",
                             hint="interval families are drawn as Gantt charts (plot_gantt)")
    d = family.decision
    return d.agent, d.value, d.grain, d.free


def _names(instance: Instance, cls: str) -> list[str]:
    return [e.name for e in instance.entities if e.cls == cls]


Located = list[tuple[tuple[str, ...], int | None]]


def _hard_violations(instance: Instance, family: Family, solution: Solution) -> Located:
    """(entities, day) of every hard violation of the solution (names as in the IR)."""
    from schedc.verify.evaluate import evaluate, make_context

    evaluation = evaluate(make_context(instance, family), solution)
    return [(v.entities, v.day) for v in evaluation.violations]


def roster_grid(instance: Instance, family: Family, solution: Solution) -> Grid:
    """Agents × days: each cell the values assigned to that agent that day (the free value left out)."""
    agent_cls, value_cls, _, free = _decision(instance, family)
    agents = _names(instance, agent_cls)
    values = set(_names(instance, value_cls))
    rows = {a: i for i, a in enumerate(agents)}
    days = instance.calendar.days if instance.calendar else 0
    cells: dict[tuple[int, int], list[str]] = {}
    for a in solution.assignments:
        if a.agent in rows and 0 <= a.day < days and a.value != free:
            cells.setdefault((rows[a.agent], a.day), []).append(a.value)
    marked, marked_rows, marked_days = set(), set(), set()
    for entities, day in _hard_violations(instance, family, solution):
        for name in entities:
            if name in rows and day is not None and 0 <= day < days:
                marked.add((rows[name], day))
            elif name in rows:
                marked_rows.add(rows[name])
            elif name in values and day is not None:  # a cover requirement of that day
                marked_days.add(day)
    return Grid(rows=agents, columns=[(d, 0) for d in range(days)], cells=cells, marked=marked,
                marked_rows=marked_rows, marked_days=marked_days)


def timetable_grid(instance: Instance, family: Family, solution: Solution) -> Grid:
    """Values (rooms) × (day, period): each cell the agents (courses) placed there."""
    _, value_cls, _, _ = _decision(instance, family)
    rooms = _names(instance, value_cls)
    rows = {r: i for i, r in enumerate(rooms)}
    cal = instance.calendar
    assert cal is not None
    columns = [(d, p) for d in range(cal.days) for p in range(cal.periods_per_day)]
    column = {slot: k for k, slot in enumerate(columns)}
    cells: dict[tuple[int, int], list[str]] = {}
    for a in solution.assignments:
        if a.value in rows and (a.day, a.period) in column:
            cells.setdefault((rows[a.value], column[(a.day, a.period)]), []).append(a.agent)
    marked: set[tuple[int, int]] = set()
    for entities, day in _hard_violations(instance, family, solution):
        named = set(entities)
        for (row, col), agents in cells.items():
            if columns[col][0] == day and (named & set(agents)):
                marked.add((row, col))
    return Grid(rows=rooms, columns=columns, cells=cells, marked=marked, marked_rows=set())


def _draw_grid(ax: Axes, grid: Grid, colours: dict[str, str], kind: str) -> None:
    """One rectangle per cell (coloured by its first label), its labels as text, violations framed."""
    fits = _cell_width_in(len(grid.columns)) >= 0.22
    for r, row in enumerate(grid.rows):
        for c, (day, period) in enumerate(grid.columns):
            labels = grid.cells.get((r, c), [])
            colour = colours.get(labels[0], FREE_COLOUR) if labels else FREE_COLOUR
            ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, facecolor=colour, edgecolor="#bbbbbb", linewidth=0.4,
                                   gid=f"cell-{row}-{day}-{period}"))
            if labels and fits:
                ax.text(c, r, "+".join(labels), ha="center", va="center", fontsize=FONT_PT - 1, clip_on=True,
                        color=text_colour(colour), gid=f"label-{row}-{day}-{period}")
            if (r, c) in grid.marked:
                ax.add_patch(Rectangle((c - 0.45, r - 0.45), 0.9, 0.9, fill=False, edgecolor=VIOLATION_COLOUR,
                                       linewidth=1.6, zorder=3, gid=f"violation-{row}-{day}-{period}"))
    ax.set_xlim(-0.5, len(grid.columns) - 0.5)
    ax.set_ylim(len(grid.rows) - 0.5, -0.5)
    ax.set_yticks(range(len(grid.rows)), labels=grid.rows, fontsize=FONT_PT + 1)
    for r in grid.marked_rows:
        ax.get_yticklabels()[r].set_color(VIOLATION_COLOUR)
    ax.tick_params(length=0)
    ax.set_title(kind, fontsize=FONT_PT + 2, loc="left")


def _cell_width_in(columns: int) -> float:
    return WIDTH_IN * 0.72 / max(columns, 1)


def _legend(ax: Axes, colours: dict[str, str], title: str, violations: bool) -> None:
    handles = [Patch(facecolor=c, edgecolor="#bbbbbb", label=k) for k, c in colours.items()] \
        if len(colours) <= MAX_LEGEND else []
    if violations:
        handles.append(Patch(facecolor="none", edgecolor=VIOLATION_COLOUR, linewidth=1.6, label="hard violation"))
    if handles:
        ax.legend(handles=handles, title=title, loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=FONT_PT,
                  title_fontsize=FONT_PT + 1, frameon=False)


def _day_ticks(instance: Instance, columns: Sequence[tuple[int, int]], periods: int) -> tuple[list[float], list[str]]:
    """Tick positions and labels: one per day (its index, and its weekday's first letters when known)."""
    cal = instance.calendar
    ticks, labels = [], []
    for k, (day, period) in enumerate(columns):
        if period == 0:
            weekday = cal.weekday(day) if cal is not None else None
            ticks.append(k + (periods - 1) / 2)
            labels.append(f"{day}\n{weekday[:2]}" if weekday else str(day))
    return ticks, labels


def plot_roster(instance: Instance, family: Family, solution: Solution, out: Path, title: str | None = None) -> Path:
    """The roster heat map of a day-grained slot schedule (agents × days), written to ``out``."""
    output_format(out)
    return save(roster_figure(instance, family, solution, title), out)


def roster_figure(instance: Instance, family: Family, solution: Solution, title: str | None = None) -> Figure:
    """The figure of :func:`plot_roster`."""
    grid = roster_grid(instance, family, solution)
    values = [v for v in _names(instance, family.decision.value if family.decision else "") if v != _decision(
        instance, family)[3]]
    colours = palette(values)
    fig = new_figure(0.9 + ROW_IN * len(grid.rows) + 0.6)
    ax = fig.subplots()
    _draw_grid(ax, grid, colours, "roster")
    ticks, labels = _day_ticks(instance, grid.columns, 1)
    ax.set_xticks(ticks, labels=labels, fontsize=FONT_PT)
    for day in grid.marked_days:  # e.g. a shift short of its cover that day
        ax.get_xticklabels()[day].set_color(VIOLATION_COLOUR)
    ax.set_xlabel("day (IR numbering, from 0)")
    _legend(ax, colours, family.decision.value if family.decision else "value", bool(grid.marked or grid.marked_rows))
    fig.suptitle(title or f"{instance.name} ({instance.family}): roster")
    return fig


def plot_timetable(instance: Instance, family: Family, solution: Solution, out: Path,
                   title: str | None = None) -> Path:
    """The timetable grid of a period-grained slot schedule (rooms × day/period), written to ``out``."""
    output_format(out)
    return save(timetable_figure(instance, family, solution, title), out)


def timetable_figure(instance: Instance, family: Family, solution: Solution, title: str | None = None) -> Figure:
    """The figure of :func:`plot_timetable`."""
    grid = timetable_grid(instance, family, solution)
    agent_cls = _decision(instance, family)[0]
    colours = palette(_names(instance, agent_cls))
    periods = instance.calendar.periods_per_day if instance.calendar else 1
    fig = new_figure(0.9 + 2 * ROW_IN * len(grid.rows) + 0.6)
    ax = fig.subplots()
    _draw_grid(ax, grid, colours, "timetable")
    for k in range(periods, len(grid.columns), periods):
        ax.axvline(k - 0.5, color="black", linewidth=1.2, gid=f"day-{k // periods}")
    ticks, labels = _day_ticks(instance, grid.columns, periods)
    ax.set_xticks(ticks, labels=labels, fontsize=FONT_PT)
    ax.set_xlabel(f"day (periods 0..{periods - 1} left to right)")
    _legend(ax, colours, agent_cls, bool(grid.marked))
    fig.suptitle(title or f"{instance.name} ({instance.family}): timetable")
    return fig


def plot_slots(instance: Instance, family: Family, solution: Solution, out: Path, title: str | None = None) -> Path:
    """A roster for a day-grained slot family, a timetable for a period-grained one."""
    grain = _decision(instance, family)[2]
    draw = plot_roster if grain == "day" else plot_timetable
    return draw(instance, family, solution, out, title)
