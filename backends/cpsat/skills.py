"""CP-SAT encoder of ``skill_requirements`` (formal meaning in :mod:`schedc.kinds.skill_requirements`).

For every activity a with rows and every worker w having one of its skills σ: a literal
``z[a,w,σ]`` (w serves σ on a) and ``y[a,w] = Σ_σ z[a,w,σ] ≤ 1`` (w is in a's team, serving one
skill); ``Σ_w z[a,w,σ] = k·p_a`` for every row (a, σ, k), ``p_a`` the activity's presence (1 unless it
is optional). Teams are exactly as large as the rows ask: a larger team only occupies more workers, so
no optimum is lost. Each pair (a, w) has an optional interval ``[S_a, E_a)`` present when ``y[a,w]``, and
every worker one ``AddNoOverlap`` over its intervals (activities of zero length never conflict).
With fixed decisions (``schedc check``'s cross-check) the named team is taken as it is: its members
without a required skill get a literal of their own, fixed to 1 like the others, and ``y ≥ Σ_σ z``.
"""

from __future__ import annotations

from typing import Any

from schedc.backends.base import unsupported
from schedc.backends.cpsat.model import CpsatModel, encoder
from schedc.kinds import SkillRequirements


@encoder(SkillRequirements)
def skill_requirements(m: CpsatModel, c: SkillRequirements) -> None:
    """Cardinality rows per skill requirement and one ``NoOverlap`` per worker over its optional intervals."""
    if not c.hard:
        raise unsupported("cpsat", c, form="soft")
    staff = c.staff(m.ctx)
    rows = c.by_activity()
    fixed = m.fixed.workers if m.fixed is not None else {}
    pairs = c.candidate_pairs(m.ctx, m.start, fixed)
    z: dict[tuple[str, str, str], Any] = {}
    team_of: dict[str, list[tuple[str, Any]]] = m.__dict__.setdefault("teams", {})
    by_worker: dict[str, list[Any]] = {}
    sizes: dict[str, Any] = {}
    for (activity, w), skills in pairs.items():
        literals = []
        for s in dict.fromkeys(skills):
            z[(activity, w, s)] = literal = m.model.new_bool_var(f"z_{activity}_{w}_{s}")
            literals.append(literal)
        y = m.model.new_bool_var(f"y_{activity}_{w}")
        if fixed:
            m.model.add(sum(literals) <= y)
        else:
            m.model.add(sum(literals) == y)
        team_of.setdefault(activity, []).append((w, y))
        durations = [mode.duration for mode in m.ctx.activities[activity].modes]
        if max(durations) == 0:
            continue
        if activity not in sizes:
            start, end = m.start[activity], m.end[activity]
            with m.defining():  # the length of the activity: a definition, on in explain mode too
                sizes[activity] = size = m.model.new_int_var(0, max(0, m.horizon), f"size_{activity}")
                m.model.add(size == end - start)
        by_worker.setdefault(w, []).append(m.model.new_optional_interval_var(
            m.start[activity], sizes[activity], m.end[activity], y, f"W_{activity}_{w}"))
    for activity, needs in rows.items():
        if activity not in m.start:
            continue
        present: Any = m.performed.get(activity, 1)
        for r in needs:
            served = [literal for (a, _w, s), literal in z.items() if a == activity and s == r.skill]
            m.model.add(sum(served) == r.count * present)
    for w in staff:
        if len(by_worker.get(w, ())) > 1:
            m.model.add_no_overlap(by_worker[w])
    _redundant_capacities(m, c, staff)


def _redundant_capacities(m: CpsatModel, c: SkillRequirements, staff: list[str]) -> None:
    """Implied cumulatives that tighten the bound: at any time the activities running need at most as many
    workers as there are (``Σ_rows k`` each), and at most as many holders of σ as hold it (``k`` of σ each) —
    every unit is a distinct worker with its skill. Both hold for every schedule the rule accepts."""
    holders: dict[str, int] = {}
    for w in staff:
        for s in c.skill_set(m.ctx, w):
            holders[s] = holders.get(s, 0) + 1
    demand: dict[str | None, dict[str, int]] = {}
    for r in c.needs:
        if r.activity in m.start:
            for key in (None, r.skill):  # None: every worker
                demand.setdefault(key, {})[r.activity] = demand.get(key, {}).get(r.activity, 0) + r.count
    for key, need in demand.items():
        capacity = len(staff) if key is None else holders.get(key, 0)
        if sum(need.values()) <= capacity:
            continue  # never binding
        intervals, amounts = [], []
        for activity, amount in need.items():
            for k, mode in enumerate(m.ctx.activities[activity].modes, start=1):
                if mode.duration > 0 and (activity, k) in m.intervals:
                    intervals.append(m.interval_of(activity, k, mode.duration))
                    amounts.append(amount)
        if intervals:
            m.model.add_cumulative(intervals, amounts, capacity)
