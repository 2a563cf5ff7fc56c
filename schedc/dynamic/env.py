"""A gym-like environment over the dynamic flexible job shop simulator.

``DfjspEnv(world, detail, seed)``: :meth:`~DfjspEnv.reset` returns the first observation;
:meth:`~DfjspEnv.step` takes an action and returns ``(observation, reward, done, info)``.
An action is either a composite rule index ``0 ≤ i < 24`` (``RULE_NAMES[i]`` answers the
current decision; always admissible; a rule name such as ``"spt+lit"`` works too) or an
explicit ``(operation name, machine name)`` pair from :meth:`~DfjspEnv.admissible_actions`.
Decisions are those of
:mod:`schedc.dynamic.simulator`: the operation starts now, or is committed to a busy machine.

**Reward.** ``makespan`` worlds: ``−(t' − t)``, minus the time the clock advances to the next
decision point; the last step ends at the last completion of a realised job, so the return
of an episode is ``−(makespan − t₀)`` with ``t₀`` the (policy-independent) first decision
time. ``tardiness`` worlds: minus the weighted tardiness (final due dates and weights) of
the realised jobs completed during the step, so the return is ``−Σ w_j T_j``. The reward is
a training signal computed by the environment; observations only carry what the dispatcher
knows.

**Observations** are JSON-serialisable dicts, each level extending the previous one:

* ``L1`` — ``time``; ``queue_length`` (ready uncommitted operations); ``candidates`` (those
  that could start now); ``committed`` (operations waiting in machine queues);
  ``utilisation`` (mean over machines of busy time — ended runs, aborted ones included, plus
  the elapsed part of running ones — divided by ``time``; 0 at time 0); ``late_jobs`` (known
  jobs, not withdrawn, whose completion — or ``time`` while unfinished — exceeds the due date
  known now); ``jobs_known``; ``jobs_done``.
* ``L2`` — ``machines``: per machine ``name``, ``group``, ``status`` (down | busy | committed |
  idle), ``op`` (running operation or null), ``run_start``, ``queue`` (committed operations),
  ``workload`` (estimated committed remaining work), ``utilisation``; ``jobs``: per known job
  ``name``, ``release``, ``due``/``weight`` as known now, ``steps_known``, ``steps_done``,
  ``remaining_work`` (mean-estimate work of its known unfinished operations), ``status``
  (withdrawn | done | running | committed | ready | waiting).
* ``L3`` — ``operations``: every known operation (job released, operation released) with
  ``name``, ``job``, ``step``, ``release``, ``status`` (done | running | committed | ready |
  waiting | dropped) and ``durations`` (known estimate per known eligible machine);
  ``outages``: every known outage (``machine``, ``start``, ``end``, ``cause``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from schedc.core.diagnostics import SchedcError
from schedc.dynamic.rules import RULE_NAMES, RULES, Rollout, parse_rule, rollout_of
from schedc.dynamic.simulator import ACTIVE, UNSEEN, WITHDRAWN, SimState, Simulator
from schedc.dynamic.world import World

Detail = Literal["L1", "L2", "L3"]
Action = int | str | tuple[str, str] | Sequence[str]
Observation = dict[str, Any]


@dataclass(frozen=True)
class EnvSnapshot:
    """Everything needed to resume an environment: the simulator state and the RNG state."""

    state: SimState
    rng_state: tuple[tuple[str, Any], ...]


class DfjspEnv:
    """Sequential dispatching decisions over one world (see the module docstring)."""

    def __init__(self, world: World, detail: Detail = "L1", seed: int = 0):
        if detail not in ("L1", "L2", "L3"):
            raise SchedcError.at("E905", f"unknown observation detail {detail!r}", hint="L1, L2 or L3")
        self.sim = Simulator(world)
        self.detail: Detail = detail
        self.rng = np.random.default_rng(seed)
        self.state: SimState = self.sim.reset()

    # ----------------------------------------------------------------- gym interface
    def reset(self) -> Observation:
        """Start over; the observation at the first decision point."""
        self.state = self.sim.reset()
        return self.observe()

    def step(self, action: Action) -> tuple[Observation, float, bool, dict[str, Any]]:
        """Apply ``action`` to the current decision and run to the next one."""
        if self.state.done:
            raise SchedcError.at("E903", "the episode is over", hint="call reset()")
        op, machine, rule = self._decode(action)
        before = self.state
        self.state = self.sim.step(before, op, machine)
        info = {"time": before.time, "decision": [self.sim.ops[op].name, self.sim.machine_names[machine]],
                "rule": rule}
        return self.observe(), self._reward(before, self.state), self.state.done, info

    def admissible_actions(self) -> list[tuple[str, str]]:
        """The (operation, machine) pairs allowed now (rule indices ``0..23`` are always allowed)."""
        return [(self.sim.ops[o].name, self.sim.machine_names[m]) for o, m in self.sim.admissible(self.state)]

    def sample_action(self) -> tuple[str, str]:
        """A uniformly random admissible pair, drawn from the environment's seeded generator."""
        pairs = self.admissible_actions()
        return pairs[int(self.rng.integers(len(pairs)))]

    def snapshot(self) -> EnvSnapshot:
        """The current state (immutable) and RNG state."""
        return EnvSnapshot(self.state, tuple(self.rng.bit_generator.state.items()))

    def restore(self, snapshot: EnvSnapshot) -> Observation:
        """Return to ``snapshot``; its observation."""
        self.state = snapshot.state
        self.rng.bit_generator.state = dict(snapshot.rng_state)
        return self.observe()

    def rollout(self) -> Rollout:
        """The outcome of the finished episode."""
        if not self.state.done:
            raise SchedcError.at("E903", "the episode is not over yet")
        return rollout_of(self.sim, self.state, "env")

    # ----------------------------------------------------------------- actions and rewards
    def _decode(self, action: Action) -> tuple[int, int, str | None]:
        if isinstance(action, str):  # a rule by name, as parse_rule reads it
            rule = parse_rule(action)
            return (*rule.choose(self.sim, self.state), rule.name)
        if isinstance(action, int | np.integer):
            if not 0 <= int(action) < len(RULE_NAMES):
                raise SchedcError.at("E903", f"rule index {action} out of range 0..{len(RULE_NAMES) - 1}")
            name = RULE_NAMES[int(action)]
            return (*RULES[name].choose(self.sim, self.state), name)
        op_name, machine_name = action
        if op_name not in self.sim.op_index or machine_name not in self.sim.machine_index:
            raise SchedcError.at("E903", f"unknown operation or machine in action {tuple(action)!r}")
        return self.sim.op_index[op_name], self.sim.machine_index[machine_name], None

    def _reward(self, before: SimState, after: SimState) -> float:
        if self.sim.world.objective == "makespan":
            return -float(after.time - before.time)
        return -float(self._tardiness(after) - self._tardiness(before))

    def _tardiness(self, state: SimState) -> int:
        return sum(info.job.weight * max(0, state.job_end[j] - info.job.due)
                   for j, info in enumerate(self.sim.jobs)
                   if info.realised and state.next_step[j] == len(info.ops))

    # ----------------------------------------------------------------- observations
    def observe(self) -> Observation:
        """The observation of the current state at this environment's detail level."""
        obs = self._level1()
        if self.detail in ("L2", "L3"):
            obs["machines"] = [self._machine(m) for m in range(len(self.sim.machine_names))]
            obs["jobs"] = [self._job(j) for j in self._known_jobs()]
        if self.detail == "L3":
            obs["operations"] = [self._operation(o) for j in self._known_jobs() for o in self._known_ops(j)]
            obs["outages"] = [{"machine": o.machine, "start": o.start, "end": o.end, "cause": o.cause}
                              for m in range(len(self.sim.machine_names))
                              for o in self.sim.known_outages(m, self.state.time)]
        return obs

    def _level1(self) -> Observation:
        s = self.state
        known = self._known_jobs()
        return {"time": s.time, "queue_length": len(s.pool), "candidates": len(s.candidates),
                "committed": sum(len(ms.queue) for ms in s.machines),
                "utilisation": float(np.mean([self._utilisation(m) for m in range(len(s.machines))])),
                "late_jobs": sum(self._late(j) for j in known if s.status[j] != WITHDRAWN),
                "jobs_known": len(known), "jobs_done": sum(self._finished(j) for j in known)}

    def _known_jobs(self) -> list[int]:
        return [j for j, status in enumerate(self.state.status) if status != UNSEEN]

    def _known_ops(self, job: int) -> list[int]:
        return [o for o in self.sim.jobs[job].ops if self.sim.ops[o].release <= self.state.time]

    def _finished(self, job: int) -> bool:
        return self.state.next_step[job] == len(self.sim.jobs[job].ops)

    def _late(self, job: int) -> bool:
        end = self.state.job_end[job] if self._finished(job) else self.state.time
        return end > self.sim.due(job, self.state.time)

    def _utilisation(self, m: int) -> float:
        s = self.state
        ms = s.machines[m]
        busy = ms.busy + (s.time - ms.run.start if ms.run is not None else 0)
        return busy / s.time if s.time > 0 else 0.0

    def _machine(self, m: int) -> Observation:
        s, sim = self.state, self.sim
        ms = s.machines[m]
        status = ("down" if sim.down(m, s.time) else "busy" if ms.run is not None
                  else "committed" if ms.queue else "idle")
        machine = sim.world.machines[m]
        return {"name": machine.name, "group": machine.group, "status": status,
                "op": sim.ops[ms.run.op].name if ms.run is not None else None,
                "run_start": ms.run.start if ms.run is not None else None,
                "queue": [sim.ops[o].name for o in ms.queue], "workload": sim.workload(s, m),
                "utilisation": self._utilisation(m)}

    def _job(self, j: int) -> Observation:
        s, info = self.state, self.sim.jobs[j]
        known = self._known_ops(j)
        k = s.next_step[j]
        work = self.sim.remaining(info.ops[k], s.time)[1] if k < len(known) else 0.0
        return {"name": info.job.name, "release": info.job.release, "due": self.sim.due(j, s.time),
                "weight": self.sim.weight(j, s.time), "steps_known": len(known), "steps_done": k,
                "remaining_work": work, "status": self._job_status(j)}

    def _job_status(self, j: int) -> str:
        if self.state.status[j] == WITHDRAWN:
            return "withdrawn"
        if self._finished(j):
            return "done"
        k = self.state.next_step[j]
        return self._op_status(self.sim.jobs[j].ops[k])

    def _op_status(self, op: int) -> str:
        s, info = self.state, self.sim.ops[op]
        k = s.next_step[info.job]
        if info.pos < k:
            return "done"
        if s.status[info.job] != ACTIVE:
            return "dropped"
        if any(ms.run is not None and ms.run.op == op for ms in s.machines):
            return "running"
        if any(op in ms.queue for ms in s.machines):
            return "committed"
        return "ready" if any(e.op == op for e in s.pool) else "waiting"

    def _operation(self, op: int) -> Observation:
        t, info = self.state.time, self.sim.ops[op]
        names = self.sim.machine_names
        job = self.sim.jobs[info.job].job
        return {"name": info.name, "job": job.name, "step": job.operations[info.pos].step,
                "release": info.release, "status": self._op_status(op),
                "durations": {names[m]: self.sim.estimate(op, m, t) for m in self.sim.eligible(op, t)}}
