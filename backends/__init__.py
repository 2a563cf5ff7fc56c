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
from schedc.core.extras import missing_extra

BACKENDS = {"cpsat": "schedc.backends.cpsat", "pyomo": "schedc.backends.pyomo", "auto": "schedc.backends.portfolio"}


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
