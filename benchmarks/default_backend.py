"""Which backend ``schedc solve`` should use by default: ``cpsat`` against ``auto`` on every family.

Every instance found under DATA_DIR (JSPLib, PSPLIB single- and multi-mode, flexible job shop,
ITC-2007, INRC-2010, NSPLib) is solved twice in one process at the same budget, workers and
seed: once as ``--backend cpsat`` runs it (:func:`schedc.backends.portfolio.solve_cpsat`: CP-SAT
with every worker, HiGHS probing for infeasibility while CP-SAT has no start) and once as
``--backend auto`` (:func:`schedc.backends.portfolio.solve`: the portfolio). Who goes first
alternates from instance to instance, so that neither side always meets the same machine load.
Per instance it prints both objectives, which one is better (marked ``=`` where both backends
run the same code, :func:`same_path`, so that a difference is a time-bound search's run-to-run
spread) and what the default rule
(:func:`schedc.backends.default_backend`) picks; per family, how often ``auto`` won, tied and
lost, both mean gaps to the best known value, both counts of proven optima, both mean wall
times, and whether the default never lost to ``cpsat`` there.

    python benchmarks/default_backend.py [DATA_DIR] [--time-limit 10] [--workers 2]
        [--family jsplib --family inrc2010 ...] [--every K] [--nsplib-cases K]
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
from benchmarks.timetabling_gap import FAMILIES as SLOT_FAMILIES  # noqa: E402
from benchmarks.timetabling_gap import instances as slot_instances  # noqa: E402
from schedc.backends import cpsat, default_backend, portfolio  # noqa: E402
from schedc.backends.base import SolveResult  # noqa: E402
from schedc.backends.search import ctt_search  # noqa: E402
from schedc.importers import import_paths  # noqa: E402
from schedc.ir import Instance  # noqa: E402
from schedc.lang.family import load_family  # noqa: E402

#: the interval families: (format, the glob of its files under DATA_DIR/format)
INTERVAL_FAMILIES = {"jsplib": "*.txt", "psplib-sm": "*/*.sm", "psplib-mm": "*/*.mm", "fjsp": "*/**/*.fjs"}
FAMILIES = (*INTERVAL_FAMILIES, *SLOT_FAMILIES)


def interval_instances(data: Path, fmt: str) -> Iterator[Instance]:
    """The format's instances under ``data``, in path order, each with its best known value."""
    for path in sorted((data / fmt).glob(INTERVAL_FAMILIES[fmt])):
        bks = next((p / "bks.csv" for p in path.parents if (p / "bks.csv").exists()), None)
        yield from import_paths(fmt, [path], bks)


def both(instance: Instance, time_limit: float, workers: int, seed: int,
         auto_first: bool) -> tuple[SolveResult, SolveResult]:
    """(``cpsat``'s result, ``auto``'s result), run one after the other in the given order."""
    family = load_family(instance.family)

    def alone() -> SolveResult:
        return portfolio.solve_cpsat(instance, family, cpsat.SolveOptions(time_limit=time_limit, workers=workers,
                                                                          seed=seed))

    def together() -> SolveResult:
        return portfolio.solve(instance, family, portfolio.SolveOptions(time_limit=time_limit, workers=workers,
                                                                        seed=seed))

    if auto_first:
        mixed = together()
        return alone(), mixed
    single = alone()
    return single, together()


def same_path(instance: Instance, workers: int) -> bool:
    """Whether ``auto`` runs what ``cpsat`` runs on the instance: CP-SAT alone (no MILP encodes every
    active kind) or a room-and-period timetable that CP-SAT anneals on every core
    (:func:`schedc.backends.portfolio.solve`). There a difference is the run-to-run spread of a
    time-bound search, not a difference of the backends."""
    family = load_family(instance.family)
    return len(portfolio.supporting(instance)) < 2 or (workers >= 2 and cpsat.anneals(instance, family))


def verdict(single: SolveResult, mixed: SolveResult) -> str:
    """``win``, ``tie`` or ``loss`` of ``auto`` against ``cpsat``: a proof of infeasibility or an
    answer beats none, a smaller objective beats a larger one, and at equal objectives a proof of
    optimality beats none."""
    def rank(r: SolveResult) -> tuple[int, float, int]:
        if r.status == "infeasible":
            return (0, 0.0, 0)
        if r.objective is None:
            return (2, 0.0, 0)
        return (1, r.objective, 0 if r.status == "optimal" else 1)

    a, c = rank(mixed), rank(single)
    return "tie" if a == c else "win" if a < c else "loss"


