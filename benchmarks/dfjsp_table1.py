"""DynaSchedBench's calibration tables side by side: Table 1, Appendix E's success rates, Table g-1/g-2, Table g-3.

One command runs every calibration the tables need, resumably (each stage appends finished rows to
JSON Lines files under ``--work`` and skips rows already there), and writes the report:

* **grid** — SESC over the DynaSched-Grid files ``examples/dfjsp/dynasched_grid_s1…s5.toml``
  (6,000 points each): the seed files in ``--full-seeds`` whole, the others on a sample of
  ``--grid-sample`` grid indices stratified by (ρ*, τ*) (the same indices in every seed file, so that
  the seed columns of Table 1 have all five seeds there). ``--full-seeds 1,2,3,4,5`` is the whole Grid
  (30,000 calibrations).
* **configs** — SESC over every other paper configuration: the Sweep centroid and the four sweeps
  (§C.2), the scaling levels (Table g-1) and the five complexity configurations (§G.2, Table g-2).
* **nsga** — MOO and Hybrid on ``--nsga-points`` indices of the grid sample (stratified by ρ*) under
  the seeds ``--nsga-seeds``, point by point, until ``--nsga-minutes`` of wall time are spent (a
  point is started only while the budget lasts; both methods run on it).
* **dsbx** — the authors' package ``dsbx`` 0.4.0 (when installed; not a dependency): its sequential
  calibration on the nsga points and seeds, and with ``--dsbx-nsga`` its MOO and Hybrid on one point per
  ρ* level under the first nsga seed — the like-for-like reference for every row of Table 1.
* **ablation** — SESC without each operator family of Table g-3 (``calibrate.without``) on the first
  ``--ablation-points`` indices of the grid sample, seed file 1; the full set's rows come from *grid*.
* **report** — writes ``--out`` (markdown) from whatever rows exist.

Points run through :func:`schedc.dynamic.batch.calibrate` (``--executor dask`` runs them on a Dask
LocalCluster, or on ``--scheduler ADDRESS``; the rows do not depend on the executor). Wall time of each
stage invocation and the machine load are appended to ``WORK/walls.jsonl``; CPU-hours are the sum of
the calibrations' own wall seconds (each runs single-threaded in its process).

    python benchmarks/dfjsp_table1.py --work runs/table1 [--stages grid,configs,nsga,dsbx,ablation,report]
        [--full-seeds 1] [--grid-sample 1200] [--nsga-points 10] [--nsga-seeds 1,2] [--nsga-minutes 40]
        [--ablation-points 300] [--dsbx-nsga] [--jobs 1] [--executor local|dask] [--out docs/dfjsp_table1.md]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schedc.bench.jsonl import read_records  # noqa: E402
from schedc.dynamic.api import points_of  # noqa: E402
from schedc.dynamic.batch import calibrate  # noqa: E402
from schedc.dynamic.paper_tables import (  # noqa: E402
    ABLATION_WITHOUT,
    PAPER_ABLATION,
    PAPER_SUCCESS,
    PAPER_TABLE1,
    ablation_deltas,
    outside_band,
    quartiles,
    success_rates,
    table1_entry,
)

EXAMPLES = ROOT / "examples" / "dfjsp"
GRID = [EXAMPLES / f"dynasched_grid_s{k}.toml" for k in range(1, 6)]
SWEEPS = [EXAMPLES / f"dynasched_sweep_{n}.toml" for n in
          ("centroid", "utilisation", "variability", "tightness", "disturbance")]
SCALES = [EXAMPLES / f"dynasched_scale_{n}.toml" for n in (200, 400, 800, 1600)]
COMPLEXITY = [EXAMPLES / f"dynasched_complexity_{n}.toml" for n in
              ("baseline_static", "batch_only", "pm_only", "route_only", "full")]
LONG_LABEL = {"sesc": "SESC", "moo": "MOO", "hybrid": "Hybrid", "dsbx": "dsbx 0.4.0 SESC",
              "dsbx_moo": "dsbx 0.4.0 MOO", "dsbx_hybrid": "dsbx 0.4.0 Hybrid"}
GRID_CHUNK = 100
DSBX_KEY = {"sesc": "dsbx", "moo": "dsbx_moo", "hybrid": "dsbx_hybrid"}
METHOD_LABEL = {"sesc": "SESC", "moo": "MOO", "hybrid": "Hybrid", "dsbx": "SESC", "dsbx_moo": "MOO",
                "dsbx_hybrid": "Hybrid"}


def rows_of(path: Path) -> list[dict[str, Any]]:
    return list(read_records(path, lambda message: None)) if path.is_file() else []


def stratified(indices_by_stratum: dict[Any, list[int]], size: int, seed: int) -> list[int]:
    """``size`` indices spread evenly over the strata (⌈size / strata⌉ from each, seeded), in an order that
    cycles through the strata so that any prefix stays balanced."""
    rng = np.random.default_rng(seed)
    per = math.ceil(size / len(indices_by_stratum))
    drawn = [list(rng.choice(v, size=min(per, len(v)), replace=False)) for _, v in sorted(indices_by_stratum.items())]
    order = [int(col[i]) for i in range(per) for col in drawn if i < len(col)]
    return order[:size]


def grid_sample(size: int, seed: int) -> list[int]:
    """Grid indices stratified by (ρ*, τ*): the 25 cells of Table c-1's first two factors."""
    strata: dict[tuple[float, float], list[int]] = {}
    for p in points_of(GRID[0]):
        strata.setdefault((p.targets.utilisation, p.targets.tightness), []).append(p.index)
    return stratified(strata, size, seed)


