"""A dynamic flexible job shop world as an ordinary ``dfjsp`` instance, and back.

The realised world becomes a static instance that every backend, renderer and verifier
handles: jobs with one mode per eligible machine, route precedences, machine exclusivity,
release dates (``time_window``: a job's arrival, a rework step's appearance), machine outages
(``resource_downtime``, labelled ``breakdown`` or ``maintenance``), due dates and weights
(``tardiness``; the objective decides whether it is minimised or only reported), machine
groups and speeds (``machine`` entities) and the event log (``event`` entities).

Event rows are ``E<k> TIME KIND SUBJECT DETAIL`` where DETAIL lists what was known before:

========  ===========================  ==========================================================
kind      subject                      detail
========  ===========================  ==========================================================
batch     first job of the batch       the batch size
cancel    the withdrawn job            ``-`` (its work is not part of the realised instance)
rework    the appended operation       ``-``
priority  the job                      the previous weight
due       the job                      the previous due date
estimate  the operation                the estimated durations, in mode order
route     the operation                the machine group that opened
========  ===========================  ==========================================================

Breakdowns and maintenance are not repeated in the log: the downtime labels say which is
which (a breakdown is learnt when it starts, maintenance is planned from time 0). A world read
back from its instance equals the written one, except that a cancelled job comes back without
operations (the instance does not carry work that was withdrawn) and jobs without the name of
their process template (``schedc generate`` writes the whole world as JSON beside the instance).
A hand-written instance may leave out the machine rows (every machine is then its own group at
nominal speed) and the arrival window (it is then the time after the last release).
"""

from __future__ import annotations

from collections.abc import Iterator

from schedc.core.diagnostics import Diagnostic, SchedcError
from schedc.dynamic.world import Event, Job, Machine, Operation, Outage, World
from schedc.ir import Activity, Entity, Instance, Meta, Mode, Objective, Resource, Use
from schedc.kinds import (
    Downtime,
    DueDate,
    Edge,
    ModeChoice,
    PrecedenceLag,
    ResourceDowntime,
    Tardiness,
    TimeWindow,
    UnaryNoOverlap,
    Window,
)

KIND_OF_EVENT = {"batch_arrival": "batch", "cancel": "cancel", "rework": "rework", "priority_change": "priority",
                 "due_date_change": "due", "processing_time_change": "estimate", "route_change": "route"}
"""World event type → the ``kind`` word of its log row (outage events are carried as downtime)."""
EVENT_OF_KIND = {word: event for event, word in KIND_OF_EVENT.items()}


# --------------------------------------------------------------------------- world → instance


def world_to_instance(world: World) -> Instance:
    """The realised static instance of ``world`` (family ``dfjsp``)."""
    activities = tuple(_activity(op) for job in world.jobs for op in job.operations)
    objective = "makespan" if world.objective == "makespan" else "penalty"
    constraints = (
        PrecedenceLag(id="routes", edges=tuple(_route_edges(world))),
        UnaryNoOverlap(id="machines"),
        ModeChoice(id="modes"),
        TimeWindow(id="releases", windows=tuple(_windows(world))),
        ResourceDowntime(id="outages", windows=tuple(Downtime(resource=o.machine, start=o.start, end=o.end,
                                                              label=o.cause) for o in world.outages)),
        Tardiness(id="due_dates", hard=False, weight=1,
                  due_dates=tuple(DueDate(target=j.name, due=j.due, weight=j.weight) for j in world.jobs)),
    )
    return Instance(name=world.name, family="dfjsp", meta=_meta(world),
                    resources=tuple(Resource(name=m.name, kind="unary") for m in world.machines),
                    activities=activities, entities=(*_machines(world), *_events(world)),
                    constraints=tuple(c for c in constraints if not _empty(c)),
                    objective=Objective(measure=objective))  # type: ignore[arg-type]


def _activity(op: Operation) -> Activity:
    return Activity(name=op.name, job=op.job, step=op.step,
                    modes=tuple(Mode(duration=d, uses=(Use(resource=m),)) for m, d in op.durations))


def _route_edges(world: World) -> Iterator[Edge]:
    for job in world.jobs:
        for before, after in zip(job.operations, job.operations[1:], strict=False):
            yield Edge(before=before.name, after=after.name)


