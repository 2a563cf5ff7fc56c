"""Discrete-event simulation of a dynamic flexible job shop under online dispatching.

A :class:`Simulator` compiles a :class:`~schedc.dynamic.world.World` once; a simulation is
a sequence of immutable :class:`SimState` snapshots. :meth:`Simulator.reset` and
:meth:`Simulator.step` return new states, so a state can be kept, branched and compared.

**Decision model.** A *decision point* is a time ``t`` at which some *candidate* exists: a
ready operation (its job is released and not withdrawn, its predecessor in the job is
complete, it is released and not running or committed) that could start *now* on an idle
machine — idle meaning no run, no committed queue and no outage at ``t`` — among the
machines the dispatcher knows it eligible for, without its estimated duration overlapping
an outage known at ``t``. A decision picks a candidate ``o`` and any machine ``m`` known
eligible for it: if ``m`` is idle and the start is admissible, ``o`` starts at ``t``;
otherwise ``o`` is *committed* to ``m`` and waits in ``m``'s FIFO queue, starting as soon as
``m`` is idle and the estimated run avoids every known outage.

**Information** (what a decision at ``t`` may use): jobs from their release; rework
operations (``release`` > 0) from their release; a ``processing_time_change`` op's
estimate from the event's ``old`` text before the event (machines it does not list: their
true duration), the true durations from the event on; a ``route_change`` op's ``old``
machines before the event, all its machines from the event on; due dates / weights: the
``old`` value before each change; maintenance outages from time 0, breakdowns from their
start. Execution always takes the true duration ``Operation.durations``.

**Event handling at time t**, in this order: runs ending at ``t`` complete; then the
world's timeline items at ``t`` apply — cancellations (the job's running run is aborted,
its queued or ready operation dropped), outage ends, outage starts (the machine's run is
aborted and goes back to the ready pool with its work lost; on a breakdown the machine's
committed queue also returns to the pool, as it was committed without that knowledge),
information events (logged), job releases, rework releases; then idle machines start the
heads of their queues; then decisions are taken. A run never overlaps an outage: starts
avoid known ones, and any outage starting during a run aborts it (an unknown breakdown, or
a maintenance window reached because the true duration exceeds the estimate).

The simulation ends when every operation of the realised jobs (``World.jobs``) is complete;
the completed runs of those operations form a valid schedule of the realised static
instance. Withdrawn jobs' runs only ever occupied machines, so dropping them keeps it valid.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import replace
from itertools import accumulate
from operator import itemgetter
from typing import Any

from schedc.core.diagnostics import SchedcError
from schedc.dynamic.fit import FitTables
from schedc.dynamic.simstate import (
    JobInfo,
    JobVector,
    LogEntry,
    MachineState,
    OpInfo,
    PoolEntry,
    Run,
    SimState,
    append_chunked,
    piecewise,
    set_at,
)
from schedc.dynamic.world import Event, Job, Operation, Outage, World

__all__ = ["ACTIVE", "UNSEEN", "WITHDRAWN", "JobVector", "LogEntry", "MachineState", "PoolEntry", "Run",
           "SimState", "Simulator"]

UNSEEN, ACTIVE, WITHDRAWN = 0, 1, 2
_PAIR = re.compile(r"([^\s,;:]+)\s*:\s*(-?\d+)")
_TOKEN = re.compile(r"[^\s,;]+")
_OP = itemgetter(0)  # PoolEntry.op as a C-level function: pool scans stay out of the interpreter loop


def _bad_event(event: Event, why: str) -> SchedcError:
    return SchedcError.at("E902", f"cannot simulate event {event.type} at {event.time} "
                          f"(job={event.job}, op={event.op}, old={event.old!r}): {why}")


class Simulator:
    """A compiled world plus the pure transition functions over :class:`SimState`.

    :meth:`reset` and :meth:`step` never modify a state; :meth:`admissible` lists the decisions
    allowed in a state; the knowledge functions (:meth:`eligible`, :meth:`estimate`,
    :meth:`mean_estimate`, :meth:`remaining`, :meth:`due`, :meth:`weight`,
    :meth:`known_outages`, :meth:`ready_at`, :meth:`workload`) answer what a dispatcher knows
    at a time. Exogenous happenings are one time-sorted tuple walked by ``SimState.cursor``;
    the only endogenous ones are run completions, at most one per machine, so the next event
    time is a min over the machines and no mutable heap has to be copied into every snapshot.
    """

    def __init__(self, world: World):
        self.world = world
        self.machine_names = tuple(m.name for m in world.machines)
        self.machine_index = {name: i for i, name in enumerate(self.machine_names)}
        jobs = [*world.jobs, *world.cancelled]
        self.op_index = {op.name: i for i, op in enumerate(op for job in jobs for op in job.operations)}
        self.job_index = {job.name: j for j, job in enumerate(jobs)}
        by_op = self._events_by("op")
        by_job = self._events_by("job")
        self.ops: tuple[OpInfo, ...] = tuple(
            self._op_info(op, j, pos, by_op.get(op.name, ()))
            for j, job in enumerate(jobs) for pos, op in enumerate(job.operations))
        self.jobs: tuple[JobInfo, ...] = tuple(
            self._job_info(job, j < len(world.jobs), by_job.get(job.name, ())) for j, job in enumerate(jobs))
        self.outages: tuple[Outage, ...] = tuple(sorted(world.outages, key=lambda o: (o.start, o.end, o.machine)))
        self.machine_outages = tuple(tuple(o for o in self.outages if o.machine == name)
                                     for name in self.machine_names)
        # reach[m][i]: the latest end among machine m's first i + 1 outages (sorted by start), so a
        # bisection skips every outage that ends by a given time — the scans stay O(log outages)
        self._reach = tuple(tuple(accumulate((o.end for o in outages), max)) for outages in self.machine_outages)
        # the same for the planned outages alone (known from time 0), which bound how long a run may be
        # that starts now on an idle machine (:meth:`_room`)
        planned = tuple(tuple(o for o in outages if o.cause == "maintenance") for outages in self.machine_outages)
        self._planned_start = tuple(tuple(o.start for o in outages) for outages in planned)
        self._planned_reach = tuple(tuple(accumulate((o.end for o in outages), max)) for outages in planned)
        self.timeline = self._timeline()
        self._final_mean = tuple(sum(o.true[m] for m in o.machines) / len(o.machines) for o in self.ops)
        self._suffix = tuple(self._suffix_work(info) for info in self.jobs)
        # (machine, max(true duration, 1)) per op: what a start-now test needs once the op is settled
        self._final_runs = tuple(tuple((m, max(info.true[m], 1)) for m in info.machines) for info in self.ops)
        # tables other modules derive from this world (e.g. the rules' settled keys), built on first use
        self.memo: dict[str, Any] = {}
        self._fit = FitTables(self.ops, len(self.machine_names))  # the start-now test over a pool (:meth:`_candidates`)

    # ----------------------------------------------------------------- compilation
    def _events_by(self, attr: str) -> dict[str, tuple[Event, ...]]:
        found: dict[str, list[Event]] = {}
        for event in sorted(self.world.events, key=lambda e: e.time):
            key = getattr(event, attr)
            if key is not None:
                found.setdefault(key, []).append(event)
        return {k: tuple(v) for k, v in found.items()}

    def _op_info(self, op: Operation, job: int, pos: int, events: tuple[Event, ...]) -> OpInfo:
        true = {self._machine(m, op.name): d for m, d in op.durations}
        routes = tuple((e.time, self._old_route(e, op)) for e in events if e.type == "route_change")
        estimates = tuple((e.time, self._old_estimate(e)) for e in events if e.type == "processing_time_change")
        settled = max([op.release, *(t for t, _ in routes), *(t for t, _ in estimates)])
        return OpInfo(op.name, job, pos, op.release, true, tuple(true), routes, estimates, settled)

    def _job_info(self, job: Job, realised: bool, events: tuple[Event, ...]) -> JobInfo:
        cancels = [e.time for e in events if e.type == "cancel"]
        if realised and cancels:
            raise _bad_event(next(e for e in events if e.type == "cancel"), "the job is realised (in World.jobs)")
        if not realised and not cancels:
            raise SchedcError.at("E902", f"withdrawn job {job.name!r} has no cancel event")
        ops = tuple(self.op_index[op.name] for op in job.operations)
        due = tuple((e.time, self._old_int(e)) for e in events if e.type == "due_date_change")
        weight = tuple((e.time, self._old_int(e)) for e in events if e.type == "priority_change")
        settled = max([job.release, *(self.ops[o].settled for o in ops)])
        return JobInfo(job, ops, realised, min(cancels) if cancels else None, due, weight, settled)

    def _machine(self, name: str, op: str) -> int:
        if name not in self.machine_index:
            raise SchedcError.at("E902", f"operation {op!r} names unknown machine {name!r}")
        return self.machine_index[name]

    def _old_estimate(self, event: Event) -> dict[int, int]:
        pairs = _PAIR.findall(event.old)
        if not pairs:
            raise _bad_event(event, "expected machine:duration pairs")
        return {self._machine(m, event.op or ""): int(d) for m, d in pairs}

    def _old_route(self, event: Event, op: Operation) -> tuple[int, ...]:
        """The machines eligible before a route change: ``old`` names machines (``M:d`` pairs
        allowed) or machine groups; empty means the machines of the op's own group."""
        own = [m for m, _ in op.durations]
        tokens = [tok.split(":")[0] for tok in _TOKEN.findall(event.old)] or [op.group]
        names = [name for tok in tokens for name in self._machines_named(tok, own)]
        if not names or any(n not in own for n in names):
            raise _bad_event(event, f"old route must name some of the op's machines {own}")
        return tuple(sorted({self.machine_index[n] for n in names}))

    def _machines_named(self, token: str, own: list[str]) -> list[str]:
        """``token`` itself if it is a machine, else the machines of ``own`` in group ``token``."""
        if token in self.machine_index:
            return [token]
        return [n for n in own if self.world.machine(n).group == token] or [token]

    @staticmethod
    def _old_int(event: Event) -> int:
        try:
            return int(float(event.old))
        except ValueError:
            raise _bad_event(event, "expected a number") from None

    def _timeline(self) -> tuple[tuple[int, int, str, int], ...]:
        """Exogenous items ``(time, priority, kind, index)`` in application order."""
        items = [(info.cancel, 0, "cancel", j) for j, info in enumerate(self.jobs) if info.cancel is not None]
        items += [(o.end, 1, "outage_end", i) for i, o in enumerate(self.outages)]
        items += [(o.start, 2, "outage_start", i) for i, o in enumerate(self.outages)]
        items += [(e.time, 3, "event", i) for i, e in enumerate(self.world.events)]
        items += [(info.job.release, 4, "job", j) for j, info in enumerate(self.jobs)]
        items += [(o.release, 5, "op", i) for i, o in enumerate(self.ops) if o.release > self.jobs[o.job].job.release]
        return tuple(sorted(items))

    def _suffix_work(self, info: JobInfo) -> tuple[float, ...]:
        work = [0.0]
        for o in reversed(info.ops):
            work.append(work[-1] + self._final_mean[o])
        return tuple(reversed(work))

    # ----------------------------------------------------------------- knowledge at time t
    def eligible(self, op: int, t: int) -> tuple[int, ...]:
        """Machines (indices) the dispatcher knows ``op`` may run on at ``t``."""
        info = self.ops[op]
        if t >= info.settled:
            return info.machines  # every route change is past (the common case: skip the walk)
        return piecewise(info.old_routes, t, info.machines)  # type: ignore[return-value]

    def estimate(self, op: int, machine: int, t: int) -> int:
        """The processing time of ``op`` on ``machine`` as known at ``t``."""
        info = self.ops[op]
        if t >= info.settled:
            return info.true[machine]
        known = piecewise(info.old_estimates, t, info.true)
        return known.get(machine, info.true[machine])  # type: ignore[union-attr]

    def mean_estimate(self, op: int, t: int) -> float:
        """Mean known processing time of ``op`` over its known eligible machines at ``t``."""
        if t >= self.ops[op].settled:
            return self._final_mean[op]
        machines = self.eligible(op, t)
        return sum(self.estimate(op, m, t) for m in machines) / len(machines)

    def remaining(self, op: int, t: int) -> tuple[int, float]:
        """Known operations of ``op``'s job from ``op`` on (itself included): their count and mean-estimate work."""
        info = self.ops[op]
        job = self.jobs[info.job]
        if t >= job.settled:
            return len(job.ops) - info.pos, self._suffix[info.job][info.pos]
        known = [o for o in job.ops[info.pos:] if self.ops[o].release <= t]
        return len(known), sum(self.mean_estimate(o, t) for o in known)

    def due(self, job: int, t: int) -> int:
        info = self.jobs[job]
        return piecewise(info.old_due, t, info.job.due)  # type: ignore[return-value]

    def weight(self, job: int, t: int) -> int:
        info = self.jobs[job]
        return piecewise(info.old_weight, t, info.job.weight)  # type: ignore[return-value]

    def known_outages(self, machine: int, t: int) -> tuple[Outage, ...]:
        """Outages of ``machine`` known at ``t``: every maintenance, breakdowns that have started."""
        return tuple(o for o in self.machine_outages[machine] if o.cause == "maintenance" or o.start <= t)

    def down(self, machine: int, t: int) -> bool:
        """Whether ``machine`` is in an outage at ``t`` (known, since it has started)."""
        outages = self.machine_outages[machine]
        for i in range(bisect_right(self._reach[machine], t), len(outages)):
            o = outages[i]
            if o.start > t:
                return False  # sorted by start: no later outage covers t
            if t < o.end:
                return True
        return False

    def earliest_start(self, machine: int, ready: int, duration: int, t: int) -> int:
        """The first ``s >= ready`` with ``[s, s + duration)`` clear of the outages known at ``t``
        (for duration 0: ``s`` not inside one)."""
        s = ready
        outages = self.machine_outages[machine]
        for i in range(bisect_right(self._reach[machine], s), len(outages)):
            o = outages[i]
            if o.start >= s + max(duration, 1):
                break  # sorted by start: no later outage reaches the run either
            if o.end > s and (o.cause == "maintenance" or o.start <= t):
                s = o.end
        return s

    def free(self, state: SimState, machine: int) -> bool:
        """Idle: no run, nothing committed, not in an outage."""
        ms = state.machines[machine]
        return ms.run is None and not ms.queue and not self.down(machine, state.time)

    def ready_at(self, state: SimState, machine: int) -> int:
        """When ``machine`` is estimated to finish its committed work (its run, then its queue)."""
        ms, t = state.machines[machine], state.time
        end = t if ms.run is None else max(t, ms.run.start + self.estimate(ms.run.op, machine, t))
        return end + sum(self.estimate(o, machine, t) for o in ms.queue)

    def workload(self, state: SimState, machine: int) -> int:
        """Committed remaining work of ``machine``: estimated rest of its run plus its queue."""
        return self.ready_at(state, machine) - state.time

    def admissible(self, state: SimState) -> tuple[tuple[int, int], ...]:
        """Every (operation, machine) decision allowed now."""
        return tuple((e.op, m) for e in state.candidates for m in self.eligible(e.op, state.time))

    # ----------------------------------------------------------------- transitions
    def reset(self) -> SimState:
        """The state at the first decision point (or the final state if none is needed)."""
        n = len(self.jobs)
        left = sum(len(j.ops) for j in self.jobs if j.realised)
        state = SimState(time=0, cursor=0, machines=tuple(MachineState() for _ in self.machine_names), pool=(),
                         next_step=JobVector.filled(0, n), status=JobVector.filled(UNSEEN, n),
                         job_end=JobVector.filled(-1, n), left=left)
        return self._advance(self._process(state, 0))

    def step(self, state: SimState, op: int, machine: int) -> SimState:
        """Dispatch ``op`` to ``machine`` (start now or commit) and run to the next decision point."""
        if op not in map(_OP, state.candidates) or machine not in self.eligible(op, state.time):
            raise SchedcError.at("E903", f"({self.ops[op].name}, {self.machine_names[machine]}) is not an "
                                 f"admissible decision at time {state.time}", hint="see admissible()")
        t = state.time
        startable = self.free(state, machine) and self.earliest_start(
            machine, t, self.estimate(op, machine, t), t) == t
        entry = self._entry(t, "dispatch", op, machine, "start" if startable else "commit")
        i = tuple(map(_OP, state.pool)).index(op)  # an operation is in the pool at most once
        state = replace(state, pool=state.pool[:i] + state.pool[i + 1:], decisions=state.decisions + 1,
                        log_chunks=append_chunked(state.log_chunks, entry))
        if startable:
            state = self._start(state, op, machine)
        else:
            ms = state.machines[machine]
            state = replace(state, machines=set_at(state.machines, machine, ms._replace(queue=ms.queue + (op,))))
        return self._advance(state)

    def _advance(self, state: SimState) -> SimState:
        while not state.done:
            candidates = self._candidates(state)
            if candidates:
                return replace(state, candidates=candidates)
            t = self._next_time(state)
            if t is None:
                raise SchedcError.at("E904", f"simulation of {self.world.name!r} stalled at time {state.time} "
                                     f"with {state.left} operations left")
            state = self._process(state, t)
        return replace(state, candidates=())

    def _candidates(self, state: SimState) -> tuple[PoolEntry, ...]:
        if not state.pool:
            return ()
        room = self._room(state)
        if not room:
            return ()
        t = state.time
        return self._fit.select(state.pool, room, lambda op: self._fits(op, t, room))

    def _room(self, state: SimState) -> dict[int, float]:
        """Idle machine → the longest run that may start on it now without meeting a known outage.

        ``earliest_start(m, t, d, t) == t`` exactly when no known outage of ``m`` ending after ``t``
        starts before ``t + max(d, 1)``. On an idle machine (not down at ``t``) every known breakdown
        has ended (it is known only from its start), so the first such outage is the first planned
        one ending after ``t``: found by bisection, the test is ``max(d, 1) <= room[m]``. A decision
        then costs O(pool × eligible machines) dictionary look-ups instead of as many outage scans.
        """
        t, room = state.time, {}
        for m in range(len(self.machine_names)):
            if self.free(state, m):
                i = bisect_right(self._planned_reach[m], t)
                starts = self._planned_start[m]
                room[m] = starts[i] - t if i < len(starts) else float("inf")
        return room

    def _fits(self, op: int, t: int, room: dict[int, float]) -> bool:
        """Whether ``op`` can start now on some idle machine known eligible for it (see :meth:`_room`)."""
        if t >= self.ops[op].settled:  # known durations are the true ones: skip the piecewise walks
            return any(m in room and d <= room[m] for m, d in self._final_runs[op])
        return any(m in room and max(self.estimate(op, m, t), 1) <= room[m] for m in self.eligible(op, t))

    def _next_time(self, state: SimState) -> int | None:
        times = [ms.run.end for ms in state.machines if ms.run is not None]
        if state.cursor < len(self.timeline):
            times.append(self.timeline[state.cursor][0])
        return min(times, default=None)

    def _process(self, state: SimState, t: int) -> SimState:
        """Advance the clock to ``t``: completions, timeline items, then queued starts."""
        state = replace(state, time=t)
        for m, ms in enumerate(state.machines):
            if ms.run is not None and ms.run.end <= t:
                state = self._complete(state, m)
        while state.cursor < len(self.timeline) and self.timeline[state.cursor][0] <= t:
            _, _, kind, index = self.timeline[state.cursor]
            state = getattr(self, f"_on_{kind}")(replace(state, cursor=state.cursor + 1), index)
        return self._start_queued(state)

    def _entry(self, t: int, kind: str, op: int, machine: int, detail: str = "") -> LogEntry:
        return LogEntry(t, kind, self.ops[op].name, self.machine_names[machine], detail)

    def _start(self, state: SimState, op: int, machine: int) -> SimState:
        t = state.time
        run = Run(op, machine, t, t + self.ops[op].true[machine])
        ms = state.machines[machine]
        return replace(state, machines=set_at(state.machines, machine, ms._replace(run=run)),
                       log_chunks=append_chunked(state.log_chunks, self._entry(t, "start", op, machine)))

    def _start_queued(self, state: SimState) -> SimState:
        t = state.time
        for m, ms in enumerate(state.machines):
            if ms.run is None and ms.queue and not self.down(m, t):
                head = ms.queue[0]
                if self.earliest_start(m, t, self.estimate(head, m, t), t) == t:
                    state = replace(state, machines=set_at(state.machines, m, ms._replace(queue=ms.queue[1:])))
                    state = self._start(state, head, m)
        return state

    def _complete(self, state: SimState, machine: int) -> SimState:
        ms = state.machines[machine]
        run = ms.run
        assert run is not None
        info = self.ops[run.op]
        ended = MachineState(None, ms.queue, ms.busy + run.end - run.start)
        state = replace(
            state, machines=set_at(state.machines, machine, ended),
            next_step=state.next_step.set(info.job, info.pos + 1), job_end=state.job_end.set(info.job, run.end),
            left=state.left - int(self.jobs[info.job].realised),
            completed_chunks=append_chunked(state.completed_chunks, run),
            log_chunks=append_chunked(state.log_chunks, self._entry(run.end, "complete", run.op, machine)))
        return self._enqueue_next(state, info.job)

    def _enqueue_next(self, state: SimState, job: int) -> SimState:
        """Put the job's next operation in the pool if it is known and not there yet."""
        k, ops = state.next_step[job], self.jobs[job].ops
        if state.status[job] != ACTIVE or k >= len(ops) or self.ops[ops[k]].release > state.time:
            return state
        if ops[k] in map(_OP, state.pool):
            return state
        return replace(state, pool=state.pool + (PoolEntry(ops[k], state.time),))

    def _abort(self, state: SimState, machine: int, cause: str) -> SimState:
        """Stop the machine's run (its work is lost); the operation returns to the pool unless withdrawn."""
        ms = state.machines[machine]
        run = ms.run
        assert run is not None
        t = state.time
        state = replace(
            state, machines=set_at(state.machines, machine, MachineState(None, ms.queue, ms.busy + t - run.start)),
            aborts=state.aborts + (cause != "cancel"),
            log_chunks=append_chunked(state.log_chunks, self._entry(t, "abort", run.op, machine, cause)))
        if state.status[self.ops[run.op].job] == ACTIVE:
            state = replace(state, pool=state.pool + (PoolEntry(run.op, t),))
        return state

    # ----------------------------------------------------------------- timeline items
    def _on_cancel(self, state: SimState, job: int) -> SimState:
        state = replace(state, status=state.status.set(job, WITHDRAWN),
                        pool=tuple(e for e in state.pool if self.ops[e.op].job != job))
        for m, ms in enumerate(state.machines):
            queue = tuple(o for o in ms.queue if self.ops[o].job != job)
            state = replace(state, machines=set_at(state.machines, m, ms._replace(queue=queue)))
            if ms.run is not None and self.ops[ms.run.op].job == job:
                state = self._abort(state, m, "cancel")
        return state

    def _on_outage_start(self, state: SimState, index: int) -> SimState:
        outage = self.outages[index]
        m = self.machine_index[outage.machine]
        entry = LogEntry(state.time, "outage", machine=outage.machine, detail=f"{outage.cause} until {outage.end}")
        state = replace(state, log_chunks=append_chunked(state.log_chunks, entry))
        if state.machines[m].run is not None:
            state = self._abort(state, m, outage.cause)
        if outage.cause == "breakdown":
            ms = state.machines[m]
            back = tuple(PoolEntry(o, state.time) for o in ms.queue)
            state = replace(state, pool=state.pool + back, machines=set_at(state.machines, m, ms._replace(queue=())))
        return state

    def _on_outage_end(self, state: SimState, index: int) -> SimState:
        return state  # a wake-up: queued heads and candidates are re-examined at this time

    def _on_event(self, state: SimState, index: int) -> SimState:
        e = self.world.events[index]
        entry = LogEntry(state.time, "event", detail=f"{e.type} {e.op or e.job or ''}".strip())
        return replace(state, log_chunks=append_chunked(state.log_chunks, entry))

    def _on_job(self, state: SimState, job: int) -> SimState:
        if state.status[job] != UNSEEN:
            return state  # withdrawn at or before its release
        state = replace(state, status=state.status.set(job, ACTIVE),
                        log_chunks=append_chunked(state.log_chunks, LogEntry(state.time, "arrival",
                                                                      detail=self.jobs[job].job.name)))
        return self._enqueue_next(state, job)

    def _on_op(self, state: SimState, op: int) -> SimState:
        info = self.ops[op]
        if state.next_step[info.job] != info.pos:
            return state  # an earlier operation is still unfinished; its completion will enqueue this one
        return self._enqueue_next(state, info.job)
