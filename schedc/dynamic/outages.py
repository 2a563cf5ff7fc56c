"""Machine outages of a generated shop: preventive maintenance and engineered breakdowns.

Outages live on a machines × time grid of cells (``FREE``, ``BREAKDOWN``, ``MAINTENANCE``).
Maintenance comes first; then every bottleneck window b gets a block on each machine of its
group so that the removed capacity is [C_b − W_b/ρ_b*]₊; then breakdowns (exponential repair
times) outside the windows, added or shortened until the merged downtime equals the
disturbance budget round(δ* M H) exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from schedc.dynamic.config import ConfigPoint, Window
from schedc.dynamic.metrics import op_work_time, window_capacity, window_work

if TYPE_CHECKING:
    from schedc.dynamic.generator import Draft

FREE, BREAKDOWN, MAINTENANCE = 0, 1, 2


def maintenance(point: ConfigPoint, machines: int, rng: np.random.Generator) -> np.ndarray:
    """Preventive maintenance cells: every ``interval`` time units from a random phase per machine,
    each occurrence lasting :func:`_maintenance_length`."""
    s, horizon = point.scenarios, point.scale.horizon
    down = np.zeros((machines, horizon), dtype=np.int8)
    if s.maintenance_interval <= 0 or s.maintenance_duration <= 0:
        return down
    phases = rng.integers(0, s.maintenance_interval, size=machines)
    for m, phase in enumerate(phases):
        for start in range(int(phase), horizon, s.maintenance_interval):
            down[m, start:start + _maintenance_length(point, rng)] = MAINTENANCE
    return down


def _maintenance_length(point: ConfigPoint, rng: np.random.Generator) -> int:
    """``maintenance_duration``, or when ``maintenance_duration_sd`` > 0 a draw round(N(duration, sd))
    clipped to [1, interval − 1] (no draw at all when the sd is 0, so fixed durations keep their stream)."""
    s = point.scenarios
    if s.maintenance_duration_sd <= 0:
        return s.maintenance_duration
    length = round(float(rng.normal(s.maintenance_duration, s.maintenance_duration_sd)))
    return min(max(1, length), s.maintenance_interval - 1)


def engineer_outages(d: Draft, windows: Sequence[Window], delta: float, rng: np.random.Generator) -> np.ndarray:
    """Breakdown cells realising the window budgets, then the global budget round(δ M H) exactly.

    Window b removes capacity [C_b − W_b/ρ_b*]₊ with equal downtime on every machine of its group
    (maintenance inside the window counts); the rest of the budget is met outside the windows by
    shortening breakdown runs (proportionally, from their ends) or adding new breakdowns.
    """
    down = d.down.copy()
    arrays = d.arrays()
    work, _ = op_work_time(arrays)
    protected = np.zeros(down.shape, dtype=bool)
    for window in windows:
        members = np.flatnonzero(d.machine_group == d.group_names.index(window.group))
        nominal, _ = window_capacity(arrays, window)
        need = max(0.0, nominal - window_work(arrays, window, work) / window.utilisation)
        cells = _spread(need, d.speeds[members], window.end - window.start)
        for m, k in zip(members, cells, strict=True):
            _set_downtime(down[m], window.start, window.end, int(k), rng)
        protected[members, window.start:window.end] = True
    excess = int(np.count_nonzero(down)) - round(delta * down.size)
    if excess > 0:
        _shorten(down, protected, excess)
    elif excess < 0:
        _add_breakdowns(down, protected, -excess, d.point.scenarios.repair_mean, rng)
    return down


def _spread(need: float, speeds: np.ndarray, length: int) -> np.ndarray:
    """Integer downtime per machine, equal up to one cell, removing ≈ ``need`` work units of capacity."""
    cells = np.full(len(speeds), int(need // speeds.sum()))
    rest = need - float(speeds @ cells)
    for i in np.argsort(speeds, kind="stable"):
        if rest > speeds[i] / 2:
            cells[i] += 1
            rest -= speeds[i]
    return np.minimum(cells, length)


def _set_downtime(row: np.ndarray, start: int, end: int, cells: int, rng: np.random.Generator) -> None:
    """Make exactly ``cells`` cells of ``row[start:end]`` down (if maintenance allows), growing or
    shrinking breakdowns around an anchor so they stay contiguous."""
    segment = row[start:end]
    current = int(np.count_nonzero(segment))
    broken = np.flatnonzero(segment == BREAKDOWN)
    if current < cells:
        anchor = broken[0] if len(broken) else int(rng.integers(0, max(1, len(segment) - (cells - current) + 1)))
        free = np.flatnonzero(segment == FREE)
        order = free[np.argsort(np.abs(free - anchor), kind="stable")]
        segment[order[:cells - current]] = BREAKDOWN
    elif current > cells and len(broken):
        order = broken[np.argsort(-np.abs(broken - broken[0]), kind="stable")]
        segment[order[:current - cells]] = FREE


def runs(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the maximal runs of True in a 1-D boolean array (half-open)."""
    edges = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)


def _shorten(down: np.ndarray, protected: np.ndarray, excess: int) -> None:
    """Remove ``excess`` breakdown cells outside the windows: every run loses its share at its end."""
    spans = [(m, s, e) for m in range(down.shape[0])
             for s, e in zip(*runs((down[m] == BREAKDOWN) & ~protected[m]), strict=True)]
    total = sum(e - s for _, s, e in spans)
    if not total:
        return
    take = min(excess, total)
    quota = np.array([(e - s) * take / total for _, s, e in spans])
    cut = np.floor(quota).astype(np.int64)
    for i in np.argsort(-(quota - cut), kind="stable")[:take - int(cut.sum())]:
        cut[i] += 1
    for (m, _, e), k in zip(spans, cut, strict=True):
        down[m, e - k:e] = FREE


def _add_breakdowns(down: np.ndarray, protected: np.ndarray, cells: int, repair: float,
                    rng: np.random.Generator) -> None:
    """Add ``cells`` breakdown cells outside the windows: random starts, exponential repair times."""
    machines, horizon = down.shape
    for _ in range(20 * cells // max(1, int(repair)) + 50):
        if cells <= 0:
            return
        m, start = int(rng.integers(0, machines)), int(rng.integers(0, horizon))
        length = min(cells, max(1, round(rng.exponential(repair))))
        free = np.flatnonzero((down[m, start:start + length] == FREE) & ~protected[m, start:start + length])
        down[m, start + free] = BREAKDOWN
        cells -= len(free)
    free = np.flatnonzero((down == FREE) & ~protected)[:max(cells, 0)]
    down.flat[free] = BREAKDOWN


