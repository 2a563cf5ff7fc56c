"""Pyomo encoders of the slot-assignment kinds (formal meanings in :mod:`schedc.kinds`).

The linearisations are those of the CP-SAT backend, written as rows over the binaries
``x[e,d,p,v]``:

- counts (``one_per_slot``, ``coverage``, ``count_bounds``): sums of x with a deficit and an
  excess variable when soft;
- runs (``consecutive_run_bounds``): a maximum L costs one unit per window of L+1 matching
  elements (Σ ≤ L when hard); a minimum m costs (m − k) per isolated run of exactly k < m
  elements, detected by an AND-indicator over the run and its two negated borders;
- patterns and window tables: AND-indicators over the cells, which are exact "day matches"
  literals (a negated literal must be exact, see :meth:`PyomoModel.any_of`);
- ``mixed_values``: one AND-indicator per combination of working values over a fully worked
  window, costing Σ_t (L − n_t);
- assignment costs and capacity overflows: linear in x (or in exact "day matches" literals);
- ``spread``: day-used indicators, ``stability``: value-used indicators (one-sided, see there);
- ``compactness``: ``iso ≥ a_p − M·(a_{p−1} + a_{p+1})`` over group occupancies;
- ``slot_conflict``: per conflicting pair and slot ``u_a + u_b ≤ 1`` (u: occupancy);
- ``unavailability``: forbidden x fixed to 0 by rows;
- ``skill_eligibility``: the x of an agent and a value needing a skill it lacks, 0 or priced one each;
- ``skill_demand``: sums of x over the agents with the row's skill, as ``coverage`` rows.
"""

from __future__ import annotations

from typing import Any

from schedc.backends.base import unsupported
from schedc.backends.pyomo.linear import quicksum
from schedc.backends.pyomo.model import PyomoModel, encoder
from schedc.backends.sequence_encoders import SHARED
from schedc.backends.spacing_encoders import SPACING_ENCODERS
from schedc.kinds import (
    CapacityOverflow,
    Compactness,
    CountBounds,
    Coverage,
    OnePerSlot,
    SkillDemand,
    SkillEligibility,
    SlotConflict,
    Spread,
    Stability,
    Unavailability,
    ValueFilter,
)

FREE = ValueFilter(mode="free")


def _sum(items: list[Any]) -> Any:
    return quicksum(items) if items else 0


@encoder(OnePerSlot)
def one_per_slot(m: PyomoModel, c: OnePerSlot) -> None:
    """Per agent-slot (``Σ_v x ≤ 1``, ``= 1`` with exactly) or per value-slot (``Σ_e x ≤ 1``)."""
    ctx = m.ctx
    for d in range(ctx.days):
        for p in range(ctx.periods):
            if c.per == "agent":
                groups = [[m.x[(e, d, p, v)] for v in ctx.values] for e in ctx.agents]
            else:
                groups = [[m.x[(e, d, p, v)] for e in ctx.agents] for v in ctx.values]
            for group in groups:
                if c.hard and c.exactly:
                    m.add(c.id, _sum(group) == 1)
                else:
                    m.bounded(c, _sum(group), 1 if c.exactly else None, 1, len(group))


@encoder(Coverage)
def coverage(m: PyomoModel, c: Coverage) -> None:
    """``lo ≤ Σ_e x[e,s,v] ≤ hi`` per requirement; with ``complete``, 0 for unlisted (slot, value)."""
    ctx = m.ctx
    listed = set()
    for r in c.requirements:
        periods = range(ctx.periods) if r.period is None else (r.period,)
        listed.update((r.day, p, r.value) for p in periods)
        expr = _sum([m.x[(e, r.day, p, r.value)] for e in ctx.agents for p in periods])
        m.bounded(c, expr, r.min, r.max, len(ctx.agents) * len(periods))
    if c.complete:
        for d in range(ctx.days):
            for p in range(ctx.periods):
                for v in ctx.values:
                    if (d, p, v) not in listed:
                        m.bounded(c, _sum([m.x[(e, d, p, v)] for e in ctx.agents]), None, 0, len(ctx.agents))


@encoder(SkillEligibility)
def skill_eligibility(m: PyomoModel, c: SkillEligibility) -> None:
    """``Σ_s x[e,s,v] = 0`` for every (agent, value) pair lacking a required skill; soft: that sum is the
    pair's penalty."""
    ctx = m.ctx
    for agent, value in c.ineligible(ctx):
        cells = _sum([m.x[(agent, d, p, value)] for d in range(ctx.days) for p in range(ctx.periods)])
        if c.hard:
            m.add(c.id, cells == 0)
        else:
            m.penalize(c, cells)


@encoder(SkillDemand)
def skill_demand(m: PyomoModel, c: SkillDemand) -> None:
    """``lo ≤ Σ x[e,(d,p),v] ≤ hi`` per row, over the agents holding the row's skill."""
    ctx = m.ctx
    for r in c.needs:
        periods = range(ctx.periods) if r.period is None else (r.period,)
        holders = c.holders(ctx, r.skill)
        expr = _sum([m.x[(e, r.day, p, r.value)] for e in holders for p in periods])
        m.bounded(c, expr, r.min, r.max, len(holders) * len(periods))


def _count_expr(m: PyomoModel, agent: str, values: ValueFilter) -> Any:
    """Matching assignments of an agent; for ``free``, slots with no working value."""
    ctx = m.ctx
    if values.mode == "free":
        working = m.working_values()
        return _sum([1 - m.or_of_slot(agent, d, (p,), working, "busy") for d in range(ctx.days)
                     for p in range(ctx.periods)])
    chosen = m.working_values() if values.mode == "work" else list(values.values)
    return _sum([var for d in range(ctx.days) for var in m.slot_vars(agent, d, chosen)])


