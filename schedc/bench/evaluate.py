"""``schedc bench eval``: verify model answers against the dataset and write the paper's tables.

Inputs: a built benchmark folder (``dataset.jsonl``, ``specs/``) and response files (JSON lines
``{"model", "id", "text", "usage", "error"}`` as ``schedc bench run`` writes them; a structured answer —
the JSON object ``--decoding json-schema`` asks for — is read as the answer text it stands for,
:func:`schedc.grammars.answer_text`). For every model
named in the responses, every dataset record is one *answer slot*:

* ``ok`` — a response text was found and verified; ``missing`` — no response (or only errors).
  A missing answer counts as not extracted, infeasible, coverage 0, and has no violation rate.
* When a (model, id) appears several times the last response with a text wins.

Per (family, difficulty, model), and per model over everything (family = difficulty = ``all``):
``n`` answer slots; ``extraction_rate`` = extracted / n; ``feasible_rate`` = feasible / n;
``feasible_ci_low``/``feasible_ci_high`` its 95 % Wilson interval; ``gap_mean``/``gap_median`` over
feasible answers with a gap to the BKS (percent);
``coverage_mean`` over all n slots; ``vr_mean`` = mean violation rate over extracted answers.
Variant pairs: see :mod:`schedc.bench.stats` (|ΔVR| median and IQR, seed band, bootstrap CI, verdict).

Solver-code datasets (``answer_mode`` ``solver-code``): the response's program runs in the sandbox
(:mod:`schedc.bench.solver_code`) and its stdout is verified; ``program_status`` in
``answers.jsonl`` says how it ended (``ok``, ``exit``, ``killed``, ``timeout``, ``output_limit``).

ConstraintBench's metrics (optimality within ε, threshold sensitivity, self-report discrepancy,
failure modes): see :mod:`schedc.bench.metrics`; ``errors`` counts answer slots whose request
ended in an error (they count as infeasible).

Outputs in REPORT: ``report.md``, ``feasibility.csv``, ``pairs.csv``, ``optimality.csv``,
``threshold.csv``, ``self_report.csv``, ``failure_modes.csv``, ``report.json``,
``answers.jsonl`` (one verdict per answer slot) and two figures (:mod:`schedc.bench.plots`):
``feasibility.png`` (feasible rate by family, one bar per model) and ``delta_vr.png`` (|ΔVR|
distribution per variant pair, one panel per model).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from schedc.bench.dataset import filter_records, load_dataset, read_jsonl, read_references, write_if_changed
from schedc.bench.executor import run_tasks
from schedc.bench.stats import (
    BOOTSTRAP_REPLICATES,
    BOOTSTRAP_SEED,
    band_conditions,
    pair_stats,
    seed_deltas,
    wilson,
)
from schedc.core.diagnostics import SchedcError

TABLE_COLUMNS = ("model", "family", "difficulty", "n", "errors", "extracted", "feasible", "extraction_rate",
                 "feasible_rate", "feasible_ci_low", "feasible_ci_high", "gap_mean", "gap_median", "coverage_mean",
                 "vr_mean")
FEASIBILITY_PNG, DELTA_PNG = "feasibility.png", "delta_vr.png"
PAIR_COLUMNS = ("model", "variant_a", "variant_b", "band_conditions", "n", "n_delta", "delta_median", "delta_q1",
                "delta_q3", "delta_iqr", "band_n", "band_median", "band_iqr", "estimate", "ci_low", "ci_high",
                "verdict")


def load_responses(paths: Sequence[Path]) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    """(model, id) → (response text, error): the text is None when only errors were recorded."""
    answers: dict[tuple[str, str], tuple[str | None, str | None]] = {}
    for path in paths:
        for number, record in enumerate(read_jsonl(Path(path)), start=1):
            if not isinstance(record.get("model"), str) or not isinstance(record.get("id"), str):
                raise SchedcError.at("B204", 'a response needs string "model" and "id" fields', file=str(path),
                                     line=number)
            key = (record["model"], record["id"])
            text = record.get("text")
            if isinstance(text, str) and not record.get("error"):
                answers[key] = (text, None)
            elif key not in answers or answers[key][0] is None:
                answers[key] = (None, str(record.get("error") or "no text"))
    return answers


def _unanswered(base: dict[str, Any], status: str) -> dict[str, Any]:
    """The verdict of a slot without a text: not extracted, infeasible, coverage 0."""
    return {**base, "status": status, "error": status == "error", "program_status": None, "extracted": False,
            "feasible": False,
            "coverage": 0.0, "violation_rate": None, "gap_pct": None, "hard_violations": None, "objective": None,
            "stated_objective": None, "stated_objective_error": None, "optimal_within": {}, "failure_modes": {}}


def _program_failed(base: dict[str, Any], program_status: str) -> dict[str, Any]:
    """The verdict of a solver-code answer whose program did not exit cleanly: nothing to verify."""
    from schedc.verify.failure_modes import count

    return {**_unanswered(base, "ok"), "program_status": program_status, "failure_modes": count(["unparseable"])}


def _verdict(base: dict[str, Any], report: Any) -> dict[str, Any]:
    """The answers.jsonl row of a verified answer."""
    return {**base, "status": "ok", "error": False, "program_status": None, "extracted": report.extracted,
            "feasible": report.feasible,
            "coverage": report.coverage, "violation_rate": report.violation_rate, "gap_pct": report.gap_pct,
            "hard_violations": report.hard_violations, "objective": report.objective,
            "stated_objective": report.stated_objective, "stated_objective_error": report.stated_objective_error,
            "optimal_within": report.optimal_within, "failure_modes": report.failure_modes}


def check_group(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Worker: verify every answer of one instance (the spec is parsed once, one verifier per naming)."""
    from schedc.grammars import answer_text
    from schedc.lang.family import load_family
    from schedc.lang.load import load_instance
    from schedc.verify.verifier import Verifier

    spec = Path(task["spec"])
    instance = with_reference(load_instance(spec), task.get("reference"))
    family = load_family(instance.family, [spec.parent])
    verifiers: dict[tuple[tuple[str, str], ...], Verifier] = {}
    results = []
    for slot in task["slots"]:
        base = {k: slot[k] for k in ("model", "id", "instance", "family", "difficulty", "variant", "seed")}
        if slot["text"] is None:
            results.append(_unanswered(base, "error" if slot.get("error") else "missing"))
            continue
        text, program_status = slot["text"], None
        if slot.get("answer_mode") == "solver-code":
            from schedc.bench.solver_code import run_answer

            text, program_status = run_answer(text, task.get("program_limits"))
            if text is None:
                results.append(_program_failed(base, program_status))
                continue
        naming = tuple((p["ir"], p["shown"]) for p in slot["names"])  # variants v1, v2, v3b share one
        if naming not in verifiers:
            verifiers[naming] = Verifier(instance, family, {p["ir"]: p["shown"] for p in slot["names"]})
        # structured answers are read as lines; the report's counts suffice (no violation list)
        report = verifiers[naming].check(answer_text(instance, family, text), detail=False)
        results.append({**_verdict(base, report), "program_status": program_status})
    return results


