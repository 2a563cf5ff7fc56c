"""Lanes of a Gantt chart with room for bars that overlap: each lane is cut into as many *tracks*
as it has bars running at once, so that no bar hides another.

A feasible machine schedule has one bar at a time per machine: every lane has one track and the
chart is the classic one (lane ``i`` centred at ``y = i``). An answer that overlaps operations on
a machine (every start 0, say) gets a taller lane for that machine, one track per bar running at
once, instead of bars drawn on top of each other with their labels over each other. Tracks are
given greedily in start order (interval partitioning: a bar takes the first track free at its
start), which uses the fewest tracks possible: the largest number of bars running at one time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from matplotlib.axes import Axes

from schedc.plotting.output import FONT_PT


def assign_tracks(intervals: Iterable[tuple[str, int, int]]) -> dict[str, int]:
    """The track (0-based) of every ``(key, start, end)`` of one lane: the first track whose last bar
    has ended by the start (a zero-length bar needs no room of its own in time, but gets a track too)."""
    ends: list[int] = []  # the end of the last bar of each track
    out: dict[str, int] = {}
    for key, start, end in sorted(intervals, key=lambda i: (i[1], i[2], i[0])):
        track = next((t for t, last in enumerate(ends) if last <= start), len(ends))
        if track == len(ends):
            ends.append(end)
        else:
            ends[track] = end
        out[key] = track
    return out


@dataclass(frozen=True)
class LaneLayout:
    """Named lanes, top to bottom, each with its number of tracks; track ``t`` of lane ``i`` is
    centred at ``y(i, t)`` and is one unit tall."""

    names: tuple[str, ...]
    tracks: tuple[int, ...]

    @classmethod
    def of(cls, names: Sequence[str], bars: Iterable[tuple[int, str, int, int]]) -> tuple[LaneLayout, dict[str, int]]:
        """The layout of lanes ``names`` holding ``(lane, key, start, end)`` bars, and each bar key's track."""
        by_lane: dict[int, list[tuple[str, int, int]]] = {}
        for lane, key, start, end in bars:
            by_lane.setdefault(lane, []).append((key, start, end))
        track_of: dict[str, int] = {}
        for lane_bars in by_lane.values():
            track_of.update(assign_tracks(lane_bars))
        counts = [1 + max((track_of[k] for k, _, _ in by_lane.get(i, ())), default=0) for i in range(len(names))]
        return cls(tuple(names), tuple(counts)), track_of

    @property
    def total(self) -> int:
        """Tracks in all (the height of the panel in lane units)."""
        return sum(self.tracks)

    def top(self, lane: int) -> int:
        """The y of the first track of ``lane``."""
        return sum(self.tracks[:lane])

    def y(self, lane: int, track: int = 0) -> float:
        """The centre of track ``track`` of ``lane``."""
        return float(self.top(lane) + track)

    def centre(self, lane: int) -> float:
        """The middle of ``lane`` (where its name is written)."""
        return self.top(lane) + (self.tracks[lane] - 1) / 2

    def height(self, lane: int) -> int:
        """The height of ``lane`` in y units."""
        return self.tracks[lane]

    def draw_axis(self, ax: Axes) -> None:
        """Name the lanes (lane 0 at the top), separate lanes of several tracks by a line, and draw a
        light grid along time."""
        ax.set_yticks([self.centre(i) for i in range(len(self.names))], labels=list(self.names),
                      fontsize=FONT_PT + 1)
        ax.set_ylim(self.total - 0.5, -0.5)
        if any(t > 1 for t in self.tracks):
            for lane in range(1, len(self.names)):
                ax.axhline(self.top(lane) - 0.5, color="#888888", linewidth=0.6, zorder=1, gid=f"lane-{lane}")
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
