"""What the variant makers share: a quick CP-SAT solve, the reference objective, naming and writing an instance."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec

from schedc.backends.base import SolveResult
from schedc.core.diagnostics import SchedcError
from schedc.ir import Family, Instance
from schedc.lang.printer import print_instance


@dataclass(frozen=True)
class Reference:
    """The objective value z* a variant is derived against, and where it comes from.

    ``source``: ``bks`` (the instance's best known value), ``optimal`` (proven by CP-SAT now) or
    ``feasible`` (the best value CP-SAT found in its time limit, not proven).
    """

    value: int
    source: str


def solve_instance(instance: Instance, family: Family, time_limit: float = 2.0, seed: int = 0,
                   workers: int = 2) -> SolveResult:
    """Solve with CP-SAT; the backend re-checks every solution it returns with the verifier."""
    from schedc.backends.cpsat import SolveOptions, solve

    return solve(instance, family, SolveOptions(time_limit=time_limit, workers=workers, seed=seed), None)


def reference_value(instance: Instance, family: Family, time_limit: float = 2.0, seed: int = 0) -> Reference:
    """z*: the best known value (meta bks) when the instance has one, otherwise CP-SAT's best value.

    A SchedcError (E802) when neither exists: no bks and no schedule found in the time limit.
    """
    if instance.meta.bks is not None:
        return Reference(instance.meta.bks, "bks")
    result = solve_instance(instance, family, time_limit, seed)
    if result.objective is None or result.status not in ("optimal", "feasible"):
        raise SchedcError.at("E802", f"{instance.name}: no objective value is known (no meta bks) and CP-SAT "
                             f"found no schedule in {time_limit:g} s (status {result.status})",
                             hint="give the instance a bks, or a longer --time-limit")
    return Reference(result.objective, result.status)


def write_instance(instance: Instance, family: Family, path: Path, search: Sequence[Path] = ()) -> str:
    """Print ``instance`` canonically, parse the text back (it must be a valid instance), write it atomically."""
    from schedc.importers.common import write_atomic
    from schedc.lang.parser import parse_instance_text

    text = print_instance(instance, family)
    parse_instance_text(text, file=str(path), search=search)
    write_atomic(path, text)
    return text


def derived(instance: Instance, name: str, mode: str, seed: int, changes: Sequence[str]) -> Instance:
    """``instance`` renamed, its meta recording the base, the derivation, the seed and the changes."""
    base = instance.meta.base or instance.name
    meta = msgspec.structs.replace(instance.meta, base=base, derivation=mode, seed=seed, changes="; ".join(changes),
                                   bks=None, bks_kind=None, lower_bound=None, difficulty=None, bks_source=None)
    return msgspec.structs.replace(instance, name=name, meta=meta)
