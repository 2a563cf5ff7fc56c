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

from pathlib import Path
from typing import Any

from schedc.core.diagnostics import SchedcError
from schedc.integrations.records import Verifiers, report_metadata, select_records

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
    """The samples of a built benchmark, in dataset order, optionally of one variant and some families
    (:func:`schedc.integrations.records.select_records`: solver-code records are refused)."""
    path, records = select_records(dataset, variant, families, "the Inspect task")
    return MemoryDataset([record_sample(r, path.parent) for r in records], name=path.parent.name,
                         location=str(path))


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
                families: str | list[str] | None = None) -> Task:
    """SCHEDBench records of ``dataset`` (a built benchmark folder or its ``dataset.jsonl``), optionally
    of one ``variant`` and comma-separated ``families``, answered in free text or under the answer's JSON
    Schema (``decoding="json-schema"``) and scored by ``schedc check``.

    ``families`` is a list when it comes from ``inspect eval -T families=a,b`` (Inspect reads a comma
    list as a list) and a string from Python."""
    chosen = _family_names(families)
    return Task(dataset=records_dataset(dataset, variant, chosen), solver=schedule_solver(decoding),
                scorer=schedc_check(), name="schedbench")


def _family_names(families: str | list[str] | None) -> list[str] | None:
    """Family names from a comma-separated string or a list of them (None: every family)."""
    if not families:
        return None
    parts = families.split(",") if isinstance(families, str) else [p for f in families for p in str(f).split(",")]
    return [p.strip() for p in parts if p.strip()] or None
