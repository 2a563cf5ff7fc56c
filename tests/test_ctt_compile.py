"""The first timetable solve after an installation keeps its budget (backends/search/ctt_compile.py):

- the plain-Python copy of the annealing kernel is really uncompiled, and walks the compiled
  kernel's trajectory (so a solve can run it while numba compiles, and move on to the compiled
  one halfway);
- :func:`ctt_compile.cached` reads numba's cache without compiling: False for an empty cache
  folder, True once the kernel is compiled (in the process, or on disk for a new process);
- a solve that finds the cache empty starts the compile in another process, says so in one
  line on standard error, runs the plain copy and returns while that process still compiles:
  nothing is compiled in the solving process;
- an annealing with nothing left of its budget ends (it ran without end, which is what a solve
  whose budget a compile had eaten did next).

No assertion here is about how long something takes.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from schedc.backends.search import ctt_compile, ctt_kernel, ctt_search
from schedc.core.solution import Solution
from schedc.importers import import_paths
from schedc.lang.family import load_family
from schedc.verify.evaluate import evaluate
from tests.conftest import DATA, ROOT

COMP01 = DATA / "itc2007" / "comp01.ctt"
needs_numba = pytest.mark.skipif(not ctt_kernel.COMPILED, reason="numba absent or disabled: nothing is compiled")


@pytest.fixture(scope="module")
def problem() -> ctt_search.Problem:
    found = ctt_search.search_problem(import_paths("itc2007", [COMP01])[0], load_family("itc2007"))
    assert found is not None
    return found


@pytest.fixture(scope="module")
def start(problem: ctt_search.Problem) -> Solution:
    first = ctt_search.construct(problem, seed=0, runs=ctt_compile.plain_kernel())
    assert first is not None
    return first


def _python(script: str, cache: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``script`` in a new interpreter whose numba cache folder is ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout, check=True)


@needs_numba
def test_the_plain_copy_is_uncompiled_and_walks_the_compiled_trajectory(problem: ctt_search.Problem,
                                                                         start: Solution) -> None:
    plain = ctt_compile.plain_kernel()
    assert plain is not ctt_kernel and plain.PLAIN and not plain.COMPILED
    assert all(type(getattr(plain, name)).__name__ == "function" for name in ctt_compile.CALLS)
    assert ctt_search.construct(problem, seed=0) == start  # the compiled greedy builds the same timetable
    compiled = ctt_search.anneal(problem, start, seed=4, iterations=20_000)
    assert ctt_search.anneal(problem, start, seed=4, iterations=20_000, runs=plain) == compiled


@needs_numba
def test_cached_is_false_for_an_empty_cache_and_compiles_nothing(tmp_path: Path) -> None:
    script = ("import json; from schedc.backends.search import ctt_compile, ctt_kernel; "
              "print(json.dumps([ctt_compile.cached(), "
              "[len(getattr(ctt_kernel, n).signatures) for n in ctt_compile.CALLS]]))")
    known, compiled = json.loads(_python(script, tmp_path).stdout.strip().splitlines()[-1])
    assert known is False and compiled == [0, 0, 0]
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []  # nothing was written to the cache either


@needs_numba
def test_cached_is_true_once_compiled_here_and_on_disk_for_a_new_process(tmp_path: Path) -> None:
    ctt_search.warm_up()  # compiles (or loads) in this process, into the default cache folder
    assert ctt_compile.cached() is True
    script = ("from schedc.backends.search import ctt_compile, ctt_kernel; "
              "print(ctt_compile.cached(), sum(len(getattr(ctt_kernel, n).signatures) for n in ctt_compile.CALLS))")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=300, check=True)
    assert run.stdout.split() == ["True", "0"]  # in the cache on disk; nothing loaded or compiled to tell


@needs_numba
def test_a_solve_with_an_empty_cache_compiles_in_another_process_and_does_not_wait(tmp_path: Path) -> None:
    """The mechanism of issue 29's first-call budget: the solving process compiles nothing, the
    compile runs in a process of its own that is still running when the solve has returned."""
    script = """
