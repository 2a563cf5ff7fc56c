"""CP-SAT encoders of the sequencing kinds: ``setup_times``, ``no_idle``, ``consecutive``,
``same_sequence`` (formal meanings in :mod:`schedc.kinds.setup_times`, :mod:`schedc.kinds.no_idle`,
:mod:`schedc.kinds.consecutive`, :mod:`schedc.kinds.same_sequence`).

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

The arcs carry the setups of the hard rules only. A soft rule is a penalty on the arcs, with the
kind's amount for a consecutive pair: ``setup_times`` the shortfall ``E_i + s_ij − S_j``,
``no_idle`` the idle time ``S_j − E_i − s_ij``, ``consecutive`` one unit when the arc is not taken.
The circuit is the kind's sequence because a hard ``unary_no_overlap`` keeps every resource they
speak of (a semantic check), so these amounts are the evaluator's.
"""

from __future__ import annotations

from typing import Any

from ortools.sat.python import cp_model

from schedc.backends.base import unsupported
from schedc.backends.cpsat.model import CpsatModel, encoder
from schedc.kinds.consecutive import Consecutive
from schedc.kinds.no_idle import NoIdle
from schedc.kinds.same_sequence import SameSequence
from schedc.kinds.setup_times import SetupTimes, setup_matrices

Node = tuple[str, int]


class Circuit:
    """The circuit of one resource: its nodes, arc literals and presence literals."""

    def __init__(self, nodes: list[Node]):
        self.nodes = nodes
        self.arcs: dict[tuple[Node, Node], cp_model.IntVar] = {}
        self.first: dict[Node, cp_model.IntVar] = {}
        self.last: dict[Node, cp_model.IntVar] = {}


def circuit(m: CpsatModel, resource: str, with_setups: bool = True) -> Circuit:
    """The (cached) circuit of ``resource`` with its setup rows enforced on the arcs.

    In explain mode each rule gets a circuit of its own, switched by the rule's literal: a node is
    skipped (its self-loop taken) unless its mode is chosen *and* the rule is on, so that switching
    the rule off leaves the resource unsequenced; only a ``setup_times`` rule's circuit carries the
    setup times then (``with_setups``).
    """
    gate = m._gate
    cache: dict[object, Circuit] = m.__dict__.setdefault("circuits", {})
    key: object = resource if gate is None else (resource, gate.Index(), with_setups)
    if key in cache:
        return cache[key]
    nodes = [(name, k) for name, k, mode, _amount in m.users.get(resource, ()) if mode.duration > 0]
    # the arcs enforce the hard setups only (a soft rule's shortfall is a penalty: setup_times below)
    times = setup_matrices(m.instance, hard_only=True).get(resource, {}) if gate is None or with_setups else {}
    c = cache[key] = Circuit(nodes)
    index = {node: i + 1 for i, node in enumerate(nodes)}
    arcs: list[tuple[int, int, Any]] = []
    optional = gate is not None
    for node in nodes:
        present = m.present[node]
        c.first[node] = m.model.new_bool_var(f"first_{resource}_{node[0]}_{node[1]}")
        c.last[node] = m.model.new_bool_var(f"last_{resource}_{node[0]}_{node[1]}")
        arcs += [(0, index[node], c.first[node]), (index[node], 0, c.last[node])]
        if gate is not None:
            arcs.append((index[node], index[node], _skipped(m, present, gate)))
        elif not isinstance(present, int):
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
        if gate is None:
            m.model.add_circuit(arcs)
        else:
            with m.defining():  # switched through its self-loops, not as a row
                m.model.add_circuit(arcs)
    return c


def _skipped(m: CpsatModel, present: Any, gate: Any) -> Any:
    """Explain mode: a literal equal to "the mode is not chosen or the rule is off"."""
    literals = [gate] if isinstance(present, int) else [present, gate]
    with m.defining():
        skip = m.model.new_bool_var("skip")
        m.model.add_bool_and(literals).only_enforce_if(skip.Not())
        m.model.add_bool_or([lit.Not() for lit in literals] + [skip.Not()])
    return skip


def setup_time_expr(m: CpsatModel) -> cp_model.LinearExprT:
    """``Σ s_ij · l_ij`` over the arcs of every resource with setup rows (the ``setup_time`` measure)."""
    terms = []
    for resource, times in setup_matrices(m.instance).items():
        c = circuit(m, resource)
        terms += [times[(i[0], j[0])] * literal for (i, j), literal in c.arcs.items() if times.get((i[0], j[0]))]
    return cp_model.LinearExpr.sum(terms) if terms else 0


@encoder(SetupTimes)
def setup_times(m: CpsatModel, c: SetupTimes) -> None:
    """One circuit per resource with setup rows; hard: the arcs enforce ``E_i + s_ij ≤ S_j``. Soft:
    the arcs leave the setup out and each taken arc with a setup costs its shortfall
    ``σ_ij ≥ E_i + s_ij − S_j`` (``σ_ij ∈ [0, s_ij]``, enforced by ``l_ij``; tight under minimisation),
    the kind's amount for a consecutive pair."""
    for resource, times in c.matrix(m.instance).items():
        arcs = circuit(m, resource).arcs  # with_setups: the arcs of a hard rule's circuit carry its setup times
        if c.hard:
            continue
        for (i, j), literal in arcs.items():
            need = times.get((i[0], j[0]), 0)
            if need:
                short = m.model.new_int_var(0, need, f"short_{resource}_{i[0]}_{j[0]}")
                m.model.add(short >= m.end[i[0]] + need - m.start[j[0]]).only_enforce_if(literal)
                m.penalize(c, short)


