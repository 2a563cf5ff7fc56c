"""Load-imbalance calibration (χ): group-targeted work scaling of a realised world.

χ = std_g(ρ_g) / mean_g(ρ_g) depends only on the group loads ρ_g = X_g / (H Σ_{m∈g} v_m). Of the
operators the issue names, job-mix reweighting and route-template resampling move whole jobs or
routes, so they shift c_a², τ and ρ together and reach only the loads the 3 families' routes can
mix (3 shares for 4 groups: χ* = 0 is in general out of reach); **group-targeted rate correction**
reaches any χ* exactly with total work — hence ρ — unchanged, which is why it is the one built:

    ρ'_g = b (ρ̄ + a (ρ_g − ρ̄)),   a = χ*/χ,   b such that Σ_g C_g ρ'_g = Σ_g C_g ρ_g

(ρ̄ the unweighted group mean, C_g the group capacity; the affine map scales the standard deviation by
a and leaves the mean, so χ' = a χ = χ*; b restores the capacity-weighted mean ρ). Every duration of
an operation of group g is multiplied by f_g = ρ'_g / ρ_g, rounded per machine column to the
column's scaled integer sum (largest remainders, durations ≥ 1). When χ ≈ 0 and χ* > 0 the spread
direction is a random normal vector from the calibration stream.

Scaling changes c_p², τ and window loads; SESC repairs them afterwards with processing-time
resampling (which keeps every machine column sum, so the group loads and χ stay put), slack
scaling and bottleneck engineering.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from schedc.dynamic.generator import Draft
from schedc.dynamic.metrics import op_work_time

MIN_SHARE = 0.05  # no group is pushed below 5 % of the mean group load


def group_loads(d: Draft) -> tuple[np.ndarray, np.ndarray]:
    """(ρ_g, C_g) of the realised jobs: group utilisation and group capacity (work units)."""
    arrays = d.arrays()
    work, _ = op_work_time(arrays)
    groups = len(d.group_names)
    capacity = d.horizon * np.bincount(d.machine_group, weights=d.speeds, minlength=groups)
    return np.bincount(arrays.op_group, weights=work, minlength=groups) / capacity, capacity


def target_loads(rho: np.ndarray, capacity: np.ndarray, chi: float, rng: np.random.Generator) -> np.ndarray:
    """ρ'_g with CV ``chi`` and the same capacity-weighted mean (module docstring)."""
    mean = float(rho.mean())
    spread = rho - mean
    if float(rho.std()) < 1e-9 * max(mean, 1e-12):
        spread = rng.standard_normal(len(rho)) * mean
    spread = spread / float(spread.std()) * chi * mean
    shaped = np.maximum(mean + spread, MIN_SHARE * mean)
    return shaped * float(capacity @ rho) / float(capacity @ shaped)


def rebalance_groups(d: Draft, chi: float, rng: np.random.Generator) -> Draft:
    """The draft with every group's durations scaled so that the group loads have CV ``chi``."""
    rho, capacity = group_loads(d)
    if not rho.mean() > 0:
        return d
    factor = target_loads(rho, capacity, chi, rng) / np.where(rho > 0, rho, 1.0)
    live = d.cancel[d.op_job] < 0
    dur = d.dur.copy()
    for g, f in enumerate(factor):
        rows = np.flatnonzero(live & (d.op_group == g))
        if not len(rows) or abs(f - 1) < 1e-12:
            continue
        for m in np.flatnonzero((d.dur[rows] > 0).any(axis=0)):
            eligible = rows[d.dur[rows, m] > 0]
            column = d.dur[eligible, m].astype(float) * f
            total = max(int(round(column.sum())), len(eligible))
            dur[eligible, m] = _rounded(np.maximum(column, 1.0), total)
    return replace(d, dur=dur)


def _rounded(y: np.ndarray, total: int) -> np.ndarray:
    """Integers ≥ 1 close to ``y`` (values ≥ 1) summing to ``total``: scale the part above 1, then
    round by largest remainders."""
    excess = y - 1
    if excess.sum() > 0:
        y = 1 + excess * (total - len(y)) / excess.sum()
    low = np.floor(y).astype(np.int64)
    low[np.argsort(-(y - low), kind="stable")[:total - int(low.sum())]] += 1
    return low
