"""Per-decision simulation cost from N_J = 200 to 1,600 jobs (target: flat within 20 %).

For each size the same plant (:mod:`benchmarks.dfjsp_grid`, ρ* = 0.85, uncalibrated generator)
is simulated under a few composite rules; the cost per decision is the rollout's time over its
decision count (best of ``--repeat`` runs), as process CPU time (the ratio uses it: on a shared
machine wall time mostly measures the other processes) and as wall time. Prints the table and the
ratio of the largest to the smallest size.

    python benchmarks/dfjsp_scaling.py [--sizes 200,400,800,1600] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.dfjsp_grid import point_of  # noqa: E402
from schedc.dynamic.generator import generate  # noqa: E402
from schedc.dynamic.rules import simulate  # noqa: E402
from schedc.dynamic.simulator import Simulator  # noqa: E402

RULES = ("SPT+LIT", "FIFO+SPT", "MWKR+LWL")
TARGETS = {"utilisation": 0.85, "tightness": 3.0, "arrival_scv": 1.0, "processing_scv": 0.5,
           "disturbance": 0.05, "imbalance": 0.2}


def mean_pool(sim: Simulator) -> float:
    """Mean number of ready operations per decision under SPT+LIT (what a decision has to look at)."""
    from schedc.dynamic.rules import parse_rule

    rule, state, sizes = parse_rule("SPT+LIT"), sim.reset(), []
    while not state.done:
        sizes.append(len(state.pool))
        state = sim.step(state, *rule.choose(sim, state))
    return sum(sizes) / len(sizes)


def per_decision(jobs: int, repeat: int) -> tuple[int, float, float, float]:
    """(decisions of one rollout, best CPU and wall seconds per decision over the rules and repeats,
    mean ready pool)."""
    world = generate(point_of(TARGETS, seed=jobs, jobs=jobs, name=f"scale_{jobs}"))
    sim = Simulator(world)
    cpu = wall = float("inf")
    decisions = 0
    for rule in RULES:
        for _ in range(repeat):
            began, began_cpu = time.perf_counter(), time.process_time()
            rollout = simulate(sim, rule)
            decisions = rollout.decisions
            cpu = min(cpu, (time.process_time() - began_cpu) / decisions)
            wall = min(wall, (time.perf_counter() - began) / decisions)
    return decisions, cpu, wall, mean_pool(sim)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="200,400,800,1600")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print("| N_J | decisions | CPU ms per decision | wall ms per decision | mean ready pool |")
    print("|---:|---:|---:|---:|---:|")
    costs = []
    for n in sizes:
        decisions, cost, wall, pool = per_decision(n, args.repeat)
        costs.append(cost)
        print(f"| {n} | {decisions} | {cost * 1e3:.3f} | {wall * 1e3:.3f} | {pool:.1f} |")
    print(f"\nN_J = {sizes[-1]} / N_J = {sizes[0]}: × {costs[-1] / costs[0]:.2f} (CPU time; target ≤ 1.20)")


if __name__ == "__main__":
    main()
