"""JSPLib (standard or Taillard layout) and FJSP ``.fjs`` → IR (families ``jobshop``, ``fjsp``).

Job j (1-based, file order) becomes ``J<j>``; its k-th operation the activity ``J<j>.<k>``
(job ``J<j>``, step k); machine m (0-based in JSPLib, 1-based in ``.fjs``) becomes the unary
resource ``M<m+1>`` resp. ``M<m>`` — the canonical ``Job j step k`` / ``Machine m`` names.
In FJSP each eligible machine of an operation is one mode (its processing time, a unit use
of that machine). Route order is a chain of ``precedence_lag`` edges per job.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from schedc.importers.common import BksRow, checked, make_meta
from schedc.importers.fjsp_reader import read_fjsp
from schedc.importers.jsplib_reader import read_jobshop
from schedc.ir import Activity, Instance, Meta, Mode, Objective, Resource, Use
from schedc.kinds import Edge, ModeChoice, PrecedenceLag, UnaryNoOverlap

HURINK_SETS = ("edata", "rdata", "vdata", "sdata")


def import_jsplib(path: str | Path, bks: dict[str, BksRow] | None = None) -> Instance:
    """Import one JSPLib instance (standard layout or Taillard's original layout)."""
    data = read_jobshop(path)
    path = Path(path)
    meta = make_meta(data.name, f"JSPLib {path.name}", bks)
    if meta.bks is None and data.upper_bound is not None:  # Taillard headers carry bounds
        meta = Meta(source=meta.source, bks=data.upper_bound, lower_bound=data.lower_bound,
                    bks_kind="optimal" if data.upper_bound == data.lower_bound else "upper_bound",
                    bks_source=f"Taillard header of {path.name}")
    jobs = [[((m + 1,), (d,)) for m, d in job] for job in data.jobs]
    return checked(_routes_to_ir(data.name, "jobshop", meta, data.n_machines, jobs))


def fjsp_instance_name(path: Path) -> str:
    """``mk01`` for Brandimarte's ``Mk01.fjs``; ``la01_edata`` for Hurink's ``edata/la01.fjs``."""
    stem = path.stem.lower()
    return f"{stem}_{path.parent.name}" if path.parent.name in HURINK_SETS else stem


def import_fjsp(path: str | Path, bks: dict[str, BksRow] | None = None) -> Instance:
    """Import one flexible job shop ``.fjs`` file."""
    path = Path(path)
    data = read_fjsp(path)
    name = fjsp_instance_name(path)
    jobs = [[(tuple(m for m, _ in op), tuple(d for _, d in op)) for op in job] for job in data.jobs]
    return checked(_routes_to_ir(name, "fjsp", make_meta(name, f"FJSP {path.parent.name}/{path.name}", bks),
                                 data.n_machines, jobs))


def _routes_to_ir(name: str, family: str, meta: Meta, n_machines: int,
                  jobs: Sequence[Sequence[tuple[tuple[int, ...], tuple[int, ...]]]]) -> Instance:
    """Build the instance from routes: per job, per operation, (1-based machines, durations)."""
    resources = tuple(Resource(name=f"M{m}", kind="unary") for m in range(1, n_machines + 1))
    activities: list[Activity] = []
    edges: list[Edge] = []
    for j, ops in enumerate(jobs, start=1):
        job = f"J{j}"
        for k, (machines, durations) in enumerate(ops, start=1):
            modes = tuple(Mode(duration=d, uses=(Use(resource=f"M{m}"),)) for m, d in zip(machines, durations,
                                                                                      strict=True))
            activities.append(Activity(name=f"{job}.{k}", modes=modes, job=job, step=k))
            if k > 1:
                edges.append(Edge(before=f"{job}.{k - 1}", after=f"{job}.{k}"))
    constraints = (PrecedenceLag(id="routes", edges=tuple(edges)), UnaryNoOverlap(id="machines"),
                   ModeChoice(id="modes"))
    return Instance(name=name, family=family, meta=meta, resources=resources, activities=tuple(activities),
                    constraints=constraints, objective=Objective(measure="makespan"))
