"""schedc's CP-SAT models side by side with PyJobShop's hand-written CP-SAT models.

Every JSPLib instance and every PSPLIB single-mode j60/j90/j120 instance of DATA_DIR (``--mm``
adds the multi-mode j20/j30 ones), same time limit, same number of workers, one run each, the
side that goes first alternating per instance. schedc's budget includes its local search (the
tabu search of :mod:`schedc.backends.search.tabu` runs inside ``--time-limit``). Prints per instance both
objectives and gaps to the best known value, then the mean gaps, the ratio schedc / PyJobShop
(target ≤ 0.6 on JSPLib) and the difference in percentage points (target ≤ +0.25 on PSPLIB),
and schedc's largest model-building time as a share of the budget, with its instance (target
≤ 5 %; ``--build-only`` measures only that, on every JSPLib and PSPLIB instance of DATA_DIR, in
seconds). ``--no-local-search`` and
``--no-bound`` switch schedc's levers off to measure each. Needs `pyjobshop` and `psplib`
(benchmark environment only); pyjobshop 0.0.9 runs on the OR-Tools schedc uses (9.15):

    python -m venv .venv-bench && .venv-bench/bin/pip install -e . pyjobshop psplib
    .venv-bench/bin/python benchmarks/vs_pyjobshop.py [--time-limit 10] [--workers 2] [DATA_DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # also makes `benchmarks.pyjobshop_features` importable for --features

from benchmarks.data_dirs import default_sources  # noqa: E402
from schedc.backends.cpsat import SolveOptions, solve  # noqa: E402
from schedc.importers import import_paths  # noqa: E402
from schedc.ir import Instance  # noqa: E402
from schedc.lang.family import load_family  # noqa: E402


def pyjobshop_jobshop(instance: Instance, time_limit: float, workers: int) -> float | None:
    """PyJobShop's model of a job shop built through its Model API from the same data."""
    from pyjobshop import Model

    model = Model()
    machines = {r.name: model.add_machine() for r in instance.resources}
    jobs: dict[str, object] = {}
    tasks = {}
    for a in instance.activities:
        if a.job not in jobs:
            jobs[a.job] = model.add_job()
        job = jobs[a.job]
        task = model.add_task(job=job)
        for mode in a.modes:
            model.add_mode(task, machines[mode.uses[0].resource], mode.duration)
        tasks[a.name] = task
    for a in instance.activities:
        if a.step and a.step > 1:
            model.add_end_before_start(tasks[f"{a.job}.{a.step - 1}"], tasks[a.name])
    model.set_objective(weight_makespan=1)
    result = model.solve("ortools", time_limit=time_limit, display=False, num_workers=workers)
    return result.objective if result.status.value in ("Optimal", "Feasible") else None


def pyjobshop_psplib(path: Path, time_limit: float, workers: int) -> float | None:
    """PyJobShop's own PSPLIB reader and model."""
    from pyjobshop import Model, read

    model = Model.from_data(read(path, "psplib"))
    model.set_objective(weight_makespan=1)
    result = model.solve("ortools", time_limit=time_limit, display=False, num_workers=workers)
    return result.objective if result.status.value in ("Optimal", "Feasible") else None


def cases(data: Path, multi_mode: bool = False) -> list[tuple[str, Path]]:
    """Every JSPLib and PSPLIB j60/j90/j120 instance under ``data`` (and j20/j30 multi-mode ones)."""
    out = [("jsplib", p) for p in sorted((data / "jsplib").glob("*.txt"))]
    out += [("psplib-sm", p) for sub in ("j60", "j90", "j120") for p in sorted((data / "psplib-sm" / sub).glob("*.sm"))]
    if multi_mode:
        out += [("psplib-mm", p) for sub in ("j20", "j30") for p in sorted((data / "psplib-mm" / sub).glob("*.mm"))]
    return out


