"""Hostile inputs at scale: peak memory and wall time of ``schedc`` on inputs built to cost.

Usage: ``python benchmarks/hostile_inputs.py [--tree PATH] [--work DIR] [--case NAME]...``. Each case
runs ``python -m schedc ...`` of the checkout at ``--tree`` (default: this one; give an older
checkout to compare) in a child process and prints its exit status, wall time and peak resident
memory (``ru_maxrss`` of that child, from ``wait4``), with the load average when it started (the
machine may be shared). Cases:

* ``answer50``: a 50 MB INRC-2010 answer — a CP-SAT answer of ``sprint01`` (imported from
  ``tests/data``) repeated — checked with ``--max-answer-bytes 64M`` (and once with the default cap,
  which refuses it);
* ``batch324``: a 324 MB ``--batch`` file of job-shop records (each a valid ft06 answer repeated
  50 times, so each report lists 1,764 duplicates) checked with ``-o``;
* ``dup200k``: a job shop whose resources table repeats ``M1 unary`` 200,000 times (``schedc parse``).

Inputs are made once in ``--work`` and reused.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 900.0


def schedc(tree: Path, *args: str) -> list[str]:
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(tree)!r}); from schedc.cli import main; "
            "sys.argv[0] = 'schedc'; main()", *args]


def measure(label: str, command: list[str], stdout: Path | None = None) -> dict[str, object]:
    """Run ``command``; its exit status, wall seconds and peak RSS in MB (the child's own ``ru_maxrss``)."""
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with open(stdout or os.devnull, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE, cwd=ROOT)
        deadline = started + TIMEOUT
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                process.kill()
                pid, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.05)
    seconds = time.perf_counter() - started
    stderr = process.stderr.read().decode(errors="replace") if process.stderr else ""
    row = {"case": label, "exit": os.waitstatus_to_exitcode(status), "seconds": round(seconds, 1),
           "peak_mb": round(usage.ru_maxrss / 1024, 1), "user_s": round(usage.ru_utime, 1), "load": round(load, 2),
           "timed_out": seconds >= TIMEOUT, "stderr": stderr.strip().splitlines()[-1:] if stderr.strip() else []}
    print(json.dumps(row), flush=True)
    return row


def inrc_answer(work: Path, tree: Path) -> tuple[Path, Path]:
    """sprint01's spec and a CP-SAT answer of it, made once."""
    spec, answer = work / "inrc" / "sprint01.sched", work / "sprint01.answer.txt"
    if not spec.exists():
        subprocess.run(schedc(ROOT, "import", "inrc2010", str(ROOT / "tests/data/inrc2010/sprint01.xml"), "-o",
                              str(work / "inrc")), check=True, cwd=ROOT)
    if not answer.exists():
        subprocess.run(schedc(ROOT, "solve", str(spec), "--time-limit", "20", "-o", str(answer)), check=True,
                       cwd=ROOT)
    return spec, answer


def answer50(work: Path, tree: Path) -> None:
    spec, answer = inrc_answer(work, tree)
    big = work / "inrc50mb.txt"
    if not big.exists():
        text = answer.read_text()
        big.write_text(text * (50_000_000 // len(text) + 1))
    measure("answer50 (default cap)", schedc(tree, "check", str(spec), str(big)))
    measure("answer50 (--max-answer-bytes 64M)", schedc(tree, "check", str(spec), str(big), "--json",
                                                        "--max-answer-bytes", "64M"), work / "answer50.json")


def batch324(work: Path, tree: Path) -> None:
    sys.path.insert(0, str(ROOT))
    batch = work / "batch324.jsonl"
    if not batch.exists():
        from schedc.backends.cpsat import SolveOptions, solve
        from schedc.lang.load import resolve
        from schedc.verify.verifier import Verifier

        instance, family, _ = resolve(ROOT / "examples" / "ft06.sched")
        answer = Verifier(instance, family).write(solve(instance, family, SolveOptions(time_limit=5)).solution)
        with batch.open("w") as handle:
            number = 0
            while handle.tell() < 324_000_000:
                handle.write(json.dumps({"id": f"r{number}", "answer": answer * 50}) + "\n")
                number += 1
    measure("batch324 (-o)", schedc(tree, "check", str(ROOT / "examples" / "ft06.sched"), "--batch", str(batch),
                                    "-o", str(work / "batch324.out.jsonl")))


def dup200k(work: Path, tree: Path) -> None:
    spec = work / "dup200000.sched"
    if not spec.exists():
        text = (ROOT / "examples" / "ft06.sched").read_text()
        spec.write_text(text.replace("resources table\n  M1 unary\n", "resources table\n" + "  M1 unary\n" * 200_000))
    measure("dup200k (parse)", schedc(tree, "parse", str(spec)))


CASES: dict[str, Callable[[Path, Path], None]] = {"answer50": answer50, "batch324": batch324, "dup200k": dup200k}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the schedc checkout to measure")
    parser.add_argument("--work", type=Path, default=Path("/tmp/schedc-hostile"), help="where inputs are made")
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="default: every case")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    for name in args.case or sorted(CASES):
        CASES[name](args.work, args.tree.resolve())


if __name__ == "__main__":
    main()
