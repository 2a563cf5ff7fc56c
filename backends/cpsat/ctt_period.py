"""Room counting relaxation for slot instances whose values are interchangeable rooms.

**When it applies** (:func:`room_relaxation`, chosen from the constraint-kind pattern, never by
family or instance name): a slot instance with a penalty objective and no free value, a hard
``one_per_slot per=value`` (a room holds one agent per slot), a hard ``one_per_slot per=agent``
(an agent holds one room per slot), and otherwise only kinds whose formal meaning depends on the
rooms through at most one ``capacity_overflow`` and soft ``stability`` rules: every other active
kind (``count_bounds`` over all values, ``slot_conflict``, ``unavailability``, ``spread``,
``compactness``) is defined on the 0/1 occupancy ``u[e,s] = Σ_v x[e,s,v]`` alone (their docstrings
in :mod:`schedc.kinds`). ITC-2007 curriculum timetabling has exactly this pattern.

**Stage 1, the period model.** The rooms are collapsed into one value, so ``y[e,s]`` is the
occupancy itself and the room-blind kinds are encoded by their ordinary encoders on it. What the
rooms imposed is replaced by counting rows per slot s, with ``n_s(t) = Σ_{e: demand(e) > t} y[e,s]``
and ``R(t) = #{rooms: capacity > t}``:

- room occupancy: ``Σ_e y[e,s] ≤ #rooms`` — with an agent in at most one room per slot this is
  exactly when the slot's agents can be given distinct rooms;
- hard capacity: ``n_s(t−1) ≤ R(t−1)`` for every demand t, i.e. at most as many agents needing
  ``≥ t`` seats as rooms with ``≥ t`` seats. The admissible rooms of the agents are nested, so
  these are Hall's conditions: a matching into admissible rooms exists iff they hold;
- soft capacity: cost ``Σ_t max(0, n_s(t) − R(t))`` over the integers t. This equals the least
  overflow ``Σ max(0, demand − capacity)`` of any room matching of the slot: every matching
  leaves at least ``n_s(t) − R(t)`` agents with demand > t in rooms of capacity ≤ t, and each
  such (agent, t) pair is one unit of overflow; matching both sorted in decreasing order meets
  every bound at once. Between consecutive breakpoints (demands and capacities) the counts are
  constant, so it is one excess variable per breakpoint interval, weighted by its length.

**What is relaxed: room stability only.** Stage 1 counts it as 0 (a valid under-estimate:
its penalty is never negative); every other penalty of a period assignment equals, in the
model, the least value any room assignment of it can have. So the stage-1 bound is a lower
bound of the instance, reported as such.

**Stage 2, the exact room assignment** of the stage-1 periods: a small CP-SAT model (one
Boolean per lecture and admissible room, one lecture per room and slot, capacity overflow and
stability exactly as defined), hinted with the sorted matching per slot. Whatever its status,
the final answer is a complete assignment checked by the evaluator, and the solver's claim is
compared with it (:func:`schedc.backends.base.check_agreement`): the decomposition can miss an
optimum that trades period quality for stability, never report a wrong objective.

Symmetry: in the period model the lectures of a course are one occupancy per slot and the rooms
one count per capacity threshold, so neither the lectures of a course nor rooms of equal
capacity can be permuted into distinct solutions — no symmetry-breaking rows are needed.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import msgspec
from ortools.sat.python import cp_model

from schedc.backends.base import Probe, SolveResult, check_agreement, gap_pct, stopping
from schedc.backends.cpsat.model import CpsatModel, extract_solution
from schedc.backends.search import ctt_compile, ctt_search
from schedc.core.solution import Assignment, Solution
from schedc.ir import Family, Instance
from schedc.kinds import (
    CapacityOverflow,
    Compactness,
    Constraint,
    CountBounds,
    OnePerSlot,
    SlotConflict,
    Spread,
    Stability,
    Unavailability,
)
from schedc.kinds.context import EvalContext
from schedc.verify.evaluate import Evaluation, evaluate

#: kinds whose formal meaning reads only the occupancy u[e,s] (count_bounds: when over all values)
ROOM_BLIND = (CountBounds, SlotConflict, Unavailability, Spread, Compactness)
Slot = tuple[int, int]


@dataclass
class RoomRelaxation:
    """What stage 1 needs: the instance with the rooms collapsed, and the rules it replaced."""

    ctx: EvalContext
    collapsed: Instance
    capacity: CapacityOverflow | None
    stability: list[Stability]
    demand: dict[str, int] = field(default_factory=dict)
    room_capacity: dict[str, int] = field(default_factory=dict)


def room_relaxation(instance: Instance, family: Family) -> RoomRelaxation | None:
    """The relaxation when the instance has the pattern of the module docstring, else None."""
    if instance.activities or instance.calendar is None or instance.objective.measure != "penalty":
        return None
    ctx = EvalContext(instance, family)
    if ctx.free is not None or len(ctx.values) < 2:
        return None
    active = [c for c in instance.constraints if c.active]
    per_value = [c for c in active if isinstance(c, OnePerSlot) and c.per == "value"]
    per_agent = [c for c in active if isinstance(c, OnePerSlot) and c.per == "agent"]
    capacity = [c for c in active if isinstance(c, CapacityOverflow)]
    stability = [c for c in active if isinstance(c, Stability)]
    if not any(c.hard for c in per_value) or not any(c.hard for c in per_agent):
        return None
    if any(not c.hard or c.exactly for c in per_value + per_agent) or len(capacity) > 1:
        return None
    if any(c.hard for c in stability):  # stage 2 could then fail: not relaxed
        return None
    if not all(_room_blind(c) for c in active if c not in per_value + per_agent + capacity + stability):
        return None
    cap = capacity[0] if capacity else None
    demand = {e: int(ctx.attrs(ctx.agent_cls, e).get(cap.demand, 0)) if cap else 0 for e in ctx.agents}
    rooms = {v: int(ctx.attrs(ctx.value_cls, v).get(cap.capacity, 0)) if cap else 0 for v in ctx.values}
    keep = ctx.values[0]  # the one value left: its x[e,s,keep] is the occupancy u[e,s]
    entities = tuple(x for x in instance.entities if x.cls != ctx.value_cls or x.name == keep)
    dropped = set(map(id, per_value + capacity + stability))
    constraints = tuple(c for c in instance.constraints if id(c) not in dropped)
    collapsed = msgspec.structs.replace(instance, entities=entities, constraints=constraints)
    return RoomRelaxation(ctx=ctx, collapsed=collapsed, capacity=cap, stability=stability, demand=demand,
                          room_capacity=rooms)


def _room_blind(c: Constraint) -> bool:
    if isinstance(c, CountBounds):
        return c.values.mode == "work"  # every value counts (no free value): the occupancy
    return isinstance(c, ROOM_BLIND)


# ------------------------------------------------------------------ stage 1


def capacity_intervals(demands: Iterable[int], capacities: Iterable[int]) -> list[tuple[int, int, int]]:
    """``(t, length, R(t))`` for the breakpoint intervals ``[t, t + length)`` on which some agent
    may overflow (``#{demand > t} > R(t)``): the terms of the soft capacity cost."""
    demands, capacities = list(demands), sorted(capacities)
    points = sorted(set(demands) | set(capacities))
    out = []
    for t, nxt in zip(points, points[1:], strict=False):
        rooms = sum(1 for c in capacities if c > t)
        if sum(1 for d in demands if d > t) > rooms:
            out.append((t, nxt - t, rooms))
    return out


def least_overflow(demands: Iterable[int], capacities: Iterable[int]) -> int:
    """``Σ_t max(0, n(t) − R(t))``: the least overflow of any matching of the agents into distinct rooms."""
    demands = list(demands)
    return sum(length * max(0, sum(1 for d in demands if d > t) - rooms)
               for t, length, rooms in capacity_intervals(demands, capacities))


class PeriodModel:
    """Stage 1: the collapsed instance's CP-SAT model plus the counting rows per slot."""

    def __init__(self, relax: RoomRelaxation, family: Family):
        self.relax = relax
        self.m = CpsatModel(relax.collapsed, family, named=False)
        ctx = self.m.ctx
        keep = ctx.values[0]
        self.y = {(e, d, p): self.m.x[(e, d, p, keep)] for e in ctx.agents for d in range(ctx.days)
                  for p in range(ctx.periods)}
        self._counting_rows(ctx)
        self.m.model.minimize(sum(w * expr for w, expr in self.m.terms))

    def _counting_rows(self, ctx: EvalContext) -> None:
        relax, model = self.relax, self.m.model
        rooms = list(relax.room_capacity.values())
        cap = relax.capacity
        demands = relax.demand
        hard_rows = sorted({d for d in demands.values()}) if cap is not None and cap.hard else []
        soft_rows = capacity_intervals(demands.values(), rooms) if cap is not None and not cap.hard else []
        for d in range(ctx.days):
            for p in range(ctx.periods):
                ys = {e: self.y[(e, d, p)] for e in ctx.agents if self.y[(e, d, p)] is not self.m.zero}
                if len(ys) > len(rooms):
                    model.add(cp_model.LinearExpr.sum(list(ys.values())) <= len(rooms))
                for t in hard_rows:  # agents needing ≥ t seats ≤ rooms with ≥ t seats (Hall)
                    need = [y for e, y in ys.items() if demands[e] >= t]
                    fit = sum(1 for c in rooms if c >= t)
                    if len(need) > fit:
                        model.add(cp_model.LinearExpr.sum(need) <= fit)
                for t, length, fit in soft_rows:
                    need = [y for e, y in ys.items() if demands[e] > t]
                    if len(need) > fit:
                        excess = model.new_int_var(0, len(need) - fit, "")
                        model.add(excess >= cp_model.LinearExpr.sum(need) - fit)
                        self.m.penalize(cap, length * excess)

    def periods(self, solver: cp_model.CpSolver) -> dict[str, list[Slot]]:
        """Each agent's occupied slots in the solver's best solution."""
        out: dict[str, list[Slot]] = {}
        for (e, d, p), var in self.y.items():
            if var is not self.m.zero and solver.boolean_value(var):
                out.setdefault(e, []).append((d, p))
        return out

    def hint(self, slots: dict[str, list[Slot]]) -> None:
        """Hint the occupancies of a known assignment (every slot variable gets a value)."""
        chosen = {(e, d, p) for e, ss in slots.items() for d, p in ss}
        for key, var in self.y.items():
            if var is not self.m.zero:
                self.m.model.add_hint(var, int(key in chosen))


# ------------------------------------------------------------------ stage 2


def sorted_matching(relax: RoomRelaxation, slots: dict[str, list[Slot]]) -> dict[tuple[str, Slot], str]:
    """Per slot, agents by decreasing demand into rooms by decreasing capacity (the matching of
    least overflow; with hard capacity every agent fits when the slot meets Hall's conditions)."""
    by_slot: dict[Slot, list[str]] = {}
    for e, ss in slots.items():
        for s in ss:
            by_slot.setdefault(s, []).append(e)
    rooms = sorted(relax.room_capacity, key=lambda v: (-relax.room_capacity[v], relax.ctx.values.index(v)))
    out = {}
    for s, agents in by_slot.items():
        for e, v in zip(sorted(agents, key=lambda e: (-relax.demand[e], e)), rooms, strict=False):
            out[(e, s)] = v
    return out


def assign_rooms(relax: RoomRelaxation, slots: dict[str, list[Slot]], seconds: float, workers: int,
                 seed: int, stop: threading.Event | None = None) -> tuple[Solution, int | None, bool]:
    """Stage 2: the rooms of fixed periods minimising capacity overflow and stability penalties.

    Returns the assignment, the model's objective for it, and whether it is proven optimal for
    these periods. The sorted matching is the hint and the fallback when no solution is found.
    """
    model = cp_model.CpModel()
    start = sorted_matching(relax, slots)
    cap = relax.capacity
    z: dict[tuple[str, Slot, str], cp_model.IntVar] = {}
    cost: list[cp_model.LinearExprT] = []
    for e, ss in slots.items():
        for s in ss:
            admissible = [v for v in relax.ctx.values if not (cap is not None and cap.hard
                                                               and relax.demand[e] > relax.room_capacity[v])]
            for v in admissible:
                z[(e, s, v)] = var = model.new_bool_var("")
                model.add_hint(var, int(start.get((e, s)) == v))
                over = relax.demand[e] - relax.room_capacity[v]
                if cap is not None and not cap.hard and over > 0:
                    cost.append(cap.weight * over * var)
            model.add_exactly_one([z[(e, s, v)] for v in admissible])
    per_room: dict[tuple[Slot, str], list[cp_model.IntVar]] = {}
    for (_e, s, v), var in z.items():
        per_room.setdefault((s, v), []).append(var)
    for cells in per_room.values():
        if len(cells) > 1:
            model.add_at_most_one(cells)
    for rule in relax.stability:
        for e in relax.ctx.select(rule.agents):
            used = []
            for v in relax.ctx.values:
                cells = [z[(e, s, v)] for s in slots.get(e, ()) if (e, s, v) in z]
                if cells:
                    used.append(u := model.new_bool_var(""))
                    model.add_max_equality(u, cells)
            if len(used) > rule.max:
                excess = model.new_int_var(0, len(used) - rule.max, "")
                model.add(excess >= cp_model.LinearExpr.sum(used) - rule.max)
                cost.append(rule.weight * excess)
    model.minimize(cp_model.LinearExpr.sum(cost))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.1, seconds)
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    with stopping(stop, solver.stop_search):
        status = solver.solve(model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        chosen = start
        claimed = None
    else:
        chosen = {(e, s): v for (e, s, v), var in z.items() if solver.boolean_value(var)}
        claimed = int(round(solver.objective_value))
    assignments = tuple(Assignment(e, s[0], s[1], v) for (e, s), v in sorted(chosen.items()))
    return Solution(assignments=assignments), claimed, status == cp_model.OPTIMAL


# ------------------------------------------------------------------ the two stages in one budget


#: share of the budget (less the reserve) of the first CP-SAT phase when the annealing follows it:
#: enough to prove small instances (on ITC-2007 its answers were far worse than the annealing's)
PROBE = 0.08
#: the annealing's share of what the probe leaves (less the reserve); the rest goes to CP-SAT (at
#: 120 s on comp01, comp05, comp07 and comp12 CP-SAT's phase after the annealing improved neither
#: the answer nor the bound: 0.85 before, docs/solving.md)
SEARCH_SHARE = 0.95
#: the annealing's temperatures: from T0 down to T1 (geometric in the elapsed share of its time);
#: T1 0.15 against 0.05 / 0.1 / 0.3, 60 s, 4 seeds: better on comp07 and comp12, the same on comp05
#: (docs/solving.md); at 0.3 comp07 never freezes (41–44 against 8–13)
T0, T1 = 4.0, 0.15
#: the start temperature of the last, cold annealing
COLD_T0 = 1.0
#: the share of annealing moves that put all lectures of an agent into one room
AGENT_SHARE = 0.02
#: the share of the other moves that exchange a Kempe chain between two slots (docs/solving.md:
#: on comp05, comp07 and comp12 at 20 s it was better than none on every one of 3–4 seeds; 0.3 no better)
KEMPE_SHARE = 0.1


def annealing_seed(seed: int, j: int) -> int:
    """The seed of the j-th of the annealings run side by side (j = 0: the solve's own seed)."""
    return seed + 1_000_003 * j


def solve(instance: Instance, family: Family, relax: RoomRelaxation, time_limit: float, workers: int,
          seed: int, start: Solution | None = None, search_share: float = SEARCH_SHARE,
          stop: threading.Event | None = None, probe: Probe | None = None) -> SolveResult:
    """The phases in one budget; the evaluator's verdict on each candidate decides, the best wins.

    1. First feasible: ``start`` when it verifies, else the greedy of
       :func:`schedc.backends.search.ctt_search.construct`.
    2. CP-SAT hinted with it for :data:`PROBE` of the budget (less a reserve of 10 %, 0.5–3 s): on
       the full model when it is small for the budget (:data:`FULL_CELLS`; rooms and periods then
       move together), else on the period model followed by stage 2. Done if it meets its bound
       (small instances), and its bound is the annealing's floor.
    3. Simulated annealing for ``search_share`` of what is left (when the instance has the
       search's pattern and ``search_share > 0``): one per worker side by side, each with its own
       seed (:func:`annealing_seed`), the first from the best, the others from their own greedy
       timetables; then stage 2 on the periods of the best of them.
    4. CP-SAT again, hinted with the best, until the reserve (the bound); a cold annealing in the reserve.
    CP-SAT's best bound is the reported lower bound. Once ``stop`` is set (by the portfolio,
    when HiGHS has proven its answer) the running phase ends within about 50 ms and no other
    starts; the best verified answer so far is reported. ``probe`` (an infeasibility probe,
    :class:`schedc.backends.base.Probe`) is begun when step 1 finds no feasible timetable,
    and told when a later phase finds one.
    """
    began = time.perf_counter()
    ctx = relax.ctx
    full = len(ctx.agents) * ctx.days * ctx.periods * len(ctx.values) <= FULL_CELLS * time_limit
    model = CpsatModel(instance, family, named=False) if full else PeriodModel(relax, family)
    built = time.perf_counter() - began
    run = _Run(relax, model, began + time_limit, min(3.0, max(0.5, 0.1 * time_limit)), workers, seed, stop)
    problem = ctt_search.search_problem(instance, family)
    searching = problem is not None and search_share > 0
    if start is not None and not evaluate(ctx, start).feasible:  # a hint only if it verifies
        start = None
    if problem is not None and (searching or start is None):
        # compiled when numba's cache has it, else plain Python while a background process compiles
        run.kernels = ctt_compile.Kernels()
    if start is None and problem is not None and run.kernels is not None:
        start = ctt_search.construct(problem, seed, runs=run.kernels.module)
    if start is not None:
        run.offer(start)
    elif probe is not None:
        run.probe = probe
        probe.begin()
    run.cp_phase(PROBE * run.left() if searching else None)
    if searching and problem is not None and run.open():
        # from different timetables: on comp05 the start decides more than the seed (docs/solving.md)
        annealed = run.anneal(problem, search_share * run.left(), seed, t0=T0, t1=T1, own_starts=True)
        if annealed is not None:
            rooms, _cost, _exact = assign_rooms(relax, _slots_of(annealed), min(run.reserve, 1.0), workers, seed,
                                                stop)
            run.offer(rooms)
        if run.open():
            run.cp_phase(None)
        if run.open() and run.deadline - time.perf_counter() > 0.2:
            # a cold annealing of the winner (the period model counts no stability, so its
            # periods often leave room moves and exchanges that pay)
            run.anneal(problem, run.deadline - time.perf_counter(), seed + 1, t0=COLD_T0, t1=T1)
    return run.result(instance, began, built)


class _Run:
    """The state of one :func:`solve`: its deadline, the best verified answer, CP-SAT's bound."""

    def __init__(self, relax: RoomRelaxation, model: CpsatModel | PeriodModel, deadline: float, reserve: float,
                 workers: int, seed: int, stop: threading.Event | None):
        self.relax, self.model, self.deadline, self.reserve = relax, model, deadline, reserve
        self.workers, self.seed, self.stop = workers, seed, stop
        self.best: tuple[Solution, Evaluation] | None = None
        self.status, self.bound = cp_model.UNKNOWN, -math.inf
        #: the annealing kernel's source (:mod:`schedc.backends.search.ctt_compile`)
        self.kernels: ctt_compile.Kernels | None = None
        #: an infeasibility probe begun for want of a first timetable, told when one is found
        self.probe: Probe | None = None

    def left(self) -> float:
        """Seconds until the reserve."""
        return max(0.0, self.deadline - time.perf_counter() - self.reserve)

    def stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def open(self) -> bool:
        """Worth another phase: not stopped, and the best answer does not meet the bound."""
        return not self.stopped() and not (self.best is not None and _proven(self.best, self.bound))

    def offer(self, solution: Solution) -> Evaluation:
        """Verify a candidate and keep it when it is the best so far."""
        checked = evaluate(self.relax.ctx, solution)
        self.best = _better(self.best, (solution, checked))
        self._tell_probe()
        return checked

    def _tell_probe(self) -> None:
        """A feasible timetable settles what the probe looks for: it may end."""
        if self.best is not None and self.probe is not None:
            self.probe.feasible()
            self.probe = None

    def cp_phase(self, seconds: float | None) -> None:
        """CP-SAT hinted with the best for ``seconds`` (None: until the reserve); its bound is kept."""
        if self.stopped():
            return
        status, bound, self.best = _cp_phase(self.relax, self.model, self.best, seconds, self.deadline,
                                             self.reserve, self.workers, self.seed, self.stop)
        self.status = status
        self.bound = max(self.bound, bound)
        self._tell_probe()

    def anneal(self, problem: ctt_search.Problem, seconds: float, seed: int, t0: float, t1: float,
               own_starts: bool = False) -> Solution | None:
        """Anneal for ``seconds``: one annealing per worker with its own seed, in threads (the
        compiled kernel releases the interpreter lock), or one while the kernel is plain Python.
        The first starts from the best; with ``own_starts`` each other one from its own greedy
        timetable (:func:`ctt_search.construct` with its seed), else from the best too. Every
        answer is checked against its own claimed cost and offered; the best of them, or None."""
        if self.best is None or self.stopped():
            return None
        kernels = self.kernels or ctt_compile.Kernels()
        best, floor = self.best[0], math.ceil(self.bound - 1e-6) if math.isfinite(self.bound) else None
        parallel = self.workers if kernels.compiled else 1  # plain Python holds the lock: one at a time
        deadline = time.perf_counter() + max(0.0, seconds)

        def one(j: int) -> ctt_search.AnnealResult:
            start = best
            if own_starts and j > 0:
                start = ctt_search.construct(problem, annealing_seed(seed, j), runs=kernels.module) or best
            return ctt_search.anneal(problem, start, seed=annealing_seed(seed, j),
                                     time_limit=max(0.0, deadline - time.perf_counter()), t0=t0, t1=t1,
                                     agent_share=AGENT_SHARE, kempe_share=KEMPE_SHARE, stop=self.stop, floor=floor,
                                     runs=kernels)

        if parallel <= 1:
            results = [one(0)]
        else:
            with ThreadPoolExecutor(max_workers=parallel) as pool:
                results = list(pool.map(one, range(parallel)))
        for annealed in results:
            checked = self.offer(annealed.solution)
            check_agreement("ctt_search", annealed.cost, checked.objective, checked.feasible, checked.components)
        return min(results, key=lambda annealed: annealed.cost).solution

    def result(self, instance: Instance, began: float, built: float) -> SolveResult:
        seconds = time.perf_counter() - began
        if self.best is None:
            name = "infeasible" if self.status == cp_model.INFEASIBLE else "unknown"
            return SolveResult(instance=instance.name, backend="cpsat", status=name, objective=None, bound=None,
                               bks=instance.meta.bks, gap_pct=None, seconds=seconds, build_seconds=built)
        solution, checked = self.best
        # CP-SAT's best bound holds whatever the status (the search stopped early)
        lower = math.ceil(self.bound - 1e-6) if math.isfinite(self.bound) and self.status != cp_model.INFEASIBLE \
            else None
        optimal = lower is not None and checked.objective is not None and checked.objective <= lower
        return SolveResult(instance=instance.name, backend="cpsat", status="optimal" if optimal else "feasible",
                           objective=checked.objective, bound=lower, bks=instance.meta.bks,
                           gap_pct=gap_pct(checked.objective, instance.meta.bks), seconds=seconds,
                           build_seconds=built, solution=solution, components=checked.components)


def _proven(best: tuple[Solution, Evaluation], bound: float) -> bool:
    """The best answer meets the bound: optimal, nothing left to search."""
    objective = best[1].objective
    return objective is not None and math.isfinite(bound) and objective <= math.ceil(bound - 1e-6)


def _cp_phase(relax: RoomRelaxation, model: CpsatModel | PeriodModel, best: tuple[Solution, Evaluation] | None,
              seconds: float | None, deadline: float, reserve: float, workers: int, seed: int,
              stop: threading.Event | None = None) -> tuple[int, float, tuple[Solution, Evaluation] | None]:
    """CP-SAT on ``model`` hinted with the best so far, for ``seconds`` (None: until the reserve)."""
    cp = model.m.model if isinstance(model, PeriodModel) else model.model
    cp.clear_hints()
    if best is not None:
        _hint(model, best[0])
    solver = _solver(deadline - time.perf_counter() - reserve if seconds is None else seconds, workers, seed)
    with stopping(stop, solver.stop_search):
        status = solver.solve(cp)
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        best = _better(best, _found(relax, model, solver, status, min(reserve, 1.0), workers, seed, stop))
    return status, solver.best_objective_bound, best


def _hint(model: CpsatModel | PeriodModel, solution: Solution) -> None:
    if isinstance(model, PeriodModel):
        model.hint(_slots_of(solution))
        return
    chosen = {(a.agent, a.day, a.period, a.value) for a in solution.assignments}
    for key, var in model.x.items():
        if var is not model.zero:
            model.model.add_hint(var, int(key in chosen))


def _found(relax: RoomRelaxation, model: CpsatModel | PeriodModel, solver: cp_model.CpSolver, status: int,
           seconds: float, workers: int, seed: int, stop: threading.Event | None = None
           ) -> tuple[Solution, Evaluation]:
    """CP-SAT's solution, verified: the full model's directly, the period model's with stage 2."""

    optimal = status == cp_model.OPTIMAL
    if isinstance(model, PeriodModel):
        blind = int(round(solver.objective_value)) - _room_part(model, solver)
        solution, room_cost, exact = assign_rooms(relax, model.periods(solver), seconds, workers, seed, stop)
        claimed = None if room_cost is None else blind + room_cost
        optimal = optimal and exact
    else:
        solution = extract_solution(model, solver)
        claimed = int(round(solver.objective_value))
    result = evaluate(relax.ctx, solution)
    check_agreement("cpsat", claimed, result.objective, result.feasible, result.components, optimal=optimal)
    return solution, result


#: the full model (a Boolean per agent, slot and room) is built when it has at most this many
#: cells per second of budget: its build took about 0.1 s per 1,000 cells on a loaded 2-core
#: machine (0.44 s for 5,400 cells, 4.3 s for 17,500, 12 s for 46,000), so 500 keeps it near 5 %
FULL_CELLS = 500


def _solver(seconds: float, workers: int, seed: int) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.1, seconds)
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    return solver


def _better(best: tuple[Solution, Evaluation] | None, other: tuple[Solution, Evaluation]
            ) -> tuple[Solution, Evaluation] | None:
    """The better verified candidate: infeasible ones never win, a tie keeps the earlier."""
    result = other[1]
    if not result.feasible or result.objective is None:
        return best
    if best is None or best[1].objective is None or result.objective < best[1].objective:
        return other
    return best


def _slots_of(solution: Solution) -> dict[str, list[Slot]]:
    slots: dict[str, list[Slot]] = {}
    for a in solution.assignments:
        slots.setdefault(a.agent, []).append((a.day, a.period))
    return slots


def _room_part(period: PeriodModel, solver: cp_model.CpSolver) -> int:
    """The stage-1 value of the capacity terms (replaced by stage 2's exact room cost)."""
    cap = period.relax.capacity
    if cap is None:
        return 0
    return cap.weight * int(sum(solver.value(e) for e in period.m.components.get(cap.id, [])))
