"""The commands that make new instances from old ones: ``tighten`` and ``perturb``.

Registered on the main application by :mod:`schedc.cli`; each is a thin call of :mod:`schedc.variants`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schedc.cli import AsJson, app, echo_json, reports_errors


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
