"""HiGHS behind the MILP backend: the matrix hand-over vs Pyomo's persistent ``highs`` interface.

For each instance the model is built once per side — by the same encoders, as a Pyomo model for
the persistent interface and in the light linear layer for the matrix hand-over (the backend's
path) — and solved by HiGHS with the same options and time limit, alternating which side goes
first. Printed per instance: the seconds from the built model to HiGHS's answer (translation plus
search) on each side, the objective and bound each reached, and the ratio matrix/persistent.

    python benchmarks/highs_translation.py [DATA_DIR] [--time-limit 5] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import importlib  # noqa: E402

from benchmarks.data_dirs import default_sources  # noqa: E402
from schedc.backends.pyomo.highs_direct import solve_direct  # noqa: E402
from schedc.backends.pyomo.model import PyomoModel  # noqa: E402
from schedc.importers import import_paths  # noqa: E402
from schedc.ir import Instance  # noqa: E402
from schedc.lang.family import load_family  # noqa: E402

pyomo_solve = importlib.import_module("schedc.backends.pyomo.solve")  # the package re-exports a function `solve`

CASES = [("jsplib", "ft10.txt"), ("jsplib", "la21.txt"), ("psplib-sm", "j60/j601_1.sm"), ("itc2007", "comp01.ctt"),
         ("itc2007", "comp05.ctt"), ("itc2007", "comp12.ctt"), ("inrc2010", "sprint01.xml"),
         ("inrc2010", "medium01.xml")]
FOLDER: dict[str, str] = {}


def persistent(model: PyomoModel, time_limit: float) -> tuple[float | None, float | None]:
    """Pyomo's persistent interface (``pyomo.contrib.solver.solvers.highs``), as the backend used before."""
    from pyomo.contrib.solver.common.results import SolutionStatus
    from pyomo.contrib.solver.solvers.highs import Highs

    options = pyomo_solve._highs_options(pyomo_solve.SolveOptions(time_limit=time_limit, workers=1))
    threads = int(options.pop("threads"))  # type: ignore[call-overload]
    pyomo_solve._use_threads(threads)
    results = Highs().solve(model.model, time_limit=time_limit, threads=threads, load_solutions=False,
                            raise_exception_on_nonoptimal_result=False, solver_options=options)
    loaded = results.solution_status in (SolutionStatus.optimal, SolutionStatus.feasible)
    return (results.incumbent_objective if loaded else None), results.objective_bound


def matrix(model: PyomoModel, time_limit: float) -> tuple[float | None, float | None]:
    options = pyomo_solve._highs_options(pyomo_solve.SolveOptions(time_limit=time_limit, workers=1))
    pyomo_solve._use_threads(int(options["threads"]))  # type: ignore[call-overload]
    run = solve_direct(model.store, time_limit, options)
    return run.objective, run.bound


def timed(side, instance: Instance, time_limit: float) -> tuple[float, float | None, float | None]:  # type: ignore[no-untyped-def]
    model = PyomoModel(instance, load_family(instance.family), store="pyomo" if side is persistent else "light")
    began = time.perf_counter()
    objective, bound = side(model, time_limit)
    return time.perf_counter() - began, objective, bound


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=default_sources(),
                        help="default: ../shared/data, else examples/sources")
    parser.add_argument("--time-limit", type=float, default=5.0)
    parser.add_argument("--only", action="append", default=[])
    args = parser.parse_args()
    print(f"HiGHS, {args.time_limit:g} s, 1 thread; seconds from the built model to the answer")
    print(f"{'instance':<14}{'persistent s':>13}{'obj':>7}{'bound':>7}{'matrix s':>10}{'obj':>7}{'bound':>7}"
          f"{'ratio':>7}")
    ratios = []
    for index, (fmt, name) in enumerate(CASES):
        path = args.data / FOLDER.get(fmt, fmt) / name
        if not path.exists() or (args.only and path.stem not in args.only):
            continue
        [instance] = import_paths(fmt, [path])
        sides = [("persistent", persistent), ("matrix", matrix)]
        if index % 2:
            sides.reverse()  # alternate which side runs first (caches, the machine's other load)
        measured = {label: timed(side, instance, args.time_limit) for label, side in sides}
        (p_s, p_obj, p_bound), (m_s, m_obj, m_bound) = measured["persistent"], measured["matrix"]
        ratios.append(m_s / p_s)
        print(f"{instance.name:<14}{p_s:>13.2f}{_fmt(p_obj):>7}{_fmt(p_bound):>7}{m_s:>10.2f}{_fmt(m_obj):>7}"
              f"{_fmt(m_bound):>7}{m_s / p_s:>7.2f}", flush=True)
    if ratios:
        print(f"\nmedian ratio matrix/persistent {statistics.median(ratios):.2f}, worst {max(ratios):.2f}")


if __name__ == "__main__":
    main()
