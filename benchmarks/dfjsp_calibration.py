"""DFJSP calibration: uncalibrated generator vs SESC vs parameter-space random search, on a grid.

For every point of the grid configuration (default ``examples/dfjsp/grid.toml``, 54 points) the
world is generated three ways — plain generator, SESC (:mod:`schedc.dynamic.calibrate`) and the
random-search baseline (:mod:`schedc.dynamic.baseline`, ``--budget`` evaluations) — and its error
vector against the point's targets is measured. Prints a markdown table of the median L2 error,
strict and relaxed success rates and the median wall time per instance (generation included), then
the baseline/SESC ratios. Issue targets for SESC: median L2 ≤ 0.054, median time ≤ 0.2 s.

    python benchmarks/dfjsp_calibration.py [CONFIG] [--budget 40] [--limit N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schedc.dynamic.baseline import random_search  # noqa: E402
from schedc.dynamic.calibrate import calibrate  # noqa: E402
from schedc.dynamic.config import ConfigPoint, expand, load_config  # noqa: E402
from schedc.dynamic.generator import generate  # noqa: E402
from schedc.dynamic.metrics import compute_metrics, error_vector, l2_error, within  # noqa: E402

Row = tuple[float, bool, bool, float]


def uncalibrated(point: ConfigPoint) -> Row:
    began = time.perf_counter()
    world = generate(point)
    errors = error_vector(compute_metrics(world, point.targets.bottlenecks), point.targets)
    tol = point.calibrate.tolerance
    return l2_error(errors), within(errors, tol), within(errors, 2 * tol), time.perf_counter() - began


def sesc(point: ConfigPoint) -> Row:
    _, report = calibrate(point)
    return report.l2_after, report.strict, report.relaxed, report.runtime


def baseline(budget: int) -> Callable[[ConfigPoint], Row]:
    def run(point: ConfigPoint) -> Row:
        _, report = random_search(point, budget)
        return report.l2_after, report.strict, report.relaxed, report.runtime
    return run


def summary(rows: list[Row]) -> tuple[float, float, float, float]:
    """(median L2, strict rate, relaxed rate, median seconds)."""
    return (statistics.median(r[0] for r in rows), sum(r[1] for r in rows) / len(rows),
            sum(r[2] for r in rows) / len(rows), statistics.median(r[3] for r in rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", nargs="?", default=str(ROOT / "examples" / "dfjsp" / "grid.toml"))
    parser.add_argument("--budget", type=int, default=40, help="baseline evaluations per instance")
    parser.add_argument("--limit", type=int, default=0, help="only the first N grid points (0 = all)")
    args = parser.parse_args()
    points = expand(load_config(args.config))
    if args.limit:
        points = points[:args.limit]
    methods = {"uncalibrated": uncalibrated, "SESC": sesc, f"baseline (random search, {args.budget} evals)":
               baseline(args.budget)}
    results = {name: summary([run(p) for p in points]) for name, run in methods.items()}
    print(f"{len(points)} instances of {Path(args.config).name}, tolerance {points[0].calibrate.tolerance}\n")
    print("| method | median L2 | strict success | relaxed success | median time (s) |")
    print("|---|---:|---:|---:|---:|")
    for name, (l2, strict, relaxed, seconds) in results.items():
        print(f"| {name} | {l2:.4f} | {strict:.0%} | {relaxed:.0%} | {seconds:.4f} |")
    ours, theirs = results["SESC"], list(results.values())[2]
    print(f"\nbaseline / SESC: median L2 × {theirs[0] / max(ours[0], 1e-12):.2f}, "
          f"median time × {theirs[3] / ours[3]:.2f}")


if __name__ == "__main__":
    main()
