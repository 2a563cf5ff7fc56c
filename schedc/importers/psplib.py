"""PSPLIB ``.sm`` / ``.mm`` → IR (families ``rcpsp`` and ``mrcpsp``).

The two dummy jobs (source 1 and sink n+2) are not carried: their precedences add
nothing (the source starts at 0, the sink's start equals the makespan). Real job i+1
becomes activity ``A<i>`` (i = 1..n, file order), as in the canonical ``Activity <i>``
names. Renewable resources keep their names ``R1…``, non-renewable ``N1…``; a doubly
constrained resource ``D<k>`` becomes a renewable ``D<k>`` plus a non-renewable
``D<k>_total`` with the same amounts.

Project information (the formats ``psplib-sm-due`` and ``psplib-mm-due``, ``project=True``): the
PROJECT INFORMATION row's release date, due date and tardiness cost are carried as the instance
``<name>_due`` whose objective is the project's tardiness cost. The project's completion is that of
its supersink, kept as the milestone activity ``A<n+1>`` (duration 0, no resources) after every
activity the file links to the sink; its ``time_window`` row holds ``due=DUEDATE weight=TARDCOST``,
so ``minimize tardiness`` is ``TARDCOST · max(0, C − DUEDATE)`` with ``C`` the makespan, the only
due date of the instance. A release date above 0 becomes a ``time_window`` row of every activity
(it is 0 in every PSPLIB file here). The MPM time is a makespan lower bound, not data of the model.
Without ``project`` (formats ``psplib-sm``/``psplib-mm``) none of it is carried: the makespan
objective does not use it.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.importers.common import BksRow, checked, make_meta
from schedc.importers.psplib_reader import PsplibData, read_psplib
from schedc.ir import Activity, Instance, Mode, Objective, Resource, Use
from schedc.kinds import CumulativeRenewable, Edge, ModeChoice, NonrenewableBudget, PrecedenceLag, TimeWindow
from schedc.kinds.timing import Window


def import_psplib(path: str | Path, bks: dict[str, BksRow] | None = None, multi_mode: bool | None = None,
                  project: bool = False) -> Instance:
    """Import one PSPLIB file; ``multi_mode`` defaults to the file ending (``.mm``); ``project``
    carries the project information (module docstring)."""
    data = read_psplib(path)
    if multi_mode is None:
        multi_mode = Path(path).suffix.lower() == ".mm"
    instance = psplib_to_ir(data, Path(path).name, None if project else bks, multi_mode)
    return checked(with_project_info(instance, data, str(path)) if project else instance)


def with_project_info(instance: Instance, data: PsplibData, file: str) -> Instance:
    """``instance`` with the milestone ``A<n+1>``, the due date and tardiness cost of the project as
    its ``time_window`` row, the release date on every activity, and the tardiness objective."""
    info = data.projects[0] if len(data.projects) == 1 else None
    if info is None or info.due_date is None or info.tard_cost is None:
        raise SchedcError.at("I316", "expected one PROJECT INFORMATION row with duedate and tardcost "
                             f"(found {len(data.projects)} rows)", file=file,
                             hint="psplib-sm-due/psplib-mm-due need the project information; use psplib-sm/-mm")
    sink = data.jobs[-1].number
    end = f"A{len(data.jobs) - 1}"
    names = {job.number: f"A{i}" for i, job in enumerate(data.jobs[1:-1], start=1)}
    before_sink = [names[job.number] for job in data.jobs[1:-1] if sink in job.successors]
    milestone = Activity(name=end, modes=(Mode(duration=0, uses=()),))
    constraints = []
    for c in instance.constraints:
        if isinstance(c, PrecedenceLag):
            c = msgspec.structs.replace(c, edges=c.edges + tuple(Edge(before=a, after=end) for a in before_sink))
        constraints.append(c)
    windows = [Window(target=a.name, release=info.release_date or 0) for a in instance.activities
               if info.release_date]
    windows.append(Window(target=end, release=info.release_date or 0, due=info.due_date, weight=info.tard_cost))
    constraints.append(TimeWindow(id="project", windows=tuple(windows)))
    return msgspec.structs.replace(instance, name=f"{instance.name}_due", activities=instance.activities + (milestone,),
                                   constraints=tuple(constraints), objective=Objective(measure="tardiness"))


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
