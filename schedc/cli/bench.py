"""``schedc bench …``: build, validate, run and eval (a typer sub-application)."""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from schedc.bench.build import DEFAULT_SEEDS, DEFAULT_VARIANTS, DESIGN_DEFAULTS, parse_list
from schedc.cli.application import AsJson, deprecated_option, echo_json, reports_errors
from schedc.cli.choices import AnswerMode, Decoding, Lines, Order, RunGrammarFormat, Selection, Server
from schedc.cli.choices import Executor as ExecutorChoice
from schedc.core.diagnostics import SchedcError

bench_app = typer.Typer(help="SCHEDBench: build the dataset, validate it, query models, evaluate answers.",
                        no_args_is_help=True,
                        epilog="Example: schedc bench build examples/sources -o bench --variants v1,v4 && "
                               "schedc bench run bench --endpoint http://localhost:8000/v1 --model qwen && "
                               "schedc bench eval bench bench/responses/qwen.jsonl -o report")

Jobs = Annotated[int, typer.Option("--jobs", "-j", help="parallel processes")]
Executor = Annotated[ExecutorChoice, typer.Option(help="local (process pool) or dask")]
Scheduler = Annotated[str | None, typer.Option(help="with --executor dask: scheduler address (default: local cluster)")]
Families = Annotated[str | None, typer.Option(help="only these comma-separated families (e.g. nsplib,itc2007)")]
Instances = Annotated[str | None, typer.Option(help="only these comma-separated instances (name or family/name)")]


def _filters(families: str | None, instances: str | None) -> dict[str, list[str] | None]:
    """The ``families``/``instances`` keyword arguments of an option pair (None: no filter)."""
    return {"families": parse_list(families, []) if families else None,
            "instances": parse_list(instances, []) if instances else None}


def _as_json(summary: Any) -> Any:
    """A command's summary record (a dataclass) as JSON data: paths as strings, counters as objects
    whose tuple keys (family, difficulty) are written ``family/difficulty``."""
    if dataclasses.is_dataclass(summary) and not isinstance(summary, type):
        summary = dataclasses.asdict(summary)
    if isinstance(summary, dict):
        return {"/".join(map(str, k)) if isinstance(k, tuple) else str(k): _as_json(v) for k, v in summary.items()}
    if isinstance(summary, (list, tuple)):
        return [_as_json(v) for v in summary]
    return summary if summary is None or isinstance(summary, (bool, int, float, str)) else str(summary)


def _fail(exc: SchedcError) -> typer.Exit:
    """Print the error; exit 2 (bad input) or the error's own status (74: an output could not be written)."""
    from schedc.core.inputs import exit_code

    summary = getattr(exc, "summary", None)
    if summary is not None:  # what the run did before it failed
        typer.echo(summary.line())
    typer.echo(str(exc), err=True)
    return typer.Exit(exit_code(exc))


@bench_app.command("build", epilog="Example: schedc bench build examples/sources -o bench --variants v1,v4 --seeds 42")
@reports_errors
def build_cmd(
    sources: Annotated[list[Path], typer.Argument(help="folders laid out like examples/sources (one per family)")],
    out: Annotated[Path, typer.Option("-o", "--out", help="output folder")],
    variants: Annotated[str | None, typer.Option(help="comma-separated variants (default: v1,v2,v3a,v3b,v4; "
                                                 "with --selection seed: v2,v3a,v3b)")] = None,
    seeds: Annotated[str | None, typer.Option(help="comma-separated rendering seeds (default: 42; "
                                              "with --selection seed: 42,43,44)")] = None,
    selection: Annotated[Selection, typer.Option(help="schedbench (1,132), ablation (470) or seed (150)")]
    = Selection.schedbench,
    order: Annotated[Order, typer.Option(help="'first 100' order: natural or lexicographic")] = Order.natural,
    answer_mode: Annotated[AnswerMode, typer.Option(help="text (a schedule) or solver-code (a program run in a "
                                                    "sandbox)")] = AnswerMode.text,
    perturb: Annotated[str | None, typer.Option(help="sat:N: N variants of each instance that its CP-SAT schedule "
                                                "keeps feasible, in place of the instance")] = None,
    tighten: Annotated[str | None, typer.Option(help="F: each instance with a hard objective bound at "
                                                "⌊F × z*⌋, in place of the instance")] = None,
    derive_seed: Annotated[int | None, typer.Option(help="with --perturb/--tighten: seed of the changes and of "
                                                    "CP-SAT (default 0)", show_default=False)] = None,
    derive_time_limit: Annotated[float | None, typer.Option(help="with --perturb/--tighten: CP-SAT seconds per solve "
                                                            "(default 10)", show_default=False)] = None,
    old_seed: Annotated[int | None, typer.Option("--variant-seed", hidden=True,
                                                 help="deprecated: use --derive-seed")] = None,
    old_time_limit: Annotated[float | None, typer.Option("--variant-time-limit", hidden=True,
                                                         help="deprecated: use --derive-time-limit")] = None,
    jobs: Jobs = 1, executor: Executor = ExecutorChoice.local, scheduler: Scheduler = None,
    as_json: AsJson = False,
) -> None:
    """Select, import and render the SCHEDBench instances into a JSONL dataset (resumable)."""
    from schedc.bench.build import build
    from schedc.bench.derive import parse_derivation

    try:
        default_variants, default_seeds = DESIGN_DEFAULTS.get(selection.value, (DEFAULT_VARIANTS, DEFAULT_SEEDS))
        derivation = parse_derivation(
            perturb, tighten, deprecated_option("--derive-seed", "--variant-seed", derive_seed, old_seed, 0),
            deprecated_option("--derive-time-limit", "--variant-time-limit", derive_time_limit, old_time_limit, 10.0))
        summary = build(sources, out, parse_list(variants, default_variants), parse_list(seeds, default_seeds, int),
                        str(selection.value), str(order.value), jobs, executor, scheduler, progress=True,
                        answer_mode=str(answer_mode.value), derivation=derivation)
    except SchedcError as exc:
        raise _fail(exc) from None
    if as_json:
        echo_json({"dataset": str(out / "dataset.jsonl"), **_as_json(summary)})
        raise typer.Exit(1 if summary.failed else 0)
    typer.echo(f"{summary.instances} instances, {summary.records} records in {out / 'dataset.jsonl'} "
               f"({summary.built} built, {summary.skipped} already done)")
    if summary.missing:
        typer.echo(f"{len(summary.missing)} selected instance(s) have no source file (see manifest.json), "
                   f"e.g. {', '.join(summary.missing[:5])}", err=True)
    for note in summary.notes:
        typer.echo(f"note: {note}", err=True)
    for name, error in summary.failed.items():
        typer.echo(f"failed: {name}: {error}", err=True)
    typer.echo((out / "composition.md").read_text(encoding="utf-8"))
    if summary.failed:
        raise typer.Exit(1)


