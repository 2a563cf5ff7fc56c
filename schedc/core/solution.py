"""Decisions of a schedule, independent of how they were written.

An interval family decides a start time and a mode per activity; a slot family decides a
set of assignments ``x[agent, slot, value] = 1``. Answer parsers, solution-file readers and
solver backends all produce a :class:`Solution`; constraint kinds judge it.
"""

from __future__ import annotations

import msgspec


class Assignment(msgspec.Struct, frozen=True, array_like=True):
    """``x[agent, (day, period), value] = 1`` (``period`` is 0 in day-grained families)."""

    agent: str
    day: int
    period: int
    value: str


class Solution(msgspec.Struct, frozen=True, kw_only=True):
    """A (possibly partial) schedule.

    ``starts``/``modes``: start time and 1-based mode number per activity (interval
    families); ``assignments``: the slot assignments (slot families), in answer order;
    ``workers``: the team of workers named for each activity (``skill_requirements``), in answer order.
    """

    starts: dict[str, int] = {}
    modes: dict[str, int] = {}
    workers: dict[str, tuple[str, ...]] = {}
    assignments: tuple[Assignment, ...] = ()
