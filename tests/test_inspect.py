"""The Inspect AI task (``schedc.integrations.inspect``) end to end with Inspect's ``mockllm`` provider.

The mock model answers each prompt with a known answer — a heuristic schedule written in the
rendering's names (feasible), every start at 0 (infeasible), prose (not extracted) — and the
scores must be what ``schedc check`` says of the same text. With ``decoding="json-schema"`` the
mock receives the request's structured-output schema, checks that it is the instance's answer
schema in the sample's names, and answers in JSON.

Needs the optional extra (``pip install 'schedc[inspect]'``); skipped, saying so, without it.
The mock sets token usage on its outputs: without it ``mockllm`` counts tokens with tiktoken, which
downloads its vocabulary (no network in tests).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from schedc.backends.search.heuristics import serial_schedule
from schedc.lang.load import load_instance
from tests.record_answers import answers, verifier
from tests.test_runner import rendered_dataset

inspect_ai = pytest.importorskip("inspect_ai", reason="the optional extra inspect-ai is not installed "
                                                       "(pip install 'schedc[inspect]')")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from schedc.integrations.inspect import records_dataset, schedc_task  # noqa: E402

EXAMPLES = ("ft06", "rcpsp_small")


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    out = tmp_path_factory.mktemp("bench")
    records = rendered_dataset(out, EXAMPLES, ("v1", "v4"))
    for r in records:
        r["difficulty"] = "easy"
    (out / "dataset.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return out, records


def output(text: str, prompt: str) -> ModelOutput:
    out = ModelOutput.from_content(model="mockllm/model", content=text)
    out.usage = ModelUsage(input_tokens=len(prompt) // 4, output_tokens=len(text) // 4 + 1,
                           total_tokens=(len(prompt) + len(text)) // 4 + 1)
    return out


def run(task: Any, reply: Any, log_dir: Path) -> Any:
    [log] = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=reply), display="none",
                         log_dir=str(log_dir))
    assert log.status == "success", log.error
    return log


def test_the_samples_are_the_records(bench) -> None:
    out, records = bench
    samples = list(records_dataset(out))
    assert [s.id for s in samples] == [r["id"] for r in records]
    for sample, record in zip(samples, records, strict=True):
        system, user = sample.input
        assert (system.role, system.text, user.role, user.text) == ("system", record["system"], "user",
                                                                    record["prompt"])
        meta = sample.metadata
        assert (meta["family"], meta["tier"], meta["variant"], meta["seed"], meta["instance"]) == (
            record["family"], "easy", record["variant"], 42, record["instance"])
        assert Path(meta["spec"]).is_file() and meta["names"] == {p["ir"]: p["shown"] for p in record["names"]}
    assert [s.id for s in records_dataset(out / "dataset.jsonl", variant="v4")] == [
        r["id"] for r in records if r["variant"] == "v4"]


def test_an_eval_with_mockllm_scores_what_check_says(bench, tmp_path: Path) -> None:
    out, records = bench
    texts = answers(out, records)

    def reply(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        assert config.response_schema is None  # text decoding asks for no schema
        prompt = messages[-1].text
        return output(texts[prompt], prompt)

    log = run(schedc_task(dataset=str(out)), reply, tmp_path)
    by_id = {r["id"]: r for r in records}
    feasible = 0
    for sample in log.samples:
        score = sample.scores["schedc_check"]
        record = by_id[sample.id]
        report = verifier(out, record).check(texts[record["prompt"]])
        feasible += report.feasible
        assert score.value == ("C" if report.feasible else "I")
        meta = score.metadata
        assert (meta["hard_violations"], meta["objective"], meta["coverage"], meta["violation_rate"]) == (
            report.hard_violations, report.objective, report.coverage, report.violation_rate)
        assert sum(meta["violations_by_constraint"].values()) == len(report.violations)
        assert meta["extraction"]["extracted"] == report.extracted
        assert score.explanation.startswith(f"{record['instance']} (")
    assert feasible == 2  # the two ft06 answers
    [all_zero] = [s for s in log.samples if s.id == "rcpsp_small-v1"]
    assert all_zero.scores["schedc_check"].metadata["violations_by_kind"] == {"precedence_lag": 6,
                                                                               "cumulative_renewable": 2}
    metrics = log.results.scores[0].metrics
    assert metrics["accuracy"].value == pytest.approx(2 / 4)
    assert metrics["coverage"].value == pytest.approx(3 / 4)  # the prose answer covers nothing
    assert metrics["violation_rate"].value == pytest.approx((0 + 0 + 8 / 6) / 3)  # over the 3 extracted answers


def test_structured_output_sends_the_answer_schema_and_reads_json(bench, tmp_path: Path) -> None:
    from schedc.bench.decoding import strict_problems, strict_schema
    from schedc.grammars import answer_spec, json_schema

    out, records = bench
    by_prompt = {r["prompt"]: r for r in records}
    seen: list[str] = []

    def reply(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        prompt = messages[-1].text
        record = by_prompt[prompt]
        instance = load_instance(out / record["spec"])
        names = {p["ir"]: p["shown"] for p in record["names"]}
        expected = strict_schema(json_schema(answer_spec(instance, None, names)))
        sent = config.response_schema
        assert sent is not None and sent.name == "schedule" and sent.strict is True
        schema = sent.json_schema.model_dump(exclude_none=True)
        assert strict_problems(schema) == []
        items = schema["properties"]["assignments"]["items"]["properties"]
        assert items == {k: {key: v for key, v in value.items() if key in ("type", "enum", "minimum", "maximum")}
                         for k, value in expected["properties"]["assignments"]["items"]["properties"].items()}
        seen.append(record["id"])
        text = verifier(out, record).write(serial_schedule(instance))
        return output(json.dumps({"assignments": [structured_item(line, list(items)) for line in
                                                  text.splitlines()]}), prompt)

    log = run(schedc_task(dataset=str(out), decoding="json-schema"), reply, tmp_path)
    assert sorted(seen) == sorted(r["id"] for r in records)
    assert all(s.scores["schedc_check"].value == "C" for s in log.samples)  # every JSON answer read and feasible
    assert all(s.output.completion.startswith('{"assignments"') for s in log.samples)


def structured_item(line: str, fields: list[str]) -> dict[str, Any]:
    """A schedule line of ft06 (``<job> step <k>: start=<s>``) or rcpsp_small (``<activity>: <s>``) as an item."""
    if fields == ["job", "step", "start"]:
        job, step, start = re.fullmatch(r"(.+) step (\d+): start=(\d+)", line).groups()
        return {"job": job, "step": int(step), "start": int(start)}
    activity, start = line.rsplit(": ", 1)
    return {fields[0]: activity, fields[1]: int(start)}


def test_bad_task_arguments_are_schedc_errors(bench, tmp_path: Path) -> None:
    from schedc.core.diagnostics import SchedcError

    out, _ = bench
    with pytest.raises(SchedcError, match="B203"):
        schedc_task(dataset=str(tmp_path / "nowhere"))
    with pytest.raises(SchedcError, match="B503"):
        schedc_task(dataset=str(out), variant="v9")
    with pytest.raises(SchedcError, match="B504"):
        schedc_task(dataset=str(out), decoding="regex")


def test_families_as_inspect_passes_them(bench) -> None:
    """``inspect eval … -T families=jsplib,psplib-sm`` hands the task a list (Inspect reads a comma list as
    a list): the task took only a string and failed with AttributeError ('list' has no 'split')."""
    out, records = bench
    families = sorted({r["family"] for r in records})
    as_string = [s.id for s in schedc_task(dataset=str(out), families=families[0]).dataset]
    as_list = [s.id for s in schedc_task(dataset=str(out), families=[families[0]]).dataset]
    assert as_string == as_list == [r["id"] for r in records if r["family"] == families[0]]
    both = [s.id for s in schedc_task(dataset=str(out), families=families).dataset]
    assert both == [r["id"] for r in records]
