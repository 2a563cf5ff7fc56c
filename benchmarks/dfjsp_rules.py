"""Dispatching-rule rollouts of dynamic flexible job shop worlds: speed and objective per rule.

Usage: ``python benchmarks/dfjsp_rules.py [CONFIG.toml] [--jobs N] [--machines M] [--seed S]``.
With a configuration, every grid point is generated (:mod:`schedc.dynamic.generator`); without,
the test suite's random world of ``--jobs`` jobs on ``--machines`` machines is used. Prints one
line per rule: wall time of the rollout, makespan, weighted tardiness, aborts and decisions.
Target: a 200-job, 10-machine rollout well under a second.
"""

from __future__ import annotations

import argparse
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


def report(world: World, seed: int) -> None:
    """One line per rule (and RANDOM) for ``world``."""
    began = time.perf_counter()
    sim = Simulator(world)
    print(f"{world.name}: {len(world.jobs)} jobs (+{len(world.cancelled)} withdrawn), {len(world.machines)} machines, "
          f"{len(world.events)} events; compiled in {time.perf_counter() - began:.4f} s")
    for rule in (*RULE_NAMES, "RANDOM"):
        began = time.perf_counter()
        r = simulate(sim, rule, seed=seed)
        print(f"  {rule:<10} {time.perf_counter() - began:7.3f} s  makespan {r.makespan:6d}  "
              f"wT {r.weighted_tardiness:8d}  aborts {r.aborts:3d}  decisions {r.decisions:5d}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", type=Path, default=None)
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--machines", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for world in worlds(args):
        report(world, args.seed)


if __name__ == "__main__":
    main()
