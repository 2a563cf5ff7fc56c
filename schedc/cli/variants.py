"""The commands that make new instances from old ones: ``tighten`` and ``perturb``.

Registered on the main application by :mod:`schedc.cli`; each is a thin call of :mod:`schedc.variants`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schedc.cli.application import AsJson, app, echo_json, reports_errors
from schedc.cli.choices import PerturbMode


@app.command("tighten", epilog="Example: schedc tighten examples/ft06.sched -o ft06_tight.sched --factor 1.15")
@reports_errors
def tighten_cmd(
    spec: Annotated[Path, typer.Argument(help="the base instance (.sched)")],
    out: Annotated[Path, typer.Option("-o", "--out", help="the tightened instance (.sched)")],
    factor: Annotated[str, typer.Option(help="bound = ⌊factor × z*⌋, factor ≥ 1")] = "1.15",
    time_limit: Annotated[float, typer.Option(help="CP-SAT seconds when the instance has no bks")] = 10.0,
    seed: Annotated[int, typer.Option(help="CP-SAT seed")] = 0,
    as_json: AsJson = False,
) -> None:
    """Add a hard bound on the objective at factor × the best known (or CP-SAT's best) value."""
    from schedc.variants import tighten_file

    result = tighten_file(spec, out, factor, time_limit, seed)
    record = {"written": str(out), "measure": result.instance.objective.measure, "bound": result.bound,
              "reference": result.reference.value, "reference_source": result.reference.source,
              "factor": result.factor}
    if as_json:
        echo_json(record)
        return
    typer.echo(f"{out}: {record['measure']} ≤ {result.bound} (= ⌊{result.factor} × {result.reference.value}⌋, "
               f"z* from {result.reference.source})")


@app.command("perturb", epilog="Example: schedc perturb examples/rcpsp_small.sched -o variants --mode boundary "
             "--count 3 --seed 1")
@reports_errors
def perturb_cmd(
    spec: Annotated[Path, typer.Argument(help="the base instance (.sched)")],
    out: Annotated[Path, typer.Option("-o", "--out", help="output folder for the variants and manifest.json")],
    mode: Annotated[PerturbMode, typer.Option(help="boundary (last feasible / first infeasible value of one scalar "
                                                   "per kind) or sat (changes a reference schedule keeps feasible)")]
    = PerturbMode.boundary,
    count: Annotated[int, typer.Option(help="boundary: kinds to move; sat: variants")] = 3,
    seed: Annotated[int, typer.Option(help="seed of every random choice")] = 0,
    time_limit: Annotated[float, typer.Option(help="CP-SAT seconds per solve")] = 2.0,
    strength: Annotated[float, typer.Option(help="sat: largest change as a fraction of the value")] = 0.2,
    as_json: AsJson = False,
) -> None:
    """Write verified variants of an instance and a manifest of their reference objectives and proofs."""
    from schedc.variants.perturb import perturb_file

    manifest = perturb_file(spec, out, str(mode.value), count, seed, time_limit, strength=strength)
    if as_json:
        echo_json(manifest)
        return
    for v in manifest["variants"]:
        objective = "–" if v["objective"] is None else v["objective"]
        typer.echo(f"{out / v['file']}: {v['status']}, objective {objective}; {'; '.join(v['changes'])}")
    if not manifest["variants"]:
        typer.echo(f"no {mode.value} variant found (see docs/variants.md)", err=True)
