"""The hard violations of an interval schedule, placed on a Gantt chart.

The violations are the shared evaluator's records (:func:`schedc.verify.evaluate.evaluate`, the
ones ``schedc check`` counts), read by the tag of their kind through :data:`SHAPES_BY_KIND`, never
judged again here. What is drawn, in red:

* every bar of an activity a hard violation names gets a red frame;
* an overlap of two activities on a unary resource (``unary_no_overlap``) hatches (in black, which
  shows on every bar colour) the part of each bar that runs during the other (the union over all
  its overlaps);
* a violated precedence (``precedence_lag``, and the kinds about one activity following another:
  ``setup_times``, ``no_idle``, ``consecutive``) draws an arrow from the end of the first bar to the
  start of the second;
* a violated time window (``time_window``) draws the window's bounds on the activity's bar (a red
  stroke at the release, deadline, latest start or earliest end it breaks) and hatches the part of
  the bar outside the window;
* work during a downtime (``resource_downtime``) hatches the part of the bar inside the downtime.

Overloads of a renewable resource are already red in its usage profile. A kind without an entry
here is drawn by its frames alone. Every shape carries an SVG id (``violation-…``, ``breach-…``,
``precedence-…``, ``bound-…``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from schedc.core.solution import Solution
from schedc.ir import Family, Instance
from schedc.kinds.base import Violation
from schedc.plotting.data import DOWNTIME_TAG, WINDOW_TAG, ScheduledActivity

VIOLATION_COLOUR = "#d62728"
#: The hatch of the part of a bar that breaks a constraint: black, which shows on every job colour (red
#: is one of them), under the bar's label and inside its red frame.
BREACH_STYLE = {"facecolor": "none", "edgecolor": "black", "hatch": "xxx", "linewidth": 0.0, "alpha": 0.55}


@dataclass
class ViolationShapes:
    """What the hard violations of one schedule draw, by activity (IR names)."""

    count: int = 0  # hard violations in all
    by_kind: dict[str, int] = field(default_factory=dict)
    flagged: set[str] = field(default_factory=set)  # activities named by a hard violation
    breaches: dict[str, list[tuple[int, int]]] = field(default_factory=dict)  # activity → [lo, hi) to hatch
    arrows: list[tuple[str, str]] = field(default_factory=list)  # (first, second) of a violated succession
    bounds: list[tuple[str, str, int]] = field(default_factory=list)  # (activity, bound name, time) broken

    def breach(self, activity: str, lo: int, hi: int) -> None:
        """Hatch ``[lo, hi)`` of ``activity``'s bar (an empty range is nothing)."""
        if hi > lo:
            self.breaches.setdefault(activity, []).append((lo, hi))


@dataclass(frozen=True)
class Located:
    """The scheduled activities by name and the instance, for the shape builders."""

    instance: Instance
    activities: dict[str, ScheduledActivity]


Builder = Callable[[ViolationShapes, Violation, Located], None]


def _overlap(shapes: ViolationShapes, v: Violation, at: Located) -> None:
    a, b = (at.activities.get(e) for e in v.entities[:2])
    if a is not None and b is not None:
        lo, hi = max(a.start, b.start), min(a.end, b.end)
        shapes.breach(a.activity, lo, hi)
        shapes.breach(b.activity, lo, hi)


def _succession(shapes: ViolationShapes, v: Violation, at: Located) -> None:
    if len(v.entities) >= 2 and all(e in at.activities for e in v.entities[:2]):
        shapes.arrows.append((v.entities[0], v.entities[1]))


def _window(shapes: ViolationShapes, v: Violation, at: Located) -> None:
    activity = at.activities.get(v.entities[0]) if v.entities else None
    if activity is None:
        return
    targets = {activity.activity, activity.job}
    for c in at.instance.constraints:
        if c.id != v.constraint or type(c).__struct_config__.tag != WINDOW_TAG:
            continue
        for w in c.windows:
            if w.target in targets:
                _window_bounds(shapes, activity, w)


def _window_bounds(shapes: ViolationShapes, a: ScheduledActivity, w: object) -> None:
    """The broken bounds of window ``w`` for activity ``a``, and the part of its bar outside."""
    release, deadline = getattr(w, "release", 0), getattr(w, "deadline", None)
    latest_start, earliest_end = getattr(w, "latest_start", None), getattr(w, "earliest_end", None)
    if a.start < release:
        shapes.bounds.append((a.activity, "release", release))
        shapes.breach(a.activity, a.start, min(release, a.end))
    if deadline is not None and a.end > deadline:
        shapes.bounds.append((a.activity, "deadline", deadline))
        shapes.breach(a.activity, max(deadline, a.start), a.end)
    if latest_start is not None and a.start > latest_start:
        shapes.bounds.append((a.activity, "latest start", latest_start))
    if earliest_end is not None and a.end < earliest_end:
        shapes.bounds.append((a.activity, "earliest end", earliest_end))


def _downtime(shapes: ViolationShapes, v: Violation, at: Located) -> None:
    activity = at.activities.get(v.entities[0]) if v.entities else None
    resource = v.entities[1] if len(v.entities) > 1 else None
    if activity is None:
        return
    for c in at.instance.constraints:
        if c.id == v.constraint and type(c).__struct_config__.tag == DOWNTIME_TAG:
            for w in c.windows:
                if w.resource == resource:
                    shapes.breach(activity.activity, max(activity.start, w.start), min(activity.end, w.end))


