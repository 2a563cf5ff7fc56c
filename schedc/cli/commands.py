"""The ``schedc`` command line: a thin layer over :mod:`schedc.pipeline`.

Bad input is reported as diagnostics on standard error with exit status 2; only the
project's own error type is caught, so the CLI framework's exits pass through.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from schedc import pipeline
from schedc.cli.application import AsJson, OldSeed, VariantSeed, app, echo_json, reports_errors, variant_seed
from schedc.cli.choices import Backend, Duplicates, GrammarFormat, ImportFormat, Lines, Variant, choice_value
from schedc.core.diagnostics import SchedcError


@app.command("import", epilog="Example: schedc import jsplib examples/sources/jsplib/ft06.txt "
             "--bks examples/sources/jsplib/bks.csv -o out")
@reports_errors
def import_cmd(
    fmt: Annotated[ImportFormat, typer.Argument(metavar="FORMAT", help="the source format")],
    paths: Annotated[list[Path], typer.Argument(help="source files (.txt, .fjs, .sm, .mm, .ctt, .xml, .nsp)")],
    out: Annotated[Path, typer.Option("-o", "--out", help="output folder for the .sched files")],
    bks: Annotated[Path | None, typer.Option(help="BKS table: instance,bks,kind,lower_bound,difficulty,source")] = None,
    case: Annotated[list[Path] | None, typer.Option("--case", help="NSPLib case file (.gen); repeatable")] = None,
    as_json: AsJson = False,
) -> None:
    """Convert canonical instance files into canonical .sched files."""
    written = pipeline.import_sources(str(fmt.value), paths, out, bks, case or [])
    if as_json:
        echo_json({"written": [str(p) for p in written]})
        return
    for path in written:
        typer.echo(str(path))


@app.command("fmt", epilog="Example: schedc fmt --check examples/*.sched")
@reports_errors
def fmt_cmd(
    files: Annotated[list[Path], typer.Argument(help=".sched files to rewrite in canonical form")],
    check: Annotated[bool, typer.Option("--check", help="only report files that are not canonical (exit 1)")] = False,
    as_json: AsJson = False,
) -> None:
    """Rewrite .sched files in canonical form (or check that they are)."""
    unformatted = [f for f in files if not pipeline.format_file(f, check=check)]
    if as_json:
        echo_json({"files": [{"file": str(f), "canonical": f not in unformatted,
                              "rewritten": f in unformatted and not check} for f in files]})
    for f in unformatted if not as_json else ():
        typer.echo(f"{'would reformat' if check else 'reformatted'} {f}")
    if check and unformatted:
        raise typer.Exit(1)


@app.command("parse", epilog="Example: schedc parse examples/ft06.sched --json")
@reports_errors
def parse_cmd(
    file: Annotated[Path, typer.Argument(help="a .sched instance or family spec")],
    as_json: Annotated[bool, typer.Option("--json", help="print the IR as JSON")] = False,
) -> None:
    """Parse and check a .sched file; print its IR as JSON with --json."""
    data = pipeline.to_json(file)
    if as_json:
        sys.stdout.write(data.decode() + "\n")
    else:
        typer.echo(f"{file}: ok")


@app.command("info", epilog="Example: schedc info examples/itc2007_small.sched")
@reports_errors
def info_cmd(
    file: Annotated[Path, typer.Argument(help="a .sched instance or family spec")],
    as_json: Annotated[bool, typer.Option("--json", help="print as JSON")] = False,
) -> None:
    """Show family, sizes, constraints by kind and reference values of a .sched file."""
    from schedc.lang.parser import parse_file

    info = pipeline.describe(parse_file(file))
    if as_json:
        typer.echo(json.dumps(info, indent=2))
        return
    for key, value in info.items():
        if isinstance(value, dict):
            typer.echo(f"{key}:")
            for k, v in value.items():
                typer.echo(f"  {k}: {v}")
        else:
            typer.echo(f"{key}: {value}")


@app.command("check", epilog="Example: schedc check examples/ft06.sched answer.txt --variant v4 --variant-seed 42 "
             "--json")
@reports_errors
def check_cmd(
    spec: Annotated[Path | None, typer.Argument(help="the .sched instance the answer is for")] = None,
    answer: Annotated[Path | None, typer.Argument(help="the answer text file")] = None,
    names: Annotated[Path | None, typer.Option(help="JSON {IR name: shown name} for themed renderings")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    batch: Annotated[Path | None, typer.Option(help="JSONL of {id, answer[, spec]}: check them all")] = None,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="with --batch: write JSONL here")] = None,
    variant: Annotated[Variant | None, typer.Option(help="read the names of this rendering",
                                                    case_sensitive=False)] = None,
    seed: VariantSeed = None,
    old_seed: OldSeed = None,
    duplicates: Annotated[Duplicates, typer.Option(help="a repeated assignment: error (a hard violation) or warn "
                                                   "(reported, not counted: the official ITC-2007 validator)")]
    = Duplicates.error,
    max_answer_bytes: Annotated[str, typer.Option("--max-answer-bytes", help="the largest answer (and batch record) "
                                                  "read, e.g. 16M; a larger one is refused (exit 2)")] = "16M",
    max_issues: Annotated[int, typer.Option("--max-issues", help="issues and skipped lines listed in full (the "
                                            "others are counted); 0: all")] = 1000,
    record_time_limit: Annotated[float, typer.Option("--record-time-limit", help="with --batch: seconds one record "
                                                     "may take (0: no limit)")] = 60.0,
) -> None:
    """Verify an answer constraint by constraint (exit 0 feasible, 1 infeasible, 2 bad input)."""
    seed = variant_seed(seed, old_seed)
    mapping = pipeline.read_names(names)
    limit = _size_option(max_answer_bytes, "--max-answer-bytes")
    keep = max_issues if max_issues > 0 else None
    if batch is not None:
        from schedc.pipeline.checking import BatchLimits

        limits = BatchLimits(record_bytes=limit, seconds=record_time_limit or None, keep=keep)
        _check_batch(spec, batch, mapping, out, choice_value(variant), seed, str(duplicates.value), limits)
        return
    if spec is None or answer is None:
        raise SchedcError.at("E404", "usage: schedc check SPEC ANSWER (or --batch FILE.jsonl)")
    from schedc.verify.verifier import format_report

    report = pipeline.check_answer(spec, pipeline.read_answer(answer, limit), mapping, choice_value(variant), seed,
                                   duplicates=str(duplicates.value), keep=keep)
    if as_json:
        import msgspec

        sys.stdout.write(msgspec.json.format(msgspec.json.encode(report)).decode() + "\n")
    else:
        typer.echo(format_report(report))
    if not report.feasible:
        raise typer.Exit(1)


def _size_option(text: str, option: str) -> int:
    """A size option's value in bytes (``16M``), or a SchedcError naming the option."""
    from schedc.core.inputs import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise SchedcError.at("E409", f"{option}: {exc}") from None