def nsga_sample(sample: list[int], size: int) -> list[int]:
    """The first ``size`` indices of ``sample`` stratified by ρ* (the same number from each level)."""
    level = {p.index: p.targets.utilisation for p in points_of(GRID[0])}
    strata: dict[float, list[int]] = {}
    for i in sample:
        strata.setdefault(level[i], []).append(i)
    per = math.ceil(size / len(strata))
    return [i for i in sample if i in {j for v in strata.values() for j in v[:per]}][:size]


def names_at(config: Path, indices: Iterable[int]) -> set[str]:
    wanted = set(indices)
    return {p.name for p in points_of(config) if p.index in wanted}


def log_wall(work: Path, stage: str, began: float) -> None:
    with (work / "walls.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"stage": stage, "seconds": round(time.perf_counter() - began, 1),
                            "load": os.getloadavg()[0], "at": time.strftime("%Y-%m-%d %H:%M")}) + "\n")


def run_grid(args: argparse.Namespace, sample: list[int]) -> None:
    """The full seed files whole; the others on the sample, in chunks taken in the sample's stratified order
    (seed file by seed file within a chunk), so that an interrupted run leaves a balanced prefix."""
    for k, config in enumerate(GRID, start=1):
        if k in args.full_seeds:
            calibrate(config, jobs=args.jobs, executor=args.executor, scheduler=args.scheduler,
                      resume=args.work / "sesc" / f"{config.stem}.jsonl", progress=True)
    partial = [(k, c) for k, c in enumerate(GRID, start=1) if k not in args.full_seeds]
    for start in range(0, len(sample), GRID_CHUNK):
        chunk = sample[start:start + GRID_CHUNK]
        for _, config in partial:
            calibrate(config, jobs=args.jobs, executor=args.executor, scheduler=args.scheduler,
                      resume=args.work / "sesc" / f"{config.stem}.jsonl", names=names_at(config, chunk))


def run_configs(args: argparse.Namespace) -> None:
    for config in SWEEPS + SCALES + COMPLEXITY:
        calibrate(config, jobs=args.jobs, executor=args.executor, scheduler=args.scheduler,
                  resume=args.work / "sesc" / f"{config.stem}.jsonl", progress=True)


def run_nsga(args: argparse.Namespace, sample: list[int]) -> None:
    deadline = time.perf_counter() + 60 * args.nsga_minutes
    for index in nsga_sample(sample, args.nsga_points):
        for k in args.nsga_seeds:
            if time.perf_counter() > deadline:
                return
            config = GRID[k - 1]
            began = time.perf_counter()
            calibrate(config, names=names_at(config, [index]), methods=("moo", "hybrid"),
                      resume=args.work / "nsga" / f"{config.stem}.jsonl")
            print(f"nsga: index {index} seed file {k}: {time.perf_counter() - began:.1f} s", file=sys.stderr)


