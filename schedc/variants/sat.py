"""``schedc perturb --mode sat``: random changes a certificate proves harmless.

The certificate is a reference schedule of the base instance (CP-SAT's). A change is proposed at
random — a duration shortened or lengthened, a capacity moved, a hard coverage demand or a hard
run/count maximum moved by one, a soft rule's weight, a due date or a preference cost changed — and
kept only when the instance stays valid and the reference schedule is still feasible for it (checked
by the verifier), so every variant is feasible by construction. Each variant is then re-solved with
CP-SAT; the manifest records the reference schedule's objective on the variant, the re-solved one,
and whether the optimum moved.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.ir import Family, Instance
from schedc.kinds import AssignmentCost, ConsecutiveRunBounds, CountBounds, Coverage, Tardiness
from schedc.lang.semantic import check_instance
from schedc.variants.common import derived, solve_instance, write_instance
from schedc.verify.evaluate import evaluate, make_context

Change = tuple[Instance, str, int, int]  # (changed instance, what changed, old value, new value)
Operator = Callable[[Instance, random.Random, float], Change | None]
ATTEMPTS = 200  # proposals per variant before giving up on further changes (most fail on a tight schedule)


def _step(value: int, rng: random.Random, strength: float, low: int = 0) -> int:
    """``value`` moved by a non-zero random step of at most ``strength × value`` (at least 1), kept ≥ ``low``."""
    span = max(1, round(abs(value) * strength))
    return max(low, value + rng.choice([-1, 1]) * rng.randint(1, span))


def _with(instance: Instance, index: int, constraint: object) -> Instance:
    constraints = list(instance.constraints)
    constraints[index] = constraint
    return msgspec.structs.replace(instance, constraints=tuple(constraints))


def _duration(instance: Instance, rng: random.Random, strength: float) -> Change | None:
    candidates = [(i, k) for i, a in enumerate(instance.activities) for k, m in enumerate(a.modes) if m.duration > 0]
    if not candidates:
        return None
    i, k = rng.choice(candidates)
    activity = instance.activities[i]
    old = activity.modes[k].duration
    new = _step(old, rng, strength, low=1)
    modes = list(activity.modes)
    modes[k] = msgspec.structs.replace(modes[k], duration=new)
    activities = list(instance.activities)
    activities[i] = msgspec.structs.replace(activity, modes=tuple(modes))
    where = f"{activity.name} mode {k + 1}" if len(modes) > 1 else activity.name
    return msgspec.structs.replace(instance, activities=tuple(activities)), f"duration of {where}", old, new


def _capacity(instance: Instance, rng: random.Random, strength: float) -> Change | None:
    candidates = [j for j, r in enumerate(instance.resources) if r.kind != "unary"]
    if not candidates:
        return None
    j = rng.choice(candidates)
    r = instance.resources[j]
    new = _step(r.capacity, rng, strength, low=1)
    resources = list(instance.resources)
    resources[j] = msgspec.structs.replace(r, capacity=new)
    return msgspec.structs.replace(instance, resources=tuple(resources)), f"capacity of {r.name}", r.capacity, new


def _soft_weight(instance: Instance, rng: random.Random, strength: float) -> Change | None:
    candidates = [i for i, c in enumerate(instance.constraints) if c.active and not c.hard and c.weight > 0]
    if not candidates:
        return None
    i = rng.choice(candidates)
    c = instance.constraints[i]
    new = _step(c.weight, rng, max(strength, 1.0), low=1)
    if new == c.weight:
        return None
    return _with(instance, i, msgspec.structs.replace(c, weight=new)), f"weight of {c.id}", c.weight, new


def _rows(kind: type, field: str) -> Callable[[Instance], list[tuple[int, int]]]:
    def find(instance: Instance) -> list[tuple[int, int]]:
        return [(i, k) for i, c in enumerate(instance.constraints) if isinstance(c, kind) and c.active
                for k in range(len(getattr(c, field)))]
    return find


def _row_change(instance: Instance, rng: random.Random, kind: type, field: str, attr: str, strength: float,
                soft_only: bool = True) -> Change | None:
    """One row field (a due date, a cost, a demand) of a constraint of ``kind`` moved by a random step."""
    candidates = [(i, k) for i, k in _rows(kind, field)(instance)
                  if not (soft_only and instance.constraints[i].hard)
                  and isinstance(getattr(getattr(instance.constraints[i], field)[k], attr), int)]
    if not candidates:
        return None
    i, k = rng.choice(candidates)
    c = instance.constraints[i]
    rows = list(getattr(c, field))
    old = getattr(rows[k], attr)
    new = _step(old, rng, strength)
    if new == old:
        return None
    rows[k] = msgspec.structs.replace(rows[k], **{attr: new})
    return _with(instance, i, msgspec.structs.replace(c, **{field: tuple(rows)})), \
        f"{attr} of row {k + 1} of {c.id}", old, new


def _due(instance: Instance, rng: random.Random, strength: float) -> Change | None:
    return _row_change(instance, rng, Tardiness, "due_dates", "due", strength)


def _cost(instance: Instance, rng: random.Random, strength: float) -> Change | None:
    return _row_change(instance, rng, AssignmentCost, "entries", "cost", max(strength, 1.0))


def _demand(instance: Instance, rng: random.Random, strength: float) -> Change | None:
    return _row_change(instance, rng, Coverage, "requirements", "min", strength, soft_only=False)


def _maximum(instance: Instance, rng: random.Random, strength: float) -> Change | None:
    candidates = [i for i, c in enumerate(instance.constraints)
                  if isinstance(c, ConsecutiveRunBounds | CountBounds) and c.active and isinstance(c.max, int)]
    if not candidates:
        return None
    i = rng.choice(candidates)
    c = instance.constraints[i]
    new = _step(c.max, rng, strength)  # type: ignore[attr-defined]
    if new == c.max:  # type: ignore[attr-defined]
        return None
    return _with(instance, i, msgspec.structs.replace(c, max=new)), f"max of {c.id}", c.max, new  # type: ignore


OPERATORS: tuple[Operator, ...] = (_duration, _capacity, _soft_weight, _due, _cost, _demand, _maximum)


def _keeps(instance: Instance, family: Family, certificate: Solution) -> bool:
    """Whether ``instance`` is valid and the certificate is a feasible schedule of it."""
    try:
        check_instance(instance, family)
    except SchedcError:
        return False
    return evaluate(make_context(instance, family), certificate).feasible


def sat_variant(instance: Instance, family: Family, certificate: Solution, rng: random.Random,
                strength: float = 0.2) -> tuple[Instance, list[str]]:
    """The base with 1–3 random changes the certificate keeps feasible (fewer when proposals keep failing).

    Changes of one item compose: the change list says each item's net change, and an item moved back
    to its base value is not listed.
    """
    wanted = rng.randint(1, 3)
    net: dict[str, list[int]] = {}
    current = instance
    for _ in range(ATTEMPTS):
        if sum(1 for old, new in net.values() if old != new) >= wanted:
            break
        proposed = rng.choice(OPERATORS)(current, rng, strength)
        if proposed is None or proposed[2] == proposed[3] or not _keeps(proposed[0], family, certificate):
            continue
        current, label, old, new = proposed
        net.setdefault(label, [old, new])[1] = new
    return current, [f"{label}: {old} -> {new}" for label, (old, new) in net.items() if old != new]


def sat_instances(instance: Instance, family: Family, count: int, seed: int, time_limit: float,
                  strength: float = 0.2, workers: int = 2) -> list[tuple[Instance, dict[str, Any], Solution]]:
    """Up to ``count`` sat variants of ``instance``, each with its manifest record (no ``file`` yet) and the
    certificate (the base's CP-SAT schedule, feasible for every variant).

    The variant's ``meta bks`` is its re-solved objective (``optimal`` when CP-SAT proves it, else
    ``upper_bound``): a verified schedule of that value exists. A re-solve stopped by the time limit
    with a worse value than the certificate's (or none) gives way to the certificate's value.
    """
    base = solve_instance(instance, family, time_limit, seed, workers)
    if base.solution is None:
        raise SchedcError.at("E804", f"{instance.name}: CP-SAT found no schedule in {time_limit:g} s "
                             f"(status {base.status}), so no certificate keeps a variant feasible",
                             hint="a longer --time-limit, or perturb a feasible instance")
    rng = random.Random(seed)
    out = []
    for k in range(1, count + 1):
        changed, changes = sat_variant(instance, family, base.solution, rng, strength)
        if not changes:
            continue
        name = f"{instance.name}_sat_{k}"
        variant = derived(changed, name, "sat", seed, changes)
        reference = evaluate(make_context(variant, family), base.solution)
        if not reference.feasible:  # the certificate is the proof: never write a variant it does not hold for
            raise AssertionError(f"{name}: the reference schedule is infeasible after the changes {changes}")
        solved = solve_instance(variant, family, time_limit, seed, workers)
        status, objective = solved.status, solved.objective
        if status != "optimal" and reference.objective is not None and (objective is None
                                                                         or reference.objective < objective):
            status, objective = "feasible", reference.objective  # a re-solve cut short is no better than the proof
        if objective is not None:
            kind = "optimal" if status == "optimal" else "upper_bound"
            variant = msgspec.structs.replace(variant, meta=msgspec.structs.replace(
                variant.meta, bks=objective, bks_kind=kind, bks_source="CP-SAT, verified"))
        out.append((variant, {"name": name, "mode": "sat", "changes": changes,
                              "status": status, "objective": objective,
                              "reference_objective": reference.objective, "base_objective": base.objective,
                              "optimum_moved": objective != base.objective
                              if status == base.status == "optimal" else None,
                              "proof": "verified (reference schedule and re-solved schedule)"}, base.solution))
    return out


def sat_records(instance: Instance, family: Family, outdir: Path, count: int, seed: int, time_limit: float,
                search: Sequence[Path], strength: float = 0.2) -> list[dict[str, Any]]:
    """Write ``count`` sat variants of ``instance``; their manifest records."""
    from schedc.importers.common import write_atomic
    from schedc.verify.verifier import Verifier

    records = []
    made = sat_instances(instance, family, count, seed, time_limit, strength)
    for variant, record, _certificate in made:
        path = outdir / f"{variant.name}.sched"
        write_instance(variant, family, path, search)
        records.append({"file": path.name, **record, "certificate": f"{instance.name}_certificate.txt"})
    if made:  # the certificate as an answer in canonical names: `schedc check VARIANT CERTIFICATE` accepts it
        write_atomic(outdir / f"{instance.name}_certificate.txt", Verifier(instance, family).write(made[0][2]))
    return records
