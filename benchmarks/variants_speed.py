"""Variant speed: ``schedc perturb`` variants per second per family (every solve included), and the
share of ``sat`` variants whose optimum moved, on the dev instances.

Reads the first ``--per-family`` instances (file order) of each family of ``../shared/data``
(``tests/data`` when the shared folder is absent) and the bundled examples (the only dynamic
flexible job shop), and for each instance runs, in this process, exactly what the CLI runs:

* ``perturb --mode sat --count N``: the certificate solve, then per variant the proposals (each
  checked by the verifier) and the re-solve; variants per second = variants / all those seconds;
  *optimum moved* = variants whose re-solved optimum differs from the base's, among those where
  both solves are proven optimal (the others are counted as *not judged*);
* ``perturb --mode boundary --count K``: the base solve, the binary searches and, for the
  infeasible side, the conflict explanation; each boundary gives two variants.

Every solve uses CP-SAT with ``--time-limit`` seconds and 2 workers (the CLI's defaults, except the
limit), so the rates of large instances are bounded by the limit: the figures are for the stated
budget. One variant of each mode per family with its change list, and every boundary found, are
printed after the tables (``--json PATH`` writes everything).

    python benchmarks/variants_speed.py [--per-family 3] [--count 5] [--boundaries 3] [--time-limit 2]
        [--formats itc2007,inrc2010] [--smallest] [--json rows.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schedc.core.diagnostics import SchedcError  # noqa: E402
from schedc.importers import import_paths  # noqa: E402
from schedc.ir import Instance  # noqa: E402
from schedc.lang.family import load_family  # noqa: E402
from schedc.lang.load import load_instance  # noqa: E402
from schedc.variants.perturb import perturb  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
DATA = SHARED if SHARED.exists() else ROOT / "tests" / "data"


def dev_instances(per_family: int, formats: set[str] | None = None,
                  smallest: bool = False) -> list[tuple[str, Instance]]:
    """(source label, instance): the first ``per_family`` dev instances of each format (of ``formats``
    only, when given, and then no examples; the smallest files first with ``smallest``), then the examples."""
    from tests.sources import source_files

    taken: dict[str, int] = defaultdict(int)
    out = []
    files = source_files(DATA)
    if smallest:
        files.sort(key=lambda f: (f[0], f[1].stat().st_size, str(f[1])))
    for fmt, path, cases in files:
        if "solutions" in path.parts or taken[fmt] >= per_family or (formats and fmt not in formats):
            continue
        taken[fmt] += 1
        label = path.name + (f"+{cases[0].name}" if cases else "")
        out.append((label, import_paths(fmt, [path], cases=cases)[0]))
    if not formats:
        out += [(f"examples/{p.name}", load_instance(p)) for p in sorted((ROOT / "examples").glob("*.sched"))]
    return out


def run_mode(instance: Instance, mode: str, count: int, time_limit: float, seed: int) -> tuple[dict[str, Any], float]:
    """The manifest of one perturb run and its wall seconds (a failed run: an ``error`` manifest)."""
    family = load_family(instance.family)
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        try:
            manifest = perturb(instance, family, Path(folder), mode, count=count, seed=seed, time_limit=time_limit)
        except SchedcError as exc:
            manifest = {"variants": [], "error": str(exc).splitlines()[0]}
        return manifest, time.perf_counter() - start


def measure(items: list[tuple[str, Instance]], count: int, boundaries: int, time_limit: float,
            seed: int) -> list[dict[str, Any]]:
    """One row per instance: sat and boundary variants, seconds, optimum moves, boundaries found."""
    rows = []
    for label, instance in items:
        sat, sat_seconds = run_mode(instance, "sat", count, time_limit, seed)
        edge, edge_seconds = run_mode(instance, "boundary", boundaries, time_limit, seed)
        moved = [v["optimum_moved"] for v in sat["variants"] if v["optimum_moved"] is not None]
        rows.append({"source": label, "instance": instance.name, "family": instance.family,
                     "sat": len(sat["variants"]), "sat_seconds": round(sat_seconds, 3),
                     "moved": sum(moved), "judged": len(moved),
                     "boundary": len(edge["variants"]), "boundary_seconds": round(edge_seconds, 3),
                     "sat_example": sat["variants"][0] if sat["variants"] else None,
                     "boundaries": [{"kind": v["kind"], "changes": v["changes"], "status": v["status"],
                                     "conflict": v.get("conflict")} for v in edge["variants"]],
                     "errors": [m["error"] for m in (sat, edge) if "error" in m]})
        print(f"  {label}: {rows[-1]['sat']} sat in {sat_seconds:.1f} s, {rows[-1]['boundary']} boundary in "
              f"{edge_seconds:.1f} s", file=sys.stderr)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """Per family: instances, variants per second of each mode, optimum moved among judged sat variants."""
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[r["family"]].append(r)
    lines = ["| family | instances | sat variants | sat variants/s | optimum moved | boundary variants | "
             "boundary variants/s |", "|---|---:|---:|---:|---:|---:|---:|"]
    for family, group in sorted(by.items()):
        sat, sat_s = sum(r["sat"] for r in group), sum(r["sat_seconds"] for r in group)
        edge, edge_s = sum(r["boundary"] for r in group), sum(r["boundary_seconds"] for r in group)
        moved, judged = sum(r["moved"] for r in group), sum(r["judged"] for r in group)
        share = f"{moved}/{judged} ({moved / judged:.0%})" if judged else "– (none judged)"
        lines.append(f"| {family} | {len(group)} | {sat} | {sat / sat_s:.2f} | {share} | {edge} | "
                     f"{edge / edge_s:.2f} |")
    return "\n".join(lines)


def examples(rows: list[dict[str, Any]]) -> str:
    """One sat variant per family with its change list, and every boundary pair found."""
    lines, seen = ["", "One sat variant per family:"], set()
    for r in rows:
        if r["sat_example"] and r["family"] not in seen:
            seen.add(r["family"])
            v = r["sat_example"]
            lines.append(f"- {r['family']} ({r['source']}): {'; '.join(v['changes'])} — objective "
                         f"{v['base_objective']} -> {v['objective']} ({v['status']})")
    lines += ["", "Boundaries (last feasible / first infeasible):"]
    for r in rows:
        pairs = [r["boundaries"][k:k + 2] for k in range(0, len(r["boundaries"]), 2)]
        for feasible, infeasible in pairs:
            lines.append(f"- {r['family']} {r['source']}: {feasible['kind']}: {'; '.join(feasible['changes'])} "
                         f"({feasible['status']}) / {infeasible['changes'][-1]} (infeasible; conflict "
                         f"{infeasible['conflict']})")
    errors = [f"- {r['source']}: {e}" for r in rows for e in r["errors"]]
    return "\n".join(lines + (["", "Errors:", *errors] if errors else []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-family", type=int, default=3, help="dev instances per source format")
    parser.add_argument("--count", type=int, default=5, help="sat variants per instance")
    parser.add_argument("--boundaries", type=int, default=3, help="boundary kinds per instance")
    parser.add_argument("--time-limit", type=float, default=2.0, help="CP-SAT seconds per solve")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--formats", default="", help="only these comma-separated source formats (no examples)")
    parser.add_argument("--smallest", action="store_true", help="the smallest files of each format, not the first")
    parser.add_argument("--json", type=Path, default=None, help="write every row to this file")
    args = parser.parse_args()
    items = dev_instances(args.per_family, {f for f in args.formats.split(",") if f} or None, args.smallest)
    start = time.perf_counter()
    rows = measure(items, args.count, args.boundaries, args.time_limit, args.seed)
    print(f"# perturb on {len(items)} instances from {DATA} and examples/ (--count {args.count}, "
          f"boundary --count {args.boundaries}, --time-limit {args.time_limit:g}, seed {args.seed}; "
          f"{time.perf_counter() - start:.0f} s in all)\n")
    print(table(rows))
    print(examples(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
