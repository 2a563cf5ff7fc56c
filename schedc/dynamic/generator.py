"""Generator: a configuration point → a realised :class:`~schedc.dynamic.world.World`.

Construction (every random draw from its own stream, see :func:`streams`):

* **Rate.** With mix shares π_t, mean work μ_{t,k} and realised-work factor
  f = (1 − p_cancel)(1 + p_ptc(m̄ − 1))(1 + p_rework / E[L]) (cancelled jobs leave the realised
  world, processing-time changes scale by the mean multiplier m̄, rework repeats one step),
  E[X] = f Σ_t π_t Σ_k μ_{t,k} is the expected realised work per arrival and the base job rate is
  λ = ρ* Σ_m v_m / E[X]. With a fixed job count N_fix the rate is N_fix / H instead and the work
  means are scaled by κ = ρ* H Σ_m v_m / (N_fix E[X]) so that ρ* still holds.
* **Arrivals.** Epochs (an epoch is a batch with probability p_batch) form a Gamma renewal
  process in *operational time*: gaps ~ Gamma(k = 1/c_a², θ = 1/(k λ_e)) with λ_e = λ / E[jobs per
  epoch]. Operational time u is warped to real time by t = Λ⁻¹(u), Λ(t) = ∫₀ᵗ m(s) ds / c with c
  chosen so that Λ(H) = H (the pattern redistributes arrivals but keeps their number); Λ is
  strictly increasing, so the order of arrivals is preserved. Releases are ⌊t⌋.
* **Work.** Operation work w = κ μ_{t,k} Y with Y ~ Gamma(1/s, s) (mean 1, SCV s). Because the
  metric c_p² pools all operations, s solves (1 + s)(1 + c_μ²) = 1 + c_p²*, c_μ² being the SCV of
  the step means over operation slots (s = 0 when c_p²* ≤ c_μ²). Durations are
  d = max(1, round(w / v_m)) on every machine of the step's group.
* **Due dates.** d_j = r_j + a_j with the allowance a_j = round(τ* W_j), W_j = Σ_o (1/|E_o|)
  Σ_m d_{o,m} the job's expected processing time (estimated, before processing-time changes).
  "Truncated": a_j is clipped to [⌈W_j⌉, D − r_j], D = H + round(τ* mean_j W_j) being the due
  horizon, so no job is due before it can finish nor after one mean allowance past the window.
* **Dynamics** follow :mod:`schedc.dynamic.world`, in the text forms :mod:`schedc.dynamic.spec`
  writes and reads back: ``priority_change`` / ``due_date_change`` ``old`` = the previous integer;
  ``processing_time_change`` ``old`` = blank-separated ``machine:estimate`` pairs in mode order;
  ``route_change`` ``old`` = the machines eligible before (blank-separated), ``new`` = the group that
  opened (its machines are listed after the original ones); ``batch_arrival`` names the batch's first
  realised job, ``old`` = the batch size. Outages are not repeated as events (the world carries
  them as :class:`Outage` s).
* **Outages** realise the disturbance budget δ* M H of merged downtime cells: preventive
  maintenance first, then per bottleneck window b a block per group machine so that the removed
  capacity is [C_b − W_b/ρ_b*]₊, then breakdowns (exponential repair times, mean ``repair_mean``)
  outside the windows until the budget is met exactly (see :func:`engineer_outages`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import msgspec
import numpy as np

from schedc.core.diagnostics import SchedcError
from schedc.dynamic.config import ConfigPoint
from schedc.dynamic.metrics import ShopArrays
from schedc.dynamic.outages import BREAKDOWN, MAINTENANCE, engineer_outages, maintenance, runs
from schedc.dynamic.world import Event, EventType, Job, Machine, Operation, Outage, World

STREAMS = ("arrivals", "batches", "mix", "processing", "dynamics", "disturbances", "calibration")


def streams(seed: int) -> dict[str, np.random.Generator]:
    """One independent generator per component, spawned from ``SeedSequence(seed)``."""
    children = np.random.SeedSequence(seed).spawn(len(STREAMS))
    return {name: np.random.default_rng(child) for name, child in zip(STREAMS, children, strict=True)}


@dataclass(frozen=True)
class JobEvent:
    """A job event with its time relative to the job's release (so it follows the job if it moves).

    ``value``: the old weight (priority change), old allowance / final allowance (due-date
    change), the duration multiplier (processing-time change), the old group (route change).
    """

    type: EventType
    offset: int
    step: int = 0
    value: float = 0.0


@dataclass(frozen=True)
class Draft:
    """A realised world in array form — what the generator builds and the calibrator edits.

    Jobs (realised and cancelled, ``cancel`` ≥ 0 being the withdrawal offset) are rows of the job
    arrays; operations rows of the op arrays. ``op_offset`` ≥ 0 marks a rework operation released
    at ``release + op_offset``; ``down`` holds FREE/BREAKDOWN/MAINTENANCE per machine and time.
    """

    point: ConfigPoint
    machines: tuple[Machine, ...]
    group_names: tuple[str, ...]
    speeds: np.ndarray
    machine_group: np.ndarray
    release: np.ndarray
    allowance: np.ndarray
    weight: np.ndarray
    template: np.ndarray
    batch: np.ndarray
    cancel: np.ndarray
    op_job: np.ndarray
    op_step: np.ndarray
    op_group: np.ndarray
    op_offset: np.ndarray
    dur: np.ndarray
    down: np.ndarray
    events: tuple[tuple[JobEvent, ...], ...]

    @property
    def horizon(self) -> int:
        return self.point.scale.horizon

    def arrays(self) -> ShopArrays:
        """The realised jobs as :class:`ShopArrays` (cancelled jobs and their operations dropped)."""
        kept = self.cancel < 0
        index = np.cumsum(kept) - 1
        ops = kept[self.op_job]
        release = self.release[kept]
        op_job = index[self.op_job[ops]]
        offset = self.op_offset[ops]
        return ShopArrays(speeds=self.speeds, machine_group=self.machine_group, group_names=self.group_names,
                          release=release, due=release + self.allowance[kept], op_job=op_job,
                          op_group=self.op_group[ops], op_release=np.where(offset >= 0, release[op_job] + offset, 0),
                          dur=self.dur[ops], down=self.down > 0, horizon=self.horizon)


# --------------------------------------------------------------------------- rates and arrivals


def expected_job_work(point: ConfigPoint) -> tuple[np.ndarray, float]:
    """(π, E[X]): normalised mix shares and the expected realised work per arrival (module docstring)."""
    templates = point.plant.templates
    share = np.array([t.share for t in templates], dtype=float)
    share /= share.sum()
    work = np.array([sum(t.work) for t in templates])
    length = float(share @ np.array([len(t.route) for t in templates]))
    s = point.scenarios
    multiplier = s.mean_multiplier()
    factor = (1 - s.cancel) * (1 + s.processing_time_change * (multiplier - 1)) * (1 + s.rework / length)
    return share, float(share @ work) * factor


def warp(u: np.ndarray, point: ConfigPoint) -> np.ndarray:
    """t = Λ⁻¹(u): operational time to real time, by interpolation on a fine table of the closed-form Λ."""
    horizon, a = float(point.scale.horizon), point.arrivals
    grid = np.linspace(0.0, horizon, max(4097, 4 * point.scale.horizon + 1))
    if a.pattern == "periodic":
        big = grid + a.amplitude * a.period / (2 * math.pi) * (1 - np.cos(2 * math.pi * grid / a.period))
    elif a.pattern == "trend":
        big = grid + a.amplitude * (grid**2 / horizon - grid)
    else:
        return u.astype(float)
    big *= horizon / big[-1]
    return np.interp(u, big, grid)


def renewal_gaps(rng: np.random.Generator, count: int, scv: float, mean: float) -> np.ndarray:
    """``count`` Gamma gaps with the given mean and SCV (deterministic gaps when the SCV is 0)."""
    if scv <= 0:
        return np.full(count, mean)
    shape = 1.0 / scv
    return rng.gamma(shape, mean / shape, size=count)


def _batch_sizes(rng: np.random.Generator, count: int, point: ConfigPoint) -> np.ndarray:
    s = point.scenarios
    sizes = np.maximum(2, np.rint(rng.normal(s.batch_mean, s.batch_sd, size=count))).astype(np.int64)
    return np.where(rng.random(count) < s.batch, sizes, 1)


def _arrivals(point: ConfigPoint, rng: dict[str, np.random.Generator], rate: float) -> tuple[np.ndarray, np.ndarray]:
    """(release per job, epoch id per job), in release order."""
    horizon, s, scv = point.scale.horizon, point.scenarios, point.targets.arrival_scv
    per_epoch = 1 + s.batch * (max(2.0, s.batch_mean) - 1)
    if point.scale.jobs is not None:
        sizes = _batch_sizes(rng["batches"], point.scale.jobs, point)
        epochs = int(np.searchsorted(np.cumsum(sizes), point.scale.jobs) + 1)
        sizes = sizes[:epochs]
        sizes[-1] -= int(sizes.sum()) - point.scale.jobs
        gaps = renewal_gaps(rng["arrivals"], epochs + 1, scv, 1.0)
        u = np.cumsum(gaps)[:epochs] * horizon / gaps.sum()
    else:
        mean = per_epoch / rate
        gaps = renewal_gaps(rng["arrivals"], int(1.5 * horizon / mean) + 20, scv, mean)
        while gaps.sum() < horizon:
            gaps = np.concatenate([gaps, renewal_gaps(rng["arrivals"], len(gaps), scv, mean)])
        u = np.cumsum(gaps)
        u = u[u < horizon]
        sizes = _batch_sizes(rng["batches"], len(u), point)
    times = np.minimum(np.floor(warp(u, point)), horizon - 1).astype(np.int64)
    return np.repeat(times, sizes), np.repeat(np.arange(len(times)), sizes)


# --------------------------------------------------------------------------- work and durations


def work_scv(point: ConfigPoint, share: np.ndarray) -> float:
    """Per-operation SCV s that makes the pooled SCV equal c_p²*: (1 + s)(1 + c_μ²) = 1 + c_p²*."""
    weights = np.concatenate([np.full(len(t.work), p) for t, p in zip(point.plant.templates, share, strict=True)])
    means = np.concatenate([np.array(t.work, dtype=float) for t in point.plant.templates])
    mean = weights @ means / weights.sum()
    c_mu = (weights @ means**2 / weights.sum()) / mean**2 - 1
    return max(0.0, (1 + point.targets.processing_scv) / (1 + c_mu) - 1)


def durations(work: np.ndarray, groups: np.ndarray, speeds: np.ndarray, membership: np.ndarray) -> np.ndarray:
    """d_{o,m} = max(1, round(w_o / v_m)) for m in the operation's group, 0 elsewhere."""
    ideal = np.maximum(1, np.rint(work[:, None] / speeds[None, :])).astype(np.int64)
    return np.where(membership[groups], ideal, 0)


