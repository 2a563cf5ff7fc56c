"""CP-SAT encoders of the slot-assignment kinds (formal meanings in :mod:`schedc.kinds`).

Run and window penalties are linearised with indicator Booleans as in the reference's
model sketches: a maximum run length L costs one unit per window of L+1 matching
elements; a minimum m costs (m − k) per maximal run of exactly k < m elements; patterns and
window tables cost per fully matching start or window.
"""

from __future__ import annotations

from ortools.sat.python import cp_model

from schedc.backends.base import unsupported
from schedc.backends.cpsat.model import CpsatModel, encoder
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

WORK = ValueFilter(mode="work")
FREE = ValueFilter(mode="free")


@encoder(OnePerSlot)
def one_per_slot(m: CpsatModel, c: OnePerSlot) -> None:
    """At most (exactly) one value per agent-slot or one agent per value-slot. Hard and per
    agent, the agent-slot occupancy Boolean ``u = Σ_v x`` (which other rules reuse) states it."""
    ctx = m.ctx
    if c.hard and c.per == "agent" and not c.exactly and m.exclusive_slots:
        for e in ctx.agents:
            for d in range(ctx.days):
                for p in range(ctx.periods):
                    m.occupied(e, d, p)
        return
    groups = []
    for d in range(ctx.days):
        for p in range(ctx.periods):
            if c.per == "agent":
                groups += [[m.x[(e, d, p, v)] for v in ctx.values] for e in ctx.agents]
            else:
                groups += [[m.x[(e, d, p, v)] for e in ctx.agents] for v in ctx.values]
    for group in groups:
        if c.hard:
            (m.model.add_exactly_one if c.exactly else m.model.add_at_most_one)(group)
        else:
            m.bounded(c, cp_model.LinearExpr.sum(group), 1 if c.exactly else None, 1, len(group))


@encoder(Coverage)
def coverage(m: CpsatModel, c: Coverage) -> None:
    ctx = m.ctx
    listed = set()
    for r in c.requirements:
        periods = range(ctx.periods) if r.period is None else (r.period,)
        listed.update((r.day, p, r.value) for p in periods)
        expr = cp_model.LinearExpr.sum([m.x[(e, r.day, p, r.value)] for e in ctx.agents for p in periods])
        m.bounded(c, expr, r.min, r.max, len(ctx.agents) * len(periods))
    if c.complete:
        for d in range(ctx.days):
            for p in range(ctx.periods):
                for v in ctx.values:
                    if (d, p, v) not in listed:
                        m.bounded(c, cp_model.LinearExpr.sum([m.x[(e, d, p, v)] for e in ctx.agents]), None, 0,
                                  len(ctx.agents))


@encoder(SkillEligibility)
def skill_eligibility(m: CpsatModel, c: SkillEligibility) -> None:
    """The cells of every (agent, value) pair lacking a required skill: 0 when hard, each one a penalty
    unit when soft."""
    ctx = m.ctx
    for agent, value in c.ineligible(ctx):
        cells = [m.x[(agent, d, p, value)] for d in range(ctx.days) for p in range(ctx.periods)]
        if c.hard:
            m.model.add(cp_model.LinearExpr.sum(cells) == 0)
        else:
            m.penalize(c, cp_model.LinearExpr.sum(cells))


@encoder(SkillDemand)
def skill_demand(m: CpsatModel, c: SkillDemand) -> None:
    """``lo ≤ Σ x[e,(d,p),v] ≤ hi`` over the agents holding the row's skill, per row."""
    ctx = m.ctx
    for r in c.needs:
        periods = range(ctx.periods) if r.period is None else (r.period,)
        holders = c.holders(ctx, r.skill)
        expr = cp_model.LinearExpr.sum([m.x[(e, r.day, p, r.value)] for e in holders for p in periods])
        m.bounded(c, expr, r.min, r.max, len(holders) * len(periods))


def _count_expr(m: CpsatModel, agent: str, values: ValueFilter):
    ctx = m.ctx
    if values.mode == "free":  # slots (day, period) with no working value
        working = [v for v in ctx.values if v != ctx.free]
        return sum(1 - m.any_of([m.x[(agent, d, p, v)] for v in working], f"busy_{agent}_{d}_{p}")
                   for d in range(ctx.days) for p in range(ctx.periods))
    chosen = [v for v in ctx.values if v != ctx.free] if values.mode == "work" else list(values.values)
    if m.exclusive_slots and len(chosen) == len(ctx.values):  # every value counts: the occupancies
        return cp_model.LinearExpr.sum([m.occupied(agent, d, p) for d in range(ctx.days) for p in range(ctx.periods)])
    return cp_model.LinearExpr.sum([v for d in range(ctx.days) for v in m.slot_vars(agent, d, chosen)])


@encoder(CountBounds)
def count_bounds(m: CpsatModel, c: CountBounds) -> None:
    upper = m.ctx.days * m.ctx.periods * max(1, len(m.ctx.values))
    for agent in m.ctx.select(c.agents):
        m.bounded(c, _count_expr(m, agent, c.values), m.ctx.bound(c.min, agent), m.ctx.bound(c.max, agent), upper)


