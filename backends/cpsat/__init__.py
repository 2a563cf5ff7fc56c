"""The CP-SAT backend (OR-Tools): ``solve``, ``build`` and the supported kinds."""

from __future__ import annotations

from schedc.backends.cpsat import (  # noqa: F401  (registers the encoders)
    interval,
    measures,
    objective,
    optional,
    sequencing,
    skills,
    slot,
    ties,
)
from schedc.backends.cpsat.model import ENCODERS, CpsatModel
from schedc.backends.cpsat.solve import SolveOptions, anneals, solve

SUPPORTED_KINDS = frozenset(cls.__struct_config__.tag for cls in ENCODERS)

__all__ = ["ENCODERS", "SUPPORTED_KINDS", "CpsatModel", "SolveOptions", "anneals", "solve"]