def with_reference(instance: Any, reference: dict[str, Any] | None) -> Any:
    """``instance`` with the validated reference value as its BKS when it has none (gaps need one)."""
    if reference is None or instance.meta.bks is not None:
        return instance
    meta = msgspec.structs.replace(instance.meta, bks=reference["value"], bks_kind=reference["kind"])
    return msgspec.structs.replace(instance, meta=meta)


def merged_datasets(folders: Sequence[Path]) -> list[dict[str, Any]]:
    """The records of several built benchmarks, by id (the first folder's record wins), each with its ``_root``.

    A seed study built beside an ablation set shares the base-seed renderings (same id, same
    prompt); evaluating both folders together pairs the ablation's variants with the seed band.
    """
    records: dict[str, dict[str, Any]] = {}
    for folder in folders:
        root = str(Path(folder).resolve())
        for record in load_dataset(Path(folder)):
            records.setdefault(record["id"], {**record, "_root": root})
    return list(records.values())


def _tasks(dataset: list[dict[str, Any]], answers: dict[tuple[str, str], tuple[str | None, str | None]],
           references: dict[tuple[str, str], dict[str, Any]]) -> list[dict]:
    models = sorted({model for model, _ in answers})
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    keys: dict[str, tuple[str, str]] = {}
    for record in dataset:
        spec = str(Path(record["_root"]) / record["spec"])
        keys[spec] = (record["family"], record["instance"])
        for model in models:
            slot = {k: record[k] for k in ("id", "instance", "family", "difficulty", "variant", "seed", "names")}
            slot["answer_mode"] = record.get("answer_mode", "text")
            text, error = answers.get((model, record["id"]), (None, None))
            groups[spec].append({**slot, "model": model, "text": text, "error": error})
    return [{"spec": spec, "slots": slots, "reference": references.get(keys[spec])} for spec, slots in groups.items()]


