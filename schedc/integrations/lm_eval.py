"""SCHEDBench as an lm-evaluation-harness task: the records of a built benchmark, ``schedc check`` as
the per-sample metric function.

lm-evaluation-harness reads a task from a folder of YAML; this module writes that folder for a built
benchmark (``schedc bench build``) and provides the hooks its YAML names::

    python -m schedc.integrations.lm_eval bench -o lmeval_task [--variant v4] [--families jsplib,rcpsp]
    lm_eval --model local-chat-completions \\
        --model_args model=M,base_url=http://HOST/v1/chat/completions,tokenizer_backend=None \\
        --tasks schedbench --include_path lmeval_task --apply_chat_template --log_samples -o results

* **Documents**: ``records.jsonl`` in the task folder, one row per record: the record's system prompt
  (the task's per-document ``description``, sent as the system message under ``--apply_chat_template``),
  its prompt (``doc_to_text``, the user message), the spec's absolute path and the rendering's names.
* **Generation**: one completion per document (``generate_until``, greedy, ``max_gen_toks`` as written).
* **Metrics** (:func:`process_results`, every value from the same report as ``schedc check``):
  ``feasible`` (the feasible rate), ``extracted``, ``coverage`` (means over every answer);
  ``violation_rate`` and ``gap_pct`` (means over the answers where they are defined: extracted, and
  feasible with a best known value); ``hard_violations`` (mean per answer); ``violations_<kind>`` for
  every constraint kind active in the dataset's specs (total over the dataset); and
  ``violations_by_constraint`` (``instance/constraint`` → total). Each sample's values, the
  per-constraint counts among them, are kept by ``--log_samples``.

The harness aggregates each metric over fixed names, so the per-kind names are chosen when the task
is written, from the kinds active in its specs; a per-constraint count is a mapping, aggregated by
:func:`sum_counts`. What the Inspect task has and this one has not: structured output (the harness
sends one set of generation arguments for every document of a task, while each instance has its own
answer schema).

Writing the task needs no harness; running it needs ``lm_eval`` (``pip install 'schedc[lm-eval]'``).
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from schedc.core.diagnostics import SchedcError
from schedc.core.inputs import write_failed
from schedc.importers.common import write_atomic
from schedc.integrations.records import Verifiers, report_metadata, select_records

TASK = "schedbench"
HOOKS = "schedc_hooks"  # the module the YAML's ``!function`` tags name, written beside it
RECORDS = "records.jsonl"
#: metrics averaged over every answer, over the answers where they are defined, and totalled
MEAN_OVER_ALL = ("feasible", "extracted", "coverage", "hard_violations")
MEAN_OVER_DEFINED = ("violation_rate", "gap_pct")
HIGHER_IS_BETTER = {"feasible": True, "extracted": True, "coverage": True}

_verifiers = Verifiers()


# ---------------------------------------------------------------------------- hooks the YAML names


def process_results(doc: dict[str, Any], results: Sequence[str]) -> dict[str, Any]:
    """The metrics of one answer (``results[0]``, the model's completion) to document ``doc``: what
    ``schedc check`` says of it in the rendering's names, as the module docstring lists."""
    report = _verifiers.of({"spec": doc["spec"], "names": json.loads(doc["names"])}).check(results[0])
    metadata = report_metadata(report)
    values: dict[str, Any] = {
        "feasible": float(report.feasible), "extracted": float(report.extracted), "coverage": report.coverage,
        "hard_violations": report.hard_violations, "violation_rate": report.violation_rate,
        "gap_pct": report.gap_pct if report.feasible else None,
        "violations_by_constraint": {f"{doc['instance']}/{c}": n
                                     for c, n in metadata["violations_by_constraint"].items()},
    }
    by_kind = metadata["violations_by_kind"]
    for kind in json.loads(doc["kinds"]):
        values[f"violations_{kind}"] = by_kind.get(kind, 0)
    return values


def mean_of_defined(items: Iterable[float | None]) -> float:
    """The mean of the values that are defined (NaN when none is)."""
    values = [v for v in items if v is not None]
    return sum(values) / len(values) if values else math.nan


def total(items: Iterable[float]) -> float:
    """The sum over the dataset (counts of violations)."""
    return float(sum(items))


def sum_counts(items: Iterable[dict[str, int]]) -> dict[str, int]:
    """The per-constraint counts of every answer, added up."""
    counts: Counter[str] = Counter()
    for item in items:
        counts.update(item)
    return dict(sorted(counts.items()))


# ---------------------------------------------------------------------------- writing the task


def active_kinds(specs: Iterable[str]) -> list[str]:
    """The kinds of the active constraints of the specs, sorted."""
    from schedc.kinds import kind_name

    kinds = set()
    for spec in specs:
        instance, _ = _verifiers.instance(spec)
        kinds.update(kind_name(c) for c in instance.constraints if c.active)
    return sorted(kinds)


def document(record: dict[str, Any], root: Path, kinds: list[str]) -> dict[str, str]:
    """One row of ``records.jsonl``: strings only, so that the harness's JSON loader reads every row alike."""
    names = {p["ir"]: p["shown"] for p in record.get("names", [])}
    return {"id": record["id"], "family": str(record.get("family", "")), "variant": str(record.get("variant", "")),
            "instance": str(record.get("instance", "")), "system": record["system"], "prompt": record["prompt"],
            "spec": str((root / record["spec"]).resolve()), "names": json.dumps(names, sort_keys=True),
            "kinds": json.dumps(kinds)}


def task_yaml(name: str, records: Path, kinds: list[str], max_tokens: int) -> str:
    """The task's YAML (documents, generation, metrics)."""
    metrics = [(m, "mean") for m in MEAN_OVER_ALL] + [(m, f"!function {HOOKS}.mean_of_defined")
                                                      for m in MEAN_OVER_DEFINED]
    metrics += [(f"violations_{k}", f"!function {HOOKS}.total") for k in kinds]
    metrics.append(("violations_by_constraint", f"!function {HOOKS}.sum_counts"))
    lines = [f"task: {name}", "dataset_path: json", "dataset_kwargs:", "  data_files:",
             f"    test: {json.dumps(str(records))}", "test_split: test", "output_type: generate_until",
             "description: system", "doc_to_text: prompt", 'doc_to_target: ""', 'target_delimiter: ""',
             "generation_kwargs:", "  until: []", f"  max_gen_toks: {max_tokens}", "  do_sample: false",
             "  temperature: 0", f"process_results: !function {HOOKS}.process_results", "metric_list:"]
    for metric, aggregation in metrics:
        lines += [f"  - metric: {metric}", f"    aggregation: {aggregation}",
                  f"    higher_is_better: {'true' if HIGHER_IS_BETTER.get(metric) else 'false'}"]
    lines += ["metadata:", "  version: 1.0"]
    return "\n".join(lines) + "\n"


HOOKS_TEXT = '''"""The hooks of the lm-evaluation-harness task written by schedc (see schedc.integrations.lm_eval)."""

from schedc.integrations.lm_eval import mean_of_defined, process_results, sum_counts, total

__all__ = ["mean_of_defined", "process_results", "sum_counts", "total"]
'''


def write_task(dataset: str | Path, out: str | Path, variant: str | None = None, families: list[str] | None = None,
               name: str = TASK, max_tokens: int = 4096) -> Path:
    """Write the lm-evaluation-harness task of a built benchmark (or its ``dataset.jsonl``) into folder
    ``out``, for records of one ``variant`` and some ``families`` (None: all); the YAML's path.

    Each file is written whole or not at all (a temporary name first); a file that cannot be
    written is a :class:`~schedc.core.inputs.WriteFailed` (W001)."""
    path, records = select_records(dataset, variant, families, "the lm-evaluation-harness task")
    folder = Path(out)
    kinds = active_kinds(str((path.parent / r["spec"]).resolve()) for r in records)
    rows = "".join(json.dumps(document(r, path.parent, kinds), ensure_ascii=False) + "\n" for r in records)
    records_path = (folder / RECORDS).resolve()
    yaml_path = folder / f"{name}.yaml"
    for target, text in ((records_path, rows), (folder / f"{HOOKS}.py", HOOKS_TEXT),
                         (yaml_path, task_yaml(name, records_path, kinds, max_tokens))):
        try:
            write_atomic(target, text)
        except OSError as error:
            raise write_failed(target, error) from None
    return yaml_path


def main(argv: list[str] | None = None) -> int:
    """``python -m schedc.integrations.lm_eval BENCH -o DIR [--variant V] [--families A,B] [--name N]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m schedc.integrations.lm_eval",
                                     description="Write the lm-evaluation-harness task of a built benchmark.")
    parser.add_argument("dataset", help="a folder from `schedc bench build`, or its dataset.jsonl")
    parser.add_argument("-o", "--out", required=True, help="the task folder to write")
    parser.add_argument("--variant", help="only the records of this variant (v1, v2, v3a, v3b, v4)")
    parser.add_argument("--families", help="only the records of these comma-separated families")
    parser.add_argument("--name", default=TASK, help=f"the task's name (default {TASK})")
    parser.add_argument("--max-tokens", type=int, default=4096, help="max_gen_toks of each completion")
    args = parser.parse_args(argv)
    families = [f.strip() for f in args.families.split(",") if f.strip()] if args.families else None
    try:
        yaml_path = write_task(args.dataset, args.out, args.variant, families, args.name, args.max_tokens)
    except SchedcError as error:
        print(error, file=sys.stderr)
        return 2
    print(f"wrote {yaml_path}; run: lm_eval --model local-chat-completions --model_args model=M,base_url=URL,"
          f"tokenizer_backend=None --tasks {args.name} --include_path {yaml_path.parent} --apply_chat_template "
          "--log_samples -o results")
    return 0


if __name__ == "__main__":
    sys.exit(main())
