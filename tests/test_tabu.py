"""N5 tabu search on the disjunctive graph (schedc.backends.search.tabu): its moves, its estimate, its schedules.

Independent references: exhaustive enumeration of every machine order of small job shops (the
true optimum), the evaluator (feasibility and makespan of every schedule it returns), and a
longest-path recomputation after each swap (the estimate is the exact length of the longest
path through the swapped pair, so it never exceeds the new makespan).
"""

from __future__ import annotations

import itertools
import random

import msgspec
import pytest

from schedc.backends.search.heuristics import serial_schedule
from schedc.backends.search.tabu import (
    JobShop,
    _Graph,
    improve_jobshop,
    jobshop_of,
    n5_moves,
    orders_from_starts,
    tabu_search,
)
from schedc.core.solution import Solution
from schedc.importers import import_paths
from schedc.ir import Instance
from schedc.kinds import TimeWindow
from schedc.kinds.timing import Window
from schedc.verify.evaluate import evaluate, make_context
from tests.conftest import DATA


def jsplib(name: str) -> Instance:
    return import_paths("jsplib", [DATA / "jsplib" / f"{name}.txt"], DATA / "jsplib" / "bks.csv")[0]


def random_shop(rng: random.Random, jobs: int, machines: int) -> JobShop:
    """A job shop with random routes (each job visits every machine once) and durations 1..9."""
    names, duration, machine, prev, nxt = [], [], [], [], []
    for j in range(jobs):
        route = list(range(machines))
        rng.shuffle(route)
        for k, m in enumerate(route):
            op = len(names)
            names.append(f"J{j}.{k}")
            duration.append(rng.randint(1, 9))
            machine.append(m)
            prev.append(op - 1 if k else -1)
            nxt.append(op + 1 if k < machines - 1 else -1)
    return JobShop(names=tuple(names), duration=tuple(duration), machine=tuple(machine), job_prev=tuple(prev),
                   job_next=tuple(nxt), machines=machines)


def semi_active(shop: JobShop, orders: list[list[int]]) -> int | None:
    """The makespan of machine orders by a direct longest-path fixpoint (None on a cycle)."""
    n = len(shop.duration)
    start = [0] * n
    mprev = [-1] * n
    for order in orders:
        for a, b in itertools.pairwise(order):
            mprev[b] = a
    for _ in range(n + 1):
        changed = False
        for v in range(n):
            earliest = max([start[u] + shop.duration[u] for u in (shop.job_prev[v], mprev[v]) if u >= 0], default=0)
            if earliest != start[v]:
                start[v], changed = earliest, True
        if not changed:
            return max(start[v] + shop.duration[v] for v in range(n))
    return None


def brute_force_optimum(shop: JobShop) -> int:
    per_machine = [[v for v in range(len(shop.duration)) if shop.machine[v] == m] for m in range(shop.machines)]
    values = (semi_active(shop, [list(o) for o in combo])
              for combo in itertools.product(*(itertools.permutations(ops) for ops in per_machine)))
    return min(v for v in values if v is not None)


def test_n5_moves_swap_only_block_ends_and_skip_the_outer_ends() -> None:
    assert n5_moves([[1, 2, 3], [4], [5, 6], [7, 8, 9]]) == [(2, 3), (5, 6), (7, 8)]
    assert n5_moves([[1, 2]]) == []  # one block: the machine's load, nothing to gain
    assert n5_moves([[1], [2, 3, 4], [5]]) == [(2, 3), (3, 4)]