def _allowances(point: ConfigPoint, release: np.ndarray, job_time: np.ndarray) -> np.ndarray:
    """a_j = round(τ* W_j) clipped to [⌈W_j⌉, D − r_j] (module docstring: "truncated")."""
    tau = point.targets.tightness
    limit = point.scale.horizon + round(tau * float(job_time.mean()))
    allowance = np.minimum(np.rint(tau * job_time), limit - release)
    return np.maximum(allowance, np.ceil(job_time)).astype(np.int64)


def draft(point: ConfigPoint) -> Draft:
    """Generate the (uncalibrated) realised world of a configuration point in array form."""
    rng = streams(point.seed)
    groups = point.plant.groups()
    machines = tuple(Machine(name=m.name, group=m.group, speed=m.speed) for m in point.plant.machines)
    speeds = np.array([m.speed for m in machines])
    machine_group = np.array([groups.index(m.group) for m in machines], dtype=np.int64)
    membership = machine_group[None, :] == np.arange(len(groups))[:, None]
    share, job_work = expected_job_work(point)
    release, batch = _arrivals(point, rng, point.targets.utilisation * float(speeds.sum()) / job_work)
    if not len(release):
        raise SchedcError.at("E715", f"{point.name}: no job arrives in the window [0, {point.scale.horizon})",
                             hint="lengthen scale.horizon, raise targets.utilisation or set scale.jobs")
    kappa = 1.0
    if point.scale.jobs is not None:
        kappa = point.targets.utilisation * point.scale.horizon * float(speeds.sum()) / (point.scale.jobs * job_work)
    n = len(release)
    template = rng["mix"].choice(len(point.plant.templates), size=n, p=share)
    op_job, op_step, op_group, dur = _operations(point, rng["processing"], template, kappa, share, speeds, membership)
    job_time = np.bincount(op_job, weights=dur.sum(axis=1) / (dur > 0).sum(axis=1), minlength=n)
    base = Draft(point=point, machines=machines, group_names=groups, speeds=speeds, machine_group=machine_group,
                 release=release, allowance=_allowances(point, release, job_time),
                 weight=np.array([point.plant.templates[t].priority for t in template], dtype=np.int64),
                 template=template, batch=batch, cancel=np.full(n, -1, dtype=np.int64), op_job=op_job,
                 op_step=op_step, op_group=op_group, op_offset=np.full(len(op_job), -1, dtype=np.int64), dur=dur,
                 down=maintenance(point, len(machines), rng["disturbances"]), events=((),) * n)
    dynamic = apply_dynamics(base, rng["dynamics"], membership)
    if (dynamic.cancel >= 0).all():
        raise SchedcError.at("E715", f"{point.name}: every one of the {n} jobs is cancelled; no job is left to "
                             "schedule", hint="lower scenarios.cancel or raise the number of jobs")
    return replace(dynamic, down=engineer_outages(dynamic, point.targets.bottlenecks, point.targets.disturbance,
                                                  rng["disturbances"]))


