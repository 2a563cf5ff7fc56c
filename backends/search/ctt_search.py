"""Simulated annealing over (slot, room) moves and swaps for room-and-period timetables.

**Which instances** (:func:`search_problem`, from the constraint-kind pattern alone): slot
instances with a penalty objective, no free value, hard ``one_per_slot`` per value and per agent,
a hard ``count_bounds`` fixing each agent's number of assignments (``min = max``), hard
``slot_conflict`` and ``unavailability``, and soft ``capacity_overflow``, ``spread``,
``compactness`` and ``stability`` (at most one of each) — ITC-2007 curriculum timetabling.

**State**: each assignment ("lecture") of an agent has a slot and a room. Every state the search
visits satisfies every hard rule: a move is applied only if it keeps room occupancy, the
agent's one-room-per-slot, conflicts and unavailability intact (the counts never change).

**Moves**: pick a lecture and a target (slot, room) at random; if the room is free there the
lecture moves, otherwise the two lectures exchange their (slot, room). A target in the same
slot is a room change. Some moves instead put all lectures of one agent into one room, each
exchanging rooms within its slot with the lecture there (room stability cannot be repaired one
lecture at a time when the rooms are full: every single exchange makes the partner less stable).
Others exchange a *Kempe chain* between two slots: the lecture picked, the lectures of the other
slot that conflict with it (or share its agent), the lectures of its own slot that conflict with
those, and so on; the chain's lectures of each slot move to the other. The chain is closed under
conflicts, so a move that a single lecture could not make (its target slot holds a conflicting
lecture) becomes feasible, and curriculum compactness, which depends on whole groups of
lectures being next to each other, can be repaired (Kempe-chain neighbourhoods are a standard
tool of course timetabling since Thompson and Dowsland, Comput. Oper. Res. 25(7/8), 1998).

**Incremental costs** (formal meanings in :mod:`schedc.kinds.costs`), kept exact after every
change by the compiled kernel (:func:`schedc.backends.search.ctt_kernel.change`): capacity overflow per lecture;
``spread`` from per-agent day counts; ``stability`` from per-agent room counts; ``compactness``
from per-group slot counts, where adding or removing an occupancy at period p changes only the
isolation terms of p − 1, p, p + 1 of that day. The test suite checks the maintained cost
against the evaluator after random moves.

**Annealing**: a move of cost change δ is accepted when δ ≤ 0 or with probability
``exp(−δ/T)``; T falls geometrically from ``t0`` to ``t1`` over the time (or iteration) budget,
constant within one kernel call (:data:`CHUNK` moves, or about :data:`CHUNK_SECONDS` with a time
limit). The kernel's generator is seeded from ``random.Random(seed)`` and the greedy draws
from it too: with an iteration limit the run is deterministic.
"""

from __future__ import annotations

import contextlib
import math
import random
import threading
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from schedc.backends.search import ctt_kernel as kernel
from schedc.core.solution import Assignment, Solution
from schedc.ir import Family, Instance
from schedc.kinds import (
    CapacityOverflow,
    Compactness,
    CountBounds,
    OnePerSlot,
    SlotConflict,
    Spread,
    Stability,
    Unavailability,
)
from schedc.kinds.context import EvalContext


@dataclass
class Problem:
    """Integer data of a room-and-period instance (agents, rooms and slots numbered from 0)."""

    ctx: EvalContext
    agents: list[str]
    rooms: list[str]
    periods: int
    slots: int
    lectures: list[int]  # per agent: its fixed number of assignments (count_bounds)
    conflicts: list[list[int]]  # per agent: the agents that may not share its slot
    conflict_sets: list[set[int]]  # the same, for membership tests
    unavailable: list[set[int]]  # per agent: its forbidden slots
    overflow: list[list[int]]  # [agent][room]: weighted capacity penalty of one lecture
    min_days: list[int]
    spread_weight: int
    groups: list[list[int]]  # per compactness group: member agents
    member_of: list[list[int]]  # per agent: the groups it belongs to
    compact_weight: int
    max_rooms: list[int]  # per agent: stability's allowance (len(rooms) when not selected)
    stability_weight: int


