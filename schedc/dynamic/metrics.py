"""Instance metrics of a realised dynamic flexible job shop, and their errors against targets.

All metrics read the *realised* jobs (:attr:`World.jobs`; cancelled jobs are excluded) and read
work only through :meth:`World.operation_work`. Notation: machines m with speed v_m, groups g,
arrival window [0, H), operations o with eligible machines E_o and integer durations d_{o,m}.

* work of an operation  x_o = (1/|E_o|) Σ_{m∈E_o} d_{o,m} v_m           (work units)
* expected time          t_o = (1/|E_o|) Σ_{m∈E_o} d_{o,m}               (time units)
* job work / time        X_j = Σ_{o∈j} x_o,   W_j = Σ_{o∈j} t_o
* global utilisation     ρ = Σ_o x_o / (H Σ_m v_m)               (nominal capacity: downtime is δ's business)
* group utilisation      ρ_g = Σ_{o: group(o)=g} x_o / (H Σ_{m∈g} v_m);  χ = std_g(ρ_g) / mean_g(ρ_g)
* arrival SCV            c_a² = Var(a) / E[a]²  over the gaps a_i = r_(i+1) − r_(i) of the sorted releases
* processing SCV         c_p² = Var(x) / E[x]²  over all operations (pooled over steps and templates)
* due-date tightness     τ = mean_j (d_j − r_j) / W_j      (the flow allowance factor: d_j = r_j + τ W_j)
* disturbance            δ = Σ_m |∪ outages_m ∩ [0, H)| / (M H)   (merged downtime over machine-time)
* bottleneck window b = [s, e) on group g: ρ_b = W_b / C_b^eff with
  W_b = Σ x_o over group-g operations released in [s, e) (an operation is released at
  max(r_j, release_o)) and C_b^eff = Σ_{m∈g} v_m ((e − s) − |downtime_m ∩ [s, e)|).

Variances are population variances (ddof = 0). Errors are relative, (value − target)/target,
or absolute when the target is 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec
import numpy as np

from schedc.dynamic.config import TargetPoint, Window
from schedc.dynamic.world import World


class Metrics(msgspec.Struct, frozen=True, kw_only=True):
    """The measured metrics of one world (see the module docstring for the formulas)."""

    utilisation: float
    group_utilisation: dict[str, float]
    imbalance: float
    arrival_scv: float
    processing_scv: float
    tightness: float
    disturbance: float
    bottlenecks: tuple[float, ...]
    jobs: int
    operations: int
    mean_route_length: float
    machines: int


@dataclass(frozen=True)
class ShopArrays:
    """The realised jobs of a world as arrays: what every metric is computed from.

    ``dur[o, m]`` is the duration of operation o on machine m (0 = not eligible); ``down[m, t]``
    is true when machine m is out at time t ∈ [0, H).
    """

    speeds: np.ndarray
    machine_group: np.ndarray
    group_names: tuple[str, ...]
    release: np.ndarray
    due: np.ndarray
    op_job: np.ndarray
    op_group: np.ndarray
    op_release: np.ndarray
    dur: np.ndarray
    down: np.ndarray
    horizon: int


def arrays_from_world(world: World) -> ShopArrays:
    """The :class:`ShopArrays` of a world's realised jobs (durations re-read from the operations)."""
    names = [m.name for m in world.machines]
    column = {n: i for i, n in enumerate(names)}
    groups = tuple(dict.fromkeys(m.group for m in world.machines))
    group_index = {g: i for i, g in enumerate(groups)}
    ops = [(j, op) for j, job in enumerate(world.jobs) for op in job.operations]
    dur = np.zeros((len(ops), len(names)), dtype=np.int64)
    for o, (_, op) in enumerate(ops):
        for machine, d in op.durations:
            dur[o, column[machine]] = d
    horizon = max(world.horizon, 1)
    down = np.zeros((len(names), horizon), dtype=bool)
    for outage in world.outages:
        down[column[outage.machine], max(outage.start, 0):min(outage.end, horizon)] = True
    return ShopArrays(
        speeds=np.array([m.speed for m in world.machines], dtype=float),
        machine_group=np.array([group_index[m.group] for m in world.machines], dtype=np.int64),
        group_names=groups,
        release=np.array([job.release for job in world.jobs], dtype=np.int64),
        due=np.array([job.due for job in world.jobs], dtype=np.int64),
        op_job=np.array([j for j, _ in ops], dtype=np.int64),
        op_group=np.array([group_index[op.group] for _, op in ops], dtype=np.int64),
        op_release=np.array([op.release for _, op in ops], dtype=np.int64),
        dur=dur, down=down, horizon=horizon)


def compute_metrics(world: World, windows: Sequence[Window] = ()) -> Metrics:
    """The metrics of a world; ``windows`` are the bottleneck windows to measure."""
    return metrics_from_arrays(arrays_from_world(world), windows)


