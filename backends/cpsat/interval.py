"""CP-SAT encoders of the interval kinds (formal meanings in :mod:`schedc.kinds`)."""

from __future__ import annotations

from ortools.sat.python import cp_model

from schedc.backends.base import unsupported
from schedc.backends.cpsat.model import CpsatModel, encoder
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
from schedc.kinds.timing import members, merge_spans


def _scope(m: CpsatModel, resources: object, kind: str) -> list[str]:
    if resources == "all":
        return [r.name for r in m.instance.resources if r.kind == kind]
    return list(resources)  # type: ignore[call-overload]


def _users(m: CpsatModel, resource: str) -> list[tuple[object, int, object]]:
    """(interval, amount, presence) of every mode using ``resource`` with a positive duration."""
    return [(m.interval_of(name, k, mode.duration), amount, m.present[(name, k)])
            for name, k, mode, amount in m.users.get(resource, ()) if mode.duration > 0]


@encoder(PrecedenceLag)
def precedence(m: CpsatModel, c: PrecedenceLag) -> None:
    """``X_a + δ ≤ Y_b`` (``=`` for *at* relations); soft: one penalty unit per broken edge."""
    for e in c.edges:
        relation = _relation(m, e)
        performed = m.when_performed(e.before, e.after)  # vacuous when an optional end is left out
        if c.hard:
            m.model.add(relation).only_enforce_if(performed)
        else:
            broken = m.model.new_bool_var(f"broken_{e.before}_{e.after}")
            m.model.add(relation).only_enforce_if([broken.Not(), *performed])
            m.penalize(c, broken)


def _relation(m: CpsatModel, e: Edge) -> cp_model.BoundedLinearExpression:
    """The linear relation of an edge: the classic ``S_b ≥ E_a + lag`` or the general form."""
    x = (m.start if e.relation[0] == "s" else m.end)[e.before] + e.lag
    y = (m.start if e.relation[-1] == "s" else m.end)[e.after]
    return x == y if "=" in e.relation else x <= y


@encoder(UnaryNoOverlap)
def unary(m: CpsatModel, c: UnaryNoOverlap) -> None:
    """``AddNoOverlap`` over the (optional) intervals using each unary resource."""
    if not c.hard:
        raise unsupported("cpsat", c, form="soft")
    for resource in _scope(m, c.resources, "unary"):
        m.model.add_no_overlap([interval for interval, _amount, _present in _users(m, resource)])


@encoder(CumulativeRenewable)
def cumulative(m: CpsatModel, c: CumulativeRenewable) -> None:
    """``AddCumulative`` with each mode's demand; optional intervals count only when chosen."""
    if not c.hard:
        raise unsupported("cpsat", c, form="soft")
    for resource in _scope(m, c.resources, "renewable"):
        users = _users(m, resource)
        m.model.add_cumulative([u[0] for u in users], [u[1] for u in users], m.ctx.resources[resource].capacity)


@encoder(NonrenewableBudget)
def budget(m: CpsatModel, c: NonrenewableBudget) -> None:
    """``Σ_a q_{a,r}(mode_a) ≤ B_r`` as a linear constraint over the mode literals."""
    for resource in _scope(m, c.resources, "nonrenewable"):
        users = m.users.get(resource, ())
        used = sum(amount * m.present[(name, k)] for name, k, _mode, amount in users)
        m.bounded(c, used, None, m.ctx.resources[resource].capacity, sum(u[3] for u in users))


@encoder(ModeChoice)
def mode_choice(m: CpsatModel, c: ModeChoice) -> None:
    """Exactly one mode per activity: built into the variables (one presence literal is true)."""