def search_problem(instance: Instance, family: Family) -> Problem | None:
    """The search's data when the instance has the pattern of the module docstring, else None."""
    if instance.activities or instance.calendar is None or instance.objective.measure != "penalty":
        return None
    ctx = EvalContext(instance, family)
    if ctx.free is not None or not ctx.values:
        return None
    by_kind: dict[type, list] = {}
    for c in instance.constraints:
        if c.active:
            by_kind.setdefault(type(c), []).append(c)
    hard = (OnePerSlot, CountBounds, SlotConflict, Unavailability)
    soft = (CapacityOverflow, Spread, Compactness, Stability)
    if set(by_kind) - set(hard + soft) or any(len(by_kind.get(k, [])) > 1 for k in soft):
        return None
    if any(c.agents.cls != ctx.agent_cls for c in by_kind.get(Spread, [])):  # days of groups: not in the kernel
        return None
    if any(not c.hard for k in hard for c in by_kind.get(k, [])) or any(c.hard for k in soft
                                                                         for c in by_kind.get(k, [])):
        return None
    pers = {c.per for c in by_kind.get(OnePerSlot, []) if not c.exactly}
    if pers != {"agent", "value"} or any(c.exactly for c in by_kind.get(OnePerSlot, [])):
        return None
    counts = by_kind.get(CountBounds, [])
    fixed = {e: ctx.bound(c.min, e) for c in counts for e in ctx.select(c.agents)}
    if (len(counts) != 1 or counts[0].values.mode != "work" or set(fixed) != set(ctx.agents)
            or any(ctx.bound(counts[0].max, e) != fixed[e] or fixed[e] is None for e in ctx.agents)):
        return None
    return _problem(ctx, by_kind, [int(fixed[e]) for e in ctx.agents])


def _problem(ctx: EvalContext, by_kind: dict[type, list], lectures: list[int]) -> Problem:
    agents, rooms = list(ctx.agents), list(ctx.values)
    index = {e: k for k, e in enumerate(agents)}
    periods = ctx.periods
    conflicts: list[set[int]] = [set() for _ in agents]
    for c in by_kind.get(SlotConflict, []):
        for a, others in c.conflicts(ctx).items():
            conflicts[index[a]].update(index[b] for b in others)
    unavailable: list[set[int]] = [set() for _ in agents]
    for c in by_kind.get(Unavailability, []):
        for u in c.slots:
            for p in range(periods) if u.period is None else (u.period,):
                unavailable[index[u.agent]].add(u.day * periods + p)
    cap = next(iter(by_kind.get(CapacityOverflow, [])), None)
    overflow = [[0] * len(rooms) for _ in agents]
    if cap is not None:
        for i, e in enumerate(agents):
            demand = ctx.attrs(ctx.agent_cls, e).get(cap.demand, 0)
            for r, v in enumerate(rooms):
                overflow[i][r] = cap.weight * max(0, demand - ctx.attrs(ctx.value_cls, v).get(cap.capacity, 0))
    spread = next(iter(by_kind.get(Spread, [])), None)
    min_days = [0] * len(agents)
    if spread is not None:
        for e in ctx.select(spread.agents):
            min_days[index[e]] = ctx.bound(spread.min, e) or 0
    compact = next(iter(by_kind.get(Compactness, [])), None)
    groups = [] if compact is None else [[index[m] for m in attrs.get(compact.members, ())]
                                         for attrs in ctx.by_class.get(compact.groups, {}).values()]
    member_of: list[list[int]] = [[] for _ in agents]
    for g, members in enumerate(groups):
        for i in members:
            member_of[i].append(g)
    stability = next(iter(by_kind.get(Stability, [])), None)
    max_rooms = [len(rooms)] * len(agents)
    if stability is not None:
        for e in ctx.select(stability.agents):
            max_rooms[index[e]] = stability.max
    return Problem(ctx=ctx, agents=agents, rooms=rooms, periods=periods, slots=ctx.days * periods, lectures=lectures,
                   conflicts=[sorted(c) for c in conflicts], conflict_sets=conflicts,
                   unavailable=unavailable, overflow=overflow,
                   min_days=min_days, spread_weight=spread.weight if spread else 0, groups=groups,
                   member_of=member_of, compact_weight=compact.weight if compact else 0, max_rooms=max_rooms,
                   stability_weight=stability.weight if stability else 0)


