"""Room counting relaxation (backends/cpsat/ctt_period.py) and the timetable annealing
(backends/search/ctt_search.py), each checked against an independent computation:

- the counting cost of a slot equals the least overflow of any room matching (brute force);
  the hard counting rows hold exactly when a matching into admissible rooms exists;
- the period model with its periods fixed (the fixed-assignment oracle of the reformulation)
  is feasible exactly when the evaluator accepts the sorted room matching, and its objective is
  then the evaluator's objective without room stability;
- the annealing's maintained penalty equals the evaluator's after every random move and undo;
- every answer of the two-stage solve verifies, and its lower bound never exceeds comp01's optimum.
"""

from __future__ import annotations

import itertools
import math
import random
import threading
from types import ModuleType

import msgspec
import pytest
from ortools.sat.python import cp_model

from schedc.backends import cpsat
from schedc.backends.cpsat import ctt_period
from schedc.backends.search import ctt_compile, ctt_kernel, ctt_search
from schedc.core.solution import Assignment, Solution
from schedc.importers import import_paths
from schedc.importers.solutions import read_itc_solution
from schedc.ir import Instance
from schedc.kinds import CapacityOverflow, Stability
from schedc.lang.family import load_family
from schedc.verify.evaluate import evaluate
from tests.conftest import DATA

COMP01 = DATA / "itc2007" / "comp01.ctt"
BEST = DATA / "solutions" / "itc2007" / "comp01__docheinstein_race.sol"  # official cost 5 (optimal)


@pytest.fixture(scope="module")
def comp01() -> Instance:
    return import_paths("itc2007", [COMP01], DATA / "itc2007" / "bks.csv")[0]


@pytest.fixture(scope="module")
def best(comp01: Instance) -> Solution:
    solution, warnings = read_itc_solution(BEST, comp01)
    assert not warnings
    return solution


def _brute_overflow(demands: list[int], capacities: list[int]) -> int:
    return min(sum(max(0, d - c) for d, c in zip(demands, rooms, strict=False))
               for rooms in itertools.permutations(capacities, len(demands)))


@pytest.mark.parametrize("seed", range(40))
def test_counting_cost_is_the_least_overflow_of_any_matching(seed: int) -> None:
    rng = random.Random(seed)
    capacities = [rng.choice((10, 20, 25, 40, 60)) for _ in range(rng.randint(1, 6))]
    demands = [rng.randint(0, 70) for _ in range(rng.randint(0, len(capacities)))]
    assert ctt_period.least_overflow(demands, capacities) == _brute_overflow(demands, capacities)


@pytest.mark.parametrize("seed", range(40))
def test_nested_counts_are_halls_condition(seed: int) -> None:
    rng = random.Random(seed)
    capacities = [rng.choice((10, 20, 40)) for _ in range(rng.randint(1, 5))]
    demands = [rng.choice((5, 10, 15, 30, 40)) for _ in range(rng.randint(0, len(capacities)))]
    counts = all(sum(d >= t for d in demands) <= sum(c >= t for c in capacities) for t in demands)
    matching = any(all(d <= c for d, c in zip(demands, rooms, strict=False))
                   for rooms in itertools.permutations(capacities, len(demands)))
    assert counts == matching


def test_the_pattern_decides_not_the_name(comp01: Instance) -> None:
    family = load_family("itc2007")
    assert ctt_period.room_relaxation(comp01, family) is not None
    assert ctt_search.search_problem(comp01, family) is not None
    hard_stability = tuple(msgspec.structs.replace(c, hard=True) if isinstance(c, Stability) else c
                           for c in comp01.constraints)
    changed = msgspec.structs.replace(comp01, constraints=hard_stability)
    assert ctt_period.room_relaxation(changed, family) is None  # stage 2 could fail: not relaxed
    assert ctt_search.search_problem(changed, family) is None
    for other in (import_paths("jsplib", [DATA / "jsplib" / "ft06.txt"])[0],
                  import_paths("inrc2010", [DATA / "inrc2010" / "sprint01.xml"])[0]):
        assert ctt_period.room_relaxation(other, load_family(other.family)) is None
        assert ctt_search.search_problem(other, load_family(other.family)) is None


def _random_periods(instance: Instance, rng: random.Random, base: Solution) -> dict[str, list[tuple[int, int]]]:
    """The periods of ``base`` with a few lectures moved to random slots (often breaking a rule)."""
    slots: dict[str, list[tuple[int, int]]] = {}
    for a in base.assignments:
        slots.setdefault(a.agent, []).append((a.day, a.period))
    cal = instance.calendar
    assert cal is not None
    for _ in range(rng.randint(0, 4)):
        agent = rng.choice(sorted(slots))
        free = [(d, p) for d in range(cal.days) for p in range(cal.periods_per_day) if (d, p) not in slots[agent]]
        slots[agent][rng.randrange(len(slots[agent]))] = rng.choice(free)
    return slots


