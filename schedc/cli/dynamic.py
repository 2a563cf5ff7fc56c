"""The dynamic flexible job shop commands of ``schedc``: generate, calibrate, ssi, simulate, plot.

Registered on the main application by :mod:`schedc.cli`; each command is a thin call of
:mod:`schedc.dynamic.api`.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from schedc.cli.application import AsJson, VariantSeed, app, echo_json, reports_errors, variant_seed
from schedc.cli.bench import Executor, Jobs, Scheduler
from schedc.cli.choices import CalibrationMethod, OperatorFamily, PlotView, Variant, choice_value
from schedc.cli.choices import Executor as ExecutorChoice
from schedc.dynamic import api
from schedc.dynamic.presets import PRESETS


class Level(StrEnum):
    """Observation levels of ``schedc agent`` (:data:`schedc.dynamic.agent_obs.LEVELS`)."""

    L1 = "L1"
    L2 = "L2"
    L3 = "L3"


class Mode(StrEnum):
    """Prompting modes (:data:`schedc.dynamic.agent_prompts.MODES`)."""

    direct = "direct"
    cot = "cot"
    tool = "tool"


class ObsFormat(StrEnum):
    """Observation formatting (:data:`schedc.dynamic.agent_obs.FORMATS`)."""

    text = "text"
    xml = "xml"


#: Agent presets (:data:`schedc.dynamic.presets.PRESETS`), a closed choice of the parser.
PresetName = StrEnum("PresetName", [(name, name) for name in PRESETS])  # type: ignore[misc]


class PromptVariant(StrEnum):
    """Mechanism-ablation prompt variants (:data:`schedc.dynamic.agent_prompts.VARIANTS`)."""

    padding = "padding"
    targets = "targets"
    bottleneck = "bottleneck"
    xml_priors = "xml-priors"


@app.command("generate", epilog="Example: schedc generate examples/dfjsp/grid.toml -o shops --limit 1")
@reports_errors
def generate_cmd(
    config: Annotated[Path, typer.Argument(help="a dynamic shop configuration (.toml)")],
    out: Annotated[Path, typer.Option("-o", "--out", help="output folder")],
    calibrate: Annotated[bool | None, typer.Option("--calibrate/--no-calibrate",
                                                   help="override the configuration's calibration switch")] = None,
    limit: Annotated[int | None, typer.Option(help="only the first N grid points")] = None,
    jobs: Jobs = 1, executor: Executor = ExecutorChoice.local, scheduler: Scheduler = None,
    as_json: AsJson = False,
) -> None:
    """Generate every point of a configuration's target grid as a dfjsp instance (and its world).

    Points run in parallel with --jobs / --executor; an interrupted run resumes where it stopped."""
    from schedc.dynamic.batch import generate

    written = generate(config, out, calibrate, limit, jobs, executor, scheduler, progress=jobs > 1 and not as_json)
    if as_json:
        echo_json({"written": [str(p) for p in written]})
        return
    for path in written:
        typer.echo(str(path))


@app.command("calibrate", epilog="Example: schedc calibrate examples/dfjsp/small.toml --baseline --json")
@reports_errors
def calibrate_cmd(
    config: Annotated[Path, typer.Argument(help="a dynamic shop configuration (.toml)")],
    baseline: Annotated[bool, typer.Option("--baseline", help="also run the parameter-space baseline")] = False,
    method: Annotated[list[CalibrationMethod], typer.Option(
        "--method", help="calibrators to run on every point, repeatable (default: sesc; with --baseline also "
                         "baseline); moo and hybrid need the moo extra")] = [],  # noqa: B006
    without: Annotated[list[OperatorFamily], typer.Option(
        "--without", help="leave this SESC operator family out (ablation, DynaSchedBench Table g-3); "
                          "repeatable")] = [],  # noqa: B006
    limit: Annotated[int | None, typer.Option(help="only the first N grid points")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print every report as JSON")] = False,
    plot: Annotated[Path | None, typer.Option("--plot", help="draw the L2 errors per grid point here")] = None,
    jobs: Jobs = 1, executor: Executor = ExecutorChoice.local, scheduler: Scheduler = None,
    resume: Annotated[Path | None, typer.Option(help="JSON Lines file of finished rows: appended to, and rows "
                                                     "already there are not recomputed")] = None,
    threshold: Annotated[list[str], typer.Option(
        "--threshold", help="paper success tolerance θ_l, KEY=VALUE (e.g. imbalance=0.15); repeatable")] = [],  # noqa: B006
    l2_tolerance: Annotated[float | None, typer.Option(
        "--l2-tolerance", help="paper relaxed success: normalised L2 at most this (default 0.1)")] = None,
) -> None:
    """Calibrate every grid point with SESC: L2 error before and after, success, runtime.

    Beside schedc's own figures (L2 of the relative errors, every metric within the tolerance) each
    row gives the paper's (Table 1) normalised L2 ‖m* − m^obs‖/‖m*‖ and strict / relaxed success with
    the per-metric tolerances θ_l (defaults from the authors' package, see docs/dynamic.md). Points run
    in parallel with --jobs / --executor; --resume keeps finished rows.
    """
    from schedc.dynamic.batch import calibrate as calibrate_points

    methods = [m.value for m in method] or ["sesc", *(["baseline"] if baseline else [])]
    if baseline and "baseline" not in methods:
        methods.append("baseline")
    rows = calibrate_points(config, baseline, limit, jobs, executor, scheduler, resume, progress=jobs > 1,
                            thresholds=_thresholds(threshold), l2_tolerance=l2_tolerance, methods=methods,
                            without=[w.value for w in without])
    if plot is not None:
        api.plot_calibration(rows, plot)
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    typer.echo("| instance | " + " | ".join(f"{m} L2 before → after | strict | norm. L2 before → after | "
                                            f"paper strict | paper relaxed | s" for m in methods) + " |")
    typer.echo("|---|" + "---|---|---|---|---|---|" * len(methods))
    yes = {True: "yes", False: "no"}
    for row in rows:
        cells = [f"{r['l2_before']:.4f} → {r['l2_after']:.4f} | {yes[r['strict']]} | "
                 f"{r['normalised_l2_before']:.4f} → {r['normalised_l2_after']:.4f} | {yes[r['paper_strict']]} | "
                 f"{yes[r['paper_relaxed']]} | {r['runtime']:.3f}" for r in (row[m] for m in methods)]
        typer.echo(f"| {row['instance']} | " + " | ".join(cells) + " |")
    for m in methods:
        reports = [row[m] for row in rows]
        if reports:
            share = {k: sum(r[k] for r in reports) / len(reports) for k in ("strict", "paper_strict", "paper_relaxed")}
            typer.echo(f"{m}: strict {share['strict']:.0%}, paper strict {share['paper_strict']:.0%}, "
                       f"paper relaxed {share['paper_relaxed']:.0%} over {len(reports)} points")


def _thresholds(items: list[str]) -> dict[str, float]:
    """``KEY=VALUE`` options as a dict (a precise error for anything else)."""
    from schedc.core.diagnostics import SchedcError
    from schedc.dynamic.config import THRESHOLD_KEYS

    out = {}
    for item in items:
        key, _, value = item.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if key not in THRESHOLD_KEYS or not 0 < number < 10:
            raise SchedcError.at("E714", f"--threshold {item!r}: expected KEY=VALUE with KEY one of "
                                 f"{', '.join(THRESHOLD_KEYS)} and 0 < VALUE < 10")
        out[key] = number
    return out


@app.command("simulate", epilog="Example: schedc simulate examples/dfjsp_small.sched --rule SPT+LIT -o answer.txt")
@reports_errors
def simulate_cmd(
    spec: Annotated[Path, typer.Argument(help="a dfjsp .sched instance or a .world.json from schedc generate")],
    rule: Annotated[list[str], typer.Option("--rule", help="dispatching rule (SPT+LIT, ..., RANDOM) or 'all'; "
                                                           "repeatable")] = ["SPT+LIT"],  # noqa: B006
    seed: Annotated[int, typer.Option(help="seed of the RANDOM rule")] = 0,
    out: Annotated[Path | None, typer.Option("-o", "--out", help="write the (first) rule's answer here")] = None,
    gantt: Annotated[Path | None, typer.Option("--gantt", help="draw the (first) rule's schedule here")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the outcomes as JSON")] = False,
) -> None:
    """Dispatch a dynamic shop online with composite rules; write the schedule as a checkable answer."""
    world, rollouts = api.simulate_file(spec, rule, seed)
    rows = [{"rule": r.rule, "makespan": r.makespan, "weighted_tardiness": r.weighted_tardiness,
             "aborts": r.aborts, "decisions": r.decisions} for r in rollouts]
    answer = api.rollout_answer(world, rollouts[0])
    if out is not None:
        from schedc.importers.common import write_atomic

        write_atomic(out, answer)
    if gantt is not None:
        from schedc.dynamic.spec import world_to_instance
        from schedc.plotting import plot_gantt

        plot_gantt(world_to_instance(world), rollouts[0].solution, gantt, title=f"{world.name} — {rollouts[0].rule}")
    if as_json:
        typer.echo(json.dumps({"instance": world.name, "objective": world.objective, "rollouts": rows}, indent=2))
        return
    if out is None and gantt is None and len(rollouts) == 1:
        sys.stdout.write(answer)
    for row in rows:
        typer.echo(f"{world.name} {row['rule']}: makespan {row['makespan']}, weighted tardiness "
                   f"{row['weighted_tardiness']}, aborts {row['aborts']}", err=out is None and len(rollouts) == 1)


@app.command("ssi", epilog="Example: schedc ssi examples/dfjsp_small.sched --json")
@reports_errors
def ssi_cmd(
    spec: Annotated[Path, typer.Argument(help="a dfjsp .sched instance or a .world.json")],
    as_json: Annotated[bool, typer.Option("--json", help="print metrics and SSI as JSON")] = False,
) -> None:
    """Realised metrics of a dynamic shop and its Schedule Stress Index (0–100)."""
    report = api.ssi_file(spec)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    metrics, ssi = report["metrics"], report["ssi"]
    typer.echo(f"{report['instance']}: SSI {ssi['index']:.1f}")
    for key in ("congestion", "pressure", "complexity", "shocks"):
        typer.echo(f"  {key:<11} {ssi[key]:.4g}")
    for key, value in metrics.items():
        shown = json.dumps(value) if isinstance(value, dict | list) else f"{value:.4g}" \
            if isinstance(value, float) else str(value)
        typer.echo(f"  {key:<22} {shown}")


@app.command("plot", epilog="Example: schedc plot examples/ft06.sched answer.txt -o gantt.png --view machines")
@reports_errors
def plot_cmd(
    spec: Annotated[Path, typer.Argument(help="the .sched instance (a .world.json for --view timeline)")],
    answer: Annotated[Path | None, typer.Argument(help="the answer to draw (not for --view timeline)")] = None,
    out: Annotated[Path, typer.Option("-o", "--out", help="image file: .png, .svg or .pdf")] = Path("gantt.png"),
    view: Annotated[PlotView, typer.Option(help="machines (Gantt / resource profiles), jobs, or timeline")]
    = PlotView.machines,
    variant: Annotated[Variant | None, typer.Option(help="read the answer with the names of this rendering",
                                                    case_sensitive=False)] = None,
    seed: VariantSeed = None,
    as_json: AsJson = False,
) -> None:
    """Draw an answer as a Gantt chart (or a dynamic shop's event timeline)."""
    written = api.plot_file(spec, answer, out, str(view.value), choice_value(variant), variant_seed(seed, None))
    if as_json:
        echo_json({"written": str(written)})
    else:
        typer.echo(str(written))


_PARAMETER = {"format": "fmt", "variants": "variant"}  # preset option → agent_cmd parameter


def _explicit(ctx: typer.Context, parameter: str) -> bool:
    """True when the option was given on the command line (not its default). Compared by name: typer
    carries its own copy of click, whose ParameterSource is not click's."""
    source = ctx.get_parameter_source(parameter)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def _list_presets(value: bool) -> None:
    """``--list-presets``: print the table and stop (before the required options are asked for)."""
    if value:
        from schedc.dynamic.presets import listing

        typer.echo(listing())
        raise typer.Exit(0)


@app.command("agent", epilog="Example: schedc agent shops/dfjsp_grid_000.sched --endpoint http://127.0.0.1:8000/v1 "
             "--model m --level L2 --mode cot -o answer.txt --transcript episode.jsonl")
@reports_errors
def agent_cmd(
    ctx: typer.Context,
    spec: Annotated[Path, typer.Argument(help="a dfjsp .sched instance or a .world.json from schedc generate")],
    endpoint: Annotated[str, typer.Option(help="OpenAI-compatible base URL (…/v1)")],
    model: Annotated[str, typer.Option(help="model name sent with every request")],
    out: Annotated[Path, typer.Option("-o", "--out", help="write the episode's schedule (answer) here")],
    preset: Annotated[PresetName | None, typer.Option(help="a named configuration of the paper (--list-presets); "
                                                           "options given explicitly override it (the defaults "
                                                           "shown below apply without a preset)",
                                                      case_sensitive=False)] = None,
    list_presets: Annotated[bool, typer.Option("--list-presets", is_eager=True, callback=_list_presets,
                                               help="print the presets with their paper sources and exit")] = False,
    level: Annotated[Level, typer.Option(help="observation level", case_sensitive=False)] = Level.L1,
    mode: Annotated[Mode, typer.Option(help="prompting mode", case_sensitive=False)] = Mode.direct,
    fmt: Annotated[ObsFormat, typer.Option("--format", help="observation formatting", case_sensitive=False)]
    = ObsFormat.text,
    variant: Annotated[list[PromptVariant], typer.Option(help="prompt variant of the mechanism ablation; "
                                                              "repeatable", case_sensitive=False)] = [],  # noqa: B006
    reflection: Annotated[int, typer.Option(help="R auditor rounds after each proposal")] = 0,
    best_of: Annotated[int, typer.Option("--best-of", help="N samples per decision, majority vote")] = 1,
    temperature: Annotated[float, typer.Option(help="sampling temperature (best-of-N: see --vote-temperature)")]
    = 0.0,
    vote_temperature: Annotated[float, typer.Option(help="temperature of the best-of-N samples")] = 0.7,
    top_p: Annotated[float | None, typer.Option("--top-p", help="top_p sent with every request (default: not sent)")]
    = None,
    few_shot: Annotated[int, typer.Option("--few-shot", help="fixed worked examples before each observation (0–2)")]
    = 0,
    max_tool_rounds: Annotated[int, typer.Option(help="tool-call rounds per proposal before the fallback")] = 4,
    max_tokens: Annotated[int | None, typer.Option(help="max_tokens of every request")] = None,
    fallback: Annotated[str, typer.Option(help="rule that decides when the answer is unusable")] = "SPT+LIT",
    transcript: Annotated[Path | None, typer.Option(help="write every epoch's exchange here (JSON Lines)")] = None,
    seed: Annotated[int, typer.Option(help="seed of the best-of-N request seeds and of the retry jitter")] = 0,
    timeout: Annotated[float, typer.Option(help="seconds per request")] = 120.0,
    retries: Annotated[int, typer.Option(help="retries per request on transport faults")] = 4,
    backoff: Annotated[float, typer.Option(help="base of the exponential backoff, seconds")] = 1.0,
    api_key_env: Annotated[str, typer.Option(help="environment variable holding the API key")] = "OPENAI_API_KEY",
    as_json: Annotated[bool, typer.Option("--json", help="print the episode record as JSON")] = False,
) -> None:
    """Dispatch a dynamic shop online with an LLM agent (L1–L3 observations, direct/CoT/tools); write the answer.

    --preset NAME takes the configuration of one of the paper's experiments (Table 3, the Table 5
    protocol, the Table j-1 variants; --list-presets prints them); options given explicitly override it.

    Exit status: 0 a schedule without violations, 1 violations, 2 bad input, 3 the endpoint answered no
    request (every decision was the fallback rule's: the answer says nothing about the model).
    """
    import os

    from schedc.bench.run import Settings
    from schedc.dynamic.agent import agent_file
    from schedc.dynamic.presets import agent_config, resolve

    cli = {"level": level.value, "mode": mode.value, "format": fmt.value, "variants": tuple(v.value for v in variant),
           "reflection": reflection, "best_of": best_of, "temperature": temperature,
           "vote_temperature": vote_temperature, "top_p": top_p, "few_shot": few_shot}
    given = {key: value for key, value in cli.items() if _explicit(ctx, _PARAMETER.get(key, key))}
    values = resolve(preset.value if preset else None, given)
    config = agent_config(values, model, max_tool_rounds=max_tool_rounds, max_tokens=max_tokens, fallback=fallback,
                          seed=seed)
    settings = Settings(endpoint=endpoint, api_key=os.environ.get(api_key_env), timeout=timeout, retries=retries,
                        backoff=backoff, concurrency=1, seed=seed)
    episode, _, violations = agent_file(spec, config, settings, out, transcript)
    record = episode.record() | {"violations": violations, "preset": preset.value if preset else None}
    if as_json:
        typer.echo(json.dumps(record, indent=1))
    else:
        fb = ", ".join(f"{k} {v}" for k, v in episode.fallbacks.items() if v) or "none"
        label = f"{preset.value} " if preset else ""
        typer.echo(f"{record['instance']} {label}{config.llm.mode}/{config.level}: makespan {record['makespan']}, "
                   f"weighted tardiness {record['weighted_tardiness']}, {record['decisions']} decisions, "
                   f"fallbacks: {fb}, "
                   f"{record['usage']['total_tokens']} tokens in {record['usage']['requests']} requests, "
                   f"{violations} violations")
    if episode.failed_requests:
        typer.echo(_unanswered_message(episode, endpoint, fallback), err=True)
    if episode.unanswered:
        raise typer.Exit(3)
    if violations:
        raise typer.Exit(1)


@app.command("agent-run", epilog="Example: schedc agent-run subset --preset l1-direct --preset l2-cot "
             "--endpoint http://127.0.0.1:8000/v1 --model m -o runs/qwen")
@reports_errors
def agent_run_cmd(
    instances: Annotated[Path, typer.Argument(help="a folder of .world.json / .sched shops (e.g. schedc subset's "
                                                   "output) or one shop")],
    preset: Annotated[list[PresetName], typer.Option(help="agent preset to run on every instance (schedc agent "
                                                          "--list-presets); repeatable", case_sensitive=False)],
    endpoint: Annotated[str, typer.Option(help="OpenAI-compatible base URL (…/v1)")],
    model: Annotated[str, typer.Option(help="model name sent with every request")],
    out: Annotated[Path, typer.Option("-o", "--out", help="output folder: episodes.jsonl, rules.jsonl, summary.*")],
    max_tool_rounds: Annotated[int, typer.Option(help="tool-call rounds per proposal before the fallback")] = 4,
    max_tokens: Annotated[int | None, typer.Option(help="max_tokens of every request")] = None,
    fallback: Annotated[str, typer.Option(help="rule that decides when the answer is unusable")] = "SPT+LIT",
    seed: Annotated[int, typer.Option(help="seed of the best-of-N request seeds and of the retry jitter")] = 0,
    timeout: Annotated[float, typer.Option(help="seconds per request")] = 120.0,
    retries: Annotated[int, typer.Option(help="retries per request on transport faults")] = 4,
    backoff: Annotated[float, typer.Option(help="base of the exponential backoff, seconds")] = 1.0,
    api_key_env: Annotated[str, typer.Option(help="environment variable holding the API key")] = "OPENAI_API_KEY",
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
) -> None:
    """Run agent presets on a set of shops: one JSON line per (instance, preset) episode, resumable, and a summary.

    Each episode is appended to OUT/episodes.jsonl as it finishes; a rerun skips the pairs already
    there. The summary (OUT/summary.md, summary.json; printed at the end) gives per preset the
    relative-to-best makespan gap against the best of the 24 dispatching rules on each instance:
    mean, p50, p90, p95, SE; tokens; fallbacks; and paired Wilcoxon tests against the best and the
    median fixed rule. Exit status 3 when the endpoint answered no request of an episode (the run
    stops there and that episode is not written).
    """
    import os

    from schedc.bench.run import Settings
    from schedc.dynamic.agent_run import markdown, run_presets

    settings = Settings(endpoint=endpoint, api_key=os.environ.get(api_key_env), timeout=timeout, retries=retries,
                        backoff=backoff, concurrency=1, seed=seed)

    def progress(record: dict[str, Any]) -> None:
        typer.echo(f"{record['instance']} {record['preset']}: makespan {record['makespan']}, gap "
                   f"{record['gap']:.2f} % vs {record['best_rule']}, {record['tokens']} tokens, "
                   f"{record['fallback_total']} fallbacks", err=True)

    report = run_presets(instances, [p.value for p in preset], model, settings, out, max_tool_rounds=max_tool_rounds,
                         max_tokens=max_tokens, fallback=fallback, progress=progress)
    if as_json:
        typer.echo(json.dumps(report.summary | {"ran": report.ran, "skipped": report.skipped,
                                                "unanswered": report.unanswered}, indent=1))
    else:
        typer.echo(f"{report.ran} episodes run, {report.skipped} already in {out}")
        typer.echo(markdown(report.summary))
    if report.unanswered:
        typer.echo(f"error: {endpoint} answered no request of {report.unanswered}; the run stopped there (that "
                   "episode is not written). Check --endpoint, --model and that the server is up.", err=True)
        raise typer.Exit(3)


def _unanswered_message(episode: Any, endpoint: str, fallback: str) -> str:
    """What the endpoint did not answer, and what that means for the schedule."""
    failed, answered = episode.failed_requests, episode.usage.get("requests", 0)
    if episode.unanswered:
        return (f"error: {endpoint} answered none of {failed} requests (last: {episode.transport_error}); every "
                f"decision was made by the fallback rule {fallback}, so the answer says nothing about the model. "
                "Check --endpoint, --model and that the server is up.")
    return (f"warning: {endpoint} did not answer {failed} of {failed + answered} requests (last: "
            f"{episode.transport_error}); {episode.fallbacks.get('transport', 0)} decisions fell back to the rule "
            f"{fallback}")


@app.command("subset", epilog="Example: schedc subset shops -k 20 -o subset")
@reports_errors
def subset_cmd(
    pool: Annotated[Path, typer.Argument(help="folder of generated shops (searched recursively for .world.json)")],
    k: Annotated[int, typer.Option("-k", help="number of instances to choose")],
    out: Annotated[Path, typer.Option("-o", "--out", help="output folder: chosen files, manifest, subset.json")],
    jobs: Jobs = 1, executor: Executor = ExecutorChoice.local, scheduler: Scheduler = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Choose k representative shops by farthest-point k-center on z-scored metrics and difficulty rank."""
    from schedc.dynamic.subset import select

    report = select(pool, k, out, jobs, executor, scheduler)
    if as_json:
        typer.echo(json.dumps(report, indent=1))
        return
    typer.echo(f"{report['k']} of {report['pool']} instances, covering radius {report['covering_radius']:.3f}: "
               + ", ".join(c["instance"] for c in report["chosen"]))
    typer.echo("| metric | KS statistic | p-value |\n|---|---|---|")
    for metric, ks in report["ks"].items():
        typer.echo(f"| {metric} | {ks['statistic']:.3f} | {ks['pvalue']:.3f} |")
