"""NSPLib problem file ``.nsp`` + case file ``.gen`` → IR (family ``nsplib``).

Following the convention of ``reference/nsplib.md``: every case rule is hard, coverage is a
minimum, runs touching the horizon ends are judged by their observed length, and the
objective is the preference cost of every assignment (the day off included). Nurses are
``N1…``, working shift types ``S1…S<S-1>`` and the free shift ``Off`` (canonical ``Nurse n``,
``Shift s``, ``Off``). Vacuous bounds (a minimum run of 0 or 1, a maximum of at least the
horizon, a count range covering 0..D) are dropped; a rule left without bounds is omitted.
The instance is named ``<nsp stem>_<k>_case<c>`` after both files (``n25_1_case2`` for
``N25/1.nsp`` with ``Cases/2.gen``).
"""

from __future__ import annotations

from pathlib import Path

from schedc.importers.common import BksRow, all_of, checked, make_meta
from schedc.importers.nsplib_reader import GenCase, NspData, check_pair, read_gen, read_nsp
from schedc.ir import Calendar, Entity, Instance, Objective
from schedc.kinds import (
    AssignmentCost,
    ConsecutiveRunBounds,
    Constraint,
    CostEntry,
    CountBounds,
    Coverage,
    OnePerSlot,
    Requirement,
    ValueFilter,
)

FREE = "Off"


def nsplib_instance_name(nsp: Path, gen: Path) -> str:
    """``n25_1_case2`` for ``N25/1.nsp`` + ``Cases/2.gen`` (the SCHEDBench naming)."""
    return f"{nsp.resolve().parent.name.lower()}_{nsp.stem}_case{gen.stem}"


def import_nsplib(nsp_path: str | Path, gen_path: str | Path, bks: dict[str, BksRow] | None = None) -> Instance:
    """Import one (problem file, case file) pair."""
    nsp_path, gen_path = Path(nsp_path), Path(gen_path)
    nsp, gen = read_nsp(nsp_path), read_gen(gen_path)
    check_pair(nsp, gen, nsp_path, gen_path)
    name = nsplib_instance_name(nsp_path, gen_path)
    source = f"NSPLib {nsp_path.parent.name}/{nsp_path.name} + {gen_path.parent.name}/{gen_path.name}"
    return checked(nsplib_to_ir(name, nsp, gen, make_meta(name, source, bks)))


def shift_names(n_shifts: int) -> list[str]:
    """Names of the shift types, the free shift last."""
    return [f"S{s}" for s in range(1, n_shifts)] + [FREE]


def nsplib_to_ir(name: str, nsp: NspData, gen: GenCase, meta: object) -> Instance:
    """Convert a read (problem, case) pair into an ``nsplib`` instance."""
    shifts = shift_names(nsp.n_shifts)
    nurses = [f"N{n}" for n in range(1, nsp.n_nurses + 1)]
    entities = [Entity(name=s, cls="shift") for s in shifts] + [Entity(name=n, cls="nurse") for n in nurses]
    cover = tuple(Requirement(day=d, period=None, value=shifts[s], min=need, max=None)
                  for d, row in enumerate(nsp.coverage) for s, need in enumerate(row)
                  if need > 0 or s < nsp.n_shifts - 1)
    constraints: list[Constraint] = [
        OnePerSlot(id="one_shift_per_day", per="agent", exactly=True),
        Coverage(id="coverage", requirements=cover),
    ]
    days = nsp.n_days
    constraints += _rules("working", ValueFilter(mode="work"), days, gen.min_assignments, gen.max_assignments,
                          gen.min_consecutive_working, gen.max_consecutive_working)
    for s, rule in enumerate(gen.shift_rules):
        values = ValueFilter(mode="values", values=(shifts[s],))
        constraints += _rules(shifts[s], values, days, rule.min_assignments, rule.max_assignments,
                              rule.min_consecutive, rule.max_consecutive)
    entries = tuple(CostEntry(agent=nurses[n], day=d, value=shifts[s], cost=cost)
                    for n, per_day in enumerate(nsp.preferences) for d, per_shift in enumerate(per_day)
                    for s, cost in enumerate(per_shift))
    constraints.append(AssignmentCost(id="preferences", hard=False, weight=1, entries=entries, layout="dense"))
    return Instance(name=name, family="nsplib", meta=meta, calendar=Calendar(days=days),  # type: ignore[arg-type]
                    entities=tuple(entities), constraints=tuple(constraints), objective=Objective(measure="penalty"))


def _rules(label: str, values: ValueFilter, days: int, min_count: int, max_count: int, min_run: int,
           max_run: int) -> list[Constraint]:
    """Count and run bounds of one shift type (or of working days), vacuous bounds dropped."""
    out: list[Constraint] = []
    lo = min_count if min_count > 0 else None
    hi = max_count if max_count < days else None
    if lo is not None or hi is not None:
        out.append(CountBounds(id=f"{label}_count", agents=all_of("nurse"), values=values, min=lo, max=hi))
    run_lo = min_run if min_run > 1 else None
    run_hi = max_run if max_run < days else None
    if run_lo is not None or run_hi is not None:
        out.append(ConsecutiveRunBounds(id=f"{label}_runs", agents=all_of("nurse"), values=values,
                                        min=run_lo, max=run_hi))
    return out