def _operations(point: ConfigPoint, rng: np.random.Generator, template: np.ndarray, kappa: float,
                share: np.ndarray, speeds: np.ndarray, membership: np.ndarray) -> tuple[np.ndarray, ...]:
    """(op_job, op_step, op_group, dur) of the jobs' routes, work drawn as in the module docstring."""
    groups = point.plant.groups()
    routes = [point.plant.templates[t] for t in template]
    op_job = np.repeat(np.arange(len(routes)), [len(t.route) for t in routes])
    op_step = np.concatenate([np.arange(1, len(t.route) + 1) for t in routes])
    op_group = np.array([groups.index(g) for t in routes for g in t.route], dtype=np.int64)
    mean_work = kappa * np.array([w for t in routes for w in t.work])
    s = work_scv(point, share)
    work = mean_work * (rng.gamma(1 / s, s, size=len(mean_work)) if s > 0 else 1.0)
    return op_job, op_step, op_group, durations(work, op_group, speeds, membership)


def generate(point: ConfigPoint) -> World:
    """The uncalibrated realised world of a configuration point."""
    return build_world(draft(point))


# --------------------------------------------------------------------------- dynamic events


def _start_offsets(op_job: np.ndarray, op_time: np.ndarray) -> np.ndarray:
    """Expected start of each operation relative to its job's release (ops sorted by job, then step)."""
    ends = np.cumsum(op_time)
    first = np.searchsorted(op_job, op_job)
    return ends - op_time - (ends[first] - op_time[first])