@bench_app.command("validate", epilog="Example: schedc bench validate bench --time-limit 10")
@reports_errors
def validate_cmd(
    out: Annotated[Path, typer.Argument(help="a built benchmark folder")],
    time_limit: Annotated[float, typer.Option(help="CP-SAT seconds per instance")] = 10.0,
    workers: Annotated[int, typer.Option(help="CP-SAT search workers per instance")] = 1,
    jobs: Jobs = 1, executor: Executor = ExecutorChoice.local, scheduler: Scheduler = None,
    families: Families = None, instances: Instances = None,
    as_json: AsJson = False,
) -> None:
    """Solve every instance with CP-SAT, verify, compare with the BKS; writes reference.csv."""
    from schedc.bench.validate import validate

    try:
        rows = validate(out, time_limit, workers, jobs, executor, scheduler, progress=True,
                        **_filters(families, instances))
    except SchedcError as exc:
        raise _fail(exc) from None
    flagged = [r for r in rows if r["flags"] and r["flags"] != "no_solution"]
    failing = any(flag in r["flags"] for r in rows for flag in ("better_than_optimum", "not_verified",
                                                                 "solver_disagreement"))
    if as_json:
        echo_json({"table": str(out / "reference.csv"), "instances": len(rows), "flagged": len(flagged),
                   "rows": _as_json(rows)})
        raise typer.Exit(1 if failing else 0)
    for r in flagged:
        typer.echo(f"{r['family']}/{r['instance']}: {r['flags']} (objective {r['objective']}, bks {r['bks']})")
    typer.echo(f"{len(rows)} instances validated, {len(flagged)} flagged; table in {out / 'reference.csv'}")
    for r in rows:
        if r.get("error"):
            typer.echo(f"{r['family']}/{r['instance']}: {r['error']}", err=True)
    if failing:
        raise typer.Exit(1)