def run_dsbx(args: argparse.Namespace, sample: list[int]) -> None:
    """The authors' package (dsbx 0.4.0) on the nsga points and seeds, scored by schedc's success functions
    (benchmarks/dfjsp_dsbx.py): its sequential calibration (the paper's SESC) on every nsga point and seed; its
    MOO and Hybrid (``--dsbx-nsga``) on the first point of each ρ* level under the first nsga seed, as they
    cost minutes each. Skipped when dsbx is absent."""
    from benchmarks.dfjsp_dsbx import available

    if not available():
        print("dsbx: not installed (pip install dsbx==0.4.0); stage skipped", file=sys.stderr)
        return
    indices = nsga_sample(sample, args.nsga_points)
    _dsbx_runs(args, "sesc", set(indices), args.nsga_seeds)
    if args.dsbx_nsga:
        first = set(nsga_sample(sample, len({p.targets.utilisation for p in points_of(GRID[0])})))
        for method in ("moo", "hybrid"):
            _dsbx_runs(args, method, first, args.nsga_seeds[:1])


def _dsbx_runs(args: argparse.Namespace, method: str, indices: set[int], seeds: list[int]) -> None:
    from benchmarks.dfjsp_dsbx import dsbx_calibrate
    from schedc.bench.jsonl import JsonlAppender
    from schedc.dynamic.success import normalised_l2, success

    key = DSBX_KEY[method]
    for k in seeds:
        path = args.work / key / f"{GRID[k - 1].stem}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        done = {r["instance"] for r in rows_of(path)}
        appender = JsonlAppender(path)
        try:
            for point in points_of(GRID[k - 1]):
                if point.index not in indices or point.name in done:
                    continue
                errors, seconds = dsbx_calibrate(point, method=method)
                strict, relaxed = success(errors, point.targets)
                appender.append({"instance": point.name, key: {
                    "errors_after": errors, "normalised_l2_after": normalised_l2(errors, point.targets),
                    "runtime": seconds, "paper_strict": strict, "paper_relaxed": relaxed}})
        finally:
            appender.close()


def slug(variant: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in variant.lower()).strip("_")


def run_ablation(args: argparse.Namespace, sample: list[int]) -> None:
    names = names_at(GRID[0], sample[:args.ablation_points])
    for variant, without in ABLATION_WITHOUT.items():
        if without is not None:
            calibrate(GRID[0], jobs=args.jobs, executor=args.executor, scheduler=args.scheduler,
                      resume=args.work / "ablation" / f"{slug(variant)}.jsonl", names=names, without=without,
                      progress=True)


# --------------------------------------------------------------------------- the report


def fmt(q: tuple[float, float, float] | None, digits: int = 4) -> str:
    return " | ".join("—" for _ in range(3)) if q is None else " | ".join(f"{v:.{digits}f}" for v in q)


def sesc_grid_file(work: Path, config: Path, sample: list[int]) -> list[dict[str, Any]]:
    """SESC's rows of one Grid seed file: the whole file when it is complete, else only the rows of the stratified
    sample (a whole-file run proceeds in grid order, which sorts by ρ* first: its prefix is not balanced)."""
    rows = rows_of(work / "sesc" / f"{config.stem}.jsonl")
    if len(rows) >= len(points_of(config)):
        return rows
    keep = set(sample)
    return [r for r in rows if int(r["instance"].rsplit("_", 1)[1]) in keep]


def grid_rows_of(work: Path, sample: list[int]) -> list[dict[str, Any]]:
    return [r for config in GRID for r in sesc_grid_file(work, config, sample)]


