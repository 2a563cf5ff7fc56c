"""``generate`` and ``calibrate`` over many grid points: in parallel (local processes or Dask) and resumable.

Every grid point is an independent task (:func:`schedc.bench.executor.run_tasks`): the results do
not depend on the executor, the number of jobs or the order in which tasks finish, because each
point draws only from its own seed and the outputs are assembled in grid order.

* :func:`generate` writes each point's ``.sched`` and ``.world.json`` as soon as it is done, then
  its manifest entry to ``OUT/.points/NAME.json`` (last, so an entry means both files are
  complete). A rerun skips every point that has an entry and both files, so an interrupted run
  resumes. When all points are done ``manifest.json`` is written from the entries in grid order and
  ``.points`` is removed: the folder then has exactly the bytes of a one-process run
  (:func:`schedc.dynamic.api.generate_dir`).
* :func:`calibrate` returns one row per point in grid order; with ``resume`` (a JSON Lines file)
  each finished row is appended as it arrives and rows already there are not recomputed. Rows hold
  wall times (``runtime``), the only field that differs between runs.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import msgspec

from schedc.core.diagnostics import SchedcError

POINTS_DIR = ".points"


def _generate_task(task: tuple[Any, str]) -> dict[str, Any]:
    """Realise one point and write its files, then its entry (top-level: a pickled task)."""
    from schedc.dynamic.api import realise_point
    from schedc.importers.common import write_atomic

    point, out = task
    folder = Path(out)
    files, entry = realise_point(point)
    for name, content in files:
        write_atomic(folder / name, content)
    write_atomic(folder / POINTS_DIR / f"{point.name}.json", json.dumps(entry) + "\n")
    return entry


def _finished(out: Path, name: str) -> dict[str, Any] | None:
    entry = out / POINTS_DIR / f"{name}.json"
    files = (out / f"{name}.sched", out / f"{name}.world.json")
    if not entry.is_file() or not all(f.is_file() for f in files):
        return None
    try:
        return json.loads(entry.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return None  # torn by an interruption: the point is redone


def generate(config: Path, out: Path, calibrate: bool | None = None, limit: int | None = None, jobs: int = 1,
             executor: str = "local", scheduler: str | None = None, progress: bool = False) -> list[Path]:
    """``schedc generate`` (see the module docstring); the paths written, in grid order."""
    from schedc.bench.executor import run_tasks
    from schedc.dynamic.api import WORLD_SUFFIX, manifest_text, points_of
    from schedc.importers.common import write_atomic

    points = points_of(config, calibrate, limit)
    out = out.resolve()
    entries = {p.name: e for p in points if (e := _finished(out, p.name)) is not None}
    todo = [(p, str(out)) for p in points if p.name not in entries]
    for entry in run_tasks(_generate_task, todo, jobs, executor, scheduler, "generate" if progress else None):
        entries[entry["instance"]] = entry
    missing = [p.name for p in points if p.name not in entries]
    if missing:
        raise SchedcError.at("E940", f"{len(missing)} grid points produced no instance: {', '.join(missing[:5])}")
    ordered = [entries[p.name] for p in points]
    write_atomic(out / "manifest.json", manifest_text(ordered))
    shutil.rmtree(out / POINTS_DIR, ignore_errors=True)
    names = [e["instance"] for e in ordered]
    return [out / f"{n}{suffix}" for n in names for suffix in (".sched", WORLD_SUFFIX)] + [out / "manifest.json"]


CALIBRATION_METHODS = ("sesc", "baseline", "moo", "hybrid")


def _calibrate_task(task: tuple[Any, tuple[str, ...]]) -> dict[str, Any]:
    from schedc.dynamic.realise import calibrated

    point, methods = task
    row: dict[str, Any] = {"instance": point.name}
    for method in methods:
        row[method] = msgspec.to_builtins(calibrated(point, method)[1])
    return json.loads(json.dumps(row))  # tuples become lists: a fresh row equals one read back from --resume


def _with_options(point: Any, thresholds: dict[str, float] | None, l2_tolerance: float | None,
                  without: Sequence[str] = ()) -> Any:
    """``point`` with its calibration's paper-success tolerances and left-out SESC operators overridden where
    given."""
    options = point.calibrate
    if thresholds:
        options = msgspec.structs.replace(options, thresholds=options.thresholds | thresholds)
    if l2_tolerance is not None:
        options = msgspec.structs.replace(options, l2_tolerance=l2_tolerance)
    if without:
        options = msgspec.structs.replace(options, without=sorted(set(options.without) | set(without)))
    return msgspec.structs.replace(point, calibrate=options)


def calibrate(config: Path, baseline: bool = False, limit: int | None = None, jobs: int = 1,
              executor: str = "local", scheduler: str | None = None, resume: Path | None = None,
              progress: bool = False, thresholds: dict[str, float] | None = None,
              l2_tolerance: float | None = None, methods: Sequence[str] | None = None,
              names: Collection[str] | None = None, without: Sequence[str] = ()) -> list[dict[str, Any]]:
    """``schedc calibrate``: one row per grid point in grid order (see the module docstring).

    ``methods``: the calibrators run on every point, each under its own key of the row (default SESC, and
    the baseline with ``baseline``); ``names``: only the points of these names (after ``limit``);
    ``thresholds`` / ``l2_tolerance``: the configuration's paper-success tolerances overridden;
    ``without``: SESC operator families left out (ablation). A row in ``resume`` is kept when it has every
    method asked for."""
    from schedc.bench.executor import run_tasks
    from schedc.bench.jsonl import JsonlAppender, read_records
    from schedc.dynamic.api import points_of

    chosen = tuple(methods or ("sesc", *(["baseline"] if baseline else [])))
    unknown = [m for m in chosen if m not in CALIBRATION_METHODS]
    if unknown:
        raise SchedcError.at("E714", f"unknown calibration method {unknown[0]!r}",
                             hint=f"one of {', '.join(CALIBRATION_METHODS)}")
    points = [_with_options(p, thresholds, l2_tolerance, without) for p in points_of(config, True, limit)
              if names is None or p.name in names]
    wanted = {p.name for p in points}
    rows: dict[str, dict[str, Any]] = {}
    if resume is not None:
        for row in read_records(resume, lambda message: None):
            if row.get("instance") in wanted and all(m in row for m in chosen):
                rows[row["instance"]] = row
    todo = [(p, chosen) for p in points if p.name not in rows]
    appender = JsonlAppender(resume) if resume is not None else None
    try:
        for row in run_tasks(_calibrate_task, todo, jobs, executor, scheduler, "calibrate" if progress else None):
            rows[row["instance"]] = row
            if appender is not None:
                appender.append(row)
    finally:
        if appender is not None:
            appender.close()
    return [rows[p.name] for p in points]
