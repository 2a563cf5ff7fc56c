"""``schedc tighten``: only near-optimal answers stay feasible.

The tightened instance is the base instance plus ``hard objective_bound near_optimal
measure=M max=⌊factor · z*⌋`` (M the instance's objective), z* being the best known value or
CP-SAT's best value; ``meta`` records the base, the factor and z*. Any earlier objective bound
is replaced, so tightening twice bounds against the base, not against the first bound.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.ir import Family, Instance
from schedc.kinds import ObjectiveBound
from schedc.variants.common import Reference, reference_value, write_instance

BOUND_ID = "near_optimal"


@dataclass(frozen=True)
class Tightened:
    """A tightened instance, its bound and the reference value it was computed from."""

    instance: Instance
    bound: int
    reference: Reference
    factor: str


def parse_factor(factor: str | float) -> Fraction:
    """The factor as an exact fraction (``1.15`` is 23/20, not a binary float); at least 1."""
    try:
        value = Fraction(str(factor))
    except (ValueError, ZeroDivisionError):
        raise SchedcError.at("E801", f"the factor must be a number, found {factor!r}", hint="e.g. --factor 1.15") \
            from None
    if value < 1:
        raise SchedcError.at("E801", f"the factor must be at least 1, found {factor}",
                             hint="a bound below the optimum would make every instance infeasible")
    return value


def tighten(instance: Instance, family: Family, factor: str | float = "1.15", time_limit: float = 2.0,
            seed: int = 0) -> Tightened:
    """The instance with a hard bound ``⌊factor · z*⌋`` on its objective."""
    ratio = parse_factor(factor)
    base = instance.meta.base or instance.name
    reference = reference_value(_without_bound(instance), family, time_limit, seed)
    bound = math.floor(ratio * reference.value)
    constraint = ObjectiveBound(id=_free_id(instance), measure=instance.objective.measure, max=bound)
    meta = msgspec.structs.replace(instance.meta, base=base, derivation="tighten", factor=str(factor),
                                   reference=reference.value)
    tightened = msgspec.structs.replace(_without_bound(instance), name=f"{instance.name}_tight", meta=meta,
                                        constraints=(*_without_bound(instance).constraints, constraint))
    return Tightened(tightened, bound, reference, str(factor))


def _without_bound(instance: Instance) -> Instance:
    """The instance without its objective bounds (a bound is never tightened against itself)."""
    kept = tuple(c for c in instance.constraints if not isinstance(c, ObjectiveBound))
    return msgspec.structs.replace(instance, constraints=kept)


def _free_id(instance: Instance) -> str:
    """``near_optimal``, or ``near_optimal_2`` … when another constraint has that id."""
    taken = {c.id for c in instance.constraints if not isinstance(c, ObjectiveBound)}
    candidate, k = BOUND_ID, 1
    while candidate in taken:
        k += 1
        candidate = f"{BOUND_ID}_{k}"
    return candidate


def tighten_file(spec: str | os.PathLike[str], out: Path, factor: str | float = "1.15", time_limit: float = 2.0,
                 seed: int = 0, search: Sequence[str | os.PathLike[str]] = ()) -> Tightened:
    """``schedc tighten SPEC -o OUT``: tighten the instance in ``spec`` and write it to ``out``."""
    from schedc.lang.load import resolve

    parse_factor(factor)  # a bad factor fails before any solving
    instance, family, folders = resolve(Path(spec), search)
    result = tighten(instance, family, factor, time_limit, seed)
    write_instance(result.instance, family, out, folders)
    return result
