"""Fingerprints of rollouts, to show that a change of the simulator or the rules keeps them byte-identical.

For each world (the scaling benchmark's plants at N_J = 200 … 1,600, plus disturbed Grid points)
every composite rule and RANDOM (seed 0) is simulated and the whole outcome — every log line
(decisions included), the schedule, the objectives, aborts and decision count — is hashed
(:meth:`Rollout.fingerprint`: SHA-256 of canonical JSON, identical across processes and hash seeds).
Run it before and after a change and compare the printed lines (``diff``).

    python benchmarks/dfjsp_identity.py [--sizes 200,400,800,1600] > before.txt
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.dfjsp_grid import point_of  # noqa: E402
from benchmarks.dfjsp_scaling import TARGETS  # noqa: E402
from schedc.dynamic.generator import generate  # noqa: E402
from schedc.dynamic.rules import RULE_NAMES, simulate  # noqa: E402
from schedc.dynamic.simulator import Simulator  # noqa: E402
from schedc.dynamic.world import World  # noqa: E402

# heavier disturbance (breakdowns, maintenance, information events) than the scaling plant
DISTURBED = {**TARGETS, "disturbance": 0.1, "utilisation": 0.95, "arrival_scv": 2.0}


def worlds(sizes: list[int]) -> list[World]:
    """The scaling benchmark's worlds at ``sizes``, then a disturbed point at each size."""
    scaling = [generate(point_of(TARGETS, seed=n, jobs=n, name=f"scale_{n}")) for n in sizes]
    disturbed = [generate(point_of(DISTURBED, seed=7 + n, jobs=n, name=f"disturbed_{n}")) for n in sizes]
    return scaling + disturbed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="200,400,800,1600")
    args = parser.parse_args()
    combined = hashlib.sha256()
    for world in worlds([int(s) for s in args.sizes.split(",")]):
        sim = Simulator(world)
        for rule in (*RULE_NAMES, "RANDOM"):
            line = f"{world.name} {rule} {simulate(sim, rule).fingerprint()}"
            combined.update(line.encode())
            print(line, flush=True)
    print(f"all {combined.hexdigest()}")


if __name__ == "__main__":
    main()