def _windows(world: World) -> Iterator[Window]:
    for job in world.jobs:
        if job.release > 0:
            yield Window(target=job.name, release=job.release)
        for op in job.operations:
            if op.release > job.release:
                yield Window(target=op.name, release=op.release)


def _empty(c: object) -> bool:
    """A table kind with no rows says nothing; it is left out of the instance."""
    rows = {TimeWindow: "windows", ResourceDowntime: "windows", Tardiness: "due_dates", PrecedenceLag: "edges"}
    field = rows.get(type(c))
    return field is not None and not getattr(c, field)


def _meta(world: World) -> Meta:
    seed = f", seed {world.seed}" if world.seed is not None else ""
    source = world.meta.get("source", "schedc generate")
    return Meta(source=f"{source}{seed}; arrival window {world.horizon}")


def _machines(world: World) -> Iterator[Entity]:
    for m in world.machines:
        percent = round(m.speed * 100)
        if abs(percent - m.speed * 100) > 1e-6:
            raise SchedcError.at("E801", f"machine {m.name}: speed {m.speed} has more than two decimals "
                                 "(instances store it in whole percent)")
        yield Entity(name=m.name, cls="machine", attrs={"group": m.group, "speed": percent})


def _events(world: World) -> Iterator[Entity]:
    ops = {op.name: op for job in world.jobs for op in job.operations}
    realised = {job.name for job in world.jobs}
    # events about withdrawn work (a cancelled job's changes) are not part of the realised instance
    logged = [e for e in world.events if e.type in KIND_OF_EVENT and (e.type == "cancel" or e.job in realised)]
    for k, e in enumerate(sorted(logged, key=lambda e: e.time), start=1):
        subject = e.op if e.type in ("rework", "processing_time_change", "route_change") else e.job
        if subject is None:
            raise SchedcError.at("E801", f"{e.type} event at time {e.time} names no "
                                 f"{'operation' if e.op is None else 'job'}")
        yield Entity(name=f"E{k}", cls="event", attrs={"time": e.time, "kind": KIND_OF_EVENT[e.type],
                                                      "subject": subject, "detail": _detail(e, ops)})


def _detail(e: Event, ops: dict[str, Operation]) -> tuple[str, ...]:
    """What the log row says was known before the event (see the module table)."""
    if e.type in ("priority_change", "due_date_change", "batch_arrival"):
        return (str(int(float(e.old or e.new))),)
    if e.type == "processing_time_change":
        estimates = dict(_pairs(e.old))
        op = ops[e.op or ""]
        return tuple(str(estimates.get(m, d)) for m, d in op.durations)
    if e.type == "route_change":
        op = ops[e.op or ""]
        return (e.new or op.group,)
    return ()


def _pairs(text: str) -> list[tuple[str, int]]:
    """``M1:5 M2:6`` (blank- or slash-separated) as (machine, duration) pairs."""
    out = []
    for token in text.replace("/", " ").split():
        machine, _, duration = token.partition(":")
        out.append((machine, int(duration)))
    return out


# --------------------------------------------------------------------------- instance → world


def instance_to_world(instance: Instance) -> World:
    """The world an instance of family ``dfjsp`` describes (inverse of :func:`world_to_instance`)."""
    if instance.family != "dfjsp":
        raise SchedcError.at("E802", f"{instance.name} is a {instance.family} instance; dynamic worlds are read "
                             "from dfjsp instances")
    machines = _plant(instance)
    groups = {m.name: m.group for m in machines}
    releases, dues, outages = _time_rows(instance)
    ops: dict[str, list[Operation]] = {}
    for a in instance.activities:
        durations = tuple((m.uses[0].resource, m.duration) for m in a.modes)
        group = groups.get(durations[0][0], "")
        ops.setdefault(a.job or a.name, []).append(Operation(name=a.name, job=a.job or a.name, step=a.step or 1,
                                                             group=group, durations=durations,
                                                             release=releases.get(a.name, 0)))
    # a job without a due date row is never late (weight 0)
    jobs = tuple(Job(name=name, release=releases.get(name, 0), due=dues.get(name, (0, 0))[0],
                     weight=dues.get(name, (0, 0))[1], template="", operations=tuple(sorted(o, key=lambda x: x.step)))
                 for name, o in ops.items())
    events, cancelled = _read_events(instance, {op.name: op for j in jobs for op in j.operations}, machines)
    window = _arrival_window(instance) or max((j.release for j in jobs), default=0) + 1
    return World(name=instance.name, machines=machines, jobs=jobs, outages=tuple(outages), events=events,
                 cancelled=cancelled, horizon=window,
                 objective="makespan" if instance.objective.measure == "makespan" else "tardiness")