@encoder(TimeWindow)
def time_window(m: CpsatModel, c: TimeWindow) -> None:
    """``S_a ≥ r``, ``E_a ≤ d̄``, ``S_a ≤ ls``, ``E_a ≥ ee``; soft: the missed time units
    (``max(0, r − S_a)``, ``max(0, E_a − d̄)``, …) are the penalty."""
    for w in c.windows:
        for name in members(m.ctx, w.target):
            start, end = m.start[name], m.end[name]
            if c.hard:
                performed = m.when_performed(name)  # a left-out activity has no window to keep
                m.model.add(start >= w.release).only_enforce_if(performed)
                if w.deadline is not None:
                    m.model.add(end <= w.deadline).only_enforce_if(performed)
                if w.latest_start is not None:
                    m.model.add(start <= w.latest_start).only_enforce_if(performed)
                if w.earliest_end is not None:
                    m.model.add(end >= w.earliest_end).only_enforce_if(performed)
                continue
            if name in m.performed:
                raise unsupported("cpsat", c, form="soft optional-activity")
            m.penalize(c, _excess(m, w.release - start, w.release, f"early_{name}"))
            if w.deadline is not None:
                m.penalize(c, _excess(m, end - w.deadline, max(0, m.horizon - w.deadline), f"late_{name}"))
            if w.latest_start is not None:
                m.penalize(c, _excess(m, start - w.latest_start, max(0, m.horizon - w.latest_start), f"ls_{name}"))
            if w.earliest_end is not None:
                m.penalize(c, _excess(m, w.earliest_end - end, w.earliest_end, f"ee_{name}"))


def _excess(m: CpsatModel, expr: cp_model.LinearExprT, upper: int, label: str) -> cp_model.IntVar:
    """``max(0, expr)`` as a variable equal to it (exact, so a fixed schedule gives the evaluator's value)."""
    var = m.model.new_int_var(0, max(0, upper), label)
    m.model.add_max_equality(var, [0, expr])
    return var


@encoder(ResourceDowntime)
def downtime(m: CpsatModel, c: ResourceDowntime) -> None:
    """No interval using a resource overlaps its downtime.

    One ``AddCumulative`` per resource of capacity K = the number of its users: each user
    demands 1 and each (merged) downtime window is a fixed interval demanding K, so users may
    overlap each other (that is the business of ``unary_no_overlap``/``cumulative_renewable``)
    but never a window.
    """
    if not c.hard:
        raise unsupported("cpsat", c, form="soft")
    if c.pausable:
        _no_start_in_breaks(m, c)
        return
    windows: dict[str, list[tuple[int, int]]] = {}
    for w in c.windows:
        windows.setdefault(w.resource, []).append((w.start, w.end))
    for resource, spans in windows.items():
        users = [u[0] for u in _users(m, resource)]
        if not users:
            continue
        fixed = [m.model.new_fixed_size_interval_var(start, end - start, f"down_{resource}_{start}")
                 for start, end in merge_spans(spans)]
        capacity = len(users)
        m.model.add_cumulative(users + fixed, [1] * len(users) + [capacity] * len(fixed), capacity)


@encoder(Tardiness)
def tardiness(m: CpsatModel, c: Tardiness) -> None:
    """``C_j = max_a E_a``; soft: ``T_j = max(0, E_a − due for all a)`` weighted; hard: ``E_a ≤ due``."""
    for d in c.due_dates:
        if any(name in m.performed for name in members(m.ctx, d.target)):
            raise unsupported("cpsat", c, form="optional-activity")
        ends = [m.end[name] for name in members(m.ctx, d.target)]
        if c.hard:
            for end in ends:
                m.model.add(end <= d.due)
        elif d.weight > 0:
            late = m.model.new_int_var(0, max(0, m.horizon - d.due), f"tardy_{d.target}")
            m.model.add_max_equality(late, [0, *(end - d.due for end in ends)])
            m.penalize(c, d.weight * late)


def _no_start_in_breaks(m: CpsatModel, c: ResourceDowntime) -> None:
    """Pausable breaks: work pauses over them (the stretched ends are built with the activity
    variables), so the rule only keeps starts out of ``[s, e)`` — a domain of allowed starts."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for w in c.windows:
        spans.setdefault(w.resource, []).append((w.start, w.end))
    for resource, windows in spans.items():
        breaks = merge_spans(windows)
        allowed, t = [], 0
        for lo, hi in breaks:
            if lo > t:
                allowed.append([t, lo - 1])
            t = hi
        allowed.append([t, max(t, m.horizon * 2 + 1)])
        domain = cp_model.Domain.from_intervals(allowed)
        for name, k, mode, _amount in m.users.get(resource, ()):
            if mode.duration > 0:
                literal = m.present[(name, k)]
                row = m.model.add_linear_expression_in_domain(m.start[name], domain)
                if not isinstance(literal, int):
                    row.only_enforce_if(literal)
