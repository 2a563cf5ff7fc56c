"""Plots of schedules, written with matplotlib (PNG, SVG or PDF by suffix).

A stage (see ``tests/test_import_graph.py``). Takes in an instance and a solution (or an answer read by
the verifier); gives out image files. Imports the stages below; never benchmarks, dynamic shops
(whose event timeline is drawn in :mod:`schedc.dynamic.timeline_plot`) or the CLI.

* :func:`plot_gantt` — the schedule of an interval instance: a machine Gantt for unary
  resources, usage profiles and an activity Gantt for renewable ones;
* :func:`plot_job_gantt` — one lane per job, bars coloured by machine;
* :func:`plot_roster` / :func:`plot_timetable` (:func:`plot_slots` picks by the family's grain) —
  a slot schedule as an agents × days heat map or a rooms × periods grid, violations marked;
* :func:`plot_metric_curves` — generic curves (a metric per iteration) with target lines;
* :func:`gantt_table` / :func:`format_gantt_table` / :func:`downtime_rows` — the data behind
  the Gantt, as rows and as aligned text.

Every problem (an unknown suffix, an empty schedule, a slot instance) is a
:class:`~schedc.core.diagnostics.SchedcError`: E701 format, E702 nothing to plot, E703 not an
interval instance, E704 cannot write, E705 solution does not fit the instance, E706 no jobs.
"""

from schedc.plotting.curves import plot_metric_curves
from schedc.plotting.data import (
    DowntimeRow,
    GanttRow,
    ScheduledActivity,
    downtime_rows,
    format_gantt_table,
    gantt_table,
    load_profile,
    scheduled_activities,
    solution_from_answer,
)
from schedc.plotting.gantt import gantt_figure, job_gantt_figure, plot_gantt, plot_job_gantt
from schedc.plotting.output import FORMATS
from schedc.plotting.slots import (
    plot_roster,
    plot_slots,
    plot_timetable,
    roster_figure,
    roster_grid,
    timetable_figure,
    timetable_grid,
)

__all__ = [
    "FORMATS", "DowntimeRow", "GanttRow", "ScheduledActivity",
    "downtime_rows", "format_gantt_table", "gantt_table", "load_profile", "scheduled_activities",
    "solution_from_answer", "plot_gantt", "plot_job_gantt", "plot_metric_curves",
    "plot_roster", "plot_slots", "plot_timetable", "roster_grid", "timetable_grid", "gantt_figure",
    "job_gantt_figure", "roster_figure", "timetable_figure",
]
