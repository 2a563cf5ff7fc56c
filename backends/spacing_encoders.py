"""Encoders shared by the CP-SAT and the Pyomo backends for the spacing and room-sharing kinds
(:mod:`schedc.kinds.spacing`), written once against the operations both slot models offer: ``ctx``,
``x[(e, d, p, v)]`` (a 0/1 variable or the constant 0 of a forbidden cell), ``occupied(e, d, p)``
(the exact 0/1 occupancy ``u[e,s]``), ``any_of(literals, name)`` (an exact OR), ``bounded``,
``forbid_or_penalize``, ``penalize`` and ``require``.

Products of two occupancies (``spacing``) are AND indicators ``z ≥ u + u' − 1``, exact under
minimisation since their cost is positive; a value-mix is ``extra ≥ Σ_δ h_δ − 1`` with ``h_δ`` the OR of the
cells of agents whose attribute is δ, so that the penalty is the number of distinct attribute values less
one (0 in an empty cell).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedc.kinds import Constraint, CountBounds, SharedCapacity, SlotCost, SlotOrder, Spacing, ValueMix


def _is_zero(m: Any, literal: Any) -> bool:
    return (isinstance(literal, int) and literal == 0) or literal is getattr(m, "zero", None)


def _slots(m: Any) -> list[tuple[int, int]]:
    return [(d, p) for d in range(m.ctx.days) for p in range(m.ctx.periods)]


def _sum(items: list[Any]) -> Any:
    total: Any = 0
    for item in items:
        total = total + item
    return total


def single_slot_agents(m: Any) -> set[str]:
    """Agents that hold at most one assignment in the whole horizon: selected by an active hard
    ``count_bounds`` with a constant ``max=1`` over every working value (and no free value), as exams are."""
    ctx = m.ctx
    out: set[str] = set()
    for c in m.instance.constraints:
        if (isinstance(c, CountBounds) and c.active and c.hard and c.max == 1 and c.values.mode == "work"
                and ctx.free is None):
            out.update(ctx.select(c.agents))
    return out


def spacing(m: Any, c: Spacing) -> None:
    """For every weighted pair (a, b) and close slots (s, s'): ``u[a,s] ∧ u[b,s']`` forbidden (hard) or
    costing w(a, b). When b holds at most one assignment (``single_slot_agents``) the slots close to s are
    summed, ``u[a,s] + Σ_{s' close} u[b,s'] − 1`` being then the exact conjunction: one indicator per
    slot of a instead of one per pair of slots (the examination track's models shrink about tenfold)."""
    slots = _slots(m)
    near = {s: [s2 for s2 in slots if c.close(m.ctx, s, s2)] for s in slots}
    single = single_slot_agents(m)
    for (a, b), w in sorted(c.pair_weights(m.ctx).items()):
        for s in slots:
            ua = m.occupied(a, *s)
            if _is_zero(m, ua):
                continue
            others = [ub for ub in (m.occupied(b, *s2) for s2 in near[s]) if not _is_zero(m, ub)]
            if b in single and len(others) > 1:
                m.forbid_or_penalize(c, [ua, _sum(others)], cost=w)
                continue
            for ub in others:
                m.forbid_or_penalize(c, [ua, ub], cost=w)


def _new_bool(m: Any, name: str) -> Any:
    """A fresh 0/1 variable of either model."""
    return m.new_var(name, 0, 1, binary=True) if hasattr(m, "new_var") else m.model.new_bool_var(name)


def _new_int(m: Any, name: str, upper: int) -> Any:
    """A fresh integer variable in ``0 .. upper`` of either model."""
    return m.new_var(name, 0, upper) if hasattr(m, "new_var") else m.model.new_int_var(0, upper, name)


def _breaches(m: Any, relation: str, first: str, second: str) -> list[tuple[Any, Any, bool]]:
    """(u, u', and) triples whose conjunction (``and``) or difference (not ``and``: ``u − u'`` and ``u' − u``)
    breaks the relation: after, the first not strictly later (s ≤ s'); exclusion, one slot shared;
    coincidence, a slot held by one of the two only."""
    slots = _slots(m)
    P = m.ctx.periods
    out = []
    for s in slots:
        ua = m.occupied(first, *s)
        if relation == "after":
            out += [(ua, m.occupied(second, *s2), True) for s2 in slots if s[0] * P + s[1] <= s2[0] * P + s2[1]]
        else:
            out.append((ua, m.occupied(second, *s), relation == "exclusion"))
    return [(a, b, conj) for a, b, conj in out
            if not (_is_zero(m, a) and _is_zero(m, b)) and not (conj and (_is_zero(m, a) or _is_zero(m, b)))]


def slot_order(m: Any, c: SlotOrder) -> None:
    """after: ``u[a,s] + u[b,s'] ≤ 1`` for every s ≤ s' (global order); exclusion: ``u[a,s] + u[b,s] ≤ 1``;
    coincidence: ``u[a,s] = u[b,s]`` (exact for agents with one assignment each, as exams). Soft: one 0/1
    indicator per row, at least every breach (``z ≥ u + u' − 1``, ``z ≥ |u − u'|``), costing 1."""
    for k, r in enumerate(c.rows):
        breaches = _breaches(m, r.relation, r.first, r.second)
        if c.hard:
            for a, b, conj in breaches:
                m.require(c, a + b <= 1 if conj else a == b)
            continue
        if not breaches:
            continue
        z = _new_bool(m, f"broken_{c.id}_{k}")
        for a, b, conj in breaches:
            if conj:
                m.require(c, z >= a + b - 1)
            else:
                m.require(c, z >= a - b)
                m.require(c, z >= b - a)
        m.penalize(c, z)


def shared_capacity(m: Any, c: SharedCapacity) -> None:
    """``Σ_e demand(e)·x[e,s,v] ≤ capacity(v)`` per slot and value (soft: the excess costs); an exclusive
    agent's cell and any other agent's cell in the same (s, v) are not both 1."""
    ctx = m.ctx
    demand = {e: int(ctx.attrs(ctx.agent_cls, e).get(c.demand, 0)) for e in ctx.agents}
    total = sum(demand.values())
    exclusive = [e for e in ctx.agents if c.exclusive is not None and ctx.attrs(ctx.agent_cls, e).get(c.exclusive, 0)]
    for d, p in _slots(m):
        for v in ctx.values:
            cap = int(ctx.attrs(ctx.value_cls, v).get(c.capacity, 0))
            cells = {e: m.x[(e, d, p, v)] for e in ctx.agents if not _is_zero(m, m.x[(e, d, p, v)])}
            load = [demand[e] * x for e, x in cells.items() if demand[e]]
            if load and sum(demand[e] for e in cells) > cap:
                m.bounded(c, _sum(load), None, cap, total)
            for e in exclusive:
                if e in cells:
                    for f, x in cells.items():
                        if f != e:
                            m.forbid_or_penalize(c, [cells[e], x])


def value_mix(m: Any, c: ValueMix) -> None:
    """``extra ≥ Σ_δ h_δ − 1``, ``extra ≥ 0`` per slot and value (``Σ_δ h_δ ≤ 1`` when hard), when the agents
    hold two attribute values or more: exact under minimisation, and its LP relaxation is tighter than
    ``Σ h − OR(h)``."""
    ctx = m.ctx
    by_value: dict[Any, list[str]] = {}
    for e in ctx.agents:
        by_value.setdefault(ctx.attrs(ctx.agent_cls, e).get(c.attr), []).append(e)
    if len(by_value) < 2:
        return
    for d, p in _slots(m):
        for v in ctx.values:
            ors = []
            for k, agents in enumerate(by_value.values()):
                cells = [m.x[(e, d, p, v)] for e in agents if not _is_zero(m, m.x[(e, d, p, v)])]
                if cells:
                    ors.append(m.any_of(cells, f"mix_{c.id}_{d}_{p}_{v}_{k}"))
            if len(ors) < 2:
                continue
            if c.hard:
                m.require(c, _sum(ors) <= 1)
                continue
            extra = _new_int(m, f"mix_{c.id}_{d}_{p}_{v}", len(ors) - 1)
            m.require(c, extra >= _sum(ors) - 1)
            m.penalize(c, extra)


def slot_cost(m: Any, c: SlotCost) -> None:
    """``cost · x`` for every cell a row matches (hard: those cells are 0)."""
    ctx = m.ctx
    for r in c.rows:
        if not r.cost:
            continue
        cells = [m.x[(e, d, p, v)] for e in ctx.agents for d, p in _slots(m) for v in ctx.values
                 if SlotCost.matches(r, e, d, p, v) and not _is_zero(m, m.x[(e, d, p, v)])]
        if not cells:
            continue
        if c.hard:
            m.require(c, _sum(cells) <= 0)
        else:
            m.penalize(c, r.cost * _sum(cells))


SPACING_ENCODERS: dict[type[Constraint], Callable[[Any, Any], None]] = {
    Spacing: spacing,
    SlotOrder: slot_order,
    SharedCapacity: shared_capacity,
    ValueMix: value_mix,
    SlotCost: slot_cost,
}
