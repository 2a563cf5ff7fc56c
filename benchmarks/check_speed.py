"""Verifier speed: one answer on large instances, and a batch of 10,000 answers.

Part 1 — for a generated 100×20 job shop, the largest RCPSP (j120) and, when the shared
data is present, ITC comp07 and INRC long01 with published solutions: the time to check one
answer next to the time to read its inputs (parse the `.sched` spec).
Part 2 — 10,000 job-shop/RCPSP answers (valid ones from the serial heuristic and perturbed
ones) checked by one process and by two, with the projected time for the paper's whole
evaluation (1,132 instances × 13 models = 14,716 answers). Target: under 60 s on 2 cores.

    python benchmarks/check_speed.py [--answers 10000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schedc.backends.search.heuristics import serial_schedule  # noqa: E402
from schedc.importers import import_paths  # noqa: E402
from schedc.importers.jobshop import _routes_to_ir  # noqa: E402
from schedc.importers.solutions import read_inrc_solution, read_itc_solution  # noqa: E402
from schedc.ir import Instance, Meta  # noqa: E402
from schedc.lang.parser import parse_instance_text  # noqa: E402
from schedc.lang.printer import print_instance  # noqa: E402
from schedc.verify.verifier import Verifier  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
DATA = SHARED if SHARED.exists() else ROOT / "tests" / "data"
PAPER_ANSWERS = 1132 * 13


def generated_jobshop(jobs: int, machines: int, seed: int) -> Instance:
    """A Taillard-like random job shop: every job visits every machine once, durations 1..99."""
    rng = np.random.default_rng(seed)
    routes = [[((int(m) + 1,), (int(rng.integers(1, 100)),)) for m in rng.permutation(machines)]
              for _ in range(jobs)]
    return _routes_to_ir(f"gen_{jobs}x{machines}", "jobshop", Meta(source="generated"), machines, routes)


def median_ms(func, repeat: int = 7) -> float:
    func()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def single_answers() -> list[tuple[Instance, str]]:
    cases = []
    big = generated_jobshop(100, 20, seed=42)
    cases.append((big, Verifier(big).write(serial_schedule(big))))
    j120 = sorted((DATA / "psplib-sm").rglob("j120*.sm")) or sorted((DATA / "psplib-sm").rglob("*.sm"))
    [rcpsp] = import_paths("psplib-sm", [j120[-1]])
    cases.append((rcpsp, Verifier(rcpsp).write(serial_schedule(rcpsp))))
    comp07, sol = SHARED / "itc2007" / "comp07.ctt", SHARED / "itc2007" / "solutions" / "comp07__docheinstein_race.sol"
    if sol.exists():
        [itc] = import_paths("itc2007", [comp07])
        cases.append((itc, Verifier(itc).write(read_itc_solution(sol, itc)[0])))
    long01, sol = SHARED / "inrc2010" / "long01.xml", SHARED / "inrc2010" / "solutions" / "long01__chgogos_198.sol.xml"
    if sol.exists():
        [inrc] = import_paths("inrc2010", [long01])
        cases.append((inrc, Verifier(inrc).write(read_inrc_solution(sol, inrc))))
    return cases


def perturbed(answer: str, rng: random.Random) -> str:
    """Shift a few start times (the answer usually becomes infeasible) or drop a line."""
    lines = answer.splitlines()
    for _ in range(rng.randint(0, 3)):
        k = rng.randrange(len(lines))
        head, _, value = lines[k].rpartition(" ")
        if value.isdigit():
            lines[k] = f"{head} {max(0, int(value) + rng.randint(-20, 20))}"
        elif "=" in value:
            key, _, number = value.partition("=")
            lines[k] = f"{head} {key}={max(0, int(number) + rng.randint(-20, 20))}"
    if rng.random() < 0.1:
        del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def batch_inputs(count: int) -> list[tuple[str, str]]:
    """(instance text, answer) pairs over the job shop and RCPSP files of the data set."""
    files = [("jsplib", p) for p in sorted((DATA / "jsplib").glob("*.txt"))]
    files += [("psplib-sm", p) for p in sorted((DATA / "psplib-sm").rglob("*.sm"))]
    files += [("psplib-mm", p) for p in sorted((DATA / "psplib-mm").rglob("*.mm"))]
    rng = random.Random(42)
    pool = []
    for fmt, path in files:
        [instance] = import_paths(fmt, [path])
        pool.append((print_instance(instance), Verifier(instance).write(serial_schedule(instance))))
    return [(text, perturbed(answer, rng)) for text, answer in (pool[i % len(pool)] for i in range(count))]


def check_all(items: list[tuple[str, str]]) -> int:
    """Check answers, building each instance's verifier once (as `schedc check --batch` does)."""
    verifiers: dict[str, Verifier] = {}
    feasible = 0
    for text, answer in items:
        verifier = verifiers.get(text)
        if verifier is None:
            verifier = verifiers[text] = Verifier(parse_instance_text(text))
        feasible += verifier.check(answer).feasible
    return feasible


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=10_000)
    args = parser.parse_args()
    print(f"{'instance':<16}{'lines':>7}{'parse spec ms':>15}{'check ms':>10}{'check/parse':>13}")
    for instance, answer in single_answers():
        text = print_instance(instance)
        verifier = Verifier(instance)
        t_parse = median_ms(lambda text=text: parse_instance_text(text))
        t_check = median_ms(lambda v=verifier, a=answer: v.check(a))
        lines = answer.count("\n")
        print(f"{instance.name:<16}{lines:>7}{t_parse:>15.2f}{t_check:>10.2f}{t_check / t_parse:>13.2f}")
    items = batch_inputs(args.answers)
    start = time.perf_counter()
    feasible = check_all(items)
    one = time.perf_counter() - start
    halves = [items[: len(items) // 2], items[len(items) // 2:]]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        list(pool.map(check_all, halves))
    two = time.perf_counter() - start
    print(f"\nbatch: {len(items)} answers ({feasible} feasible): 1 process {one:.2f} s "
          f"({len(items) / one:.0f}/s), 2 processes {two:.2f} s ({len(items) / two:.0f}/s)")
    print(f"projected paper evaluation ({PAPER_ANSWERS} answers): {PAPER_ANSWERS / len(items) * two:.1f} s on "
          f"2 processes (target < 60 s); 1 process {PAPER_ANSWERS / len(items) * one:.1f} s")


if __name__ == "__main__":
    main()
