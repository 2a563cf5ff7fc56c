"""``bench eval`` at the SCHEDBench design's answer density: 13 answers per instance (14,716 for 1,132).

``bench_speed.py`` evaluates one answer per record (5 per instance), so each instance's spec parse — done
once per instance — weighs 2.6 times more per answer than in the design, and its projection overstates
the design's time. This benchmark replays the same responses as 3 model answers on 3 of an instance's
records and 2 on the other 2 (13 per instance), times ``verify_all`` plus the report, and projects to
14,716 answers. ``--reference PYTHON`` runs the same measurement with another interpreter (an older
checkout's virtual environment) in the same run and prints the ratio.

Usage: ``python benchmarks/bench_eval_design.py DATASET RESPONSES [--jobs 2] [--reference PYTHON]``
(DATASET: a folder written by ``schedc bench build``; RESPONSES: one answer per record, e.g. the file
``bench_speed.py --dataset`` writes beside it). Target (DESIGN.md §7): under 60 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ANSWERS, PER_INSTANCE = 14716, 13


def replay(responses: Path, folder: Path) -> tuple[list[Path], int, int]:
    """The response files of the design's density: (files, instances, answers)."""
    by_instance: dict[str, list[dict]] = defaultdict(list)
    for line in responses.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        by_instance[row["id"].rsplit("/", 2)[0]].append(row)
    files = [folder / f"m{k}.jsonl" for k in range(3)]
    texts: list[list[str]] = [[], [], []]
    for rows in by_instance.values():
        for j, row in enumerate(rows):  # 3 + 3 + 3 + 2 + 2 = 13 for an instance's 5 records
            for k in range(3 if j < 3 else 2):
                texts[k].append(json.dumps({**row, "model": f"m{k}"}))
    for path, lines in zip(files, texts, strict=True):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return files, len(by_instance), sum(map(len, texts))


def measure(dataset: Path, files: list[Path], jobs: int) -> dict[str, float]:
    """Wall seconds of the verdicts alone and of the whole ``bench eval`` (verdicts, tables, plots)."""
    from schedc.bench.evaluate import evaluate, verify_all

    start = time.perf_counter()
    verdicts = len(verify_all(dataset, files, jobs=jobs))
    verified = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        evaluate(dataset, files, Path(tmp), jobs=jobs)
        total = time.perf_counter() - start
    return {"verify": verified, "total": total, "verdicts": verdicts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("responses", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--reference", help="another interpreter to time the same evaluation with")
    parser.add_argument("--measure-only", nargs="+", type=Path, help=argparse.SUPPRESS)  # the reference's call
    args = parser.parse_args()
    if args.measure_only:
        print(json.dumps(measure(args.dataset, args.measure_only, args.jobs)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        files, instances, answers = replay(args.responses, Path(tmp))
        print(f"{instances} instances, {answers} answers ({answers / instances:.1f} per instance), {args.jobs} jobs")
        ours = measure(args.dataset, files, args.jobs)
        _report("this checkout", ours, answers)
        if args.reference:
            command = [args.reference, __file__, str(args.dataset), str(args.responses), "--jobs", str(args.jobs),
                       "--measure-only", *map(str, files)]
            theirs = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
            _report("reference", theirs, answers)
            print(f"ratio reference/this: {theirs['total'] / ours['total']:.2f}× (verification "
                  f"{theirs['verify'] / ours['verify']:.2f}×)")


def _report(label: str, m: dict[str, float], answers: int) -> None:
    fixed = max(0.0, m["total"] - m["verify"])  # tables and plots: paid once per evaluation
    projected = m["verify"] / answers * ANSWERS + fixed
    print(f"{label}: verdicts {m['verify']:.1f} s, whole eval {m['total']:.1f} s → projected "
          f"{projected:.0f} s for {ANSWERS} answers (target < 60 s)")


if __name__ == "__main__":  # schedc comes from the running interpreter's environment (each side its own)
    main()
