"""Plots: the Gantt table (snapshot), the files each plot writes, and the errors it reports.

Schedules come from the serial heuristic, which is deterministic and valid by construction,
so the snapshot does not depend on which optimum a solver finds. SVG bars carry ids
(``bar-…``, ``downtime-…``, ``outage-…``, ``series-…``) so tests count shapes exactly instead
of guessing how many ``<path>`` elements matplotlib emits for axes and text.

Snapshot: ``tests/__snapshots__/test_plots.ambr`` (update with ``pytest --snapshot-update``).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import msgspec
import pytest

from schedc.backends.search.heuristics import serial_schedule
from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.dynamic.timeline_plot import plot_event_timeline
from schedc.dynamic.world import Event, Job, Machine, Operation, Outage, World
from schedc.ir import Instance
from schedc.kinds import Constraint
from schedc.lang.load import load_instance
from schedc.plotting import (
    DowntimeRow,
    GanttRow,
    downtime_rows,
    format_gantt_table,
    gantt_table,
    load_profile,
    plot_gantt,
    plot_job_gantt,
    plot_metric_curves,
    solution_from_answer,
)
from schedc.verify.verifier import Verifier
from tests.conftest import ROOT

EXAMPLES = ROOT / "examples"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SCHEDULED = ("ft06", "fjsp_small", "rcpsp_small", "mrcpsp_small")


@cache
def example(name: str) -> Instance:
    return load_instance(EXAMPLES / f"{name}.sched")


@cache
def schedule(name: str) -> Solution:
    return serial_schedule(example(name))


def ids(svg: str, prefix: str) -> list[str]:
    """The element ids of an SVG starting with ``prefix``."""
    return re.findall(rf'id="({re.escape(prefix)}[^"]*)"', svg)


def code_of(excinfo: pytest.ExceptionInfo[SchedcError]) -> str:
    return excinfo.value.diagnostics[0].code


def assert_png(path: Path) -> None:
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 8_000


# A stand-in for the lead's ResourceDowntime kind with the same tag and fields: the plots read
# downtime by tag name, so this proves they work whether or not the real kind is registered.
class _Window(msgspec.Struct, frozen=True, kw_only=True):
    resource: str
    start: int
    end: int
    label: str = ""


class _Downtime(Constraint, frozen=True, kw_only=True, tag="resource_downtime"):
    windows: tuple[_Window, ...] = ()


def with_downtime(instance: Instance, *windows: tuple[str, int, int, str], active: bool = True) -> Instance:
    down = _Downtime(id="down", active=active, windows=tuple(_Window(resource=r, start=s, end=e, label=lbl)
                                                             for r, s, e, lbl in windows))
    return msgspec.structs.replace(instance, constraints=(*instance.constraints, down))


# ---------------------------------------------------------------------------- the Gantt table


def test_gantt_table_snapshot(snapshot) -> None:
    assert format_gantt_table(gantt_table(example("ft06"), schedule("ft06"))) == snapshot


@pytest.mark.parametrize("name", SCHEDULED)
def test_gantt_table_has_a_row_per_use_in_resource_then_start_order(name: str) -> None:
    instance, solution = example(name), schedule(name)
    rows = gantt_table(instance, solution)
    uses = sum(len(a.modes[solution.modes[a.name] - 1].uses) for a in instance.activities)
    assert len(rows) == uses
    order = {r.name: i for i, r in enumerate(instance.resources)}
    keys = [(order[r.resource], r.start, r.activity) for r in rows]
    assert keys == sorted(keys)
    durations = {a.name: a.modes[solution.modes[a.name] - 1].duration for a in instance.activities}
    assert all(r.end - r.start == durations[r.activity] for r in rows)


def test_gantt_table_ignores_the_order_of_the_solution() -> None:
    solution = schedule("fjsp_small")
    shuffled = Solution(starts=dict(reversed(solution.starts.items())), modes=dict(reversed(solution.modes.items())))
    assert gantt_table(example("fjsp_small"), shuffled) == gantt_table(example("fjsp_small"), solution)


def test_format_gantt_table_aligns_columns_and_marks_missing_values() -> None:
    rows = [GanttRow(resource="R1", activity="A10", start=0, end=12, mode=2, amount=3),
            GanttRow(resource="M2", activity="J1.1", start=5, end=7, mode=1, job="J1", step=1)]
    assert format_gantt_table(rows).splitlines() == [
        "resource  activity  job  step  mode  start  end  amount",
        "R1        A10       -       -     2      0   12       3",
        "M2        J1.1      J1      1     1      5    7       1",
    ]


def test_load_profile_is_a_step_function_of_the_summed_amounts() -> None:
    rows = [GanttRow(resource="R", activity=a, start=s, end=e, mode=1, amount=q)
            for a, s, e, q in [("A", 0, 3, 2), ("B", 3, 5, 2), ("C", 2, 4, 1), ("Z", 6, 6, 5)]]
    assert load_profile(rows) == [(0, 2), (2, 3), (4, 2), (5, 0)]
    assert load_profile([]) == [(0, 0)]


def test_downtime_rows_read_active_downtime_constraints_by_tag() -> None:
    instance = with_downtime(example("ft06"), ("M2", 30, 34, "repair"), ("M1", 10, 12, ""))
    instance = with_downtime(instance, ("M3", 0, 5, "ignored"), active=False)
    assert downtime_rows(instance) == [DowntimeRow(resource="M1", start=10, end=12),
                                       DowntimeRow(resource="M2", start=30, end=34, label="repair")]
    assert downtime_rows(example("ft06")) == []


def test_downtime_rows_read_the_registered_kind() -> None:
    timing = pytest.importorskip("schedc.kinds.timing")
    down = timing.ResourceDowntime(id="down", windows=(timing.Downtime(resource="M4", start=3, end=9, label="pm"),))
    instance = msgspec.structs.replace(example("ft06"), constraints=(*example("ft06").constraints, down))
    assert downtime_rows(instance) == [DowntimeRow(resource="M4", start=3, end=9, label="pm")]


# ---------------------------------------------------------------------------- schedule plots


@pytest.mark.parametrize("name", SCHEDULED)
def test_plot_gantt_writes_png(name: str, tmp_path: Path) -> None:
    out = plot_gantt(example(name), schedule(name), tmp_path / f"{name}.png")
    assert out == tmp_path / f"{name}.png"
    assert_png(out)
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left behind


@pytest.mark.parametrize("name", ["ft06", "fjsp_small"])
def test_machine_gantt_svg_has_a_bar_per_operation(name: str, tmp_path: Path) -> None:
    svg = plot_gantt(example(name), schedule(name), tmp_path / "g.svg").read_text()
    rows = gantt_table(example(name), schedule(name))
    assert "<svg" in svg
    assert sorted(ids(svg, "bar-")) == sorted(f"bar-{r.resource}-{r.activity}" for r in rows)
    assert svg.count("<path") >= len(rows)
    assert ids(svg, "makespan") and not ids(svg, "profile-")


@pytest.mark.parametrize("name", ["rcpsp_small", "mrcpsp_small"])
def test_renewable_instance_gets_profiles_and_an_activity_gantt(name: str, tmp_path: Path) -> None:
    instance = example(name)
    svg = plot_gantt(instance, schedule(name), tmp_path / "p.svg", title="custom title").read_text()
    renewable = [r.name for r in instance.resources if r.kind == "renewable"]
    assert ids(svg, "profile-") == [f"profile-{r}" for r in renewable]
    assert sorted(ids(svg, "bar-")) == sorted(f"bar-{a.name}" for a in instance.activities)
    assert "custom title" in svg and not ids(svg, "overload-")


def test_overloaded_profile_is_marked(tmp_path: Path) -> None:
    instance = example("rcpsp_small")
    everything_at_once = Solution(starts={a.name: 0 for a in instance.activities})
    svg = plot_gantt(instance, everything_at_once, tmp_path / "over.svg").read_text()
    assert ids(svg, "overload-") == ["overload-R1", "overload-R2"]


def with_registered_downtime(instance: Instance, *windows: tuple[str, int, int, str]) -> Instance:
    """The instance with the registered ``resource_downtime`` kind (a Gantt evaluates the answer's violations,
    which needs the kind's meaning, not only its fields)."""
    from schedc.kinds.timing import Downtime, ResourceDowntime

    down = ResourceDowntime(id="down", windows=tuple(Downtime(resource=r, start=s, end=e, label=lbl)
                                                     for r, s, e, lbl in windows))
    return msgspec.structs.replace(instance, constraints=(*instance.constraints, down))


def test_downtime_is_hatched_on_its_machine_lane(tmp_path: Path) -> None:
    instance = with_registered_downtime(example("ft06"), ("M2", 30, 34, "repair"), ("M5", 2, 6, ""))
    svg = plot_gantt(instance, schedule("ft06"), tmp_path / "down.svg").read_text()
    assert ids(svg, "downtime-") == ["downtime-M2-30", "downtime-M5-2"]
    assert "downtime" in svg and ">repair<" in svg  # the legend entry and the window's label


def test_plot_job_gantt_has_a_lane_per_job_and_a_bar_per_operation(tmp_path: Path) -> None:
    instance = example("ft06")
    svg = plot_job_gantt(instance, schedule("ft06"), tmp_path / "jobs.svg").read_text()
    assert sorted(ids(svg, "bar-")) == sorted(f"bar-{a.name}" for a in instance.activities)
    assert all(f">{job}<" in svg for job in ("J1", "J6"))
    assert_png(plot_job_gantt(example("fjsp_small"), schedule("fjsp_small"), tmp_path / "jobs.png"))


def test_svg_output_is_reproducible(tmp_path: Path) -> None:
    first = plot_gantt(example("fjsp_small"), schedule("fjsp_small"), tmp_path / "a.svg").read_bytes()
    second = plot_gantt(example("fjsp_small"), schedule("fjsp_small"), tmp_path / "b.svg").read_bytes()
    assert first == second


def test_pdf_output(tmp_path: Path) -> None:
    assert plot_gantt(example("ft06"), schedule("ft06"), tmp_path / "g.pdf").read_bytes().startswith(b"%PDF")


def test_answer_text_becomes_the_plotted_solution() -> None:
    verifier = Verifier(example("fjsp_small"))
    solution = solution_from_answer(verifier, "Here is my plan:\n" + verifier.write(schedule("fjsp_small")))
    assert (solution.starts, solution.modes) == (schedule("fjsp_small").starts, schedule("fjsp_small").modes)
    with pytest.raises(SchedcError) as excinfo:
        solution_from_answer(verifier, "I could not find a schedule.")
    assert code_of(excinfo) == "E702"


# ---------------------------------------------------------------------------- dynamic shop timeline


def tiny_world() -> World:
    machines = (Machine(name="M1", group="G1", speed=1.0), Machine(name="M2", group="G1", speed=1.2))
    op = Operation(name="J1.1", job="J1", step=1, group="G1", durations=(("M1", 4), ("M2", 3)))
    jobs = (Job(name="J1", release=0, due=20, weight=1, template="T", operations=(op,)),
            Job(name="J2", release=5, due=30, weight=2, template="T", operations=()))
    gone = (Job(name="J3", release=7, due=25, weight=1, template="T", operations=()),)
    outages = (Outage(machine="M1", start=8, end=12, cause="breakdown"),
               Outage(machine="M2", start=15, end=18, cause="maintenance"))
    events = (Event(time=0, type="maintenance", op=None, new="M2:15-18"),
              Event(time=5, type="batch_arrival", job="J2"),
              Event(time=9, type="cancel", job="J3"),
              Event(time=10, type="due_date_change", job="J1", old="25", new="20"),
              Event(time=11, type="rework", job="J2", op="J2.1"),
              Event(time=8, type="breakdown", new="M1:8-12"))
    return World(name="tiny", machines=machines, jobs=jobs, outages=outages, events=events, cancelled=gone,
                 horizon=10)


def test_event_timeline_draws_events_and_outages(tmp_path: Path) -> None:
    svg = plot_event_timeline(tiny_world(), tmp_path / "events.svg").read_text()
    assert ids(svg, "events-") == ["events-batch_arrival", "events-cancel", "events-rework",
                                   "events-due_date_change", "events-breakdown", "events-maintenance"]
    assert ids(svg, "outage-") == ["outage-M1-8", "outage-M2-15"]
    assert ids(svg, "arrivals") and ids(svg, "horizon")
    assert "M2 (G1)" in svg and "cancellation" in svg
    assert_png(plot_event_timeline(tiny_world(), tmp_path / "events.png"))


def test_event_timeline_of_an_empty_world_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SchedcError) as excinfo:
        plot_event_timeline(World(name="void", machines=(), jobs=()), tmp_path / "void.png")
    assert code_of(excinfo) == "E702" and not (tmp_path / "void.png").exists()