@pytest.mark.parametrize("seed", range(6))
def test_the_estimate_is_the_longest_path_through_the_swapped_pair(seed: int) -> None:
    rng = random.Random(seed)
    shop = random_shop(rng, 4, 3)
    orders = orders_from_starts(shop, [rng.randint(0, 50) for _ in shop.duration])
    graph = _Graph(shop, orders)
    try:
        graph.evaluate()
    except ValueError:  # random starts can order two operations of a job against the route
        orders = orders_from_starts(shop, _Graph(shop, [[] for _ in range(3)]).head)
        graph = _Graph(shop, orders)
        graph.evaluate()
    checked = 0
    for u, v in n5_moves(graph.critical_blocks(rng)):
        swapped = _Graph(shop, [list(o) for o in graph.orders()])
        swapped.evaluate()
        estimate = swapped.estimate(u, v)
        swapped.swap(u, v)
        swapped.evaluate()  # never a cycle: the pair was adjacent on a critical path
        path_through = max(swapped.head[x] + shop.duration[x] + swapped.tail[x] for x in (u, v))
        assert estimate == path_through <= swapped.makespan
        assert semi_active(shop, [list(o) for o in swapped.orders()]) == swapped.makespan
        checked += 1
    assert checked or graph.makespan == max(sum(d for d, m in zip(shop.duration, shop.machine, strict=True)
                                                if m == k) for k in range(3))


@pytest.mark.parametrize("seed", range(5))
def test_tabu_search_reaches_the_enumerated_optimum_of_small_shops(seed: int) -> None:
    shop = random_shop(random.Random(100 + seed), 3, 3)
    start = orders_from_starts(shop, _Graph(shop, [[] for _ in range(3)]).head)  # routes only: a feasible order
    result = tabu_search(shop, start, seed=seed, max_iterations=500)
    assert result.makespan == brute_force_optimum(shop)
    assert semi_active(shop, [list(o) for o in result.orders]) == result.makespan


def test_tabu_search_on_ft06_is_verified_deterministic_and_improves_the_dispatching_rule() -> None:
    instance = jsplib("ft06")
    ctx = make_context(instance)
    start = serial_schedule(instance)
    first = improve_jobshop(instance, start, seed=3, max_iterations=3000)
    again = improve_jobshop(instance, start, seed=3, max_iterations=3000)
    assert first is not None and first == again
    report, before = evaluate(ctx, first), evaluate(ctx, start)
    assert report.feasible and before.feasible
    assert report.objective is not None and before.objective is not None
    assert 55 <= report.objective < before.objective
    assert report.objective <= 58  # the optimum is 55; N5 tabu search gets within a few units at once


def test_tabu_search_stops_at_the_lower_bound() -> None:
    instance = jsplib("ft06")
    shop = jobshop_of(instance)
    assert shop is not None
    start = serial_schedule(instance)
    orders = orders_from_starts(shop, [start.starts[n] for n in shop.names])
    result = tabu_search(shop, orders, seed=0, max_iterations=10_000, lower_bound=10_000)
    assert result.iterations == 0


def test_only_pure_job_shops_are_taken() -> None:
    assert jobshop_of(jsplib("ft06")) is not None
    rcpsp = import_paths("psplib-sm", [DATA / "psplib-sm" / "j301_1.sm"], DATA / "psplib-sm" / "bks.csv")[0]
    assert jobshop_of(rcpsp) is None
    fjsp = import_paths("fjsp", [DATA / "fjsp" / "brandimarte" / "Mk01.fjs"], DATA / "fjsp" / "bks.csv")[0]
    assert jobshop_of(fjsp) is None
    assert improve_jobshop(rcpsp, Solution(starts={}), max_iterations=5) is None


def test_a_job_shop_with_a_release_date_is_not_pure() -> None:
    instance = jsplib("ft06")
    window = TimeWindow(id="late_start", windows=(Window(target="J1.1", release=3),))
    assert jobshop_of(msgspec.structs.replace(instance, constraints=(*instance.constraints, window))) is None


def test_cpsat_reports_the_verified_start_when_it_finds_nothing_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    from schedc.backends.cpsat import SolveOptions, solve, warmstart
    from schedc.lang.family import load_family

    instance = jsplib("ta01")
    # no time for CP-SAT's own search: the tabu start is all there is
    monkeypatch.setattr(warmstart, "structure_parameters", lambda m, workers=1: {"max_time_in_seconds": 0.0})
    result = solve(instance, load_family(instance.family), SolveOptions(time_limit=2, workers=2, seed=0))
    assert result.status == "feasible" and result.solution is not None
    report = evaluate(make_context(instance), result.solution)
    assert report.feasible and report.objective == result.objective
    assert result.bound is None or result.bound <= result.objective