@bench_app.command("run", epilog="Example: schedc bench run bench --endpoint http://localhost:8000/v1 --model qwen")
@reports_errors
def run_cmd(
    out: Annotated[Path, typer.Argument(help="a built benchmark folder")],
    endpoint: Annotated[str, typer.Option(help="OpenAI-compatible base URL (…/v1)")],
    model: Annotated[str, typer.Option(help="model name sent to the endpoint")],
    concurrency: Annotated[int, typer.Option(help="parallel requests")] = 4,
    rate: Annotated[float | None, typer.Option(help="max requests per second")] = None,
    retries: Annotated[int, typer.Option(help="retries per request after a transport fault")] = 4,
    timeout: Annotated[float, typer.Option(help="seconds per attempt")] = 120.0,
    max_tokens: Annotated[int | None, typer.Option(help="max_tokens of each request")] = None,
    temperature: Annotated[float, typer.Option(help="sampling temperature")] = 0.0,
    backoff: Annotated[float, typer.Option(help="first backoff step in seconds (doubles per retry, jittered)")] = 1.0,
    max_backoff: Annotated[float, typer.Option(help="longest wait between attempts (Retry-After included)")] = 60.0,
    seed: Annotated[int, typer.Option(help="seed of the backoff jitter")] = 0,
    decoding: Annotated[Decoding, typer.Option(help="free, json-schema or grammar")] = Decoding.free,
    server: Annotated[Server, typer.Option(help="request dialect: vllm, llama.cpp or openai")] = Server.vllm,
    grammar_format: Annotated[RunGrammarFormat, typer.Option(help="with --decoding grammar: gbnf or lark")]
    = RunGrammarFormat.gbnf,
    lines: Annotated[Lines, typer.Option(help="with --decoding grammar: any, or exact (the instance's line count)")]
    = Lines.any,
    extra_body: Annotated[str | None, typer.Option(help="JSON object merged into every request body")] = None,
    api_key_env: Annotated[str, typer.Option(help="environment variable holding the API key")] = "OPENAI_API_KEY",
    responses: Annotated[Path | None, typer.Option(help="responses JSONL (default OUT/responses/MODEL.jsonl)")] = None,
    limit: Annotated[int | None, typer.Option(help="only the first N prompts")] = None,
    families: Families = None, instances: Instances = None,
    as_json: AsJson = False,
) -> None:
    """Send every prompt to a chat endpoint; responses appended to a JSONL file (cached, deduplicated, resumable).

    One run per responses file (a second one refuses). Exit status: 0 all answered, 1 some error records,
    2 bad input (a bad endpoint or option, another run on the file), 3 the endpoint answered none of the
    requests sent, 74 a file could not be written (full disk, permissions; the records saved before are kept
    and a rerun resumes), 130 stopped by SIGINT/SIGTERM (within 2 s). The record format: docs/bench.md.
    """
    from schedc.bench.decoding import Options, parse_extra_body
    from schedc.bench.run import Settings, run

    try:
        options = Options(model=model, decoding=str(decoding.value), server=str(server.value),
                          grammar_format=str(grammar_format.value), lines=str(lines.value),
                          temperature=temperature, max_tokens=max_tokens, extra_body=parse_extra_body(extra_body))
        settings = Settings(endpoint=endpoint, api_key=os.environ.get(api_key_env), timeout=timeout, retries=retries,
                            backoff=backoff, max_backoff=max_backoff, rate=rate, concurrency=concurrency, seed=seed)
        summary = run(out, endpoint, model, responses, limit=limit, options=options, settings=settings,
                      progress=True, handle_signals=True, **_filters(families, instances))
    except SchedcError as exc:
        raise _fail(exc) from None
    except KeyboardInterrupt:  # a signal before the first request: nothing was sent, the files are closed
        from schedc.cli.application import exit_interrupted

        exit_interrupted("interrupted before any request was sent; a rerun resumes")
    if as_json:
        echo_json(_as_json(summary))
    else:
        typer.echo(summary.line())
    if summary.interrupted:  # the files are closed and synced: skip the interpreter's teardown to end within 2 s
        from schedc.cli.application import exit_interrupted

        exit_interrupted("stopped by a signal; a rerun resumes")
    if summary.unanswered:
        typer.echo(f"error: {endpoint} answered none of the {summary.errors} prompts sent (last: {summary.last_error})"
                   "; check --endpoint, --model and that the server is up. A rerun sends them again.", err=True)
        raise typer.Exit(3)
    if summary.errors:
        typer.echo(f"warning: {summary.errors} prompts got no answer (last: {summary.last_error}); a rerun sends them "
                   "again", err=True)
        raise typer.Exit(1)


@bench_app.command("eval", epilog="Example: schedc bench eval bench bench/responses/qwen.jsonl -o report")
@reports_errors
def eval_cmd(
    out: Annotated[Path, typer.Argument(help="a built benchmark folder")],
    responses: Annotated[list[Path], typer.Argument(help="responses JSONL files")],
    report: Annotated[Path, typer.Option("-o", "--out", help="report folder")],
    jobs: Jobs = 1, executor: Executor = ExecutorChoice.local, scheduler: Scheduler = None,
    families: Families = None, instances: Instances = None,
    program_time_limit: Annotated[float, typer.Option(help="solver-code: wall and CPU seconds per program")] = 10.0,
    also: Annotated[list[Path] | None, typer.Option("--also", help="another benchmark folder to evaluate with this "
                                                     "one (e.g. the seed study beside the ablation set)")] = None,
    as_json: AsJson = False,
) -> None:
    """Verify every answer; feasibility/gap/coverage/VR tables and variant-pair statistics."""
    from schedc.bench.evaluate import evaluate

    try:
        from schedc.bench.sandbox import Limits

        limits = Limits(cpu_seconds=max(1, math.ceil(program_time_limit)), wall_seconds=program_time_limit)
        data = evaluate(out, responses, report, jobs, executor, scheduler, progress=True, program_limits=limits,
                        also=also or (), **_filters(families, instances))
    except SchedcError as exc:
        raise _fail(exc) from None
    if as_json:  # the tables of report.json, and where the report files are
        echo_json({"report": str(report), **_as_json(data)})
        return
    typer.echo((report / "report.md").read_text(encoding="utf-8"))
