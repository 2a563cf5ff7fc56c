"""What every framework bridge shares: a built benchmark's records, their verifiers, and a check
report as plain data. Needs no framework (each bridge module imports its own)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from schedc.core.diagnostics import SchedcError


def dataset_file(dataset: str | Path) -> Path:
    """The ``dataset.jsonl`` of a built benchmark folder, or the file itself."""
    path = Path(dataset)
    path = path / "dataset.jsonl" if path.is_dir() else path
    if not path.is_file():
        raise SchedcError.at("B203", f"no dataset at {dataset}", hint="a folder from `schedc bench build`, "
                             "or its dataset.jsonl")
    return path


def select_records(dataset: str | Path, variant: str | None, families: list[str] | None,
                   scorer: str) -> tuple[Path, list[dict[str, Any]]]:
    """The dataset file and its records, in dataset order, of one ``variant`` and some ``families``
    (None: all). Solver-code records (``--answer-mode solver-code``) are refused: their answers are
    programs that ``schedc bench eval`` runs in its sandbox, which ``scorer`` does not do."""
    from schedc.bench.dataset import read_jsonl

    path = dataset_file(dataset)
    records = [r for r in read_jsonl(path) if (variant is None or r.get("variant") == variant)
               and (not families or r.get("family") in families)]
    if any(r.get("answer_mode") == "solver-code" for r in records):
        raise SchedcError.at("B502", "solver-code records are scored by `schedc bench eval` (it runs the programs "
                             f"in a sandbox), not by {scorer}", file=str(path))
    for number, r in enumerate(records, start=1):
        if not all(isinstance(r.get(k), str) for k in ("id", "system", "prompt", "spec")):
            raise SchedcError.at("B209", 'a dataset record needs string "id", "system", "prompt" and "spec"',
                                 file=str(path), line=number)
    if not records:
        raise SchedcError.at("B503", f"no record of {path} matches variant={variant} families={families}")
    return path, records


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
