"""How long the MILP backend takes to build an instance's model and hand it to HiGHS (issue #19).

Per instance: the model build (encoders), the translation to HiGHS (main: Pyomo's standard form
into a ``HighsLp``; the light layer: its arrays through ``Highs.passModel``), and their total, as
wall seconds and as CPU seconds of this process (``time.process_time``), the best of ``--repeat``
runs by wall time; rows and columns of the matrices. The one-time imports of a
process (``highspy``, and for a checkout whose backend still compiles through Pyomo, Pyomo's
standard-form compiler with the ``scipy`` it loads) are paid before the first measurement by
building and translating a tiny model, so no instance pays them.

Runs against any checkout (``--code``): the current one, or an older one such as ``main`` before
the light linear layer, whose models go through Pyomo's ``LinearStandardFormCompiler``.

    python benchmarks/milp_build_time.py [DATA_DIR] [--code CHECKOUT] [--repeat 2] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def cases(data: Path) -> Iterator[tuple[str, str, list[Path], list[Path]]]:
    """(family, format, source files, NSPLib case files) of every measured instance group."""
    yield "itc2007", "itc2007", sorted((data / "itc2007").glob("*.ctt")), []
    yield "inrc2010", "inrc2010", sorted((data / "inrc2010").glob("*.xml")), []
    yield "nsplib", "nsplib", sorted((data / "nsplib").glob("N*/*.nsp")), \
        sorted((data / "nsplib" / "Cases").glob("*.gen"), key=lambda p: int(p.stem))
    yield "interval", "jsplib", [data / "jsplib" / "ft10.txt", data / "jsplib" / "ta41.txt"], []
    yield "interval", "psplib-sm", [data / "psplib-sm" / "j120" / "j1201_1.sm"], []
    yield "interval", "psplib-mm", sorted((data / "psplib-mm").glob("j10/*.mm"))[:1], []


def translator() -> Callable[[Any], tuple[Any, int, int]]:
    """Model → (the ``HighsLp``, rows, columns), as the checkout's backend does it."""
    from schedc.backends.pyomo import highs_direct

    if hasattr(highs_direct, "compile_lp"):  # before the light layer: Pyomo's standard-form compiler
        def through_pyomo(m: Any) -> tuple[Any, int, int]:
            lp, columns = highs_direct.compile_lp(m.model)
            return lp, lp.num_row_, len(columns)
        return through_pyomo

    def light(m: Any) -> tuple[Any, int, int]:
        highs = highs_direct._quiet_highs()
        matrices = m.store.matrices()
        highs_direct.pass_model(highs, matrices)
        return highs, matrices.num_row, matrices.num_col
    return light


def measure(instance: Any, translate: Callable[[Any], tuple[Any, int, int]]) -> tuple[float, float, float, int, int]:
    """(build wall s, translation wall s, total CPU s, rows, columns) of one build."""
    from schedc.backends.pyomo.model import PyomoModel
    from schedc.lang.family import load_family

    family = load_family(instance.family)
    wall, cpu = time.perf_counter(), time.process_time()
    m = PyomoModel(instance, family)
    built = time.perf_counter() - wall
    _lp, rows, cols = translate(m)
    return built, time.perf_counter() - wall - built, time.process_time() - cpu, rows, cols


def warm_up(translate: Callable[[Any], tuple[Any, int, int]]) -> None:
    """Pay every one-time import with a tiny model (ft06) before anything is timed."""
    from schedc.lang.load import load_instance

    measure(load_instance(ROOT / "examples" / "ft06.sched"), translate)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose backend is measured")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", action="append", default=[])
    args = parser.parse_args()
    sys.path.insert(0, str(args.code.resolve()))
    from schedc.backends.pyomo import model
    from schedc.core.diagnostics import SchedcError
    from schedc.importers import import_paths

    print(f"code: {Path(model.__file__).resolve().parent.parent.parent}")
    translate = translator()
    warm_up(translate)
    print(f"{'instance':<18}{'rows':>9}{'cols':>9}{'build s':>9}{'to HiGHS s':>11}{'wall s':>8}{'CPU s':>8}")
    for _family, fmt, paths, extra in cases(args.data):
        bks = paths[0].parent / "bks.csv" if paths else None
        if fmt == "nsplib":
            bks = args.data / "nsplib" / "bks.csv"
        for instance in import_paths(fmt, paths, bks if bks and bks.exists() else None, cases=extra):
            if args.only and instance.name not in args.only:
                continue
            try:
                runs = [measure(instance, translate) for _ in range(args.repeat)]
            except SchedcError as exc:
                print(f"{instance.name:<18}  refused: {str(exc).splitlines()[0][:80]}")
                continue
            built, compiled, cpu, rows, cols = min(runs, key=lambda r: r[0] + r[1])
            print(f"{instance.name:<18}{rows:>9,}{cols:>9,}{built:>9.3f}{compiled:>11.3f}{built + compiled:>8.3f}"
                  f"{cpu:>8.3f}", flush=True)


if __name__ == "__main__":
    main()
