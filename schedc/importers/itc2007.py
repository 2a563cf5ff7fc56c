"""ITC-2007 track 3 ``.ctt`` → IR (family ``itc2007``, UD2 weights of the official validator).

Courses, rooms and curricula become entities; the hard rules Lectures, Conflicts,
Availability and RoomOccupancy and the soft costs RoomCapacity (×1), MinWorkingDays (×5),
CurriculumCompactness (×2) and RoomStability (×1) become one constraint each (see
``reference/itc2007.md``). Teacher conflicts are not listed in the file: the
``slot_conflict`` rule derives them from equal ``teacher`` attributes. The instance is named
after the file (``comp01``); the file's ``Name:`` field is kept in ``meta.source``.
"""

from __future__ import annotations

from pathlib import Path

from schedc.importers.common import BksRow, all_of, checked, make_meta
from schedc.importers.itc2007_reader import CttData, read_ctt
from schedc.ir import Calendar, Entity, Instance, Objective
from schedc.kinds import (
    AttrRef,
    CapacityOverflow,
    Compactness,
    CountBounds,
    OnePerSlot,
    SlotConflict,
    Spread,
    Stability,
    Unavailability,
    Unavailable,
)


def import_itc2007(path: str | Path, bks: dict[str, BksRow] | None = None) -> Instance:
    """Import one ``.ctt`` file."""
    data = read_ctt(path)
    return checked(ctt_to_ir(data, Path(path), bks))


def ctt_to_ir(data: CttData, path: Path, bks: dict[str, BksRow] | None) -> Instance:
    """Convert a read ``.ctt`` record into an ``itc2007`` instance."""
    name = path.stem
    entities = (
        [Entity(name=c.id, cls="course", attrs={"teacher": c.teacher, "lectures": c.lectures,
                                                "min_days": c.min_days, "students": c.students})
         for c in data.courses]
        + [Entity(name=r.id, cls="room", attrs={"capacity": r.capacity}) for r in data.rooms]
        + [Entity(name=q.id, cls="curriculum", attrs={"members": q.members}) for q in data.curricula]
    )
    courses = all_of("course")
    constraints = (
        CountBounds(id="lectures", agents=courses, min=AttrRef(attr="lectures"), max=AttrRef(attr="lectures")),
        OnePerSlot(id="one_lecture_per_period", per="agent"),
        SlotConflict(id="conflicts", groups="curriculum", by="teacher"),
        Unavailability(id="availability", slots=tuple(Unavailable(agent=u.course, day=u.day, period=u.period)
                                                      for u in data.unavailability)),
        OnePerSlot(id="room_occupancy", per="value"),
        CapacityOverflow(id="room_capacity", hard=False, weight=1, demand="students", capacity="capacity"),
        Spread(id="min_working_days", hard=False, weight=5, agents=courses, min=AttrRef(attr="min_days")),
        Compactness(id="curriculum_compactness", hard=False, weight=2, groups="curriculum"),
        Stability(id="room_stability", hard=False, weight=1, agents=courses, max=1),
    )
    return Instance(name=name, family="itc2007", meta=make_meta(name, f"ITC-2007 {path.name} ({data.name})", bks),
                    calendar=Calendar(days=data.days, periods_per_day=data.periods_per_day),
                    entities=tuple(entities), constraints=constraints, objective=Objective(measure="penalty"))
