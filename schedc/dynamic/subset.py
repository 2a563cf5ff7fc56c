"""``schedc subset``: a small representative subset of a pool of generated shops (DynaSched-Subset).

**Pool.** Every ``NAME.world.json`` under ``POOL_DIR`` (recursively; folders written by
``schedc generate``), in sorted path order. Instance names must be unique in the pool.

**Features** (one vector per instance i, eqs. h-1–h-3 in our notation):

* driver metrics ``x_i,l`` for l ∈ {ρ, c_a², c_p², τ, δ, χ} (:mod:`schedc.dynamic.metrics`, computed
  from the world file, not read from a manifest);
* h-1 (z-scores): ``z_i,l = (x_i,l − mean_l) / sd_l`` over the pool (population sd; a metric that is
  constant in the pool gets z = 0);
* h-2 (difficulty): ``r_i`` = the rank of the instance's SSI in the pool (average ranks for ties),
  scaled to [0, 1] and z-scored like a metric, so difficulty weighs as much as one driver metric;
  the feature vector is ``f_i = (z_i,ρ, …, z_i,χ, z(r_i))``;
* h-3 (farthest-point k-center): start with the instance closest to the pool's mean feature vector
  (ties: pool order), then repeatedly add ``argmax_i min_{s∈S} ‖f_i − f_s‖₂`` (ties: pool order) until
  ``|S| = k``. This greedy rule is the 2-approximation of the k-center problem (Gonzalez 1985); the
  report gives the covering radius ``max_i min_{s∈S} ‖f_i − f_s‖``.

**Report** (``OUT/subset.json``): k, pool size, the chosen instances in selection order with their
metrics, SSI and source folder, the covering radius, and per metric (and the SSI) the two-sample
Kolmogorov–Smirnov statistic and p-value of the subset against the pool
(``scipy.stats.ks_2samp``, the statistic of Table h-1). ``OUT`` also receives the chosen instances'
``.sched`` and ``.world.json`` files and a ``manifest.json`` (pool entries of the chosen instances
when the pool has manifests), so ``OUT`` is itself a pool.

Features are computed per instance as independent tasks (:mod:`schedc.bench.executor`: local
process pool or Dask), cached in ``OUT/.features/NAME.json`` so an interrupted run resumes; the
output does not depend on the executor or the number of jobs.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from schedc.core.diagnostics import SchedcError

DRIVERS: tuple[str, ...] = ("utilisation", "arrival_scv", "processing_scv", "tightness", "disturbance", "imbalance")
WORLD_SUFFIX = ".world.json"


def pool_worlds(pool: Path) -> list[Path]:
    """The world files of a pool, sorted; unique names required."""
    if not pool.is_dir():
        raise SchedcError.at("E930", f"{pool} is not a folder", hint="give a folder written by `schedc generate`")
    worlds = sorted(p.resolve() for p in pool.rglob(f"*{WORLD_SUFFIX}") if ".features" not in p.parts)
    seen: dict[str, Path] = {}
    for path in worlds:
        name = path.name[: -len(WORLD_SUFFIX)]
        if name in seen:
            raise SchedcError.at("E931", f"instance {name!r} appears twice in the pool: {seen[name]} and {path}")
        seen[name] = path
    return worlds


def features_of(path: str) -> dict[str, Any]:
    """Driver metrics and SSI of one world file (a task: top-level, picklable arguments)."""
    from schedc.dynamic.api import load_world
    from schedc.dynamic.metrics import compute_metrics
    from schedc.dynamic.ssi import stress_index

    world = load_world(Path(path))
    metrics = compute_metrics(world)
    return {"instance": world.name, "path": path, "metrics": {k: getattr(metrics, k) for k in DRIVERS},
            "ssi": stress_index(metrics).index}


def _cached_features(task: tuple[str, str]) -> dict[str, Any]:
    """Features of a world, read from the cache file when present, else computed and cached."""
    from schedc.importers.common import write_atomic

    path, cache = task
    cached = Path(cache)
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()  # a changed world invalidates its cache entry
    if cached.is_file():
        try:
            record = json.loads(cached.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            record = {}  # a torn cache file from an interrupted run: recompute
        if record.get("path") == path and record.get("sha256") == digest:
            return record
    record = features_of(path) | {"sha256": digest}
    write_atomic(cached, json.dumps(record, sort_keys=True) + "\n")
    return record


def feature_matrix(records: list[dict[str, Any]]) -> np.ndarray:
    """Rows f_i of eqs. h-1 and h-2 (module docstring)."""
    from scipy.stats import rankdata

    columns = [[r["metrics"][k] for r in records] for k in DRIVERS]
    ranks = rankdata([r["ssi"] for r in records])
    columns.append(list((ranks - 1) / max(len(records) - 1, 1)))
    return np.column_stack([_zscore(np.asarray(c, dtype=float)) for c in columns])


def _zscore(values: np.ndarray) -> np.ndarray:
    values = np.where(np.isfinite(values), values, np.nan)
    if np.isnan(values).all():
        return np.zeros_like(values)
    values = np.where(np.isnan(values), np.nanmean(values), values)  # a metric a world lacks sits at the mean
    sd = values.std()
    return np.zeros_like(values) if sd == 0 else (values - values.mean()) / sd


def k_center(features: np.ndarray, k: int) -> tuple[list[int], float]:
    """Farthest-point selection of eq. h-3: (chosen row indices in selection order, covering radius)."""
    n = len(features)
    first = int(np.argmin(np.linalg.norm(features - features.mean(axis=0), axis=1)))
    chosen = [first]
    nearest = np.linalg.norm(features - features[first], axis=1)
    while len(chosen) < min(k, n):
        nxt = int(np.argmax(nearest))  # argmax returns the first maximum: ties go to pool order
        chosen.append(nxt)
        nearest = np.minimum(nearest, np.linalg.norm(features - features[nxt], axis=1))
    return chosen, float(nearest.max()) if n else 0.0


def ks_report(records: list[dict[str, Any]], chosen: list[int]) -> dict[str, dict[str, float]]:
    """Two-sample KS statistic and p-value, subset vs pool, per driver metric and for the SSI."""
    from scipy.stats import ks_2samp

    out = {}
    for key in (*DRIVERS, "ssi"):
        pool = [_value(r, key) for r in records]
        sub = [pool[i] for i in chosen]
        pool_f = [v for v in pool if math.isfinite(v)]
        sub_f = [v for v in sub if math.isfinite(v)]
        if not pool_f or not sub_f:
            continue
        result = ks_2samp(sub_f, pool_f)
        out[key] = {"statistic": round(float(result.statistic), 6), "pvalue": round(float(result.pvalue), 6)}
    return out


def _value(record: dict[str, Any], key: str) -> float:
    value = record["ssi"] if key == "ssi" else record["metrics"][key]
    return float(value) if value is not None else math.nan


def select(pool: Path, k: int, out: Path, jobs: int = 1, executor: str = "local",
           scheduler: str | None = None) -> dict[str, Any]:
    """``schedc subset``: choose k instances of the pool, copy them to ``out``, write and return the report."""
    from schedc.bench.executor import run_tasks
    from schedc.importers.common import write_atomic

    if k < 1:
        raise SchedcError.at("E932", f"-k must be at least 1 (got {k})")
    worlds = pool_worlds(pool)
    if len(worlds) < k:
        raise SchedcError.at("E933", f"the pool {pool} holds {len(worlds)} instances, fewer than k = {k}")
    cache = out.resolve() / ".features"
    cache.mkdir(parents=True, exist_ok=True)
    tasks = [(str(w), str(cache / (w.name[: -len(WORLD_SUFFIX)] + ".json"))) for w in worlds]
    by_path = {r["path"]: r for r in run_tasks(_cached_features, tasks, jobs, executor, scheduler)}
    records = [by_path[str(w)] for w in worlds]  # pool order, whatever order the tasks finished in
    chosen, radius = k_center(feature_matrix(records), k)
    report = {"k": k, "pool": len(records), "pool_dir": str(pool), "covering_radius": round(radius, 6),
              "chosen": [{"instance": records[i]["instance"], "folder": str(Path(records[i]["path"]).parent),
                          "metrics": records[i]["metrics"], "ssi": records[i]["ssi"]} for i in chosen],
              "ks": ks_report(records, chosen)}
    _copy_chosen(records, chosen, out)
    write_atomic(out / "subset.json", json.dumps(report, indent=1) + "\n")
    return report


def _copy_chosen(records: list[dict[str, Any]], chosen: list[int], out: Path) -> None:
    from schedc.importers.common import write_atomic

    entries = []
    for i in chosen:
        world = Path(records[i]["path"])
        name = records[i]["instance"]
        shutil.copyfile(world, out / world.name)
        spec = world.with_name(world.name[: -len(WORLD_SUFFIX)] + ".sched")
        if spec.is_file():
            shutil.copyfile(spec, out / spec.name)
        entries.append(_manifest_entry(world.parent, name) or {"instance": name, "ssi": records[i]["ssi"]})
    write_atomic(out / "manifest.json", json.dumps(entries, indent=1) + "\n")


def _manifest_entry(folder: Path, name: str) -> dict[str, Any] | None:
    manifest = folder / "manifest.json"
    if not manifest.is_file():
        return None
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        raise SchedcError.at("E934", "malformed JSON in the pool's manifest", file=str(manifest)) from None
    return next((e for e in entries if isinstance(e, dict) and e.get("instance") == name), None)
