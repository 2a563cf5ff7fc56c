"""CP-SAT encoders of the sequencing kinds: ``setup_times``, ``no_idle``, ``consecutive``
(formal meanings in :mod:`schedc.kinds.setup_times` and :mod:`schedc.kinds.sequencing`).

Each unary resource they speak of gets one circuit (:func:`circuit`), built once and shared: a
dummy node 0 and one node per (activity, mode) that uses the resource with a positive duration;
an arc literal ``l_ij`` says "j runs directly after i", ``0 → i`` that i is first, ``i → 0`` that
it is last, and a self-loop ``i → i`` (the negation of the mode's presence) leaves a node out when
the mode is not chosen. On every arc, ``E_i + s_ij ≤ S_j`` is enforced by ``l_ij``. This follows
the OR-Tools example ``examples/python/single_machine_scheduling_with_setup_release_due_dates_sat.py``
(https://github.com/google/or-tools), which sequences one machine with ``AddCircuit`` and arc
literals implying ``start_j ≥ end_i + setup_ij``; here it is one circuit per resource, with
optional nodes. Durations are positive, so the arcs' start times exclude sub-tours and the circuit
is the processing order of the resource.
"""

from __future__ import annotations

from typing import Any

from ortools.sat.python import cp_model

from schedc.backends.base import unsupported
from schedc.backends.cpsat.model import CpsatModel, encoder
from schedc.kinds.consecutive import Consecutive
from schedc.kinds.no_idle import NoIdle
from schedc.kinds.setup_times import SetupTimes, setup_matrices

Node = tuple[str, int]


class Circuit:
    """The circuit of one resource: its nodes, arc literals and presence literals."""

    def __init__(self, nodes: list[Node]):
        self.nodes = nodes
        self.arcs: dict[tuple[Node, Node], cp_model.IntVar] = {}
        self.first: dict[Node, cp_model.IntVar] = {}
        self.last: dict[Node, cp_model.IntVar] = {}


def circuit(m: CpsatModel, resource: str) -> Circuit:
    """The (cached) circuit of ``resource`` with its setup rows enforced on the arcs."""
    cache: dict[str, Circuit] = m.__dict__.setdefault("circuits", {})
    if resource in cache:
        return cache[resource]
    nodes = [(name, k) for name, k, mode, _amount in m.users.get(resource, ()) if mode.duration > 0]
    times = setup_matrices(m.instance).get(resource, {})
    c = cache[resource] = Circuit(nodes)
    index = {node: i + 1 for i, node in enumerate(nodes)}
    arcs: list[tuple[int, int, Any]] = []
    optional = False
    for node in nodes:
        present = m.present[node]
        c.first[node] = m.model.new_bool_var(f"first_{resource}_{node[0]}_{node[1]}")
        c.last[node] = m.model.new_bool_var(f"last_{resource}_{node[0]}_{node[1]}")
        arcs += [(0, index[node], c.first[node]), (index[node], 0, c.last[node])]
        if not isinstance(present, int):
            optional = True
            arcs.append((index[node], index[node], present.Not()))
    for i in nodes:
        for j in nodes:
            if i[0] == j[0]:
                continue  # two modes of one activity: never both chosen
            literal = c.arcs[(i, j)] = m.model.new_bool_var(f"next_{resource}_{i[0]}_{j[0]}")
            arcs.append((index[i], index[j], literal))
            m.model.add(m.end[i[0]] + times.get((i[0], j[0]), 0) <= m.start[j[0]]).only_enforce_if(literal)
    if optional or not nodes:
        arcs.append((0, 0, m.model.new_bool_var(f"empty_{resource}")))
    if nodes:
        m.model.add_circuit(arcs)
    return c


def setup_time_expr(m: CpsatModel) -> cp_model.LinearExprT:
    """``Σ s_ij · l_ij`` over the arcs of every resource with setup rows (the ``setup_time`` measure)."""
    terms = []
    for resource, times in setup_matrices(m.instance).items():
        c = circuit(m, resource)
        terms += [times[(i[0], j[0])] * literal for (i, j), literal in c.arcs.items() if times.get((i[0], j[0]))]
    return cp_model.LinearExpr.sum(terms) if terms else 0


@encoder(SetupTimes)
def setup_times(m: CpsatModel, c: SetupTimes) -> None:
    """One circuit per resource with setup rows; the arcs enforce ``E_i + s_ij ≤ S_j``."""
    if not c.hard:
        raise unsupported("cpsat", c, form="soft")
    for resource in c.matrix():
        circuit(m, resource)


@encoder(NoIdle)
def no_idle(m: CpsatModel, c: NoIdle) -> None:
    """On every arc of the resource's circuit, ``S_j ≤ E_i + s_ij`` (the setup rows give ``≥``)."""
    if not c.hard:
        raise unsupported("cpsat", c, form="soft")
    times = setup_matrices(m.instance)
    for resource in _unary_scope(m, c.resources):
        s = times.get(resource, {})
        for (i, j), literal in circuit(m, resource).arcs.items():
            m.model.add(m.start[j[0]] <= m.end[i[0]] + s.get((i[0], j[0]), 0)).only_enforce_if(literal)


@encoder(Consecutive)
def consecutive(m: CpsatModel, c: Consecutive) -> None:
    """For every resource both can use and every pair of their modes on it: both chosen ⇒ the arc
    ``a → b`` of the circuit is taken."""
    if not c.hard:
        raise unsupported("cpsat", c, form="soft")
    for p in c.pairs:
        for resource in _shared_unary(m, p.before, p.after):
            arcs = circuit(m, resource).arcs
            for (i, j), literal in arcs.items():
                if i[0] == p.before and j[0] == p.after:
                    m.model.add_bool_or([literal, _negated(m.present[i]), _negated(m.present[j])])


def _negated(literal: Any) -> Any:
    return literal.Not() if not isinstance(literal, int) else 1 - literal


def _unary_scope(m: CpsatModel, resources: object) -> list[str]:
    if resources == "all":
        return [r.name for r in m.instance.resources if r.kind == "unary"]
    return list(resources)  # type: ignore[call-overload]


def _shared_unary(m: CpsatModel, a: str, b: str) -> list[str]:
    """Unary resources some mode of ``a`` and some mode of ``b`` use."""
    def used(name: str) -> set[str]:
        return {u.resource for mode in m.ctx.activities[name].modes for u in mode.uses
                if u.amount and m.ctx.resources[u.resource].kind == "unary"}
    return sorted(used(a) & used(b))
