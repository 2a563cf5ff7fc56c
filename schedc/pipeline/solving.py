"""``schedc solve`` and ``emit`` as library functions: solve with a backend and write the verified answer
in the family's (or a rendering's) names; hints read as answers; the CP-SAT model and the MILP as files."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.ir import Family, Instance
from schedc.lang.load import Source, resolve
from schedc.pipeline.checking import shown_names

if TYPE_CHECKING:
    from schedc.backends.base import SolveResult
    from schedc.core.solution import Solution

def solve_file(spec: Source, backend: str | None = None, time_limit: float = 10.0, workers: int = 2, seed: int = 0,
               progress: Any = None, solver: str | None = None, variant: str | None = None,
               variant_seed: int = 42, search: Sequence[str | os.PathLike[str]] = (),
               explain: float | None = None,
               hint: str | os.PathLike[str] | None = None,
               started: float | None = None) -> tuple[SolveResult, str | None]:
    """``schedc solve``: (SolveResult, answer text in the family's format or None).

    ``time_limit`` is wall-clock time from ``started`` (a ``time.perf_counter()`` value: the
    command line passes its process's start), else from this call: what loading the spec and
    importing the backend took comes out of the backend's budget, down to half of it at most
    (:func:`backend_budget`).

    ``backend`` None is the default of ``schedc solve``: ``auto`` for slot models when the
    ``milp`` extra is installed and there are two workers or more, ``cpsat`` otherwise
    (:func:`schedc.backends.default_backend`, measured in docs/solving.md).

    ``solver`` names the solver of a backend that offers a choice (pyomo: any installed
    Pyomo MILP solver, default HiGHS); a backend without a choice rejects it. With
    ``variant``, the answer uses the display names of that rendering (as a model answering
    that prompt would), so ``schedc check --variant`` reads it back. With ``explain`` (a time
    budget in seconds), an infeasible result carries the hard constraints that cannot hold
    together (``result.conflict``, :mod:`schedc.backends.cpsat.explain`). ``hint`` is an answer
    file (a published or previous solution, in the names of ``variant``) that seeds the search
    (:func:`read_hint`): CP-SAT's solution hint, HiGHS's MIP start, both with ``auto``. With
    ``cpsat``, HiGHS probes for infeasibility beside CP-SAT while CP-SAT has no feasible start
    (:func:`schedc.backends.portfolio.solve_cpsat`).
    """
    began = time.perf_counter() if started is None else started
    from schedc.backends import default_backend, get_backend
    from schedc.verify.verifier import Verifier

    instance, family, folders = resolve(spec, search)
    if backend is None:
        backend = default_backend(family, workers)
    module = get_backend(backend)
    start = None
    if hint is not None:
        start = read_hint(Path(hint), instance, family, shown_names(instance, family, folders, variant, variant_seed))
    params: dict[str, Any] = {"workers": workers, "seed": seed}
    if solver is not None:
        if "solver" not in module.SolveOptions.__struct_fields__:
            raise SchedcError.at("E505", f"the {backend} backend has no solver choice (got --solver {solver})",
                                 hint="--solver picks the MILP solver of --backend pyomo")
        params["solver"] = solver
    run = module.solve
    if backend == "cpsat":  # with HiGHS's infeasibility probe while CP-SAT has no feasible start
        run = get_backend("auto").solve_cpsat
    params["time_limit"] = backend_budget(time_limit, time.perf_counter() - began)
    result = run(instance, family, module.SolveOptions(**params), progress,
                 **({"start": start} if start is not None else {}))
    if result.status == "infeasible" and explain is not None and explain > 0:
        from schedc.backends.cpsat.explain import explain_infeasibility

        result = msgspec.structs.replace(result, conflict=explain_infeasibility(instance, family, explain, seed))
    names = shown_names(instance, family, folders, variant, variant_seed)
    answer = Verifier(instance, family, names).write(result.solution) if result.solution is not None else None
    return result, answer

def backend_budget(time_limit: float, spent: float) -> float:
    """What a backend gets of a command's wall-clock ``time_limit`` after ``spent`` seconds of
    starting, loading and importing: the rest, but never less than half of the limit (so that a
    slow start on a loaded machine cannot leave a solver nothing)."""
    return max(time_limit - spent, time_limit / 2)


def read_hint(path: Path, instance: Instance, family: Family, names: Mapping[str, str] | None = None) -> Solution:
    """The decisions of an answer file (text lines in the family's answer format), checked by the
    verifier: a hint must extract, cover every assignment and be feasible (a SchedcError saying
    what is wrong otherwise)."""
    from schedc.verify.answers import extract
    from schedc.verify.evaluate import evaluate
    from schedc.verify.verifier import Issue, Verifier

    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise SchedcError.at("E506", f"cannot read the hint {path}: {exc.strerror or exc}", file=str(path)) from exc
    verifier = Verifier(instance, family, names)
    extraction = extract(text, verifier.format)
    issues: list[Issue] = []
    solution = verifier.decisions(extraction, issues) if extraction.ok else None
    problem = None
    if solution is None:
        problem = "no answer line could be read"
    elif issues:
        problem = f"{len(issues)} structural issues, first: {issues[0].message}"
    elif (covered := verifier.coverage(solution))[0] < covered[1]:
        problem = f"{covered[0]} of {covered[1]} assignments given"
    elif not (evaluation := evaluate(verifier.ctx, solution)).feasible:
        problem = f"{len(evaluation.violations)} hard violations"
    if problem is not None or solution is None:
        raise SchedcError.at("E506", f"the hint {path} is not a complete feasible answer ({problem})", file=str(path),
                             hint=f"`schedc check` lists what is wrong with {path.name}")
    return solution

def emit_cpsat(spec: Source, out: Path) -> None:
    """``schedc emit cpsat``: write the CP-SAT model (text proto for ``.txt``/``.pbtxt``, binary otherwise)."""
    from schedc.backends.cpsat import CpsatModel

    instance, family, _ = resolve(spec)
    model = CpsatModel(instance, family)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp{out.suffix}")
    if not model.model.export_to_file(str(tmp)):
        raise SchedcError.at("E502", f"cannot write the model to {out}")
    tmp.replace(out)

MILP_FORMATS = ("lp", "mps")

def emit_milp(spec: Source, out: Path, fmt: str = "lp") -> None:
    """``schedc emit lp|mps``: write the MILP of an instance with symbolic names (rows of
    constraint ``ID`` are ``c_ID(k)``, assignments ``x(agent_day_period_value)``, starts ``S(activity)``)
    through its Pyomo model and Pyomo's writers (``backends/pyomo/pyomo_store.py`` says why)."""
    from schedc.backends.pyomo import build_model

    if fmt not in MILP_FORMATS:
        raise SchedcError.at("E502", f"unknown MILP file format {fmt!r}", hint="formats: " + ", ".join(MILP_FORMATS))
    instance, family, _ = resolve(spec)
    model = build_model(instance, family, store="pyomo")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        model.model.write(str(tmp), format=fmt, io_options={"symbolic_solver_labels": True})
    except (OSError, ValueError) as exc:
        tmp.unlink(missing_ok=True)
        raise SchedcError.at("E502", f"cannot write the model to {out}: {exc}") from None
    tmp.replace(out)


def integer_bound(bound: float | None) -> int | None:
    """A solver's lower bound of an integer objective as an integer (rounded up: no smaller value is possible)."""
    if bound is None or not math.isfinite(bound):
        return None
    return math.ceil(bound - 1e-6)
