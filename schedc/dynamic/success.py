"""Paper-comparable calibration error and success (DynaSchedBench, Table 1).

For the targeted metrics m* = (ρ*, c_a²*, c_p²*, τ*, δ*, χ*, ρ_b* per window) and the measured
m^obs of a world:

* **normalised L2** ‖m* − m^obs‖₂ / ‖m*‖₂ (absolute metric differences, one norm over the vector;
  not the norm of relative errors that :func:`~schedc.dynamic.metrics.l2_error` reports);
* **relaxed success**: normalised L2 ≤ ε_L2;
* **strict success**: relaxed, and every metric's relative error |m^obs_l − m*_l| / |m*_l|
  (absolute when m*_l = 0) within its tolerance θ_l.

Default tolerances are those of the authors' package (``dsbx`` 0.4.0, ``Gen/pipeline.py``, the
per-metric thresholds derived from its default L2 tolerance 0.1): θ_ρ = 0.06, θ_ca = 0.12,
θ_cp = 0.12 (0.18 when c_p²* ≥ 1.5), θ_τ = 0.10, θ_δ = 0.10, θ_χ = 0.15, and ε_L2 = 0.10. dsbx has
no per-window threshold (its windows enter the L2 only); schedc uses θ_b = 0.10 for every window.
Every value can be overridden in ``[calibrate]`` (``thresholds``, ``l2_tolerance``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from schedc.dynamic.config import TargetPoint

DEFAULT_THRESHOLDS: dict[str, float] = {"utilisation": 0.06, "arrival_scv": 0.12, "processing_scv": 0.12,
                                        "tightness": 0.10, "disturbance": 0.10, "imbalance": 0.15,
                                        "bottleneck": 0.10}
WIDE_PROCESSING_THRESHOLD = 0.18  # dsbx: θ_cp for c_p²* ≥ 1.5
DEFAULT_L2_TOLERANCE = 0.10


def target_values(targets: TargetPoint) -> dict[str, float]:
    """m*: the target of every key of :func:`~schedc.dynamic.metrics.error_vector`."""
    values = {"utilisation": targets.utilisation, "arrival_scv": targets.arrival_scv,
              "processing_scv": targets.processing_scv, "tightness": targets.tightness,
              "disturbance": targets.disturbance}
    if targets.imbalance is not None:
        values["imbalance"] = targets.imbalance
    values |= {f"bottleneck[{i}]": w.utilisation for i, w in enumerate(targets.bottlenecks)}
    return values


def thresholds(targets: TargetPoint, overrides: Mapping[str, float] | None = None) -> dict[str, float]:
    """θ_l per error key (windows ``bottleneck[i]`` share the ``bottleneck`` entry)."""
    table = DEFAULT_THRESHOLDS | dict(overrides or {})
    if targets.processing_scv >= 1.5 and "processing_scv" not in (overrides or {}):
        table["processing_scv"] = WIDE_PROCESSING_THRESHOLD
    return {key: table[key.split("[")[0]] for key in target_values(targets)}


def normalised_l2(errors: Mapping[str, float], targets: TargetPoint) -> float:
    """‖m* − m^obs‖ / ‖m*‖ from the relative error vector (m^obs − m* = e |m*|, or e when m* = 0)."""
    values = target_values(targets)
    diff = [errors[k] * (abs(t) if t != 0 else 1.0) for k, t in values.items() if k in errors]
    norm = math.sqrt(sum(t * t for t in values.values()))
    return math.sqrt(sum(d * d for d in diff)) / norm if norm > 0 else math.sqrt(sum(d * d for d in diff))


def success(errors: Mapping[str, float], targets: TargetPoint, overrides: Mapping[str, float] | None = None,
            l2_tolerance: float = DEFAULT_L2_TOLERANCE) -> tuple[bool, bool]:
    """(strict, relaxed) success in the paper's sense (module docstring)."""
    relaxed = normalised_l2(errors, targets) <= l2_tolerance
    theta = thresholds(targets, overrides)
    return relaxed and all(abs(errors[k]) <= theta[k] for k in theta if k in errors), relaxed
