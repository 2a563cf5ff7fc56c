"""ITC-2007 examination track ``.exam`` → IR (family ``itc2007_exam``).

Exams are the agents (``E0`` … in file order, 0-based as the format numbers them), rooms the values
(``R0`` …); the file's periods become a calendar of days (one per distinct date, in date order) with as
many periods as the longest day: a shorter day's last periods are closed to every exam (hard
``slot_cost missing_periods``) and the period spread skips them (``spacing`` day lengths). Students
enter only through their counts: each exam's ``students`` attribute, and one ``overlap`` entity per pair
of exams sharing students (``X<a>_<b>``, members the two exams, ``students`` the number shared) — the
compiled conflict table.

Hard rules: every exam once (``count_bounds``); conflicting exams in different periods
(``slot_conflict`` over the overlaps); an exam only in a period at least as long as it
(``unavailability`` rows for the shorter periods); the students of the exams in one room and period
within its capacity, ROOM_EXCLUSIVE exams alone (``shared_capacity``); AFTER, EXCLUSION and
EXAM_COINCIDENCE (``slot_order``, repeated rows kept once). Soft costs with the file's weightings:
TWOINAROW, TWOINADAY and PERIODSPREAD (``spacing`` within row, day and gap), NONMIXEDDURATIONS
(``value_mix``), FRONTLOAD, period and room penalties (``slot_cost``). A component of weight 0 is left out.

Front load: the ``n_largest`` exams by number of students (ties in file order) placed in one of the last
``n_last_periods`` periods cost the FRONTLOAD weight each.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

from schedc.core.diagnostics import SchedcError
from schedc.importers.common import BksRow, all_of, checked, make_meta
from schedc.importers.itc2007_exam_reader import ExamData, read_exam
from schedc.ir import Calendar, Entity, Instance, Objective
from schedc.kinds import (
    CountBounds,
    DayLength,
    OnePerSlot,
    OrderRow,
    SharedCapacity,
    SlotConflict,
    SlotCost,
    SlotCostRow,
    SlotOrder,
    Spacing,
    Unavailability,
    Unavailable,
    ValueMix,
)
from schedc.kinds.base import Constraint


def import_itc2007_exam(path: str | Path, bks: dict[str, BksRow] | None = None) -> Instance:
    """Import one ``.exam`` file."""
    data = read_exam(path)
    return checked(exam_to_ir(data, Path(path), bks))


def calendar_of(data: ExamData) -> tuple[dict[int, tuple[int, int]], list[int]]:
    """Period k → (day, period of the day), one day per date in date order; and each day's number of periods.

    The calendar has as many periods a day as the longest day; on a shorter day the last periods do not
    exist (no exam may use them, and the period spread does not count them)."""
    dates = sorted({p.date for p in data.periods})
    day_of = {date: d for d, date in enumerate(dates)}
    lengths = [0] * len(dates)
    slot = {}
    for k, p in enumerate(data.periods):
        d = day_of[p.date]
        slot[k] = (d, lengths[d])
        lengths[d] += 1
    return slot, lengths


def overlaps(data: ExamData) -> dict[tuple[int, int], int]:
    """(a, b) with a < b → the number of students enrolled in both exams (pairs sharing none are absent)."""
    by_student: dict[str, list[int]] = {}
    for i, exam in enumerate(data.exams):
        for s in dict.fromkeys(exam.students):
            by_student.setdefault(s, []).append(i)
    shared: dict[tuple[int, int], int] = {}
    for exams in by_student.values():
        for a, b in combinations(exams, 2):
            shared[(a, b)] = shared.get((a, b), 0) + 1
    return dict(sorted(shared.items()))


def exam_to_ir(data: ExamData, path: Path, bks: dict[str, BksRow] | None) -> Instance:
    """Convert a read ``.exam`` record into an ``itc2007_exam`` instance."""
    slot, lengths = calendar_of(data)
    per_day = max(lengths, default=1)
    exclusive = set(data.exclusive)
    pairs = overlaps(data)
    entities = (
        [Entity(name=f"E{i}", cls="exam", attrs={"duration": e.duration, "students": len(set(e.students)),
                                                 "exclusive": int(i in exclusive)})
         for i, e in enumerate(data.exams)]
        + [Entity(name=f"R{i}", cls="room", attrs={"capacity": r.capacity}) for i, r in enumerate(data.rooms)]
        + [Entity(name=f"X{a}_{b}", cls="overlap", attrs={"members": (f"E{a}", f"E{b}"), "students": n})
           for (a, b), n in pairs.items()]
    )
    short = tuple(Unavailable(agent=f"E{i}", day=slot[k][0], period=slot[k][1])
                  for i, e in enumerate(data.exams) for k, p in enumerate(data.periods) if e.duration > p.duration)
    constraints: list[Constraint] = [
        CountBounds(id="every_exam_once", agents=all_of("exam"), min=1, max=1),
        OnePerSlot(id="one_room_per_exam", per="agent"),
        SlotConflict(id="conflicts", groups="overlap"),
        Unavailability(id="period_duration", slots=short),
        SharedCapacity(id="room_capacity", demand="students", capacity="capacity",
                       exclusive="exclusive" if exclusive else None),
    ]
    missing = tuple(SlotCostRow(agent="*", day=d, period=p, value="*", cost=1)
                    for d, n in enumerate(lengths) for p in range(n, per_day))
    if missing:
        constraints.append(SlotCost(id="missing_periods", rows=missing))
    if data.period_rules:
        # the files repeat some rows: each is kept once
        rows = dict.fromkeys((f"E{r.first}", r.relation, f"E{r.second}") for r in data.period_rules)
        constraints.append(SlotOrder(id="period_constraints", rows=tuple(
            OrderRow(first=a, relation=rel, second=b) for a, rel, b in rows)))  # type: ignore[arg-type]
    constraints += _soft(data, slot, tuple(DayLength(day=d, periods=n) for d, n in enumerate(lengths) if n < per_day))
    return Instance(name=path.stem, family="itc2007_exam",
                    meta=make_meta(path.stem, f"ITC-2007 examination {path.name}", bks),
                    calendar=Calendar(days=len(lengths), periods_per_day=per_day), entities=tuple(entities),
                    constraints=tuple(constraints), objective=Objective(measure="penalty"))


def _soft(data: ExamData, slot: dict[int, tuple[int, int]], short: tuple[DayLength, ...]) -> list[Constraint]:
    w = data.weightings
    out: list[Constraint] = []
    spacing = (("two_in_a_row", "row", w["TWOINAROW"][0], 1), ("two_in_a_day", "day", w["TWOINADAY"][0], 1),
               ("period_spread", "gap", 1 if w["PERIODSPREAD"][0] else 0, w["PERIODSPREAD"][0]))
    for cid, within, weight, gap in spacing:
        if weight:
            out.append(Spacing(id=cid, hard=False, weight=weight, groups="overlap", size="students",
                               within=within, gap=max(gap, 1),  # type: ignore[arg-type]
                               lengths=short if within == "gap" else ()))
    if w["NONMIXEDDURATIONS"][0]:
        out.append(ValueMix(id="mixed_durations", hard=False, weight=w["NONMIXEDDURATIONS"][0], attr="duration"))
    largest, last, weight = w["FRONTLOAD"]
    if largest and last and weight:
        sizes = sorted(range(len(data.exams)), key=lambda i: -len(set(data.exams[i].students)))[:largest]
        periods = range(max(0, len(data.periods) - last), len(data.periods))
        out.append(SlotCost(id="front_load", hard=False, weight=weight, rows=tuple(
            SlotCostRow(agent=f"E{i}", day=slot[k][0], period=slot[k][1], value="*", cost=1)
            for i in sorted(sizes) for k in periods)))
    period_rows = tuple(SlotCostRow(agent="*", day=slot[k][0], period=slot[k][1], value="*", cost=p.penalty)
                        for k, p in enumerate(data.periods) if p.penalty)
    if period_rows:
        out.append(SlotCost(id="period_penalty", hard=False, weight=1, rows=period_rows))
    room_rows = tuple(SlotCostRow(agent="*", day=-1, period=-1, value=f"R{i}", cost=r.penalty)
                      for i, r in enumerate(data.rooms) if r.penalty)
    if room_rows:
        out.append(SlotCost(id="room_penalty", hard=False, weight=1, rows=room_rows))
    return out


def exam_solution_answer(data: ExamData, text: str, file: str = "<solution>") -> str:
    """An ITC-2007 examination solution (one line ``period, room`` per exam, in exam order, 0-based) as an
    answer of the imported instance (``E<i>|R<r>|<day>|<period>``)."""
    slot, _ = calendar_of(data)
    lines = [line for line in text.splitlines() if line.strip()]
    out = []
    for i, line in enumerate(lines):
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 2 or not all(p.isdigit() for p in parts) or int(parts[0]) not in slot:
            raise SchedcError.at("I970", f"expected 'period, room' with a period below {len(slot)}, "
                                 f"found {line.strip()!r}", file=file, line=i + 1, column=1)
        day, period = slot[int(parts[0])]
        out.append(f"E{i}|R{parts[1]}|{day}|{period}")
    return "\n".join(out) + "\n"