def _plant(instance: Instance) -> tuple[Machine, ...]:
    """One machine per unary resource, with the group and speed of its ``machine`` row; a machine
    without a row is its own group at nominal speed."""
    rows = {e.name: e for e in instance.entities if e.cls == "machine"}
    resources = {r.name for r in instance.resources if r.kind == "unary"}
    stray = sorted(set(rows) - resources)
    if stray:
        raise _row_error("E804", f"machine rows name no unary resource: {', '.join(stray)}", rows[stray[0]])
    return tuple(Machine(name=r.name, group=str(rows[r.name].attrs["group"]) if r.name in rows else r.name,
                         speed=int(rows[r.name].attrs["speed"]) / 100 if r.name in rows else 1.0)  # type: ignore[arg-type]
                 for r in instance.resources if r.kind == "unary")


def _time_rows(instance: Instance) -> tuple[dict[str, int], dict[str, tuple[int, int]], list[Outage]]:
    releases: dict[str, int] = {}
    dues: dict[str, tuple[int, int]] = {}
    outages: list[Outage] = []
    for c in instance.constraints:
        if isinstance(c, TimeWindow):
            releases.update((w.target, w.release) for w in c.windows)
        elif isinstance(c, Tardiness):
            dues.update((d.target, (d.due, d.weight)) for d in c.due_dates)
        elif isinstance(c, ResourceDowntime):
            outages += [Outage(machine=w.resource, start=w.start, end=w.end,
                               cause="maintenance" if w.label == "maintenance" else "breakdown") for w in c.windows]
    return releases, dues, outages


def _read_events(instance: Instance, ops: dict[str, Operation],
                 machines: tuple[Machine, ...]) -> tuple[tuple[Event, ...], tuple[Job, ...]]:
    events: list[Event] = []
    cancelled: list[Job] = []
    for e in instance.entities:
        if e.cls != "event":
            continue
        kind, subject = str(e.attrs["kind"]), str(e.attrs["subject"])
        time, detail = int(e.attrs["time"]), tuple(e.attrs.get("detail", ()))  # type: ignore[arg-type]
        if kind not in EVENT_OF_KIND:
            raise _row_error("E803", f"event {e.name}: unknown kind {kind!r}; kinds: " + ", ".join(EVENT_OF_KIND), e)
        events.append(_event(EVENT_OF_KIND[kind], time, subject, detail, ops, machines))
        if kind == "cancel":
            cancelled.append(Job(name=subject, release=0, due=0, weight=0, template="", operations=()))
    return tuple(events), tuple(cancelled)


def _event(kind: str, time: int, subject: str, detail: tuple[str, ...], ops: dict[str, Operation],
           machines: tuple[Machine, ...]) -> Event:
    op = ops.get(subject)
    if kind == "processing_time_change" and op is not None:
        old = " ".join(f"{m}:{d}" for (m, _), d in zip(op.durations, detail, strict=False))
        return Event(time=time, type=kind, job=op.job, op=op.name, old=old)  # type: ignore[arg-type]
    if kind == "route_change" and op is not None:
        opened = detail[0] if detail else ""
        group = {m.name: m.group for m in machines}
        old = " ".join(m for m, _ in op.durations if group.get(m) != opened)
        return Event(time=time, type=kind, job=op.job, op=op.name, old=old, new=opened)  # type: ignore[arg-type]
    if kind == "rework" and op is not None:
        return Event(time=time, type=kind, job=op.job, op=op.name)  # type: ignore[arg-type]
    return Event(time=time, type=kind, job=subject, old=detail[0] if detail else "")  # type: ignore[arg-type]


def _row_error(code: str, message: str, entity: Entity) -> SchedcError:
    """An error positioned at the table row of ``entity``."""
    return SchedcError(Diagnostic(code=code, message=message, span=entity.span))


def _arrival_window(instance: Instance) -> int:
    source = instance.meta.source or ""
    marker = "arrival window "
    if marker in source:
        tail = source.split(marker, 1)[1].split()[0].rstrip(";,")
        if tail.isdigit():
            return int(tail)
    return 0
