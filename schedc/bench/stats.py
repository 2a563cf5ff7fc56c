"""Statistics of SCHEDBench §4.3: paired |ΔVR| between variants against the pooled seed band B.

For one model, a base seed ``s0`` (the first seed of the design) and two variants ``a`` and ``b``:

* ``|ΔVR|_i = |VR_i(a, s0) − VR_i(b, s0)|`` for every instance ``i`` where both answers have a
  violation rate — how much the answer moves when the rendering changes from ``a`` to ``b``;
* the **seed band** ``B`` pools ``δ = |VR_i(c, s) − VR_i(c, s′)|`` over *every* instance and
  *every* pair of seeds ``s < s′`` of the reseeded condition ``c`` (a variant rendered with more
  than one seed; in the paper's seed design ``c ∈ {v2, v3A, v3B}``) into one distribution — how
  much the answer moves when only the seed of the rendering changes (the noise). The conditions
  pooled for a pair are the reseeded ones among ``{a, b}``; when neither is reseeded (``v1`` vs
  ``v4``) all reseeded conditions are pooled;
* the effect ``d = median(|ΔVR|) − median(B)``, with a 95 % percentile bootstrap confidence
  interval from :func:`scipy.stats.bootstrap` with ``paired=True``: instances are resampled with
  replacement and each drawn instance brings its |ΔVR| *and* its δ values, so only instances that
  have both take part (``n``); ``BOOTSTRAP_REPLICATES`` resamples from
  ``numpy.random.default_rng(BOOTSTRAP_SEED)``. The percentile method is used because medians
  of violation rates are discrete: BCa's jackknife acceleration is undefined (NaN) on such data.

The |ΔVR| distribution (median, quartiles) is reported over every instance with a |ΔVR|
(``n_delta``), the band over every δ (``band_n``); the estimate and its CI over the ``n``
paired instances.

Verdicts (is the variant effect larger than the seed noise?), checked in this order:

* ``no`` — the effect and the band are identically zero (every |ΔVR| and every δ of the paired
  instances is 0): the variant changes nothing and neither does the seed;
* ``yes`` — the CI lies entirely above 0 (low > 0);
* ``near`` — the CI straddles 0 (low ≤ 0 ≤ high) with its lower bound above −IQR(B);
* ``no (< noise)`` — everything else: the CI lies below 0, or reaches −IQR(B) or further;
* ``n/a`` — no instance has both a |ΔVR| and a δ.

Feasibility rates carry 95 % Wilson score intervals (:func:`wilson`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

BOOTSTRAP_SEED = 20240917
BOOTSTRAP_REPLICATES = 9999
LEVEL = 0.95


@dataclass(frozen=True)
class PairStats:
    """The |ΔVR| summary of one variant pair (definitions in the module docstring)."""

    n: int
    n_delta: int
    delta_median: float | None
    delta_q1: float | None
    delta_q3: float | None
    band_n: int
    band_median: float | None
    band_q1: float | None
    band_q3: float | None
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    verdict: str

    @property
    def delta_iqr(self) -> float | None:
        return _iqr(self.delta_q1, self.delta_q3)

    @property
    def band_iqr(self) -> float | None:
        return _iqr(self.band_q1, self.band_q3)


def _iqr(q1: float | None, q3: float | None) -> float | None:
    return None if q1 is None or q3 is None else q3 - q1


def quartiles(values: Sequence[float]) -> tuple[float | None, float | None, float | None]:
    """(Q1, median, Q3) with numpy's linear interpolation; Nones for no values."""
    if len(values) == 0:
        return None, None, None
    q1, med, q3 = np.quantile(np.asarray(values, dtype=float), [0.25, 0.5, 0.75])
    return float(q1), float(med), float(q3)


def wilson(successes: int, n: int, level: float = LEVEL) -> tuple[float | None, float | None]:
    """The Wilson score interval of a proportion ``successes / n`` at ``level`` (Nones when n = 0), from
    :meth:`scipy.stats.binomtest`'s ``proportion_ci(method="wilson")`` (without continuity correction)."""
    if n <= 0:
        return None, None
    from scipy.stats import binomtest

    interval = binomtest(successes, n).proportion_ci(confidence_level=level, method="wilson")
    return float(interval.low), float(interval.high)


