"""The standing hostile corpus: fixed-seed answers, specs and canonical files built to cost (``tests/hostile.py``).

Every input must end in a report (answers) or an instance or a :class:`SchedcError` (specs, canonical
files) — never another exception — within bounded CPU time and memory: an answer at most 2 s + 20 µs per
character and 10× its size + 32 MB, a spec or canonical file at most 10 s + 100 µs per character and 60×
its size + 64 MB (memory traced on every fifth input of 200 KB or more and every 50th or 10th input). A
:class:`SchedcError` message shows at most ``max_errors()`` diagnostics and a summary line. An XML file's
external entities are never read (``/etc/passwd`` appears nowhere). Each check prints a closing line: its
inputs, their outcomes, the largest, the worst CPU time and the worst traced memory per character.

The default suite runs a slice (60 answers, 24 specs, 16 canonical files); ``-m slow`` runs the corpus:
10,000 answers over job shop, RCPSP, ITC-2007 and INRC-2010 (2,500 each, and 1,000 of them once more
through ``schedc check --batch``), 1,000 specs over every example family and 600 canonical files over the
eight import formats, 100 of them INRC-2010 XML attacks.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from schedc.core.diagnostics import SchedcError, max_errors
from schedc.importers import import_paths
from schedc.lang.parser import parse_instance_text
from schedc.verify.verifier import Verifier
from tests.conftest import DATA, ROOT
from tests.hostile import hostile_answer, hostile_spec, xml_attacks
from tests.test_extraction import EXAMPLES, instance_of, valid_answer
from tests.test_verify_fuzz import consistent

ANSWER_FAMILIES = ("ft06", "rcpsp_small", "itc2007_small", "inrc2010_small")  # job shop, RCPSP, ITC, INRC
SPEC_SEEDS = sorted(p.stem for p in EXAMPLES.glob("*.sched"))
#: format → (source file, NSPLib case file)
CANONICAL = {"jsplib": ("jsplib/la01.txt", None), "psplib-sm": ("psplib-sm/j301_1.sm", None),
             "psplib-mm": ("psplib-mm/j102_2.mm", None), "itc2007": ("itc2007/comp01.ctt", None),
             "inrc2010": ("inrc2010/sprint01.xml", None), "fjsp": ("fjsp/brandimarte/Mk01.fjs", None),
             "nsplib": ("nsplib/N25/1.nsp", "nsplib/Cases/1.gen")}
SECRET = "root:x:0:0"  # the first line of /etc/passwd: it must never be read into an error or an instance


class Budget:
    """CPU seconds and traced peak bytes of one call (memory traced on every fifth input of 200 KB or more and
    on every ``every``-th input); the worst of each, and the outcomes, for the corpus's closing line."""

    def __init__(self, label: str, every: int = 50):
        self.label, self.every, self.count, self.big = label, every, 0, 0
        self.outcomes: Counter[str] = Counter()
        self.cpu = 0.0
        self.ratio = 0.0
        self.biggest = 0

    def run(self, call: Callable[[], Any], size: int) -> tuple[Any, float, int | None]:
        self.count += 1
        self.biggest = max(self.biggest, size)
        self.big += size >= 200_000
        traced = (size >= 200_000 and self.big % 5 == 1) or self.count % self.every == 0
        if traced:
            tracemalloc.start()
        started = time.process_time()
        try:
            result = call()
        finally:
            seconds = time.process_time() - started
            peak = tracemalloc.get_traced_memory()[1] if traced else None
            if traced:
                tracemalloc.stop()
        self.cpu = max(self.cpu, seconds)
        if peak is not None and size >= 200_000:
            self.ratio = max(self.ratio, peak / size)
        return result, seconds, peak

    def line(self) -> str:
        """``LABEL: N inputs (outcomes), largest …, worst CPU …, worst traced memory …× (inputs ≥ 200 KB)``."""
        outcomes = ", ".join(f"{n} {k}" for k, n in sorted(self.outcomes.items()))
        return (f"{self.label}: {self.count} inputs ({outcomes}); largest {self.biggest:,} characters; worst CPU "
                f"{self.cpu:.2f} s; worst traced peak {self.ratio:.1f}x the input (inputs of 200 KB or more)")