import json
from schedc.backends import cpsat
from schedc.backends.search import ctt_compile, ctt_kernel
from schedc.kinds.context import EvalContext
from schedc.lang.load import resolve
from schedc.verify.evaluate import evaluate

instance, family, _ = resolve("examples/itc2007_small.sched")
result = cpsat.solve(instance, family, cpsat.SolveOptions(time_limit=2, workers=1, seed=0))
check = evaluate(EvalContext(instance, family), result.solution)
child = ctt_compile.background_child()
print(json.dumps({"status": result.status, "objective": result.objective, "verified": check.objective,
                  "feasible": check.feasible,
                  "compiled_here": [len(getattr(ctt_kernel, n).signatures) for n in ctt_compile.CALLS],
                  "running": child is not None and child.poll() is None, "pid": child and child.pid}))
"""
    run = _python(script, tmp_path)
    report = json.loads(run.stdout.strip().splitlines()[-1])
    try:
        assert ctt_compile.NOTICE in run.stderr.splitlines()
        assert report["status"] in ("optimal", "feasible") and report["feasible"]
        assert report["objective"] == report["verified"]
        assert report["compiled_here"] == [0, 0, 0]  # the solve ran the plain copy
        assert report["running"]  # the solve returned without waiting for the compile
    finally:
        if report["pid"] is not None:  # the compile this test started, ended by its id
            with contextlib.suppress(ProcessLookupError):
                os.kill(report["pid"], signal.SIGTERM)


def _no_compile_of_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget a compiling child an earlier test of this process started: once it has exited with 0,
    :class:`ctt_compile.Kernels` takes the compiled kernel whatever the stubbed cache says (the order
    dependence that once failed the next test in whole-suite runs)."""
    monkeypatch.setattr(ctt_compile, "_child", None)


def test_the_annealing_moves_to_the_compiled_kernel_once_the_cache_is_ready(problem: ctt_search.Problem,
                                                                           start: Solution,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _no_compile_of_this_process(monkeypatch)
    monkeypatch.setattr(ctt_compile, "LOOK_EVERY", 0.0)
    started: list[object] = []
    monkeypatch.setattr(ctt_compile, "compile_in_background", lambda notice=None: started.append(notice) or True)
    answers = iter([False, False, False, True])  # at its start, then at each look
    kernels = ctt_compile.Kernels(ready=lambda: next(answers, True))
    assert started and not kernels.compiled
    seen = []

    def runs(left: float) -> object:
        seen.append(module := kernels(left))
        return module

    iterations = 2 * ctt_search.CHUNK
    switched = ctt_search.anneal(problem, start, seed=5, iterations=iterations, runs=runs)  # type: ignore[arg-type]
    assert seen == [kernels.plain, kernels.plain, ctt_kernel]
    assert switched == ctt_search.anneal(problem, start, seed=5, iterations=iterations)  # the same trajectory
    check = evaluate(problem.ctx, switched.solution)
    assert check.feasible and check.objective == switched.cost


def test_no_switch_is_made_with_too_little_of_the_annealing_left(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ctt_compile, "LOOK_EVERY", 0.0)
    _no_compile_of_this_process(monkeypatch)
    monkeypatch.setattr(ctt_compile, "compile_in_background", lambda notice=None: True)
    ready = iter([False, True, True])
    kernels = ctt_compile.Kernels(ready=lambda: next(ready))
    assert kernels(ctt_compile.SWITCH_MARGIN / 2) is kernels.plain  # loading it could overrun the budget
    assert kernels(ctt_compile.SWITCH_MARGIN) is ctt_kernel


def test_an_annealing_with_no_time_left_ends(problem: ctt_search.Problem, start: Solution) -> None:
    """``ctt_period`` gives the annealing what is left of the budget, 0 once it is spent; a time
    limit of 0 was read as "no time limit" and the annealing never ended."""
    out: list[ctt_search.AnnealResult] = []
    thread = threading.Thread(target=lambda: out.append(ctt_search.anneal(problem, start, seed=0, time_limit=0.0)),
                              daemon=True)
    thread.start()
    thread.join(120)  # a generous margin: the call returns at once
    assert out and out[0].iterations == 0 and out[0].solution == start
