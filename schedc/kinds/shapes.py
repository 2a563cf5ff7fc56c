"""What the constraint kinds read of an instance and its family, as protocols.

The IR (:mod:`schedc.ir`) holds constraints of these kinds, so it imports them; the kinds may not
import the IR back, not even for type hints (the stage order of the package, enforced by
``tests/test_import_graph.py``). Their functions take anything shaped like an instance, and the
IR's classes (:class:`~schedc.ir.Instance`, :class:`~schedc.ir.Activity`, :class:`~schedc.ir.Family`)
are. Only what the kinds read is listed; nested IR nodes are typed loosely.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from schedc.kinds.base import Constraint


class UseShape(Protocol):
    """A mode's use of a resource: ``amount`` units of ``resource`` while the activity runs."""

    @property
    def resource(self) -> str: ...
    @property
    def amount(self) -> int: ...


class ModeShape(Protocol):
    """One way to run an activity: its duration and resource uses."""

    @property
    def duration(self) -> int: ...
    @property
    def uses(self) -> Sequence[UseShape]: ...


class ActivityShape(Protocol):
    """An activity: its name, its modes and its place on a job route (step ``step`` of ``job``)."""

    @property
    def name(self) -> str: ...
    @property
    def modes(self) -> Sequence[ModeShape]: ...
    @property
    def job(self) -> str | None: ...
    @property
    def step(self) -> int | None: ...


class CalendarShape(Protocol):
    """A slot calendar: days of ``periods_per_day`` periods, with optional dates or weekdays."""

    @property
    def days(self) -> int: ...
    @property
    def periods_per_day(self) -> int: ...
    @property
    def start_date(self) -> _dt.date | None: ...
    @property
    def slots(self) -> int: ...
    def weekday(self, day: int) -> str | None: ...


class InstanceShape(Protocol):
    """An instance as the kinds read it."""

    @property
    def name(self) -> str: ...
    @property
    def activities(self) -> Sequence[ActivityShape]: ...
    @property
    def resources(self) -> Sequence[Any]: ...
    @property
    def entities(self) -> Sequence[Any]: ...
    @property
    def constraints(self) -> Sequence[Constraint]: ...
    @property
    def calendar(self) -> CalendarShape | None: ...
    @property
    def objective(self) -> Any: ...


class FamilyShape(Protocol):
    """A family spec as the kinds read it: how days are shown and what a slot family decides."""

    @property
    def day_names(self) -> str: ...
    @property
    def decision(self) -> Any: ...