def _fixed_period_verdict(relax: ctt_period.RoomRelaxation, slots: dict[str, list[tuple[int, int]]]
                          ) -> int | None:
    period = ctt_period.PeriodModel(relax, load_family("itc2007"))
    chosen = {(e, d, p) for e, ss in slots.items() for d, p in ss}
    for key, var in period.y.items():
        if var is period.m.zero:
            if key in chosen:
                return None  # a forbidden cell: the period model has no variable for it
            continue
        period.m.model.add(var == int(key in chosen))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    status = solver.solve(period.m.model)
    return int(round(solver.objective_value)) if status == cp_model.OPTIMAL else None


@pytest.mark.parametrize("capacity_hard", [False, True])
def test_fixed_period_model_agrees_with_the_evaluator(comp01: Instance, best: Solution, capacity_hard: bool) -> None:
    family = load_family("itc2007")
    instance = comp01
    if capacity_hard:  # the hard form (Hall's rows instead of the overflow cost), with 10 fewer
        # students per course so that the optimum's periods stay feasible
        entities = tuple(msgspec.structs.replace(x, attrs={**x.attrs, "students": max(0, x.attrs["students"] - 10)})
                         if x.cls == "course" else x for x in comp01.entities)
        instance = msgspec.structs.replace(comp01, entities=entities, constraints=tuple(
            msgspec.structs.replace(c, hard=True) if isinstance(c, CapacityOverflow) else c
            for c in comp01.constraints))
    relax = ctt_period.room_relaxation(instance, family)
    assert relax is not None
    rng = random.Random(11)
    feasible_seen = infeasible_seen = 0
    for _ in range(14):
        slots = _random_periods(instance, rng, best)
        rooms = ctt_period.sorted_matching(relax, slots)
        answer = Solution(assignments=tuple(Assignment(e, s[0], s[1], v) for (e, s), v in rooms.items()))
        result = evaluate(relax.ctx, answer)
        verdict = _fixed_period_verdict(relax, slots)
        assert (verdict is not None) == result.feasible
        if verdict is not None:
            feasible_seen += 1
            assert verdict == result.objective - result.components.get("room_stability", 0)
        else:
            infeasible_seen += 1
    assert feasible_seen and infeasible_seen


def test_room_assignment_is_exact_for_fixed_periods(comp01: Instance, best: Solution) -> None:
    relax = ctt_period.room_relaxation(comp01, load_family("itc2007"))
    assert relax is not None
    slots: dict[str, list[tuple[int, int]]] = {}
    for a in best.assignments:
        slots.setdefault(a.agent, []).append((a.day, a.period))
    solution, claimed, exact = ctt_period.assign_rooms(relax, slots, seconds=10, workers=1, seed=0)
    result = evaluate(relax.ctx, solution)
    assert result.feasible and exact and claimed == result.objective
    assert result.objective <= 5  # the optimum's own rooms are one choice: cost 5 (4 capacity + 1 stability)


def test_annealing_penalty_equals_the_evaluator_after_every_move(comp01: Instance, best: Solution) -> None:
    family = load_family("itc2007")
    problem = ctt_search.search_problem(comp01, family)
    assert problem is not None
    search = ctt_search.Search(problem, best)
    assert search.cost == evaluate(problem.ctx, best).objective == 5
    rng = random.Random(5)
    applied = 0
    previous = search.cost
    for _ in range(300):
        k = rng.randrange(len(search.lecture_agent))
        slot, room = rng.randrange(problem.slots), rng.randrange(len(problem.rooms))
        home, home_room = search.lecture_slot[k], search.lecture_room[k]
        before = search.solution()
        delta = search.try_move(k, slot, room)
        if delta is None:
            assert search.solution() == before and search.cost == previous
            continue
        applied += 1
        result = evaluate(problem.ctx, search.solution())
        assert result.feasible and result.objective == search.cost == previous + delta
        if rng.random() < 0.3:
            search.undo(k, slot, room, home, home_room)
            assert search.solution() == before and search.cost == previous
        previous = search.cost
    assert applied > 30
    for _ in range(40):  # one agent's lectures all into one room, and back
        before, cost = search.solution(), search.cost
        delta, steps = search.try_agent_room(rng.randrange(len(problem.agents)), rng.randrange(len(problem.rooms)))
        result = evaluate(problem.ctx, search.solution())
        assert result.feasible and result.objective == search.cost == cost + delta
        if rng.random() < 0.5:
            search.undo_agent_room(steps)
            assert search.solution() == before and search.cost == cost