# ---------------------------------------------------------------------------- metric curves


def test_metric_curves_with_targets(tmp_path: Path) -> None:
    series = {"ece": [0.3, 0.2, 0.12, 0.08], "brier": [0.25, 0.22, 0.2, 0.19], "empty": []}
    svg = plot_metric_curves(series, tmp_path / "curves.svg", targets={"ece": 0.1, "goal": 0.15},
                             xlabel="round", title="calibration").read_text()
    assert ids(svg, "series-") == ["series-ece", "series-brier", "series-empty"]
    assert ids(svg, "target-") == ["target-ece", "target-goal"]
    assert "empty (no values)" in svg and "round" in svg
    assert_png(plot_metric_curves(series, tmp_path / "curves.png", log_y=False))


def test_metric_curves_refuse_no_values_and_nonpositive_log_values(tmp_path: Path) -> None:
    with pytest.raises(SchedcError) as excinfo:
        plot_metric_curves({"a": []}, tmp_path / "c.png")
    assert code_of(excinfo) == "E702"
    with pytest.raises(SchedcError) as excinfo:
        plot_metric_curves({"a": [1.0, 0.0]}, tmp_path / "c.png", log_y=True)
    assert code_of(excinfo) == "E707" and "a" in str(excinfo.value)


# ---------------------------------------------------------------------------- errors


