"""Importers: canonical source files → IR instances, one module per format.

A stage (see ``tests/test_import_graph.py``). Takes in canonical source files; gives out IR instances
(checked by the semantic pass) and ``.sched`` files. Imports the language and everything below it;
never verification, renderings, grammars or backends.

``FORMATS`` maps the format names of ``schedc import`` to their single-file importers;
NSPLib instances are (problem file, case file) pairs and go through :func:`import_paths`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from schedc.core.diagnostics import SchedcError
from schedc.importers.common import BksRow, read_bks, write_atomic
from schedc.importers.inrc2010 import import_inrc2010
from schedc.importers.itc2007 import import_itc2007
from schedc.importers.itc2007_exam import import_itc2007_exam
from schedc.importers.jobshop import import_fjsp, import_jsplib
from schedc.importers.mspsp import import_mspsp
from schedc.importers.nsplib import import_nsplib
from schedc.importers.psplib import import_psplib
from schedc.ir import Instance

Importer = Callable[[Path, "dict[str, BksRow] | None"], Instance]


def _psplib(multi_mode: bool, project: bool = False) -> Importer:
    return lambda path, bks: import_psplib(path, bks, multi_mode=multi_mode, project=project)


FORMATS: dict[str, Importer] = {
    "jsplib": import_jsplib,
    "fjsp": import_fjsp,
    "psplib-sm": _psplib(False),
    "psplib-mm": _psplib(True),
    "psplib-sm-due": _psplib(False, project=True),  # with the project's due date and tardiness cost
    "psplib-mm-due": _psplib(True, project=True),
    "itc2007": import_itc2007,
    "itc2007-exam": import_itc2007_exam,
    "inrc2010": import_inrc2010,
    "mspsp": import_mspsp,  # iMOPSE MS-RCPSP .def files (makespan; salaries left out)
}
PAIR_FORMATS = {"nsplib"}
ALL_FORMATS = (*FORMATS, *PAIR_FORMATS)


def import_paths(fmt: str, paths: Sequence[Path], bks_path: Path | None = None,
                 cases: Sequence[Path] = ()) -> list[Instance]:
    """Import every source file (for ``nsplib``: every problem file × every case file)."""
    if fmt not in ALL_FORMATS:
        raise SchedcError.at("E300", f"unknown format {fmt!r}", hint="formats: " + ", ".join(ALL_FORMATS))
    if fmt in PAIR_FORMATS and not cases:
        raise SchedcError.at("E301", "nsplib instances are (.nsp, .gen) pairs: give at least one --case FILE")
    if fmt not in PAIR_FORMATS and cases:
        raise SchedcError.at("E301", "--case is only for the nsplib format")
    bks = read_bks(bks_path) if bks_path is not None else None
    if fmt in PAIR_FORMATS:
        jobs: list[Callable[[], Instance]] = [
            (lambda p=p, c=c: import_nsplib(p, c, bks)) for p in paths for c in cases]
    else:
        importer = FORMATS[fmt]
        jobs = [(lambda p=p: importer(Path(p), bks)) for p in paths]
    return _run_all(jobs)


def _run_all(jobs: Sequence[Callable[[], Instance]]) -> list[Instance]:
    """Run every import; if any fails, raise all their diagnostics together."""
    instances: list[Instance] = []
    errors: list[SchedcError] = []
    for job in jobs:
        try:
            instances.append(job())
        except SchedcError as exc:
            errors.append(exc)
    if errors:
        raise SchedcError.merge(errors)
    return instances


def write_instances(instances: Sequence[Instance], outdir: Path) -> list[Path]:
    """Write each instance as ``OUTDIR/<name>.sched`` (atomically); the written paths."""
    from schedc.lang.printer import print_instance

    names: dict[str, int] = {}
    for inst in instances:
        names[inst.name] = names.get(inst.name, 0) + 1
    clashes = [n for n, k in names.items() if k > 1]
    if clashes:
        raise SchedcError.at("E302", f"several sources give the same instance name: {', '.join(clashes)}",
                             hint="import them into different output folders")
    written = []
    for inst in instances:
        target = outdir / f"{inst.name}.sched"
        write_atomic(target, print_instance(inst))
        written.append(target)
    return written


__all__ = ["ALL_FORMATS", "FORMATS", "import_paths", "read_bks", "write_instances"]