def _check_batch(spec: Path | None, batch: Path, mapping: dict[str, str], out: Path | None,
                 variant: str | None, seed: int, duplicates: str, limits: Any) -> None:
    """Check the records of ``batch``, writing each report as soon as it is made (to ``out`` or stdout)."""
    from schedc.core.inputs import write_failed
    from schedc.pipeline.checking import batch_lines

    try:
        handle = batch.open("rb")
    except OSError as exc:
        raise SchedcError.at("E403", f"cannot read the batch: {exc.strerror or exc}", file=str(batch)) from None
    with handle:
        reports = pipeline.check_batch(spec, batch_lines(handle, limits.record_bytes), mapping, variant, seed,
                                       duplicates, limits)
        if out is None:
            for line in reports:
                sys.stdout.write(line.decode() + "\n")
                sys.stdout.flush()
            return
        written = 0
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            target = out.open("wb")
        except OSError as exc:
            raise write_failed(out, exc) from None
        try:
            with target:
                for line in reports:  # each report reaches the file once its record is checked
                    target.write(line + b"\n")
                    target.flush()
                    written += 1
                os.fsync(target.fileno())
        except OSError as exc:
            raise write_failed(out, exc, f"{written} reports were written before") from None


@app.command("solve", epilog="Example: schedc solve examples/ft06.sched --time-limit 5 -o answer.txt")
@reports_errors
def solve_cmd(
    spec: Annotated[Path, typer.Argument(help="the .sched instance to solve")],
    backend: Annotated[Backend | None, typer.Option(help="solver backend; default: auto on slot models (rosters, "
                                                    "timetables) when the milp extra is installed and --workers "
                                                    "is 2 or more, else cpsat")] = None,
    time_limit: Annotated[float, typer.Option("--time-limit", help="wall-clock limit in seconds, counted from the "
                                              "command's start")] = 10.0,
    workers: Annotated[int, typer.Option(help="search workers")] = 2,
    seed: Annotated[int, typer.Option(help="random seed of the solver")] = 0,
    solver: Annotated[str | None, typer.Option(help="MILP solver of --backend pyomo (default highs)")] = None,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="write the answer here (else stdout)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
    variant: Annotated[Variant | None, typer.Option(help="write the answer with the names of this rendering",
                                                    case_sensitive=False)] = None,
    rendering_seed: VariantSeed = None,
    show_progress: Annotated[bool, typer.Option("--progress", help="print each improving solution on stderr")]
    = False,
    explain_time: Annotated[float, typer.Option("--explain-time", help="infeasible: seconds to search for the "
                                                "constraints that conflict (0: do not)")] = 10.0,
    hint: Annotated[Path | None, typer.Option("--hint", help="an answer file (a published or previous solution) "
                                              "that seeds the search (every backend)")] = None,
) -> None:
    """Solve an instance; write the answer in the family's format, verified before it is reported.

    ``--backend auto`` runs CP-SAT and HiGHS side by side in one budget and keeps the best
    verified answer with the best proven bound (docs/solving.md); it is the default on slot models
    (rosters, timetables) when the ``milp`` extra is installed, ``cpsat`` on interval models.

    An infeasible instance is explained: a small set of hard constraints that cannot hold together,
    each with its position in the file.
    """
    import msgspec

    from schedc.pipeline.solving import integer_bound

    def progress(objective: int, bound: float, seconds: float) -> None:
        typer.echo(f"  {seconds:7.2f}s  objective {objective}  bound {_shown(integer_bound(bound))}", err=True)

    chosen = None if backend is None else str(backend.value)  # None: the default per model (default_backend)
    result, answer = pipeline.solve_file(spec, chosen, time_limit, workers, seed,
                                    progress if show_progress else None, solver=solver, variant=choice_value(variant),
                                    variant_seed=variant_seed(rendering_seed, None), explain=explain_time,
                                    hint=hint, started=_STARTED)
    if answer is not None:
        if out is not None:
            from schedc.importers.common import write_atomic

            write_atomic(out, answer)
        elif not as_json:
            sys.stdout.write(answer)
    summary = {k: v for k, v in msgspec.to_builtins(result).items() if k != "solution"}
    summary["bound"] = integer_bound(result.bound)
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
    else:
        typer.echo(_solve_summary(result, integer_bound(result.bound)), err=out is None)
        if result.conflict is not None:
            from schedc.backends.cpsat.explain import format_conflict

            typer.echo(format_conflict(result.conflict, str(spec)), err=out is None)
    if result.status in ("infeasible", "unknown", "invalid"):
        raise typer.Exit(1)


