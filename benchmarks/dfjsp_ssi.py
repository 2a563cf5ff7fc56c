"""Does the Schedule Stress Index predict how much dispatching matters? (§6.4 and Appendix I)

On random DynaSched-Grid points (:mod:`benchmarks.dfjsp_grid`, SESC-calibrated, makespan) every
world is simulated under all 24 composite rules. Outcome difficulty is the gap between a random rule
(drawn per instance from the 24 with a seeded generator) and the best rule,
``makespan(random) − makespan(best)``; the mean over the rules and the relative gaps are shown too.

* **Outcome validation** (§6.4): Spearman ρ of SSI with each gap, 95 % interval from
  ``scipy.stats.bootstrap`` (BCa, 2,000 resamples, seeded), and the mean gap of the bottom vs the
  top SSI quintile.
* **Robustness** (Appendix I): the four component weights perturbed (each × U[0.8, 1.2], 50 draws)
  and the normalisers C_max, P_max, K_max, S_max swept × {0.5, 2}; for each variant the Spearman
  and Kendall correlation of its SSI with the default SSI, the mean absolute shift of an instance's
  SSI decile, and the variant's own Spearman ρ with the outcome gap. The normaliser choice in
  docs/dynamic.md rests on these figures.
* The tier counts (easy/medium/hard, :data:`schedc.dynamic.ssi.TIER_CUTS`) and the SSI range.

    python benchmarks/dfjsp_ssi.py [--points 60] [--seed 0]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import msgspec
import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.dfjsp_grid import grid_sample  # noqa: E402
from schedc.dynamic.calibrate import calibrate  # noqa: E402
from schedc.dynamic.metrics import Metrics, compute_metrics  # noqa: E402
from schedc.dynamic.rules import RULE_NAMES, simulate  # noqa: E402
from schedc.dynamic.simulator import Simulator  # noqa: E402
from schedc.dynamic.ssi import SsiNormalisers, stress_index, tier  # noqa: E402


def measure(points: int, seed: int) -> tuple[list[Metrics], dict[str, np.ndarray]]:
    """Per instance: its metrics, and the outcome gaps."""
    rng = np.random.default_rng(seed)
    metrics, gaps = [], {"random − best": [], "mean − best": [], "(random − best)/best": []}
    for point in grid_sample(points, seed):
        world, _ = calibrate(point)
        metrics.append(compute_metrics(world))
        sim = Simulator(world)
        spans = [simulate(sim, rule).makespan for rule in RULE_NAMES]
        best, pick = min(spans), spans[int(rng.integers(len(spans)))]
        gaps["random − best"].append(pick - best)
        gaps["mean − best"].append(statistics.fmean(spans) - best)
        gaps["(random − best)/best"].append((pick - best) / best)
    return metrics, {k: np.array(v, dtype=float) for k, v in gaps.items()}


def index(metrics: list[Metrics], norm: SsiNormalisers, weights: np.ndarray | None = None) -> np.ndarray:
    """The SSI of every instance with these normalisers and component weights (default equal)."""
    w = np.ones(4) if weights is None else weights
    return np.array([100 * float(np.dot(stress_index(m, norm).normalised, w)) / float(w.sum()) for m in metrics])


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    return float(stats.spearmanr(x, y).statistic)


def interval(x: np.ndarray, y: np.ndarray, seed: int) -> tuple[float, float]:
    found = stats.bootstrap((x, y), spearman, paired=True, vectorized=False, n_resamples=2000,
                            method="BCa", random_state=np.random.default_rng(seed))
    return float(found.confidence_interval.low), float(found.confidence_interval.high)


def deciles(values: np.ndarray) -> np.ndarray:
    return np.minimum((stats.rankdata(values) - 1) * 10 // len(values), 9)


def quintile_gap(ssi: np.ndarray, gap: np.ndarray) -> tuple[float, float]:
    order = np.argsort(ssi, kind="stable")
    k = max(1, len(ssi) // 5)
    return float(gap[order[:k]].mean()), float(gap[order[-k:]].mean())


def robustness(metrics: list[Metrics], base: np.ndarray, gap: np.ndarray, seed: int) -> None:
    rng = np.random.default_rng(seed)
    default = SsiNormalisers()
    variants: list[tuple[str, np.ndarray]] = []
    weights = [index(metrics, default, rng.uniform(0.8, 1.2, 4)) for _ in range(50)]
    for field in ("c_max", "p_max", "k_max", "s_max"):
        for factor in (0.5, 2.0):
            norm = msgspec.structs.replace(default, **{field: getattr(default, field) * factor})
            variants.append((f"{field} × {factor:g}", index(metrics, norm)))
    print("\n| variant | Spearman with default SSI | Kendall | mean |decile shift| | Spearman with random − best |")
    print("|---|---:|---:|---:|---:|")
    rows = [("weights × U[0.8, 1.2] (50 draws, mean)", w) for w in weights[:1]]
    shift = statistics.fmean(float(np.abs(deciles(w) - deciles(base)).mean()) for w in weights)
    rho = statistics.fmean(spearman(w, base) for w in weights)
    tau = statistics.fmean(float(stats.kendalltau(w, base).statistic) for w in weights)
    outcome = statistics.fmean(spearman(w, gap) for w in weights)
    print(f"| {rows[0][0]} | {rho:.3f} | {tau:.3f} | {shift:.2f} | {outcome:.3f} |")
    for name, values in variants:
        print(f"| {name} | {spearman(values, base):.3f} | {stats.kendalltau(values, base).statistic:.3f} | "
              f"{np.abs(deciles(values) - deciles(base)).mean():.2f} | {spearman(values, gap):.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    began = time.perf_counter()
    metrics, gaps = measure(args.points, args.seed)
    ssi = index(metrics, SsiNormalisers())
    print(f"{len(ssi)} Grid instances, 24 rules each, {time.perf_counter() - began:.0f} s\n")
    print("| difficulty | Spearman ρ with SSI | 95 % BCa interval | mean, bottom SSI quintile | top quintile |")
    print("|---|---:|---|---:|---:|")
    for name, gap in gaps.items():
        low, high = interval(ssi, gap, args.seed)
        bottom, top = quintile_gap(ssi, gap)
        print(f"| {name} | {spearman(ssi, gap):.3f} | [{low:.3f}, {high:.3f}] | {bottom:.3g} | {top:.3g} |")
    tiers = [tier(v) for v in ssi]
    print(f"\nSSI range {ssi.min():.1f}–{ssi.max():.1f}, median {np.median(ssi):.1f}, terciles "
          f"{np.percentile(ssi, 33.3):.1f} / {np.percentile(ssi, 66.7):.1f}; tiers: "
          + ", ".join(f"{t} {tiers.count(t)}" for t in ("easy", "medium", "hard")))
    robustness(metrics, ssi, gaps["random − best"], args.seed)


if __name__ == "__main__":
    main()
