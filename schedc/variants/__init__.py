"""New verified instances from old ones: ``schedc tighten`` (a hard bound at factor × z*) and
``schedc perturb`` (variants at the feasibility boundary, or changes a certificate keeps feasible).

A stage (see ``tests/test_import_graph.py``). Takes in an instance; gives out new instances and their
manifests, solved and checked by the stages below. Imports the pipeline and everything below; never
plotting, benchmarks, dynamic shops or the CLI.

Every variant is an ordinary ``.sched`` instance whose ``meta`` records its base, derivation,
seed and change list; it is parsed back and checked before it is written.
"""

from __future__ import annotations

from schedc.variants.boundary import Boundary, boundary_variants
from schedc.variants.common import Reference, reference_value, solve_instance, write_instance
from schedc.variants.tighten import Tightened, tighten, tighten_file

__all__ = ["Boundary", "Reference", "Tightened", "boundary_variants", "reference_value", "solve_instance", "tighten",
           "tighten_file", "write_instance"]
