"""Pyomo encoders of the interval kinds (formal meanings in :mod:`schedc.kinds`).

Formulation per kind, and why:

- ``precedence_lag``: ``S_b ≥ S_a + Σ_k d_{a,k}·y[a,k] + lag`` — linear as it stands. Soft:
  a binary ``broken`` relaxes the row by a big-M ``lst_a + max_k d_{a,k} + lag − est_b``.
- ``unary_no_overlap``: a disjunctive big-M model (Manne 1960): one order binary
  ``o[a,b]`` per pair of activities that may share a unary resource, and per pair of their
  modes (k, l) on a common resource
  ``S_a + d_{a,k} ≤ S_b + M_ab·(1 − o + 2 − y[a,k] − y[b,l])`` and
  ``S_b + d_{b,l} ≤ S_a + M_ba·(o + 2 − y[a,k] − y[b,l])``, with ``M_ab = lst_a + d_{a,k} − est_b``
  — tight because the heuristic horizon bounds every ``lst``. Its size grows with the pairs
  of operations per machine, not with the horizon, which is why it is used for job shops
  (ft06: 90 order binaries) rather than a time-indexed model (ft06 would need ~3,000).
- ``cumulative_renewable``: a time-indexed model (Pritsker, Watters & Wolfe 1969): start
  binaries ``z[a,k,t]`` for ``t ∈ [est_a, lst_a]`` with ``Σ_t z[a,k,t] = y[a,k]`` and
  ``Σ_{k,t} t·z[a,k,t] = S_a``, and per resource r and time t
  ``Σ_{a,k} q_{a,k,r} · Σ_{τ = t − d_{a,k} + 1}^{t} z[a,k,τ] ≤ C_r``. Its LP relaxation is far
  stronger than a big-M or flow model for several parallel users, and its size is
  ``Σ_{a,k} (lst_a − est_a + 1)`` binaries — fine for PSPLIB j10–j30 (a few thousand), too
  large for long horizons: above :data:`MAX_START_BINARIES` binaries or
  :data:`MAX_RESOURCE_NONZEROS` resource-row nonzeros the backend refuses with a clear error
  instead of handing HiGHS a model it cannot solve.
- ``nonrenewable_budget``: ``Σ_{a,k} q_{a,k,r}·y[a,k] ≤ B_r`` (soft: an excess variable).
- ``mode_choice``: built into the variables (``Σ_k y[a,k] = 1``).

- ``time_window``: bounds on S and E as rows (soft: deficit/excess variables).
- ``resource_downtime``: per mode and downtime window it could meet, one binary choosing
  "before" or "after" with big-Ms from the start window (none when the window decides). Pausable
  breaks: two threshold binaries per operation and break in work coordinates (``pausable.py``).
- ``tardiness``: ``T ≥ E_a − due`` per activity of the target, ``T ≥ 0`` (hard: ``E_a ≤ due``).

Soft ``unary_no_overlap``, ``cumulative_renewable`` and ``resource_downtime`` are not encoded
(as in CP-SAT).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from schedc.backends.base import unsupported
from schedc.backends.pyomo.linear import quicksum
from schedc.backends.pyomo.model import PyomoModel, encoder
from schedc.core.diagnostics import SchedcError
from schedc.kinds import (
    CumulativeRenewable,
    Edge,
    ModeChoice,
    NonrenewableBudget,
    PrecedenceLag,
    ResourceDowntime,
    Tardiness,
    TimeWindow,
    UnaryNoOverlap,
)
from schedc.kinds.timing import Window, members, merge_spans

MAX_START_BINARIES = 30_000
"""Largest time-indexed model built (start binaries z[a,k,t])."""
MAX_RESOURCE_NONZEROS = 3_000_000
"""Largest total of nonzeros in the time-indexed resource rows."""


def _scope(m: PyomoModel, resources: object, kind: str) -> list[str]:
    if resources == "all":
        return [r.name for r in m.instance.resources if r.kind == kind]
    return list(resources)  # type: ignore[call-overload]


def _amount(mode: Any, resource: str) -> int:
    return next((u.amount for u in mode.uses if u.resource == resource), 0)


@encoder(PrecedenceLag)
def precedence(m: PyomoModel, c: PrecedenceLag) -> None:
    """``S_b ≥ E_a + lag``; soft: ``S_b ≥ E_a + lag − M·broken``, one penalty unit per broken edge.
    The other relations (``X_a + δ ≤ Y_b``, ``X_a + δ = Y_b``) go through :func:`_general_precedence`."""
    for e in c.edges:
        if e.relation != "e->s":
            _general_precedence(m, c, e)
            continue
        big_m = max(0, m.latest_end(e.before) + e.lag - m.est[e.after])
        off = m.left_out(e.before, e.after)  # vacuous when an optional end is left out
        if c.hard:
            m.add(c.id, m.start[e.after] >= m.end[e.before] + e.lag - big_m * off)
            continue
        broken = m.new_var("broken", 0, 1, binary=True)
        m.add(c.id, m.start[e.after] >= m.end[e.before] + e.lag - big_m * (broken + off))
        m.penalize(c, broken)


def _general_precedence(m: PyomoModel, c: PrecedenceLag, e: Edge) -> None:
    """``X_a + δ ≤ Y_b`` or ``= Y_b``; soft: each side relaxed by ``M·broken`` with M the widest gap
    two time points of the model can have (every start and end lies in [0, the later latest end])."""
    x = (m.start if e.relation[0] == "s" else m.end)[e.before] + e.lag
    y = (m.start if e.relation[-1] == "s" else m.end)[e.after]
    at = "=" in e.relation
    off = m.left_out(e.before, e.after)
    if c.hard and isinstance(off, int):
        m.add(c.id, x == y if at else x <= y)
        return
    big_m = max(m.horizon, m.latest_end(e.before), m.latest_end(e.after)) + abs(e.lag)
    broken = 0 if c.hard else m.new_var("broken", 0, 1, binary=True)
    m.add(c.id, x <= y + big_m * (broken + off))
    if at:
        m.add(c.id, x >= y - big_m * (broken + off))
    if not c.hard:
        m.penalize(c, broken)


def _unary_modes(m: PyomoModel, resources: list[str]) -> dict[str, list[tuple[int, int, frozenset[str]]]]:
    """For each activity: (mode number, latest end, unary resources in scope) of every mode of
    positive duration that uses one (zero-length intervals never conflict)."""
    out: dict[str, list[tuple[int, int, frozenset[str]]]] = {}
    for a in m.instance.activities:
        for k, mode in enumerate(a.modes, start=1):
            used = frozenset(r for r in resources if _amount(mode, r))
            if used and mode.duration > 0:
                out.setdefault(a.name, []).append((k, m.ctx.stretched(mode, m.lst[a.name]), used))
    return out


@encoder(UnaryNoOverlap)
def unary(m: PyomoModel, c: UnaryNoOverlap) -> None:
    """Disjunctive big-M rows, one order binary per pair of activities (shared by every
    resource and mode pair of the two: disjoint intervals are disjoint in one order)."""
    if not c.hard:
        raise unsupported("pyomo", c, form="soft")
    users = _unary_modes(m, _scope(m, c.resources, "unary"))
    for a, b in combinations(users, 2):
        clashes = [(ka, la, kb, lb) for ka, la, ra in users[a] for kb, lb, rb in users[b] if ra & rb]
        # the start windows alone may already order the pair (then no binary is needed)
        if not clashes or all(la <= m.est[b] for _ka, la, _kb, _lb in clashes) \
                or all(lb <= m.est[a] for _ka, _la, _kb, lb in clashes):
            continue
        before = m.new_var("order", 0, 1, binary=True)  # 1: a before b
        for ka, la, kb, lb in clashes:
            off = 2 - m.present[(a, ka)] - m.present[(b, kb)]  # 0 exactly when both modes are chosen
            m.add(c.id, m.mode_end(a, ka) <= m.start[b] + max(0, la - m.est[b]) * (1 - before + off))
            m.add(c.id, m.mode_end(b, kb) <= m.start[a] + max(0, lb - m.est[a]) * (before + off))


def _start_binaries(m: PyomoModel, names: list[str]) -> dict[tuple[str, int, int], Any]:
    """Time-indexed start binaries ``z[a,k,t]`` of the given activities, linked to S and y
    (created once per model, extended for activities not yet indexed)."""
    z: dict[tuple[str, int, int], Any] = m.cache.setdefault(("z",), {})
    acts = m.ctx.activities
    new = [a for a in names if (a, 1, m.est[a]) not in z]
    size = len(z) + sum(len(acts[a].modes) * (m.lst[a] - m.est[a] + 1) for a in new)
    if size > MAX_START_BINARIES:
        raise _too_large(m, f"{size:,} start binaries (limit {MAX_START_BINARIES:,})")
    for a in new:
        starts = range(m.est[a], m.lst[a] + 1)
        for k in range(1, len(acts[a].modes) + 1):
            for t in starts:
                z[(a, k, t)] = m.new_var("z", 0, 1, binary=True)
            m.add("time_index", quicksum(z[(a, k, t)] for t in starts) == m.present[(a, k)])
        timed = quicksum(t * z[(a, k, t)] for k in range(1, len(acts[a].modes) + 1) for t in starts)
        if a not in m.performed:
            m.add("time_index", timed == m.start[a])
            continue
        # an optional activity left out has no z set (timed = 0) while its start keeps its bounds [est, lst]
        m.add("time_index", timed <= m.start[a])
        m.add("time_index", m.start[a] <= timed + m.lst[a] * m.left_out(a))
    return z


def _too_large(m: PyomoModel, what: str) -> SchedcError:
    return SchedcError.at("E503", f"the pyomo backend's time-indexed resource model of {m.instance.name} would need "
                          f"{what} (horizon {m.horizon})",
                          hint="use the cpsat backend for long horizons")


@encoder(CumulativeRenewable)
def cumulative(m: PyomoModel, c: CumulativeRenewable) -> None:
    """Per resource and time unit: the demand of the activities running then ≤ capacity."""
    if not c.hard:
        raise unsupported("pyomo", c, form="soft")
    resources = _scope(m, c.resources, "renewable")
    acts = m.instance.activities
    users = [a.name for a in acts if any(_amount(mode, r) and mode.duration > 0 for mode in a.modes for r in resources)]
    nonzeros = sum((m.ctx.stretched(mode, m.lst[a.name]) - m.lst[a.name]) * (m.lst[a.name] - m.est[a.name] + 1)
                   for a in acts if a.name in users for mode in a.modes for r in resources if _amount(mode, r))
    if nonzeros > MAX_RESOURCE_NONZEROS:
        raise _too_large(m, f"{nonzeros:,} nonzeros in its resource rows (limit {MAX_RESOURCE_NONZEROS:,})")
    z = _start_binaries(m, users)
    for r in resources:
        _capacity_rows(m, c, r, z)


def _capacity_rows(m: PyomoModel, c: CumulativeRenewable, resource: str, z: dict[tuple[str, int, int], Any]) -> None:
    capacity = m.ctx.resources[resource].capacity
    demand: dict[int, list[Any]] = {}
    peak: dict[int, int] = {}
    for a in m.instance.activities:
        for k, mode in enumerate(a.modes, start=1):
            q = _amount(mode, resource)
            if not q or mode.duration <= 0:
                continue
            # a start at s runs during [s, s + d), stretched over the breaks its work pauses over
            for s in range(m.est[a.name], m.lst[a.name] + 1):
                for t in range(s, m.ctx.stretched(mode, s)):
                    demand.setdefault(t, []).append(q * z[(a.name, k, s)])
            for t in range(m.est[a.name], m.ctx.stretched(mode, m.lst[a.name])):
                peak[t] = peak.get(t, 0) + q
    for t in sorted(demand):
        if peak[t] > capacity:  # otherwise the row can never bind
            m.add(c.id, quicksum(demand[t]) <= capacity)


@encoder(NonrenewableBudget)
def budget(m: PyomoModel, c: NonrenewableBudget) -> None:
    """``Σ_{a,k} q_{a,k,r}·y[a,k] ≤ B_r``."""
    for resource in _scope(m, c.resources, "nonrenewable"):
        used = []
        total = 0
        for a in m.instance.activities:
            for k, mode in enumerate(a.modes, start=1):
                amount = _amount(mode, resource)
                if amount:
                    used.append(amount * m.present[(a.name, k)])
                    total += amount
        m.bounded(c, quicksum(used) if used else 0, None, m.ctx.resources[resource].capacity, total)


@encoder(ModeChoice)
def mode_choice(m: PyomoModel, c: ModeChoice) -> None:
    """Exactly one mode per activity: built into the variables (``Σ_k y[a,k] = 1``)."""


@encoder(TimeWindow)
def time_window(m: PyomoModel, c: TimeWindow) -> None:
    """``S_a ≥ r``, ``E_a ≤ d̄``, ``S_a ≤ ls``, ``E_a ≥ ee`` (rows; soft: deficit/excess variables, tight
    under minimisation)."""
    for w in c.windows:
        for name in members(m.ctx, w.target):
            latest = m.latest_end(name)
            if name in m.performed:
                _optional_window(m, c, w, name, latest)
                continue
            m.bounded(c, m.start[name], w.release, None, m.lst[name])
            if w.deadline is not None:
                m.bounded(c, m.end[name], None, w.deadline, latest)
            if w.latest_start is not None:
                m.bounded(c, m.start[name], None, w.latest_start, m.lst[name])
            if w.earliest_end is not None:
                m.bounded(c, m.end[name], w.earliest_end, None, latest)


def _optional_window(m: PyomoModel, c: TimeWindow, w: Window, name: str, latest_end: int) -> None:
    """The window of an optional activity, each bound relaxed by ``M·(1 − p_a)`` (hard only)."""
    if not c.hard:
        raise unsupported("pyomo", c, form="soft optional-activity")
    off = m.left_out(name)
    m.add(c.id, m.start[name] >= w.release - w.release * off)
    if w.deadline is not None:
        m.add(c.id, m.end[name] <= w.deadline + max(0, latest_end - w.deadline) * off)
    if w.latest_start is not None:
        m.add(c.id, m.start[name] <= w.latest_start + max(0, m.lst[name] - w.latest_start) * off)
    if w.earliest_end is not None:
        m.add(c.id, m.end[name] >= w.earliest_end - w.earliest_end * off)


@encoder(ResourceDowntime)
def downtime(m: PyomoModel, c: ResourceDowntime) -> None:
    """Per mode using a resource and downtime window [s, e) it could overlap, a binary ``after``:
    ``S_a ≥ e − M·(1 − after + 1 − y[a,k])`` and ``E_{a,k} ≤ s + M·(after + 1 − y[a,k])``.
    Pausable breaks are built into the variables of the activities that use the resource (their
    starts lie outside the breaks and their ends are stretched: ``backends/pyomo/pausable.py``)."""
    if not c.hard:
        raise unsupported("pyomo", c, form="soft")
    if c.pausable:
        return
    by_resource: dict[str, list[tuple[int, int]]] = {}
    for w in c.windows:
        by_resource.setdefault(w.resource, []).append((w.start, w.end))
    for resource, spans in by_resource.items():
        merged = merge_spans(spans)
        for a in m.instance.activities:
            for k, mode in enumerate(a.modes, start=1):
                if _amount(mode, resource) and mode.duration > 0:
                    _avoid_windows(m, c, a.name, k, mode.duration, merged)


def _avoid_windows(m: PyomoModel, c: ResourceDowntime, name: str, k: int, duration: int,
                   windows: list[tuple[int, int]]) -> None:
    est, lst = m.est[name], m.lst[name]
    latest = m.ctx.stretched(m.ctx.activities[name].modes[k - 1], lst)  # lst + d unless it pauses over breaks
    off = 1 - m.present[(name, k)]  # 0 exactly when mode k is chosen
    for start, end in windows:
        if latest <= start or est >= end:
            continue  # the start window alone keeps the activity clear of this downtime
        if est + duration > start:  # it cannot finish before the window: it must wait
            m.add(c.id, m.start[name] >= end - (end - est) * off)
            continue
        after = m.new_var("after", 0, 1, binary=True)
        m.add(c.id, m.start[name] >= end - (end - est) * (1 - after + off))
        m.add(c.id, m.mode_end(name, k) <= start + (latest - start) * (after + off))


@encoder(Tardiness)
def tardiness(m: PyomoModel, c: Tardiness) -> None:
    """``T_j ≥ E_a − due`` for every activity a of the target, ``T_j ≥ 0``, weighted (hard: ``E_a ≤ due``)."""
    for d in c.due_dates:
        names = members(m.ctx, d.target)
        if any(name in m.performed for name in names):
            raise unsupported("pyomo", c, form="optional-activity")
        if c.hard:
            for name in names:
                m.add(c.id, m.end[name] <= d.due)
            continue
        if d.weight <= 0:
            continue
        latest = max(m.latest_end(n) for n in names)
        late = m.new_var("tardy", 0, max(0, latest - d.due))
        for name in names:
            m.add(c.id, late >= m.end[name] - d.due)
        m.penalize(c, d.weight * late)
