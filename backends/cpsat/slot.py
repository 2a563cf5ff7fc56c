"""CP-SAT encoders of the slot-assignment kinds (formal meanings in :mod:`schedc.kinds`).

Run and window penalties are linearised with indicator Booleans as in the reference's
model sketches: a maximum run length L costs one unit per window of L+1 matching
elements; a minimum m costs (m − k) per maximal run of exactly k < m elements; patterns and
window tables cost per fully matching start or window.
"""

from __future__ import annotations

from itertools import product

from ortools.sat.python import cp_model

from schedc.backends.base import unsupported
from schedc.backends.cpsat.model import CpsatModel, encoder
from schedc.kinds import (
    AssignmentCost,
    CapacityOverflow,
    Compactness,
    ConsecutiveRunBounds,
    CountBounds,
    Coverage,
    OnePerSlot,
    PatternProhibition,
    SlotConflict,
    Spread,
    Stability,
    Unavailability,
    ValueFilter,
    WindowPatternCost,
)
from schedc.kinds.costs import ANY_DAY

WORK = ValueFilter(mode="work")
FREE = ValueFilter(mode="free")


@encoder(OnePerSlot)
def one_per_slot(m: CpsatModel, c: OnePerSlot) -> None:
    ctx = m.ctx
    groups = []
    for d in range(ctx.days):
        for p in range(ctx.periods):
            if c.per == "agent":
                groups += [[m.x[(e, d, p, v)] for v in ctx.values] for e in ctx.agents]
            else:
                groups += [[m.x[(e, d, p, v)] for e in ctx.agents] for v in ctx.values]
    for group in groups:
        if c.hard:
            (m.model.AddExactlyOne if c.exactly else m.model.AddAtMostOne)(group)
        else:
            m.bounded(c, sum(group), 1 if c.exactly else None, 1, len(group))


@encoder(Coverage)
def coverage(m: CpsatModel, c: Coverage) -> None:
    ctx = m.ctx
    listed = set()
    for r in c.requirements:
        periods = range(ctx.periods) if r.period is None else (r.period,)
        listed.update((r.day, p, r.value) for p in periods)
        expr = sum(m.x[(e, r.day, p, r.value)] for e in ctx.agents for p in periods)
        m.bounded(c, expr, r.min, r.max, len(ctx.agents) * len(periods))
    if c.complete:
        for d in range(ctx.days):
            for p in range(ctx.periods):
                for v in ctx.values:
                    if (d, p, v) not in listed:
                        m.bounded(c, sum(m.x[(e, d, p, v)] for e in ctx.agents), None, 0, len(ctx.agents))


def _count_expr(m: CpsatModel, agent: str, values: ValueFilter):
    ctx = m.ctx
    if values.mode == "free":  # slots (day, period) with no working value
        working = [v for v in ctx.values if v != ctx.free]
        return sum(1 - m.any_of([m.x[(agent, d, p, v)] for v in working], f"busy_{agent}_{d}_{p}")
                   for d in range(ctx.days) for p in range(ctx.periods))
    chosen = [v for v in ctx.values if v != ctx.free] if values.mode == "work" else list(values.values)
    return sum(v for d in range(ctx.days) for v in m.slot_vars(agent, d, chosen))


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
                m.model.add_at_most_one([m.x[(e, d, p, v)] for e in members for v in ctx.values])
        return
    adjacent = c.conflicts(ctx)
    pairs = sorted({(a, b) for a, others in adjacent.items() for b in others if a < b})
    for d, p in slots:
        for a, b in pairs:
            m.bounded(c, m.occupied(a, d, p) + m.occupied(b, d, p), None, 1, 2)


@encoder(Unavailability)
def unavailability(m: CpsatModel, c: Unavailability) -> None:
    for u in c.slots:
        periods = range(m.ctx.periods) if u.period is None else (u.period,)
        for p in periods:
            for v in m.ctx.values:
                if c.hard:
                    m.model.add(m.x[(u.agent, u.day, p, v)] == 0)
                else:
                    m.penalize(c, m.x[(u.agent, u.day, p, v)])


