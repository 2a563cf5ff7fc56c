"""The compiled annealing kernel (backends/search/ctt_kernel.py) against its plain-Python self and the evaluator:

- with an iteration budget, the compiled kernel and the same functions run uncompiled
  (``NUMBA_DISABLE_JIT=1``, in a subprocess: numba decides at import) give identical
  trajectories: final state, its cost, the best state and its cost, the generator's state;
- after annealing moves the maintained cost is the evaluator's, and every best state the
  kernel records verifies with the cost it claims;
- a stop event ends ``ctt_period.solve`` long before its budget, with a verified answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from schedc.backends.cpsat import ctt_period
from schedc.backends.search import ctt_kernel, ctt_search
from schedc.core.solution import Solution
from schedc.importers import import_paths
from schedc.ir import Instance
from schedc.lang.family import load_family
from schedc.verify.evaluate import evaluate
from tests.conftest import DATA, ROOT

COMP01 = DATA / "itc2007" / "comp01.ctt"


@pytest.fixture(scope="module")
def comp01() -> Instance:
    return import_paths("itc2007", [COMP01], DATA / "itc2007" / "bks.csv")[0]


@pytest.fixture(scope="module")
def problem(comp01: Instance) -> ctt_search.Problem:
    found = ctt_search.search_problem(comp01, load_family("itc2007"))
    assert found is not None
    return found


def _start(problem: ctt_search.Problem) -> Solution:
    start = ctt_search.construct(problem, seed=0)
    assert start is not None
    return start


def _chunks(problem: ctt_search.Problem, start: Solution, seed: int, chunks: list[tuple[int, float]]
            ) -> tuple[ctt_search.Search, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Anneal ``start`` by kernel calls of (iterations, temperature); the search and the best kept."""
    search = ctt_search.Search(problem, start)
    rng = np.array([seed], dtype=np.uint64)
    best_slot, best_room, best_cost = search.state.slot.copy(), search.state.room.copy(), search.state.cost.copy()
    with np.errstate(over="ignore"):  # uncompiled, numpy warns where machine code wraps
        for iterations, temperature in chunks:
            ctt_kernel.anneal_chunk(search.data, search.state, rng, best_slot, best_room, best_cost, iterations,
                                    temperature, 0.1, 0.05, search._steps, 0.1, search._chain)
    return search, rng, best_slot, best_room, best_cost