def verify_all(out: Path, responses: Sequence[Path], jobs: int = 1, executor: str = "local",
               scheduler: str | None = None, progress: bool = False, families: Sequence[str] | None = None,
               instances: Sequence[str] | None = None, program_limits: Any = None,
               also: Sequence[Path] = ()) -> list[dict[str, Any]]:
    """Every answer slot's verdict, in dataset order then model order (of the filtered records).

    ``also``: more benchmark folders whose records join ``out``'s (:func:`merged_datasets`).
    """
    folders = [Path(out), *map(Path, also)]
    dataset = merged_datasets(folders)
    answers = load_responses(responses)
    if not answers:
        raise SchedcError.at("B205", "the response files hold no responses")
    known = {r["id"] for r in dataset}
    unknown = sorted({i for _, i in answers if i not in known})
    if unknown:
        raise SchedcError.at("B206", f"{len(unknown)} response id(s) are not in the dataset, e.g. {unknown[0]!r}",
                             hint="evaluate against the benchmark folder the prompts came from")
    dataset = filter_records(dataset, families, instances)
    kept = {r["id"] for r in dataset}
    answers = {key: value for key, value in answers.items() if key[1] in kept}
    if any(r.get("answer_mode") == "solver-code" for r in dataset):
        from schedc.bench.sandbox import require_isolation

        require_isolation()  # refuse before any program runs

    references: dict[tuple[str, str], dict[str, Any]] = {}
    for folder in reversed(folders):
        references.update(read_references(folder))
    tasks = _tasks(dataset, answers, references)
    for task in tasks:
        task["program_limits"] = program_limits
    results = [r for group in run_tasks(check_group, tasks, jobs=jobs, executor=executor,
                                        scheduler=scheduler, progress="eval" if progress else None) for r in group]
    order = {r["id"]: k for k, r in enumerate(dataset)}
    results.sort(key=lambda r: (order[r["id"]], r["model"]))
    return results


