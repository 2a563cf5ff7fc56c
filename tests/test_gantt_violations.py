"""Gantt charts of infeasible answers: every bar visible, the verifier's hard violations drawn, and a
500-operation chart that stays legible.

The expectations are computed here from the schedule itself (which bars overlap on a machine, which
job steps start before their predecessor ends, which bars leave their window), not read back from
the plotting code; the count in the title is the one ``schedc check`` gives. Shapes are found by
their SVG ids (``bar-…``, ``violation-…``, ``breach-…``, ``precedence-…``, ``bound-…``).
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import msgspec
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.patches import Rectangle
from typer.testing import CliRunner

from schedc.backends.search.heuristics import serial_schedule
from schedc.cli import app
from schedc.core.solution import Solution
from schedc.ir import Instance
from schedc.lang.load import load_instance
from schedc.lang.parser import parse_instance_text
from schedc.plotting import gantt_figure, job_gantt_figure
from schedc.plotting.bars import BAR_HEIGHT, MAX_KEYS
from schedc.plotting.lanes import LaneLayout, assign_tracks
from schedc.verify.verifier import Verifier

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def example(name: str) -> Instance:
    return load_instance(EXAMPLES / f"{name}.sched")


def all_at_zero(instance: Instance) -> Solution:
    return Solution(starts={a.name: 0 for a in instance.activities}, modes={a.name: 1 for a in instance.activities})


def patches(fig, prefix: str) -> dict[str, Rectangle]:
    return {p.get_gid(): p for ax in fig.axes for p in ax.patches if (p.get_gid() or "").startswith(prefix)}


def gids(fig, prefix: str) -> set[str]:
    found = {a.get_gid() for ax in fig.axes for a in [*ax.patches, *ax.texts, *ax.lines, *ax.artists]}
    return {g for g in found if g and g.startswith(prefix)}


def spans(instance: Instance, solution: Solution) -> dict[str, tuple[int, int, str]]:
    """activity → (start, end, machine) of a job-shop solution (single mode, one machine each)."""
    out = {}
    for a in instance.activities:
        mode = a.modes[solution.modes.get(a.name, 1) - 1]
        start = solution.starts[a.name]
        out[a.name] = (start, start + mode.duration, mode.uses[0].resource)
    return out


def union(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


# ---------------------------------------------------------------------------- tracks


def test_tracks_are_an_interval_partition_with_as_few_tracks_as_bars_at_once() -> None:
    rng = random.Random(3)
    for _ in range(50):
        bars = [(f"b{k}", s, s + rng.randrange(1, 6)) for k, s in enumerate(rng.randrange(20) for _ in range(12))]
        track = assign_tracks(bars)
        for (a, sa, ea), (b, sb, eb) in itertools.combinations(bars, 2):
            if track[a] == track[b]:
                assert ea <= sb or eb <= sa  # one track never holds two bars running at once
        busiest = max(sum(s <= t < e for _, s, e in bars) for t in range(30))
        assert 1 + max(track.values()) == max(busiest, 1)  # the fewest tracks possible


def test_a_feasible_schedule_keeps_one_track_per_lane_and_draws_no_violation() -> None:
    for name in ("ft06", "fjsp_small", "rcpsp_small", "dfjsp_small"):
        instance = example(name)
        fig = gantt_figure(instance, serial_schedule(instance))
        assert not gids(fig, "violation-") and not gids(fig, "breach-") and not gids(fig, "precedence-")
        top = fig.axes[0]
        if name != "rcpsp_small":  # a machine Gantt: lane i centred at i, as before tracks existed
            assert [t for t in top.get_yticks()] == list(range(len(top.get_yticklabels())))


# ---------------------------------------------------------------------------- ft06, every start 0


@pytest.fixture(scope="module")
def ft06_zero() -> tuple[Instance, Solution, object]:
    instance = example("ft06")
    solution = all_at_zero(instance)
    return instance, solution, gantt_figure(instance, solution)


def test_every_bar_of_an_overlapping_answer_is_visible_and_labelled(ft06_zero) -> None:
    """Before: the six bars of each machine were drawn on top of each other, labels over labels."""
    instance, solution, fig = ft06_zero
    bars = patches(fig, "bar-")
    assert len(bars) == 36
    for (ga, a), (gb, b) in itertools.combinations(bars.items(), 2):
        same_time = a.get_x() < b.get_x() + b.get_width() and b.get_x() < a.get_x() + a.get_width()
        same_height = abs(a.get_y() - b.get_y()) < BAR_HEIGHT
        assert not (same_time and same_height), (ga, gb)  # no bar covers another
    labels = {t.get_gid(): t.get_text() for ax in fig.axes for t in ax.texts
              if (t.get_gid() or "").startswith("label-")}
    assert {g.removeprefix("label-bar-").split("-")[1] for g in labels} == {a.name for a in instance.activities}
    assert all(labels[f"label-{g}"] == g.split("-")[2] for g in bars)  # each name inside its own bar
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert ticks == [f"M{k}" for k in range(1, 7)]


def test_overlaps_are_hatched_where_the_bars_overlap(ft06_zero) -> None:
    instance, solution, fig = ft06_zero
    where = spans(instance, solution)
    expected: dict[str, list[tuple[int, int]]] = {}
    for (a, (sa, ea, ma)), (b, (sb, eb, mb)) in itertools.combinations(where.items(), 2):
        if ma == mb and max(sa, sb) < min(ea, eb):
            for x in (a, b):
                expected.setdefault(x, []).append((max(sa, sb), min(ea, eb)))
    drawn: dict[str, list[tuple[int, int]]] = {}
    for gid, patch in patches(fig, "breach-").items():
        activity = gid.removeprefix("breach-bar-").split("-")[1]
        drawn.setdefault(activity, []).append((round(patch.get_x()), round(patch.get_x() + patch.get_width())))
    assert {a: sorted(r) for a, r in drawn.items()} == {a: union(r) for a, r in expected.items()}
    assert set(patches(fig, "violation-")) == {f"violation-{g}" for g in patches(fig, "bar-")}  # all framed


def test_violated_precedences_are_arrows_from_end_to_start(ft06_zero) -> None:
    instance, solution, fig = ft06_zero
    where = spans(instance, solution)
    steps = sorted((a.job, a.step, a.name) for a in instance.activities)
    expected = {f"precedence-{a}-{b}" for (ja, _, a), (jb, _, b) in itertools.pairwise(steps)
                if ja == jb and where[b][0] < where[a][1]}
    arrows = {t.get_gid(): t for t in fig.axes[0].texts if (t.get_gid() or "").startswith("precedence-")}
    assert set(arrows) == expected and len(expected) == 30
    for gid, arrow in arrows.items():
        first, second = gid.removeprefix("precedence-").split("-")
        assert arrow.xyann[0] == where[first][1] and arrow.xy[0] == where[second][0]


def test_the_title_counts_what_check_counts(ft06_zero) -> None:
    instance, solution, fig = ft06_zero
    report = Verifier(instance).check("\n".join(f"Job {a.job[1:]} step {a.step}: start=0" for a in
                                                instance.activities))
    summary = fig.axes[0].get_title(loc="left")
    assert summary.startswith(f"INFEASIBLE: {report.hard_violations} hard violations (")
    assert report.hard_violations == 120 and "90 unary_no_overlap" in summary and "30 precedence_lag" in summary
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert {"in a hard violation", "overlap / outside window", "violated precedence"} <= set(legend)


def test_the_job_view_marks_the_same_violations(ft06_zero) -> None:
    instance, solution, _ = ft06_zero
    fig = job_gantt_figure(instance, solution)
    assert len(patches(fig, "violation-")) == 36 and len(gids(fig, "precedence-")) == 30
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == [f"J{k}" for k in range(1, 7)]


# ---------------------------------------------------------------------------- windows and downtime


def test_a_broken_release_date_and_work_in_a_downtime_are_drawn() -> None:
    instance = example("dfjsp_small")
    solution = serial_schedule(instance)
    windows = [(w.target, w.release) for c in instance.constraints if type(c).__struct_config__.tag == "time_window"
               for w in c.windows if w.release > 0]
    target, release = windows[0]
    [first] = [a for a in instance.activities if a.name == target or (a.job == target and a.step == 1)][:1]
    early = msgspec.structs.replace(solution, starts={**solution.starts, first.name: release - 1})
    fig = gantt_figure(instance, early)
    [bound] = [g for g in gids(fig, "bound-") if g.endswith(f"-{first.name}-release")]
    line = next(ln for ax in fig.axes for ln in ax.lines if ln.get_gid() == bound)
    assert list(line.get_xdata()) == [release, release]
    breach = [p for g, p in patches(fig, "breach-").items() if f"-{first.name}-" in g]
    assert [(p.get_x(), p.get_x() + p.get_width()) for p in breach] == [(release - 1, release)]
    assert any(g.endswith(f"-{first.name}") for g in patches(fig, "violation-"))


def test_the_plot_command_draws_an_infeasible_answer(tmp_path: Path) -> None:
    answer = tmp_path / "zero.txt"
    answer.write_text("".join(f"Job {j} step {k}: start=0\n" for j in range(1, 7) for k in range(1, 7)))
    out = tmp_path / "g.svg"
    done = CliRunner().invoke(app, ["plot", str(EXAMPLES / "ft06.sched"), str(answer), "-o", str(out)])
    assert done.exit_code == 0, done.output
    svg = out.read_text(encoding="utf-8")
    assert svg.count('id="violation-bar-') == 36 and svg.count('id="precedence-') == 30
    assert "INFEASIBLE: 120 hard violations" in svg


# ---------------------------------------------------------------------------- 500 operations


def big_shop(jobs: int = 50, machines: int = 10, seed: int = 7) -> Instance:
    """A random 50 × 10 job shop (500 operations)."""
    rng = random.Random(seed)
    rows = []
    for j in range(1, jobs + 1):
        order = rng.sample(range(1, machines + 1), machines)
        rows.append(f"  J{j} " + " ".join(f"M{m}:{rng.randrange(1, 40)}" for m in order))
    routes = [f"  J{j}.{k} -> J{j}.{k + 1}" for j in range(1, jobs + 1) for k in range(1, machines)]
    text = "\n".join(["instance big family jobshop", "resources table",
                      *[f"  M{m} unary" for m in range(1, machines + 1)], "end", "jobs table", *rows, "end",
                      "hard precedence_lag routes table", *routes, "end", "hard unary_no_overlap machines",
                      "hard mode_choice modes", "minimize makespan", ""])
    return parse_instance_text(text)


@pytest.mark.parametrize(("jobs", "machines"), [(50, 10), (12, 10)])
def test_a_500_operation_chart_is_legible(jobs: int, machines: int) -> None:
    """Before: 400+ numeric keys above the bars ran into each other, and their list covered the time
    axis. 120 operations: some keys, none on another; 500: too many short bars for keys, none given."""
    instance = big_shop(jobs, machines)
    assert len(instance.activities) == jobs * machines
    fig = gantt_figure(instance, serial_schedule(instance))
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    ax = fig.axes[0]
    [key] = [lg for lg in fig.legends if lg.get_gid() == "key-legend"]
    below = key.get_window_extent(renderer)
    axis = ax.get_tightbbox(renderer)  # the axes with its tick labels and the "time" label
    assert below.y1 <= axis.y0 + 1  # the key sits under the time axis, not on it
    texts = [t for t in ax.texts if (t.get_gid() or "").startswith("label-")]
    boxes = [t.get_window_extent(renderer) for t in texts]
    for (ta, a), (tb, b) in itertools.combinations(zip(texts, boxes, strict=True), 2):
        assert not a.overlaps(b) or a.width * a.height == 0, (ta.get_text(), tb.get_text())  # no label on a label
    keyed = {t.get_text() for t in texts if t.get_text().isdigit()}
    assert len(keyed) <= MAX_KEYS and len(key.get_texts()) == len(keyed)  # every key drawn is explained
    assert (len(keyed) > 10) == (jobs * machines == 120)
    unlabelled = jobs * machines - len(texts)
    assert unlabelled > 0 and f"{unlabelled} {'more ' if keyed else ''}bars too short for a label" \
        in key.get_title().get_text()


def test_lane_layout_centres_names_on_their_tracks() -> None:
    layout, track = LaneLayout.of(["M1", "M2"], [(0, "a", 0, 5), (0, "b", 2, 6), (0, "c", 3, 4), (1, "d", 0, 1)])
    assert layout.tracks == (3, 1) and layout.total == 4
    assert [layout.y(0, track[k]) for k in "abc"] == [0.0, 1.0, 2.0] and layout.y(1) == 3.0
    assert layout.centre(0) == 1.0 and layout.centre(1) == 3.0
