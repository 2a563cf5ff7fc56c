"""SCHEDBench speed: build time of the dev data × 5 variants (projected to 1,132 instances) and eval throughput.

Usage: ``python benchmarks/bench_speed.py [DATA] [--jobs N]`` (DATA defaults to ../shared/data).
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", nargs="?", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    parser.add_argument("--jobs", type=int, default=2)
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
        began = time.perf_counter()
        evaluate(out, [responses], Path(tmp) / "report", jobs=args.jobs)
        seconds = time.perf_counter() - began
        rate = count / seconds
        print(f"eval: {count} answers in {seconds:.1f} s = {rate:.0f} answers/s with {args.jobs} jobs "
              f"→ projected {ANSWERS / rate:.0f} s for {ANSWERS} (target < 60 s)")


if __name__ == "__main__":
    main()
