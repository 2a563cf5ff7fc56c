"""SCHEDBench as an Inspect AI task: samples from a built benchmark, ``schedc check`` as the scorer.

``inspect eval`` then brings what Inspect does well — model providers, retries, concurrency, logs
and ``inspect view`` — while schedc judges the answers constraint by constraint::

    inspect eval schedc/schedc_task -T dataset=bench -T variant=v4 --model openai/gpt-4o-mini
    inspect eval schedc/schedc_task -T dataset=bench -T decoding=json-schema --model openai/gpt-4o-mini
    inspect view

(``schedc/schedc_task`` is the task this module registers for Inspect when schedc is installed with
the ``inspect`` extra; the file path ``…/schedc/integrations/inspect.py@schedc_task`` works too.)

* **Samples** (:func:`records_dataset`): one per record of ``dataset.jsonl`` (``schedc bench build``):
  the record's system prompt and prompt as the input, its id as the sample id, and as metadata the
  family, tier (difficulty), variant, seed, instance, the spec's path and the rendering's display names.
* **Solver** (:func:`schedule_solver`): one generation; with ``decoding="json-schema"`` the request
  carries the instance's answer schema (``schedc grammar --format json-schema`` in OpenAI strict
  mode's subset, in the rendering's names) as Inspect's structured output (``response_schema``).
* **Scorer** (:func:`schedc_check`): the verifier of ``schedc check`` on the answer text (structured
  answers are read as the lines they stand for). Value: ``C`` when the answer is feasible, else ``I``
  (so ``accuracy`` is the feasible rate); explanation: the check report; metadata: objective and its
  measure, best known value, gap, hard violations, violation rate, coverage, violations per
  constraint and per kind, and the extraction report (extracted, produced, required, skipped lines,
  issues). Metrics: feasible rate (``accuracy``, ``stderr``), mean ``coverage`` and mean
  ``violation_rate`` over extracted answers.

Needs ``inspect-ai`` (``pip install 'schedc[inspect]'``); importing this module without it raises a
SchedcError (B501) that says so.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from schedc.core.diagnostics import SchedcError

try:
    from inspect_ai import Task, task
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ResponseSchema
    from inspect_ai.scorer import (
        CORRECT,
        INCORRECT,
        Metric,
        SampleScore,
        Score,
        Scorer,
        Target,
        accuracy,
        metric,
        scorer,
        stderr,
    )
    from inspect_ai.solver import Generate, Solver, TaskState, solver
    from inspect_ai.util import JSONSchema
except ImportError:  # the optional extra is missing: say how to get it
    raise SchedcError.at("B501", "the Inspect AI task needs the inspect-ai package",
                         hint="pip install 'schedc[inspect]'") from None

DECODINGS = ("text", "json-schema")


# ---------------------------------------------------------------------------- samples


def dataset_file(dataset: str | Path) -> Path:
    """The ``dataset.jsonl`` of a built benchmark folder, or the file itself."""
    path = Path(dataset)
    path = path / "dataset.jsonl" if path.is_dir() else path
    if not path.is_file():
        raise SchedcError.at("B203", f"no dataset at {dataset}", hint="a folder from `schedc bench build`, "
                             "or its dataset.jsonl")
    return path


def record_sample(record: dict[str, Any], root: Path) -> Sample:
    """The Inspect sample of one dataset record (spec path made absolute, names as a mapping)."""
    names = {p["ir"]: p["shown"] for p in record.get("names", [])}
    metadata = {"family": record.get("family"), "tier": record.get("difficulty"), "variant": record.get("variant"),
                "seed": record.get("seed"), "instance": record.get("instance"),
                "spec": str((root / record["spec"]).resolve()), "names": names,
                "answer_mode": record.get("answer_mode", "text")}
    return Sample(id=record["id"], metadata=metadata,
                  input=[ChatMessageSystem(content=record["system"]), ChatMessageUser(content=record["prompt"])])


def records_dataset(dataset: str | Path, variant: str | None = None,
                    families: list[str] | None = None) -> MemoryDataset:
    """The samples of a built benchmark, in dataset order, optionally of one variant and some families.

    Solver-code records (``--answer-mode solver-code``) are refused: their answers are programs that
    ``schedc bench eval`` runs in its sandbox, which this scorer does not do.
    """
    from schedc.bench.dataset import read_jsonl

    path = dataset_file(dataset)
    records = [r for r in read_jsonl(path) if (variant is None or r.get("variant") == variant)
               and (not families or r.get("family") in families)]
    if any(r.get("answer_mode") == "solver-code" for r in records):
        raise SchedcError.at("B502", "solver-code records are scored by `schedc bench eval` (it runs the programs "
                             "in a sandbox), not by the Inspect task", file=str(path))
    for number, r in enumerate(records, start=1):
        if not all(isinstance(r.get(k), str) for k in ("id", "system", "prompt", "spec")):
            raise SchedcError.at("B209", 'a dataset record needs string "id", "system", "prompt" and "spec"',
                                 file=str(path), line=number)
    if not records:
        raise SchedcError.at("B503", f"no record of {path} matches variant={variant} families={families}")
    return MemoryDataset([record_sample(r, path.parent) for r in records], name=path.parent.name,
                         location=str(path))


# ---------------------------------------------------------------------------- the verifier of a sample


class Verifiers:
    """One parsed spec per path and one verifier per (spec, names), shared by the samples."""

    def __init__(self) -> None:
        self.instances: dict[str, tuple[Any, Any]] = {}
        self.verifiers: dict[tuple[str, str], Any] = {}

    def instance(self, spec: str) -> tuple[Any, Any]:
        """(instance, family) of a spec file."""
        if spec not in self.instances:
            from schedc.lang.family import load_family
            from schedc.lang.load import load_instance

            instance = load_instance(Path(spec))
            self.instances[spec] = (instance, load_family(instance.family, [Path(spec).parent]))
        return self.instances[spec]

    def of(self, metadata: dict[str, Any]) -> Any:
        """The verifier of a sample (its spec, in its rendering's names)."""
        from schedc.verify.verifier import Verifier

        names = metadata.get("names") or {}
        key = (metadata["spec"], json.dumps(names, sort_keys=True))
        if key not in self.verifiers:
            instance, family = self.instance(metadata["spec"])
            self.verifiers[key] = Verifier(instance, family, names)
        return self.verifiers[key]

    def schema(self, metadata: dict[str, Any]) -> dict[str, Any]:
        """The answer's JSON Schema in OpenAI strict mode's subset, in the sample's names."""
        from schedc.bench.decoding import strict_schema
        from schedc.grammars import answer_spec, json_schema

        instance, family = self.instance(metadata["spec"])
        return strict_schema(json_schema(answer_spec(instance, family, metadata.get("names") or {})))


# ---------------------------------------------------------------------------- solver


@solver
def schedule_solver(decoding: str = "text") -> Solver:
    """One generation; with ``decoding="json-schema"`` the answer schema goes as structured output."""
    if decoding not in DECODINGS:
        raise SchedcError.at("B504", f"unknown decoding {decoding!r}", hint="one of " + ", ".join(DECODINGS))
    verifiers = Verifiers()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if decoding == "text":
            return await generate(state)
        schema = ResponseSchema(name="schedule", json_schema=JSONSchema.model_validate(verifiers.schema(
            state.metadata)), description="the schedule, one item per assignment", strict=True)
        return await generate(state, response_schema=schema)

    return solve


# ---------------------------------------------------------------------------- scorer


@metric
def coverage() -> Metric:
    """The mean share of required assignments present (over every answer)."""

    def compute(scores: list[SampleScore]) -> float:
        values = [s.score.metadata["coverage"] for s in scores if s.score.metadata]
        return sum(values) / len(values) if values else 0.0

    return compute


@metric
def violation_rate() -> Metric:
    """The mean violation rate (hard violations per produced assignment) over the extracted answers."""

    def compute(scores: list[SampleScore]) -> float:
        values = [s.score.metadata["violation_rate"] for s in scores
                  if s.score.metadata and s.score.metadata.get("violation_rate") is not None]
        return sum(values) / len(values) if values else float("nan")

    return compute


def report_metadata(report: Any) -> dict[str, Any]:
    """What a check report says about one answer, as plain data (see the module docstring)."""
    return {
        "feasible": report.feasible, "objective": report.objective, "objective_measure": report.objective_measure,
        "bks": report.bks, "gap_pct": report.gap_pct, "hard_violations": report.hard_violations,
        "violation_rate": report.violation_rate, "coverage": report.coverage,
        "violations_by_constraint": dict(Counter(v.constraint for v in report.violations)),
        "violations_by_kind": dict(Counter(v.kind for v in report.violations)),
        "stated_objective": report.stated_objective, "failure_modes": dict(report.failure_modes),
        "extraction": {"extracted": report.extracted, "error": report.extraction_error,
                       "produced": report.produced, "required": report.required,
                       "skipped_lines": len(report.skipped_lines),
                       "issues": [{"kind": i.kind, "line": i.line, "counted": i.counted, "message": i.message}
                                  for i in report.issues]},
    }


@scorer(metrics=[accuracy(), stderr(), coverage(), violation_rate()])
def schedc_check() -> Scorer:
    """``schedc check`` on the answer: C when feasible, else I; the report as explanation and metadata."""
    from schedc.verify.report_text import format_report

    verifiers = Verifiers()

    async def score(state: TaskState, target: Target) -> Score:
        report = verifiers.of(state.metadata).check(state.output.completion)
        return Score(value=CORRECT if report.feasible else INCORRECT, answer=state.output.completion,
                     explanation=format_report(report), metadata=report_metadata(report))

    return score


# ---------------------------------------------------------------------------- task


@task
def schedc_task(dataset: str = "bench", variant: str | None = None, decoding: str = "text",
                families: str | None = None) -> Task:
    """SCHEDBench records of ``dataset`` (a built benchmark folder or its ``dataset.jsonl``), optionally
    of one ``variant`` and comma-separated ``families``, answered in free text or under the answer's JSON
    Schema (``decoding="json-schema"``) and scored by ``schedc check``."""
    chosen = [f.strip() for f in families.split(",") if f.strip()] if families else None
    return Task(dataset=records_dataset(dataset, variant, chosen), solver=schedule_solver(decoding),
                scorer=schedc_check(), name="schedbench")
