"""Solver-code throughput: sandboxed programs per second (10 s limits each), and the sandbox's overhead.

Usage: ``python benchmarks/sandbox_speed.py [--programs N] [--jobs J]``. Three kinds of program,
each run N times through :func:`schedc.bench.sandbox.run_program` on J threads (each run is its
own process tree): ``print`` (prints a 36-line schedule: the sandbox's fixed cost), ``cp-sat``
(builds and solves ft06 with OR-Tools, as a model's program would) and, as the reference measured
in the same run, the ``print`` program run by a bare ``python -I`` subprocess without the sandbox.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from schedc.bench.sandbox import Limits, run_program

PRINT = "for j in range(1, 7):\n    for k in range(1, 7):\n        print(f'Job {j} step {k}: start={10 * j + k}')\n"
CPSAT = """
from ortools.sat.python import cp_model
jobs = [[(2,1),(0,3),(1,6),(3,7),(5,3),(4,6)],[(1,8),(2,5),(4,10),(5,10),(0,10),(3,4)],
        [(2,5),(3,4),(5,8),(0,9),(1,1),(4,7)],[(1,5),(0,5),(2,5),(3,3),(4,8),(5,9)],
        [(2,9),(1,3),(4,5),(5,4),(0,3),(3,1)],[(1,3),(3,3),(5,9),(0,10),(4,4),(2,1)]]
m = cp_model.CpModel(); H = sum(d for job in jobs for _, d in job); per = {}; starts = {}
for j, job in enumerate(jobs):
    for k, (mach, d) in enumerate(job):
        s = m.NewIntVar(0, H, ''); starts[j, k] = s
        per.setdefault(mach, []).append(m.NewIntervalVar(s, d, s + d, ''))
        if k: m.Add(s >= starts[j, k - 1] + job[k - 1][1])
for ivs in per.values(): m.AddNoOverlap(ivs)
end = m.NewIntVar(0, H, ''); [m.Add(end >= starts[j, 5] + jobs[j][5][1]) for j in range(6)]; m.Minimize(end)
solver = cp_model.CpSolver(); solver.parameters.num_workers = 1; solver.Solve(m)
for (j, k), s in starts.items(): print(f'Job {j + 1} step {k + 1}: start={solver.Value(s)}')
"""


def bare(source: str) -> str:
    """The reference: the same program in a plain isolated interpreter, no sandbox."""
    return subprocess.run([sys.executable, "-I", "-c", source], capture_output=True, text=True, timeout=60).stdout


def sandboxed(source: str) -> str:
    result = run_program(source, Limits(cpu_seconds=10, wall_seconds=10.0))
    assert result.status == "ok", result
    return result.stdout


def rate(label: str, run: object, source: str, programs: int, jobs: int) -> float:
    """Programs per second of ``run(source)`` repeated ``programs`` times on ``jobs`` threads."""
    started = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        outputs = list(pool.map(lambda _: run(source), range(programs)))  # type: ignore[operator]
    seconds = time.perf_counter() - started
    assert all(len(o.splitlines()) == 36 for o in outputs), label
    print(f"{label:<22} {programs:>4} programs in {seconds:6.2f} s = {programs / seconds:6.2f} programs/s")
    return programs / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    reference = rate("bare python (print)", bare, PRINT, args.programs, args.jobs)
    boxed = rate("sandbox (print)", sandboxed, PRINT, args.programs, args.jobs)
    rate("sandbox (cp-sat ft06)", sandboxed, CPSAT, args.programs, args.jobs)
    print(f"sandbox overhead: {reference / boxed:.2f}× the time of a bare interpreter")


if __name__ == "__main__":
    main()
