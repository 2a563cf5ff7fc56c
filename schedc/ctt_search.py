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

**Incremental costs** (formal meanings in :mod:`schedc.kinds.costs`), kept exact after every
change by :meth:`Search._remove` / :meth:`Search._place`: capacity overflow per lecture;
``spread`` from per-agent day counts; ``stability`` from per-agent room counts; ``compactness``
from per-group slot counts, where adding or removing an occupancy at period p changes only the
isolation terms of p − 1, p, p + 1 of that day. The test suite checks the maintained cost
against the evaluator after random moves.

**Annealing**: a move of cost change δ is accepted when δ ≤ 0 or with probability
``exp(−δ/T)``; T falls geometrically from ``t0`` to ``t1`` over the time (or iteration) budget.
Every random draw comes from ``random.Random(seed)``: with an iteration limit the run is
deterministic.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

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
from schedc.solution import Assignment, Solution


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
    """A feasible timetable with its penalty kept exact under moves (see the module docstring)."""

    def __init__(self, problem: Problem, start: Solution):
        self.pb = pb = problem
        agent_index = {e: k for k, e in enumerate(pb.agents)}
        room_index = {v: k for k, v in enumerate(pb.rooms)}
        n, days = len(pb.agents), pb.ctx.days
        self.lecture_agent: list[int] = []
        self.lectures_of: list[list[int]] = [[] for _ in range(n)]
        self.lecture_slot: list[int] = []
        self.lecture_room: list[int] = []
        self.room_at = [[-1] * len(pb.rooms) for _ in range(pb.slots)]
        self.at = [[False] * pb.slots for _ in range(n)]  # agent occupies slot
        self.clash = [[0] * pb.slots for _ in range(n)]  # conflicting agents present in slot
        self.day_count = [[0] * days for _ in range(n)]
        self.room_count = [[0] * len(pb.rooms) for _ in range(n)]
        self.distinct = [0] * n
        self.occ = [[0] * pb.slots for _ in pb.groups]
        self.cost = self._unplaced_cost()
        for a in start.assignments:
            self.add(agent_index[a.agent], a.day * pb.periods + a.period, room_index[a.value])

    def add(self, agent: int, slot: int, room: int) -> None:
        """A new lecture of ``agent`` at (slot, room) (the caller keeps the hard rules)."""
        k = len(self.lecture_agent)
        self.lectures_of[agent].append(k)
        self.lecture_agent.append(agent)
        self.lecture_slot.append(-1)
        self.lecture_room.append(-1)
        self._place(k, slot, room)

    def drop_last(self) -> None:
        """Take back the last :meth:`add`."""
        self._remove(len(self.lecture_agent) - 1)
        self.lectures_of[self.lecture_agent[-1]].pop()
        for column in (self.lecture_agent, self.lecture_slot, self.lecture_room):
            column.pop()

    def open_cells(self, agent: int) -> list[tuple[int, int]]:
        """The (slot, room) cells where a new lecture of ``agent`` keeps every hard rule, each
        slot with its free room of least overflow."""
        pb, out = self.pb, []
        overflow = pb.overflow[agent]
        for slot in range(pb.slots):
            if self.at[agent][slot] or self.clash[agent][slot] or slot in pb.unavailable[agent]:
                continue
            free = [r for r, k in enumerate(self.room_at[slot]) if k < 0]
            if free:
                out.append((slot, min(free, key=lambda r: (overflow[r], r))))
        return out

    def _unplaced_cost(self) -> int:
        """The penalty of the empty timetable: every agent is short of all its minimum days."""
        return self.pb.spread_weight * sum(self.pb.min_days)

    # ------------------------------------------------------------------ exact incremental updates

    def _isolated(self, g: int, slot: int) -> int:
        """Compactness term of group g at slot: its occupancy if both same-day neighbours are empty."""
        occ = self.occ[g]
        count = occ[slot]
        if not count:
            return 0
        p = slot % self.pb.periods
        if (p > 0 and occ[slot - 1]) or (p < self.pb.periods - 1 and occ[slot + 1]):
            return 0
        return count

    def _around(self, g: int, slot: int) -> int:
        p, last = slot % self.pb.periods, self.pb.periods - 1
        return sum(self._isolated(g, q) for q in range(slot - (p > 0), slot + (p < last) + 1))

    def _change(self, k: int, slot: int, room: int, sign: int) -> None:
        """Add (sign 1) or take away (sign −1) lecture k at (slot, room), updating the penalty."""
        pb, i = self.pb, self.lecture_agent[k]
        delta = sign * pb.overflow[i][room]
        day = slot // pb.periods
        before = self.day_count[i][day] > 0
        self.day_count[i][day] += sign
        if before != (self.day_count[i][day] > 0):
            used = sum(1 for c in self.day_count[i] if c > 0)
            delta += pb.spread_weight * (max(0, pb.min_days[i] - used) - max(0, pb.min_days[i] - used + sign))
        before = self.room_count[i][room] > 0
        self.room_count[i][room] += sign
        if before != (self.room_count[i][room] > 0):
            self.distinct[i] += sign
            delta += pb.stability_weight * (max(0, self.distinct[i] - pb.max_rooms[i])
                                            - max(0, self.distinct[i] - sign - pb.max_rooms[i]))
        for g in pb.member_of[i]:
            old = self._around(g, slot)
            self.occ[g][slot] += sign
            delta += pb.compact_weight * (self._around(g, slot) - old)
        self.at[i][slot] = sign > 0
        for j in pb.conflicts[i]:
            self.clash[j][slot] += sign
        self.room_at[slot][room] = k if sign > 0 else -1
        self.cost += delta

    def _place(self, k: int, slot: int, room: int) -> None:
        self.lecture_slot[k], self.lecture_room[k] = slot, room
        self._change(k, slot, room, 1)

    def _remove(self, k: int) -> None:
        self._change(k, self.lecture_slot[k], self.lecture_room[k], -1)

    def _allowed(self, k: int, slot: int, other: int) -> bool:
        """The move (swap with lecture ``other`` ≥ 0 when it holds the target) keeps every hard
        rule: checked on the counts before anything changes, as if both lectures had left."""
        home, i = self.lecture_slot[k], self.lecture_agent[k]
        if other < 0:
            return slot == home or not (self.at[i][slot] or self.clash[i][slot] or slot in self.pb.unavailable[i])
        j = self.lecture_agent[other]
        if slot == home or i == j:  # a room exchange: the occupancies stay
            return True
        linked = j in self.pb.conflict_sets[i]  # the partner leaves the slot the other one takes
        return not (self.at[i][slot] or self.at[j][home] or self.clash[i][slot] - linked
                    or self.clash[j][home] - linked or slot in self.pb.unavailable[i]
                    or home in self.pb.unavailable[j])

    def try_move(self, k: int, slot: int, room: int) -> int | None:
        """Apply the move of lecture k to (slot, room) — a swap when occupied; the penalty change,
        or None (nothing changed) when it would break a hard rule."""
        other = self.room_at[slot][room]
        if other == k or not self._allowed(k, slot, other):
            return None
        before = self.cost
        home, home_room = self.lecture_slot[k], self.lecture_room[k]
        self._remove(k)
        if other >= 0:
            self._remove(other)
        self._place(k, slot, room)
        if other >= 0:
            self._place(other, home, home_room)
        return self.cost - before

    def try_agent_room(self, agent: int, room: int) -> tuple[int, list[tuple[int, int]]]:
        """Every lecture of ``agent`` into ``room``, each exchanging rooms with the lecture that
        holds it in its slot (always allowed: no occupancy changes). The penalty change and the
        (lecture, old room) steps that :meth:`undo_agent_room` reverses."""
        before, steps = self.cost, []
        for k in self.lectures_of[agent]:
            old = self.lecture_room[k]
            if old != room:
                self.try_move(k, self.lecture_slot[k], room)
                steps.append((k, old))
        return self.cost - before, steps

    def undo_agent_room(self, steps: list[tuple[int, int]]) -> None:
        for k, old in reversed(steps):
            self.try_move(k, self.lecture_slot[k], old)

    def undo(self, k: int, slot: int, room: int, home: int, home_room: int) -> None:
        """Reverse an applied :meth:`try_move` of lecture k from (home, home_room)."""
        other = self.room_at[home][home_room]
        self._remove(k)
        if other >= 0:
            self._remove(other)
            self._place(other, slot, room)
        self._place(k, home, home_room)

    def solution(self) -> Solution:
        pb = self.pb
        return Solution(assignments=tuple(
            Assignment(pb.agents[i], s // pb.periods, s % pb.periods, pb.rooms[r])
            for i, s, r in sorted(zip(self.lecture_agent, self.lecture_slot, self.lecture_room, strict=True))))


@dataclass(frozen=True)
class AnnealResult:
    """The best timetable seen, its penalty, and the number of moves tried."""

    solution: Solution
    cost: int
    iterations: int


def anneal(problem: Problem, start: Solution, seed: int, time_limit: float | None = None,
           iterations: int | None = None, t0: float = 4.0, t1: float = 0.05,
           room_share: float = 0.0, agent_share: float = 0.05) -> AnnealResult:
    """Simulated annealing from the feasible ``start`` within a time and/or iteration budget;
    ``room_share`` of the single-lecture moves keep the lecture's slot (room changes and
    exchanges); ``agent_share`` of all moves put one agent's lectures into one room."""
    if time_limit is None and iterations is None:
        raise ValueError("anneal needs a time limit or an iteration limit")
    rng = random.Random(seed)
    search = Search(problem, start)
    lectures = len(search.lecture_agent)
    best_cost, best = search.cost, (list(search.lecture_slot), list(search.lecture_room))
    began = time.perf_counter()
    slots, rooms = problem.slots, len(problem.rooms)
    temperature, done = t0, 0
    while lectures:
        if done % 512 == 0:
            used = time.perf_counter() - began
            share = max(used / time_limit if time_limit else 0.0, done / iterations if iterations else 0.0)
            if share >= 1.0:
                break
            temperature = t0 * (t1 / t0) ** share
        done += 1
        if rng.random() < agent_share:  # one agent's lectures all into one room
            agent = search.lecture_agent[rng.randrange(lectures)]
            delta, steps = search.try_agent_room(agent, rng.randrange(rooms))
            if delta > 0 and rng.random() >= math.exp(-delta / temperature):
                search.undo_agent_room(steps)
            elif search.cost < best_cost:
                best_cost, best = search.cost, (list(search.lecture_slot), list(search.lecture_room))
            continue
        k = rng.randrange(lectures)
        home, home_room = search.lecture_slot[k], search.lecture_room[k]
        slot = home if rng.random() < room_share else rng.randrange(slots)
        room = rng.randrange(rooms)
        delta = search.try_move(k, slot, room)
        if delta is None:
            continue
        if delta > 0 and rng.random() >= math.exp(-delta / temperature):
            search.undo(k, slot, room, home, home_room)
        elif search.cost < best_cost:
            best_cost, best = search.cost, (list(search.lecture_slot), list(search.lecture_room))
    search.lecture_slot, search.lecture_room = best  # only the lists solution() reads
    return AnnealResult(search.solution(), best_cost, done)


def construct(problem: Problem, seed: int, tries: int = 20) -> Solution | None:
    """A first feasible timetable by a greedy: agents with the fewest open slots per lecture
    first, each lecture in the open cell whose penalty change is least (ties at random); an
    agent that cannot be placed moves to the front of the next try. None after ``tries`` fails."""
    rng = random.Random(seed)
    need = problem.lectures
    order = sorted(range(len(need)), key=lambda i: ((problem.slots - len(problem.unavailable[i])) / max(1, need[i]),
                                                    -len(problem.conflicts[i]), rng.random()))
    for _ in range(tries):
        search = Search(problem, Solution())
        stuck = None
        for i in order:
            for _lecture in range(need[i]):
                cells = search.open_cells(i)
                if not cells:
                    stuck = i
                    break
                scored = []
                for slot, r in cells:
                    before = search.cost
                    search.add(i, slot, r)
                    scored.append((search.cost - before, rng.random(), slot, r))
                    search.drop_last()
                _delta, _tie, slot, r = min(scored)
                search.add(i, slot, r)
            if stuck is not None:
                break
        if stuck is None:
            return search.solution()
        order = [stuck] + [i for i in order if i != stuck]
    return None