def gap(value: float | None, bks: int | None) -> float | None:
    return None if value is None or not bks else (value - bks) / bks * 100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=default_sources(),
                        help="default: ../shared/data, else examples/sources")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--mm", action="store_true", help="also the multi-mode PSPLIB j20/j30 instances")
    parser.add_argument("--no-local-search", action="store_true", help="schedc without its tabu-search start")
    parser.add_argument("--no-bound", action="store_true", help="schedc without the makespan bound of its start")
    parser.add_argument("--build-only", action="store_true",
                        help="only time schedc's model building, on every JSPLib and PSPLIB instance")
    parser.add_argument("--features", action="store_true",
                        help="the rows of the #18 features instead (benchmarks/pyjobshop_features.py)")
    args = parser.parse_args()
    if args.features:
        from benchmarks.pyjobshop_features import run_features

        run_features(args.time_limit, args.workers)
        return
    if args.build_only:
        build_times(args.data, args.time_limit)
        return
    options = SolveOptions(time_limit=args.time_limit, workers=args.workers, seed=0,
                           local_search=0.0 if args.no_local_search else SolveOptions().local_search,
                           bound=not args.no_bound)
    rows = []
    print(f"{'instance':<16}{'bks':>7}{'schedc':>9}{'gap%':>8}{'pyjobshop':>11}{'gap%':>8}{'build s':>9}{'first':>7}")
    for k, (fmt, path) in enumerate(cases(args.data, args.mm)):
        bks_file = next(p / "bks.csv" for p in path.parents if (p / "bks.csv").exists())
        [instance] = import_paths(fmt, [path], bks_file)

        def theirs_run(fmt: str = fmt, path: Path = path, instance: Instance = instance) -> float | None:
            if fmt == "jsplib":
                return pyjobshop_jobshop(instance, args.time_limit, args.workers)
            return pyjobshop_psplib(path, args.time_limit, args.workers)

        if k % 2:  # alternate who runs first, so that neither side always meets the same machine load
            theirs = theirs_run()
            ours = solve(instance, load_family(instance.family), options)
        else:
            ours = solve(instance, load_family(instance.family), options)
            theirs = theirs_run()
        bks = instance.meta.bks
        g_ours, g_theirs = gap(ours.objective, bks), gap(theirs, bks)
        rows.append((fmt, g_ours, g_theirs, ours.build_seconds, instance.name))
        print(f"{instance.name:<16}{bks or '-':>7}{ours.objective or '-':>9}{_f(g_ours):>8}{theirs or '-':>11}"
              f"{_f(g_theirs):>8}{ours.build_seconds:>9.3f}{'pjs' if k % 2 else 'schedc':>7}", flush=True)
    for fmt in ("jsplib", "psplib-sm", "psplib-mm", None):
        chosen = [r for r in rows if (fmt is None or r[0] == fmt) and r[1] is not None and r[2] is not None]
        if not chosen:
            continue
        ours_mean = statistics.mean(r[1] for r in chosen)
        theirs_mean = statistics.mean(r[2] for r in chosen)
        ratio = ours_mean / theirs_mean if theirs_mean else float("nan")
        target = "ratio target <= 0.6" if fmt == "jsplib" else "difference target <= +0.25 pp"
        print(f"{fmt or 'all':<10} n={len(chosen):<3} mean gap schedc {ours_mean:.2f}%  pyjobshop {theirs_mean:.2f}%  "
              f"ratio {ratio:.2f}  difference {ours_mean - theirs_mean:+.2f} pp ({target})")
    worst = max(rows, key=lambda r: r[3])
    print(f"largest model-building time {worst[3]:.3f} s ({worst[4]}) = {worst[3] / args.time_limit * 100:.1f}% "
          "of the budget (target <= 5%)")


def every_case(data: Path) -> list[tuple[str, Path]]:
    """Every JSPLib instance and every PSPLIB single- and multi-mode instance under ``data``."""
    out = [("jsplib", p) for p in sorted((data / "jsplib").glob("*.txt"))]
    out += [("psplib-sm", p) for p in sorted((data / "psplib-sm").glob("*/*.sm"))]
    return out + [("psplib-mm", p) for p in sorted((data / "psplib-mm").glob("*/*.mm"))]


def build_times(data: Path, budget: float) -> None:
    """schedc's model-building time per instance as ``solve`` reports it (``build_seconds``:
    variables, constraints, the dispatching-rule schedule that sets the horizon, the start's
    selection), on every JSPLib and PSPLIB instance of ``data``, with the worst share of ``budget``.
    CP-SAT then runs for 0.1 s (one worker, no tabu search): only the building is measured."""
    worst = ("-", 0.0)
    quick = SolveOptions(time_limit=0.1, workers=1, seed=0, local_search=0.0)
    for fmt, path in every_case(data):
        bks_file = next(p / "bks.csv" for p in path.parents if (p / "bks.csv").exists())
        [instance] = import_paths(fmt, [path], bks_file)
        seconds = solve(instance, load_family(instance.family), quick).build_seconds
        worst = max(worst, (instance.name, seconds), key=lambda w: w[1])
        print(f"{fmt:<10}{instance.name:<16}{seconds:9.3f}{seconds / budget * 100:7.1f}%", flush=True)
    print(f"largest model-building time {worst[1]:.3f} s ({worst[0]}) = {worst[1] / budget * 100:.1f}% of the budget")


def _f(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    main()
