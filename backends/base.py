"""What every solver backend shares: the result record and the unsupported-kind error.

A backend compiles an IR instance into a solver model through a table of encoders keyed by
constraint class (no if/elif chain over kinds), declares the kinds it supports, and fails
with a clear message — backend, kind, source span — for any other. Every solution a backend
returns is re-checked by the shared evaluator before it is reported.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal, Protocol

import msgspec

from schedc.core.diagnostics import SchedcError, Span
from schedc.core.solution import Solution
from schedc.kinds import Constraint, kind_name
from schedc.kinds.context import EvalContext

Status = Literal["optimal", "feasible", "infeasible", "unknown", "invalid"]


class ConflictItem(msgspec.Struct, frozen=True, kw_only=True):
    """One constraint of a conflict: its id, kind and where it is written."""

    id: str
    kind: str
    span: Span | None = None


class Conflict(msgspec.Struct, frozen=True, kw_only=True):
    """Hard constraints that cannot all hold (``schedc solve`` prints it for infeasible instances).

    ``minimal``: every one of them was shown necessary (dropping it makes the rest feasible);
    ``verified``: the ordinary model of only these constraints is infeasible too; ``always_on``:
    constraints that could not be switched off and are assumed throughout.
    """

    constraints: tuple[ConflictItem, ...]
    minimal: bool
    verified: bool
    always_on: tuple[str, ...] = ()
    solves: int = 0
    seconds: float = 0.0


class SolveResult(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of a solver run (``schedc solve --json`` prints it without the solution)."""

    instance: str
    backend: str
    status: Status
    objective: int | None
    bound: float | None
    bks: int | None
    gap_pct: float | None
    seconds: float
    build_seconds: float
    solution: Solution | None = None
    components: dict[str, int] = {}
    #: for an infeasible instance: hard constraints that cannot hold together (``schedc solve`` explains)
    conflict: Conflict | None = None


class Probe(Protocol):
    """A search for a proof of infeasibility beside CP-SAT (``schedc solve --backend cpsat`` runs
    HiGHS's, :class:`schedc.backends.portfolio.InfeasibilityProbe`). :meth:`begin` is called when
    the model has no verified start, i.e. while nothing shows the instance feasible; once the
    probe proves it infeasible, it sets the run's ``stop`` event. :meth:`feasible` is called when
    CP-SAT finds a solution: the question is settled, and the probe may end."""

    def begin(self) -> None: ...

    def feasible(self) -> None: ...


class SolverDisagreement(RuntimeError):
    """The evaluator disagrees with a solver about one of its own solutions: a bug, never bad input."""


def unsupported(backend: str, constraint: Constraint, file: str = "<input>", form: str = "") -> SchedcError:
    """The error for a constraint kind (or a ``form`` of it, e.g. "soft") a backend cannot encode."""
    span: Span | None = constraint.span
    what = f"the {form} form of the kind" if form else "the kind"
    return SchedcError.at("E501", f"the {backend} backend does not support {what} {kind_name(constraint)} "
                          f"(constraint {constraint.id})", file=file, line=span.line if span else None,
                          column=span.column if span else 1,
                          hint="run another backend, or drop the constraint")


def registrar(table: dict[type[Constraint], Callable[[Any, Any], None]]) -> Callable[[type[Constraint]], Any]:
    """The ``@encoder(Kind)`` decorator of a backend: registers a function in ``table``."""
    def encoder(kind: type[Constraint]) -> Callable[[Callable[[Any, Any], None]], Callable[[Any, Any], None]]:
        def register(func: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
            table[kind] = func
            return func
        return register
    return encoder


def encode_all(backend: str, model: Any, table: dict[type[Constraint], Callable[[Any, Any], None]]) -> None:
    """Encode every active constraint of ``model.instance`` with the backend's table."""
    for constraint in model.instance.constraints:
        if constraint.active:
            encode = table.get(type(constraint))
            if encode is None:
                raise unsupported(backend, constraint)
            encode(model, constraint)


def gap_pct(objective: int | None, bks: int | None) -> float | None:
    """``(z − z*) / z* × 100`` when both are known and z* > 0."""
    if objective is None or bks is None or bks == 0:
        return None
    return round((objective - bks) / bks * 100.0, 4)


def check_agreement(backend: str, claimed: int | None, evaluated: int | None, feasible: bool,
                    components: Mapping[str, int], optimal: bool = True) -> None:
    """Fail loudly when the evaluator does not accept a solver solution as the solver claims.

    Penalty variables are only bounded from below by the penalties they stand for, and
    minimisation makes them tight only at an optimum: a merely feasible solution may carry
    slack, so its claimed objective may exceed the evaluator's — never fall below it.
    """
    if not feasible:
        raise SolverDisagreement(f"{backend} returned a solution the verifier finds infeasible")
    if claimed is None or evaluated is None:
        return
    if claimed < evaluated or (optimal and claimed != evaluated):
        raise SolverDisagreement(f"{backend} claims objective {claimed} ({'optimal' if optimal else 'feasible'}) "
                                 f"but the verifier computes {evaluated} (components {dict(components)})")


@contextmanager
def stopping(stop: threading.Event | Callable[[], bool] | None, halt: Callable[[], None],
             every: float = 0.05) -> Iterator[None]:
    """While the block runs, call ``halt`` (a solver's asynchronous stop) once ``stop`` is set
    (an event, or a test that turns true), from a watcher thread that looks every ``every``
    seconds and repeats the call until the block ends: a stop that comes before the solver has
    really started (CP-SAT ignores ``stop_search`` until its solve is under way) is not lost."""
    if stop is None:
        yield
        return
    requested = stop.is_set if isinstance(stop, threading.Event) else stop
    done = threading.Event()

    def watch() -> None:
        while not done.wait(every):
            if requested():
                halt()

    watcher = threading.Thread(target=watch, name="schedc-stop", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


def better_start(ctx: EvalContext, own: Solution | None, start: Solution | None) -> Solution | None:
    """The better feasible one (by the evaluator's objective; ties: ``own``) of a model's own
    heuristic schedule ``own`` — verified when the model chose it — and a given ``start``."""
    from schedc.verify.evaluate import evaluate  # evaluate imports the kinds, whose encoders import this module

    if start is None:
        return own
    candidates = [s for s in (own, start) if s is not None]
    scored = [(r.objective, k, s) for k, s in enumerate(candidates)
              if (r := evaluate(ctx, s)).feasible and r.objective is not None]
    return min(scored, key=lambda t: (t[0], t[1]))[2] if scored else None
