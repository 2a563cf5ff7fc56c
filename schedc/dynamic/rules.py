"""The 24 composite dispatching rules, a seeded random policy, rollouts and the best rule.

A composite rule ``OP+MACHINE`` answers a decision of the simulator (see
:mod:`schedc.dynamic.simulator`) in two stages, using only what is known at the decision
time ``t``:

1. the **operation rule** picks, among the candidates (ready operations that could start now
   on an idle machine), the one of least key; ``p̄(o)`` is the mean known processing time of
   ``o`` over its known eligible machines, ``R(o)`` the known operations of its job from ``o``
   on (``o`` included; unreleased rework is not known):

   ========  =====================================================
   SPT       ``p̄(o)``                  (shortest processing time)
   LPT       ``−p̄(o)``                 (longest processing time)
   FIFO      ``ready(o)``              (earliest arrival in the ready pool)
   LIFO      ``−ready(o)``             (latest arrival in the ready pool)
   LWKR      ``Σ_{r∈R(o)} p̄(r)``       (least work remaining in the job)
   MWKR      ``−Σ_{r∈R(o)} p̄(r)``      (most work remaining)
   LOPNR     ``|R(o)|``                (least operations remaining)
   MOPNR     ``−|R(o)|``               (most operations remaining)
   ========  =====================================================

   ties: earlier ``ready(o)``, then world order of the operations;

2. the **machine rule** picks, among the machines known eligible for ``o`` (busy ones too: the
   operation is then committed to that machine's queue), the one of least key; ``p(o,m)`` is
   the known processing time, ``A(m)`` the estimated end of ``m``'s committed work (``t`` when
   idle), ``S(o,m)`` the earliest start ``≥ A(m)`` whose run ``[S, S + p(o,m))`` avoids every
   known outage, ``S*(o) = min_m S(o,m)`` (``= t`` for a candidate: some machine is free now) and
   ``B(m)`` the time ``m`` has been busy so far (ended and aborted runs plus the elapsed part of
   its run):

   ====  ==========================================================================
   LIT   ``S(o,m)`` — least idle time: the machine available earliest, ties by machine order
         (the "first available machine"; ties by ``p`` would make it SPT)
   LWL   ``B(m) + A(m) − t``, ties by ``S(o,m)`` then ``p(o,m)`` — least workload: the least
         work assigned so far, done or committed
   SPT   ``p(o,m)`` among the machines with ``S(o,m) = S*(o)``, ties by machine order — the
         fastest machine *available now or earliest*; a faster busy machine is not waited for
   ====  ==========================================================================

   These follow the dispatching literature's definitions (and the authors' ``dsbx`` package:
   LIT = earliest available, LWL = least busy time, SPT = shortest time among the machines the
   operation can be dispatched to now). The previous SPT, which sent work to the fastest
   eligible machine even when busy, queued most work on the fast machines;
   remaining ties: world order of the machines.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from operator import neg
from typing import NamedTuple, Protocol

import numpy as np

from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.dynamic.simulator import LogEntry, PoolEntry, SimState, Simulator
from schedc.dynamic.world import World

OpKey = Callable[[Simulator, int, PoolEntry], float]  # (simulator, time, entry) → key


class Policy(Protocol):
    """Anything that answers a decision of the simulator with an (operation, machine) pair."""

    name: str

    def choose(self, sim: Simulator, state: SimState) -> tuple[int, int]: ...


OP_RULES: dict[str, OpKey] = {
    "SPT": lambda sim, t, e: sim.mean_estimate(e.op, t),
    "LPT": lambda sim, t, e: -sim.mean_estimate(e.op, t),
    "FIFO": lambda sim, t, e: e.ready,
    "LIFO": lambda sim, t, e: -e.ready,
    "LWKR": lambda sim, t, e: sim.remaining(e.op, t)[1],
    "MWKR": lambda sim, t, e: -sim.remaining(e.op, t)[1],
    "LOPNR": lambda sim, t, e: sim.remaining(e.op, t)[0],
    "MOPNR": lambda sim, t, e: -sim.remaining(e.op, t)[0],
}


class Offer(NamedTuple):
    """What the machine rules compare of machine ``m`` for operation ``o`` at a decision:
    ``start`` S(o,m), ``time`` p(o,m) and ``assigned`` B(m) + A(m) − t (see the module docstring)."""

    start: int
    time: int
    assigned: int


MachineKey = Callable[[dict[int, Offer], int], tuple[float, ...]]  # (offers of the eligible machines, m) → key


def offer(sim: Simulator, state: SimState, op: int, m: int) -> Offer:
    """The :class:`Offer` of ``m`` for ``op``; A(m) (a sum over ``m``'s committed queue) is read once."""
    t, ms = state.time, state.machines[m]
    ready, p = sim.ready_at(state, m), sim.estimate(op, m, t)
    elapsed = t - ms.run.start if ms.run is not None else 0
    return Offer(sim.earliest_start(m, ready, p, t), p, ms.busy + elapsed + ready - t)


def _spt_machine(offers: dict[int, Offer], m: int) -> tuple[float, ...]:
    """(S(o,m) > S*(o), p(o,m)): machines available earliest first, then the shortest time."""
    return offers[m].start > min(o.start for o in offers.values()), offers[m].time


MACHINE_RULES: dict[str, MachineKey] = {
    "LIT": lambda offers, m: (offers[m].start,),
    "LWL": lambda offers, m: (offers[m].assigned, offers[m].start, offers[m].time),
    "SPT": _spt_machine,
}


# When an operation's key under each op rule stops changing: SPT/LPT use only the op's own known
# estimates (fixed from ``OpInfo.settled``), the work-remaining rules its job's known route and
# estimates (fixed from ``JobInfo.settled``); FIFO/LIFO use the entry's ready time alone (None).
_STABLE_FROM: dict[str, Callable[[Simulator, int], int] | None] = {
    "SPT": lambda sim, o: sim.ops[o].settled, "LPT": lambda sim, o: sim.ops[o].settled,
    "FIFO": None, "LIFO": None,
    **dict.fromkeys(("LWKR", "MWKR", "LOPNR", "MOPNR"), lambda sim, o: sim.jobs[sim.ops[o].job].settled),
}


class SettledKeys:
    """An op rule's key of every operation from the time it stops changing, read by table look-up.

    A decision then ranks its candidates by C-level ``map``/``zip``/``min`` over these tables
    instead of one chain of Python calls per candidate, so its cost hardly grows with the number of
    candidates; the keys are the very values of :data:`OP_RULES` (evaluated at that time), so the
    choice is the same.
    """

    def __init__(self, sim: Simulator, op_rule: str):
        stable_from = _STABLE_FROM[op_rule]
        self.sign = -1 if op_rule == "LIFO" else 1
        self.since: tuple[int, ...] | None = None
        self.values: tuple[float, ...] = ()
        if stable_from is not None:
            key = OP_RULES[op_rule]
            self.since = tuple(stable_from(sim, o) for o in range(len(sim.ops)))
            self.values = tuple(key(sim, t, PoolEntry(o, t)) for o, t in enumerate(self.since))

    def first(self, state: SimState) -> int | None:
        """The candidate of least (key, ready, op), or None when some candidate's key may still change."""
        ops, readies = zip(*state.candidates, strict=True)
        if self.since is None:
            keys = readies if self.sign == 1 else map(neg, readies)
        elif max(map(self.since.__getitem__, ops)) <= state.time:
            keys = map(self.values.__getitem__, ops)
        else:
            return None
        return min(zip(keys, readies, ops, strict=True))[2]


def settled_keys(sim: Simulator, op_rule: str) -> SettledKeys:
    """The key tables of ``op_rule`` for ``sim``, built on first use and kept with ``sim``."""
    tables = sim.memo.setdefault("settled op keys", {})
    if op_rule not in tables:
        tables[op_rule] = SettledKeys(sim, op_rule)
    return tables[op_rule]


@dataclass(frozen=True)
class CompositeRule:
    """Operation rule ``op_rule`` then machine rule ``machine_rule`` (see the module docstring)."""

    op_rule: str
    machine_rule: str

    @property
    def name(self) -> str:
        return f"{self.op_rule}+{self.machine_rule}"

    def choose(self, sim: Simulator, state: SimState) -> tuple[int, int]:
        op = settled_keys(sim, self.op_rule).first(state)
        if op is None:  # some candidate's key may still change: evaluate the definition
            op = self._first_by_definition(sim, state)
        machine_key = MACHINE_RULES[self.machine_rule]
        offers = {m: offer(sim, state, op, m) for m in sim.eligible(op, state.time)}
        machine = min(offers, key=lambda m: (*machine_key(offers, m), m))
        return op, machine

    def _first_by_definition(self, sim: Simulator, state: SimState) -> int:
        """The candidate of least (key, ready, op), each key evaluated as the table above defines it."""
        op_key = OP_RULES[self.op_rule]
        t = state.time
        return min(state.candidates, key=lambda e: (op_key(sim, t, e), e.ready, e.op)).op


@dataclass
class RandomPolicy:
    """A uniformly random admissible (operation, machine) pair per decision, drawn from ``rng``."""

    rng: np.random.Generator
    name: str = "RANDOM"

    def choose(self, sim: Simulator, state: SimState) -> tuple[int, int]:
        pairs = sim.admissible(state)
        return pairs[int(self.rng.integers(len(pairs)))]


Rule = CompositeRule
RULES: dict[str, Rule] = {
    rule.name: rule for rule in (CompositeRule(o, m) for o in OP_RULES for m in MACHINE_RULES)}
RULE_NAMES: tuple[str, ...] = tuple(RULES)  # rule index i (an environment action) is RULE_NAMES[i]


def parse_rule(text: str) -> CompositeRule:
    """The composite rule named ``text`` (case-insensitive, e.g. ``"spt+lit"``)."""
    rule = RULES.get(text.strip().upper())
    if rule is None:
        raise SchedcError.at("E901", f"unknown dispatching rule {text!r}",
                             hint="rules: " + ", ".join(RULE_NAMES) + "; or RANDOM")
    return rule


@dataclass(frozen=True)
class Rollout:
    """The outcome of one simulation.

    ``solution``: the completed runs of the realised operations (start, 1-based mode = index
    of the machine in ``Operation.durations``); ``makespan``: latest completion of a realised
    job; ``weighted_tardiness``: ``Σ w_j max(0, C_j − d_j)`` with final due dates and weights;
    ``aborts``: runs interrupted by an outage; ``decisions``: dispatch decisions taken.
    """

    rule: str
    solution: Solution
    log: tuple[LogEntry, ...]
    makespan: int
    weighted_tardiness: int
    aborts: int
    decisions: int

    def objective(self, kind: str) -> int:
        """The value of the world objective ``kind`` ("makespan" or "tardiness")."""
        return self.makespan if kind == "makespan" else self.weighted_tardiness

    def fingerprint(self) -> str:
        """SHA-256 of the log (every decision included), schedule, objectives, aborts and decisions,
        as canonical JSON: equal exactly when two rollouts are the same, in any process."""
        text = json.dumps({
            "log": [list(entry) for entry in self.log],
            "starts": sorted(self.solution.starts.items()),
            "modes": sorted(self.solution.modes.items()),
            "objectives": [self.makespan, self.weighted_tardiness, self.aborts, self.decisions],
        }, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def rollout_of(sim: Simulator, state: SimState, rule: str) -> Rollout:
    """Read the outcome of a finished simulation."""
    starts: dict[str, int] = {}
    modes: dict[str, int] = {}
    for run in state.completed:
        info = sim.ops[run.op]
        if sim.jobs[info.job].realised:
            starts[info.name] = run.start
            machines = [m for m, _ in sim.jobs[info.job].job.operations[info.pos].durations]
            modes[info.name] = machines.index(sim.machine_names[run.machine]) + 1
    ends = [(info, state.job_end[j]) for j, info in enumerate(sim.jobs) if info.realised]
    tardiness = sum(info.job.weight * max(0, end - info.job.due) for info, end in ends)
    return Rollout(rule=rule, solution=Solution(starts=starts, modes=modes), log=state.log,
                   makespan=max((end for _, end in ends), default=0), weighted_tardiness=tardiness,
                   aborts=state.aborts, decisions=state.decisions)


def policy_of(rule: str | Policy, seed: int = 0) -> Policy:
    """A policy from a rule name (``RANDOM`` draws from ``np.random.default_rng(seed)``) or the policy itself."""
    if not isinstance(rule, str):
        return rule
    if rule.strip().upper() == "RANDOM":
        return RandomPolicy(np.random.default_rng(seed))
    return parse_rule(rule)


def run_policy(sim: Simulator, policy: Policy, state: SimState | None = None) -> SimState:
    """Follow ``policy`` from ``state`` (default: the start) to the end."""
    state = sim.reset() if state is None else state
    while not state.done:
        op, machine = policy.choose(sim, state)
        state = sim.step(state, op, machine)
    return state


def simulate(world: World | Simulator, rule: str | Policy, seed: int = 0) -> Rollout:
    """Simulate ``world`` dispatched by ``rule`` (a composite rule name, ``RANDOM`` or a policy)."""
    sim = world if isinstance(world, Simulator) else Simulator(world)
    policy = policy_of(rule, seed)
    return rollout_of(sim, run_policy(sim, policy), policy.name)


def best_rule(world: World | Simulator) -> tuple[str, Rollout]:
    """The composite rule with the least value of the world's objective (ties: rule order)."""
    sim = world if isinstance(world, Simulator) else Simulator(world)
    rollouts = [simulate(sim, name) for name in RULE_NAMES]
    best = min(rollouts, key=lambda r: r.objective(sim.world.objective))
    return best.rule, best
