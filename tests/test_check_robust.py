"""No answer crashes ``schedc check``: structured answers with non-finite or huge numbers, deep
nesting and wrong types, non-ASCII digits, and batches in which one record is such an answer.

Each of these once raised (OverflowError from ``int(inf)``, RecursionError from ``json.loads``) or
was misread (``start=٣`` counted as 3). The fuzz test writes structured answers as raw JSON text
(so that ``Infinity``, ``1e400`` and thousands of brackets reach the verifier as a model would send
them) for every example family and asserts that each gives a consistent report.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from schedc.cli import app
from schedc.pipeline.checking import check_batch, decode_answer
from schedc.verify.answers import AnswerFormat, extract
from schedc.verify.verifier import CheckReport
from tests.test_extraction import ALL_EXAMPLES, EXAMPLES, valid_answer, verifier
from tests.test_verify_fuzz import consistent

runner = CliRunner()
FT06 = EXAMPLES / "ft06.sched"
NO_LINE = "no line matches the answer format '<job> step <step>: start=<start>'"
NUMBER_FIELDS = ("step", "start", "mode", "day", "period")


@cache
def items(example: str) -> tuple[dict[str, str], ...]:
    """The fields of a valid answer's lines, as JSON value texts (numbers bare, names quoted)."""
    check = verifier(example)
    lines = extract(valid_answer(example), AnswerFormat(check.family)).lines
    return tuple({k: v if k in NUMBER_FIELDS else json.dumps(v) for k, v in line.fields.items()} for line in lines)


def structured(rows: list[dict[str, str]]) -> str:
    """A structured answer written from raw JSON value texts."""
    body = ", ".join("{" + ", ".join(f'"{k}": {v}' for k, v in row.items()) + "}" for row in rows)
    return '{"assignments": [' + body + "]}"


def with_first(example: str, field: str, raw: str) -> str:
    """The valid structured answer of ``example`` with one field of its first item replaced by ``raw``."""
    rows = [dict(row) for row in items(example)]
    rows[0][field] = raw
    return structured(rows)


def test_the_valid_structured_answers_verify() -> None:
    for example in ALL_EXAMPLES:
        assert verifier(example).check(structured(list(items(example)))).feasible, example


# ---------------------------------------------------------------------------- regressions


@pytest.mark.parametrize("raw", ["Infinity", "-Infinity", "NaN", "1e400", "-1e400"])
def test_non_finite_numbers_are_an_extraction_failure(raw: str) -> None:
    report = verifier("ft06").check(with_first("ft06", "start", raw))
    assert not report.extracted and not report.feasible
    assert report.extraction_error is not None and "; the structured answer is " in report.extraction_error


def not_well_formed(reason: str) -> str:
    return f"{NO_LINE}; the structured answer is not well formed: {reason}"


def test_a_huge_integral_float_is_refused_with_its_reason() -> None:
    report = verifier("ft06").check(with_first("ft06", "start", "1e300"))
    assert report.extraction_error == not_well_formed("item 0: start has more than 100 digits")


def test_wrong_types_say_which_field() -> None:
    report = verifier("ft06").check(with_first("ft06", "job", "[[1]]"))
    assert report.extraction_error == not_well_formed("item 0: job must be a string, not an array")
    report = verifier("ft06").check(with_first("ft06", "start", "null"))
    assert report.extraction_error == not_well_formed("item 0: start must be an integer, not null")


def test_a_name_may_not_smuggle_in_a_second_line() -> None:
    raw = json.dumps("Job 1\nJob 1 step 1: start=0")
    report = verifier("ft06").check(with_first("ft06", "job", raw))
    assert not report.extracted and "must be on one line" in (report.extraction_error or "")


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_deep_nesting_is_an_extraction_failure(depth: int) -> None:
    for text in ("[" * depth, '{"assignments": ' + "[" * depth + "]" * depth + "}", "{" + '"a":{' * depth):
        report = verifier("ft06").check(text)
        assert not report.extracted and report.extraction_error is not None


@pytest.mark.parametrize("digit", ["٣", "３", "۳", "३"])
def test_only_ascii_digits_are_numbers(digit: str) -> None:
    text = valid_answer("ft06").replace("Job 1 step 1: start=0", f"Job 1 step 1: start={digit}")
    report = verifier("ft06").check(text)
    assert not report.feasible
    assert [s.text for s in report.skipped_lines] == [f"Job 1 step 1: start={digit}"]
    assert any(i.kind == "missing" for i in report.issues)


def test_non_ascii_digits_are_not_a_stated_objective() -> None:
    assert verifier("ft06").check(valid_answer("ft06") + "Makespan: ٧١\n").stated_objective is None


def test_utf16_answers_are_decoded() -> None:
    text = valid_answer("ft06")
    assert decode_answer(text.encode("utf-16")) == text
    assert decode_answer(b"\xff\xfe\x00") == "\ufffd"  # an odd byte after the mark is replaced, not raised