class Search:
    """A feasible timetable with its penalty kept exact under moves (see the module docstring):
    the kernel's arrays (:mod:`schedc.backends.search.ctt_kernel`) with Python-facing moves.
    ``runs`` runs them: the compiled module, or its plain-Python copy
    (:func:`schedc.backends.search.ctt_compile.plain_kernel`), which gives the same results. The
    arrays are always the compiled module's ``Data`` and ``State`` tuples, so that a search can
    move from the plain copy to the compiled functions without a new signature to compile."""

    def __init__(self, problem: Problem, start: Solution, runs: ModuleType = kernel):
        self.pb = pb = problem
        self.kernel = runs
        self.data = data = kernel_data(pb)
        self.state = kernel.empty_state(data, pb.ctx.days, pb.slots, len(pb.rooms), len(pb.groups))
        self._steps = np.zeros((max(pb.lectures, default=0), 2), np.int64)
        self._chain = np.zeros((2 * len(pb.rooms), 3), np.int64)  # a Kempe chain holds at most two slots' lectures
        agent_index = {e: k for k, e in enumerate(pb.agents)}
        room_index = {v: k for k, v in enumerate(pb.rooms)}
        nxt = data.lecture_start[:-1].astype(np.int64)  # each agent's next lecture to place
        for a in start.assignments:
            i = agent_index[a.agent]
            if nxt[i] >= data.lecture_start[i + 1]:
                raise ValueError(f"the start has more than {pb.lectures[i]} assignments of {a.agent}")
            runs.place(data, self.state, int(nxt[i]), a.day * pb.periods + a.period, room_index[a.value])
            nxt[i] += 1

    @property
    def cost(self) -> int:
        """The penalty of the placed lectures (of the timetable, once every lecture is placed)."""
        return int(self.state.cost[0])

    @property
    def lecture_agent(self) -> np.ndarray:
        return self.data.lecture_agent

    @property
    def lecture_slot(self) -> np.ndarray:
        return self.state.slot

    @property
    def lecture_room(self) -> np.ndarray:
        return self.state.room

    def try_move(self, k: int, slot: int, room: int) -> int | None:
        """Apply the move of lecture k to (slot, room) — a swap when occupied; the penalty change,
        or None (nothing changed) when it would break a hard rule."""
        delta = self.kernel.try_move(self.data, self.state, int(k), int(slot), int(room))
        return None if delta == kernel.REJECTED else int(delta)

    def undo(self, k: int, slot: int, room: int, home: int, home_room: int) -> None:
        """Reverse an applied :meth:`try_move` of lecture k from (home, home_room)."""
        self.kernel.undo(self.data, self.state, int(k), int(slot), int(room), int(home), int(home_room))

    def try_agent_room(self, agent: int, room: int) -> tuple[int, list[tuple[int, int]]]:
        """Every lecture of ``agent`` into ``room`` (exchanging rooms within its slot): the penalty
        change and the (lecture, old room) steps that :meth:`undo_agent_room` reverses."""
        delta, n = self.kernel.try_agent_room(self.data, self.state, int(agent), int(room), self._steps)
        return int(delta), [(int(k), int(old)) for k, old in self._steps[:n]]

    def try_kempe(self, k: int, slot: int) -> tuple[int, int] | None:
        """Exchange the Kempe chain of lecture k between its slot and ``slot``: the penalty change
        and the chain's length for :meth:`undo_kempe`, or None (nothing changed) when it cannot be made."""
        delta, n = self.kernel.try_kempe(self.data, self.state, int(k), int(slot), self._chain)
        return None if delta == kernel.REJECTED else (int(delta), int(n))

    def undo_kempe(self, n: int) -> None:
        """Reverse the last :meth:`try_kempe` (its length n)."""
        self.kernel.undo_kempe(self.data, self.state, self._chain, n)

    def undo_agent_room(self, steps: list[tuple[int, int]]) -> None:
        rows = np.array(steps, dtype=np.int64).reshape(-1, 2)
        self.kernel.undo_agent_room(self.data, self.state, rows, len(steps))

    def solution(self, slots: np.ndarray | None = None, rooms: np.ndarray | None = None) -> Solution:
        """The timetable as assignments (of ``slots`` and ``rooms`` when given: a kept best state)."""
        pb = self.pb
        slots = self.state.slot if slots is None else slots
        rooms = self.state.room if rooms is None else rooms
        return Solution(assignments=tuple(
            Assignment(pb.agents[i], s // pb.periods, s % pb.periods, pb.rooms[r])
            for i, s, r in sorted(zip(self.data.lecture_agent.tolist(), slots.tolist(), rooms.tolist(),
                                      strict=True))))


def kernel_data(pb: Problem) -> kernel.Data:
    """The kernel's arrays of the problem (lectures numbered agent by agent)."""
    n = len(pb.agents)
    conflict = np.zeros((n, n), np.uint8)
    unavailable = np.zeros((n, pb.slots), np.uint8)
    for i in range(n):
        conflict[i, pb.conflicts[i]] = 1
        unavailable[i, sorted(pb.unavailable[i])] = 1
    start, lists = _csr(pb.conflicts)
    member_start, members = _csr(pb.member_of)
    return kernel.Data(
        periods=pb.periods, spread_weight=pb.spread_weight, compact_weight=pb.compact_weight,
        stability_weight=pb.stability_weight,
        lecture_agent=np.repeat(np.arange(n, dtype=np.int32), pb.lectures).astype(np.int32),
        lecture_start=np.concatenate(([0], np.cumsum(pb.lectures))).astype(np.int32),
        conflict_start=start, conflict_list=lists, conflict=conflict, unavailable=unavailable,
        overflow=np.array(pb.overflow, dtype=np.int32).reshape(n, len(pb.rooms)),
        min_days=np.array(pb.min_days, dtype=np.int32), max_rooms=np.array(pb.max_rooms, dtype=np.int32),
        member_start=member_start, member_list=members)


def _csr(rows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Compressed rows: row i is ``values[start[i]:start[i + 1]]``."""
    start = np.concatenate(([0], np.cumsum([len(r) for r in rows]))).astype(np.int32)
    values = np.array([v for r in rows for v in r], dtype=np.int32)
    return start, values


@dataclass(frozen=True)
class AnnealResult:
    """The best timetable seen, its penalty, and the number of moves tried."""

    solution: Solution
    cost: int
    iterations: int


#: annealing moves per kernel call with an iteration limit (fixed, so that a seed gives one
#: trajectory whatever the speed); with a time limit the chunk adapts to about :data:`CHUNK_SECONDS`
CHUNK = 1 << 14
#: the wall time of one kernel call with a time limit: the stop event and the temperature are
#: looked at this often (the temperature is constant within a call)
CHUNK_SECONDS = 0.02


def anneal(problem: Problem, start: Solution, seed: int, time_limit: float | None = None,
           iterations: int | None = None, t0: float = 4.0, t1: float = 0.05,
           room_share: float = 0.0, agent_share: float = 0.05, kempe_share: float = 0.0,
           stop: threading.Event | None = None, floor: int | None = None,
           runs: ModuleType | Callable[[float], ModuleType] = kernel) -> AnnealResult:
    """Simulated annealing from the feasible ``start`` within a time and/or iteration budget;
    ``room_share`` of the single-lecture moves keep the lecture's slot (room changes and
    exchanges); ``agent_share`` of all moves put one agent's lectures into one room. Returns
    early, with the best so far, once ``stop`` is set or the best cost is at most ``floor``
    (a known lower bound: nothing better exists).

    ``runs`` is the kernel module that runs the chunks, or a function asked before each chunk
    with the seconds left (:class:`schedc.backends.search.ctt_compile.Kernels`: the plain-Python
    copy until the compiled kernel is in numba's cache, then the compiled one); both walk the
    same trajectory."""
    if time_limit is None and iterations is None:
        raise ValueError("anneal needs a time limit or an iteration limit")
    current = runs if isinstance(runs, ModuleType) else runs(math.inf if time_limit is None else time_limit)
    search = Search(problem, start, current)
    state, data = search.state, search.data
    rng = np.array([random.Random(seed).getrandbits(64) or 1], dtype=np.uint64)
    best_slot, best_room = state.slot.copy(), state.room.copy()
    best_cost = state.cost.copy()
    began = time.perf_counter()
    done, chunk = 0, CHUNK if time_limit is None else 256  # a first short call measures the speed
    measured_from, measured_done = began, 0  # the speed is the current kernel's, since it took over
    while len(data.lecture_agent) and not (stop is not None and stop.is_set()):
        used = time.perf_counter() - began
        share = max(_spent(used, time_limit), _spent(done, iterations))
        if share >= 1.0 or (floor is not None and best_cost[0] <= floor):
            break
        left = math.inf if time_limit is None else time_limit - used
        if not isinstance(runs, ModuleType) and (now := runs(left)) is not current:
            current, chunk = now, 256 if time_limit is not None else chunk
            measured_from, measured_done = time.perf_counter(), done
        n = chunk if iterations is None else min(chunk, iterations - done)
        with _wrapping(current):
            current.anneal_chunk(data, state, rng, best_slot, best_room, best_cost, n, t0 * (t1 / t0) ** share,
                                 room_share, agent_share, search._steps, kempe_share, search._chain)
        done += n
        if time_limit is not None:
            rate = (done - measured_done) / max(1e-6, time.perf_counter() - measured_from)
            chunk = int(min(max(256, rate * CHUNK_SECONDS), 1 << 20))
    return AnnealResult(search.solution(best_slot, best_room), int(best_cost[0]), done)


def _spent(used: float, limit: float | None) -> float:
    """The share of a limit used: 0 without a limit, and all of it for a limit of 0 (what is left
    of a solve's budget once it is over — before, such an annealing ran without end)."""
    if limit is None:
        return 0.0
    return used / limit if limit > 0 else 1.0


def toy_problem() -> Problem:
    """Two agents, one room, two days of two periods: every kernel function a timetable solve
    calls, called on it, gets the argument types a real instance gives (:func:`warm_up`)."""
    days = types.SimpleNamespace(days=2)  # Search reads the number of days from the context only
    return Problem(ctx=days, agents=["a", "b"], rooms=["r"], periods=2, slots=4,  # type: ignore[arg-type]
                   lectures=[2, 1], conflicts=[[1], [0]], conflict_sets=[{1}, {0}], unavailable=[set(), {0}],
                   overflow=[[0], [1]], min_days=[2, 1], spread_weight=5, groups=[[0, 1]], member_of=[[0], [0]],
                   compact_weight=2, max_rooms=[1, 1], stability_weight=1)


def warm_up() -> float:
    """Compile (or load from numba's cache) the kernel functions a timetable solve calls, on
    :func:`toy_problem`; the seconds it took.

    The first call after an installation or a change of :mod:`schedc.backends.search.ctt_kernel` compiles them
    (tens of seconds); a benchmark calls this before its clock starts, so that the first
    instance's budget is not spent compiling, and a solve that finds the kernel missing from
    numba's cache has a background process call it (:mod:`schedc.backends.search.ctt_compile`)."""
    began = time.perf_counter()
    toy = toy_problem()
    start = construct(toy, seed=0)
    if start is not None:
        anneal(toy, start, seed=0, iterations=64)
    return time.perf_counter() - began


def _wrapping(runs: ModuleType) -> contextlib.AbstractContextManager:
    """Uncompiled, the generator's 64-bit products wrap as in machine code, but numpy warns."""
    return contextlib.nullcontext() if runs.COMPILED else np.errstate(over="ignore")


def construct(problem: Problem, seed: int, tries: int = 20, runs: ModuleType = kernel) -> Solution | None:
    """A first feasible timetable by a greedy: agents with the fewest open slots per lecture
    first, each lecture in the open cell whose penalty change is least (ties at random); an
    agent that cannot be placed moves to the front of the next try. None after ``tries`` fails.
    ``runs``: the kernel module (compiled, or its plain-Python copy: the same timetable)."""
    rng = random.Random(seed)
    need = problem.lectures
    order = sorted(range(len(need)), key=lambda i: ((problem.slots - len(problem.unavailable[i])) / max(1, need[i]),
                                                    -len(problem.conflicts[i]), rng.random()))
    cells = np.zeros((problem.slots, 3), np.int64)
    for _ in range(tries):
        search = Search(problem, Solution(), runs)
        data, state = search.data, search.state
        stuck = None
        for i in order:
            for k in range(data.lecture_start[i], data.lecture_start[i + 1]):
                n = runs.open_cells(data, state, int(k), cells)
                if not n:
                    stuck = i
                    break
                _delta, _tie, slot, r = min((int(d), rng.random(), int(s), int(r)) for s, r, d in cells[:n])
                runs.place(data, state, int(k), slot, r)
            if stuck is not None:
                break
        if stuck is None:
            return search.solution()
        order = [stuck] + [i for i in order if i != stuck]
    return None