def _mean(values: list[float]) -> float | None:
    return round(float(np.mean(values)), 6) if values else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _median(values: list[float]) -> float | None:
    return round(float(np.median(values)), 6) if values else None


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The table row of a group of answer slots (definitions in the module docstring)."""
    n = len(rows)
    extracted = sum(1 for r in rows if r["extracted"])
    feasible = sum(1 for r in rows if r["feasible"])
    gaps = [r["gap_pct"] for r in rows if r["feasible"] and r["gap_pct"] is not None]
    vrs = [r["violation_rate"] for r in rows if r["extracted"] and r["violation_rate"] is not None]
    low, high = wilson(feasible, n)
    return {"n": n, "errors": sum(1 for r in rows if r.get("status") == "error"), "extracted": extracted,
            "feasible": feasible, "extraction_rate": round(extracted / n, 6) if n else None,
            "feasible_rate": round(feasible / n, 6) if n else None, "feasible_ci_low": _round(low),
            "feasible_ci_high": _round(high), "gap_mean": _mean(gaps),
            "gap_median": _median(gaps), "coverage_mean": _mean([r["coverage"] for r in rows]),
            "vr_mean": _mean(vrs)}


def feasibility_table(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows by model × family × difficulty, then one ``all``/``all`` row per model."""
    from schedc.bench.selection import FAMILIES

    levels = ("easy", "medium", "hard", "unassigned")
    groups: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for r in results:
        groups[(r["model"], r["family"], r["difficulty"])].append(r)
        groups[(r["model"], "all", "all")].append(r)
    def order(key: tuple[str, str, str]) -> tuple:
        model, family, level = key
        return (model, FAMILIES.index(family) if family in FAMILIES else len(FAMILIES),
                levels.index(level) if level in levels else len(levels))
    return [{"model": k[0], "family": k[1], "difficulty": k[2], **summarize(groups[k])}
            for k in sorted(groups, key=order)]


def _vr_table(results: list[dict[str, Any]]) -> dict[tuple[str, str], dict[tuple[str, int], float]]:
    """(model, family/instance) → (variant, seed) → violation rate, for answers that have one."""
    vr: dict[tuple[str, str], dict[tuple[str, int], float]] = defaultdict(dict)
    for r in results:
        if r["violation_rate"] is not None:
            vr[(r["model"], f"{r['family']}/{r['instance']}")][(r["variant"], r["seed"])] = r["violation_rate"]
    return vr


def reseeded_variants(results: list[dict[str, Any]]) -> list[str]:
    """The variants rendered with more than one seed (the reseeded conditions), in dataset order."""
    seeds: dict[str, set[int]] = defaultdict(set)
    for r in results:
        seeds[r["variant"]].add(r["seed"])
    return [v for v in dict.fromkeys(r["variant"] for r in results) if len(seeds[v]) > 1]


def pair_deltas(results: list[dict[str, Any]], seeds: Sequence[int] | None = None
                ) -> dict[tuple[str, str, str], list[tuple[float | None, list[float]]]]:
    """(model, variant a, variant b) → per instance (|ΔVR| at the base seed or None, its δ values).

    Every model and every pair of variants (in dataset order) has an entry, possibly empty. The
    base seed is the first seed; the δ values are those of the pair's band conditions
    (:func:`schedc.bench.stats.band_conditions`); an instance with neither is left out.
    """
    vr = _vr_table(results)
    all_seeds = sorted({r["seed"] for r in results}) if seeds is None else list(seeds)
    if not all_seeds:
        return {}
    base = all_seeds[0]
    variants = list(dict.fromkeys(r["variant"] for r in results))
    reseeded = reseeded_variants(results)
    pairs: dict[tuple[str, str, str], list[tuple[float | None, list[float]]]] = {}
    for model in sorted({r["model"] for r in results}):
        for a, b in itertools.combinations(variants, 2):
            conditions = band_conditions((a, b), reseeded)
            rows = []
            for (m, _), values in vr.items():
                if m != model:
                    continue
                delta = abs(values[(a, base)] - values[(b, base)]) if (a, base) in values and (b, base) in values \
                    else None
                deltas = seed_deltas(values, conditions, all_seeds)
                if delta is not None or deltas:
                    rows.append((delta, deltas))
            pairs[(model, a, b)] = rows
    return pairs