@pytest.mark.parametrize("suffix", ["out.jpg", "out", "out.PNG.txt"])
def test_unknown_suffix_is_refused_before_any_work(suffix: str, tmp_path: Path) -> None:
    with pytest.raises(SchedcError) as excinfo:
        plot_gantt(example("ft06"), Solution(), tmp_path / suffix)  # an empty schedule would be E702
    assert code_of(excinfo) == "E701" and ".png" in str(excinfo.value)
    assert not any(tmp_path.iterdir())


def test_upper_case_suffix_is_accepted(tmp_path: Path) -> None:
    assert_png(plot_gantt(example("ft06"), schedule("ft06"), tmp_path / "G.PNG"))


@pytest.mark.parametrize("plot", [plot_gantt, plot_job_gantt])
def test_empty_schedule_is_refused(plot, tmp_path: Path) -> None:
    with pytest.raises(SchedcError) as excinfo:
        plot(example("ft06"), Solution(), tmp_path / "empty.png")
    assert code_of(excinfo) == "E702" and "schedules none of the 36 activities" in str(excinfo.value)


def test_slot_instance_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SchedcError) as excinfo:
        plot_gantt(example("itc2007_small"), Solution(), tmp_path / "slots.png")
    assert code_of(excinfo) == "E703" and "interval families" in str(excinfo.value)
    with pytest.raises(SchedcError):
        gantt_table(example("itc2007_small"), Solution())


