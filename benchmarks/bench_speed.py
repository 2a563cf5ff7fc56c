"""SCHEDBench speed: build time of the dev data × 5 variants (projected to 1,132 instances) and eval throughput.

Usage: ``python benchmarks/bench_speed.py [DATA] [--jobs N] [--no-dask] [--dataset DIR] [--reference PYTHON]``
(DATA defaults to ../shared/data, else examples/sources). Eval runs on the local process pool and, unless
``--no-dask``, on a ``--jobs``-worker Dask LocalCluster (started before the clock starts, as a long-running
cluster would be; needs ``dask[distributed]``). ``--dataset DIR`` evaluates an already built benchmark instead
of building one.
``--reference PYTHON`` also times the same eval (same dataset, same answers, same ``--jobs``) with another
interpreter — a virtual environment of an older checkout — and prints the ratio and whether both wrote the
same ``answers.jsonl``.
Targets (DESIGN.md §7): build of 1,132 × 5 under 2 minutes; eval of 14,716 answers under 60 s on 2 cores.

Answers, one per record, every one extracted and judged (CP-SAT-free):
* interval families: the canonical answer of the all-zero solution (every activity at time 0 in mode 1),
  the verifier's worst case (every pair of activities on a machine overlaps);
* slot families: a real-size random timetable or roster, seeded by the instance name
  (``random.Random(crc32(name))``): every agent × day (× period) cell when the family lists every cell,
  otherwise an agent's required count of cells (an ITC course's lectures) or, without one, 3 days in 4.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # `benchmarks.*`; an installed schedc wins

from benchmarks.data_dirs import default_sources  # noqa: E402

FULL, ANSWERS = 1132, 14716


def _slot_solution(verifier, rng: random.Random):  # type: ignore[no-untyped-def]
    """A real-size random assignment of an agent-slot family (see the module docstring)."""
    from schedc.core.solution import Assignment, Solution
    from schedc.kinds import CountBounds

    ctx = verifier.ctx
    cells = [(d, p) for d in range(ctx.days) for p in range(ctx.periods)]
    wanted: dict[str, int] = {}
    for c in ctx.instance.constraints:
        if isinstance(c, CountBounds) and c.min is not None and not isinstance(c.min, int):
            wanted.update({a: ctx.bound(c.min, a) or 0 for a in ctx.select(c.agents)})
    chosen = []
    for agent in ctx.agents:
        if verifier.exactly:
            slots = cells
        elif agent in wanted:
            slots = sorted(rng.sample(cells, min(wanted[agent], len(cells))))
        else:
            slots = [(d, rng.randrange(ctx.periods)) for d in range(ctx.days) if rng.random() < 0.75]
        chosen += [Assignment(agent, d, p, rng.choice(ctx.values)) for d, p in slots]
    return Solution(assignments=tuple(chosen))


def _responses(out: Path, path: Path) -> int:
    """One answer per record (see the module docstring); the answers' text is written to ``path``."""
    from schedc.core.solution import Solution
    from schedc.lang.family import load_family
    from schedc.lang.load import load_instance
    from schedc.verify.verifier import Verifier

    lines = []
    for line in (out / "dataset.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        spec = out / record["spec"]
        instance = load_instance(spec)
        family = load_family(instance.family, [spec.parent])
        verifier = Verifier(instance, family, {p["ir"]: p["shown"] for p in record["names"]})
        if instance.activities:
            solution = Solution(starts={a.name: 0 for a in instance.activities},
                                modes={a.name: 1 for a in instance.activities})
        else:
            solution = _slot_solution(verifier, random.Random(zlib.crc32(instance.name.encode())))
        lines.append(json.dumps({"model": "bench", "id": record["id"], "text": verifier.write(solution)}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def _cpu() -> float:
    """CPU seconds (user + system) of this process and of its finished children (the pool's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed(out: Path, responses: Path, report: Path, jobs: int = 1, **options: object) -> tuple[float, float]:
    """(seconds of the whole eval, seconds of its verification alone: ``verify_all``, run separately).

    Also prints the verification's CPU seconds: on a machine shared with other work the wall time
    varies from run to run, the CPU time much less.
    """
    from schedc.bench.evaluate import evaluate, verify_all

    began, cpu = time.perf_counter(), _cpu()
    verify_all(out, [responses], jobs, **options)  # type: ignore[arg-type]
    verify = time.perf_counter() - began
    print(f"verification CPU {_cpu() - cpu:.1f}", file=sys.stderr, flush=True)
    began = time.perf_counter()
    evaluate(out, [responses], report, jobs, **options)  # type: ignore[arg-type]
    return time.perf_counter() - began, verify


def _projected(total: float, verify: float, count: int) -> float:
    """The eval of ANSWERS answers: the report's fixed cost (tables, bootstrap, figures) plus verification
    at the measured rate (per-instance work, parsing each spec once, is counted as per-answer: with
    5 answers per instance here instead of the paper's 13 × 5, that overstates it)."""
    return max(total - verify, 0.0) + verify / count * ANSWERS


def _eval(label: str, out: Path, responses: Path, report: Path, count: int, **options: object) -> float:
    total, verify = _timed(out, responses, report, **options)  # type: ignore[arg-type]
    print(f"eval {label}: {count} answers in {total:.1f} s (verification {verify:.1f} s = {count / verify:.0f} "
          f"answers/s) → projected {_projected(total, verify, count):.0f} s for {ANSWERS} (target < 60 s)",
          flush=True)
    return total


def _reference(python: str, out: Path, responses: Path, report: Path, jobs: int) -> tuple[float, float]:
    """(whole eval, verification) seconds with another interpreter (it imports its own schedc)."""
    done = subprocess.run([python, __file__, "--eval-only", str(out), str(responses), str(report), str(jobs)],
                          check=True, capture_output=True, text=True)
    total, verify = done.stdout.split()[-2:]
    print(f"reference verification: {done.stderr.strip()} s", flush=True)
    return float(total), float(verify)


def _eval_only(out: str, responses: str, report: str, jobs: str) -> None:
    total, verify = _timed(Path(out), Path(responses), Path(report), int(jobs))
    print(total, verify)


def main() -> None:
    if sys.argv[1:2] == ["--eval-only"]:
        _eval_only(*sys.argv[2:6])
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", nargs="?", default=str(default_sources()),
                        help="default: ../shared/data, else examples/sources")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-dask", action="store_true", help="skip the eval on a local Dask cluster")
    parser.add_argument("--dataset", help="an already built benchmark folder (skips the build)")
    parser.add_argument("--reference", help="a Python interpreter whose schedc is timed on the same eval")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.dataset:
            out = Path(args.dataset)
        else:
            from schedc.bench.build import build

            out = Path(tmp) / "bench"
            began = time.perf_counter()
            summary = build([Path(args.data)], out, jobs=args.jobs)
            seconds = time.perf_counter() - began
            projected = seconds / max(summary.instances, 1) * FULL
            print(f"build: {summary.instances} instances × 5 variants in {seconds:.1f} s with {args.jobs} jobs "
                  f"→ projected {projected:.0f} s for {FULL} (target < 120 s)")
        responses = Path(tmp) / "responses.jsonl"
        count = _responses(out, responses)
        total, verify = _timed(out, responses, Path(tmp) / "report-local", args.jobs)
        print(f"eval local, {args.jobs} jobs: {count} answers in {total:.1f} s (verification {verify:.1f} s = "
              f"{count / verify:.0f} answers/s) → projected {_projected(total, verify, count):.0f} s for {ANSWERS} "
              "(target < 60 s)", flush=True)
        if args.reference:
            old, old_verify = _reference(args.reference, out, responses, Path(tmp) / "report-ref", args.jobs)
            same = (Path(tmp) / "report-ref" / "answers.jsonl").read_bytes() == \
                (Path(tmp) / "report-local" / "answers.jsonl").read_bytes()
            print(f"eval reference ({args.reference}): {count} answers in {old:.1f} s (verification "
                  f"{old_verify:.1f} s) → projected {_projected(old, old_verify, count):.0f} s; now "
                  f"{old / total:.2f}× faster (verification {old_verify / verify:.2f}×); answers.jsonl identical: "
                  f"{same}", flush=True)
        if args.no_dask:
            return
        from distributed import LocalCluster

        from schedc.bench.executor import LOCAL_CLUSTER_OPTIONS

        began = time.perf_counter()
        with LocalCluster(n_workers=args.jobs, threads_per_worker=1, processes=True,
                          **LOCAL_CLUSTER_OPTIONS) as cluster:  # type: ignore[arg-type]
            print(f"dask: {args.jobs}-worker LocalCluster up in {time.perf_counter() - began:.1f} s (not counted)")
            _eval(f"dask, {args.jobs} workers", out, responses, Path(tmp) / "report-dask", count, jobs=args.jobs,
                  executor="dask",
                  scheduler=cluster.scheduler_address)
        same = all((Path(tmp) / "report-local" / p.name).read_bytes() == p.read_bytes()
                   for p in (Path(tmp) / "report-dask").iterdir())
        print(f"dask report identical to the local one: {same}")


if __name__ == "__main__":
    main()