def variant_pairs(results: list[dict[str, Any]], seeds: Sequence[int] | None = None,
                  replicates: int = BOOTSTRAP_REPLICATES, seed: int = BOOTSTRAP_SEED) -> list[dict[str, Any]]:
    """§4.3 statistics for every pair of variants and every model (see :mod:`schedc.bench.stats`)."""
    reseeded = reseeded_variants(results)
    rows = []
    for (model, a, b), values in pair_deltas(results, seeds).items():
        stats = pair_stats(values, replicates, seed)
        rows.append({"model": model, "variant_a": a, "variant_b": b,
                     "band_conditions": "+".join(band_conditions((a, b), reseeded)), "n": stats.n,
                     "n_delta": stats.n_delta, "delta_median": stats.delta_median, "delta_q1": stats.delta_q1,
                     "delta_q3": stats.delta_q3, "delta_iqr": stats.delta_iqr, "band_n": stats.band_n,
                     "band_median": stats.band_median, "band_iqr": stats.band_iqr, "estimate": stats.estimate,
                     "ci_low": stats.ci_low, "ci_high": stats.ci_high, "verdict": stats.verdict})
    return rows


def _csv(rows: list[dict[str, Any]], columns: Sequence[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: "" if row.get(c) is None else _fmt(row[c]) for c in columns})
    return buffer.getvalue()


def _fmt(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _markdown(rows: list[dict[str, Any]], columns: Sequence[str]) -> list[str]:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join("–" if row.get(c) is None else _fmt(row[c]) for c in columns) + " |")
    return lines


def report_markdown(table: list[dict[str, Any]], pairs: list[dict[str, Any]],
                    tables: dict[str, list[dict[str, Any]]] | None = None) -> str:
    """The Markdown report: feasibility table, variant-pair table and the ConstraintBench tables."""
    from schedc.bench.metrics import TABLES

    lines = ["# SCHEDBench evaluation", "", "## Feasibility, gap, coverage and violation rate", ""]
    lines += _markdown(table, TABLE_COLUMNS)
    lines += ["", "## Variant pairs: |ΔVR| against the seed band", ""]
    lines += _markdown(pairs, PAIR_COLUMNS) if pairs else ["(no variant pairs)"]
    for key, title, columns in TABLES if tables else ():
        lines += ["", f"## {title}", "", *_markdown(tables[key], columns)]  # type: ignore[index]
    return "\n".join(lines) + "\n"


def evaluate(out: Path, responses: Sequence[Path], report: Path, jobs: int = 1, executor: str = "local",
             scheduler: str | None = None, progress: bool = False, families: Sequence[str] | None = None,
             instances: Sequence[str] | None = None, program_limits: Any = None,
             also: Sequence[Path] = ()) -> dict[str, Any]:
    """Verify every answer (of the given families and instances) and write the report files.

    ``program_limits`` (a :class:`schedc.bench.sandbox.Limits`) bound solver-code programs;
    ``also`` adds benchmark folders (e.g. the seed study beside the ablation set).
    """
    from schedc.bench.metrics import TABLES, constraintbench_tables

    results = verify_all(out, responses, jobs, executor, scheduler, progress, families, instances, program_limits,
                         also)
    table = feasibility_table(results)
    pairs = variant_pairs(results)
    tables = constraintbench_tables(results)
    report = Path(report)
    write_if_changed(report / "feasibility.csv", _csv(table, TABLE_COLUMNS))
    write_if_changed(report / "pairs.csv", _csv(pairs, PAIR_COLUMNS))
    for key, _, columns in TABLES:
        write_if_changed(report / f"{key}.csv", _csv(tables[key], columns))
    write_if_changed(report / "report.md", report_markdown(table, pairs, tables))
    data = {"feasibility": table, "pairs": pairs, **tables,
            "bootstrap": {"replicates": BOOTSTRAP_REPLICATES, "seed": BOOTSTRAP_SEED, "level": 0.95,
                          "method": "percentile", "paired": True}}
    write_if_changed(report / "report.json", json.dumps(data, indent=1) + "\n")
    write_if_changed(report / "answers.jsonl", "".join(json.dumps(r, sort_keys=True) + "\n" for r in results))
    from schedc.bench.plots import delta_plot, feasibility_plot

    write_if_changed(report / FEASIBILITY_PNG, feasibility_plot(results))
    write_if_changed(report / DELTA_PNG, delta_plot(pair_deltas(results)))
    return data
