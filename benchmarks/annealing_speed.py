"""Moves per second of the timetable annealing kernel, this checkout beside another (issue #29).

For every ITC-2007 instance: the greedy timetable of seed 5, then ``--moves`` annealing moves
with an iteration limit (T0 4, T1 0.15, agent moves 2 %, Kempe exchanges 10 %: the settings of
a solve), timed after a short warm-up call that compiles or loads the kernel. Each checkout runs
in its own process, one after the other, so the two never share a core. With an iteration
limit a seed gives one walk, so the answers must be identical when a change only makes the
kernel faster: the table says whether they are (a hash of the final timetable and its cost).

    python benchmarks/annealing_speed.py [DATA_DIR] [--code REFERENCE_CHECKOUT] [--moves 20000000] [--only comp05]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # `benchmarks.*`

from benchmarks.data_dirs import default_sources  # noqa: E402

#: run in a fresh interpreter with the checkout first on the path; prints one JSON line
_PROBE = """
import hashlib, json, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from schedc.backends.search import ctt_search
from schedc.importers import import_paths
from schedc.lang.family import load_family
instance = import_paths("itc2007", [Path(sys.argv[2])])[0]
problem = ctt_search.search_problem(instance, load_family(instance.family))
start = ctt_search.construct(problem, 5)
settings = dict(t0=4.0, t1=0.15, agent_share=0.02, kempe_share=0.1)
ctt_search.anneal(problem, start, 5, iterations=1000, **settings)  # compiles or loads the kernel
began = time.perf_counter()
result = ctt_search.anneal(problem, start, 5, iterations=int(sys.argv[3]), **settings)
seconds = time.perf_counter() - began
walk = hashlib.sha256(repr(sorted(map(repr, result.solution.assignments))).encode()).hexdigest()[:12]
print(json.dumps({"seconds": seconds, "cost": result.cost, "walk": walk}))
"""


def measure(checkout: Path, instance: Path, moves: int) -> dict[str, float | int | str]:
    """One timed annealing of ``instance`` with the code of ``checkout``."""
    run = subprocess.run([sys.executable, "-c", _PROBE, str(checkout), str(instance), str(moves)],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise SystemExit(f"{checkout}: {instance.name}: {run.stderr.strip().splitlines()[-1]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=default_sources())
    parser.add_argument("--code", type=Path, help="the reference checkout (default: none, this one alone)")
    parser.add_argument("--moves", type=int, default=20_000_000)
    parser.add_argument("--only", action="append", help="instance names to run (default: all)")
    args = parser.parse_args()
    instances = [p for p in sorted((args.data / "itc2007").glob("*.ctt")) if not args.only or p.stem in args.only]
    if not instances:
        raise SystemExit(f"no ITC-2007 instance (*.ctt) in {args.data / 'itc2007'}")
    print(f"{args.moves:,} moves each; reference: {args.code or '-'}")
    print(f"{'instance':10} {'reference M/s':>14} {'this M/s':>9} {'ratio':>6} {'cost':>6}  same walk")
    for path in instances:
        this = measure(ROOT, path, args.moves)
        rate = args.moves / float(this["seconds"]) / 1e6
        if args.code is None:
            print(f"{path.stem:10} {'-':>14} {rate:9.2f} {'-':>6} {this['cost']:>6}  -")
            continue
        reference = measure(args.code.resolve(), path, args.moves)
        before = args.moves / float(reference["seconds"]) / 1e6
        same = reference["walk"] == this["walk"] and reference["cost"] == this["cost"]
        print(f"{path.stem:10} {before:14.2f} {rate:9.2f} {rate / before:6.2f} {this['cost']:>6}  "
              f"{'yes' if same else 'NO (' + str(reference['cost']) + ')'}")


if __name__ == "__main__":
    main()