def apply_dynamics(d: Draft, rng: np.random.Generator, membership: np.ndarray) -> Draft:
    """Draw the scenario events (module docstring of :mod:`schedc.dynamic.world` for their semantics).

    Every draw is made for every job/operation whatever the probabilities, so changing one
    probability does not shift the draws of another scenario.
    """
    op_time = d.dur.sum(axis=1) / np.maximum((d.dur > 0).sum(axis=1), 1)
    started = np.rint(_start_offsets(d.op_job, op_time)).astype(np.int64)
    events: list[list[JobEvent]] = [[] for _ in d.release]
    draws = rng.random((7, len(d.release)))
    changed = _job_changes(d, rng, draws, np.bincount(d.op_job, weights=op_time, minlength=len(d.release)), events)
    live = changed.cancel < 0
    changed = _operation_changes(changed, rng, membership, live, started, events)
    return _add_rework(changed, live & (draws[6] < d.point.scenarios.rework), rng.random(len(d.op_job)),
                       started + np.rint(op_time).astype(np.int64), events)


def _job_changes(d: Draft, rng: np.random.Generator, draws: np.ndarray, job_time: np.ndarray,
                 events: list[list[JobEvent]]) -> Draft:
    """Cancellations (before the due date), priority changes (another weight, or one up when promoting)
    and due-date changes (allowance × U[lo, hi] of ``due_date_multiplier``, at least the job's time)."""
    s, n = d.point.scenarios, len(d.release)
    allowance, weight = d.allowance.copy(), d.weight.copy()
    cancel = np.where(draws[0] < s.cancel, (draws[1] * allowance).astype(np.int64), -1)
    live = cancel < 0
    for j in np.flatnonzero(~live):
        events[j].append(JobEvent("cancel", int(cancel[j])))
    new_weight = 1 + (weight - 1 + rng.integers(1, 4, size=n)) % 4
    for j in np.flatnonzero(live & (draws[2] < s.priority_change)):
        events[j].append(JobEvent("priority_change", int(draws[3, j] * allowance[j]), value=float(weight[j])))
        weight[j] = weight[j] + 1 if s.priority_mode == "promote" else new_weight[j]
    factor = rng.uniform(*s.due_date_multiplier, size=n)
    for j in np.flatnonzero(live & (draws[4] < s.due_date_change)):
        new = max(math.ceil(job_time[j]), round(allowance[j] * factor[j]))
        offset = int(draws[5, j] * min(new, allowance[j]))
        events[j].append(JobEvent("due_date_change", offset, value=allowance[j] / new))
        allowance[j] = new
    return replace(d, allowance=allowance, weight=weight, cancel=cancel)


