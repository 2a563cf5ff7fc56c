"""schedc's MILP (HiGHS) and CP-SAT models side by side on the same small instances.

Per instance: the MILP's size (rows, columns, nonzeros of the matrices HiGHS receives) and
the CP-SAT model's size (variables, constraints), then each backend's status,
objective and wall-clock time (model building included) under the same time limit and
number of threads, one run each in one process. The instances are those of
``tests/test_pyomo.py`` (examples are too small to time) plus a few larger ones where the
two solvers part ways:

    python benchmarks/milp_vs_cpsat.py [--time-limit 60] [--workers 2] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schedc.backends import cpsat  # noqa: E402
from schedc.backends import pyomo as milp  # noqa: E402
from schedc.ir import Instance  # noqa: E402
from schedc.lang.family import load_family  # noqa: E402
from tests.test_cpsat import imported  # noqa: E402
from tests.test_pyomo import SMALL_INSTANCES, keep_agents  # noqa: E402

LARGER: dict[str, Callable[[], Instance]] = {
    "mk01": lambda: imported("fjsp", "fjsp", "brandimarte", "Mk01.fjs"),
    "comp01_15courses": lambda: keep_agents(imported("itc2007", "itc2007", "comp01.ctt"), 15),
    "comp01": lambda: imported("itc2007", "itc2007", "comp01.ctt"),
    "sprint01": lambda: imported("inrc2010", "inrc2010", "sprint01.xml"),
}


def milp_size(model: milp.PyomoModel) -> tuple[int, int, int]:
    """(rows, columns, nonzeros) of the matrices handed to HiGHS: the columns are those some row or
    the objective uses."""
    matrices = model.store.matrices()
    used = set(matrices.index.tolist()) | set(matrices.cost.nonzero()[0].tolist())
    return matrices.num_row, len(used), int((matrices.value != 0).sum())


def cpsat_size(model: cpsat.CpsatModel) -> tuple[int, int]:
    proto = model.model.Proto()
    return len(proto.variables), len(proto.constraints)


def run(name: str, instance: Instance, time_limit: float, workers: int) -> list[str]:
    family = load_family(instance.family)
    rows, cols, nnz = milp_size(milp.build_model(instance, family))
    variables, constraints = cpsat_size(cpsat.CpsatModel(instance, family))
    found = milp.solve(instance, family, milp.SolveOptions(time_limit=time_limit, workers=workers, seed=1))
    reference = cpsat.solve(instance, family, cpsat.SolveOptions(time_limit=time_limit, workers=workers, seed=1))
    agree = "yes" if (found.status, reference.status) == ("optimal", "optimal") and \
        found.objective == reference.objective else "-"
    return [name, f"{rows:,}", f"{cols:,}", f"{nnz:,}", f"{variables:,}", f"{constraints:,}",
            _outcome(found), f"{found.seconds:.2f}", _outcome(reference), f"{reference.seconds:.2f}", agree]


def _outcome(result: object) -> str:
    status = {"optimal": "opt", "feasible": "feas"}.get(result.status, result.status)  # type: ignore[attr-defined]
    objective = result.objective  # type: ignore[attr-defined]
    return f"{objective} {status}" if objective is not None else status


HEADER = ["instance", "MILP rows", "cols", "nonzeros", "CP-SAT vars", "constraints", "HiGHS", "s", "CP-SAT", "s",
          "same optimum"]


def print_table(rows: list[list[str]]) -> None:
    widths = [max(len(str(r[i])) for r in [HEADER, *rows]) for i in range(len(HEADER))]
    for row in [HEADER, ["-" * w for w in widths], *rows]:
        print(" | ".join(str(cell).rjust(w) if i else str(cell).ljust(w)
                         for i, (cell, w) in enumerate(zip(row, widths, strict=True))), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", nargs="*", help="instance names (default: all)")
    args = parser.parse_args()
    catalogue = {**SMALL_INSTANCES, **LARGER}
    names = args.only or list(catalogue)
    unknown = [n for n in names if n not in catalogue]
    if unknown:
        parser.error(f"unknown instances {unknown}; known: {', '.join(catalogue)}")
    print(f"time limit {args.time_limit:g} s, {args.workers} threads each; times include model building\n")
    print_table([run(name, catalogue[name](), args.time_limit, args.workers) for name in names])


if __name__ == "__main__":
    main()