def _answers(family: str, seed: int, count: int) -> list[tuple[str, str]]:
    rng = random.Random(f"answers:{family}:{seed}")
    valid = valid_answer(family)
    return [hostile_answer(rng, valid) for _ in range(count)]


def check_answers(family: str, seed: int, count: int) -> int:
    """Check ``count`` hostile answers of ``family``; every one within its bounds. Returns the count."""
    verifier = Verifier(instance_of(family))
    budget = Budget(f"answers {family} seed {seed}")
    for number, (chain, text) in enumerate(_answers(family, seed, count)):
        report, seconds, peak = budget.run(lambda text=text: verifier.check(text), len(text))
        consistent(report)
        budget.outcomes["feasible" if report.feasible else "infeasible" if report.extracted else "not extracted"] += 1
        where = f"{family} answer {number} ({chain}, {len(text):,} characters)"
        assert seconds <= 2.0 + 20e-6 * len(text), f"{where}: {seconds:.2f} s of CPU"
        assert peak is None or peak <= 10 * len(text) + (32 << 20), f"{where}: peak {peak:,} bytes"
    print(budget.line())
    return count


def _spec_outcome(call: Callable[[], Any], where: str, size: int, budget: Budget) -> None:
    """Run a parse or an import: an instance or a SchedcError with a capped message, within the bounds."""

    def guarded() -> Any:
        try:
            return call()
        except SchedcError as exc:
            return exc

    result, seconds, peak = budget.run(guarded, size)
    budget.outcomes["SchedcError" if isinstance(result, SchedcError) else "accepted"] += 1
    if isinstance(result, SchedcError):
        message = str(result)
        assert max_errors() == 0 or message.count(": error[") <= max_errors(), f"{where}: uncapped diagnostics"
        assert SECRET not in message, f"{where}: an external entity was read"
        if len(result.diagnostics) > max_errors() > 0:
            assert "more error" in message.splitlines()[-1], f"{where}: no summary line"
    elif isinstance(result, list):
        assert all(SECRET not in repr(instance) for instance in result), f"{where}: an external entity was read"
    assert seconds <= 10.0 + 100e-6 * size, f"{where}: {seconds:.2f} s of CPU"
    assert peak is None or peak <= 60 * size + (64 << 20), f"{where}: peak {peak:,} bytes"


def check_specs(seed_name: str, seed: int, count: int) -> int:
    rng = random.Random(f"specs:{seed_name}:{seed}")
    valid = (EXAMPLES / f"{seed_name}.sched").read_text(encoding="utf-8")
    budget = Budget(f"specs {seed_name} seed {seed}", every=10)
    for number in range(count):
        chain, text = hostile_spec(rng, valid)
        where = f"{seed_name} spec {number} ({chain}, {len(text):,} characters)"
        _spec_outcome(lambda text=text: parse_instance_text(text, file="hostile.sched", search=[EXAMPLES]), where,
                      len(text), budget)
    print(budget.line())
    return count


def check_canonical(fmt: str, seed: int, count: int, folder: Path, xml_share: float = 0.0) -> int:
    source, case = CANONICAL[fmt]
    rng = random.Random(f"canonical:{fmt}:{seed}")
    valid = (DATA / source).read_text(encoding="utf-8", errors="replace")
    budget = Budget(f"canonical {fmt} seed {seed}", every=10)
    for number in range(count):
        if fmt == "inrc2010" and rng.random() < xml_share:
            chain, text = "xml_attacks", xml_attacks(rng, valid)
        else:
            chain, text = hostile_spec(rng, valid)
        path = folder / f"{number}{Path(source).suffix}"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        cases = [DATA / case] if case else []
        where = f"{fmt} file {number} ({chain}, {len(text):,} characters)"
        _spec_outcome(lambda path=path, cases=cases: import_paths(fmt, [path], cases=cases), where, len(text), budget)
        path.unlink()
    print(budget.line())
    return count