def table1_section(work: Path, sample: list[int]) -> list[str]:
    grid_rows = grid_rows_of(work, sample)
    nsga_rows = [r for c in GRID for r in rows_of(work / "nsga" / f"{c.stem}.jsonl")]
    out = ["## Table 1: calibration accuracy, seed variability and runtime", "",
           "Normalised L2 of the final world (median | P25 | P75); runtime in seconds per calibration, generation "
           "included; the seed columns are the quartiles over grid points of the mean and the standard deviation "
           "(ddof 1) of the L2 across the point's seeds. **paper** rows are Table 1 as printed.", "",
           "| mode | source | runs | multi-seed points | L2 median | P25 | P75 | runtime median | P25 | P75 | "
           "seed mean median | P25 | P75 | seed std median | P25 | P75 |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    notes = []
    dsbx_rows = {key: [r for c in GRID for r in rows_of(work / key / f"{c.stem}.jsonl")] for key in DSBX_KEY.values()}
    sesc_on_nsga = [r for r in grid_rows if r["instance"] in {x["instance"] for x in nsga_rows}]
    for method, rows in (("sesc", grid_rows), ("sesc", sesc_on_nsga), ("dsbx", dsbx_rows["dsbx"]),
                         ("moo", nsga_rows), ("dsbx_moo", dsbx_rows["dsbx_moo"]), ("hybrid", nsga_rows),
                         ("dsbx_hybrid", dsbx_rows["dsbx_hybrid"])):
        label = METHOD_LABEL[method]
        if method.startswith("dsbx") or rows is sesc_on_nsga:
            try:
                e = table1_entry(rows, method)
            except ValueError:
                continue
            where = "dsbx 0.4.0 (authors' package)" if method.startswith("dsbx") else "schedc, nsga points only"
            out.append(f"| {label} | {where} | {e.runs:,} | {e.points:,} | {fmt(e.l2)} | {fmt(e.runtime, 2)} | "
                       f"{fmt(e.seed_mean)} | {fmt(e.seed_std)} |")
            continue
        paper = PAPER_TABLE1[label]
        try:
            e = table1_entry(rows, method)
        except ValueError:
            out.append(f"| {label} | schedc | 0 | 0 | not run |" + " |" * 11)
        else:
            out.append(f"| {label} | schedc | {e.runs:,} | {e.points:,} | {fmt(e.l2)} | {fmt(e.runtime, 2)} | "
                       f"{fmt(e.seed_mean)} | {fmt(e.seed_std)} |")
            for column, ours in (("L2 median", e.l2), ("runtime median", e.runtime), ("seed mean median", e.seed_mean),
                                 ("seed std median", e.seed_std)):
                key = {"L2 median": "l2", "runtime median": "runtime", "seed mean median": "seed_mean",
                       "seed std median": "seed_std"}[column]
                if ours is not None and outside_band(ours[0], paper[key]):
                    notes.append(f"{label} {column}: {ours[0]:.4g} is outside the paper's P25–P75 "
                                 f"({paper[key][1]:.4g}–{paper[key][2]:.4g})")
        out.append(f"| {label} | paper | | | {fmt(paper['l2'])} | {fmt(paper['runtime'], 1)} | "
                   f"{fmt(paper['seed_mean'])} | {fmt(paper['seed_std'])} |")
    out += ["", "Outside the paper's band (explained in the text above the tables):", ""]
    out += [f"- {n}" for n in notes] or ["- none"]
    return out


def success_section(work: Path, args: argparse.Namespace) -> list[str]:
    out = ["## Appendix E: success rates per configuration", "",
           "Relaxed (e-1): normalised L2 ≤ ε = 0.10; strict (e-2): relaxed and every driver metric within its θ_l "
           "(`schedc/dynamic/success.py`). Paper (§E.2.2): SESC relaxed 84 %, strict 48 %; Hybrid strict 49 %.", "",
           "| configuration | method | runs | strict | relaxed | L2 median | runtime median (s) |",
           "|---|---|---:|---:|---:|---:|---:|"]
    every: dict[str, list[dict]] = {}
    for config in GRID + SWEEPS + SCALES + COMPLEXITY:
        for folder, methods in (("sesc", ("sesc",)), ("nsga", ("moo", "hybrid")), ("dsbx", ("dsbx",)),
                                ("dsbx_moo", ("dsbx_moo",)), ("dsbx_hybrid", ("dsbx_hybrid",))):
            rows = (sesc_grid_file(work, config, grid_sample(args.grid_sample, args.sample_seed))
                    if folder == "sesc" and config in GRID else rows_of(work / folder / f"{config.stem}.jsonl"))
            for method in methods:
                reports = [r[method] for r in rows if method in r]
                if not reports:
                    continue
                every.setdefault(method, []).extend(reports)
                strict, relaxed = success_rates(reports)
                out.append(f"| {config.stem} | {LONG_LABEL[method]} | {len(reports):,} | {strict:.1%} | "
                           f"{relaxed:.1%} | {quartiles([r['normalised_l2_after'] for r in reports])[0]:.4f} | "
                           f"{quartiles([r['runtime'] for r in reports])[0]:.2f} |")
    for method, reports in every.items():
        strict, relaxed = success_rates(reports)
        paper = PAPER_SUCCESS.get(METHOD_LABEL[method], {}) if not method.startswith("dsbx") else {}
        shown = ", ".join(f"{k} {v:.0%}" for k, v in paper.items()) or "—"
        out.append(f"| **all** | {LONG_LABEL[method]} | {len(reports):,} | {strict:.1%} | {relaxed:.1%} | "
                   f"paper: {shown} | |")
    return out


def scaling_section(work: Path) -> list[str]:
    out = ["## Table g-1 / g-2: SESC across scale and dynamic complexity", "",
           "| configuration | runs | L2 median | P25 | P75 | runtime median (s) | P25 | P75 |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for config in SCALES + COMPLEXITY:
        reports = [r["sesc"] for r in rows_of(work / "sesc" / f"{config.stem}.jsonl")]
        if reports:
            l2 = quartiles([r["normalised_l2_after"] for r in reports])
            runtime = quartiles([r["runtime"] for r in reports])
            out.append(f"| {config.stem} | {len(reports)} | {fmt(l2)} | {fmt(runtime, 2)} |")
    return out


def scaling_plot(work: Path, out: Path) -> bool:
    """Median L2 and runtime of SESC against N_J over the scaling levels (Fig. g-1's axes); False without data."""
    levels = []
    for config in SCALES:
        reports = [r["sesc"] for r in rows_of(work / "sesc" / f"{config.stem}.jsonl")]
        if reports:
            jobs = int(config.stem.rsplit("_", 1)[1])
            levels.append((jobs, [r["normalised_l2_after"] for r in reports], [r["runtime"] for r in reports]))
    if len(levels) < 2:
        return False
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3.2))
    for axis, which, label in ((left, 1, "normalised L2"), (right, 2, "runtime (s)")):
        xs = [lv[0] for lv in levels]
        qs = [quartiles(lv[which]) for lv in levels]
        axis.plot(xs, [q[0] for q in qs], marker="o", color="C0")
        axis.fill_between(xs, [q[1] for q in qs], [q[2] for q in qs], alpha=0.25, color="C0", label="P25–P75")
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_xticks(xs, [str(x) for x in xs])
        axis.set_xlabel("jobs N_J (Table g-1 levels)")
        axis.set_ylabel(label)
        axis.legend()
    fig.suptitle("SESC across the scaling levels (median and P25–P75 over seeds)")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, metadata={"Date": None})
    plt.close(fig)
    return True


