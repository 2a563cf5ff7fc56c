"""The MILP backend (HiGHS through highspy by default, any Pyomo solver on request): ``solve``,
``build_model``, ``fixed_verdict`` and the supported kinds.

The model (``model.py``) and one encoder per kind (``interval.py``, ``slot.py``) say how each
kind is linearised and why; the model goes into the light linear layer (``linear.py``) on the
way to HiGHS, or into a Pyomo ``ConcreteModel`` (``pyomo_store.py``) for other solvers and LP/MPS
files; ``solve.py`` runs the solver and verifies what it returns.
"""

from __future__ import annotations

from schedc.backends.pyomo import (  # noqa: F401  (registers the encoders)
    interval,
    measures,
    objective,
    optional,
    sequencing,
    skills,
    slot,
    ties,
)
from schedc.backends.pyomo.model import ENCODERS, PyomoModel, StoreName
from schedc.backends.pyomo.solve import SolveOptions, check_solver, fixed_verdict, probe, solve
from schedc.core.solution import Solution
from schedc.ir import Family, Instance

SUPPORTED_KINDS = frozenset(cls.__struct_config__.tag for cls in ENCODERS)


def build_model(instance: Instance, family: Family, fixed: Solution | None = None,
                store: StoreName = "light") -> PyomoModel:
    """The MILP of ``instance`` in the light layer, or with ``store="pyomo"`` as a Pyomo model
    (``.model`` is then the ``ConcreteModel``); with ``fixed``, every decision is fixed to that solution."""
    return PyomoModel(instance, family, fixed, store)


__all__ = ["ENCODERS", "SUPPORTED_KINDS", "PyomoModel", "SolveOptions", "build_model", "check_solver",
           "fixed_verdict", "probe", "solve"]