@pytest.mark.parametrize(("solution", "message"), [
    (Solution(starts={"J1.1": 0, "J9.9": 3}), "J9.9"),
    (Solution(starts={"J1.1": 0}, modes={"J1.1": 2}), "has no mode 2"),
])
def test_solution_that_does_not_fit_the_instance_is_refused(solution: Solution, message: str, tmp_path: Path) -> None:
    with pytest.raises(SchedcError) as excinfo:
        plot_gantt(example("ft06"), solution, tmp_path / "bad.png")
    assert code_of(excinfo) == "E705" and message in str(excinfo.value)


def test_job_gantt_of_an_instance_without_jobs_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SchedcError) as excinfo:
        plot_job_gantt(example("rcpsp_small"), schedule("rcpsp_small"), tmp_path / "jobs.png")
    assert code_of(excinfo) == "E706"


def test_unwritable_output_is_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(SchedcError) as excinfo:
        plot_gantt(example("ft06"), schedule("ft06"), blocker / "g.png")
    assert code_of(excinfo) == "E704"


# ---------------------------------------------------------------------------- what the pictures show
# Each figure is built (Agg, nothing written) and its artists read back: texts with their positions,
# cell rectangles and marks by gid. One picture per plot kind is also written and opened as an image.

from matplotlib.image import imread  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from schedc.core.solution import Assignment  # noqa: E402
from schedc.lang.family import load_family  # noqa: E402
from schedc.lang.parser import parse_instance_text  # noqa: E402
from schedc.plotting import gantt_figure, job_gantt_figure, plot_slots, roster_figure, timetable_figure  # noqa: E402


