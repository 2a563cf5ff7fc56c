"""Pyomo encoders of the sequencing kinds: ``setup_times``, ``no_idle``, ``consecutive``,
``same_sequence`` (formal meanings in :mod:`schedc.kinds.setup_times`, :mod:`schedc.kinds.no_idle`,
:mod:`schedc.kinds.consecutive`, :mod:`schedc.kinds.same_sequence`).

Setup times apply between *directly* consecutive activities only, so the pairwise order
disjunction of ``unary_no_overlap`` is not enough (it would charge s_ij to every later j when the
setups break the triangle inequality). Each resource gets a successor model instead: binaries
``z_ij`` ("j directly after i") between the (activity, mode) nodes using it and a dummy 0,
``Σ_j z_ij + z_i0 = p_i`` and ``Σ_j z_ji + z_0i = p_i`` (p_i the mode's presence), at most one
first node, and ``S_j ≥ E_i + s_ij − M·(1 − z_ij)`` with ``M = lst_i + d_i + s_ij − est_j``. The
start times act as the potentials of the Miller–Tucker–Zemlin sub-tour elimination (durations are
positive), so the arcs form one path, the processing order. Size: n² binaries and rows per
resource of n nodes; big-M rather than time-indexed because a time index costs n·H binaries and
the horizons of these instances (hundreds of units) exceed their machine loads (tens of
operations). A resource with more than :data:`MAX_ARCS` arcs is refused with E501.

The arcs carry the setups of the hard rules only; a soft rule's amount on an arc (the setup
shortfall, the idle time, a pair not directly consecutive) is a penalty variable bounded from
below by a big-M row, tight under minimisation.
"""

from __future__ import annotations

from typing import Any

from schedc.backends.base import unsupported
from schedc.backends.pyomo.linear import quicksum
from schedc.backends.pyomo.model import PyomoModel, encoder
from schedc.core.diagnostics import SchedcError
from schedc.kinds import Constraint
from schedc.kinds.consecutive import Consecutive
from schedc.kinds.no_idle import NoIdle
from schedc.kinds.same_sequence import SameSequence
from schedc.kinds.setup_times import SetupTimes, setup_matrices

Node = tuple[str, int]
MAX_ARCS = 40_000


class Successors:
    """The successor model of one resource: arc binaries between nodes, first and last arcs."""

    def __init__(self, nodes: list[Node]):
        self.nodes = nodes
        self.arcs: dict[tuple[Node, Node], Any] = {}
        self.first: dict[Node, Any] = {}
        self.last: dict[Node, Any] = {}


def successors(m: PyomoModel, resource: str, owner: Constraint) -> Successors:
    """The (cached) successor model of ``resource``, its setup rows enforced on the arcs."""
    key = ("successors", resource)
    if key in m.cache:
        return m.cache[key]
    nodes = [(name, k) for name, k, mode in _users(m, resource)]
    if len(nodes) ** 2 > MAX_ARCS:
        raise SchedcError.at("E501", f"the pyomo backend's successor model of {resource} would need "
                             f"{len(nodes) ** 2} arc binaries (limit {MAX_ARCS}) for constraint {owner.id}",
                             hint="use --backend cpsat (a circuit constraint)")
    times = setup_matrices(m.instance, hard_only=True).get(resource, {})  # a soft rule's shortfall is a penalty
    s = m.cache[key] = Successors(nodes)
    for node in nodes:
        s.first[node] = m.new_var("first", 0, 1, binary=True)
        s.last[node] = m.new_var("last", 0, 1, binary=True)
    for i in nodes:
        for j in nodes:
            if i[0] != j[0]:  # two modes of one activity are never both chosen
                s.arcs[(i, j)] = m.new_var("next", 0, 1, binary=True)
    for node in nodes:
        present = m.present[node]
        m.add("sequence", quicksum(s.arcs[(node, j)] for j in nodes if (node, j) in s.arcs) + s.last[node]
              == present)
        m.add("sequence", quicksum(s.arcs[(j, node)] for j in nodes if (j, node) in s.arcs) + s.first[node]
              == present)
    if nodes:
        m.add("sequence", quicksum(s.first.values()) <= 1)
    for (i, j), z in s.arcs.items():
        setup = times.get((i[0], j[0]), 0)
        big_m = max(0, m.latest_end(i[0]) + setup - m.est[j[0]])
        m.add("sequence", m.start[j[0]] >= m.end[i[0]] + setup - big_m * (1 - z))
    return s


def _users(m: PyomoModel, resource: str) -> list[tuple[str, int, Any]]:
    out = []
    for a in m.instance.activities:
        for k, mode in enumerate(a.modes, start=1):
            if mode.duration > 0 and any(u.resource == resource and u.amount for u in mode.uses):
                out.append((a.name, k, mode))
    return out


def setup_time_expr(m: PyomoModel) -> Any:
    """``Σ s_ij · z_ij`` over the arcs of every resource with setup rows."""
    terms = []
    for resource, times in setup_matrices(m.instance).items():
        s = m.cache.get(("successors", resource))
        if s is None:
            continue  # only built by an active setup rule; without one there is no setup to pay
        terms += [times[(i[0], j[0])] * z for (i, j), z in s.arcs.items() if times.get((i[0], j[0]))]
    return quicksum(terms) if terms else 0