def scv(values: np.ndarray) -> float:
    """Squared coefficient of variation Var/mean² (population variance; 0 for fewer than 2 values)."""
    if len(values) < 2:
        return 0.0
    mean = float(values.mean())
    return float(values.var() / mean**2) if mean > 0 else 0.0


def op_work_time(a: ShopArrays) -> tuple[np.ndarray, np.ndarray]:
    """Per operation (x_o, t_o): mean work and mean duration over its eligible machines."""
    eligible = (a.dur > 0).sum(axis=1)
    eligible = np.maximum(eligible, 1)
    return (a.dur @ a.speeds) / eligible, a.dur.sum(axis=1) / eligible


def metrics_from_arrays(a: ShopArrays, windows: Sequence[Window] = ()) -> Metrics:
    """The metrics of :class:`ShopArrays` (the single implementation behind :func:`compute_metrics`)."""
    work, time = op_work_time(a)
    capacity = a.horizon * float(a.speeds.sum())
    group_capacity = a.horizon * np.bincount(a.machine_group, weights=a.speeds, minlength=len(a.group_names))
    group_work = np.bincount(a.op_group, weights=work, minlength=len(a.group_names))
    rho_g = group_work / group_capacity
    job_time = np.bincount(a.op_job, weights=time, minlength=len(a.release))
    allowance = (a.due - a.release) / np.maximum(job_time, 1e-9)
    lengths = np.bincount(a.op_job, minlength=len(a.release))
    return Metrics(
        utilisation=float(work.sum() / capacity),
        group_utilisation={g: float(r) for g, r in zip(a.group_names, rho_g, strict=True)},
        imbalance=float(rho_g.std() / rho_g.mean()) if rho_g.mean() > 0 else 0.0,
        arrival_scv=scv(np.diff(np.sort(a.release)).astype(float)),
        processing_scv=scv(work),
        tightness=float(allowance.mean()) if len(allowance) else 0.0,
        disturbance=float(a.down.sum() / a.down.size),
        bottlenecks=tuple(window_utilisation(a, w, work) for w in windows),
        jobs=len(a.release),
        operations=len(work),
        mean_route_length=float(lengths.mean()) if len(lengths) else 0.0,
        machines=len(a.speeds))


def window_work(a: ShopArrays, window: Window, work: np.ndarray) -> float:
    """W_b: work of the window group's operations released inside the window."""
    group = a.group_names.index(window.group)
    released = np.maximum(a.release[a.op_job], a.op_release)
    inside = (a.op_group == group) & (released >= window.start) & (released < window.end)
    return float(work[inside].sum())


def window_capacity(a: ShopArrays, window: Window) -> tuple[float, float]:
    """(C_b, C_b^eff): nominal and after-downtime work capacity of the window's group in the window."""
    members = a.machine_group == a.group_names.index(window.group)
    length = window.end - window.start
    downtime = a.down[members, window.start:window.end].sum(axis=1)
    speeds = a.speeds[members]
    return float(speeds.sum() * length), float((speeds * (length - downtime)).sum())


def window_utilisation(a: ShopArrays, window: Window, work: np.ndarray) -> float:
    """ρ_b = W_b / C_b^eff (infinite when the group is down for the whole window but has work)."""
    _, effective = window_capacity(a, window)
    load = window_work(a, window, work)
    return load / effective if effective > 0 else (math.inf if load > 0 else 0.0)


# --------------------------------------------------------------------------- errors


def error_vector(metrics: Metrics, targets: TargetPoint) -> dict[str, float]:
    """Signed relative error (value − target)/target of every targeted metric (absolute if target 0).

    Keys: ``utilisation, arrival_scv, processing_scv, tightness, disturbance``, ``imbalance`` when
    targeted, and ``bottleneck[i]`` per window.
    """
    pairs = [("utilisation", metrics.utilisation, targets.utilisation),
             ("arrival_scv", metrics.arrival_scv, targets.arrival_scv),
             ("processing_scv", metrics.processing_scv, targets.processing_scv),
             ("tightness", metrics.tightness, targets.tightness),
             ("disturbance", metrics.disturbance, targets.disturbance)]
    if targets.imbalance is not None:
        pairs.append(("imbalance", metrics.imbalance, targets.imbalance))
    pairs += [(f"bottleneck[{i}]", value, w.utilisation)
              for i, (value, w) in enumerate(zip(metrics.bottlenecks, targets.bottlenecks, strict=True))]
    return {key: _relative(value, target) for key, value, target in pairs}


def _relative(value: float, target: float) -> float:
    if target == 0:
        return value
    return (value - target) / abs(target) if math.isfinite(value) else 1e6


def l2_error(errors: dict[str, float]) -> float:
    """Euclidean norm of an error vector: sqrt(Σ_i e_i²)."""
    return math.sqrt(sum(e * e for e in errors.values()))


def within(errors: dict[str, float], tolerance: float) -> bool:
    """True when every error is within ``tolerance`` in absolute value."""
    return all(abs(e) <= tolerance for e in errors.values())
