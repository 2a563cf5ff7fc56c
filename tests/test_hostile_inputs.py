"""Hostile input at scale: answers, batches and specs that once cost memory, time or a blocked process.

(a) An answer of any size is read in linear time and memory: lines are made a chunk at a time, issues
and skipped lines beyond ``keep`` are counted, not kept, and the verdict does not depend on ``keep``.
(b) Inputs are bounded: an answer or spec must be a regular file below a size cap (a FIFO or a device
is refused at once, never read). (c) ``check --batch`` isolates each record (its spec's file type and
size, a time budget), writes each report as soon as it is made, and caches parsed specs by content.
(d) Diagnostics are capped like ``-fmax-errors``: the first N in full and one summary line.

No test here measures time; ``benchmarks/hostile_inputs.py`` does.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from schedc.cli import app
from schedc.core.diagnostics import SchedcError, format_diagnostics
from schedc.pipeline.checking import BatchLimits, check_batch
from schedc.verify.answers import AnswerStream, iter_lines
from schedc.verify.verifier import Verifier
from tests.conftest import ROOT
from tests.test_extraction import EXAMPLES, instance_of, valid_answer, verifier

runner = CliRunner()
INRC = EXAMPLES / "inrc2010_small.sched"
FT06 = EXAMPLES / "ft06.sched"
SEPARATORS = ["\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


# ---------------------------------------------------------------------------------------------- (a) answers


def test_lines_are_made_exactly_as_splitlines_makes_them() -> None:
    rng = random.Random(32)
    for _ in range(300):
        pieces = [rng.choice(SEPARATORS + ["a", "bc", " ", "Job 1 step 1: start=0", ""]) for _ in range(40)]
        text = "".join(pieces)
        for chunk in (1, 2, 3, 7, 1 << 18):
            assert list(iter_lines(text, chunk)) == text.splitlines(), (text, chunk)


def test_a_huge_repeated_answer_is_checked_in_linear_memory() -> None:
    """An answer repeated until it is 1 MB: every repeat is counted, 50 are listed, memory stays below 10×.

    (The header ``ASSIGNMENTS=N`` announces one answer's lines: one format issue, listed after the repeats.)
    """
    answer = valid_answer("inrc2010_small")
    text = answer * (1_000_000 // len(answer))
    check = Verifier(instance_of("inrc2010_small"), keep=50)
    tracemalloc.start()
    try:
        report = check.check(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    repeats = text.count(answer)
    assert report.produced == repeats * report.required and not report.feasible
    duplicates = report.produced - report.required
    listed = sum(1 for i in report.issues if i.kind == "duplicate")
    assert listed == 50 and report.omitted_issues == {"duplicate": duplicates - listed, "format": 1}
    assert report.hard_violations == duplicates + 1
    assert report.failure_modes["structural_misunderstanding"] == duplicates
    assert peak < 10 * len(text), f"peak {peak:,} bytes for a {len(text):,}-character answer"


MUTATIONS = [
    lambda lines: lines + lines,  # every line twice
    lambda lines: [*lines, "Zed, 3, E;", "Ann, 99, E;", "not a line 42", "prose only", "```"],
    lambda lines: [line.replace("E", "Q") for line in lines] + ["Makespan: 9"],
    lambda lines: ["| x | 1 |"] * 30 + lines[: len(lines) // 2],
]


@pytest.mark.parametrize("example", ["inrc2010_small", "ft06", "itc2007_small", "rcpsp_small"])
@pytest.mark.parametrize("mutation", range(len(MUTATIONS)))
def test_keep_changes_the_listing_never_the_verdict(example: str, mutation: int) -> None:
    text = "\n".join(MUTATIONS[mutation](valid_answer(example).splitlines()))
    instance = instance_of(example)
    full, short = Verifier(instance, keep=None).check(text), Verifier(instance, keep=2).check(text)
    same = ("extracted", "feasible", "produced", "hard_violations", "objective", "coverage", "failure_modes",
            "stated_objective")
    assert {k: getattr(short, k) for k in same} == {k: getattr(full, k) for k in same}
    assert short.issues == full.issues[:2] and short.skipped_lines == full.skipped_lines[:2]
    assert sum(short.omitted_issues.values()) == len(full.issues) - len(short.issues)
    assert short.omitted_skipped_lines == len(full.skipped_lines) - len(short.skipped_lines)
    assert not full.omitted_issues and not full.omitted_skipped_lines


def test_the_stream_counts_every_skipped_line_and_keeps_the_first() -> None:
    check = verifier("ft06")
    text = "\n".join(f"remark {i} with value {i}" for i in range(500)) + "\nJob 1 step 1: start=0\n"
    stream = AnswerStream(text, check.format, keep=10)
    assert len(list(stream.lines)) == 1 and stream.produced == 1
    assert stream.skipped_count == 500 and len(stream.skipped) == 10 and stream.omitted_skipped == 490
    assert stream.unparseable == 500  # each carries values in a shape the format does not accept


def test_a_huge_name_is_quoted_short() -> None:
    report = verifier("ft06").check("Job " + "x" * 100_000 + " step 1: start=0\n")
    assert len(report.issues[0].message) < 200 and "(100,004 characters)" in report.issues[0].message


# ---------------------------------------------------------------------------------------------- (b) bounded files


def _check(*args: object) -> Any:
    return runner.invoke(app, ["check", *map(str, args)])


def test_an_answer_over_the_size_cap_is_refused(tmp_path: Path) -> None:
    answer = tmp_path / "a.txt"
    answer.write_text(valid_answer("ft06") * 100)
    result = _check(FT06, answer, "--max-answer-bytes", "1k")
    assert result.exit_code == 2 and "larger than the limit of 1,024 bytes" in result.output
    assert "--max-answer-bytes" in result.output
    assert _check(FT06, answer, "--max-answer-bytes", "1M").exit_code == 1  # within the cap: checked (duplicates)
    assert _check(FT06, answer, "--max-answer-bytes", "lots").exit_code == 2


def _cli(*args: object, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "schedc", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_a_fifo_or_a_device_is_refused_without_reading_it(tmp_path: Path) -> None:
    fifo = tmp_path / "answer.fifo"
    os.mkfifo(fifo)  # nobody ever writes to it: opening it for reading would block forever
    for target, kind in ((fifo, "a FIFO"), (Path("/dev/zero"), "a character device"), (tmp_path, "a directory")):
        answer = _cli("check", FT06, target)
        assert answer.returncode == 2 and f"the answer is {kind}, not a regular file" in answer.stderr
        spec = _cli("parse", target)
        assert spec.returncode == 2 and f"the spec is {kind}, not a regular file" in spec.stderr


# ---------------------------------------------------------------------------------------------- (c) batches


def _records(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_record_naming_a_fifo_device_or_directory_spec_is_refused_alone(tmp_path: Path) -> None:
    fifo = tmp_path / "spec.fifo"
    os.mkfifo(fifo)
    good = valid_answer("ft06")
    batch = _records(tmp_path / "b.jsonl", [
        {"id": "ok", "answer": good}, {"id": "zero", "answer": good, "spec": "/dev/zero"},
        {"id": "fifo", "answer": good, "spec": str(fifo)}, {"id": "dir", "answer": good, "spec": str(tmp_path)},
        {"id": "ok2", "answer": good}])
    result = _cli("check", FT06, "--batch", batch, timeout=120)
    reports = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["id"] for r in reports] == ["ok", "zero", "fifo", "dir", "ok2"]
    assert reports[0]["feasible"] and reports[4]["feasible"]
    assert "a character device, not a regular file" in reports[1]["error"]
    assert "a FIFO, not a regular file" in reports[2]["error"]
    assert "a directory, not a regular file" in reports[3]["error"]


def test_a_record_over_the_size_cap_is_skipped_unread(tmp_path: Path) -> None:
    good = valid_answer("ft06")
    long = {"id": "b", "answer": good + "x" * 5000}
    batch = _records(tmp_path / "b.jsonl", [{"id": "a", "answer": good}, long, {"id": "c", "answer": good}])
    result = _check(FT06, "--batch", batch, "--max-answer-bytes", "4k")
    reports = [json.loads(line) for line in result.output.splitlines()]
    assert [r.get("feasible") for r in reports] == [True, None, True]
    size = len(json.dumps(long).encode())
    assert reports[1] == {"id": 2, "line": 2, "error": f"the record is {size:,} bytes, more than the limit of 4,096 "
                          "bytes"}


def test_a_record_past_its_time_budget_is_an_error_and_the_batch_goes_on(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    original = Verifier.check

    def slow(self: Verifier, text: str, detail: bool = True) -> Any:
        if "slow" in text:
            time.sleep(60)
        return original(self, text, detail)

    monkeypatch.setattr(Verifier, "check", slow)
    good = valid_answer("ft06")
    lines = [json.dumps({"id": i, "answer": good + ("slow\n" if i == 1 else "")}) for i in range(3)]
    reports = [json.loads(r) for r in check_batch(FT06, lines, limits=BatchLimits(seconds=0.5))]
    assert [r["id"] for r in reports] == [0, 1, 2] and reports[0]["feasible"] and reports[2]["feasible"]
    assert reports[1]["error"] == "the record took longer than its budget of 0.5 s"


def test_reports_reach_the_output_file_as_each_record_finishes(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The run is killed while checking the third record: the first two reports are already in the file."""
    original = Verifier.check

    def killed(self: Verifier, text: str, detail: bool = True) -> Any:
        if "kill" in text:
            raise KeyboardInterrupt
        return original(self, text, detail)

    monkeypatch.setattr(Verifier, "check", killed)
    good = valid_answer("ft06")
    batch = _records(tmp_path / "b.jsonl", [{"id": "a", "answer": good}, {"id": "b", "answer": good},
                                            {"id": "c", "answer": good + "kill\n"}, {"id": "d", "answer": good}])
    out = tmp_path / "reports.jsonl"
    result = _check(FT06, "--batch", batch, "-o", out)
    assert result.exit_code != 0
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["a", "b"]


def test_specs_are_cached_by_content_not_by_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from schedc.lang import parser

    parses: list[str] = []
    original = parser.parse_instance_text

    def counted(text: str, file: str = "<input>", *args: Any, **kwargs: Any) -> Any:
        parses.append(file)
        return original(text, file, *args, **kwargs)

    monkeypatch.setattr(parser, "parse_instance_text", counted)
    spec, copy = tmp_path / "a.sched", tmp_path / "b.sched"
    spec.write_text(FT06.read_text())
    copy.write_text(FT06.read_text())
    good = valid_answer("ft06")
    lines = [json.dumps({"id": i, "answer": good, "spec": str(path)}) for i, path in enumerate([spec, copy, spec])]
    lines.append(json.dumps({"id": 3, "answer": good, "spec": str(spec)}))
    reports = check_batch(None, iter(lines))
    first = [json.loads(next(reports)) for _ in range(3)]
    assert all(r["feasible"] for r in first) and len(parses) == 1  # one parse for two paths of the same content
    spec.write_text(FT06.read_text().replace("J1 M3:1 M1:3", "J1 M3:100 M1:3"))  # the file changes mid-batch
    changed = json.loads(next(reports))
    assert not changed["feasible"] and len(parses) == 2  # read again, not a stale verifier of the old text


# ---------------------------------------------------------------------------------------------- (d) diagnostics


def _duplicates(tmp_path: Path, rows: int) -> Path:
    spec = tmp_path / "dup.sched"
    text = FT06.read_text().replace("resources table\n  M1 unary\n", "resources table\n" + "  M1 unary\n" * rows)
    spec.write_text(text)
    return spec


def test_diagnostics_are_capped_with_one_summary_line(tmp_path: Path) -> None:
    spec = _duplicates(tmp_path, 5000)
    result = runner.invoke(app, ["parse", str(spec)])
    assert result.exit_code == 2
    assert result.output.count("error[E201]") == 20
    assert "… and 4,979 more errors (E201 ×4,979: duplicate resource)" in result.output.splitlines()
    few = runner.invoke(app, ["--max-errors", "3", "parse", str(spec)])
    assert few.output.count("error[E201]") == 3 and "… and 4,996 more errors" in few.output
    every = runner.invoke(app, ["--max-errors", "0", "parse", str(spec)])
    assert every.output.count("error[E201]") == 4999 and "more errors" not in every.output
    again = runner.invoke(app, ["parse", str(spec)])  # the option holds for one command, not for the process
    assert again.output.count("error[E201]") == 20


def test_every_diagnostic_stays_in_the_error(tmp_path: Path) -> None:
    from schedc.lang.parser import parse_file

    with pytest.raises(SchedcError) as caught:
        parse_file(_duplicates(tmp_path, 300))
    assert len(caught.value.diagnostics) == 299 and str(caught.value).count("error[E201]") == 20


def test_summary_names_the_most_frequent_codes() -> None:
    from schedc.core.diagnostics import Diagnostic

    diags = ([Diagnostic(code="E201", message=f"duplicate resource 'M{i}'") for i in range(5)]
             + [Diagnostic(code="E202", message="c1: undefined activity 'X'")] * 3)
    text = format_diagnostics(diags, limit=2)
    assert text.splitlines()[-1] == "… and 6 more errors (E201 ×3: duplicate resource; E202 ×3: undefined activity)"


def test_a_structured_answer_of_millions_of_objects_is_refused_before_decoding() -> None:
    """Five million ``{}`` items (15 MB) once cost 21 times their size when decoded; now they are counted, not
    decoded. A structured answer of a normal size is still read."""
    check = verifier("inrc2010_small")
    huge = '{"assignments": [' + ",".join(["{}"] * 200_001) + "]}"
    report = check.check(huge)
    assert not report.extracted
    assert report.extraction_error.endswith("the structured answer holds 200,002 objects, more than 100,000")
    tracemalloc.start()
    try:
        check.check(huge)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 * len(huge)


HUGE_NUMBER = "9" * 5000  # int() refuses more than 4,300 digits


@pytest.mark.parametrize(("fmt", "source", "old", "new"), [
    ("psplib-mm", "psplib-mm/j102_2.mm", "   1        1          3           2   3   4",
     f"   1        1          3           2   3   {HUGE_NUMBER}"),  # a successor: the hostile corpus's find
    ("psplib-sm", "psplib-sm/j301_1.sm", "   1        1          3           2   3   4",
     f"   1        1          3           {HUGE_NUMBER}   3   4"),
    ("psplib-mm", "psplib-mm/j102_2.mm", "   2        3          2           5   6",
     f"   2        {HUGE_NUMBER}          2           5   6"),
    ("itc2007", "itc2007/comp01.ctt", "c0001 t000 6 4 130", f"c0001 t000 {HUGE_NUMBER} 4 130"),
    ("itc2007", "itc2007/comp01.ctt", "Rooms: 6", f"Rooms: {HUGE_NUMBER}"),
])
def test_numbers_of_thousands_of_digits_in_canonical_files_are_diagnostics(tmp_path: Path, fmt: str, source: str,
                                                                           old: str, new: str) -> None:
    """A 5,000-digit number once raised ValueError out of the PSPLIB and ITC-2007 readers (a traceback)."""
    from schedc.importers import import_paths
    from tests.conftest import DATA

    text = (DATA / source).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / Path(source).name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(SchedcError) as caught:
        import_paths(fmt, [path])
    assert f"{path}:" in str(caught.value) and "error[I" in str(caught.value)


def test_the_naming_hint_reads_a_huge_answer_in_bounded_memory() -> None:
    """An answer of unknown names gets a naming hint from its first lines; reading all of its lines at once
    (every line kept) once cost 53 times a 16 MB answer's size."""
    from schedc.pipeline.checking import check_answer

    lines = valid_answer("inrc2010_small").replace("Ann", "Zed").replace("Bob", "Yara")
    text = lines * (1_000_000 // len(lines))
    tracemalloc.start()
    try:
        report = check_answer(INRC, text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.omitted_issues.get("unknown_entity", 0) > 0
    assert peak < 10 * len(text), f"peak {peak:,} bytes for {len(text):,} characters"
