"""Solver backends, found by name: each compiles the IR through a table of per-kind encoders.

A stage (see ``tests/test_import_graph.py``). Takes in an instance and its family; gives out verified
solver results (CP-SAT, the MILP through HiGHS, the portfolio of both) and, in ``search/``, schedules
found outside the solvers. Imports the stages below (the shared evaluator judges every result); never
the pipeline, variants, benchmarks, dynamic shops or the CLI.

A new backend is one subpackage exposing ``SUPPORTED_KINDS``, ``SolveOptions`` and
``solve(instance, family, options, progress)`` plus one line in :data:`BACKENDS`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from schedc.core.diagnostics import SchedcError
from schedc.core.extras import installed, missing_extra
from schedc.ir import Family

BACKENDS = {"cpsat": "schedc.backends.cpsat", "pyomo": "schedc.backends.pyomo", "auto": "schedc.backends.portfolio"}


def default_backend(family: Family, workers: int = 2) -> str:
    """The backend a solve without ``--backend`` uses: ``auto`` (the portfolio) for slot models
    (rosters, timetables, any family of ``structure slot``) when the ``milp`` extra is installed
    and there are at least two workers to share; ``cpsat`` otherwise.

    Why per structure (measured with ``benchmarks/default_backend.py``, docs/solving.md, "The
    default backend"): on the INRC-2010 and NSPLib rosters HiGHS's MILP gives most of the best
    answers and proofs, and the portfolio never lost to CP-SAT alone; on interval models
    (job shops, RCPSP) the portfolio takes a search worker from CP-SAT for HiGHS, whose bounds and
    answers there are weak, and it lost. On room-and-period timetables ``auto`` itself runs CP-SAT
    alone with HiGHS's probe (:func:`schedc.backends.cpsat.anneals`), so both rules agree. With
    one worker the portfolio halves each solver's budget, which was not measured, so CP-SAT
    keeps the whole budget. The choice is the same for every instance of a family.
    """
    if family.structure == "slot" and workers >= 2 and installed("milp"):
        return "auto"
    return "cpsat"


def get_backend(name: str) -> ModuleType:
    """The backend module called ``name`` (a SchedcError naming the known ones otherwise)."""
    module = BACKENDS.get(name)
    if module is None:
        raise SchedcError.at("E500", f"unknown backend {name!r}", hint="backends: " + ", ".join(BACKENDS))
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:  # an optional solver package (the pyomo backend's extra)
        error = missing_extra(exc, f"the {name} backend")
        if error is None:
            raise
        raise error from None