def ablation_section(work: Path) -> list[str]:
    full = {r["instance"]: r["sesc"]["normalised_l2_after"]
            for r in rows_of(work / "sesc" / f"{GRID[0].stem}.jsonl")}
    out = ["## Table g-3: SESC operator ablation", "",
           "Deltas of the normalised L2 against the full operator set on the same points (seed file 1): "
           "mean(without) − mean(full) and p90(without) − p90(full); positive is worse.", "",
           "| variant | schedc leaves out | points | mean delta | p90 delta | paper mean delta | paper p90 delta |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for variant, paper_mean, paper_p90 in PAPER_ABLATION:
        without = ABLATION_WITHOUT[variant]
        rows = rows_of(work / "ablation" / f"{slug(variant)}.jsonl")
        if without is None or not rows:
            reason = "no counterpart (schedc moves due dates only by slack scaling)" if without is None else "not run"
            out.append(f"| {variant} | {reason} | | | | {paper_mean:+.4f} | {paper_p90:+.4f} |")
            continue
        ablated = {r["instance"]: r["sesc"]["normalised_l2_after"] for r in rows}
        mean, p90, n = ablation_deltas(full, ablated)
        out.append(f"| {variant} | {', '.join(without)} | {n} | {mean:+.4f} | {p90:+.4f} | {paper_mean:+.4f} | "
                   f"{paper_p90:+.4f} |")
    return out


def effort_section(work: Path) -> list[str]:
    out = ["## Effort", "", "| stage | calibrations | CPU-hours (sum of calibration seconds) |", "|---|---:|---:|"]
    stages = {"grid": [work / "sesc" / f"{c.stem}.jsonl" for c in GRID],
              "configs": [work / "sesc" / f"{c.stem}.jsonl" for c in SWEEPS + SCALES + COMPLEXITY],
              "nsga": [work / "nsga" / f"{c.stem}.jsonl" for c in GRID],
              "dsbx": [work / key / f"{c.stem}.jsonl" for key in DSBX_KEY.values() for c in GRID],
              "ablation": sorted((work / "ablation").glob("*.jsonl"))}
    for stage, files in stages.items():
        reports = [rep for f in files for r in rows_of(f) for k, rep in r.items() if k != "instance"]
        out.append(f"| {stage} | {len(reports):,} | {sum(r['runtime'] for r in reports) / 3600:.3f} |")
    walls = rows_of(work / "walls.jsonl")
    if walls:
        out += ["", "Wall time per invocation: " + "; ".join(
            f"{w['stage']} {w['seconds']:.0f} s (load {w['load']:.1f}, {w['at']})" for w in walls) + "."]
    return out


def write_report(args: argparse.Namespace) -> None:
    work = args.work
    scaling = scaling_section(work)
    if args.out is not None and scaling_plot(work, args.out.parent / "img" / "dfjsp_scaling.svg"):
        scaling += ["", "![SESC across the scaling levels](img/dfjsp_scaling.svg)"]
    parts = [table1_section(work, grid_sample(args.grid_sample, args.sample_seed)), success_section(work, args),
             scaling, ablation_section(work),
             effort_section(work)]
    text = "\n\n".join("\n".join(p) for p in parts) + "\n"
    if args.out is None:
        print(text)
        return
    marker = "<!-- tables: written by benchmarks/dfjsp_table1.py from here on -->"
    head = args.out.read_text(encoding="utf-8").split(marker)[0] if args.out.is_file() else ""
    args.out.write_text(head + marker + "\n\n" + text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--stages", default="grid,configs,nsga,ablation,report")
    parser.add_argument("--full-seeds", default="1", type=lambda s: {int(x) for x in s.split(",") if x})
    parser.add_argument("--grid-sample", type=int, default=1200)
    parser.add_argument("--sample-seed", type=int, default=0)
    parser.add_argument("--nsga-points", type=int, default=10)
    parser.add_argument("--nsga-seeds", default="1,2", type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--nsga-minutes", type=float, default=40.0)
    parser.add_argument("--ablation-points", type=int, default=300)
    parser.add_argument("--dsbx-nsga", action="store_true", help="also dsbx's MOO and Hybrid (minutes per point)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--executor", default="local", choices=("local", "dask"))
    parser.add_argument("--scheduler", default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    for folder in ("sesc", "nsga", "ablation", "dsbx"):
        (args.work / folder).mkdir(parents=True, exist_ok=True)
    sample = grid_sample(args.grid_sample, args.sample_seed)
    stages = {"grid": lambda: run_grid(args, sample), "configs": lambda: run_configs(args),
              "nsga": lambda: run_nsga(args, sample), "dsbx": lambda: run_dsbx(args, sample),
              "ablation": lambda: run_ablation(args, sample),
              "report": lambda: write_report(args)}
    for stage in args.stages.split(","):
        began = time.perf_counter()
        stages[stage]()
        if stage != "report":
            log_wall(args.work, stage, began)


if __name__ == "__main__":
    main()