@encoder(SetupTimes)
def setup_times(m: PyomoModel, c: SetupTimes) -> None:
    """One successor model per resource with setup rows (see the module docstring); its arcs carry
    the hard rules' setups. Soft: each arc with a setup costs its shortfall
    ``σ_ij ≥ E_i + s_ij − S_j − M·(1 − z_ij)``, ``σ_ij ∈ [0, s_ij]`` (tight under minimisation), the
    kind's amount for a consecutive pair."""
    for resource, times in c.matrix(m.instance).items():
        arcs = successors(m, resource, c).arcs
        if c.hard:
            continue
        for (i, j), z in arcs.items():
            need = times.get((i[0], j[0]), 0)
            if need:
                short = m.new_var("shortfall", 0, need)
                big_m = max(0, m.latest_end(i[0]) + need - m.est[j[0]])
                m.add(c.id, short >= m.end[i[0]] + need - m.start[j[0]] - big_m * (1 - z))
                m.penalize(c, short)


@encoder(NoIdle)
def no_idle(m: PyomoModel, c: NoIdle) -> None:
    """On every arc, hard: ``S_j ≤ E_i + s_ij + M·(1 − z_ij)`` (the successor model gives ``≥``);
    soft: the idle time ``ι_ij ≥ S_j − E_i − s_ij − M·(1 − z_ij)``, ``ι_ij ≥ 0``, is the penalty."""
    times = setup_matrices(m.instance)
    scope = [r.name for r in m.instance.resources if r.kind == "unary"] if c.resources == "all" else c.resources
    for resource in scope:
        s = times.get(resource, {})
        for (i, j), z in successors(m, resource, c).arcs.items():
            big_m = max(0, m.lst[j[0]] - m.est[i[0]])
            gap = m.start[j[0]] - m.end[i[0]] - s.get((i[0], j[0]), 0)
            if c.hard:
                m.add(c.id, gap <= big_m * (1 - z))
                continue
            idle = m.new_var("idle", 0, big_m)
            m.add(c.id, idle >= gap - big_m * (1 - z))
            m.penalize(c, idle)


@encoder(Consecutive)
def consecutive(m: PyomoModel, c: Consecutive) -> None:
    """Both modes on a shared resource chosen ⇒ the arc is taken: ``z_ab ≥ p_a + p_b − 1`` (a mode of
    zero duration is in no sequence: ``p_a + p_b ≤ 1``). Soft: ``v ≥ p_a + p_b − 1 − z_ab``, ``v ∈ {0, 1}``,
    costs 1 (tight under minimisation)."""
    for p in c.pairs:
        for resource in _shared_unary(m, p.before, p.after):
            arcs = successors(m, resource, c).arcs
            for i, j in _mode_pairs(m, p.before, p.after, resource):
                apart = m.present[i] + m.present[j] - 1 - arcs.get((i, j), 0)  # 1 exactly when violated
                if c.hard:
                    m.add(c.id, apart <= 0)
                    continue
                violated = m.new_var("apart", 0, 1, binary=True)
                m.add(c.id, violated >= apart)
                m.penalize(c, violated)


def _mode_pairs(m: PyomoModel, a: str, b: str, resource: str) -> list[tuple[Node, Node]]:
    """The (activity, mode) pairs of ``a`` and ``b`` whose modes both use ``resource``."""
    def modes(name: str) -> list[Node]:
        return [(name, k) for k, mode in enumerate(m.ctx.activities[name].modes, start=1)
                if any(u.resource == resource and u.amount for u in mode.uses)]
    return [(i, j) for i in modes(a) for j in modes(b)]


def _shared_unary(m: PyomoModel, a: str, b: str) -> list[str]:
    def used(name: str) -> set[str]:
        return {u.resource for mode in m.ctx.activities[name].modes for u in mode.uses
                if u.amount and m.ctx.resources[u.resource].kind == "unary"}
    return sorted(used(a) & used(b))


@encoder(SameSequence)
def same_sequence(m: PyomoModel, c: SameSequence) -> None:
    """One order binary ``o`` per two pairs ``(a, b)``, ``(a', b')``, shared by the big-M disjunctions
    of both resources: ``E_a ≤ S_a' + M·(1 − o + off)`` and ``E_a' ≤ S_a + M·(o + off)`` on A, where
    ``off = 2 − p_a − p_a'`` (p: the presence of the modes in A's sequence) is 0 exactly when both are
    in it; the same rows for ``b``, ``b'`` on B."""
    if not c.hard:
        raise unsupported("pyomo", c, form="soft")
    for first, second, pairing in c.pairings(m.instance):
        on_a = [_in_sequence(m, a, first) for a, _ in pairing]
        on_b = [_in_sequence(m, b, second) for _, b in pairing]
        for i in range(len(pairing)):
            for j in range(i + 1, len(pairing)):
                if None in (on_a[i], on_a[j], on_b[i], on_b[j]):
                    continue  # the pair never meets on one of the resources: nothing to share
                order = m.new_var("order", 0, 1, binary=True)  # 1: pair i before pair j on both
                for x, y, px, py in ((pairing[i][0], pairing[j][0], on_a[i], on_a[j]),
                                     (pairing[i][1], pairing[j][1], on_b[i], on_b[j])):
                    off = 2 - px - py
                    m.add(c.id, m.end[x] <= m.start[y] + _reach(m, x, y) * (1 - order + off))
                    m.add(c.id, m.end[y] <= m.start[x] + _reach(m, y, x) * (order + off))


def _in_sequence(m: PyomoModel, name: str, resource: str) -> Any:
    """1, a presence expression, or None: whether ``name``'s chosen mode uses ``resource`` with a
    positive duration (the sum of those modes' binaries; at most one mode is chosen)."""
    modes = [(n, k) for n, k, _mode in _users(m, resource) if n == name]
    return quicksum(m.present[node] for node in modes) if len(modes) > 1 else \
        (m.present[modes[0]] if modes else None)


def _reach(m: PyomoModel, x: str, y: str) -> int:
    """A big-M for ``E_x ≤ S_y``: the latest end of x minus the earliest start of y."""
    return max(0, m.latest_end(x) - m.est[y])