def seed_deltas(vr: Mapping[tuple[str, int], float], conditions: Sequence[str], seeds: Sequence[int]) -> list[float]:
    """The δ of one instance: |VR(c, s) − VR(c, s′)| for every condition and seed pair s < s′ present."""
    return [abs(vr[(c, s)] - vr[(c, t)]) for c in conditions for s, t in itertools.combinations(seeds, 2)
            if (c, s) in vr and (c, t) in vr]


def band_conditions(pair: tuple[str, str], reseeded: Sequence[str]) -> list[str]:
    """The conditions whose δ form the band of ``pair`` (the reseeded variants of the pair, else all)."""
    own = [c for c in reseeded if c in pair]
    return own or list(reseeded)


def _statistic(delta: np.ndarray, *band: np.ndarray, axis: int = -1) -> np.ndarray:
    """median(delta) − nanmedian(pooled band columns) along ``axis`` (vectorised for scipy)."""
    delta = np.moveaxis(delta, axis, -1)
    pooled = np.stack([np.moveaxis(b, axis, -1) for b in band], axis=-1)
    pooled = pooled.reshape(*pooled.shape[:-2], -1)
    return np.median(delta, axis=-1) - np.nanmedian(pooled, axis=-1)


def paired_bootstrap(delta: Sequence[float], bands: Sequence[Sequence[float]],
                     replicates: int = BOOTSTRAP_REPLICATES, seed: int = BOOTSTRAP_SEED,
                     level: float = LEVEL) -> tuple[float, float]:
    """Percentile CI of median(|ΔVR|) − median(pooled δ), resampling instances (paired).

    ``bands[i]`` are the δ values of instance ``i`` (at least one); instances with fewer δ are
    padded with NaN, which the pooled median ignores.
    """
    from scipy.stats import bootstrap

    width = max(len(b) for b in bands)
    matrix = np.full((len(bands), width), np.nan)
    for row, values in enumerate(bands):
        matrix[row, :len(values)] = values
    data = (np.asarray(delta, dtype=float), *matrix.T)
    if len(delta) < 2:  # one instance: every resample is that instance
        value = float(_statistic(*data))
        return value, value
    result = bootstrap(data, _statistic, paired=True, vectorized=True, n_resamples=replicates,
                       confidence_level=level, method="percentile", random_state=np.random.default_rng(seed),
                       batch=max(1, 2_000_000 // max(1, len(delta) * (width + 1))))
    low, high = result.confidence_interval
    return float(low), float(high)


def verdict(estimate: float, low: float, high: float, band_iqr: float, identically_zero: bool) -> str:
    """``no`` / ``yes`` / ``near`` / ``no (< noise)`` as defined in the module docstring."""
    if identically_zero:
        return "no"
    if low > 0:
        return "yes"
    if low <= 0 <= high and low > -band_iqr:
        return "near"
    return "no (< noise)"


def pair_stats(instances: Sequence[tuple[float | None, Sequence[float]]], replicates: int = BOOTSTRAP_REPLICATES,
               seed: int = BOOTSTRAP_SEED) -> PairStats:
    """Summary and verdict from per-instance (|ΔVR| or None, δ values) of one variant pair."""
    deltas = [d for d, _ in instances if d is not None]
    band = [x for _, b in instances for x in b]
    paired = [(d, list(b)) for d, b in instances if d is not None and len(b)]
    dq1, dmed, dq3 = quartiles(deltas)
    bq1, bmed, bq3 = quartiles(band)
    empty = PairStats(0, len(deltas), dmed, dq1, dq3, len(band), bmed, bq1, bq3, None, None, None, "n/a")
    if not paired:
        return empty
    pdelta = [d for d, _ in paired]
    pbands = [b for _, b in paired]
    pooled = [x for b in pbands for x in b]
    estimate = float(np.median(pdelta) - np.median(pooled))
    low, high = paired_bootstrap(pdelta, pbands, replicates, seed)
    zero = not any(pdelta) and not any(pooled)
    band_iqr = (bq3 or 0.0) - (bq1 or 0.0)
    return PairStats(len(paired), len(deltas), dmed, dq1, dq3, len(band), bmed, bq1, bq3, estimate, low, high,
                     verdict(estimate, low, high, band_iqr, zero))
