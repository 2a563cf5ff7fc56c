"""DFJSP calibration on a sample of the DynaSched-Grid: generator vs SESC vs the parameter-space baselines.

Every method calibrates the same random Grid points (:mod:`benchmarks.dfjsp_grid`: 10 machines in
4 groups, 3 families of route length 4, N_J = 200, χ* targeted, each point with its own seed):

* the uncalibrated generator;
* SESC with impact-vector strategy choice (``selection = "impact"``, the default) and with every
  operator tried each step (``"exhaustive"``);
* the random-search baseline (:mod:`schedc.dynamic.baseline`, ``--budget`` evaluations);
* MOO (12-D) and Hybrid (5-D) NSGA-II (:mod:`schedc.dynamic.moo`, needs pymoo) on the first
  ``--moo-points`` points (they cost 2,400 / 4,000 generator runs per point); with ``--moo-minutes M``
  they instead take the points in order, MOO then Hybrid on each, until M minutes of wall time have
  been spent on them (a point is started only while the budget lasts, so both cover the same points;
  each point's seconds go to stderr);
* the authors' package ``dsbx`` when it is installed (``pip install dsbx==0.4.0``; not a project
  dependency), driven by :mod:`benchmarks.dfjsp_dsbx` on the same points and seeds, its final
  metrics scored by the same :mod:`schedc.dynamic.success` functions (``--no-dsbx`` skips it).

Per method: the paper's normalised L2 ‖m* − m^obs‖/‖m*‖ (median, P25, P75), its strict and relaxed
success (per-metric tolerances θ_l, :mod:`schedc.dynamic.success`), schedc's own strict success
(every relative error ≤ 5 %), the median wall time per instance (generation included) and the
ratios to SESC measured in the same run. Issue targets: strict ≥ 90 % with χ, median normalised
L2 ≤ 0.02, runtime ≤ dsbx.

    python benchmarks/dfjsp_calibration.py [--points 60] [--seed 0] [--moo-points 10 | --moo-minutes 35]
                                           [--generations 40]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.dfjsp_grid import grid_sample  # noqa: E402
from schedc.dynamic.baseline import random_search  # noqa: E402
from schedc.dynamic.calibrate import CalibrationReport, calibrate  # noqa: E402
from schedc.dynamic.config import ConfigPoint  # noqa: E402
from schedc.dynamic.generator import draft  # noqa: E402
from schedc.dynamic.metrics import error_vector, metrics_from_arrays, within  # noqa: E402
from schedc.dynamic.success import normalised_l2, success  # noqa: E402

Row = tuple[float, bool, bool, bool, float]  # normalised L2, paper strict, paper relaxed, 5 % strict, seconds


def uncalibrated(point: ConfigPoint) -> Row:
    began = time.perf_counter()
    errors = error_vector(metrics_from_arrays(draft(point).arrays()), point.targets)
    strict, relaxed = success(errors, point.targets)
    return normalised_l2(errors, point.targets), strict, relaxed, within(errors, 0.05), time.perf_counter() - began


def row(report: CalibrationReport) -> Row:
    return (report.normalised_l2_after, report.paper_strict, report.paper_relaxed, report.strict, report.runtime)


def sesc(selection: str) -> Callable[[ConfigPoint], Row]:
    def run(point: ConfigPoint) -> Row:
        options = msgspec.structs.replace(point.calibrate, selection=selection)
        return row(calibrate(msgspec.structs.replace(point, calibrate=options))[1])
    return run


def baseline(budget: int) -> Callable[[ConfigPoint], Row]:
    return lambda point: row(random_search(point, budget)[1])


def nsga(kind: str, generations: int) -> Callable[[ConfigPoint], Row]:
    from schedc.dynamic.moo import NsgaOptions, hybrid_calibrate, moo_calibrate

    population, run = (60, moo_calibrate) if kind == "moo" else (100, hybrid_calibrate)
    return lambda point: row(run(point, NsgaOptions(population=population, generations=generations))[1])


def budgeted(methods: dict[str, Callable[[ConfigPoint], Row]], points: list[ConfigPoint],
             minutes: float) -> dict[str, list[Row]]:
    """Each method on each point in turn, point after point, while ``minutes`` of wall time last."""
    rows: dict[str, list[Row]] = {name: [] for name in methods}
    began = time.perf_counter()
    for point in points:
        if time.perf_counter() - began >= minutes * 60:
            break
        for name, run in methods.items():
            rows[name].append(run(point))
            print(f"{name} on {point.name}: {rows[name][-1][4]:.1f} s", file=sys.stderr, flush=True)
    return rows


def authors(point: ConfigPoint) -> Row:
    from benchmarks.dfjsp_dsbx import dsbx_calibrate

    errors, seconds = dsbx_calibrate(point)
    strict, relaxed = success(errors, point.targets)
    return normalised_l2(errors, point.targets), strict, relaxed, within(errors, 0.05), seconds


def summary(rows: list[Row]) -> dict[str, float]:
    l2 = np.array([r[0] for r in rows])
    return {"n": len(rows), "median": float(np.median(l2)), "p25": float(np.percentile(l2, 25)),
            "p75": float(np.percentile(l2, 75)), "strict": sum(r[1] for r in rows) / len(rows),
            "relaxed": sum(r[2] for r in rows) / len(rows), "own": sum(r[3] for r in rows) / len(rows),
            "seconds": statistics.median(r[4] for r in rows)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0, help="which random Grid points")
    parser.add_argument("--budget", type=int, default=40, help="random-search evaluations per instance")
    parser.add_argument("--moo-points", type=int, default=10, help="MOO/Hybrid on the first N points (0: skip)")
    parser.add_argument("--moo-minutes", type=float, default=0.0,
                        help="instead of --moo-points: MOO/Hybrid point after point for this many minutes")
    parser.add_argument("--generations", type=int, default=40)
    parser.add_argument("--no-dsbx", action="store_true", help="skip the authors' package even if installed")
    args = parser.parse_args()
    points = grid_sample(args.points, args.seed)
    methods: dict[str, tuple[Callable[[ConfigPoint], Row], list[ConfigPoint]]] = {
        "generator (uncalibrated)": (uncalibrated, points),
        "SESC (impact vectors + φ)": (sesc("impact"), points),
        "SESC (every operator each step)": (sesc("exhaustive"), points),
        f"random search ({args.budget} evals)": (baseline(args.budget), points),
    }
    nsgas = {"MOO 12-D NSGA-II (pop 60)": nsga("moo", args.generations),
             "Hybrid 5-D NSGA-II (pop 100) + SESC": nsga("hybrid", args.generations)}
    if args.moo_points and not args.moo_minutes:
        methods.update({name: (run, points[:args.moo_points]) for name, run in nsgas.items()})
    from benchmarks.dfjsp_dsbx import available

    if not args.no_dsbx and available():
        methods["dsbx 0.4.0 (authors' sequential SESC)"] = (authors, points)
    results = {}
    for name, (run, chosen) in methods.items():
        results[name] = summary([run(p) for p in chosen])
        print(f"done: {name}", file=sys.stderr, flush=True)
    if args.moo_minutes:
        results.update({name: summary(rows) for name, rows in budgeted(nsgas, points, args.moo_minutes).items()})
    print(f"{len(points)} random DynaSched-Grid points (seed {args.seed}), χ targeted\n")
    print("| method | n | norm. L2 median | P25 | P75 | strict (θ_l) | relaxed (L2 ≤ 0.1) | all ≤ 5 % | "
          "median s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, s in results.items():
        print(f"| {name} | {s['n']} | {s['median']:.4f} | {s['p25']:.4f} | {s['p75']:.4f} | {s['strict']:.0%} | "
              f"{s['relaxed']:.0%} | {s['own']:.0%} | {s['seconds']:.3f} |")
    ours = results["SESC (impact vectors + φ)"]
    print("\nratios to SESC (impact): ")
    for name, s in results.items():
        print(f"- {name}: median norm. L2 × {s['median'] / max(ours['median'], 1e-12):.2f}, "
              f"median time × {s['seconds'] / ours['seconds']:.2f}")


if __name__ == "__main__":
    main()