def trajectory(iterations: int) -> dict[str, object]:
    """Everything an annealing of comp01 from the greedy start leaves behind (run in both modes)."""
    instance = import_paths("itc2007", [COMP01])[0]
    problem = ctt_search.search_problem(instance, load_family("itc2007"))
    assert problem is not None
    search, rng, best_slot, best_room, best_cost = _chunks(problem, _start(problem), 7,
                                                           [(iterations // 2, 3.0), (iterations // 2, 0.3)])
    return {"compiled": ctt_kernel.COMPILED, "slot": search.state.slot.tolist(), "room": search.state.room.tolist(),
            "cost": search.cost, "best_slot": best_slot.tolist(), "best_room": best_room.tolist(),
            "best_cost": int(best_cost[0]), "rng": int(rng[0])}


@pytest.mark.skipif(not ctt_kernel.COMPILED, reason="numba absent or disabled: nothing compiled to compare")
def test_compiled_and_uncompiled_kernels_walk_the_same_trajectory() -> None:
    iterations = 6000
    compiled = trajectory(iterations)
    script = f"import json; from tests.test_ctt_kernel import trajectory; print(json.dumps(trajectory({iterations})))"
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, check=True)
    plain = json.loads(run.stdout.strip().splitlines()[-1])
    assert compiled["compiled"] and not plain["compiled"]
    assert {k: v for k, v in compiled.items() if k != "compiled"} == {k: v for k, v in plain.items()
                                                                      if k != "compiled"}
    assert compiled["best_cost"] <= compiled["cost"]


def test_annealing_cost_is_the_evaluators_and_every_best_verifies(problem: ctt_search.Problem) -> None:
    start = _start(problem)
    search = ctt_search.Search(problem, start)
    rng = np.array([11], dtype=np.uint64)
    best_slot, best_room, best_cost = search.state.slot.copy(), search.state.room.copy(), search.state.cost.copy()
    bests = 0
    for chunk in range(120):  # short calls at a falling temperature: each new best is looked at
        before = int(best_cost[0])
        ctt_kernel.anneal_chunk(search.data, search.state, rng, best_slot, best_room, best_cost, 50,
                                5.0 * 0.97 ** chunk, 0.1, 0.05, search._steps, 0.1, search._chain)
        if chunk % 20 == 0:  # the maintained cost of the current state
            current = evaluate(problem.ctx, search.solution())
            assert current.feasible and current.objective == search.cost
        if int(best_cost[0]) != before:
            bests += 1
            best = evaluate(problem.ctx, search.solution(best_slot, best_room))
            assert best.feasible and best.objective == int(best_cost[0]) < before
    assert bests > 10
    assert int(best_cost[0]) < evaluate(problem.ctx, start).objective


def test_after_annealing_every_count_is_the_one_of_the_timetable_built_afresh(problem: ctt_search.Problem) -> None:
    """The kernel changes the occupancy the hard rules read (``at``, ``clash``) only for moves
    it keeps, and undoes the rest on the penalty's counts alone: after thousands of moves of
    every kind, kept and undone, every array of the state equals the one of a search built from
    the same timetable, and so does the penalty."""
    start = _start(problem)
    for temperature in (5.0, 0.5):  # many worsening moves kept, then few
        search, _rng, _slot, _room, _cost = _chunks(problem, start, 13, [(4000, temperature)] * 5)
        afresh = ctt_search.Search(problem, search.solution())
        # lectures of one agent may be numbered otherwise afresh: compare whose lecture is where
        agents = search.data.lecture_agent
        placed = [sorted(zip(agents.tolist(), state.slot.tolist(), state.room.tolist(), strict=True))
                  for state in (search.state, afresh.state)]
        assert placed[0] == placed[1]
        whose = [np.where(state.room_at >= 0, agents[state.room_at], -1) for state in (search.state, afresh.state)]
        assert np.array_equal(*whose)
        for name, array in search.state._asdict().items():
            if name not in ("slot", "room", "room_at"):
                assert np.array_equal(array, getattr(afresh.state, name)), name
        assert search.solution() != start


def test_anneal_is_deterministic_per_seed_with_an_iteration_limit(problem: ctt_search.Problem) -> None:
    start = _start(problem)
    first = ctt_search.anneal(problem, start, seed=2, iterations=50_000)
    assert first == ctt_search.anneal(problem, start, seed=2, iterations=50_000)
    assert first != ctt_search.anneal(problem, start, seed=3, iterations=50_000)
    assert first.iterations == 50_000


@pytest.mark.parametrize("delay", [0.0, 1.5])
def test_a_stop_event_ends_the_solve_early_with_a_verified_answer(comp01: Instance, problem: ctt_search.Problem,
                                                                  delay: float) -> None:
    ctt_search.anneal(problem, _start(problem), seed=0, iterations=10)  # compiled (or loaded) before timing
    family = load_family("itc2007")
    relax = ctt_period.room_relaxation(comp01, family)
    assert relax is not None
    stop = threading.Event()
    timer = threading.Timer(delay, stop.set)
    timer.start()
    began = time.perf_counter()
    result = ctt_period.solve(comp01, family, relax, time_limit=60, workers=1, seed=0, stop=stop)
    took = time.perf_counter() - began
    timer.cancel()
    assert took < delay + 8  # the model build and the greedy, then at most one phase's stop latency
    assert result.solution is not None and result.objective is not None
    check = evaluate(relax.ctx, result.solution)
    assert check.feasible and check.objective == result.objective


def test_a_stop_event_ends_the_annealing_between_chunks(problem: ctt_search.Problem) -> None:
    start = _start(problem)
    ctt_search.anneal(problem, start, seed=0, iterations=10)  # compiled (or loaded) before timing
    stop = threading.Event()
    timer = threading.Timer(0.5, stop.set)
    timer.start()
    began = time.perf_counter()
    result = ctt_search.anneal(problem, start, seed=0, time_limit=60, stop=stop)
    timer.cancel()
    assert time.perf_counter() - began < 3
    check = evaluate(problem.ctx, result.solution)
    assert check.feasible and check.objective == result.cost


@pytest.mark.skipif(not ctt_kernel.COMPILED, reason="numba is not installed or disabled: nothing to compile")
def test_warm_up_compiles_what_a_timetable_solve_calls(problem: ctt_search.Problem) -> None:
    """After warm_up() on its toy problem, the greedy and the annealing of a real instance find
    their kernel functions compiled for the same argument types (no new signature appears)."""
    ctt_search.warm_up()
    compiled = {f: set(f.signatures) for f in (ctt_kernel.open_cells, ctt_kernel.place, ctt_kernel.anneal_chunk)}
    assert all(compiled.values())
    start = ctt_search.construct(problem, seed=0)
    assert start is not None
    ctt_search.anneal(problem, start, seed=0, iterations=256)
    assert {f: set(f.signatures) for f in compiled} == compiled
