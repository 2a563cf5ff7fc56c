"""Bars of a Gantt chart and their labels.

A bar is a rectangle centred on a lane's track. Its label goes inside the bar when it fits, else
just right of it when the track is free up to the label's end, else it becomes a short numeric key
(explained by the figure's key legend) inside or beside the bar, or on the bar's top edge when that
covers no other key. A panel whose short bars would need more than :data:`MAX_KEYS` keys in all gets
none: keys for the first few bars only would be arbitrary, and a list of hundreds is not read. Label
sizes are estimated from the fixed figure width before layout (:func:`~schedc.plotting.output.label_fits`),
so the same schedule gives the same picture on every run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from matplotlib.axes import Axes
from matplotlib.colors import to_rgb

from schedc.plotting.output import FONT_PT, PLOT_SHARE, WIDTH_IN, label_fits
from schedc.plotting.violations import DrawnBar

BAR_HEIGHT = 0.7
MAX_KEYS = 60  # numeric label keys explained under a plot; past them a key list stops being read


@dataclass(frozen=True)
class Bar:
    """One rectangle centred at ``y`` (a lane's track), with an optional label, an SVG id (``gid``)
    and the activity it draws."""

    y: float
    start: int
    end: int
    colour: str
    label: str
    gid: str
    activity: str = ""

    def drawn(self) -> DrawnBar:
        """The bar as :func:`~schedc.plotting.violations.draw_violations` reads it."""
        return (self.activity, self.y, self.start, self.end, BAR_HEIGHT, self.gid)


def text_colour(colour: str) -> str:
    """Black or white, whichever reads better on ``colour`` (by relative luminance)."""
    r, g, b = to_rgb(colour)
    return "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5 else "white"


def draw_bars(ax: Axes, bars: Sequence[Bar], span: float, lane_in: float, keys: dict[str, str] | None = None,
              unlabelled: set[str] | None = None) -> None:
    """Draw the bars in one call and label them: inside the bar when it fits, else just right of it
    when the lane is free up to the label's end, else as a short numeric key on the bar's top edge
    (listed in ``keys``, which the figure's key legend explains) when it covers no other key; the ids
    of bars left without a label are added to ``unlabelled``. A panel whose bars would need more than
    :data:`MAX_KEYS` keys in all gets none (keys for the first few bars only would be arbitrary)."""
    if not bars:
        return
    container = ax.barh([b.y for b in bars], [b.end - b.start for b in bars], left=[b.start for b in bars],
                        height=BAR_HEIGHT, color=[b.colour for b in bars], edgecolor="black", linewidth=0.5,
                        zorder=2)
    room = _room_after(bars, span)
    # keys for some bars of a crowded panel and none for the others would be arbitrary: all or none
    crowded = [b for b in bars if b.label and not label_fits(b.label, b.end - b.start, span, lane_in * BAR_HEIGHT)
               and label_width(b.label, span) > room[b.gid]]
    if keys is not None and len(keys) + len({b.label for b in crowded} - set(keys)) > MAX_KEYS:
        keys = None
    edge_taken: dict[float, float] = {}  # track → where the last key on its top edge ends
    for bar, patch in sorted(zip(bars, container.patches, strict=True), key=lambda bp: (bp[0].start, bp[0].gid)):
        patch.set_gid(bar.gid)
        if bar.label:
            _label(ax, bar, span, lane_in, room[bar.gid], keys, edge_taken, unlabelled)


def _label(ax: Axes, bar: Bar, span: float, lane_in: float, room: float, keys: dict[str, str] | None,
           edge_taken: dict[float, float], unlabelled: set[str] | None) -> None:
    """Place the label of one bar (see :func:`draw_bars`)."""
    gid = f"label-{bar.gid}"
    if label_fits(bar.label, bar.end - bar.start, span, lane_in * BAR_HEIGHT):
        ax.text((bar.start + bar.end) / 2, bar.y, bar.label, ha="center", va="center", fontsize=FONT_PT,
                color=text_colour(bar.colour), zorder=3, clip_on=True, gid=gid)
        return
    if label_width(bar.label, span) <= room:
        ax.text(bar.end + 0.1 * label_width("x", span), bar.y, bar.label, ha="left", va="center",
                fontsize=FONT_PT - 1, color="black", zorder=3, clip_on=True, gid=gid)
        return
    if keys is None:
        if unlabelled is not None:
            unlabelled.add(bar.gid)
        return
    key = keys.get(bar.label) or (str(len(keys) + 1) if len(keys) < MAX_KEYS else None)
    if key is not None and label_fits(key, bar.end - bar.start, span, lane_in * BAR_HEIGHT):
        keys[bar.label] = key
        ax.text((bar.start + bar.end) / 2, bar.y, key, ha="center", va="center", fontsize=FONT_PT,
                color=text_colour(bar.colour), zorder=3, clip_on=True, gid=gid)
        return
    if key is not None and label_width(key, span) <= room:
        keys[bar.label] = key
        ax.text(bar.end + 0.1 * label_width("x", span), bar.y, key, ha="left", va="center",
                fontsize=FONT_PT - 1, color="black", zorder=3, clip_on=True, gid=gid)
        return
    centre, half = (bar.start + bar.end) / 2, label_width(key or "", span) / 2
    if key is None or centre - half < edge_taken.get(bar.y, float("-inf")):  # no key left, or it would cover one
        if unlabelled is not None:
            unlabelled.add(bar.gid)
        return
    keys[bar.label] = key
    edge_taken[bar.y] = centre + half
    ax.text(centre, bar.y - BAR_HEIGHT / 2, key, ha="center", va="bottom", fontsize=FONT_PT - 1, color="black",
            zorder=7, clip_on=True, gid=gid)


def label_width(text: str, span: float) -> float:
    """The width of ``text`` in time units on an axis of ``span`` (the estimate of :func:`label_fits`)."""
    return (len(text) * 0.6 + 0.8) * FONT_PT / 72 / (WIDTH_IN * PLOT_SHARE) * span


def _room_after(bars: Sequence[Bar], span: float) -> dict[str, float]:
    """Time free on each bar's lane after its end, up to the next bar (or the axis end)."""
    room: dict[str, float] = {}
    by_lane: dict[float, list[Bar]] = {}
    for b in bars:
        by_lane.setdefault(b.y, []).append(b)
    for lane_bars in by_lane.values():
        ordered = sorted(lane_bars, key=lambda b: (b.start, b.end))
        for k, b in enumerate(ordered):
            following = [o.start for o in ordered[k + 1:] if o.start >= b.end]
            room[b.gid] = (min(following) if following else span) - b.end
    return room