def texts_by_gid(fig) -> dict[str, object]:
    return {t.get_gid(): t for ax in fig.axes for t in ax.texts if t.get_gid()}


def patches_by_gid(fig, prefix: str) -> dict[str, Rectangle]:
    return {p.get_gid(): p for ax in fig.axes for p in ax.patches if (p.get_gid() or "").startswith(prefix)}


#: A feasible nsplib_small roster (CP-SAT's), one row of shifts per nurse (``-`` for Off).
ROSTER = {"N1": "S1 S1 - S1 S1 - -", "N2": "S2 S2 S2 - - - -", "N3": "- S1 S1 S1 - S1 S1", "N4": "S2 S2 - S2 S2 S1 -"}


def roster_solution(extra: tuple[Assignment, ...] = (Assignment(agent="N1", day=0, period=0, value="S2"),)) -> Solution:
    """The feasible roster, N1 also on S2 on day 0 (two shifts that day: hard violations on that cell only)."""
    cells = [Assignment(agent=n, day=d, period=0, value="Off" if v == "-" else v)
             for n, row in ROSTER.items() for d, v in enumerate(row.split())]
    return Solution(assignments=(*cells, *extra))


def test_the_roster_without_the_extra_shift_is_feasible() -> None:
    from schedc.verify.evaluate import evaluate, make_context

    assert evaluate(make_context(example("nsplib_small")), roster_solution(())).violations == ()


def test_roster_heat_map_shows_each_shift_in_its_cell_and_marks_violations() -> None:
    instance = example("nsplib_small")
    fig = roster_figure(instance, load_family("nsplib"), roster_solution())
    [ax] = fig.axes
    cells = patches_by_gid(fig, "cell-")
    assert len(cells) == 4 * 7
    assert [t.get_text() for t in ax.get_yticklabels()] == ["N1", "N2", "N3", "N4"]
    labels = texts_by_gid(fig)
    for nurse, row in ROSTER.items():
        for day, value in enumerate(row.split()):
            gid = f"label-{nurse}-{day}-0"
            if value == "-":  # a free day: white, no text
                assert gid not in labels and cells[f"cell-{nurse}-{day}-0"].get_facecolor() == (1, 1, 1, 1)
            else:
                assert labels[gid].get_text() == (value if (nurse, day) != ("N1", 0) else "S1+S2")
                assert labels[gid].get_position() == (day, list(ROSTER).index(nurse))  # column day, row nurse
    assert cells["cell-N2-0-0"].get_facecolor() == cells["cell-N4-1-0"].get_facecolor()  # both S2
    assert cells["cell-N2-0-0"].get_facecolor() != cells["cell-N3-1-0"].get_facecolor()  # S2 vs S1
    assert cells["cell-N1-0-0"].get_facecolor() == cells["cell-N3-1-0"].get_facecolor()  # by the first shift
    assert set(patches_by_gid(fig, "violation-")) == {"violation-N1-0-0"}
    assert all(t.get_color() != "#d62728" for t in ax.get_yticklabels())
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["S1", "S2", "hard violation"]