def _operation_changes(d: Draft, rng: np.random.Generator, membership: np.ndarray, live: np.ndarray,
                       started: np.ndarray, events: list[list[JobEvent]]) -> Draft:
    """Processing-time changes (true = estimate × U[lo, hi], or × a multiplier drawn from the set) and
    route changes (another group opens), both revealed when the operation is expected to start."""
    s, ops, groups = d.point.scenarios, len(d.op_job), len(d.group_names)
    dur = d.dur.copy()
    draws = rng.random((2, ops))
    multiplier = (rng.choice(np.array(s.processing_multiplier_set), size=ops) if s.processing_multiplier_set
                  else rng.uniform(*s.processing_multiplier, size=ops))
    op_live = live[d.op_job]
    for o in np.flatnonzero(op_live & (draws[0] < s.processing_time_change)):
        dur[o] = np.where(dur[o] > 0, np.maximum(1, np.rint(dur[o] * multiplier[o])), 0)
        events[d.op_job[o]].append(JobEvent("processing_time_change", int(started[o]), int(d.op_step[o]),
                                            float(multiplier[o])))
    alternative = (d.op_group + rng.integers(1, max(groups, 2), size=ops)) % groups
    for o in np.flatnonzero(op_live & (draws[1] < s.route_change) if groups > 1 else []):
        work = float(dur[o] @ d.speeds) / np.count_nonzero(dur[o])
        opened = membership[alternative[o]]
        dur[o, opened] = np.maximum(1, np.rint(work / d.speeds[opened]))
        events[d.op_job[o]].append(JobEvent("route_change", int(started[o]), int(d.op_step[o]),
                                            float(d.op_group[o])))
    return replace(d, dur=dur)


def _add_rework(d: Draft, chosen: np.ndarray, pick: np.ndarray, finished: np.ndarray,
                events: list[list[JobEvent]]) -> Draft:
    """Append one repeated operation to each chosen job, released when the repeated one should finish."""
    lengths = np.bincount(d.op_job, minlength=len(d.release))
    first = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    jobs = np.flatnonzero(chosen)
    source = first[jobs] + (pick[first[jobs]] * lengths[jobs]).astype(np.int64)
    for j, o in zip(jobs, source, strict=True):
        events[j].append(JobEvent("rework", int(finished[o]), int(lengths[j] + 1)))
    return replace(d, op_job=np.concatenate([d.op_job, jobs]), op_step=np.concatenate([d.op_step, lengths[jobs] + 1]),
                   op_group=np.concatenate([d.op_group, d.op_group[source]]),
                   op_offset=np.concatenate([d.op_offset, finished[source]]),
                   dur=np.concatenate([d.dur, d.dur[source]]), events=tuple(tuple(e) for e in events))


# --------------------------------------------------------------------------- building the world

_ORDER = {"batch_arrival": 0, "maintenance": 1, "breakdown": 2, "cancel": 3, "due_date_change": 4,
          "priority_change": 5, "route_change": 6, "processing_time_change": 7, "rework": 8}


