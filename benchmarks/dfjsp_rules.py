"""Dispatching-rule rollouts of dynamic flexible job shop worlds: speed and objective per rule.

Usage: ``python benchmarks/dfjsp_rules.py [CONFIG.toml] [--jobs N] [--machines M] [--seed S]``, or
``python benchmarks/dfjsp_rules.py --grid 20`` for the relative-to-best table (as the paper's Table 5):
on that many random Grid points (:mod:`benchmarks.dfjsp_grid`, generator output, makespan) every rule's
gap to the best rule of the instance, (C_max(rule) − C_max(best)) / C_max(best), averaged over the
instances, for the best, median and worst rule, and per rule with ``--all-rules``.
With a configuration, every grid point is generated (:mod:`schedc.dynamic.generator`); without,
the test suite's random world of ``--jobs`` jobs on ``--machines`` machines is used. Prints one
line per rule: wall time of the rollout, makespan, weighted tardiness, aborts and decisions; then
the references measured in the same run on the realised instance: the static serial heuristic's
time (the ratio of a rollout to it) and makespan, and CP-SAT's clairvoyant makespan
(``--cpsat-seconds``, warm-started by the best rule). Target: a 200-job, 10-machine rollout well
under a second.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from schedc.dynamic.rules import RULE_NAMES, simulate
from schedc.dynamic.simulator import Simulator
from schedc.dynamic.world import World


def worlds(args: argparse.Namespace) -> list[World]:
    """The worlds to roll out: the configuration's grid, or one random test world."""
    if args.config is not None:
        from schedc.dynamic.config import expand, load_config
        from schedc.dynamic.generator import generate

        return [generate(point) for point in expand(load_config(args.config))]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests package, for its world builder
    from tests.test_dynamic_simulator import random_world

    return [random_world(args.jobs, args.machines, args.seed)]


def report(world: World, seed: int, cpsat_seconds: float) -> None:
    """One line per rule (and RANDOM) for ``world``, then the references measured on the same world:
    schedc's static serial heuristic and CP-SAT on the realised (clairvoyant) instance."""
    began = time.perf_counter()
    sim = Simulator(world)
    print(f"{world.name}: {len(world.jobs)} jobs (+{len(world.cancelled)} withdrawn), {len(world.machines)} machines, "
          f"{len(world.events)} events; compiled in {time.perf_counter() - began:.4f} s")
    timings, rollouts = [], []
    for rule in (*RULE_NAMES, "RANDOM"):
        began = time.perf_counter()
        r = simulate(sim, rule, seed=seed)
        timings.append(time.perf_counter() - began)
        rollouts.append(r)
        print(f"  {rule:<10} {timings[-1]:7.3f} s  makespan {r.makespan:6d}  "
              f"wT {r.weighted_tardiness:8d}  aborts {r.aborts:3d}  decisions {r.decisions:5d}")
    references(world, rollouts[:-1], statistics.median(timings), cpsat_seconds)


def references(world: World, rollouts: list, rollout_seconds: float, cpsat_seconds: float) -> None:
    """Ratios against the static serial heuristic (time, makespan) and CP-SAT's makespan."""
    import dataclasses

    from schedc.backends.cpsat import solve
    from schedc.backends.cpsat.solve import SolveOptions
    from schedc.backends.search.heuristics import schedule_end, serial_schedule
    from schedc.dynamic.spec import world_to_instance
    from schedc.lang.family import load_family

    instance = world_to_instance(dataclasses.replace(world, objective="makespan"))
    began = time.perf_counter()
    heuristic = serial_schedule(instance)
    serial_seconds = time.perf_counter() - began
    best = min(rollouts, key=lambda r: r.makespan)
    result = solve(instance, load_family("dfjsp"), SolveOptions(time_limit=cpsat_seconds, workers=2),
                   start=best.solution)
    print(f"  median rollout {rollout_seconds:.3f} s = {rollout_seconds / serial_seconds:.2f} × the static serial "
          f"heuristic ({serial_seconds:.3f} s) on the realised instance")
    print(f"  makespan: best rule {best.rule} {best.makespan}, serial heuristic (clairvoyant) "
          f"{schedule_end(instance, heuristic)}, CP-SAT {cpsat_seconds:g} s (clairvoyant, warm-started) "
          f"{result.objective} ({result.status}, bound {result.bound:g}); best rule / CP-SAT = "
          f"{best.makespan / result.objective:.3f}")


def relative_table(worlds: list[World], show_all: bool) -> None:
    """Mean relative gap to the per-instance best rule: best, median and worst rule (Table 5 layout)."""
    gaps: dict[str, list[float]] = {rule: [] for rule in RULE_NAMES}
    for world in worlds:
        sim = Simulator(world)
        spans = {rule: simulate(sim, rule).makespan for rule in RULE_NAMES}
        best = min(spans.values())
        for rule, span in spans.items():
            gaps[rule].append((span - best) / best)
    mean = sorted(((statistics.fmean(v), rule) for rule, v in gaps.items()))
    middle = mean[len(mean) // 2]
    print(f"{len(worlds)} Grid instances, {len(RULE_NAMES)} rules, makespan\n")
    print("| | rule | mean (C_max − best) / best | instances where best |")
    print("|---|---|---:|---:|")
    for label, (value, rule) in (("best", mean[0]), ("median", middle), ("worst", mean[-1])):
        wins = sum(g == 0 for g in gaps[rule])
        print(f"| {label} | {rule} | {value:.1%} | {wins} |")
    if show_all:
        for value, rule in mean:
            print(f"| | {rule} | {value:.1%} | {sum(g == 0 for g in gaps[rule])} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--machines", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpsat-seconds", type=float, default=10.0)
    parser.add_argument("--grid", type=int, default=0, help="relative-to-best table on N random Grid points")
    parser.add_argument("--all-rules", action="store_true", help="with --grid: one row per rule")
    args = parser.parse_args()
    if args.grid:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from benchmarks.dfjsp_grid import grid_sample
        from schedc.dynamic.generator import generate

        relative_table([generate(p) for p in grid_sample(args.grid, seed=args.seed)], args.all_rules)
        return
    for world in worlds(args):
        report(world, args.seed, args.cpsat_seconds)


if __name__ == "__main__":
    main()
