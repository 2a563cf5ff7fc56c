"""Pyomo rows of an activity whose work pauses over breaks (``resource_downtime pausable=true``;
formal meaning in :class:`schedc.kinds.timing.ResourceDowntime`).

Formulation: per mode k with (merged) breaks ``[l_b, h_b)`` of lengths ``L_b``, time is read in
*work coordinates*: ``W(t) = t − (break time before t)`` maps the times outside breaks one to one onto
the integers, and break b sits at work position ``P_b = W(l_b)``. An integer ``w`` is the start in
work coordinates, and with two threshold binaries per break

* ``a_b = [w ≥ P_b]`` ("starts after break b") and ``c_b = [w + d_k > P_b]`` ("ends after break b begins"),

the start and the stretched end are linear: ``S = w + Σ_b L_b·a_b`` (never inside a break: the rule is
built into the variables) and ``E = w + d_k + Σ_b L_b·c_b`` (the first time with ``d_k`` units of work
done; ``E = l_b`` when the work ends just as break b begins, as in
:func:`schedc.kinds.timing.stretched_end`). Each threshold is two big-M rows over ``w``'s range,
exact for integer w: ``w ≥ θ − (θ − w_lo)(1 − x)`` and ``w ≤ θ − 1 + (w_hi − θ + 1)·x``. Breaks the
start window decides (``P_b`` outside it) are constants, so an operation whose window meets n
breaks costs at most 2n binaries and 4n rows — against ``lst − est + 1`` binaries for a
time-indexed end, which is why this is the formulation here (windows span hundreds of units, and
breaks per window are few). With several modes, or an optional activity, ``S`` and ``E_a`` equal the
mode's expressions only when the mode is chosen (rows relaxed by ``M·(1 − y[a,k])``), and a left-out
activity has ``E_a = S_a``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schedc.backends.pyomo.model import PyomoModel

Breaks = list[tuple[int, int]]


def work_time(t: int, breaks: Breaks) -> int:
    """``W(t)``: the time before ``t`` outside the (merged, sorted) breaks."""
    return t - sum(max(0, min(t, hi) - lo) for lo, hi in breaks)


def pausable_variables(m: PyomoModel, a: Any) -> None:
    """Replace ``m.end[a]`` by a variable tied to each mode's stretched end (see the module docstring)."""
    name = a.name
    est, lst = m.est[name], m.lst[name]
    latest = m.latest_end(name)
    end = m.new_var("end", est, latest)
    required = len(a.modes) == 1 and name not in m.performed
    for k, mode in enumerate(a.modes, start=1):
        # a mode without work ends where it starts, breaks or not (as the verifier's stretched end)
        breaks = m.ctx.mode_breaks(mode) if mode.duration > 0 else []
        present = m.present[(name, k)]
        if breaks:
            rows = _work_coordinates(m, name, k, mode.duration, breaks)
            if rows is None:
                continue  # no start of the window lies outside the breaks: the mode cannot be chosen
            start_expr, end_expr = rows
        else:
            start_expr, end_expr = None, m.start[name] + mode.duration
        if required:
            if start_expr is not None:
                m.add("pausable", m.start[name] == start_expr)
            m.add("pausable", end == end_expr)
            continue
        off = 1 - present
        if start_expr is not None:
            m.add("pausable", m.start[name] - start_expr <= (lst - est) * off)
            m.add("pausable", start_expr - m.start[name] <= (lst - est) * off)
        m.add("pausable", end - end_expr <= (latest - est) * off)
        m.add("pausable", end_expr - end <= (latest - est) * off)
    if name in m.performed:  # left out: E_a = S_a
        m.add("pausable", end >= m.start[name])
        m.add("pausable", end <= m.start[name] + (latest - est) * m.performed[name])
    m.end[name] = end


def _work_coordinates(m: PyomoModel, name: str, k: int, duration: int, breaks: Breaks) -> tuple[Any, Any] | None:
    """``(S, E)`` of mode k as linear expressions of ``w`` and the threshold binaries; None (and the
    mode forbidden) when every start of the window lies inside a break."""
    first = next((t for t in range(m.est[name], m.lst[name] + 1) if not _inside(t, breaks)), None)
    if first is None:
        m.add("pausable", m.present[(name, k)] <= 0)
        return None
    w_lo, w_hi = work_time(first, breaks), work_time(_last_valid(m.lst[name], breaks), breaks)
    w = m.new_var("work_start", w_lo, w_hi)
    starts, ends = [], []
    for lo, hi in breaks:
        position = work_time(lo, breaks)
        starts.append((hi - lo) * _threshold(m, w, position, w_lo, w_hi))
        ends.append((hi - lo) * _threshold(m, w, position - duration + 1, w_lo, w_hi))
    return w + sum(starts), w + duration + sum(ends)


def _threshold(m: PyomoModel, w: Any, theta: int, w_lo: int, w_hi: int) -> Any:
    """``[w ≥ θ]``: a constant when the range of w decides it, else a binary with two rows."""
    if theta <= w_lo:
        return 1
    if theta > w_hi:
        return 0
    x = m.new_var("after_break", 0, 1, binary=True)
    m.add("pausable", w >= theta - (theta - w_lo) * (1 - x))
    m.add("pausable", w <= theta - 1 + (w_hi - theta + 1) * x)
    return x


def _inside(t: int, breaks: Breaks) -> bool:
    return any(lo <= t < hi for lo, hi in breaks)


def _last_valid(t: int, breaks: Breaks) -> int:
    """The latest time ≤ ``t`` outside the breaks (one exists: the caller found an earlier one)."""
    while _inside(t, breaks):
        t = next(lo for lo, hi in breaks if lo <= t < hi) - 1
    return t
