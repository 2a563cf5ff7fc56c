"""The Python API: ``schedc.load``, ``schedc.solve``, ``schedc.render``, ``schedc.check``, ``schedc.grammar``.

Each takes an instance as a :data:`~schedc.lang.load.Source` — the path of a ``.sched`` file (``str``
or :class:`~pathlib.Path`), the text of one, or an :class:`~schedc.ir.Instance` — and returns a
plain result object. Bad input raises :class:`~schedc.core.diagnostics.SchedcError` (its ``str`` is the
positioned report the CLI prints). Guide: ``docs/pipeline.md``.

>>> import schedc
>>> job_shop = schedc.load("examples/ft06.sched")                  # doctest: +SKIP
>>> solved = schedc.solve(job_shop, time_limit=5)                    # doctest: +SKIP
>>> schedc.check(job_shop, solved.answer).feasible                   # doctest: +SKIP
True
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from schedc import pipeline
from schedc.ir import Instance
from schedc.lang.load import Source
from schedc.pipeline.solving import integer_bound
from schedc.verify.verifier import CheckReport

if TYPE_CHECKING:
    from schedc.backends.base import Conflict, SolveResult
    from schedc.render.model import Rendering

Search = Sequence[str | os.PathLike[str]]


@dataclass(frozen=True)
class Solved:
    """The outcome of :func:`solve`: status, objective, integer bound, the verified answer text."""

    instance: str
    status: str
    objective: int | None
    bound: int | None
    bks: int | None
    gap_pct: float | None
    seconds: float
    answer: str | None
    conflict: Conflict | None
    result: SolveResult = field(repr=False)

    @property
    def feasible(self) -> bool:
        """Whether a schedule was found (optimal or not)."""
        return self.status in ("optimal", "feasible")


@dataclass(frozen=True)
class Prompt:
    """A rendering of an instance (:func:`render`): the whole prompt as ``text``, and its parts."""

    text: str
    system: str
    user: str
    variant: str
    seed: int
    names: dict[str, str]
    rendering: Rendering = field(repr=False)


def load(source: Source, *, search: Search = ()) -> Instance:
    """An instance from a path, a ``.sched`` text or an :class:`Instance` (returned as it is).

    ``search`` lists folders where the instance's family spec may be (before the built-in ones).
    """
    return pipeline.resolve(source, search).instance


def solve(instance: Source, *, time_limit: float = 10.0, backend: str | None = None, workers: int = 2, seed: int = 0,
          solver: str | None = None, variant: str | None = None, variant_seed: int = 42,
          explain: float | None = 10.0, search: Search = (), hint: str | os.PathLike[str] | None = None) -> Solved:
    """Solve an instance; the answer is written in the family's answer format and verified.

    ``backend`` is ``cpsat``, ``pyomo`` (``solver`` picks Pyomo's MILP solver) or ``auto`` (both
    in one budget, the best verified answer: docs/solving.md); None (the default) picks ``auto`` for
    slot models (rosters, timetables) when the ``milp`` extra is installed and ``workers`` ≥ 2,
    else ``cpsat`` (:func:`schedc.backends.default_backend`); ``hint`` is an answer file that
    seeds the search (cpsat, auto); with ``variant``
    the answer uses the names of that rendering (seed ``variant_seed``), as a model answering that
    prompt would. ``seed`` fixes the solver's randomness. An infeasible instance's ``conflict``
    lists hard constraints that cannot hold together, searched for ``explain`` seconds (None: not searched).
    """
    result, answer = pipeline.solve_file(instance, backend, time_limit, workers, seed, None, solver=solver,
                                    variant=variant, variant_seed=variant_seed, search=search, explain=explain,
                                    hint=hint)
    return Solved(instance=result.instance, status=result.status, objective=result.objective,
                  bound=integer_bound(result.bound), bks=result.bks, gap_pct=result.gap_pct,
                  seconds=result.seconds, answer=answer, conflict=result.conflict, result=result)


def render(instance: Source, *, variant: str = "v1", seed: int = 42, search: Search = ()) -> Prompt:
    """The natural-language prompt of an instance in one variant (v1, v2, v3a, v3b, v4) and seed."""
    rendering = pipeline.render_file(instance, variant, seed, search)
    return Prompt(text=rendering.text(), system=rendering.system, user=rendering.user_prompt(), variant=variant,
                  seed=seed, names=dict(rendering.names), rendering=rendering)


def check(instance: Source, answer: str | os.PathLike[str], *, variant: str | None = None, seed: int = 42,
          names: Mapping[str, str] | None = None, duplicates: str = "error", search: Search = ()) -> CheckReport:
    """Verify an answer (its text, or a :class:`~pathlib.Path` to it) constraint by constraint.

    With ``variant`` and ``seed``, names are read as that rendering shows them; ``names`` overrides
    single entries. ``duplicates="warn"`` reports a repeated assignment without counting it (the
    official ITC-2007 validator's policy). The report has ``feasible``, ``objective``, ``violations``, …
    and, for an answer in a themed rendering's names read without ``variant``, a ``naming_hint``.
    """
    text = pipeline.read_answer(Path(answer)) if isinstance(answer, os.PathLike) else answer
    return pipeline.check_answer(instance, text, names, variant, seed, search, duplicates)


def grammar(instance: Source, *, format: str = "text", variant: str | None = None, seed: int = 42,  # noqa: A002
            names: Mapping[str, str] | None = None, search: Search = ()) -> str:
    """The answer format of a rendering: ``text`` (the prompt stanza), ``lark``, ``gbnf`` or ``json-schema``."""
    return pipeline.grammar_file(instance, format, variant, seed, names, search)


__all__ = ["Prompt", "Solved", "check", "grammar", "integer_bound", "load", "render", "solve"]


def __getattr__(name: str) -> object:
    """The command functions that lived here before 0.2 (``schedc.pipeline.load_instance``, …), with a warning."""
    if name.startswith("__") or name not in pipeline.__all__:
        raise AttributeError(f"module 'schedc.api' has no attribute {name!r}")
    import warnings

    warnings.warn(f"schedc.api.{name} moved to schedc.pipeline.{name}", DeprecationWarning, stacklevel=2)
    return getattr(pipeline, name)
