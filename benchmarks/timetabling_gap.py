"""CP-SAT on timetabling and rostering: gap to the best known value at a fixed budget.

For ITC-2007 comp01/comp04/comp05/comp07 and INRC-2010 sprint instances (those present under
DATA_DIR), solve with the CP-SAT backend and print status, objective, bound, BKS, gap and
the model-building time as a share of the budget.

    python benchmarks/timetabling_gap.py [DATA_DIR] [--time-limit 60] [--workers 2]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schedc.backends.cpsat import SolveOptions, solve  # noqa: E402
from schedc.family import load_family  # noqa: E402
from schedc.importers import import_paths  # noqa: E402

CASES = [("itc2007", "comp01.ctt"), ("itc2007", "comp04.ctt"), ("itc2007", "comp05.ctt"), ("itc2007", "comp07.ctt"),
         ("inrc2010", "sprint01.xml"), ("inrc2010", "sprint02.xml"), ("inrc2010", "sprint_late01.xml"),
         ("inrc2010", "sprint_hint01.xml")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(f"{'instance':<16}{'status':>10}{'objective':>11}{'bound':>9}{'bks':>6}{'gap %':>8}{'build s':>9}"
          f"{'build %':>9}")
    for fmt, name in CASES:
        path = args.data / fmt / name
        if not path.exists():
            continue
        [instance] = import_paths(fmt, [path], args.data / fmt / "bks.csv")
        result = solve(instance, load_family(instance.family),
                       SolveOptions(time_limit=args.time_limit, workers=args.workers, seed=0))
        gap = "-" if result.gap_pct is None else f"{result.gap_pct:.1f}"
        bound = "-" if result.bound is None else f"{result.bound:.0f}"
        print(f"{instance.name:<16}{result.status:>10}{result.objective if result.objective is not None else '-':>11}"
              f"{bound:>9}{instance.meta.bks if instance.meta.bks is not None else '-':>6}{gap:>8}"
              f"{result.build_seconds:>9.2f}{result.build_seconds / args.time_limit * 100:>9.1f}", flush=True)


if __name__ == "__main__":
    main()