# ---------------------------------------------------------------------------------------------- default slice


@pytest.mark.parametrize("family", ANSWER_FAMILIES)
def test_hostile_answers_slice(family: str) -> None:
    assert check_answers(family, seed=0, count=15) == 15


@pytest.mark.parametrize("seed_name", ["ft06", "rcpsp_small", "itc2007_small", "inrc2010_small"])
def test_hostile_specs_slice(seed_name: str) -> None:
    assert check_specs(seed_name, seed=0, count=6) == 6


@pytest.mark.parametrize("fmt", ["jsplib", "itc2007", "inrc2010", "psplib-sm"])
def test_hostile_canonical_files_slice(fmt: str, tmp_path: Path) -> None:
    assert check_canonical(fmt, seed=0, count=4, folder=tmp_path, xml_share=0.5) == 4


@pytest.mark.parametrize("seed", range(6))
def test_xml_attacks_are_refused_without_expansion_or_reading(seed: int, tmp_path: Path) -> None:
    rng = random.Random(f"xml:{seed}")
    valid = (DATA / "inrc2010" / "sprint01.xml").read_text(encoding="utf-8")
    path = tmp_path / "attack.xml"
    path.write_text(xml_attacks(rng, valid), encoding="utf-8")
    try:
        instances = import_paths("inrc2010", [path])
        assert all(SECRET not in repr(i) for i in instances)
    except SchedcError as exc:
        assert SECRET not in str(exc) and "lollol" not in str(exc)


# ---------------------------------------------------------------------------------------------- the corpus


@pytest.mark.slow
@pytest.mark.parametrize("family", ANSWER_FAMILIES)
def test_hostile_answer_corpus(family: str) -> None:
    """2,500 hostile answers per family, 10,000 in all."""
    assert sum(check_answers(family, seed=block, count=500) for block in range(5)) == 2500


@pytest.mark.slow
def test_hostile_answers_through_check_batch(tmp_path: Path) -> None:
    """1,000 hostile answers as one ``check --batch`` file: every record answered, in order, no traceback."""
    batch = tmp_path / "batch.jsonl"
    with batch.open("w", encoding="utf-8") as handle:
        for index, (_, text) in enumerate(_answers("ft06", seed=99, count=1000)):
            handle.write(json.dumps({"id": index, "answer": text}) + "\n")
    out = tmp_path / "reports.jsonl"
    done = subprocess.run([sys.executable, "-m", "schedc", "check", str(EXAMPLES / "ft06.sched"), "--batch",
                           str(batch), "-o", str(out)], capture_output=True, text=True, timeout=3600, cwd=ROOT)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    reports = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in reports] == list(range(1000))
    assert not any("internal error" in r.get("error", "") for r in reports)


@pytest.mark.slow
@pytest.mark.parametrize("seed_name", SPEC_SEEDS)
def test_hostile_spec_corpus(seed_name: str) -> None:
    """1,000 hostile specs over the example families."""
    per = -(-1000 // len(SPEC_SEEDS))
    assert check_specs(seed_name, seed=1, count=per) == per


@pytest.mark.slow
@pytest.mark.parametrize("fmt", sorted(CANONICAL))
def test_hostile_canonical_corpus(fmt: str, tmp_path: Path) -> None:
    """600 hostile canonical files over the import formats (INRC-2010: 200, half of them XML attacks)."""
    count = 200 if fmt == "inrc2010" else 400 // (len(CANONICAL) - 1) + 1
    assert check_canonical(fmt, seed=1, count=count, folder=tmp_path, xml_share=0.5) == count
