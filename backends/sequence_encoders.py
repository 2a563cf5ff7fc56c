"""Encoders shared by the CP-SAT and the Pyomo backends: the sequence and cost kinds of
rostering, written once against the few operations both models offer.

A model passed here provides ``ctx`` (the instance's EvalContext), ``matches(agent, day,
filter)`` (an exact 0/1 expression), ``sequence(agent, filter, windows)``,
``forbid_or_penalize(constraint, literals, cost)`` (the AND of 0/1 literals is forbidden
when hard, costs ``cost`` when soft), ``penalize(constraint, expr)`` and
``require(constraint, relation)`` (add a hard linear relation). Each backend registers
these functions in its own encoder table (:data:`SHARED`).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product
from typing import Any

from schedc.kinds import (
    AssignmentCost,
    ConsecutiveRunBounds,
    Constraint,
    PatternProhibition,
    ValueFilter,
    WindowPatternCost,
)
from schedc.kinds.costs import ANY_DAY

WORK = ValueFilter(mode="work")
FREE = ValueFilter(mode="free")


def runs(m: Any, c: ConsecutiveRunBounds) -> None:
    """Max L: no L+1 consecutive matching elements (each such window costs 1 when soft, which
    sums to |R| − L per run R); min m: for every run length k < m and position, the AND of
    the k elements and the negated neighbours costs m − k."""
    for agent in m.ctx.select(c.agents):
        seq = m.sequence(agent, c.values, c.over)
        n = len(seq)
        if c.max is not None:
            for t in range(n - c.max):
                m.forbid_or_penalize(c, seq[t:t + c.max + 1])
        if c.min is not None:
            for length in range(1, c.min):
                for t in range(n - length + 1):
                    border = ([1 - seq[t - 1]] if t > 0 else []) + ([1 - seq[t + length]] if t + length < n else [])
                    m.forbid_or_penalize(c, [*seq[t:t + length], *border], cost=c.min - length)


def _entry(m: Any, agent: str, day: int, entry: str) -> Any:
    if entry == "work":
        return m.matches(agent, day, WORK)
    if entry == "free":
        return m.matches(agent, day, FREE)
    return m.matches(agent, day, ValueFilter(mode="values", values=(entry,)))


def patterns(m: Any, c: PatternProhibition) -> None:
    """The AND of the pattern's cells at every (anchored) start day is forbidden / costs 1."""
    size = len(c.pattern)
    starts = [t for t in range(m.ctx.days - size + 1) if c.anchor is None or m.ctx.weekday(t) == c.anchor]
    for agent in m.ctx.select(c.agents):
        for t in starts:
            m.forbid_or_penalize(c, [_entry(m, agent, t + i, e) for i, e in enumerate(c.pattern)])


def window_costs(m: Any, c: WindowPatternCost) -> None:
    """``table``: an AND indicator per listed W/F pattern of each window, costing its entry;
    ``mixed_values``: see :func:`_mixed_values`."""
    windows = [w for w in m.ctx.windows(c.windows) if len(w) >= c.min_length]
    table = {p.pattern: p.cost for p in c.table}
    for agent in m.ctx.select(c.agents):
        for window in windows:
            if c.cost == "mixed_values":
                _mixed_values(m, c, agent, window)
                continue
            for pattern, cost in table.items():
                if len(pattern) == len(window) and cost:
                    cells = [m.matches(agent, d, WORK if ch == "W" else FREE)
                             for d, ch in zip(window, pattern, strict=True)]
                    m.forbid_or_penalize(c, cells, cost)


def _mixed_values(m: Any, c: WindowPatternCost, agent: str, window: tuple[int, ...]) -> None:
    """Cost Σ_t (L − n_t) for every combination of working values over a fully worked window."""
    working = [v for v in m.ctx.values if v != m.ctx.free]
    for combo in product(working, repeat=len(window)):
        cost = sum(len(window) - combo.count(v) for v in set(combo))
        if cost:
            cells = [m.matches(agent, d, ValueFilter(mode="values", values=(v,)))
                     for d, v in zip(window, combo, strict=True)]
            m.forbid_or_penalize(c, cells, cost)


def assignment_cost(m: Any, c: AssignmentCost) -> None:
    """``Σ cost·[e has v on d]`` (or its negation for ``unassigned`` entries), exact literals."""
    for e in c.entries:
        if not e.cost:
            continue
        days = range(m.ctx.days) if e.day == ANY_DAY else (e.day,)
        vf = WORK if e.value == "*" else ValueFilter(mode="values", values=(e.value,))
        for d in days:
            held = m.matches(e.agent, d, vf)
            literal = held if e.when == "assigned" else 1 - held
            if c.hard:
                m.require(c, literal == 0)
            else:
                m.penalize(c, e.cost * literal)


SHARED: dict[type[Constraint], Callable[[Any, Any], None]] = {
    ConsecutiveRunBounds: runs,
    PatternProhibition: patterns,
    WindowPatternCost: window_costs,
    AssignmentCost: assignment_cost,
}
