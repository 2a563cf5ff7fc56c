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

**The paper's Table 2 on its own configurations** (``--configs``; docs/dfjsp_table2.md). The points of
the given DynaSched configuration files (``examples/dfjsp/dynasched_grid_s*.toml``: Table c-1, the
Grid's 5 seeds; ``dynasched_sweep_*.toml``: §C.2) form two candidate pools, a file belonging to the
Grid or the Sweep pool by whether its name contains ``grid`` or ``sweep``. Every pool point is
calibrated (SESC, as the file says) and its driver metrics and SSI computed; ``--pool-limit N`` keeps a
seeded random N of a larger pool. As in Appendix H, DynaSched-Subset is then ``--grid-points`` instances
chosen from the Grid pool and ``--sweep-points`` from the Sweep pool by schedc's own farthest-point
k-center selection (:func:`schedc.dynamic.subset.feature_matrix` and
:func:`~schedc.dynamic.subset.k_center`, each pool on its own, so the SSI rank is within its dataset).
Each chosen instance is simulated under the 24 rules and under the random policy
(:class:`schedc.dynamic.rules.RandomPolicy`, a uniformly random admissible dispatch per decision, seeded
with the instance's seed). Δgap = C_max(random policy) − C_max(best fixed heuristic), the best fixed
heuristic being the single rule of least mean relative makespan over the subset (Table 5's "single
fixed rule, not a per-instance oracle"); two other readings are reported alongside, and with
``--random-runs R`` also the mean of R random-policy runs in place of the one run. Output: Spearman ρ
with its p-value, the bottom and top SSI quintile mean gaps with 95 % bootstrap intervals and their
difference with its interval (:func:`quintile_table`), in Table 2's layout.

    python benchmarks/dfjsp_ssi.py --configs examples/dfjsp/dynasched_grid_s*.toml \
        examples/dfjsp/dynasched_sweep_*.toml --grid-points 30 --sweep-points 40 [--save rows.json]
"""

from __future__ import annotations

import argparse
import json
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
from schedc.dynamic.config import ConfigPoint, expand, load_config  # noqa: E402
from schedc.dynamic.metrics import Metrics, compute_metrics  # noqa: E402
from schedc.dynamic.rules import RULE_NAMES, RandomPolicy, simulate  # noqa: E402
from schedc.dynamic.simulator import Simulator  # noqa: E402
from schedc.dynamic.ssi import SsiNormalisers, stress_index, tier  # noqa: E402
from schedc.dynamic.subset import DRIVERS, feature_matrix, k_center  # noqa: E402


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


class QuintileTable(msgspec.Struct, frozen=True, kw_only=True):
    """Table 2: mean gap of the bottom and top SSI quintiles and their difference, each with a 95 % CI."""

    bottom: float
    bottom_ci: tuple[float, float]
    top: float
    top_ci: tuple[float, float]
    difference: float
    difference_ci: tuple[float, float]
    size: int  # instances per quintile


def _mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis)


def _mean_difference(low: np.ndarray, high: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(high, axis=axis) - np.mean(low, axis=axis)


def quintile_table(ssi: np.ndarray, gap: np.ndarray, seed: int, resamples: int = 10_000) -> QuintileTable:
    """Bottom and top 20 % by SSI (``len // 5`` instances each, ties by input order), their mean gaps
    with percentile bootstrap intervals, and top − bottom with an interval from resampling the two
    groups independently (``scipy.stats.bootstrap``, ``resamples`` draws from a Generator seeded
    with ``seed``)."""
    order = np.argsort(ssi, kind="stable")
    k = max(2, len(ssi) // 5)
    low, high = np.asarray(gap, dtype=float)[order[:k]], np.asarray(gap, dtype=float)[order[-k:]]
    rng = np.random.default_rng(seed)

    def ci(data: tuple[np.ndarray, ...], statistic) -> tuple[float, float]:
        found = stats.bootstrap(data, statistic, n_resamples=resamples, method="percentile",
                                vectorized=True, paired=False, random_state=rng)
        return float(found.confidence_interval.low), float(found.confidence_interval.high)

    return QuintileTable(bottom=float(low.mean()), bottom_ci=ci((low,), _mean), top=float(high.mean()),
                         top_ci=ci((high,), _mean), difference=float(high.mean() - low.mean()),
                         difference_ci=ci((low, high), _mean_difference), size=k)


def split_configs(paths: list[str]) -> dict[str, list[ConfigPoint]]:
    """The points of each configuration file, pooled into ``grid`` and ``sweep`` by the file name."""
    pools: dict[str, list[ConfigPoint]] = {"grid": [], "sweep": []}
    for path in paths:
        stem = Path(path).stem
        kind = "grid" if "grid" in stem else "sweep" if "sweep" in stem else None
        if kind is None:
            raise SystemExit(f"{path}: name contains neither 'grid' nor 'sweep'")
        pools[kind].extend(expand(load_config(path)))
    return pools


def limit_pool(points: list[ConfigPoint], limit: int | None, seed: int) -> list[ConfigPoint]:
    """A seeded random ``limit`` of the points (all of them when ``limit`` is None or not smaller), in input order."""
    if limit is None or limit >= len(points):
        return points
    picks = np.random.default_rng(seed).choice(len(points), size=limit, replace=False)
    return [points[int(i)] for i in sorted(picks)]


def pool_record(point: ConfigPoint) -> dict:
    """Driver metrics and SSI of a calibrated point (the record :func:`schedc.dynamic.subset.feature_matrix` reads)."""
    world, _ = calibrate(point)
    metrics = compute_metrics(world)
    return {"instance": point.name, "metrics": {k: getattr(metrics, k) for k in DRIVERS},
            "ssi": stress_index(metrics).index}


def choose(points: list[ConfigPoint], k: int, label: str) -> list[ConfigPoint]:
    """The k points of the pool chosen by farthest-point k-center over the driver metrics and SSI rank."""
    began, records = time.perf_counter(), []
    for i, point in enumerate(points):
        records.append(pool_record(point))
        if (i + 1) % 500 == 0:
            print(f"  {label} pool: {i + 1}/{len(points)} calibrated, {time.perf_counter() - began:.0f} s",
                  file=sys.stderr, flush=True)
    chosen, radius = k_center(feature_matrix(records), k)
    print(f"{label}: pool {len(points)} calibrated in {time.perf_counter() - began:.0f} s, {len(chosen)} chosen, "
          f"covering radius {radius:.3f}", flush=True)
    return [points[i] for i in chosen]


def outcome_rows(points: list[ConfigPoint], source: str, random_runs: int = 1) -> list[dict]:
    """Per chosen instance: targets, metrics, SSI, the makespan under every rule and under the random
    policy (run 0 seeded with the instance's seed; further runs r with ``default_rng([seed, r])``)."""
    rows = []
    for point in points:
        world, _ = calibrate(point)
        metrics = compute_metrics(world)
        sim = Simulator(world)
        runs = [simulate(sim, "RANDOM", seed=point.seed).makespan]
        runs += [simulate(sim, RandomPolicy(np.random.default_rng([point.seed, r]))).makespan
                 for r in range(1, random_runs)]
        rows.append({"instance": point.name, "source": source, "seed": point.seed,
                     "targets": {k: getattr(point.targets, k) for k in DRIVERS},
                     "metrics": {k: getattr(metrics, k) for k in DRIVERS}, "ssi": stress_index(metrics).index,
                     "rules": {rule: simulate(sim, rule).makespan for rule in RULE_NAMES},
                     "random_policy": runs[0], "random_policy_runs": runs})
    return rows


def best_fixed_rule(rows: list[dict]) -> str:
    """The single rule of least mean makespan relative to the per-instance best (ties: rule order)."""
    def mean_relative(rule: str) -> float:
        return statistics.fmean(r["rules"][rule] / min(r["rules"].values()) for r in rows)
    return min(RULE_NAMES, key=mean_relative)


def gap_definitions(rows: list[dict], seed: int) -> tuple[str, dict[str, np.ndarray]]:
    """The primary Δgap and two other readings of the paper's definition."""
    fixed = best_fixed_rule(rows)
    rng = np.random.default_rng(seed)
    gaps = {
        f"random policy − best fixed rule ({fixed})": [r["random_policy"] - r["rules"][fixed] for r in rows],
        "random policy − per-instance best rule": [r["random_policy"] - min(r["rules"].values()) for r in rows],
        "random rule − per-instance best rule": [
            r["rules"][RULE_NAMES[int(rng.integers(len(RULE_NAMES)))]] - min(r["rules"].values()) for r in rows],
    }
    runs = min(len(r.get("random_policy_runs", [])) for r in rows)
    if runs > 1:
        gaps[f"mean of {runs} random-policy runs − best fixed rule ({fixed})"] = [
            statistics.fmean(r["random_policy_runs"]) - r["rules"][fixed] for r in rows]
    return fixed, {k: np.array(v, dtype=float) for k, v in gaps.items()}


PAPER_TABLE2 = {"rho": 0.563, "p": 3.85e-7, "bottom": (146.71, 57.41, 289.31), "top": (694.12, 479.22, 914.13),
                "difference": (547.41, 283.47, 804.00)}


def paper_main(args: argparse.Namespace) -> None:
    began, cpu = time.perf_counter(), time.process_time()
    pools = split_configs(args.configs)
    chosen = {}
    for offset, (label, k) in enumerate((("grid", args.grid_points), ("sweep", args.sweep_points))):
        if k:
            pool = limit_pool(pools[label], args.pool_limit, args.seed + offset)
            chosen[label] = choose(pool, k, label)
    rows = [row for label, points in chosen.items() for row in outcome_rows(points, label, args.random_runs)]
    ssi = np.array([r["ssi"] for r in rows])
    fixed, gaps = gap_definitions(rows, args.seed)
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    print(f"\n{len(rows)} instances ({', '.join(f'{len(v)} {k}' for k, v in chosen.items())}); "
          f"wall {wall:.0f} s, CPU {cpu / 3600:.3f} h; best fixed rule {fixed}")
    print("\n| Δgap definition | Spearman ρ | p | bottom 20 % mean [95 % CI] | top 20 % mean [95 % CI] | "
          "difference [95 % CI] |")
    print("|---|---:|---:|---|---|---|")
    paper = PAPER_TABLE2
    print(f"| paper (Table 2, §6.4) | {paper['rho']:.3f} | {paper['p']:.2e} | "
          + " | ".join(f"{m:.2f} [{lo:.2f}, {hi:.2f}]" for m, lo, hi in
                       (paper["bottom"], paper["top"], paper["difference"])) + " |")
    for name, gap in gaps.items():
        found = stats.spearmanr(ssi, gap)
        t = quintile_table(ssi, gap, args.seed)
        print(f"| {name} | {found.statistic:.3f} | {found.pvalue:.2e} | {t.bottom:.2f} [{t.bottom_ci[0]:.2f}, "
              f"{t.bottom_ci[1]:.2f}] | {t.top:.2f} [{t.top_ci[0]:.2f}, {t.top_ci[1]:.2f}] | "
              f"{t.difference:+.2f} [{t.difference_ci[0]:.2f}, {t.difference_ci[1]:.2f}] |")
    best = [min(r["rules"].values()) for r in rows]
    print(f"\nquintile size {max(2, len(rows) // 5)}; SSI range {ssi.min():.1f}–{ssi.max():.1f}; best makespan "
          f"{min(best)}–{max(best)} (median {np.median(best):.0f}); random-policy makespan "
          f"{min(r['random_policy'] for r in rows)}–{max(r['random_policy'] for r in rows)}")
    if args.save:
        Path(args.save).write_text(json.dumps({"args": vars(args), "best_fixed_rule": fixed, "wall_s": wall,
                                               "cpu_s": cpu, "rows": rows}, indent=1) + "\n", encoding="utf-8")


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
    parser.add_argument("--configs", nargs="+", help="DynaSched configuration files: Table 2 on their subset")
    parser.add_argument("--grid-points", type=int, default=30, help="instances chosen from the Grid pool")
    parser.add_argument("--sweep-points", type=int, default=40, help="instances chosen from the Sweep pool")
    parser.add_argument("--pool-limit", type=int, help="a seeded random subsample of each pool of this size")
    parser.add_argument("--random-runs", type=int, default=1,
                        help="random-policy runs per instance (run 0 gives Δgap; with more, a row for their mean)")
    parser.add_argument("--save", help="write the per-instance rows to this JSON file")
    args = parser.parse_args()
    if args.configs:
        paper_main(args)
        return
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
