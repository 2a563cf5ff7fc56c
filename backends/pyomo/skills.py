"""Pyomo encoder of ``skill_requirements`` (formal meaning in :mod:`schedc.kinds.skill_requirements`).

Assignment binaries as in CP-SAT: ``z[a,w,σ]`` for every activity a with rows and worker w having
one of its skills σ, ``y[a,w] = Σ_σ z[a,w,σ]`` (w in a's team, one skill each) and
``Σ_w z[a,w,σ] = k·p_a`` per row (``p_a`` = 1 unless a is optional). Workers are unary resources whose
users are chosen by ``y``, so they get the disjunctive big-M model of ``unary_no_overlap``
(:mod:`schedc.backends.pyomo.interval`, why not time-indexed): one order binary ``o[a,b]`` per pair of
activities that may share a worker (shared by every worker and mode pair of the two) and, per worker w
and modes (k, l),
``E_{a,k} ≤ S_b + M_ab·(1 − o + (1 − y[a,k]) + (1 − y[b,l]) + (1 − y[a,w]) + (1 − y[b,w]))`` and the
mirror row, with ``M_ab = max(0, latest end of a − est_b)``. Zero-length modes never conflict. With
fixed decisions, a named member without a required skill gets a binary of its own and ``y ≥ Σ_σ z``.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from schedc.backends.base import unsupported
from schedc.backends.pyomo.linear import quicksum
from schedc.backends.pyomo.model import PyomoModel, encoder
from schedc.kinds import SkillRequirements


@encoder(SkillRequirements)
def skill_requirements(m: PyomoModel, c: SkillRequirements) -> None:
    """Cardinality rows per skill requirement, disjunctive rows per worker and pair of its activities."""
    if not c.hard:
        raise unsupported("pyomo", c, form="soft")
    staff = c.staff(m.ctx)
    fixed = m.fixed.workers if m.fixed is not None else {}
    pairs = c.candidate_pairs(m.ctx, m.start, fixed)
    z: dict[tuple[str, str, str], Any] = {}
    team_of: dict[str, list[tuple[str, Any]]] = m.__dict__.setdefault("teams", {})
    y: dict[tuple[str, str], Any] = {}
    for (activity, w), skills in pairs.items():
        literals = []
        for s in dict.fromkeys(skills):
            z[(activity, w, s)] = literal = m.new_var("z_skill", 0, 1, binary=True)
            literals.append(literal)
        y[(activity, w)] = member = m.new_var("y_team", 0, 1, binary=True)
        if fixed:
            m.add(c.id, quicksum(literals) <= member)
        else:
            m.add(c.id, quicksum(literals) == member)
        team_of.setdefault(activity, []).append((w, member))
    for activity, needs in c.by_activity().items():
        if activity not in m.start:
            continue
        present: Any = m.performed.get(activity, 1)
        for r in needs:
            served = [literal for (a, _w, s), literal in z.items() if a == activity and s == r.skill]
            m.add(c.id, quicksum(served) == r.count * present)
    _unary_workers(m, c, staff, y)


def _unary_workers(m: PyomoModel, c: SkillRequirements, staff: list[str], y: dict[tuple[str, str], Any]) -> None:
    """No two activities of one worker overlap: disjunctive big-M rows with one order binary per pair."""
    acts = m.ctx.activities
    modes = {a: [(k, m.ctx.stretched(mode, m.lst[a])) for k, mode in enumerate(acts[a].modes, start=1)
                 if mode.duration > 0] for a, _w in y}
    order: dict[tuple[str, str], Any] = {}
    for w in staff:
        users = [a for a in dict.fromkeys(a for a, v in y if v == w) if modes[a]]
        for a, b in combinations(users, 2):
            if all(la <= m.est[b] for _k, la in modes[a]) or all(lb <= m.est[a] for _k, lb in modes[b]):
                continue  # the start windows alone order the pair
            key = (a, b)
            if key not in order:
                order[key] = m.new_var("order_worker", 0, 1, binary=True)  # 1: a before b
            before = order[key]
            both = (1 - y[(a, w)]) + (1 - y[(b, w)])
            for ka, la in modes[a]:
                for kb, lb in modes[b]:
                    off = both + (1 - m.present[(a, ka)]) + (1 - m.present[(b, kb)])
                    m.add(c.id, m.mode_end(a, ka) <= m.start[b] + max(0, la - m.est[b]) * (1 - before + off))
                    m.add(c.id, m.mode_end(b, kb) <= m.start[a] + max(0, lb - m.est[a]) * (before + off))