def test_check_cli_reports_a_non_finite_answer(tmp_path: Path) -> None:
    answer = tmp_path / "a.json"
    answer.write_text(with_first("ft06", "start", "Infinity"), encoding="utf-8")
    result = runner.invoke(app, ["check", str(FT06), str(answer), "--json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["extracted"] is False and "not JSON" in report["extraction_error"]


def batch_lines() -> list[str]:
    good = json.dumps({"id": "good", "answer": valid_answer("ft06")})
    inf = json.dumps({"id": "inf", "answer": with_first("ft06", "start", "1e400")})
    return [good, "[" * 100_000, inf, '{"id": "deep", "answer": ' + "[" * 500 + "]" * 500 + "}", good]


def test_batch_isolates_every_record() -> None:
    out = [json.loads(line) for line in check_batch(FT06, batch_lines())]
    assert [r["id"] for r in out] == ["good", 2, "inf", "deep", "good"]
    assert out[0]["feasible"] and out[4]["feasible"]
    assert out[1]["line"] == 2 and "nested too deeply" in out[1]["error"]
    assert out[2]["extracted"] is False and "not JSON" in out[2]["extraction_error"]
    assert 'a JSON object with a string "answer"' in out[3]["error"]


def test_batch_output_file_holds_every_record(tmp_path: Path) -> None:
    batch, out = tmp_path / "b.jsonl", tmp_path / "out" / "r.jsonl"
    batch.write_text("\n".join(batch_lines()) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["check", str(FT06), "--batch", str(batch), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == [
        "good", 2, "inf", "deep", "good"]
    assert [p.name for p in out.parent.iterdir()] == ["r.jsonl"]  # no temporary file left


# ---------------------------------------------------------------------------- fuzz

FUZZ = settings(deadline=None, max_examples=120, suppress_health_check=[HealthCheck.too_slow])
ODD_NUMBERS = ["Infinity", "-Infinity", "NaN", "1e400", "-1e400", "1e308", "1e99", "1E+2", "-0", "0.0", "2.5",
               "1.0000000000000002", "9" * 5000, "-" + "9" * 101, "true", "false", "null", '"3"', '"٣"', '""']


def nested(depth: int, leaf: str = "1") -> str:
    return "[" * depth + leaf + "]" * depth


def _raw_values() -> st.SearchStrategy[str]:
    """JSON value texts a model (or a broken decoder) might put in a field."""
    return st.one_of(
        st.sampled_from(ODD_NUMBERS),
        st.integers(-10**120, 10**120).map(str),
        st.floats(allow_nan=False, allow_infinity=False).map(repr),
        st.integers(1, 3000).map(nested),
        st.integers(1, 200).map(lambda d: '{"a": ' * d + "1" + "}" * d),
        st.text(max_size=20).map(json.dumps),
        st.sampled_from(["[]", "{}", '{"job": "Job 1"}', '["Job 1"]', '"Job 1\\nJob 2"', '"\\u0000"']),
    )


@st.composite
def structured_answers(draw: st.DrawFn, example: str) -> str:
    """A valid structured answer with fields replaced, removed or added, items dropped, and odd wrappers."""
    rows = [dict(row) for row in items(example)]
    for _ in range(draw(st.integers(1, 4))):
        row = draw(st.sampled_from(rows))
        field = draw(st.sampled_from(sorted(row) + ["extra"]))
        if draw(st.booleans()):
            row[field] = draw(_raw_values())
        else:
            row.pop(field, None)
    if draw(st.booleans()):
        rows = rows[:draw(st.integers(0, len(rows)))]
    text = structured(rows)
    wrapper = draw(st.sampled_from(["bare", "fence", "nest", "list", "other_key", "truncate"]))
    if wrapper == "fence":
        text = "```json\n" + text + "\n```"
    elif wrapper == "nest":
        text = '{"assignments": ' + nested(draw(st.integers(1, 5000)), text) + "}"
    elif wrapper == "list":
        text = "[" + text + "]"
    elif wrapper == "other_key":
        text = text.replace('"assignments"', '"schedule"', 1)
    elif wrapper == "truncate":
        text = text[:draw(st.integers(0, len(text)))]
    return text


@pytest.mark.parametrize("example", ALL_EXAMPLES)
@FUZZ
@given(data=st.data())
def test_any_structured_answer_gives_a_report(example: str, data: st.DataObject) -> None:
    report: CheckReport = verifier(example).check(data.draw(structured_answers(example)))
    consistent(report)
    if not report.extracted:
        assert report.extraction_error


@pytest.mark.parametrize("example", ALL_EXAMPLES)
@FUZZ
@given(field=st.sampled_from(NUMBER_FIELDS), raw=_raw_values())
def test_a_number_field_is_an_integer_or_a_stated_reason(example: str, field: str, raw: str) -> None:
    """Changing one number of a valid answer either keeps an integer (then the answer is extracted) or
    makes the whole structured answer unreadable, with the reason in the report."""
    if field not in items(example)[0]:
        return
    report = verifier(example).check(with_first(example, field, raw))
    consistent(report)
    value: Any
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        value = None
    integral = (isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**100) or (
        isinstance(value, float) and value.is_integer() and abs(value) < 1e100 and raw not in ("Infinity", "-Infinity"))
    assert report.extracted == integral, (raw, report.extraction_error)
