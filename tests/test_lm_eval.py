"""The lm-evaluation-harness task (``schedc.integrations.lm_eval``).

Writing the task and its metric hook need no harness: those tests always run. The end-to-end test runs
the real ``lm_eval`` command (``local-chat-completions``) against the local fake chat server, which
answers each prompt with a known answer (a heuristic schedule in the rendering's names, every start at
0, prose), and holds every number the harness reports against ``schedc check`` on the same text.
It needs the optional extra (``pip install 'schedc[lm-eval]'``) and is skipped, saying so, without it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from schedc.integrations import lm_eval
from schedc.kinds import kind_name
from schedc.lang.load import load_instance
from tests.fake_server import FakeServer, prompt_of
from tests.record_answers import answers, verifier
from tests.test_runner import rendered_dataset

EXAMPLES = ("ft06", "rcpsp_small")


class _TaskLoader(yaml.SafeLoader):
    """YAML with the harness's ``!function module.name`` tag, read as its text."""


_TaskLoader.add_constructor("!function", lambda loader, node: f"!function {loader.construct_scalar(node)}")


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    out = tmp_path_factory.mktemp("bench")
    return out, rendered_dataset(out, EXAMPLES, ("v1", "v4"))


def test_the_task_folder_holds_the_records_and_a_metric_per_active_kind(bench, tmp_path: Path) -> None:
    out, records = bench
    yaml_path = lm_eval.write_task(out, tmp_path / "task")
    config = yaml.load(yaml_path.read_text(encoding="utf-8"), Loader=_TaskLoader)  # noqa: S506 — SafeLoader's subclass
    rows = [json.loads(line) for line in (tmp_path / "task" / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == [r["id"] for r in records]
    assert config["dataset_kwargs"]["data_files"]["test"] == str((tmp_path / "task" / "records.jsonl").resolve())
    assert (config["description"], config["doc_to_text"], config["output_type"]) == ("system", "prompt",
                                                                                     "generate_until")
    for row, record in zip(rows, records, strict=True):
        assert (row["system"], row["prompt"]) == (record["system"], record["prompt"])
        assert json.loads(row["names"]) == {p["ir"]: p["shown"] for p in record["names"]}
    kinds = sorted({kind_name(c) for r in records for c in load_instance(out / r["spec"]).constraints if c.active})
    metrics = [m["metric"] for m in config["metric_list"]]
    assert [m.removeprefix("violations_") for m in metrics if m.startswith("violations_")][:-1] == kinds
    assert config["process_results"] == "!function schedc_hooks.process_results"
    assert (tmp_path / "task" / "schedc_hooks.py").is_file()
    one_variant = lm_eval.write_task(out / "dataset.jsonl", tmp_path / "v4", variant="v4")
    assert len((one_variant.parent / "records.jsonl").read_text(encoding="utf-8").splitlines()) == 2


def test_the_metrics_of_an_answer_are_what_check_says(bench, tmp_path: Path) -> None:
    out, records = bench
    lm_eval.write_task(out, tmp_path / "task")
    rows = [json.loads(line) for line in (tmp_path / "task" / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    texts = answers(out, records)
    for row, record in zip(rows, records, strict=True):
        values = lm_eval.process_results(row, [texts[record["prompt"]]])
        report = verifier(out, record).check(texts[record["prompt"]])
        assert (values["feasible"], values["extracted"], values["coverage"], values["hard_violations"]) == (
            float(report.feasible), float(report.extracted), report.coverage, report.hard_violations)
        assert values["violation_rate"] == report.violation_rate
        assert values["gap_pct"] == (report.gap_pct if report.feasible else None)
        assert sum(values["violations_by_constraint"].values()) == len(report.violations)
        assert sum(v for k, v in values.items() if k.startswith("violations_") and isinstance(v, int)) == len(
            report.violations)


def test_aggregations_skip_what_is_undefined_and_add_counts() -> None:
    assert lm_eval.mean_of_defined([1.0, None, 3.0]) == 2.0
    assert lm_eval.mean_of_defined([None]) != lm_eval.mean_of_defined([None])  # NaN
    assert lm_eval.total([2, 0, 1]) == 3.0
    assert lm_eval.sum_counts([{"a/C1": 2}, {}, {"a/C1": 1, "b/C2": 4}]) == {"a/C1": 3, "b/C2": 4}


def test_a_bad_dataset_is_one_message_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lm_eval.main([str(tmp_path / "nowhere"), "-o", str(tmp_path / "task")]) == 2
    assert "B203" in capsys.readouterr().err and not (tmp_path / "task").exists()


def test_lm_eval_runs_the_task_and_reports_what_check_says(bench, tmp_path: Path) -> None:
    pytest.importorskip("lm_eval", reason="the optional extra lm-eval is not installed (pip install 'schedc[lm-eval]')")
    command = shutil.which("lm_eval", path=str(Path(sys.executable).parent))
    assert command is not None, "lm_eval is importable but its command is not beside this interpreter"
    out, records = bench
    lm_eval.write_task(out, tmp_path / "task")
    texts = answers(out, records)
    by_prompt = {r["prompt"]: r for r in records}
    with FakeServer(reply=lambda body: texts[prompt_of(body)]) as server:
        run = subprocess.run([command, "--model", "local-chat-completions", "--model_args",
                              f"model=fake,base_url={server.url}/chat/completions,tokenizer_backend=None,"
                              "num_concurrent=1,max_retries=1", "--tasks", "schedbench", "--include_path",
                              str(tmp_path / "task"), "--apply_chat_template", "--log_samples", "--output_path",
                              str(tmp_path / "results")], capture_output=True, text=True, timeout=600,
                             env={**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"})
        assert run.returncode == 0, run.stderr[-3000:]
        sent = list(server.requests)
    assert len(sent) == len(records)
    for body in sent:  # the record's system prompt as the system message, its prompt as the user message
        record = by_prompt[prompt_of(body)]
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        assert body["messages"][0]["content"] == record["system"]
    [results_file] = (tmp_path / "results").rglob("results_*.json")
    [samples_file] = (tmp_path / "results").rglob("samples_schedbench_*.jsonl")
    reports = {r["id"]: verifier(out, r).check(texts[r["prompt"]]) for r in records}
    samples = [json.loads(line) for line in samples_file.read_text(encoding="utf-8").splitlines()]
    assert sorted(s["doc"]["id"] for s in samples) == sorted(reports)
    for sample in samples:
        report = reports[sample["doc"]["id"]]
        assert sample["feasible"] == float(report.feasible) and sample["hard_violations"] == report.hard_violations
        assert sum(sample["violations_by_constraint"].values()) == len(report.violations)
    scores = json.loads(results_file.read_text(encoding="utf-8"))["results"]["schedbench"]
    assert scores["feasible,none"] == pytest.approx(2 / 4)  # the two ft06 answers
    assert scores["coverage,none"] == pytest.approx(3 / 4)  # the prose answer covers nothing
    assert scores["violation_rate,none"] == pytest.approx((0 + 0 + 8 / 6) / 3)  # over the 3 extracted answers
    assert scores["violations_precedence_lag,none"] == 6 and scores["violations_cumulative_renewable,none"] == 2
    assert sum(scores["violations_by_constraint,none"].values()) == sum(len(r.violations) for r in reports.values())
