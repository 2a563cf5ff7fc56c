"""A DynaSched-Grid-like plant and target grid shared by the dfjsp calibration, SSI and scaling benchmarks.

The plant follows the paper's Grid description: 10 machines in 4 groups, 3 process families with
route length 4, N_J = 200 jobs. The factorial levels below are this project's own choice (the
paper's Table c-1 was not available when they were written); they span 6,000 points
(5 ρ × 5 τ × 4 c_a² × 4 c_p² × 3 δ × 5 χ), χ* = 0 included.

    points = grid_sample(60, seed=0)     # 60 random points, each with its own seed
"""

from __future__ import annotations

import itertools

import numpy as np

from schedc.dynamic.config import ConfigPoint, expand, parse_config

LEVELS: dict[str, tuple[float, ...]] = {
    "utilisation": (0.6, 0.7, 0.8, 0.9, 0.95),
    "tightness": (1.5, 2.0, 3.0, 4.0, 6.0),
    "arrival_scv": (0.25, 0.5, 1.0, 2.0),
    "processing_scv": (0.25, 0.5, 1.0, 1.5),
    "disturbance": (0.0, 0.05, 0.1),
    "imbalance": (0.0, 0.1, 0.2, 0.3, 0.4),
}

PLANT = """
name = "{name}"
seed = {seed}
objective = "makespan"

[plant]
machines = [
    {{ name = "M1", group = "cut", speed = 1.0 }}, {{ name = "M2", group = "cut", speed = 1.0 }},
    {{ name = "M3", group = "mill", speed = 1.0 }}, {{ name = "M4", group = "mill", speed = 1.0 }},
    {{ name = "M5", group = "mill", speed = 1.2 }}, {{ name = "M6", group = "drill", speed = 1.0 }},
    {{ name = "M7", group = "drill", speed = 1.1 }}, {{ name = "M8", group = "paint", speed = 1.0 }},
    {{ name = "M9", group = "paint", speed = 1.0 }}, {{ name = "M10", group = "paint", speed = 1.2 }},
]

[[plant.templates]]
name = "housing"
route = ["cut", "mill", "drill", "paint"]
work = [14.0, 18.0, 12.0, 16.0]
share = 0.4

[[plant.templates]]
name = "shaft"
route = ["mill", "drill", "mill", "paint"]
work = [14.0, 12.0, 14.0, 12.0]
share = 0.35

[[plant.templates]]
name = "cover"
route = ["cut", "paint", "drill", "paint"]
work = [16.0, 14.0, 10.0, 12.0]
share = 0.25

[scale]
horizon = {horizon}
jobs = {jobs}

[targets]
utilisation = {utilisation}
tightness = {tightness}
arrival_scv = {arrival_scv}
processing_scv = {processing_scv}
disturbance = {disturbance}
imbalance = {imbalance}

[scenarios]
maintenance_interval = {maintenance}
maintenance_duration = 4
repair_mean = 15.0

[calibrate]
enabled = true
"""


def horizon_for(jobs: int, utilisation: float) -> int:
    """H with N_J jobs at utilisation ρ: N_J E[X] / (ρ Σ v) (E[X] = 52.6 work units per job)."""
    mean_work = 0.4 * 60 + 0.35 * 52 + 0.25 * 52
    return max(1, round(jobs * mean_work / (utilisation * 10.5)))


def point_of(values: dict[str, float], seed: int, jobs: int = 200, name: str = "grid") -> ConfigPoint:
    """The single configuration point with these target ``values``."""
    text = PLANT.format(name=name, seed=seed, jobs=jobs, horizon=horizon_for(jobs, values["utilisation"]),
                        maintenance=250 if values["disturbance"] > 0 else 0, **values)
    return expand(parse_config(text, f"<{name}>"))[0]


def grid_values() -> list[dict[str, float]]:
    """All 6,000 combinations, in row-major order of :data:`LEVELS`."""
    return [dict(zip(LEVELS, combo, strict=True)) for combo in itertools.product(*LEVELS.values())]


def grid_sample(count: int, seed: int = 0, jobs: int = 200) -> list[ConfigPoint]:
    """``count`` distinct random grid points (point i of the grid gets seed 1000 + i)."""
    grid = grid_values()
    picks = np.random.default_rng(seed).choice(len(grid), size=count, replace=False)
    return [point_of(grid[i], 1000 + int(i), jobs, f"grid_{int(i):04d}") for i in sorted(picks)]
