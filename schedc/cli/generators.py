"""``schedc generate-classic``: classic literature schemes written as ``.sched`` files.

Registered on the main application by :mod:`schedc.cli`; a thin call of :mod:`schedc.generators`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schedc.cli.application import AsJson, app, echo_json, reports_errors
from schedc.cli.choices import ClassicScheme


@app.command("generate-classic", epilog="Example: schedc generate-classic wt -o wt40 --jobs 40 --tf 0.6 --rdd 0.6 "
             "--count 5 --seed 1")
@reports_errors
def generate_classic_cmd(
    scheme: Annotated[ClassicScheme, typer.Argument(help="wt (Potts & Van Wassenhove 1||ΣwT) or sdst (Vallada & "
                                                         "Ruiz R|S_ijk|C_max)")],
    out: Annotated[Path, typer.Option("-o", "--out", help="output folder for the .sched files")],
    seed: Annotated[int, typer.Option(help="seed of the first instance (then seed+1, ...)")] = 0,
    count: Annotated[int, typer.Option(help="number of instances")] = 1,
    jobs: Annotated[int, typer.Option(help="number of jobs n")] = 40,
    tf: Annotated[float, typer.Option(help="wt: tardiness factor TF")] = 0.6,
    rdd: Annotated[float, typer.Option(help="wt: range of due dates RDD")] = 0.6,
    machines: Annotated[int, typer.Option(help="sdst: number of machines m")] = 2,
    setup_max: Annotated[int, typer.Option(help="sdst: setups ~ U[1, SETUP_MAX] (9, 49, 99 or 124)")] = 49,
    as_json: AsJson = False,
) -> None:
    """Write instances of a classic random scheme, deterministic per seed (docs/generators.md)."""
    from schedc.generators import SdstParams, WtParams, generate

    params = WtParams(jobs, tf, rdd) if scheme is ClassicScheme.wt else SdstParams(jobs, machines, setup_max)
    written = generate(str(scheme.value), params, seed, count, out)
    if as_json:
        echo_json({"written": [str(p) for p in written]})
        return
    for path in written:
        typer.echo(str(path))
