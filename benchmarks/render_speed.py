"""Rendering speed: every dev instance × the five variants, in one process and in two.

Reads every instance of ``../shared/data`` (``tests/data`` when the shared folder is absent),
renders it in v1, v2, v3a, v3b and v4 (seed 42), and prints renders per second by family,
the mean number of statements per instance by family, approximate prompt tokens (characters / 4)
by family next to SCHEDBench's 13.8k median, and the projected time for the SCHEDBench
selection (1,132 instances × 5 variants), weighted by its family mix. Target: under 60 s on 2
cores. Import time is measured separately and not counted as rendering. Every rendering
includes its claims (one per active constraint, with the sentences that state it).

With ``--reference PYTHON`` the same renders are timed, alternately and twice each, by this
checkout and by another installation of schedc (the Python of a virtual environment in which an
earlier revision is installed, e.g. ``git worktree add /tmp/base 367036f && python3 -m venv
/tmp/base-venv && /tmp/base-venv/bin/pip install /tmp/base``), and the ratio is printed.

    python benchmarks/render_speed.py [--interval-only] [--reference /tmp/base-venv/bin/python]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if not os.environ.get("SCHEDC_BENCH_INSTALLED"):  # a reference run imports the installed schedc, not this checkout
    sys.path.insert(0, str(ROOT))

from schedc.importers import import_paths  # noqa: E402
from schedc.ir import Instance  # noqa: E402
from schedc.render import VARIANTS, render  # noqa: E402

try:
    from schedc.lang.family import load_family
except ImportError:  # a reference installation from before the package layout of issue 26
    from schedc.family import load_family  # type: ignore[no-redef]

SHARED = ROOT.parent / "shared" / "data"
DATA = SHARED if SHARED.exists() else ROOT / "tests" / "data"
SELECTION = {"jobshop": 262, "rcpsp": 400, "mrcpsp": 300, "itc2007": 21, "inrc2010": 69, "nsplib": 80}
"""The SCHEDBench selection by family (DESIGN.md §6); fjsp is an extension outside it."""
INTERVAL_FORMATS = {"jsplib", "fjsp", "psplib-sm", "psplib-mm"}

Source = tuple[str, Path, tuple[Path, ...]]


def sources(interval_only: bool) -> list[Source]:
    """Dev instance files (the INRC unit-test and toy files of the solutions folder are left out)."""
    sys.path.insert(0, str(ROOT))
    from tests.sources import source_files

    found = [s for s in source_files(DATA) if "solutions" not in s[1].parts]
    return [s for s in found if not interval_only or s[0] in INTERVAL_FORMATS]


def load(items: list[Source]) -> list[Instance]:
    """Import the instances of the given source files."""
    return [import_paths(fmt, [path], cases=cases)[0] for fmt, path, cases in items]


def render_all(instances: list[Instance]) -> dict[str, tuple[float, int, int]]:
    """Family → (render seconds, renders, v1 statements), rendering every variant of every instance."""
    out: dict[str, list[float]] = defaultdict(lambda: [0.0, 0, 0])
    families = {name: load_family(name) for name in {i.family for i in instances}}
    for instance in instances:
        family = families[instance.family]
        start = time.perf_counter()
        first = [render(instance, family, variant) for variant in VARIANTS][0]
        row = out[instance.family]
        row[0] += time.perf_counter() - start
        row[1] += len(VARIANTS)
        row[2] += len(first.statements)
    return {k: (v[0], int(v[1]), int(v[2])) for k, v in out.items()}


def worker(items: list[Source]) -> tuple[float, dict[str, tuple[float, int, int]]]:
    """(render wall seconds, per-family totals) of one process, imports excluded."""
    instances = load(items)
    render_all(instances[:1])  # warm the template caches, as a long-running batch would be
    start = time.perf_counter()
    totals = render_all(instances)
    return time.perf_counter() - start, totals


def measure(items: list[Source]) -> dict[str, float]:
    """Family → render seconds of one process over ``items`` (what a reference run prints as JSON)."""
    _, totals = worker(items)
    return {family: seconds for family, (seconds, _, _) in totals.items()}


def tokens(instances: list[Instance]) -> dict[str, list[int]]:
    """Family → approximate prompt tokens (characters / 4) of every instance's v1 rendering."""
    out: dict[str, list[int]] = defaultdict(list)
    families = {name: load_family(name) for name in {i.family for i in instances}}
    for instance in instances:
        out[instance.family].append(len(render(instance, families[instance.family], "v1").text()) // 4)
    return out


def side_by_side(items: list[Source], reference: str) -> None:
    """Render seconds of this checkout and of the reference installation, alternately, twice each."""
    listing = json.dumps([[fmt, str(path), [str(c) for c in cases]] for fmt, path, cases in items])
    runs: dict[str, list[dict[str, float]]] = {"this checkout": [], "reference": []}
    for _ in range(2):
        for label, python, installed in (("reference", reference, "1"), ("this checkout", sys.executable, "")):
            env = {**os.environ, "SCHEDC_BENCH_INSTALLED": installed}
            done = subprocess.run([python, __file__, "--measure"], input=listing, env=env, capture_output=True,
                                  text=True, check=True)
            runs[label].append(json.loads(done.stdout.splitlines()[-1]))
    best = {label: {f: min(r[f] for r in rows) for f in rows[0]} for label, rows in runs.items()}
    print(f"\nside by side (best of 2 alternating runs, 1 process, {reference}):")
    print(f"{'family':<10}{'this (s)':>10}{'reference (s)':>15}{'ratio':>8}")
    for family in sorted(best["this checkout"]):
        mine, theirs = best["this checkout"][family], best["reference"].get(family, float("nan"))
        print(f"{family:<10}{mine:>10.2f}{theirs:>15.2f}{mine / theirs:>8.2f}")
    mine, theirs = sum(best["this checkout"].values()), sum(best["reference"].values())
    print(f"{'all':<10}{mine:>10.2f}{theirs:>15.2f}{mine / theirs:>8.2f}")


def main() -> None:
    """Import, render in 1 and 2 processes, report; optionally side by side with a reference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval-only", action="store_true", help="only the interval families")
    parser.add_argument("--reference", help="the Python of an environment with another schedc revision installed")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # a reference run's entry point
    args = parser.parse_args()
    if args.measure:
        listed = json.loads(sys.stdin.read())
        print(json.dumps(measure([(fmt, Path(p), tuple(Path(c) for c in cases)) for fmt, p, cases in listed])))
        return
    items = sources(args.interval_only)
    start = time.perf_counter()
    instances = load(items)
    print(f"{len(instances)} instances from {DATA} (imported in {time.perf_counter() - start:.1f} s)")
    one_wall, totals = worker(items)
    halves = [items[0::2], items[1::2]]
    with ProcessPoolExecutor(max_workers=2) as pool:
        two_wall = max(wall for wall, _ in pool.map(worker, halves))
    report(instances, totals, one_wall, two_wall)
    print(f"\n{'family':<10}{'median tokens':>14}{'mean':>8}{'max':>8}   (SCHEDBench median prompt: 13.8k tokens)")
    for family, counts in sorted(tokens(instances).items()):
        print(f"{family:<10}{statistics.median(counts):>14.0f}{statistics.mean(counts):>8.0f}{max(counts):>8}")
    if args.reference:
        side_by_side(items, args.reference)


def report(instances: list[Instance], totals: dict[str, tuple[float, int, int]], one: float, two: float) -> None:
    """Per-family rates and statement counts, the 2-process speed-up and the projection."""
    counts = defaultdict(int)
    for instance in instances:
        counts[instance.family] += 1
    print(f"\n{'family':<10}{'instances':>10}{'renders':>9}{'renders/s':>11}{'ms/render':>11}{'statements':>12}")
    for family, (seconds, renders, statements) in sorted(totals.items()):
        print(f"{family:<10}{counts[family]:>10}{renders:>9}{renders / seconds:>11.0f}"
              f"{seconds / renders * 1e3:>11.2f}{statements / counts[family]:>12.1f}")
    renders = sum(t[1] for t in totals.values())
    print(f"\nall: {renders} renders, 1 process {one:.2f} s ({renders / one:.0f}/s), "
          f"2 processes {two:.2f} s ({renders / two:.0f}/s, speed-up {one / two:.2f})")
    per_render = {f: t[0] / t[1] for f, t in totals.items()}
    missing = [f for f in SELECTION if f not in per_render]
    mean = statistics.mean(per_render.values())
    projected = sum(n * len(VARIANTS) * per_render.get(f, mean) for f, n in SELECTION.items())
    selection = sum(SELECTION.values()) * len(VARIANTS)
    print(f"projected SCHEDBench selection ({selection} renders = 1,132 instances × 5 variants, family mix): "
          f"{projected:.1f} s on 1 process, {projected * two / one:.1f} s on 2 processes (target < 60 s)"
          + (f"; no dev data for {', '.join(missing)} (mean used)" if missing else ""))
    print(f"unweighted projection from the dev mix: {selection / (renders / two):.1f} s on 2 processes")


if __name__ == "__main__":
    main()
