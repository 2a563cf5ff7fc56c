"""PSPLIB ``.sm`` / ``.mm`` → IR (families ``rcpsp`` and ``mrcpsp``).

The two dummy jobs (source 1 and sink n+2) are not carried: their precedences add
nothing (the source starts at 0, the sink's start equals the makespan). Real job i+1
becomes activity ``A<i>`` (i = 1..n, file order), as in the canonical ``Activity <i>``
names. Renewable resources keep their names ``R1…``, non-renewable ``N1…``; a doubly
constrained resource ``D<k>`` becomes a renewable ``D<k>`` plus a non-renewable
``D<k>_total`` with the same amounts. Project information (release and due dates,
tardiness cost, MPM time) is not carried: the makespan objective does not use it.
"""

from __future__ import annotations

from pathlib import Path

from schedc.importers.common import BksRow, checked, make_meta
from schedc.importers.psplib_reader import PsplibData, read_psplib
from schedc.ir import Activity, Instance, Mode, Objective, Resource, Use
from schedc.kinds import CumulativeRenewable, Edge, ModeChoice, NonrenewableBudget, PrecedenceLag


def import_psplib(path: str | Path, bks: dict[str, BksRow] | None = None, multi_mode: bool | None = None) -> Instance:
    """Import one PSPLIB file; ``multi_mode`` defaults to the file ending (``.mm``)."""
    data = read_psplib(path)
    if multi_mode is None:
        multi_mode = Path(path).suffix.lower() == ".mm"
    return checked(psplib_to_ir(data, Path(path).name, bks, multi_mode))


def _resources(data: PsplibData) -> tuple[list[Resource], list[list[str]]]:
    """IR resources, and for each file resource the IR resources its amounts go to."""
    out: list[Resource] = []
    targets: list[list[str]] = []
    for r in data.resources:
        if r.kind == "doubly":
            out += [Resource(name=r.name, kind="renewable", capacity=r.capacity),
                    Resource(name=f"{r.name}_total", kind="nonrenewable", capacity=r.capacity)]
            targets.append([r.name, f"{r.name}_total"])
        else:
            out.append(Resource(name=r.name, kind=r.kind, capacity=r.capacity))
            targets.append([r.name])
    return out, targets


def psplib_to_ir(data: PsplibData, source: str, bks: dict[str, BksRow] | None, multi_mode: bool) -> Instance:
    """Convert a read PSPLIB record into an instance of ``rcpsp`` or ``mrcpsp``."""
    resources, targets = _resources(data)
    real = data.jobs[1:-1]
    names = {job.number: f"A{i}" for i, job in enumerate(real, start=1)}
    activities = tuple(
        Activity(name=names[job.number], modes=tuple(
            Mode(duration=m.duration, uses=tuple(Use(resource=t, amount=q)
                                                  for q, ts in zip(m.requests, targets, strict=True) if q for t in ts))
            for m in job.modes))
        for job in real)
    edges = tuple(Edge(before=names[job.number], after=names[s])
                  for job in real for s in job.successors if s in names)
    constraints: list = [PrecedenceLag(id="precedence", edges=edges)]
    if any(r.kind == "renewable" for r in resources):
        constraints.append(CumulativeRenewable(id="renewable"))
    if any(r.kind == "nonrenewable" for r in resources):
        constraints.append(NonrenewableBudget(id="nonrenewable"))
    constraints.append(ModeChoice(id="modes"))
    return Instance(name=data.name, family="mrcpsp" if multi_mode else "rcpsp",
                    meta=make_meta(data.name, f"PSPLIB {source}", bks), horizon=data.horizon,
                    resources=tuple(resources), activities=activities, constraints=tuple(constraints),
                    objective=Objective(measure="makespan"))
