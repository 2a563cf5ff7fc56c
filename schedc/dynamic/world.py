"""The realised world of a dynamic flexible job shop instance.

A :class:`World` is what the generator produces and what metrics, the simulator and the
``.sched`` conversion read. It is *realised*: every value is final (the due date after the
last due-date change, the processing times after the last processing-time change, the
eligible machines after the last route change); :class:`Event` records say when each
piece of information becomes known to an online dispatcher and what it replaced.

Event semantics (chosen so that the realised static instance does not depend on the
dispatching policy: every online trajectory that respects what it knew is a valid
schedule of the realised instance):

* ``arrival``/``batch_arrival`` — job(s) become known at their release date.
* ``cancel`` — at ``time`` the job is withdrawn: its operations in progress are aborted and
  the rest are never processed. Cancelled jobs are *not* part of :attr:`World.jobs`; they are
  kept in :attr:`World.cancelled` so a simulator can process them until they are withdrawn.
* ``rework`` — at ``time`` an extra operation is appended to the job's route (released at
  ``time``); it is a normal operation of the realised job with ``release = time``.
* ``priority_change`` / ``due_date_change`` — the job's weight / due date from ``time`` on;
  ``old`` holds the previous value, the job holds the final one.
* ``processing_time_change`` — at ``time`` the true processing times of an operation are
  revealed (``old`` holds the estimate, as ``machine:duration`` pairs); execution always
  takes the true (realised) times.
* ``route_change`` — at ``time`` an alternative machine group opens for an operation: its
  realised eligible machines are the old ones plus the new ones (routes never close, so a
  choice made before ``time`` stays valid).
* ``breakdown`` / ``maintenance`` — machine outages; realised as :class:`Outage` intervals,
  known from their start (breakdown) or from time 0 (planned maintenance).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

EventType = Literal["batch_arrival", "cancel", "rework", "priority_change", "due_date_change",
                    "processing_time_change", "route_change", "breakdown", "maintenance"]
OutageCause = Literal["breakdown", "maintenance"]


@dataclass(frozen=True)
class Machine:
    """A machine of group ``group`` working at ``speed`` work units per time unit (1.0 nominal)."""

    name: str
    group: str
    speed: float


@dataclass(frozen=True)
class Operation:
    """Step ``step`` (1-based) of job ``job``, processable on machine group ``group``.

    ``durations`` lists (machine, integer processing time) in mode order: mode k of the
    ``.sched`` activity is ``durations[k-1]``. ``release`` > 0 only for rework operations.
    """

    name: str
    job: str
    step: int
    group: str
    durations: tuple[tuple[str, int], ...]
    release: int = 0


@dataclass(frozen=True)
class Job:
    """A job: released at ``release``, due at ``due``, tardiness weight ``weight``, made from
    process template ``template``; its operations form a chain in step order."""

    name: str
    release: int
    due: int
    weight: int
    template: str
    operations: tuple[Operation, ...]


@dataclass(frozen=True)
class Outage:
    """Machine ``machine`` is unavailable during ``[start, end)``."""

    machine: str
    start: int
    end: int
    cause: OutageCause


@dataclass(frozen=True)
class Event:
    """Something an online dispatcher learns at ``time``. ``job``/``op`` name what it concerns
    (``None`` when not applicable); ``old`` the value it replaces, ``new`` the realised one
    (free text in the forms listed in the module docstring)."""

    time: int
    type: EventType
    job: str | None = None
    op: str | None = None
    old: str = ""
    new: str = ""


@dataclass(frozen=True)
class World:
    """One realised dynamic flexible job shop instance.

    ``horizon`` is the arrival window H (jobs are released in ``[0, H)``); ``objective`` is
    what the instance minimises.
    """

    name: str
    machines: tuple[Machine, ...]
    jobs: tuple[Job, ...]
    outages: tuple[Outage, ...] = ()
    events: tuple[Event, ...] = ()
    cancelled: tuple[Job, ...] = ()
    horizon: int = 0
    objective: Literal["makespan", "tardiness"] = "makespan"
    seed: int | None = None
    meta: dict[str, str] = field(default_factory=dict)

    def machine(self, name: str) -> Machine:
        return next(m for m in self.machines if m.name == name)

    def operation_work(self, op: Operation) -> float:
        """Work content of an operation: the mean over its eligible machines of duration × speed.

        Metrics read work only through this function, so a world rebuilt from its ``.sched``
        text has exactly the metrics of the world that was written.
        """
        speeds = {m.name: m.speed for m in self.machines}
        return sum(d * speeds[m] for m, d in op.durations) / len(op.durations)
