"""Statistics of SCHEDBench §4.3: paired |ΔVR| between variants against the reseeding noise band.

For two variants ``a`` and ``b`` of the same instances (one model), with base seed ``s0``:

* ``|ΔVR|_i = |VR_i(a, s0) − VR_i(b, s0)|`` — how much the answer's violation rate moves when the
  rendering changes from ``a`` to ``b``;
* ``band_i`` = the median over ``v ∈ {a, b}`` and every other seed ``s`` of ``|VR_i(v, s) − VR_i(v, s0)|``
  — how much it moves when only the seed of the rendering changes (the noise);
* the statistic ``d = median_i(|ΔVR|_i) − median_i(band_i)``, with a 95 % percentile bootstrap
  confidence interval: instances resampled with replacement (pairs kept together), ``B`` replicates,
  ``numpy.random.default_rng(seed)``.

Only instances where every needed VR exists (the answer was extracted) take part.

Verdict (is the variant effect larger than the seed noise?):

* ``yes`` — the CI lies entirely above 0 (low > 0);
* ``no (< noise)`` — the CI lies entirely below 0 (high < 0);
* ``near`` — the CI contains 0 and the point estimate ``d`` is > 0;
* ``no`` — the CI contains 0 and ``d`` ≤ 0;
* ``n/a`` — no instance has both variants and a reseeded rendering.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

BOOTSTRAP_SEED = 20240917
BOOTSTRAP_REPLICATES = 2000


@dataclass(frozen=True)
class PairStats:
    """The |ΔVR| summary of one variant pair."""

    n: int
    delta_median: float | None
    delta_q1: float | None
    delta_q3: float | None
    band_median: float | None
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    verdict: str

    @property
    def delta_iqr(self) -> float | None:
        return None if self.delta_q1 is None or self.delta_q3 is None else self.delta_q3 - self.delta_q1


def bootstrap_ci(delta: np.ndarray, band: np.ndarray, replicates: int = BOOTSTRAP_REPLICATES,
                 seed: int = BOOTSTRAP_SEED, level: float = 0.95) -> tuple[float, float]:
    """Percentile CI of ``median(delta) − median(band)`` resampling paired instances."""
    rng = np.random.default_rng(seed)
    index = rng.integers(0, len(delta), size=(replicates, len(delta)))
    values = np.median(delta[index], axis=1) - np.median(band[index], axis=1)
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(values, [alpha, 1.0 - alpha])
    return float(low), float(high)


def verdict(estimate: float, low: float, high: float) -> str:
    """``yes`` / ``no (< noise)`` / ``near`` / ``no`` as defined in the module docstring."""
    if low > 0:
        return "yes"
    if high < 0:
        return "no (< noise)"
    return "near" if estimate > 0 else "no"


def pair_stats(delta: Sequence[float], band: Sequence[float], replicates: int = BOOTSTRAP_REPLICATES,
               seed: int = BOOTSTRAP_SEED) -> PairStats:
    """Summary and verdict for paired per-instance ``delta`` (|ΔVR|) and ``band`` values."""
    d, b = np.asarray(delta, dtype=float), np.asarray(band, dtype=float)
    if len(d) == 0:
        return PairStats(0, None, None, None, None, None, None, None, "n/a")
    q1, med, q3 = (float(x) for x in np.quantile(d, [0.25, 0.5, 0.75]))
    band_median = float(np.median(b))
    estimate = med - band_median
    low, high = bootstrap_ci(d, b, replicates, seed)
    return PairStats(len(d), med, q1, q3, band_median, estimate, low, high, verdict(estimate, low, high))


def seed_band(vr: dict[tuple[str, int], float], variants: tuple[str, str], base_seed: int) -> float | None:
    """``band_i`` for one instance: median |VR(v, s) − VR(v, s0)| over both variants and other seeds."""
    diffs = [abs(value - vr[(v, base_seed)]) for (v, s), value in vr.items()
             if v in variants and s != base_seed and (v, base_seed) in vr]
    return float(np.median(diffs)) if diffs else None