def test_kempe_exchanges_keep_every_hard_rule_and_the_evaluators_penalty(comp01: Instance, best: Solution) -> None:
    """A Kempe exchange moves a set of lectures closed under conflicts between two slots: every
    one made verifies with the penalty the kernel claims, one not made changes nothing, and the
    undo restores the timetable; some chains are longer than the lecture picked."""
    problem = ctt_search.search_problem(comp01, load_family("itc2007"))
    assert problem is not None
    search = ctt_search.Search(problem, best)
    rng = random.Random(8)
    made, longer = 0, 0
    for _ in range(400):
        before, cost = search.solution(), search.cost
        k, slot = rng.randrange(len(search.lecture_agent)), rng.randrange(problem.slots)
        moved = search.try_kempe(k, slot)
        if moved is None:
            assert search.solution() == before and search.cost == cost
            continue
        delta, length = moved
        made += 1
        longer += length > 1
        result = evaluate(problem.ctx, search.solution())
        assert result.feasible and result.objective == search.cost == cost + delta
        assert search.lecture_slot[k] == slot
        if rng.random() < 0.5:
            search.undo_kempe(length)
            assert search.solution() == before and search.cost == cost
    assert made > 100 and longer > 20


def test_annealing_is_deterministic_and_never_worse(comp01: Instance, best: Solution) -> None:
    problem = ctt_search.search_problem(comp01, load_family("itc2007"))
    assert problem is not None
    rng = random.Random(3)
    search = ctt_search.Search(problem, best)
    for _ in range(400):  # a worse but feasible start
        search.try_move(rng.randrange(len(search.lecture_agent)), rng.randrange(problem.slots),
                        rng.randrange(len(problem.rooms)))
    start = search.solution()
    first = ctt_search.anneal(problem, start, seed=1, iterations=20000)
    second = ctt_search.anneal(problem, start, seed=1, iterations=20000)
    assert first == second
    result = evaluate(problem.ctx, first.solution)
    assert result.feasible and result.objective == first.cost <= search.cost
    assert first.cost < search.cost  # a start that far from the optimum always improves


@pytest.mark.parametrize(("search_share", "full"), [(0.0, False), (0.7, False), (0.7, True)])
def test_two_stage_solve_verifies_and_bounds(comp01: Instance, search_share: float, full: bool,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    family = load_family("itc2007")
    monkeypatch.setattr(ctt_period, "FULL_CELLS", 10**6 if full else 0)  # the full model's phase, or the period one
    options = cpsat.SolveOptions(time_limit=4, workers=1, seed=0, local_search=search_share)
    result = cpsat.solve(comp01, family, options)
    assert result.solution is not None and result.objective is not None
    check = evaluate(ctt_period.room_relaxation(comp01, family).ctx, result.solution)
    assert check.feasible and check.objective == result.objective
    assert result.bound is not None and 0 <= result.bound <= 5 <= result.objective  # 5 is proven optimal



def test_an_infeasible_hint_is_ignored(comp01: Instance, best: Solution) -> None:
    family = load_family("itc2007")
    broken = Solution(assignments=best.assignments[1:])  # a lecture short: count_bounds fails
    result = cpsat.solve(comp01, family, cpsat.SolveOptions(time_limit=3, workers=1, seed=0), start=broken)
    assert result.solution is not None
    assert evaluate(ctt_period.room_relaxation(comp01, family).ctx, result.solution).feasible
    hinted = cpsat.solve(comp01, family, cpsat.SolveOptions(time_limit=3, workers=1, seed=0), start=best)
    assert hinted.objective is not None and hinted.objective <= 5  # the optimum as hint is kept or matched


def test_each_worker_anneals_with_its_own_seed_and_start(comp01: Instance, monkeypatch: pytest.MonkeyPatch) -> None:
    """With two workers two annealings run side by side, in two threads with two seeds, the
    second from its own greedy timetable; the answer is no worse than either of them."""
    family = load_family("itc2007")
    seen: list[tuple[int, int, Solution, int]] = []
    anneal = ctt_search.anneal

    def recorded(problem, start, seed, **options):  # noqa: ANN001, ANN003, ANN202
        annealed = anneal(problem, start, seed, **options)
        seen.append((seed, threading.get_ident(), start, annealed.cost))
        return annealed

    class Compiled:
        """The kernel as when numba's cache has it (with numba absent, its plain walk: the same)."""

        compiled, module = True, ctt_kernel

        def __call__(self, left: float = math.inf) -> ModuleType:
            return ctt_kernel

    monkeypatch.setattr(ctt_search, "anneal", recorded)
    monkeypatch.setattr(ctt_compile, "Kernels", Compiled)
    result = cpsat.solve(comp01, family, cpsat.SolveOptions(time_limit=6, workers=2, seed=0))
    seeds = [ctt_period.annealing_seed(0, j) for j in (0, 1)]
    side_by_side = sorted((row for row in seen if row[0] in seeds), key=lambda row: row[0])
    assert [seed for seed, *_ in side_by_side] == seeds
    assert len({thread for _, thread, _, _ in side_by_side}) == 2
    own = ctt_search.construct(ctt_search.search_problem(comp01, family), seeds[1])
    assert side_by_side[1][2] == own != side_by_side[0][2]
    assert result.objective is not None and result.objective <= min(cost for *_, cost in side_by_side)
