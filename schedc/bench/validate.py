"""``schedc bench validate``: solve every instance, verify the answer, compare with the BKS.

Solving uses the portfolio (``--backend auto``, :mod:`schedc.backends.portfolio`): CP-SAT and
HiGHS within the time limit, the best verified answer with the best proven bound of either.
For each ``.sched`` file of a built benchmark: solve (time limit, fixed seed), write the solution
in the answer format and read it back with the verifier, then flag

* ``better_than_optimum`` — a verified objective below a proven optimum (or below a lower bound);
* ``infeasible`` — a backend proves the instance infeasible;
* ``not_verified`` — the verifier rejects the solver's own solution (a bug somewhere);
* ``no_solution`` — no solution within the time limit (not an error, noted);
* ``solver_disagreement`` — a backend and the evaluator disagree about its own solution (a bug;
  the message goes to the ``error`` column, and the row is not cached so a rerun tries again).

Where the source gives no BKS (NSPLib), our verified objective becomes the reference value
(``reference_kind`` optimal when a backend proved it, else upper_bound). Results go to
``OUT/validate/<family>/<instance>.json`` (a rerun skips them) and ``OUT/reference.csv``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from schedc.bench.dataset import filter_records, load_dataset, read_reference_table, write_if_changed
from schedc.bench.executor import run_tasks

REFERENCE_COLUMNS = ("family", "instance", "bks", "bks_kind", "lower_bound", "status", "objective", "bound",
                     "verified", "flags", "reference", "reference_kind", "seconds", "error")


def validate_one(task: dict[str, Any]) -> dict[str, Any]:
    """Worker: solve, verify and compare one instance (cached in its result file)."""
    from schedc.backends.base import SolverDisagreement
    from schedc.backends.portfolio import SolveOptions, solve
    from schedc.lang.family import load_family
    from schedc.lang.load import load_instance
    from schedc.verify.verifier import Verifier

    target = Path(task["result"])
    if target.is_file() and json.loads(target.read_text(encoding="utf-8")).get("time_limit") == task["time_limit"]:
        return json.loads(target.read_text(encoding="utf-8"))
    spec = Path(task["spec"])
    instance = load_instance(spec)
    family = load_family(instance.family, [spec.parent])
    meta = instance.meta
    try:
        result = solve(instance, family, SolveOptions(time_limit=task["time_limit"], workers=task["workers"], seed=0))
    except SolverDisagreement as exc:  # a bug in a solver model or the verifier: flagged, not cached
        row = {"family": task["family"], "instance": instance.name, "bks": meta.bks, "bks_kind": meta.bks_kind,
               "lower_bound": meta.lower_bound, "status": "error", "objective": None, "bound": None,
               "verified": None, "seconds": None, "time_limit": task["time_limit"], "error": str(exc)}
        row["flags"] = ";".join(flags(row, meta.lower_bound))
        row["reference"], row["reference_kind"] = reference(row)
        return row
    row: dict[str, Any] = {"family": task["family"], "instance": instance.name, "bks": meta.bks,
                           "bks_kind": meta.bks_kind, "lower_bound": meta.lower_bound, "status": result.status,
                           "objective": result.objective, "bound": result.bound, "verified": None,
                           "seconds": round(result.seconds, 3), "time_limit": task["time_limit"]}
    if result.solution is not None:
        verifier = Verifier(instance, family)
        report = verifier.check(verifier.write(result.solution))
        row["verified"] = report.feasible and report.objective == result.objective
    row["flags"] = ";".join(flags(row, meta.lower_bound))
    row["reference"], row["reference_kind"] = reference(row)
    write_if_changed(target, json.dumps(row, sort_keys=True) + "\n")
    return row


def flags(row: dict[str, Any], lower_bound: int | None) -> list[str]:
    """The problems a validation row shows (see the module docstring)."""
    found = []
    objective, bks = row["objective"], row["bks"]
    if row.get("error"):
        found.append("solver_disagreement")
    elif row["status"] == "infeasible":
        found.append("infeasible")
    elif objective is None:
        found.append("no_solution")
    if row["verified"] is False:
        found.append("not_verified")
    if objective is not None and row["verified"]:
        if (row["bks_kind"] == "optimal" and bks is not None and objective < bks) or (
                lower_bound is not None and objective < lower_bound):
            found.append("better_than_optimum")
    return found


def reference(row: dict[str, Any]) -> tuple[int | None, str | None]:
    """The reference value: the BKS when known, else our verified objective."""
    if row["bks"] is not None:
        return row["bks"], row["bks_kind"]
    if row["objective"] is not None and row["verified"]:
        return row["objective"], "optimal" if row["status"] == "optimal" else "upper_bound"
    return None, None


def validate(out: Path, time_limit: float = 10.0, workers: int = 1, jobs: int = 1, executor: str = "local",
             scheduler: str | None = None, progress: bool = False,
             families: Sequence[str] | None = None, instances: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Validate the instances (of the given families and instances) in ``out``; updates ``reference.csv``.

    ``reference.csv`` keeps the rows of instances validated earlier and not in this run, so
    validating family by family builds up one table.
    """
    out = Path(out)
    records = filter_records(load_dataset(out), families, instances)
    specs = list(dict.fromkeys((r["family"], r["instance"], r["spec"]) for r in records))
    where = out.resolve()  # absolute: a Dask worker may run in another working directory
    tasks = [{"family": f, "spec": str(where / spec), "time_limit": time_limit, "workers": workers,
              "result": str(where / "validate" / f / f"{name}.json")}
             for f, name, spec in specs]
    rows = list(run_tasks(validate_one, tasks, jobs=jobs, executor=executor, scheduler=scheduler,
                          progress="validate" if progress else None))
    order = {(t["family"], Path(t["result"]).stem): k for k, t in enumerate(tasks)}
    rows.sort(key=lambda r: order[(r["family"], r["instance"])])
    _write_table(out, load_dataset(out), rows)
    return rows


def _write_table(out: Path, dataset: list[dict[str, Any]], rows: list[dict[str, Any]]) -> None:
    """``reference.csv``: this run's rows and the earlier rows of other instances, in dataset order."""
    table = {(r["family"], r["instance"]): r for r in read_reference_table(out)}
    table.update({(r["family"], r["instance"]): {k: "" if r.get(k) is None else r[k] for k in REFERENCE_COLUMNS}
                  for r in rows})
    order = {key: k for k, key in enumerate(dict.fromkeys((r["family"], r["instance"]) for r in dataset))}
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(REFERENCE_COLUMNS), lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows([table[k] for k in sorted(table, key=lambda k: order.get(k, len(order))) if k in order])
    write_if_changed(out / "reference.csv", buffer.getvalue())


