"""The Pyomo MILP backend (HiGHS through highspy by default): ``solve``, ``build_model``,
``fixed_verdict`` and the supported kinds.

The model (``model.py``) and one encoder per kind (``interval.py``, ``slot.py``) say how each
kind is linearised and why; ``solve.py`` runs the solver and verifies what it returns.
"""

from __future__ import annotations

from schedc.backends.pyomo import interval, objective, optional, sequencing, slot, ties  # noqa: F401  (registers the encoders)
from schedc.backends.pyomo.model import ENCODERS, PyomoModel
from schedc.backends.pyomo.solve import SolveOptions, check_solver, fixed_verdict, solve
from schedc.ir import Family, Instance
from schedc.solution import Solution

SUPPORTED_KINDS = frozenset(cls.__struct_config__.tag for cls in ENCODERS)


def build_model(instance: Instance, family: Family, fixed: Solution | None = None) -> PyomoModel:
    """The Pyomo model of ``instance`` (``.model`` is the ``ConcreteModel``); with ``fixed``,
    every decision is fixed to that solution."""
    return PyomoModel(instance, family, fixed)


__all__ = ["ENCODERS", "SUPPORTED_KINDS", "PyomoModel", "SolveOptions", "build_model", "check_solver",
           "fixed_verdict", "solve"]