@encoder(ConsecutiveRunBounds)
def runs(m: CpsatModel, c: ConsecutiveRunBounds) -> None:
    for agent in m.ctx.select(c.agents):
        seq = m.sequence(agent, c.values, c.over)
        n = len(seq)
        if c.max is not None:
            for t in range(n - c.max):
                m.forbid_or_penalize(c, seq[t:t + c.max + 1])
        if c.min is not None:
            for length in range(1, c.min):
                for t in range(n - length + 1):
                    run = list(seq[t:t + length])
                    border = ([1 - seq[t - 1]] if t > 0 else []) + ([1 - seq[t + length]] if t + length < n else [])
                    m.forbid_or_penalize(c, run + border, cost=c.min - length)


def _entry(m: CpsatModel, agent: str, day: int, entry: str):
    if entry == "work":
        return m.matches(agent, day, WORK)
    if entry == "free":
        return m.matches(agent, day, FREE)
    return m.matches(agent, day, ValueFilter(mode="values", values=(entry,)))


@encoder(PatternProhibition)
def patterns(m: CpsatModel, c: PatternProhibition) -> None:
    size = len(c.pattern)
    starts = [t for t in range(m.ctx.days - size + 1) if c.anchor is None or m.ctx.weekday(t) == c.anchor]
    for agent in m.ctx.select(c.agents):
        for t in starts:
            m.forbid_or_penalize(c, [_entry(m, agent, t + i, e) for i, e in enumerate(c.pattern)])


@encoder(WindowPatternCost)
def window_costs(m: CpsatModel, c: WindowPatternCost) -> None:
    windows = [w for w in m.ctx.windows(c.windows) if len(w) >= c.min_length]
    table = {p.pattern: p.cost for p in c.table}
    for agent in m.ctx.select(c.agents):
        for window in windows:
            if c.cost == "table":
                for pattern, cost in table.items():
                    if len(pattern) == len(window) and cost:
                        cells = [m.matches(agent, d, WORK if ch == "W" else FREE) for d, ch in zip(window, pattern,
                                                                                                     strict=True)]
                        m.forbid_or_penalize(c, cells, cost)
            else:
                _mixed_values(m, c, agent, window)


def _mixed_values(m: CpsatModel, c: WindowPatternCost, agent: str, window: tuple[int, ...]) -> None:
    """Cost Σ_t (L − n_t) for every combination of working values over a fully worked window."""
    working = [v for v in m.ctx.values if v != m.ctx.free]
    for combo in product(working, repeat=len(window)):
        cost = sum(len(window) - combo.count(v) for v in set(combo))
        if cost:
            cells = [m.matches(agent, d, ValueFilter(mode="values", values=(v,))) for d, v in zip(window, combo,
                                                                                                 strict=True)]
            m.forbid_or_penalize(c, cells, cost)


@encoder(AssignmentCost)
def assignment_cost(m: CpsatModel, c: AssignmentCost) -> None:
    for e in c.entries:
        if not e.cost:
            continue
        days = range(m.ctx.days) if e.day == ANY_DAY else (e.day,)
        vf = WORK if e.value == "*" else ValueFilter(mode="values", values=(e.value,))
        for d in days:
            held = m.matches(e.agent, d, vf)
            literal = held if e.when == "assigned" else 1 - held
            if c.hard:
                m.model.add(literal == 0)
            else:
                m.penalize(c, e.cost * literal)


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
    for agent in m.ctx.select(c.agents):
        used = [m.any_of(m.slot_vars(agent, d), f"day_{agent}_{d}") for d in range(m.ctx.days)]
        m.bounded(c, sum(used), m.ctx.bound(c.min, agent), None, m.ctx.days)


@encoder(Stability)
def stability(m: CpsatModel, c: Stability) -> None:
    ctx = m.ctx
    for agent in ctx.select(c.agents):
        used = [m.any_of([m.x[(agent, d, p, v)] for d in range(ctx.days) for p in range(ctx.periods)],
                         f"uses_{agent}_{v}") for v in ctx.values]
        m.bounded(c, sum(used), None, c.max, len(used))


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