def _shown(value: object) -> str:
    """A value of a summary line: ``–`` when unknown."""
    return "–" if value is None else str(value)


def _solve_summary(result: Any, bound: int | None) -> str:
    """``NAME: status, objective Z, bound B, best known K, gap G% (S s)``."""
    gap = "" if result.gap_pct is None else f", gap {result.gap_pct:.2f}%"
    return (f"{result.instance}: {result.status}, objective {_shown(result.objective)}, bound {_shown(bound)}, "
            f"best known {_shown(result.bks)}{gap} ({result.seconds:.2f}s)")


@app.command("render", epilog="Example: schedc render examples/ft06.sched --variant v4 --variant-seed 42")
@reports_errors
def render_cmd(
    spec: Annotated[Path, typer.Argument(help="the .sched instance to render")],
    variant: Annotated[Variant, typer.Option(help="v1 (canonical), v2 (order), v3a (theme), v3b (template), v4 (all)",
                                             case_sensitive=False)] = Variant.v1,
    seed: VariantSeed = None,
    old_seed: OldSeed = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON: prompt parts, display names and fact ledger")]
    = False,
) -> None:
    """Render an instance as a natural-language prompt (identical bytes for identical spec, variant, seed).

    The seed drives the variant's random streams (order, theme, paraphrases).
    """
    rendering = pipeline.render_file(spec, str(variant.value), variant_seed(seed, old_seed))
    if as_json:
        sys.stdout.write(json.dumps(rendering.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(rendering.text())


emit_app = typer.Typer(help="Export a solver model for use outside schedc.", no_args_is_help=True,
                       epilog="Example: schedc emit cpsat examples/ft06.sched -o ft06.pb.txt")
app.add_typer(emit_app, name="emit")


@emit_app.command("cpsat", epilog="Example: schedc emit cpsat examples/ft06.sched -o ft06.pb.txt")
@reports_errors
def emit_cpsat_cmd(
    spec: Annotated[Path, typer.Argument(help="the .sched instance")],
    out: Annotated[Path, typer.Option("-o", "--out", help="model file (.pb.txt for text proto)")],
    as_json: AsJson = False,
) -> None:
    """Write the CP-SAT model proto."""
    pipeline.emit_cpsat(spec, out)
    _written(out, as_json)


def _written(out: Path, as_json: bool) -> None:
    """Report a written file: its path, or ``{"written": path}`` as JSON."""
    if as_json:
        echo_json({"written": str(out)})
    else:
        typer.echo(str(out))


def _emit_milp(spec: Path, out: Path, fmt: str, as_json: bool) -> None:
    pipeline.emit_milp(spec, out, fmt)
    _written(out, as_json)


@emit_app.command("lp", epilog="Example: schedc emit lp examples/rcpsp_small.sched -o rcpsp_small.lp")
@reports_errors
def emit_lp_cmd(
    spec: Annotated[Path, typer.Argument(help="the .sched instance")],
    out: Annotated[Path, typer.Option("-o", "--out", help="model file (.lp)")],
    as_json: AsJson = False,
) -> None:
    """Write the Pyomo MILP in CPLEX LP format (rows named after the constraint ids)."""
    _emit_milp(spec, out, "lp", as_json)


@emit_app.command("mps", epilog="Example: schedc emit mps examples/rcpsp_small.sched -o rcpsp_small.mps")
@reports_errors
def emit_mps_cmd(
    spec: Annotated[Path, typer.Argument(help="the .sched instance")],
    out: Annotated[Path, typer.Option("-o", "--out", help="model file (.mps)")],
    as_json: AsJson = False,
) -> None:
    """Write the Pyomo MILP in MPS format (rows named after the constraint ids)."""
    _emit_milp(spec, out, "mps", as_json)


@app.command("grammar", epilog="Example: schedc grammar examples/ft06.sched --variant v4 --format gbnf")
@reports_errors
def grammar_cmd(
    spec: Annotated[Path, typer.Argument(help="the .sched instance")],
    fmt: Annotated[GrammarFormat, typer.Option("--format", help="the prompt stanza, a grammar or a JSON Schema")]
    = GrammarFormat.text,
    variant: Annotated[Variant | None, typer.Option(help="use the names of this rendering",
                                                    case_sensitive=False)] = None,
    seed: VariantSeed = None,
    old_seed: OldSeed = None,
    names: Annotated[Path | None, typer.Option(help="JSON {IR name: shown name}")] = None,
    lines: Annotated[Lines, typer.Option(help="lark/gbnf: any number of lines, or exact (where the instance fixes "
                                         "it)")] = Lines.any,
    as_json: AsJson = False,
) -> None:
    """The answer format an LLM must follow: the prompt stanza, a Lark or GBNF grammar, or a JSON Schema."""
    seed = variant_seed(seed, old_seed)
    text = pipeline.grammar_file(spec, str(fmt.value), choice_value(variant), seed, pipeline.read_names(names),
                                 lines=str(lines.value))
    if as_json:  # the grammar as a string (a JSON Schema too), with what it was made for
        echo_json({"spec": str(spec), "format": str(fmt.value), "variant": choice_value(variant), "seed": seed,
                   "lines": str(lines.value), "grammar": text})
        return
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


from schedc.cli.bench import bench_app  # noqa: E402

app.add_typer(bench_app, name="bench")

# registers generate, calibrate, ssi, simulate, plot; tighten, perturb; generate-classic; snapshot; lsp (each
# imports the app from schedc.cli.application, not from here, so no module imports back into this one)
from schedc.cli import dynamic, editor, generators, snapshot, variants  # noqa: E402, F401

#: when this process started, as a ``time.perf_counter()`` value (set by :func:`main`; None when
#: the commands run inside another program): ``solve --time-limit`` counts from there
_STARTED: float | None = None


def process_age() -> float:
    """Seconds since this process started: its start time in ``/proc/self/stat`` (clock ticks
    after boot) against the boot clock, on Linux; 0 where either is missing or the answer is
    implausible (over a minute: ``main`` runs right after the interpreter's start)."""
    try:
        with open("/proc/self/stat", encoding="utf-8", errors="replace") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()  # the fields after the command name
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0
    return age if 0.0 <= age <= 60.0 else 0.0


def main() -> None:
    """Console-script entry point."""
    global _STARTED
    _STARTED = time.perf_counter() - process_age()
    app()


if __name__ == "__main__":
    main()