def timetable_solution() -> Solution:
    """itc2007_small: Math and Phys share room Aula in day 0 period 1 (a room clash)."""
    rows = [("Math", 0, 0, "Aula"), ("Math", 0, 1, "Aula"), ("Phys", 0, 1, "Aula"), ("Chem", 1, 2, "Lab")]
    return Solution(assignments=tuple(Assignment(agent=a, day=d, period=p, value=r) for a, d, p, r in rows))


def test_timetable_grid_shows_courses_per_room_and_period_and_marks_the_clash() -> None:
    instance = example("itc2007_small")
    cal = instance.calendar
    fig = timetable_figure(instance, load_family("itc2007"), timetable_solution())
    [ax] = fig.axes
    rooms = [t.get_text() for t in ax.get_yticklabels()]
    assert rooms == [e.name for e in instance.entities if e.cls == "room"]
    assert len(patches_by_gid(fig, "cell-")) == len(rooms) * cal.days * cal.periods_per_day
    labels = texts_by_gid(fig)
    clash = labels["label-Aula-0-1"]
    assert clash.get_text() == "Math+Phys" and clash.get_position() == (1, rooms.index("Aula"))
    assert labels["label-Lab-1-2"].get_position() == (cal.periods_per_day + 2, rooms.index("Lab"))
    assert "violation-Aula-0-1" in patches_by_gid(fig, "violation-")
    assert "violation-Lab-1-2" not in patches_by_gid(fig, "violation-")
    separators = [line for line in ax.lines if (line.get_gid() or "").startswith("day-")]
    assert len(separators) == cal.days - 1


def test_slot_pictures_are_written_and_open_as_images(tmp_path: Path) -> None:
    for name, family, solution in (("nsplib_small", "nsplib", roster_solution()),
                                   ("itc2007_small", "itc2007", timetable_solution())):
        out = plot_slots(example(name), load_family(family), solution, tmp_path / f"{name}.png")
        image = imread(out)
        assert image.ndim == 3 and image.shape[1] == 11 * 120  # the fixed width at 120 dpi


def test_plot_command_draws_a_roster_for_a_slot_family(tmp_path: Path) -> None:
    """An answer in the canonical names (``Nurse 1|1|Shift 1``, days from 1) drawn by ``schedc plot``."""
    from typer.testing import CliRunner

    from schedc.cli import app

    def shown(a: Assignment) -> str:
        value = a.value if a.value == "Off" else f"Shift {a.value[1:]}"
        return f"Nurse {a.agent[1:]}|{a.day + 1}|{value}"

    # N1 on S2 instead of S1 on day 0: a run of one S2 shift (min 2), a violation at that cell
    moved = [a if (a.agent, a.day) != ("N1", 0) else Assignment(agent="N1", day=0, period=0, value="S2")
             for a in roster_solution(()).assignments]
    answer = tmp_path / "answer.txt"
    answer.write_text("\n".join(shown(a) for a in moved), encoding="utf-8")
    result = CliRunner().invoke(app, ["plot", str(EXAMPLES / "nsplib_small.sched"), str(answer), "-o",
                                      str(tmp_path / "r.svg"), "--json"])
    assert result.exit_code == 0, result.output
    svg = (tmp_path / "r.svg").read_text(encoding="utf-8")
    assert len(ids(svg, "cell-")) == 28 and ids(svg, "violation-") == ["violation-N1-0-0"]


