"""The event timeline of a dynamic flexible job shop :class:`~schedc.dynamic.world.World`.

One figure, lanes from top to bottom: job arrivals as ticks at their release dates; one
marker row per event type that occurs (in the order of :data:`EVENT_STYLES`); one lane per
machine with its outages as hatched spans (breakdowns and maintenance styled apart). A
dashed line marks the end of the arrival window. It shows *when* the dispatcher learns
things, which is what makes a dynamic instance hard.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from matplotlib.axes import Axes
from matplotlib.patches import Patch

from schedc.core.diagnostics import SchedcError
from schedc.plotting.output import FONT_PT, lane_axis, new_figure, output_format, save, time_limits

if TYPE_CHECKING:
    from schedc.dynamic.world import Event, Outage, World

#: Event type → (row label, marker, colour). A type not listed here gets :data:`OTHER_STYLE`
#: under its own name rather than being left out.
EVENT_STYLES: dict[str, tuple[str, str, str]] = {
    "batch_arrival": ("batch arrival", "v", "tab:blue"),
    "cancel": ("cancellation", "X", "tab:red"),
    "rework": ("rework", "P", "tab:orange"),
    "priority_change": ("priority change", "^", "tab:purple"),
    "due_date_change": ("due-date change", "D", "tab:green"),
    "processing_time_change": ("processing-time change", "s", "tab:brown"),
    "route_change": ("route change", "o", "tab:cyan"),
    "breakdown": ("breakdown known", "*", "#b22222"),
    "maintenance": ("maintenance known", "h", "tab:gray"),
}
OTHER_STYLE = ("o", "black")
OUTAGE_STYLES: dict[str, dict[str, object]] = {
    "breakdown": {"facecolor": (0.84, 0.15, 0.16, 0.35), "edgecolor": "#b22222", "hatch": "xxx"},
    "maintenance": {"facecolor": (0.5, 0.5, 0.5, 0.3), "edgecolor": "#555555", "hatch": "///"},
}
LANE_IN = 0.32


def event_rows(events: Sequence[Event]) -> list[tuple[str, str, str, str]]:
    """The marker rows present: (event type, row label, marker, colour), known types first in table order."""
    present = list(dict.fromkeys(e.type for e in events))
    ordered = [t for t in EVENT_STYLES if t in present] + sorted(t for t in present if t not in EVENT_STYLES)
    return [(t, *EVENT_STYLES.get(t, (t.replace("_", " "), *OTHER_STYLE))) for t in ordered]


def draw_outages(ax: Axes, lanes: dict[str, int], outages: Sequence[Outage]) -> None:
    """Hatched spans on the machine lanes, one per outage, styled by cause."""
    for o in outages:
        style = OUTAGE_STYLES.get(o.cause, OUTAGE_STYLES["maintenance"])
        patch = ax.barh(lanes[o.machine], o.end - o.start, left=o.start, height=0.6, linewidth=0.6,
                        zorder=2, **style).patches[0]  # type: ignore[arg-type]
        patch.set_gid(f"outage-{o.machine}-{o.start}")


def last_time(world: World) -> int:
    """The end of the time axis: the latest release, event, outage end or the arrival window."""
    releases = [j.release for j in (*world.jobs, *world.cancelled)]
    return max([world.horizon, *releases, *(e.time for e in world.events), *(o.end for o in world.outages)])


def plot_event_timeline(world: World, out: Path, title: str | None = None) -> Path:
    """Draw what happens in ``world`` over time and write it to ``out`` (``.png``, ``.svg`` or ``.pdf``).

    Raises a SchedcError (E702) for a world with no job, event or outage, and (E705) for an
    outage on a machine the world does not have. Returns ``out``.
    """
    output_format(out)
    releases = sorted(j.release for j in (*world.jobs, *world.cancelled))
    if not releases and not world.events and not world.outages:
        raise SchedcError.at("E702", f"nothing to plot: world {world.name!r} has no jobs, events or outages")
    machines = {m.name: m for m in world.machines}
    strangers = sorted({o.machine for o in world.outages} - set(machines))
    if strangers:
        raise SchedcError.at("E705", f"world {world.name!r} has outages on unknown machines: {', '.join(strangers)}")
    rows = event_rows(world.events)
    first_machine = 1 + len(rows)
    lanes = {name: first_machine + i for i, name in enumerate(machines)}
    fig = new_figure(0.9 + 0.5 + LANE_IN * (first_machine + len(lanes)))
    ax = fig.subplots()
    ax.scatter(releases, [0] * len(releases), marker="|", s=160, color="black", zorder=3, gid="arrivals")
    for lane, (kind, _label, marker, colour) in enumerate(rows, start=1):
        times = [e.time for e in world.events if e.type == kind]
        ax.scatter(times, [lane] * len(times), marker=marker, s=36, color=colour, edgecolor="black",
                   linewidth=0.4, zorder=3, gid=f"events-{kind}")
    draw_outages(ax, lanes, world.outages)
    names = ["arrivals", *(label for _kind, label, _m, _c in rows),
             *(f"{m.name} ({m.group})" for m in machines.values())]
    lane_axis(ax, names)
    ax.axhline(first_machine - 0.5, color="#999999", linewidth=0.8)
    if world.horizon > 0:
        ax.axvline(world.horizon, color="#333333", linestyle="--", linewidth=1.0, gid="horizon")
        ax.text(world.horizon, 1.0, " arrival window end", transform=ax.get_xaxis_transform(), ha="left",
                va="bottom", fontsize=FONT_PT + 1)
    causes = list(dict.fromkeys(o.cause for o in world.outages))
    if causes:
        ax.legend(handles=[Patch(label=c, **OUTAGE_STYLES.get(c, OUTAGE_STYLES["maintenance"]))  # type: ignore[arg-type]
                           for c in causes], title="outage", loc="upper left", bbox_to_anchor=(1.005, 1.0),
                  fontsize=FONT_PT, title_fontsize=FONT_PT + 1, frameon=False)
    ax.set_xlim(*time_limits(last_time(world)))
    ax.set_xlabel("time")
    counts = f"{len(world.jobs)} jobs, {len(world.cancelled)} cancelled, {len(world.events)} events, " \
             f"{len(world.outages)} outages"
    fig.suptitle(title or f"{world.name}: {counts}")
    return save(fig, out)