@encoder(SlotConflict)
def slot_conflict(m: CpsatModel, c: SlotConflict) -> None:
    """Conflicting agents share no slot. Hard, with at most one value per agent-slot: one
    at-most-one clause per clique (curriculum, teacher) and slot over the members' slot
    variables — the strong clique form. Otherwise per pair: ``u[a,s] + u[b,s] ≤ 1`` on the 0/1
    occupancy, so that a soft form counts each pair once as the evaluator does."""
    ctx = m.ctx
    slots = [(d, p) for d in range(ctx.days) for p in range(ctx.periods)]
    if c.hard and m.exclusive_slots:
        for members in c.cliques(ctx):
            for d, p in slots:
                m.model.add_at_most_one([m.occupied(e, d, p) for e in members])
        return
    adjacent = c.conflicts(ctx)
    pairs = sorted({(a, b) for a, others in adjacent.items() for b in others if a < b})
    for d, p in slots:
        for a, b in pairs:
            m.bounded(c, m.occupied(a, d, p) + m.occupied(b, d, p), None, 1, 2)


@encoder(Unavailability)
def unavailability(m: CpsatModel, c: Unavailability) -> None:
    """Forbidden assignments. Hard: the model creates those cells as the constant 0 (see
    ``CpsatModel._slot_variables``), nothing left to add (in explain mode: their sum is 0).
    Soft: one penalty term per cell."""
    if c.hard and m.cells_forbidden:
        return
    cells = [m.x[(u.agent, u.day, p, v)] for u in c.slots
             for p in (range(m.ctx.periods) if u.period is None else (u.period,)) for v in m.ctx.values]
    if cells and c.hard:
        m.model.add(cp_model.LinearExpr.sum(cells) == 0)
    elif cells:
        m.penalize(c, cp_model.LinearExpr.sum(cells))


for _kind, _encode in (SHARED | SPACING_ENCODERS).items():  # sequence and cost kinds: one formulation for both backends
    encoder(_kind)(_encode)


@encoder(CapacityOverflow)
def capacity_overflow(m: CpsatModel, c: CapacityOverflow) -> None:
    """``Σ max(0, demand − capacity) · x`` over the (agent, value) pairs that overflow."""
    ctx = m.ctx
    for agent in ctx.agents:
        demand = ctx.attrs(ctx.agent_cls, agent).get(c.demand, 0)
        for v in ctx.values:
            over = demand - ctx.attrs(ctx.value_cls, v).get(c.capacity, 0)
            if over <= 0:
                continue
            cells = [m.x[(agent, d, p, v)] for d in range(ctx.days) for p in range(ctx.periods)]
            if c.hard:
                for var in cells:
                    m.model.add(var == 0)
            else:
                m.penalize(c, over * cp_model.LinearExpr.sum(cells))


@encoder(Spread)
def spread(m: CpsatModel, c: Spread) -> None:
    """``Σ_d used_d ≥ min(e)``, ``used_d`` the OR of the occupancies of e's members (e itself for an
    agent) in the periods of day d."""
    for k, (name, members) in enumerate(c.units(m.ctx)):
        used = [m.any_of([m.occupied(a, d, p) for a in members for p in range(m.ctx.periods)],
                         f"day_{c.id}_{k}_{d}") for d in range(m.ctx.days)]
        m.bounded(c, cp_model.LinearExpr.sum(used), m.ctx.bound(c.min, name, c.agents.cls), None, m.ctx.days)


@encoder(Stability)
def stability(m: CpsatModel, c: Stability) -> None:
    ctx = m.ctx
    for agent in ctx.select(c.agents):
        used = [m.any_of([m.x[(agent, d, p, v)] for d in range(ctx.days) for p in range(ctx.periods)],
                         f"uses_{agent}_{v}") for v in ctx.values]
        m.bounded(c, cp_model.LinearExpr.sum(used), None, c.max, len(used))


@encoder(Compactness)
def compactness(m: CpsatModel, c: Compactness) -> None:
    """Isolated occupancy of each group, ``a_p = Σ_{e ∈ g} u[e,p]`` with ``u`` the 0/1 occupancy
    of a member: ``iso_p ≥ a_p − M·(a_{p−1} + a_{p+1})`` (same-day
    neighbours only, M = group size) is exact under minimisation: ``a_p`` when both
    neighbours are empty, 0 otherwise."""
    if c.hard:
        raise unsupported("cpsat", c, form="hard")
    ctx = m.ctx
    for group, attrs in ctx.by_class.get(c.groups, {}).items():
        members = list(attrs.get(c.members, ()))
        size = len(members)
        for d in range(ctx.days):
            occ = []  # one occupancy variable per period, so each sum is flattened once
            for p in range(ctx.periods):
                var = m.model.new_int_var(0, size, f"occ_{group}_{d}_{p}")
                m.model.add(var == cp_model.LinearExpr.sum([m.occupied(e, d, p) for e in members]))
                occ.append(var)
            for p in range(ctx.periods):
                neighbours = sum(occ[q] for q in (p - 1, p + 1) if 0 <= q < ctx.periods)
                iso = m.model.new_int_var(0, size, f"iso_{group}_{d}_{p}")
                m.model.add(iso >= occ[p] - size * neighbours)
                m.penalize(c, iso)