def _fmt(value: float | int | None, spec: str = "") -> str:
    return "-" if value is None else format(value, spec)


def _outcome(r: SolveResult) -> str:
    return r.status if r.objective is None else f"{r.objective:g}{'*' if r.status == 'optimal' else ''}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=default_sources(),
                        help="default: ../shared/data, else examples/sources")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--family", action="append", choices=FAMILIES, help="default: all")
    parser.add_argument("--every", type=int, default=1, help="every K-th instance of each family (default: all)")
    parser.add_argument("--nsplib-cases", type=int, default=0, help="NSPLib: the first K case files (0: all)")
    args = parser.parse_args()
    chosen = args.family or list(FAMILIES)
    print(f"cpsat against auto, {args.time_limit:g} s, {args.workers} workers, seed {args.seed}")
    if "itc2007" in chosen:  # the annealing kernel is compiled on first use (then cached): not inside a budget
        print(f"timetable annealing kernel compiled or loaded in {ctt_search.warm_up():.1f} s")
    print(f"{'instance':<20}{'bks':>7}{'cpsat':>10}{'auto':>10}{'auto is':>9}{'default':>9}"
          f"{'cpsat s':>9}{'auto s':>8}{'first':>7}")
    rows: dict[str, list[tuple[SolveResult, SolveResult, str, str]]] = {}
    k = 0
    for fam in chosen:
        found = (slot_instances(args.data, fam, args.nsplib_cases) if fam in SLOT_FAMILIES
                 else interval_instances(args.data, fam))
        for index, instance in enumerate(found):
            if index % args.every:
                continue
            auto_first = bool(k % 2)
            k += 1
            single, mixed = both(instance, args.time_limit, args.workers, args.seed, auto_first)
            picked = default_backend(load_family(instance.family), args.workers)
            said = verdict(single, mixed) + ("=" if same_path(instance, args.workers) else "")
            rows.setdefault(fam, []).append((single, mixed, said, picked))
            print(f"{instance.name:<20}{_fmt(instance.meta.bks):>7}{_outcome(single):>10}{_outcome(mixed):>10}"
                  f"{said:>9}{picked:>9}{single.seconds:>9.1f}{mixed.seconds:>8.1f}"
                  f"{'auto' if auto_first else 'cpsat':>7}", flush=True)
    print()
    print(f"{'family':<12}{'n':>4}{'auto wins':>10}{'ties':>6}{'losses':>8}{'gap % cpsat':>12}{'gap % auto':>11}"
          f"{'opt cpsat':>10}{'opt auto':>9}{'wall s cpsat':>13}{'wall s auto':>12}  default never loses to cpsat")
    for fam, got in rows.items():
        said = [v.rstrip("=") for _s, _m, v, _p in got]
        same = sum(v.endswith("=") for _s, _m, v, _p in got)
        gaps = [(s.gap_pct, m.gap_pct) for s, m, _v, _p in got if s.gap_pct is not None and m.gap_pct is not None]
        gap_single = f"{statistics.mean(g for g, _ in gaps):.2f}" if gaps else "-"
        gap_mixed = f"{statistics.mean(g for _, g in gaps):.2f}" if gaps else "-"
        default_lost = sum(v == "loss" and p == "auto" for _s, _m, v, p in got)  # "loss=": the same code lost
        print(f"{fam:<12}{len(got):>4}{said.count('win'):>10}{said.count('tie'):>6}{said.count('loss'):>8}"
              f"{gap_single:>12}{gap_mixed:>11}{sum(s.status == 'optimal' for s, *_ in got):>10}"
              f"{sum(m.status == 'optimal' for _s, m, *_ in got):>9}"
              f"{statistics.mean(s.seconds for s, *_ in got):>13.1f}"
              f"{statistics.mean(m.seconds for _s, m, *_ in got):>12.1f}  "
              f"{'yes' if default_lost == 0 else f'no ({default_lost} losses where it picks auto)'}"
              + (f"; {same} of {len(got)} run the same code under both" if same else ""))


if __name__ == "__main__":
    main()