@encoder(NoIdle)
def no_idle(m: CpsatModel, c: NoIdle) -> None:
    """On every arc of the resource's circuit, hard: ``S_j ≤ E_i + s_ij`` (the setup rows give ``≥``);
    soft: the idle time ``ι_ij ≥ S_j − E_i − s_ij`` (``ι_ij ≥ 0``, enforced by ``l_ij``) is the penalty."""
    times = setup_matrices(m.instance)
    for resource in _unary_scope(m, c.resources):
        s = times.get(resource, {})
        for (i, j), literal in circuit(m, resource, with_setups=False).arcs.items():
            gap = m.start[j[0]] - m.end[i[0]] - s.get((i[0], j[0]), 0)
            if c.hard:
                m.model.add(gap <= 0).only_enforce_if(literal)
                continue
            idle = m.model.new_int_var(0, 2 * m.horizon, f"idle_{resource}_{i[0]}_{j[0]}")
            m.model.add(idle >= gap).only_enforce_if(literal)
            m.penalize(c, idle)


@encoder(Consecutive)
def consecutive(m: CpsatModel, c: Consecutive) -> None:
    """For every resource both can use and every pair of their modes on it: both chosen ⇒ the arc
    ``a → b`` of the circuit is taken (a mode of zero duration is in no sequence: both chosen is
    then a violation). Soft: one Boolean per pair of modes, ``v ⇔ p_i ∧ p_j ∧ ¬l_ij``, costs 1."""
    for p in c.pairs:
        for resource in _shared_unary(m, p.before, p.after):
            arcs = circuit(m, resource, with_setups=False).arcs
            for i, j in _mode_pairs(m, p.before, p.after, resource):
                broken = [m.present[i], m.present[j]] + ([_negated(arcs[(i, j)])] if (i, j) in arcs else [])
                if c.hard:
                    m.model.add_bool_or([_negated(literal) for literal in broken])
                    continue
                violated = m.model.new_bool_var(f"apart_{p.before}_{p.after}_{resource}")
                m.model.add_bool_and(broken).only_enforce_if(violated)
                m.model.add_bool_or([_negated(literal) for literal in broken] + [violated])
                m.penalize(c, violated)


def _mode_pairs(m: CpsatModel, a: str, b: str, resource: str) -> list[tuple[Node, Node]]:
    """The (activity, mode) pairs of ``a`` and ``b`` whose modes both use ``resource``."""
    def modes(name: str) -> list[Node]:
        return [(name, k) for k, mode in enumerate(m.ctx.activities[name].modes, start=1)
                if any(u.resource == resource and u.amount for u in mode.uses)]
    return [(i, j) for i in modes(a) for j in modes(b)]


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


@encoder(SameSequence)
def same_sequence(m: CpsatModel, c: SameSequence) -> None:
    """One order literal ``o`` per two pairs ``(a, b)``, ``(a', b')``, shared by both resources:
    ``o ⇒ E_a ≤ S_a'`` and ``¬o ⇒ E_a' ≤ S_a`` on A (when both are in A's sequence), the same for
    ``b``, ``b'`` on B. With the resources' no-overlap this ties the two disjunctions to one
    choice; no circuit is needed (the order, not the direct successor, is what is shared)."""
    if not c.hard:
        raise unsupported("cpsat", c, form="soft")
    for first, second, pairing in c.pairings(m.instance):
        on_a = [_in_sequence(m, a, first) for a, _ in pairing]
        on_b = [_in_sequence(m, b, second) for _, b in pairing]
        for i in range(len(pairing)):
            for j in range(i + 1, len(pairing)):
                both_a, both_b = _both(on_a[i], on_a[j]), _both(on_b[i], on_b[j])
                if both_a is None or both_b is None:
                    continue  # the pair never meets on one of the resources: nothing to share
                order = m.model.new_bool_var(f"order_{c.id}_{i}_{j}")
                sides = (((pairing[i][0], pairing[j][0]), both_a), ((pairing[i][1], pairing[j][1]), both_b))
                for (x, y), both in sides:
                    m.model.add(m.end[x] <= m.start[y]).only_enforce_if([order, *both])
                    m.model.add(m.end[y] <= m.start[x]).only_enforce_if([order.Not(), *both])


def _in_sequence(m: CpsatModel, name: str, resource: str) -> Any:
    """1, a literal, or None: whether ``name`` is in the sequence of ``resource`` (its chosen mode uses it
    with a positive duration); the sum of those modes' literals when there are several."""
    literals = [m.present[(n, k)] for n, k, mode, _ in m.users.get(resource, ()) if n == name and mode.duration > 0]
    if not literals:
        return None
    if len(literals) == 1:
        return literals[0]
    with m.defining():  # a definition: other rules may reuse it, explain mode keeps it on
        on = m.model.new_bool_var(f"on_{resource}_{name}")
        m.model.add(on == sum(literals))
    return on


def _both(x: Any, y: Any) -> list[Any] | None:
    """The enforcement literals of "x and y" (constants 1 dropped), or None when one never holds."""
    if x is None or y is None:
        return None
    return [lit for lit in (x, y) if not isinstance(lit, int)]
