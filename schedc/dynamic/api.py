"""Library functions behind ``schedc generate | calibrate | ssi | simulate | plot``.

A dynamic shop is read either from a ``dfjsp`` ``.sched`` instance (the realised instance
with its event log) or from the ``.world.json`` that ``schedc generate`` writes beside it
(the generator's whole world, including the work of cancelled jobs); both give a
:class:`~schedc.dynamic.world.World`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.dynamic.world import World

WORLD_SUFFIX = ".world.json"


# --------------------------------------------------------------------------- reading and writing worlds


def load_world(path: Path) -> World:
    """The world of a ``.world.json`` file or of a ``dfjsp`` ``.sched`` instance."""
    if path.name.endswith(WORLD_SUFFIX):
        return _read_world_json(path)
    from schedc.dynamic.spec import instance_to_world
    from schedc.lang.load import load_instance

    instance = load_instance(path)
    try:
        return instance_to_world(instance)
    except SchedcError as exc:  # name the file the rows come from
        located = [msgspec.structs.replace(d, file=str(path)) if d.file == "<input>" else d for d in exc.diagnostics]
        raise SchedcError(located, path.read_text(encoding="utf-8")) from None


def _read_world_json(path: Path) -> World:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SchedcError.at("E806", f"cannot read {path}: {exc.strerror or exc}", file=str(path)) from None
    try:
        return msgspec.json.decode(data, type=World)
    except msgspec.ValidationError as exc:
        raise SchedcError.at("E806", f"not a dynamic shop world: {exc}", file=str(path)) from None
    except msgspec.DecodeError as exc:
        raise SchedcError.at("E806", f"malformed JSON: {exc}", file=str(path)) from None


def world_json(world: World) -> bytes:
    """The world as JSON (read back by :func:`load_world`)."""
    return msgspec.json.format(msgspec.json.encode(world), indent=1)


def sibling_spec(path: Path) -> Path | None:
    """The ``.sched`` file written beside a ``.world.json`` (None when there is none)."""
    if path.name.endswith(WORLD_SUFFIX):
        candidate = path.with_name(path.name[: -len(WORLD_SUFFIX)] + ".sched")
        return candidate if candidate.exists() else None
    return path


# --------------------------------------------------------------------------- generation and calibration


def points_of(config: Path, calibrate: bool | None = None, limit: int | None = None) -> list[Any]:
    """The grid points of a configuration file (the first ``limit``), with calibration switched
    on or off when ``calibrate`` is given."""
    from schedc.dynamic.config import expand, load_config

    points = expand(load_config(config))[:limit]
    if calibrate is None:
        return points
    return [msgspec.structs.replace(p, calibrate=msgspec.structs.replace(p.calibrate, enabled=calibrate))
            for p in points]


def generate_dir(config: Path, out: Path, calibrate: bool | None = None, limit: int | None = None) -> list[Path]:
    """``schedc generate``: every grid point → ``<name>.sched`` + ``<name>.world.json``, and a
    ``manifest.json`` with targets, realised metrics, SSI and calibration per instance (identical
    bytes for an identical configuration: no wall times).

    Every world is generated and converted before anything is written, so a failing point
    leaves the folder as it was; each file is written atomically.
    """
    from schedc.importers.common import write_atomic

    files: list[tuple[Path, str | bytes]] = []
    manifest = []
    for point in points_of(config, calibrate, limit):
        point_files, entry = realise_point(point)
        files += [(out / name, content) for name, content in point_files]
        manifest.append(entry)
    files.append((out / "manifest.json", manifest_text(manifest)))
    for path, content in files:
        write_atomic(path, content)
    return [path for path, _ in files]


def realise_point(point: Any) -> tuple[list[tuple[str, str | bytes]], dict[str, Any]]:
    """One grid point realised: its two files (name, content) and its manifest entry."""
    from schedc.dynamic.metrics import compute_metrics
    from schedc.dynamic.realise import realise
    from schedc.dynamic.spec import world_to_instance
    from schedc.dynamic.ssi import stress_index
    from schedc.lang.printer import print_instance

    world, report = realise(point)
    metrics = compute_metrics(world, point.targets.bottlenecks)
    files: list[tuple[str, str | bytes]] = [(f"{world.name}.sched", print_instance(world_to_instance(world))),
                                            (f"{world.name}{WORLD_SUFFIX}", world_json(world))]
    calibration = None if report is None else msgspec.to_builtins(report)
    if calibration is not None:
        del calibration["runtime"]  # wall time would make the manifest differ from run to run
    entry = {"instance": world.name, "seed": point.seed, "targets": msgspec.to_builtins(point.targets),
             "metrics": msgspec.to_builtins(metrics), "ssi": stress_index(metrics).index,
             "calibration": calibration}
    return files, entry


def manifest_text(entries: list[dict[str, Any]]) -> str:
    """The bytes of ``manifest.json``."""
    return json.dumps(entries, indent=1) + "\n"


def plot_calibration(rows: list[dict[str, Any]], out: Path) -> Path:
    """The L2 error of every grid point before and after calibration (log scale), with the
    calibration tolerance as the target line."""
    from schedc.plotting import plot_metric_curves

    series = {"generator": [r["sesc"]["l2_before"] for r in rows], "SESC": [r["sesc"]["l2_after"] for r in rows]}
    if rows and "baseline" in rows[0]:
        series["baseline"] = [r["baseline"]["l2_after"] for r in rows]
    floor = 1e-4  # an exact hit (L2 = 0) still shows on the log scale
    series = {k: [max(v, floor) for v in values] for k, values in series.items()}
    return plot_metric_curves(series, out, targets={"SESC": 0.05}, xlabel="grid point", ylabel="L2 error",
                              title="Calibration error per grid point", log_y=True)


# --------------------------------------------------------------------------- simulation


def simulate_file(path: Path, rules: Sequence[str], seed: int = 0) -> tuple[World, list[Any]]:
    """(world, one rollout per rule) for ``schedc simulate``; ``all`` expands to the 24 rules."""
    from schedc.dynamic.rules import RULE_NAMES, simulate

    world = load_world(path)
    names: list[str] = []
    for rule in rules:
        names += list(RULE_NAMES) if rule.lower() == "all" else [rule]
    return world, [simulate(world, rule, seed) for rule in names]


def rollout_answer(world: World, rollout: Any) -> str:
    """A rollout's schedule in the family's answer format (canonical names), checkable by ``schedc check``."""
    from schedc.dynamic.spec import world_to_instance
    from schedc.lang.family import load_family
    from schedc.verify.verifier import Verifier

    instance = world_to_instance(world)
    return Verifier(instance, load_family("dfjsp")).write(rollout.solution)


# --------------------------------------------------------------------------- metrics


def ssi_file(path: Path) -> dict[str, Any]:
    """Realised metrics and Schedule Stress Index of a dynamic shop (``schedc ssi``)."""
    from schedc.dynamic.metrics import compute_metrics
    from schedc.dynamic.ssi import stress_index

    world = load_world(path)
    metrics = compute_metrics(world)
    return {"instance": world.name, "metrics": msgspec.to_builtins(metrics),
            "ssi": msgspec.to_builtins(stress_index(metrics))}


# --------------------------------------------------------------------------- plots


PLOT_VIEWS = ("machines", "jobs", "timeline")


def plot_file(spec: Path, answer: Path | None, out: Path, view: str = "machines", variant: str | None = None,
              seed: int = 42) -> Path:
    """``schedc plot``: a Gantt chart (machines or jobs) of an answer, or a dynamic shop's event timeline."""
    from schedc import plotting

    if view not in PLOT_VIEWS:
        raise SchedcError.at("E708", f"unknown view {view!r}; views: {', '.join(PLOT_VIEWS)}")
    if view == "timeline":
        from schedc.dynamic.timeline_plot import plot_event_timeline

        return plot_event_timeline(load_world(spec), out)
    if answer is None:
        raise SchedcError.at("E708", f"the {view} view draws an answer: give SPEC and ANSWER")
    from schedc.lang.family import load_family
    from schedc.lang.load import load_instance
    from schedc.pipeline.checking import read_answer, verifier_for

    instance = load_instance(spec)
    verifier = verifier_for(spec, variant=variant, seed=seed)
    solution = plotting.solution_from_answer(verifier, read_answer(answer))
    family = load_family(instance.family, [spec.parent])
    if not instance.activities:  # a slot family: its roster or timetable, whatever the view
        return plotting.plot_slots(instance, family, solution, out, title=f"{instance.name} — {answer.name}")
    draw = plotting.plot_gantt if view == "machines" else plotting.plot_job_gantt
    return draw(instance, solution, out, title=f"{instance.name} — {answer.name}", family=family)