#: How each kind's violation is drawn beyond the red frames (see the module docstring).
SHAPES_BY_KIND: dict[str, Builder] = {
    "unary_no_overlap": _overlap,
    "precedence_lag": _succession,
    "setup_times": _succession,
    "no_idle": _succession,
    "consecutive": _succession,
    WINDOW_TAG: _window,
    DOWNTIME_TAG: _downtime,
}


def hard_violations(instance: Instance, family: Family | None, solution: Solution) -> list[Violation]:
    """The hard violations of ``solution`` (the evaluator ``schedc check`` uses; names as in the IR)."""
    from schedc.verify.evaluate import evaluate, make_context

    if family is None:
        from schedc.lang.family import load_family

        family = load_family(instance.family)
    return [v for v in evaluate(make_context(instance, family), solution).violations if v.hard]


def violation_shapes(instance: Instance, activities: Sequence[ScheduledActivity],
                     violations: Sequence[Violation]) -> ViolationShapes:
    """The shapes of ``violations`` on the bars of ``activities`` (see the module docstring)."""
    at = Located(instance, {a.activity: a for a in activities})
    shapes = ViolationShapes(count=len(violations))
    for v in violations:
        shapes.by_kind[v.kind] = shapes.by_kind.get(v.kind, 0) + 1
        shapes.flagged.update(e for e in v.entities if e in at.activities)
        build = SHAPES_BY_KIND.get(v.kind)
        if build is not None:
            build(shapes, v, at)
    shapes.breaches = {a: _union(spans) for a, spans in shapes.breaches.items()}
    shapes.arrows = list(dict.fromkeys(shapes.arrows))
    shapes.bounds = list(dict.fromkeys(shapes.bounds))
    return shapes


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching ``[lo, hi)`` ranges merged, in order (90 overlaps on one bar: one hatch)."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


#: A drawn bar: (activity, y of its centre, start, end, height, SVG id).
DrawnBar = tuple[str, float, int, int, float, str]


def draw_violations(ax: Axes, shapes: ViolationShapes, bars: Sequence[DrawnBar]) -> None:
    """Frames, hatches, arrows and bounds of ``shapes`` on the ``bars`` of one panel."""
    by_activity: dict[str, list[DrawnBar]] = {}
    for bar in bars:
        by_activity.setdefault(bar[0], []).append(bar)
    for activity in sorted(shapes.flagged & set(by_activity)):
        for _, y, start, end, height, gid in by_activity[activity]:
            ax.add_patch(Rectangle((start, y - height / 2), end - start, height, facecolor="none",
                                   edgecolor=VIOLATION_COLOUR, linewidth=1.6, zorder=6, gid=f"violation-{gid}"))
            for lo, hi in shapes.breaches.get(activity, ()):
                ax.add_patch(Rectangle((lo, y - height / 2), hi - lo, height, zorder=2.5, gid=f"breach-{gid}-{lo}",
                                       **BREACH_STYLE))
    for first, second in shapes.arrows:
        if first in by_activity and second in by_activity:
            _, y0, _, end, _, _ = by_activity[first][0]
            _, y1, start, _, _, _ = by_activity[second][0]
            arrow = ax.annotate("", xy=(start, y1), xytext=(end, y0), zorder=7, gid=f"precedence-{first}-{second}",
                                arrowprops={"arrowstyle": "-|>", "color": VIOLATION_COLOUR, "linewidth": 0.9,
                                            "alpha": 0.85, "shrinkA": 0, "shrinkB": 0, "mutation_scale": 8})
            if arrow.arrow_patch is not None:  # the shape an SVG shows (the annotation's text is empty)
                arrow.arrow_patch.set_gid(f"precedence-{first}-{second}")
    for activity, bound, time in shapes.bounds:
        for _, y, _, _, height, gid in by_activity.get(activity, ()):
            ax.plot([time, time], [y - height / 2 - 0.12, y + height / 2 + 0.12], color=VIOLATION_COLOUR,
                    linewidth=2.2, zorder=7, solid_capstyle="butt", gid=f"bound-{gid}-{bound.replace(' ', '_')}")


def legend_handles(shapes: ViolationShapes) -> list[Patch | Line2D]:
    """Legend entries for the kinds of shape drawn."""
    if not shapes.count:
        return []
    handles: list[Patch | Line2D] = [Patch(facecolor="none", edgecolor=VIOLATION_COLOUR, linewidth=1.6,
                                           label="in a hard violation")]
    if shapes.breaches:
        handles.append(Patch(label="overlap / outside window", **{**BREACH_STYLE, "linewidth": 0.6}))
    if shapes.arrows:
        handles.append(Line2D([], [], color=VIOLATION_COLOUR, marker=">", markersize=4, linewidth=1.1,
                              label="violated precedence"))
    if shapes.bounds:
        handles.append(Line2D([], [], color=VIOLATION_COLOUR, marker="|", markersize=8, markeredgewidth=2.2,
                              linestyle="none", label="broken window bound"))
    return handles


def summary(shapes: ViolationShapes) -> str:
    """``INFEASIBLE: 120 hard violations (90 unary_no_overlap, 30 precedence_lag)``, or ``""``."""
    if not shapes.count:
        return ""
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(shapes.by_kind.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"INFEASIBLE: {shapes.count} hard violation{'s' if shapes.count != 1 else ''} ({kinds})"