@encoder(CountBounds)
def count_bounds(m: PyomoModel, c: CountBounds) -> None:
    """``min(e) ≤ count(e) ≤ max(e)`` per selected agent."""
    upper = m.ctx.days * m.ctx.periods * max(1, len(m.ctx.values))
    for agent in m.ctx.select(c.agents):
        m.bounded(c, _count_expr(m, agent, c.values), m.ctx.bound(c.min, agent), m.ctx.bound(c.max, agent), upper)


@encoder(SlotConflict)
def slot_conflict(m: PyomoModel, c: SlotConflict) -> None:
    """Per conflicting pair (a, b) and slot: ``u_a + u_b ≤ 1`` with u the exact 0/1 occupancy
    (the kind's definition: a course holding two rooms at once still counts once); soft:
    an indicator ``w ≥ u_a + u_b − 1`` per pair and slot."""
    adjacent = c.conflicts(m.ctx)
    pairs = sorted({(a, b) for a, others in adjacent.items() for b in others if a < b})
    ctx = m.ctx
    for d in range(ctx.days):
        for p in range(ctx.periods):
            for a, b in pairs:
                if a in ctx.agents and b in ctx.agents:
                    m.forbid_or_penalize(c, [m.occupied(a, d, p), m.occupied(b, d, p)])


@encoder(Unavailability)
def unavailability(m: PyomoModel, c: Unavailability) -> None:
    """``x[e,d,p,v] = 0`` for every forbidden cell; soft: each such assignment costs 1.
    Cells are deduplicated: the evaluator counts an assignment once however many rows forbid it."""
    cells: dict[tuple[str, int, int], None] = {}
    for u in c.slots:
        for p in range(m.ctx.periods) if u.period is None else (u.period,):
            cells[(u.agent, u.day, p)] = None
    for agent, day, period in cells:
        for v in m.ctx.values:
            var = m.x.get((agent, day, period, v))
            if var is None:
                continue
            if c.hard:
                m.add(c.id, var == 0)
            else:
                m.penalize(c, var)


for _kind, _encode in (SHARED | SPACING_ENCODERS).items():  # sequence and cost kinds: one formulation for both backends
    encoder(_kind)(_encode)


@encoder(CapacityOverflow)
def capacity_overflow(m: PyomoModel, c: CapacityOverflow) -> None:
    """``Σ max(0, demand_e − capacity_v)·x[e,s,v]`` (hard: those x are 0)."""
    ctx = m.ctx
    capacity = {v: ctx.attrs(ctx.value_cls, v).get(c.capacity, 0) for v in ctx.values}
    for agent in ctx.agents:
        demand = ctx.attrs(ctx.agent_cls, agent).get(c.demand, 0)
        for v in ctx.values:
            over = demand - capacity[v]
            if over <= 0:
                continue
            cells = [m.x[(agent, d, p, v)] for d in range(ctx.days) for p in range(ctx.periods)]
            if c.hard:
                for var in cells:
                    m.add(c.id, var == 0)
            else:  # one term per (agent, value): the same objective, a tenth of the penalty terms
                m.penalize(c, over * quicksum(cells))


@encoder(Spread)
def spread(m: PyomoModel, c: Spread) -> None:
    """``Σ_d used_d ≥ min(e)`` with ``used_d ≤ Σ_{a,p,v} x[a,d,p,v]`` over e's members (e itself for an
    agent): only the upper side is needed, since both the hard row and the deficit (minimised) push
    ``used`` up."""
    for name, members in c.units(m.ctx):
        used = [m.any_of([x for a in members for x in m.slot_vars(a, d)], "day_used", owner=c.id, sides="leq")
                for d in range(m.ctx.days)]
        m.bounded(c, _sum(used), m.ctx.bound(c.min, name, c.agents.cls), None, m.ctx.days)


@encoder(Stability)
def stability(m: PyomoModel, c: Stability) -> None:
    """``Σ_v used_v ≤ max`` with ``used_v ≥ x[e,s,v]`` for every slot: only the lower side is
    needed, since both the hard row and the excess (minimised) push ``used`` down."""
    ctx = m.ctx
    for agent in ctx.select(c.agents):
        used = [m.any_of([m.x[(agent, d, p, v)] for d in range(ctx.days) for p in range(ctx.periods)],
                         "value_used", owner=c.id, sides="geq") for v in ctx.values]
        m.bounded(c, _sum(used), None, c.max, len(used))


@encoder(Compactness)
def compactness(m: PyomoModel, c: Compactness) -> None:
    """Isolated occupancy of each group, ``a_p = Σ_{e ∈ g} u[e,p]`` with u the exact 0/1
    occupancy: ``iso_p ≥ a_p − M·(a_{p−1} + a_{p+1})`` (same-day neighbours, M = group size),
    ``iso_p ≥ 0`` integer, is exact under minimisation: a_p when both neighbours are empty,
    0 otherwise."""
    if c.hard:
        raise unsupported("pyomo", c, form="hard")
    ctx = m.ctx
    for _group, attrs in ctx.by_class.get(c.groups, {}).items():
        members = [e for e in attrs.get(c.members, ()) if e in ctx.agents]
        size = len(members)
        if not size:
            continue
        for d in range(ctx.days):
            occ = [_sum([m.occupied(e, d, p) for e in members]) for p in range(ctx.periods)]
            for p in range(ctx.periods):
                neighbours = _sum([occ[q] for q in (p - 1, p + 1) if 0 <= q < ctx.periods])
                iso = m.new_var("isolated", 0, size)
                m.add(c.id, iso >= occ[p] - size * neighbours)
                m.penalize(c, iso)
