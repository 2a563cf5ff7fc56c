"""Calibration results in the layout of DynaSchedBench's calibration tables, beside the paper's numbers.

A calibration *row* is what ``schedc calibrate --json`` prints (and ``--resume`` keeps): the point's
name and one :class:`~schedc.dynamic.calibrate.CalibrationReport` (as a dict) per method. The
error figure throughout is the paper's normalised L2 ‖m* − m^obs‖₂ / ‖m*‖₂ of the final world
(``normalised_l2_after``, :mod:`schedc.dynamic.success`); runtimes are the report's wall seconds
(generation included).

* **Table 1** (§4.1): per method, the quartiles (median, P25, P75) of the L2 and of the runtime over
  every calibration, and over grid points the quartiles of the mean and of the standard deviation
  (ddof = 1) of the L2 across the point's seeds — points calibrated under fewer than two seeds are
  left out of the seed columns.
* **Appendix E**: the shares of runs that meet the relaxed criterion (e-1) and the strict one (e-2).
* **Table g-3**: an ablation's mean and p90 deltas — mean(L2 without) − mean(L2 full) and
  p90(L2 without) − p90(L2 full), over the points both ran (positive is worse).

Quantiles are numpy's default (linear interpolation between order statistics).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

Quartiles = tuple[float, float, float]  # median, P25, P75

# The paper's Table 1 (§4.1): L2, runtime (s), mean and std of L2 across seeds; (median, P25, P75) each.
PAPER_TABLE1: dict[str, dict[str, Quartiles]] = {
    "SESC": {"l2": (0.0539, 0.0362, 0.0829), "runtime": (0.2, 0.1, 1.1),
             "seed_mean": (0.0524, 0.0508, 0.0602), "seed_std": (0.0236, 0.0203, 0.0352)},
    "MOO": {"l2": (0.0826, 0.0491, 0.1719), "runtime": (57.9, 12.4, 181.3),
            "seed_mean": (0.1049, 0.0966, 0.2217), "seed_std": (0.1532, 0.1068, 0.1804)},
    "Hybrid": {"l2": (0.0595, 0.0329, 0.1082), "runtime": (185.8, 40.4, 611.5),
               "seed_mean": (0.0718, 0.0458, 0.1166), "seed_std": (0.0562, 0.0280, 0.0812)},
}
# Appendix E.2.2 (Fig. e-2): the rates the text states; the figure's other bars are not given as numbers.
PAPER_SUCCESS: dict[str, dict[str, float]] = {"SESC": {"relaxed": 0.84, "strict": 0.48}, "Hybrid": {"strict": 0.49}}
# Table g-3: (variant, mean delta, p90 delta).
PAPER_ABLATION: tuple[tuple[str, float, float], ...] = (
    ("No slack scaling", 0.0225, 0.0902),
    ("No bottleneck engineering", 0.0007, 0.0056),
    ("No due relax", -0.0002, 0.0045),
    ("No processing-time resample", -0.0077, 0.0011),
    ("No arrival structure", -0.0124, 0.0078),
    ("Minimal: arrival + due", 0.0036, 0.0528),
    ("Minimal: arrival + due + bottleneck", 0.0075, 0.0603),
    ("Minimal: arrival + due + processing", 0.0122, 0.0540),
)
# Each Table g-3 variant as the SESC operator families schedc leaves out (``calibrate.without``); None where
# schedc has no counterpart. "Due" is slack scaling: schedc moves due dates only through the allowances.
ABLATION_WITHOUT: dict[str, tuple[str, ...] | None] = {
    "No slack scaling": ("slack",),
    "No bottleneck engineering": ("bottleneck",),
    "No due relax": None,
    "No processing-time resample": ("processing",),
    "No arrival structure": ("arrival",),
    "Minimal: arrival + due": ("processing", "bottleneck", "imbalance"),
    "Minimal: arrival + due + bottleneck": ("processing", "imbalance"),
    "Minimal: arrival + due + processing": ("bottleneck", "imbalance"),
}

_SEEDED_NAME = re.compile(r"_s(\d+)_(\d+)$")


def quartiles(values: Sequence[float]) -> Quartiles:
    """(median, P25, P75) of ``values``."""
    p25, median, p75 = np.percentile(np.asarray(values, dtype=float), [25, 50, 75])
    return float(median), float(p25), float(p75)


def grid_key(name: str) -> tuple[int, int]:
    """(seed file, grid index) of a seeded grid point's name, ``<config>_s<K>_<index>``."""
    match = _SEEDED_NAME.search(name)
    if match is None:
        raise ValueError(f"not a seeded grid point name: {name!r}")
    return int(match.group(1)), int(match.group(2))


@dataclass(frozen=True)
class Table1Entry:
    """One method's Table 1 row and how many calibrations and multi-seed points it rests on."""

    l2: Quartiles
    runtime: Quartiles
    seed_mean: Quartiles | None
    seed_std: Quartiles | None
    runs: int
    points: int


def table1_entry(rows: Iterable[Mapping], method: str) -> Table1Entry:
    """The Table 1 row of ``method`` over grid rows named ``…_s<seed>_<index>`` (module docstring)."""
    by_point: dict[int, list[float]] = {}
    l2s, runtimes = [], []
    for row in rows:
        report = row.get(method)
        if report is None:
            continue
        l2s.append(report["normalised_l2_after"])
        runtimes.append(report["runtime"])
        by_point.setdefault(grid_key(row["instance"])[1], []).append(report["normalised_l2_after"])
    if not l2s:
        raise ValueError(f"no {method} calibration among the rows")
    seeded = [v for v in by_point.values() if len(v) >= 2]
    return Table1Entry(
        l2=quartiles(l2s), runtime=quartiles(runtimes),
        seed_mean=quartiles([float(np.mean(v)) for v in seeded]) if seeded else None,
        seed_std=quartiles([float(np.std(v, ddof=1)) for v in seeded]) if seeded else None,
        runs=len(l2s), points=len(seeded))


def success_rates(reports: Sequence[Mapping]) -> tuple[float, float]:
    """(strict, relaxed) shares of the reports that meet the paper's criteria (e-2, e-1)."""
    if not reports:
        raise ValueError("no calibration reports")
    return (sum(r["paper_strict"] for r in reports) / len(reports),
            sum(r["paper_relaxed"] for r in reports) / len(reports))


def ablation_deltas(full: Mapping[str, float], ablated: Mapping[str, float]) -> tuple[float, float, int]:
    """(mean delta, p90 delta, points) of an ablation's L2 per point against the full operator set's,
    over the points both have."""
    common = sorted(set(full) & set(ablated))
    if not common:
        raise ValueError("the ablation and the full set share no point")
    a = np.array([ablated[k] for k in common])
    f = np.array([full[k] for k in common])
    return float(a.mean() - f.mean()), float(np.percentile(a, 90) - np.percentile(f, 90)), len(common)


def outside_band(ours: float, paper: Quartiles) -> bool:
    """Whether ``ours`` lies outside the paper's P25–P75 band."""
    return not paper[1] <= ours <= paper[2]
