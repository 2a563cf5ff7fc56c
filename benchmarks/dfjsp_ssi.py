"""Does the Schedule Stress Index predict how much dispatching matters?

For every point of a grid configuration (default ``examples/dfjsp/grid.toml``, 54 points) the
SESC-calibrated world is simulated under all 24 composite rules. Outcome difficulty is the gap
between a random rule and the best rule, ``makespan(random) − makespan(best)`` (the random rule
is drawn per instance from the 24 with a seeded generator; the mean over the 24 rules and the
mean of three rollouts of random dispatching (``RANDOM``: a random admissible decision each time)
are less noisy variants, and the gaps are also shown relative to the best makespan). Prints the Spearman rank
correlation of each with the SSI, with a bootstrap 95 % interval, and the per-instance table with
``--table``.

    python benchmarks/dfjsp_ssi.py [CONFIG] [--limit N] [--seed 0] [--table]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schedc.dynamic.api import points_of  # noqa: E402
from schedc.dynamic.calibrate import realise  # noqa: E402
from schedc.dynamic.metrics import compute_metrics  # noqa: E402
from schedc.dynamic.rules import RULE_NAMES, simulate  # noqa: E402
from schedc.dynamic.ssi import stress_index  # noqa: E402


def ranks(values: np.ndarray) -> np.ndarray:
    """Average ranks (ties share the mean of their positions)."""
    order = np.argsort(values, kind="stable")
    ranked = np.empty(len(values))
    ranked[order] = np.arange(1, len(values) + 1)
    for value in np.unique(values):
        tied = values == value
        ranked[tied] = ranked[tied].mean()
    return ranked


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation of the ranks."""
    return float(np.corrcoef(ranks(x), ranks(y))[0, 1])


def bootstrap(x: np.ndarray, y: np.ndarray, rng: np.random.Generator, draws: int = 2000) -> tuple[float, float]:
    """Percentile 95 % interval of Spearman's ρ over resampled instances."""
    n = len(x)
    values = []
    for _ in range(draws):
        pick = rng.integers(0, n, n)
        if len(np.unique(x[pick])) > 1 and len(np.unique(y[pick])) > 1:
            values.append(spearman(x[pick], y[pick]))
    return float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))


def measure(config: Path, limit: int | None, seed: int) -> list[dict[str, float | str]]:
    rng = np.random.default_rng(seed)
    rows = []
    for point in points_of(config, calibrate=True, limit=limit):
        world, _report = realise(point)
        index = stress_index(compute_metrics(world, point.targets.bottlenecks))
        ssi = index.index
        makespans = {rule: simulate(world, rule).makespan for rule in RULE_NAMES}
        best = min(makespans.values())
        random_rule = RULE_NAMES[int(rng.integers(len(RULE_NAMES)))]
        mean = statistics.fmean(makespans.values())
        dispatch = statistics.fmean(simulate(world, "RANDOM", seed=k).makespan for k in range(3))
        rows.append({"instance": world.name, "ssi": ssi, "congestion": index.congestion, "pressure": index.pressure,
                     "best": best, "random_rule": random_rule,
                     "random_gap": makespans[random_rule] - best, "mean_gap": mean - best,
                     "dispatch_gap": dispatch - best,
                     "random_rel": (makespans[random_rule] - best) / best, "mean_rel": (mean - best) / best})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", nargs="?", type=Path, default=ROOT / "examples" / "dfjsp" / "grid.toml")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--table", action="store_true", help="print the per-instance rows")
    args = parser.parse_args()
    began = time.perf_counter()
    rows = measure(args.config, args.limit, args.seed)
    elapsed = time.perf_counter() - began
    ssi = np.array([r["ssi"] for r in rows], dtype=float)
    rng = np.random.default_rng(args.seed + 1)
    print(f"{len(rows)} instances, 24 rules each, {elapsed:.1f} s in all\n")
    print("| difficulty | Spearman ρ with SSI | 95 % bootstrap interval |")
    print("|---|---:|---|")
    for key, label in (("random_gap", "makespan(random rule) − best"), ("mean_gap", "mean over rules − best"),
                       ("dispatch_gap", "random dispatching (3 seeds) − best"),
                       ("random_rel", "(random − best) / best"), ("mean_rel", "(mean − best) / best")):
        values = np.array([r[key] for r in rows], dtype=float)
        low, high = bootstrap(ssi, values, rng)
        print(f"| {label} | {spearman(ssi, values):.3f} | [{low:.3f}, {high:.3f}] |")
    mean_gap = np.array([r["mean_gap"] for r in rows], dtype=float)
    for key in ("congestion", "pressure"):
        component = np.array([r[key] for r in rows], dtype=float)
        print(f"| (component {key} alone vs mean over rules − best) | {spearman(component, mean_gap):.3f} | |")
    print(f"\nSSI range {ssi.min():.1f}–{ssi.max():.1f}, median {np.median(ssi):.1f}")
    if args.table:
        print("\n| instance | SSI | best | random rule | random − best | mean − best |")
        print("|---|---:|---:|---|---:|---:|")
        for r in rows:
            print(f"| {r['instance']} | {r['ssi']:.1f} | {r['best']} | {r['random_rule']} | {r['random_gap']} | "
                  f"{r['mean_gap']:.1f} |")


if __name__ == "__main__":
    main()
