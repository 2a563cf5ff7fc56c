"""``schedc check``: exit codes, the JSON report, themed names and batch mode.

Exit status: 0 feasible, 1 infeasible or nothing extracted, 2 bad input (a spec that does
not parse or is not an instance, an unreadable answer, batch or name mapping). A batch is
JSONL in, JSONL out: one output line per non-blank input record, in order; a malformed
record gets an ``error`` line and the others are still checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedc.cli import app
from tests.test_extraction import FT06_THEME, ITC_THEME, valid_answer

runner = CliRunner()
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FT06 = EXAMPLES / "ft06.sched"

JSON_KEYS = {"extracted", "feasible", "coverage", "violation_rate", "violations", "objective", "components",
             "stated_objective", "bks", "gap_pct", "skipped_lines"}


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def feasible(tmp_path: Path) -> Path:
    text = "Here is my schedule:\n```\n" + valid_answer("ft06") + "```\nMakespan: 71\n"
    return write(tmp_path / "feasible.txt", text)


@pytest.fixture
def infeasible(tmp_path: Path) -> Path:
    text = valid_answer("ft06").replace("Job 1 step 2: start=1", "Job 1 step 2: start=0")
    return write(tmp_path / "infeasible.txt", text)


# ---------------------------------------------------------------------------- exit codes and text report


def test_feasible_answer_exits_0(feasible: Path) -> None:
    result = run("check", FT06, feasible)
    assert result.exit_code == 0, result.output
    assert "FEASIBLE: 0 hard violations" in result.stdout
    assert "makespan: 71; stated 71 (agrees); best known 55 (optimal); gap 29.09%" in result.stdout


def test_infeasible_answer_exits_1(infeasible: Path) -> None:
    result = run("check", FT06, infeasible)
    assert result.exit_code == 1, result.output
    assert "INFEASIBLE" in result.stdout
    assert "Job 1 step 2 starts at 0 before Job 1 step 1 ends at 1" in result.stdout


@pytest.mark.parametrize("text", ["", "I could not find a schedule.\n", '{"schedule": []}\n'])
def test_nothing_extracted_exits_1(tmp_path: Path, text: str) -> None:
    result = run("check", FT06, write(tmp_path / "answer.txt", text))
    assert result.exit_code == 1, result.output
    assert "NOT EXTRACTED: no line matches the answer format '<job> step <step>: start=<start>'" in result.stdout


def test_byte_order_mark_and_undecodable_bytes_are_not_fatal(tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_bytes(b"\xef\xbb\xbf" + valid_answer("ft06").encode() + b"\x80\xff Makespan: 71\n")
    result = run("check", FT06, answer)
    assert result.exit_code == 0, result.output
    assert "stated 71 (agrees)" in result.stdout


def test_missing_answer_file_exits_2(tmp_path: Path) -> None:
    result = run("check", FT06, tmp_path / "missing.txt")
    assert result.exit_code == 2
    assert "error[E403]: cannot read the answer" in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize("spec", ["broken", "family", "missing", "directory"])
def test_bad_spec_exits_2(tmp_path: Path, feasible: Path, spec: str) -> None:
    broken = "instance x family jobshop\nresources table\n  M1 unary\nend\nbogus\n"
    path = {"broken": write(tmp_path / "bad.sched", broken),
            "family": EXAMPLES.parent / "specs" / "jobshop.sched",
            "missing": tmp_path / "missing.sched",
            "directory": tmp_path}[spec]
    result = run("check", path, feasible)
    assert result.exit_code == 2, result.output
    assert "error[E" in result.stderr and "Traceback" not in result.output


def test_no_answer_argument_exits_2() -> None:
    result = run("check", FT06)
    assert result.exit_code == 2
    assert "usage: schedc check SPEC ANSWER" in result.stderr


# ---------------------------------------------------------------------------- --json


def test_json_report_keys_and_values(feasible: Path) -> None:
    result = run("check", FT06, feasible, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert JSON_KEYS <= report.keys()
    assert report["extracted"] and report["feasible"] and report["coverage"] == 1.0
    assert report["violation_rate"] == 0.0 and report["violations"] == []
    assert report["objective"] == 71 and report["stated_objective"] == 71 and report["stated_objective_matches"]
    assert report["bks"] == 55 and report["gap_pct"] == pytest.approx(29.0909, abs=1e-3)
    assert [s["reason"] for s in report["skipped_lines"]] == ["prose (no schedule values)", "code fence",
                                                              "code fence", "states an objective value"]


def test_json_report_of_an_infeasible_answer(infeasible: Path) -> None:
    result = run("check", FT06, infeasible, "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert JSON_KEYS <= report.keys()
    assert not report["feasible"] and report["gap_pct"] is None
    violation = report["violations"][0]
    assert {"kind", "constraint", "message"} <= violation.keys()
    assert (violation["kind"], violation["constraint"]) == ("precedence_lag", "routes")
    assert "Job 1 step 2 starts at 0" in violation["message"]


def test_json_report_carries_constraintbench_fields(tmp_path: Path) -> None:
    """Optimal-within-ε flags, the self-report error and one failure-mode category per problem."""
    text = valid_answer("ft06").replace("Job 1 step 2: start=1", "Job 1 step 2: start=0")
    text += "Job 9 step 1: start=0\nJob 1 step 1 begins 0\nMakespan: 80\n"
    result = run("check", FT06, write(tmp_path / "a.txt", text), "--json")
    report = json.loads(result.stdout)
    assert {v["category"] for v in report["violations"]} == {"constraint_specific"}  # precedence_lag
    assert [(i["kind"], i["category"]) for i in report["issues"]] == [("unknown_entity", "entity_hallucination")]
    modes = report["failure_modes"]
    assert modes["entity_hallucination"] == 1 and modes["unparseable"] == 1
    assert modes["constraint_specific"] == len(report["violations"]) and modes["budget_threshold_near_miss"] == 0
    feasible = json.loads(run("check", FT06, write(tmp_path / "b.txt", valid_answer("ft06") + "Makespan: 80\n"),
                              "--json").stdout)
    assert feasible["optimal_within"] == {"0.1": False, "0.5": False, "1": False, "5": False}  # 71 vs 55
    assert feasible["stated_objective_error"] == round(9 / 71, 6)
    assert sum(feasible["failure_modes"].values()) == 0


def test_failure_mode_mapping_is_documented_and_total() -> None:
    from schedc.kinds import KINDS
    from schedc.verify import failure_modes
    from schedc.verify.verifier import COUNTED

    assert failure_modes.violation_category("nonrenewable_budget", 1) == "budget_threshold_near_miss"
    assert failure_modes.violation_category("nonrenewable_budget", 2) == "constraint_specific"
    assert failure_modes.violation_category("mode_choice", 1) == "structural_misunderstanding"
    assert failure_modes.violation_category("unary_no_overlap", 1) == "constraint_specific"
    assert failure_modes.violation_category("horizon", 1) == "budget_threshold_near_miss"
    # the instance's horizon is judged like a deadline, under its own violation kind (kinds/timing.py)
    assert (failure_modes.THRESHOLD_KINDS | failure_modes.STRUCTURAL_KINDS) <= set(KINDS) | {"horizon"}
    assert set(COUNTED) | {"missing"} == set(failure_modes.ISSUE_CATEGORIES)
    assert set(failure_modes.ISSUE_CATEGORIES.values()) <= set(failure_modes.CATEGORIES)
    for category in failure_modes.CATEGORIES:
        assert f"``{category}``" in (failure_modes.__doc__ or "")


def test_json_report_of_a_penalty_family(tmp_path: Path) -> None:
    answer = write(tmp_path / "roster.txt", valid_answer("inrc2010_small") + "Total cost: 9\n")
    result = run("check", EXAMPLES / "inrc2010_small.sched", answer, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["objective"] == 9 and report["objective_measure"] == "penalty"
    assert report["components"]["min_free_days"] == 8 and sum(report["components"].values()) == 9
    assert report["stated_objective_matches"] is True and report["bks"] is None and report["gap_pct"] is None


def test_json_report_when_nothing_is_extracted(tmp_path: Path) -> None:
    result = run("check", FT06, write(tmp_path / "a.txt", "no idea, maybe a makespan of 60\n"), "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert JSON_KEYS <= report.keys()
    assert report["extracted"] is False and report["coverage"] == 0.0 and report["violation_rate"] is None
    assert report["stated_objective"] == 60 and report["objective"] is None


# ---------------------------------------------------------------------------- --names


def test_names_mapping_lets_a_themed_answer_verify(tmp_path: Path) -> None:
    names = write(tmp_path / "names.json", json.dumps(FT06_THEME))
    answer = write(tmp_path / "themed.txt", valid_answer("ft06", FT06_THEME))
    assert "Sourdough step 1: start=0" in answer.read_text()
    assert run("check", FT06, answer).exit_code == 1  # unknown jobs without the mapping
    result = run("check", FT06, answer, "--names", names)
    assert result.exit_code == 0, result.output


def test_names_mapping_words_the_messages(tmp_path: Path) -> None:
    names = write(tmp_path / "names.json", json.dumps(FT06_THEME))
    answer = write(tmp_path / "themed.txt", valid_answer("ft06", FT06_THEME).replace(
        "Sourdough step 2: start=1", "Sourdough step 2: start=0"))
    result = run("check", FT06, answer, "--names", names, "--json")
    assert result.exit_code == 1
    messages = [v["message"] for v in json.loads(result.stdout)["violations"]]
    assert "Sourdough step 2 starts at 0 before Sourdough step 1 ends at 1" in messages


def test_names_mapping_of_a_slot_family(tmp_path: Path) -> None:
    names = write(tmp_path / "names.json", json.dumps(ITC_THEME))
    answer = write(tmp_path / "timetable.txt", valid_answer("itc2007_small", ITC_THEME))
    result = run("check", EXAMPLES / "itc2007_small.sched", answer, "--names", names)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("content", ["{", '["J1", "Bread"]', '{"J1": 3}'])
def test_bad_names_mapping_exits_2(tmp_path: Path, feasible: Path, content: str) -> None:
    result = run("check", FT06, feasible, "--names", write(tmp_path / "names.json", content))
    assert result.exit_code == 2
    assert "name mapping" in result.stderr


# ---------------------------------------------------------------------------- --batch


def batch_file(tmp_path: Path) -> Path:
    records = [
        json.dumps({"id": "ok", "answer": valid_answer("ft06")}),
        "this is not json",
        json.dumps({"id": "no-answer"}),
        "",
        json.dumps({"id": "bad", "answer": valid_answer("ft06").replace("start=1\n", "start=0\n", 1)}),
        json.dumps(["not", "an", "object"]),
        json.dumps({"id": 7, "answer": valid_answer("rcpsp_small"), "spec": str(EXAMPLES / "rcpsp_small.sched")}),
        json.dumps({"id": "missing-spec", "answer": "x", "spec": str(tmp_path / "nope.sched")}),
        json.dumps({"answer": "nothing here"}),
    ]
    return write(tmp_path / "answers.jsonl", "\n".join(records) + "\n")


def check_batch_output(lines: list[str]) -> None:
    assert len(lines) == 8  # one per non-blank record
    out = [json.loads(line) for line in lines]
    assert [r["id"] for r in out] == ["ok", 2, "no-answer", "bad", 6, 7, "missing-spec", 9]
    ok, not_json, no_answer, bad, not_object, rcpsp, missing, prose = out
    assert ok["feasible"] and ok["instance"] == "ft06" and JSON_KEYS <= ok.keys()
    assert bad["feasible"] is False and bad["violations"][0]["constraint"] == "routes"
    assert rcpsp["feasible"] and rcpsp["instance"] == "rcpsp_small" and rcpsp["objective"] == 13
    assert prose["extracted"] is False and prose["feasible"] is False
    assert not_json["line"] == 2 and "malformed" in not_json["error"]
    for record in (no_answer, not_object):
        assert 'a JSON object with a string "answer"' in record["error"]
    assert "E100" in missing["error"] and "nope.sched" in missing["error"]


def test_batch_to_stdout(tmp_path: Path) -> None:
    result = run("check", FT06, "--batch", batch_file(tmp_path))
    assert result.exit_code == 0, result.output
    check_batch_output(result.stdout.splitlines())


def test_batch_to_file(tmp_path: Path) -> None:
    out = tmp_path / "reports.jsonl"
    result = run("check", FT06, "--batch", batch_file(tmp_path), "-o", out)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    check_batch_output(out.read_text(encoding="utf-8").splitlines())


def test_batch_without_default_spec_reports_each_record(tmp_path: Path) -> None:
    result = run("check", "--batch", batch_file(tmp_path))
    assert result.exit_code == 0, result.output
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(out) == 8
    assert out[0]["error"].startswith("no spec") and out[5]["feasible"] is True


def test_batch_with_names(tmp_path: Path) -> None:
    names = write(tmp_path / "names.json", json.dumps(FT06_THEME))
    batch = write(tmp_path / "b.jsonl", json.dumps({"id": 1, "answer": valid_answer("ft06", FT06_THEME)}) + "\n")
    result = run("check", FT06, "--batch", batch, "--names", names)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["feasible"] is True


def test_batch_with_undecodable_bytes_is_not_fatal(tmp_path: Path) -> None:
    batch = tmp_path / "b.jsonl"
    batch.write_bytes(b"\xff\xfe{\"id\": 1}\n" + json.dumps({"id": 2, "answer": valid_answer("ft06")}).encode() + b"\n")
    result = run("check", FT06, "--batch", batch)
    assert result.exit_code == 0, result.output
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert "error" in first and second["feasible"] is True


def test_missing_batch_file_exits_2(tmp_path: Path) -> None:
    result = run("check", FT06, "--batch", tmp_path / "missing.jsonl")
    assert result.exit_code == 2
    assert "cannot read the batch" in result.stderr
