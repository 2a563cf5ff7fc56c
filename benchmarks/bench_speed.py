"""SCHEDBench speed: build time of the dev data × 5 variants (projected to 1,132 instances) and eval throughput.

Usage: ``python benchmarks/bench_speed.py [DATA] [--jobs N] [--no-dask]`` (DATA defaults to ../shared/data).
Eval runs twice: on the local process pool and on a ``--jobs``-worker Dask LocalCluster (started
before the clock starts, as a long-running cluster would be; needs ``dask[distributed]``).
Targets (DESIGN.md §7): build of 1,132 × 5 under 2 minutes; eval of 14,716 answers under 60 s on 2 cores.
Eval answers are the CP-SAT-free worst case for the verifier: every rendering answered with the
canonical answer of a trivial (all-zero / empty) solution, so every answer is extracted and judged.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from schedc.bench.build import build
from schedc.bench.evaluate import evaluate

FULL, ANSWERS = 1132, 14716


def _responses(out: Path, path: Path) -> int:
    """One answer per record: every activity at time 0 / the first assignment lines of the format."""
    from schedc.api import load_instance
    from schedc.family import load_family
    from schedc.solution import Solution
    from schedc.verify import Verifier

    lines = []
    for line in (out / "dataset.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        spec = out / record["spec"]
        instance = load_instance(spec)
        family = load_family(instance.family, [spec.parent])
        verifier = Verifier(instance, family, {p["ir"]: p["shown"] for p in record["names"]})
        solution = Solution(starts={a.name: 0 for a in instance.activities},
                            modes={a.name: 1 for a in instance.activities})
        lines.append(json.dumps({"model": "bench", "id": record["id"], "text": verifier.write(solution)}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def _eval(label: str, out: Path, responses: Path, report: Path, count: int, **options: object) -> float:
    began = time.perf_counter()
    evaluate(out, [responses], report, **options)  # type: ignore[arg-type]
    seconds = time.perf_counter() - began
    rate = count / seconds
    print(f"eval {label}: {count} answers in {seconds:.1f} s = {rate:.0f} answers/s "
          f"→ projected {ANSWERS / rate:.0f} s for {ANSWERS} (target < 60 s)")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", nargs="?", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-dask", action="store_true", help="skip the eval on a local Dask cluster")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench"
        began = time.perf_counter()
        summary = build([Path(args.data)], out, jobs=args.jobs)
        seconds = time.perf_counter() - began
        projected = seconds / max(summary.instances, 1) * FULL
        print(f"build: {summary.instances} instances × 5 variants in {seconds:.1f} s with {args.jobs} jobs "
              f"→ projected {projected:.0f} s for {FULL} (target < 120 s)")
        responses = Path(tmp) / "responses.jsonl"
        count = _responses(out, responses)
        _eval(f"local, {args.jobs} jobs", out, responses, Path(tmp) / "report-local", count, jobs=args.jobs)
        if args.no_dask:
            return
        from distributed import LocalCluster

        from schedc.bench.executor import LOCAL_CLUSTER_OPTIONS

        began = time.perf_counter()
        with LocalCluster(n_workers=args.jobs, threads_per_worker=1, processes=True,
                          **LOCAL_CLUSTER_OPTIONS) as cluster:  # type: ignore[arg-type]
            print(f"dask: {args.jobs}-worker LocalCluster up in {time.perf_counter() - began:.1f} s (not counted)")
            _eval(f"dask, {args.jobs} workers", out, responses, Path(tmp) / "report-dask", count, executor="dask",
                  scheduler=cluster.scheduler_address)
        same = all((Path(tmp) / "report-local" / p.name).read_bytes() == p.read_bytes()
                   for p in (Path(tmp) / "report-dask").iterdir())
        print(f"dask report identical to the local one: {same}")


if __name__ == "__main__":
    main()