def build_world(d: Draft, meta: dict[str, str] | None = None) -> World:
    """The :class:`World` of a draft: jobs named ``J1..Jn`` in release order, ops ``J<j>.<k>``."""
    order = np.argsort(d.release, kind="stable")
    names = np.empty(len(order), dtype=object)
    names[order] = [f"J{i + 1}" for i in range(len(order))]
    machine_names = [m.name for m in d.machines]
    ops: list[list[Operation]] = [[] for _ in d.release]
    for o in np.lexsort((d.op_step, d.op_job)):
        j = int(d.op_job[o])
        # the operation's own group first: modes opened by a route change come after the original ones
        eligible = np.flatnonzero(d.dur[o])
        eligible = eligible[np.argsort(d.machine_group[eligible] != d.op_group[o], kind="stable")]
        release = int(d.release[j] + d.op_offset[o]) if d.op_offset[o] >= 0 else 0
        ops[j].append(Operation(name=f"{names[j]}.{d.op_step[o]}", job=names[j], step=int(d.op_step[o]),
                                group=d.group_names[d.op_group[o]], release=release,
                                durations=tuple((machine_names[m], int(d.dur[o, m])) for m in eligible)))
    templates = [t.name for t in d.point.plant.templates]
    jobs = [Job(name=names[j], release=int(d.release[j]), due=int(d.release[j] + d.allowance[j]),
                weight=int(d.weight[j]), template=templates[d.template[j]], operations=tuple(ops[j]))
            for j in range(len(d.release))]
    outages = _outages(d.down, machine_names)
    events = [e for j in range(len(jobs)) for e in _job_events(d, j, jobs[j])]
    events += _batch_events(d, names)
    events.sort(key=lambda e: (e.time, _ORDER[e.type], e.job or "", e.op or "", e.new))
    info = {"point": d.point.name, "targets": msgspec.json.encode(d.point.targets).decode()} | (meta or {})
    return World(name=d.point.name, machines=d.machines,
                 jobs=tuple(jobs[j] for j in order if d.cancel[j] < 0),
                 cancelled=tuple(jobs[j] for j in order if d.cancel[j] >= 0), outages=outages,
                 events=tuple(events), horizon=d.horizon, objective=d.point.objective, seed=d.point.seed, meta=info)


def _pairs(op: Operation, divisor: float = 1.0) -> str:
    """Blank-separated ``machine:duration`` pairs in mode order (durations divided by ``divisor``)."""
    return " ".join(f"{m}:{max(1, round(t / divisor))}" for m, t in op.durations)


def _job_events(d: Draft, j: int, job: Job) -> list[Event]:
    """The job's :class:`JobEvent` records as absolute :class:`Event` s of the built job."""
    out = []
    step = {op.step: op for op in job.operations}
    for e in d.events[j]:
        time = job.release + e.offset
        if e.type == "cancel":
            out.append(Event(time, e.type, job.name))
        elif e.type == "rework":
            out.append(Event(time, e.type, job.name, step[e.step].name))
        elif e.type == "priority_change":
            out.append(Event(time, e.type, job.name, old=str(int(e.value))))
        elif e.type == "due_date_change":
            allowance = job.due - job.release
            old = round(allowance * e.value)
            out.append(Event(job.release + min(e.offset, max(0, min(old, allowance) - 1)), e.type, job.name,
                             old=str(job.release + old)))
        elif e.type == "processing_time_change":
            op = step[e.step]
            out.append(Event(time, e.type, job.name, op.name, old=_pairs(op, e.value)))
        else:
            op = step[e.step]
            before = [m for m, _ in op.durations if d.machine_group[_column(d, m)] == int(e.value)]
            opened = next(d.machines[_column(d, m)].group for m, _ in op.durations if m not in before)
            out.append(Event(time, e.type, job.name, op.name, old=" ".join(before), new=opened))
    return out


def _column(d: Draft, machine: str) -> int:
    return next(i for i, m in enumerate(d.machines) if m.name == machine)


def _batch_events(d: Draft, names: np.ndarray) -> list[Event]:
    """One ``batch_arrival`` per epoch that brought several jobs, named after its first *realised* job
    (events about withdrawn work are not part of the realised instance); ``old`` = the batch size,
    withdrawn members included. A batch whose jobs were all withdrawn gets no event."""
    out = []
    epochs, counts = np.unique(d.batch, return_counts=True)
    for epoch in epochs[counts > 1]:
        members = np.flatnonzero(d.batch == epoch)
        realised = [j for j in members if d.cancel[j] < 0]
        if realised:
            first = min(realised, key=lambda j: int(str(names[j])[1:]))
            out.append(Event(int(d.release[first]), "batch_arrival", str(names[first]), old=str(len(members))))
    return out


def _outages(down: np.ndarray, machine_names: list[str]) -> tuple[Outage, ...]:
    out = [Outage(machine_names[m], int(s), int(e), cause)
           for m in range(down.shape[0])
           for code, cause in ((BREAKDOWN, "breakdown"), (MAINTENANCE, "maintenance"))
           for s, e in zip(*runs(down[m] == code), strict=True)]
    return tuple(sorted(out, key=lambda o: (o.start, o.machine)))

