"""Timetabling, rostering and nurse scheduling: gap to the best known value at a fixed budget.

Every ITC-2007 ``.ctt``, every INRC-2010 ``.xml`` and every NSPLib (``N*/*.nsp`` × ``Cases/*.gen``)
instance found under DATA_DIR is solved with the chosen backend (``auto`` is the portfolio that
``bench validate`` uses) at the same budget and workers. Per instance it prints the status, the
objective, the proven lower bound, the best known value, the gap and the model-building time as
a share of the budget and the wall time; then per family the number feasible, the number proven optimal, the
median gap over the instances that have a best known value, the worst build share and the longest wall time;
INRC-2010 has a row per track as well (sprint, medium, long).

Each instance is solved once per ``--seed`` (default: the one seed 0 of ``schedc solve``). A
single seed is a single draw: on comp05 the annealing's answer spreads over some 40 points from
seed to seed (docs/solving.md). With several seeds the family rows are per seed, followed by
each family's median gaps by seed and their median.

    python benchmarks/timetabling_gap.py [DATA_DIR] [--time-limit 20] [--workers 2]
        [--backend auto|cpsat|pyomo] [--family itc2007 --family inrc2010 ...] [--only NAME ...]
        [--nsplib-cases K] [--seed S ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.data_dirs import default_sources  # noqa: E402
from schedc.backends import cpsat, portfolio, pyomo  # noqa: E402
from schedc.backends.base import SolveResult  # noqa: E402
from schedc.backends.search import ctt_search  # noqa: E402
from schedc.importers import import_paths  # noqa: E402
from schedc.ir import Instance  # noqa: E402
from schedc.lang.family import load_family  # noqa: E402

FAMILIES = ("itc2007", "inrc2010", "nsplib")


def instances(data: Path, family: str, nsplib_cases: int) -> Iterator[Instance]:
    """The family's instances under ``data``, in file-name order (NSPLib: problems × the first K cases)."""
    folder = data / family
    bks = folder / "bks.csv"
    bks_path = bks if bks.exists() else None
    if family == "itc2007":
        paths = sorted(folder.glob("*.ctt"))
    elif family == "inrc2010":
        paths = sorted(folder.glob("*.xml"))
    else:
        problems = sorted(folder.glob("N*/*.nsp"), key=lambda p: (p.parent.name, int(p.stem) if p.stem.isdigit()
                                                                  else 0, p.stem))
        cases = sorted(folder.glob("Cases/*.gen"), key=lambda p: int(p.stem) if p.stem.isdigit() else 0)
        cases = cases[:nsplib_cases] if nsplib_cases else cases
        if problems and cases:
            yield from import_paths("nsplib", problems, bks_path, cases=cases)
        return
    for path in paths:
        yield from import_paths(family, [path], bks_path)


def run(instance: Instance, backend: str, time_limit: float, workers: int, seed: int = 0) -> SolveResult:
    family = load_family(instance.family)
    if backend == "auto":
        return portfolio.solve(instance, family, portfolio.SolveOptions(time_limit=time_limit, workers=workers,
                                                                         seed=seed))
    module = cpsat if backend == "cpsat" else pyomo
    return module.solve(instance, family, module.SolveOptions(time_limit=time_limit, workers=workers, seed=seed))


#: INRC-2010's three tracks, named by the start of each instance's name; the issue's gap targets
#: are per track
INRC_TRACKS = ("sprint", "medium", "long")


def groups(family: str, name: str) -> list[str]:
    """The summary rows an instance counts in: its family, and for INRC-2010 its track as well."""
    tracks = [t for t in INRC_TRACKS if family == "inrc2010" and name.startswith(t)]
    return [family] + [f"{family}/{t}" for t in tracks]


def _fmt(value: float | int | None, spec: str = "") -> str:
    return "-" if value is None else format(value, spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=default_sources(),
                        help="default: ../shared/data, else examples/sources")
    parser.add_argument("--time-limit", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--backend", choices=("auto", "cpsat", "pyomo"), default="auto")
    parser.add_argument("--family", action="append", choices=FAMILIES, help="default: all three")
    parser.add_argument("--only", action="append", default=[], help="instance names to run (default: all)")
    parser.add_argument("--nsplib-cases", type=int, default=0, help="NSPLib: the first K case files (0: all)")
    parser.add_argument("--seed", type=int, action="append", help="solve each instance once per seed (default: 0)")
    args = parser.parse_args()
    seeds = list(dict.fromkeys(args.seed or [0]))  # a seed given twice is one seed
    seed_header = f"{'seed':>6}" if len(seeds) > 1 else ""

    def seed_column(seed: int) -> str:
        return f"{seed:>6}" if len(seeds) > 1 else ""

    print(f"backend {args.backend}, {args.time_limit:g} s, {args.workers} workers")
    if "itc2007" in (args.family or FAMILIES):
        # the annealing kernel is compiled on first use (then cached): not inside an instance's budget
        print(f"timetable annealing kernel compiled or loaded in {ctt_search.warm_up():.1f} s")
    print(f"{'instance':<22}{seed_header}{'status':>10}{'objective':>11}{'bound':>9}{'bks':>6}{'gap %':>9}"
          f"{'build s':>9}{'build %':>9}{'wall s':>8}")
    summary: dict[tuple[str, int], list[SolveResult]] = {}
    for family in args.family or FAMILIES:
        for instance in instances(args.data, family, args.nsplib_cases):
            if args.only and instance.name not in args.only:
                continue
            for seed in seeds:
                result = run(instance, args.backend, args.time_limit, args.workers, seed)
                for group in groups(family, instance.name):
                    summary.setdefault((group, seed), []).append(result)
                print(f"{instance.name:<22}{seed_column(seed)}{result.status:>10}{_fmt(result.objective):>11}"
                      f"{_fmt(result.bound, '.0f'):>9}"
                      f"{_fmt(result.bks):>6}{_fmt(result.gap_pct, '.1f'):>9}{result.build_seconds:>9.2f}"
                      f"{result.build_seconds / args.time_limit * 100:>9.1f}{result.seconds:>8.1f}", flush=True)
    print()
    print(f"{'family':<16}{seed_header}{'instances':>10}{'feasible':>9}{'optimal':>8}{'median gap %':>13}"
          f"{'worst build %':>14}{'longest wall s':>15}")
    medians: dict[str, dict[int, float]] = {}
    for family in dict.fromkeys(group for group, _seed in summary):
        for seed in seeds:
            results = summary[family, seed]
            gaps = [r.gap_pct for r in results if r.gap_pct is not None]
            feasible = sum(r.objective is not None for r in results)
            optimal = sum(r.status == "optimal" for r in results)
            worst_build = max(r.build_seconds for r in results) / args.time_limit * 100
            if gaps:
                medians.setdefault(family, {})[seed] = statistics.median(gaps)
            median = f"{medians[family][seed]:.1f}" if gaps else "-"
            longest = max(r.seconds for r in results)
            print(f"{family:<16}{seed_column(seed)}{len(results):>10}{feasible:>9}{optimal:>8}{median:>13}"
                  f"{worst_build:>14.1f}{longest:>15.1f}")
    if len(seeds) > 1:
        print()
        for family, by_seed in medians.items():
            listed = ", ".join(f"{seed}: {value:.1f}" for seed, value in by_seed.items())
            print(f"{family}: median gap % by seed {listed}; their median {statistics.median(by_seed.values()):.1f}")


if __name__ == "__main__":
    main()
