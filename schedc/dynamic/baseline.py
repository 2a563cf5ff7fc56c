"""Parameter-space calibration baseline: random search over the generator's input targets.

Where SESC edits one realised world, the baseline only changes what the generator is *asked*
for. The input vector θ = (ρ, c_a², c_p², τ, δ, ρ_b for every window) starts at the targets; each
evaluation draws θ' = θ_best · exp(σ z), z ~ N(0, I) (a multiplicative perturbation, so inputs keep
their sign and a zero input stays zero), regenerates the world with the point's seed (common random
numbers: only the inputs differ) and measures its error vector against the *original* targets. The
best input by L2 error is kept; the search stops after ``budget`` evaluations or at strict success.
"""

from __future__ import annotations

import time

import msgspec
import numpy as np

from schedc.dynamic.calibrate import CalibrationReport, CalibrationState, finish
from schedc.dynamic.config import ConfigPoint, TargetPoint
from schedc.dynamic.generator import draft, streams
from schedc.dynamic.metrics import error_vector, l2_error, metrics_from_arrays, within
from schedc.dynamic.world import World

SIGMA = 0.15
BOUNDS = {"utilisation": (0.05, 1.95), "arrival_scv": (0.01, 24.0), "processing_scv": (0.0, 24.0),
          "tightness": (0.05, 99.0), "disturbance": (0.0, 0.9)}


def _inputs(targets: TargetPoint) -> np.ndarray:
    return np.array([targets.utilisation, targets.arrival_scv, targets.processing_scv, targets.tightness,
                     targets.disturbance, *(w.utilisation for w in targets.bottlenecks)])


def _targets(base: TargetPoint, theta: np.ndarray) -> TargetPoint:
    """The targets with input vector θ, clipped to the generator's domains."""
    values = {key: float(np.clip(v, *BOUNDS[key])) for key, v in zip(BOUNDS, theta, strict=False)}
    windows = tuple(msgspec.structs.replace(w, utilisation=float(np.clip(u, 0.05, 1.95)))
                    for w, u in zip(base.bottlenecks, theta[len(BOUNDS):], strict=True))
    return msgspec.structs.replace(base, **values, bottlenecks=windows)


def _evaluate(point: ConfigPoint, theta: np.ndarray) -> CalibrationState:
    generated = draft(msgspec.structs.replace(point, targets=_targets(point.targets, theta)))
    metrics = metrics_from_arrays(generated.arrays(), point.targets.bottlenecks)
    return CalibrationState(generated, 1.0, error_vector(metrics, point.targets))


def random_search(point: ConfigPoint, budget: int | None = None) -> tuple[World, CalibrationReport]:
    """Calibrate ``point`` by random search over the generator inputs (``budget`` evaluations)."""
    began = time.perf_counter()
    budget = budget or point.calibrate.budget
    rng = streams(point.seed)["calibration"]
    theta = _inputs(point.targets)
    best = initial = _evaluate(point, theta)
    evaluations = 1
    while evaluations < budget and not within(best.errors, point.calibrate.tolerance):
        candidate_theta = theta * np.exp(SIGMA * rng.standard_normal(len(theta)))
        candidate = _evaluate(point, candidate_theta)
        evaluations += 1
        if l2_error(candidate.errors) < l2_error(best.errors):
            best, theta = candidate, candidate_theta
    inputs = msgspec.json.encode(best.draft.point.targets).decode()
    return finish("baseline", point, initial.errors, best, evaluations, evaluations, [], began, {"inputs": inputs})