SHORT_BARS = """\
instance short family jobshop
resources table
  M1 unary
  M10 unary
  M2 unary
end
jobs table
  J1 M1:1 M2:40
  J2 M1:40 M10:1
  Job_with_a_long_name M10:1 M2:1
end
hard precedence_lag routes table
  J1.1 -> J1.2
  J2.1 -> J2.2
  Job_with_a_long_name.1 -> Job_with_a_long_name.2
end
hard unary_no_overlap machines
hard mode_choice modes
minimize makespan
"""


def test_short_bars_keep_their_labels_and_lanes_are_in_natural_order() -> None:
    instance = parse_instance_text(SHORT_BARS)
    fig = gantt_figure(instance, serial_schedule(instance))
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["M1", "M2", "M10"]
    labels = texts_by_gid(fig)
    bars = patches_by_gid(fig, "bar-")
    assert set(labels) == {f"label-{gid}" for gid in bars}  # every bar keeps a label
    [legend] = [lg for lg in fig.legends if lg.get_gid() == "key-legend"]
    keys = dict(t.get_text().split(" = ") for t in legend.get_texts())
    for gid, bar in bars.items():
        activity = gid.split("-", 2)[2]
        text = labels[f"label-{gid}"]
        assert text.get_text() == activity or keys[text.get_text()] == activity
        x, y = text.get_position()
        assert bar.get_x() <= x <= bar.get_x() + bar.get_width() + 3 and abs(y - bar.get_y() - 0.35) <= 0.36
    # the 1-unit bar of J1.1 is followed by J2.1 at once: no room beside it, so J1.1 is a key
    assert keys[labels["label-bar-M1-J1.1"].get_text()] == "J1.1"
    assert labels["label-bar-M2-J1.2"].get_text() == "J1.2"  # a long bar: its name inside


def test_release_and_due_dates_are_drawn_on_the_lanes_they_bound() -> None:
    instance = example("dfjsp_small")
    solution = serial_schedule(instance)
    fig = job_gantt_figure(instance, solution)
    ax = fig.axes[0]
    lanes = [t.get_text() for t in ax.get_yticklabels()]
    marks = {line.get_gid(): line for line in ax.lines if isinstance(line, Line2D) and line.get_gid()}
    windows = {w.target: w for c in instance.constraints if kind_of(c) == "time_window" for w in c.windows}
    dues = {d.target: d for c in instance.constraints if kind_of(c) == "tardiness" for d in c.due_dates}
    assert windows and dues
    job_of = {a.name: a.job for a in instance.activities} | {a.job: a.job for a in instance.activities}
    assert any(target in {a.name for a in instance.activities} for target in windows)  # a step's own release
    for target, w in windows.items():
        if w.release:
            line = marks[f"release-{target}"]
            assert (list(line.get_xdata()), list(line.get_ydata())) == ([w.release], [lanes.index(job_of[target])])
    for target, d in dues.items():
        line = marks[f"due-{target}"]
        assert (list(line.get_xdata()), list(line.get_ydata())) == ([d.due], [lanes.index(job_of[target])])
        assert ax.get_xlim()[1] > d.due  # a due date after the makespan is still inside the axis
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "release date" in legend and "due date" in legend
    machine_view = gantt_figure(instance, solution).axes[0]
    assert {line.get_gid() for line in machine_view.lines if line.get_gid()} >= {f"due-{j}" for j in dues}


def kind_of(c: Constraint) -> str:
    return type(c).__struct_config__.tag


def test_a_cover_short_on_a_day_marks_that_day() -> None:
    """N1 on S2 instead of S1 on day 0 leaves S1 uncovered that day: day 0's name is red, no other."""
    moved = [a if (a.agent, a.day) != ("N1", 0) else Assignment(agent="N1", day=0, period=0, value="S2")
             for a in roster_solution(()).assignments]
    fig = roster_figure(example("nsplib_small"), load_family("nsplib"), Solution(assignments=tuple(moved)))
    colours = [t.get_color() for t in fig.axes[0].get_xticklabels()]
    assert colours[0] == "#d62728" and all(c != "#d62728" for c in colours[1:])
    assert set(patches_by_gid(fig, "violation-")) == {"violation-N1-0-0"}  # the one-day S2 run
