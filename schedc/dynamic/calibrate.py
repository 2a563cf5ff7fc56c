"""SESC: greedy event-space calibration of a realised world towards its target metrics.

The generator hits the targets only in expectation; one realisation of ~100 jobs misses them by
sampling noise. SESC edits the *realised* world (in array form, :class:`~schedc.dynamic.generator.Draft`)
with six operators, each aimed at one metric:

* **rate correction** (ρ): ΔX = (ρ* − ρ) H Σ_m v_m work units to add or remove; deletes random
  realised jobs, or duplicates them at uniform random release dates, choosing the random prefix whose
  work is closest to |ΔX| (or the single closest job). With a fixed job count N_fix it replaces one
  job by a copy of another in the same arrival slot instead, so the count stays N_fix.
* **renewal resampling** (c_a²): fresh Gamma renewal epochs in operational time, warped like the
  generator's, the best of 8 draws, then an affine correction g' = ḡ + a(g − ḡ) of the real-time epoch
  gaps so that the job gaps (zeros inside batches included) have SCV c_a²*. Jobs keep their order.
* **slack scaling** (τ): α_{t+1} = α_t (1 − η sgn(τ − τ*) e_τ), e_τ = |τ − τ*|/τ*, with α clipped to
  [1/4, 4]; every allowance a_j becomes max(⌈W_j⌉, round(a_j α_{t+1}/α_t)).
* **processing-time resampling** (c_p²): within each eligibility class (operations with the same
  eligible machines) every duration column is contracted affinely, y' = ȳ + a(y − ȳ) with
  a² = (c_p²* x̄² − B)/V_within, or spread by a power map y' ∝ y^p, kept ≥ 1 and rounded by largest
  remainders so that *every machine column keeps its integer sum*: the total work, the class means
  and the between-class variance B are unchanged (:func:`resample_processing`).
* **bottleneck engineering** of outage durations (ρ_b, δ): :func:`~schedc.dynamic.generator.engineer_outages`.
* **window swapping** (ρ_b when a window is overloaded even without downtime): swaps the arrival
  slots of heavy jobs inside the window with light jobs outside it (:func:`window_swapping`).

* **group rebalancing** (χ): group-targeted work scaling, :mod:`schedc.dynamic.imbalance`.

Slack scaling and bottleneck engineering are exact, local repairs, so the other operators are
tried as moves followed by them (rate correction also by renewal resampling, since jobs added at
random dates disturb the arrival process; group rebalancing also by processing-time resampling).
Each step picks an operator by impact vectors and the asymmetric penalty φ
(:mod:`schedc.dynamic.strategy`, ``calibrate.selection``): the best measured J(e', e) below Σ e_i²
is applied; the loop stops at strict success, after ``patience`` steps without an improvement or
after ``max_iter`` steps, and returns the best world seen (by L2 of the relative errors).

Success: *strict* when every targeted metric is within the tolerance, *relaxed* when every one is
within twice the tolerance; the report also carries the paper's normalised L2 and strict/relaxed
success (:mod:`schedc.dynamic.success`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

import msgspec
import numpy as np

from schedc.dynamic.config import ConfigPoint
from schedc.dynamic.generator import Draft, build_world, draft, engineer_outages, streams, warp
from schedc.dynamic.imbalance import rebalance_groups
from schedc.dynamic.metrics import (
    error_vector,
    l2_error,
    metrics_from_arrays,
    op_work_time,
    scv,
    window_capacity,
    window_work,
    within,
)
from schedc.dynamic.strategy import Penalty, Selector
from schedc.dynamic.success import normalised_l2, success
from schedc.dynamic.world import World

LAMBDA_HARD, LAMBDA_SOFT = 100.0, 1.0
ALPHA_RANGE = (0.25, 4.0)


class CalibrationReport(msgspec.Struct, frozen=True, kw_only=True):
    """What a calibration achieved: errors and L2 before/after, success, effort and wall time (s)."""

    method: str
    errors_before: dict[str, float]
    errors_after: dict[str, float]
    l2_before: float
    l2_after: float
    strict: bool
    relaxed: bool
    iterations: int
    evaluations: int
    runtime: float
    applied: tuple[str, ...] = ()
    normalised_l2_before: float = 0.0
    normalised_l2_after: float = 0.0
    paper_strict: bool = False
    paper_relaxed: bool = False


@dataclass(frozen=True)
class CalibrationState:
    """A draft, the slack multiplier α applied so far, and its error vector against the targets."""

    draft: Draft
    alpha: float
    errors: dict[str, float]


@dataclass
class CalibrationContext:
    """What every operator needs: the point (targets), the calibration stream and an evaluation count."""

    point: ConfigPoint
    rng: np.random.Generator
    evaluations: int = 0

    def state(self, d: Draft, alpha: float) -> CalibrationState:
        self.evaluations += 1
        metrics = metrics_from_arrays(d.arrays(), self.point.targets.bottlenecks)
        return CalibrationState(d, alpha, error_vector(metrics, self.point.targets))


Operator = Callable[[CalibrationState, CalibrationContext], CalibrationState | None]


# --------------------------------------------------------------------------- job-level edits


def delete_jobs(d: Draft, jobs: np.ndarray) -> Draft:
    """The draft without the given job rows (and their operations and events)."""
    keep = np.ones(len(d.release), dtype=bool)
    keep[jobs] = False
    ops = keep[d.op_job]
    index = np.cumsum(keep) - 1
    return replace(d, release=d.release[keep], allowance=d.allowance[keep], weight=d.weight[keep],
                   template=d.template[keep], batch=d.batch[keep], cancel=d.cancel[keep],
                   op_job=index[d.op_job[ops]], op_step=d.op_step[ops], op_group=d.op_group[ops],
                   op_offset=d.op_offset[ops], dur=d.dur[ops],
                   events=tuple(e for e, k in zip(d.events, keep, strict=True) if k))


def duplicate_jobs(d: Draft, jobs: np.ndarray, releases: np.ndarray) -> Draft:
    """The draft with copies of the given jobs (operations and events too) released at ``releases``."""
    n = len(d.release)
    new_index = np.full(n, -1)
    new_index[jobs] = n + np.arange(len(jobs))
    ops = np.flatnonzero(np.isin(d.op_job, jobs))
    return replace(d, release=np.concatenate([d.release, releases]),
                   allowance=np.concatenate([d.allowance, d.allowance[jobs]]),
                   weight=np.concatenate([d.weight, d.weight[jobs]]),
                   template=np.concatenate([d.template, d.template[jobs]]),
                   batch=np.concatenate([d.batch, d.batch.max(initial=0) + 1 + np.arange(len(jobs))]),
                   cancel=np.concatenate([d.cancel, d.cancel[jobs]]),
                   op_job=np.concatenate([d.op_job, new_index[d.op_job[ops]]]),
                   op_step=np.concatenate([d.op_step, d.op_step[ops]]),
                   op_group=np.concatenate([d.op_group, d.op_group[ops]]),
                   op_offset=np.concatenate([d.op_offset, d.op_offset[ops]]),
                   dur=np.concatenate([d.dur, d.dur[ops]]), events=d.events + tuple(d.events[j] for j in jobs))


def _closest_subset(rng: np.random.Generator, work: np.ndarray, amount: float) -> np.ndarray:
    """Indices of jobs whose total work is close to ``amount``: the best random prefix or single job."""
    order = rng.permutation(len(work))
    totals = np.cumsum(work[order])
    k = int(np.argmin(np.abs(totals - amount)))
    single = int(np.argmin(np.abs(work - amount)))
    if abs(work[single] - amount) < abs(totals[k] - amount):
        return np.array([single])
    return order[:k + 1]


# --------------------------------------------------------------------------- operators


def rate_correction(s: CalibrationState, ctx: CalibrationContext) -> CalibrationState | None:
    """Delete or duplicate realised jobs so that the total work approaches ρ* H Σ_m v_m.

    With a fixed job count N_fix the count must not change: the best single replacement of a job
    by a copy of another (in the replaced job's arrival slot) is made instead.
    """
    d = s.draft
    arrays = d.arrays()
    work, _ = op_work_time(arrays)
    capacity = d.horizon * float(d.speeds.sum())
    missing = ctx.point.targets.utilisation * capacity - float(work.sum())
    job_work = np.bincount(arrays.op_job, weights=work, minlength=len(arrays.release))
    if len(job_work) < 2 or abs(missing) < job_work.min() / 2:
        return None
    live = np.flatnonzero(d.cancel < 0)
    if ctx.point.scale.jobs is not None:
        return _replace_job(s, ctx, live, job_work, missing)
    chosen = live[_closest_subset(ctx.rng, job_work, abs(missing))]
    if missing < 0:
        return ctx.state(delete_jobs(d, chosen), s.alpha)
    releases = ctx.rng.integers(0, d.horizon, size=len(chosen))
    return ctx.state(duplicate_jobs(d, chosen, releases), s.alpha)


def _replace_job(s: CalibrationState, ctx: CalibrationContext, live: np.ndarray, job_work: np.ndarray,
                 missing: float) -> CalibrationState | None:
    """Replace job i by a copy of job k (same release and epoch as i) with w_k − w_i closest to ``missing``."""
    gap = np.abs(job_work[None, :] - job_work[:, None] - missing)
    i, k = np.unravel_index(int(np.argmin(gap)), gap.shape)
    if gap[i, k] >= abs(missing):
        return None
    old, source = live[i], live[k]
    d = duplicate_jobs(s.draft, np.array([source]), s.draft.release[[old]])
    d.batch[-1] = d.batch[old]
    return ctx.state(delete_jobs(d, np.array([old])), s.alpha)


def renewal_resampling(s: CalibrationState, ctx: CalibrationContext, draws: int = 8) -> CalibrationState | None:
    """New arrival epochs for the realised jobs with the job-gap SCV c_a²* (module docstring)."""
    d = s.draft
    live = np.flatnonzero(d.cancel < 0)
    epochs, first = np.unique(d.batch[live], return_index=True)
    if len(epochs) < 3:
        return None
    epochs = epochs[np.argsort(d.release[live][first], kind="stable")]
    target = max(0.0, (1 + ctx.point.targets.arrival_scv) * (len(epochs) - 1) / (len(live) - 1) - 1)
    if target > 0:
        gaps = ctx.rng.gamma(1 / target, target, size=(draws, len(epochs) + 1))
    else:
        gaps = np.ones((draws, len(epochs) + 1))
    u = np.cumsum(gaps, axis=1)[:, :-1] * (d.horizon / gaps.sum(axis=1, keepdims=True))
    times = warp(u.ravel(), ctx.point).reshape(u.shape)
    spread = np.diff(times, axis=1)
    best = int(np.argmin([abs(scv(g) - target) for g in spread]))
    times = times[best, 0] + np.concatenate([[0.0], np.cumsum(_affine_scv(spread[best], target))])
    epoch_time = np.clip(np.floor(times), 0, d.horizon - 1).astype(np.int64)
    # every job of a moved epoch moves with it, withdrawn ones included, so a batch stays one arrival
    release = d.release.copy()
    moved = np.flatnonzero(np.isin(d.batch, epochs))
    sorter = np.argsort(epochs)
    release[moved] = epoch_time[sorter[np.searchsorted(epochs, d.batch[moved], sorter=sorter)]]
    return ctx.state(replace(d, release=release), s.alpha)


def _affine_scv(gaps: np.ndarray, target: float) -> np.ndarray:
    """g' = ḡ + a(g − ḡ) with SCV ``target`` (a capped so that no gap turns negative)."""
    mean, current = float(gaps.mean()), scv(gaps)
    if current <= 0 or mean <= 0:
        return gaps
    a = math.sqrt(target / current)
    if a > 1 and gaps.min() < mean:
        a = min(a, mean / (mean - float(gaps.min())))
    return mean + a * (gaps - mean)


def slack_scaling(s: CalibrationState, ctx: CalibrationContext, eta: float = 1.0) -> CalibrationState | None:
    """α_{t+1} = α_t (1 − η sgn(τ − τ*) e_τ): every allowance scaled by α_{t+1}/α_t."""
    error = s.errors["tightness"]
    if abs(error) < 1e-4:
        return None
    alpha = min(max(s.alpha * (1 - eta * error), ALPHA_RANGE[0]), ALPHA_RANGE[1])
    d = s.draft
    op_time = d.dur.sum(axis=1) / np.maximum((d.dur > 0).sum(axis=1), 1)
    job_time = np.bincount(d.op_job, weights=op_time, minlength=len(d.release))
    allowance = np.maximum(np.ceil(job_time), np.rint(d.allowance * alpha / s.alpha)).astype(np.int64)
    if np.array_equal(allowance, d.allowance):
        return None
    return ctx.state(replace(d, allowance=allowance), alpha)


def resample_processing(d: Draft, target_scv: float) -> Draft:
    """Contract or spread durations within eligibility classes towards pooled work SCV ``target_scv``.

    Contraction is the affine map y' = ȳ + a(y − ȳ) with a² = (c_p²* x̄² − B)/V_within (exact before
    rounding); spreading uses a power map y' ∝ y^p (p found by bisection on the pooled SCV), which
    stays positive where an affine spread would have to be clipped at 1. Every machine column of every
    class keeps its integer sum over the realised operations, so the total work and each machine's
    total duration are preserved exactly (module docstring).
    """
    ops = np.flatnonzero(d.cancel[d.op_job] < 0)
    dur = d.dur[ops]
    eligible = dur > 0
    count = eligible.sum(axis=1)
    work = (dur @ d.speeds) / count
    classes = np.unique(eligible, axis=0, return_inverse=True)[1].ravel()
    columns = [(rows, m) for c in range(classes.max() + 1) for rows in [np.flatnonzero(classes == c)]
               for m in np.flatnonzero(eligible[rows[0]])]
    means = np.bincount(classes, weights=work) / np.bincount(classes)
    mean = float(work.mean())
    between = float(((means[classes] - mean) ** 2).mean())
    inner = float(((work - means[classes]) ** 2).mean())
    if inner <= 0:
        return d
    square = (target_scv * mean**2 - between) / inner
    if square <= 1:
        real = _mapped(dur, columns, lambda y: y.mean() + math.sqrt(max(square, 0.0)) * (y - y.mean()))
    else:
        low, high = 1.0, 6.0
        for _ in range(14):
            middle = (low + high) / 2
            trial = _mapped(dur, columns, lambda y, p=middle: y**p)
            low, high = (middle, high) if scv((trial @ d.speeds) / count) < target_scv else (low, middle)
        real = _mapped(dur, columns, lambda y: y**low)
    new = dur.copy()
    for rows, m in columns:
        new[rows, m] = _round_to_sum(real[rows, m], int(dur[rows, m].sum()))
    full = d.dur.copy()
    full[ops] = new
    return replace(d, dur=full)


def _mapped(dur: np.ndarray, columns: list[tuple[np.ndarray, int]],
            shape: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Real-valued durations: every column reshaped by ``shape``, then kept ≥ 1 with its sum unchanged."""
    out = dur.astype(float)
    for rows, m in columns:
        column = dur[rows, m].astype(float)
        y = np.maximum(shape(column), 0.0)
        y *= column.sum() / y.sum() if y.sum() > 0 else 1.0
        y = np.maximum(y, 1.0)
        if y.sum() > len(y):
            y = 1 + (y - 1) * (column.sum() - len(y)) / (y.sum() - len(y))
        out[rows, m] = y
    return out


def _round_to_sum(y: np.ndarray, total: int) -> np.ndarray:
    """Largest-remainder rounding of values ≥ 1 to integers ≥ 1 summing exactly to ``total``."""
    low = np.floor(y).astype(np.int64)
    low[np.argsort(-(y - low), kind="stable")[:total - int(low.sum())]] += 1
    return low


def processing_resampling(s: CalibrationState, ctx: CalibrationContext) -> CalibrationState | None:
    """The :func:`resample_processing` operator at the target c_p²*."""
    if abs(s.errors["processing_scv"]) < 1e-4:
        return None
    d = resample_processing(s.draft, ctx.point.targets.processing_scv)
    return None if d is s.draft else ctx.state(d, s.alpha)


def bottleneck_engineering(s: CalibrationState, ctx: CalibrationContext) -> CalibrationState | None:
    """Outage durations re-fitted to the window budgets and the disturbance budget."""
    down = engineer_outages(s.draft, ctx.point.targets.bottlenecks, ctx.point.targets.disturbance, ctx.rng)
    if np.array_equal(down, s.draft.down):
        return None
    return ctx.state(replace(s.draft, down=down), s.alpha)


def window_swapping(s: CalibrationState, ctx: CalibrationContext) -> CalibrationState | None:
    """Swap (release, epoch) between heavy jobs inside an overloaded window and light jobs outside.

    A window whose load exceeds ρ_b* C_b even without downtime cannot be fixed by outages; swapping
    arrival slots moves group work out of it while the multiset of (release, epoch) pairs — hence
    c_a² — and every job's allowance — hence τ — stay the same.
    """
    d = s.draft
    arrays = d.arrays()
    work, _ = op_work_time(arrays)
    release, batch = d.release.copy(), d.batch.copy()
    live = np.flatnonzero(d.cancel < 0)
    inside_any = np.zeros(len(live), dtype=bool)
    for w in ctx.point.targets.bottlenecks:
        inside_any |= (arrays.release >= w.start) & (arrays.release < w.end)
    changed = False
    for w in ctx.point.targets.bottlenecks:
        nominal, _ = window_capacity(arrays, w)
        excess = window_work(arrays, w, work) - w.utilisation * nominal
        if excess <= 0:
            continue
        group = np.where(arrays.op_group == d.group_names.index(w.group), work, 0.0)
        load = np.bincount(arrays.op_job, weights=group, minlength=len(live))
        inside = np.flatnonzero((arrays.release >= w.start) & (arrays.release < w.end))
        outside = np.flatnonzero(~inside_any)
        inside, outside = inside[np.argsort(-load[inside])], outside[np.argsort(load[outside])]
        pairs = min(len(inside), len(outside))
        gain = np.cumsum(load[inside[:pairs]] - load[outside[:pairs]])
        if not pairs or gain[0] <= 0:
            continue
        k = int(np.argmin(np.abs(gain - excess))) + 1
        a, b = live[inside[:k]], live[outside[:k]]
        release[a], release[b], batch[a], batch[b] = release[b], release[a], batch[b], batch[a]
        changed = True
    return ctx.state(replace(d, release=release, batch=batch), s.alpha) if changed else None


def group_rebalancing(s: CalibrationState, ctx: CalibrationContext) -> CalibrationState | None:
    """Scale group work towards load imbalance χ* (:func:`~schedc.dynamic.imbalance.rebalance_groups`)."""
    target = ctx.point.targets.imbalance
    if target is None or abs(s.errors["imbalance"]) < 1e-4:
        return None
    d = rebalance_groups(s.draft, target, ctx.rng)
    return None if d is s.draft else ctx.state(d, s.alpha)


def _settled(op: Operator, *repairs: Operator) -> Operator:
    """``op`` followed by ``repairs`` in order (each skipped when it has nothing to do)."""
    def move(s: CalibrationState, ctx: CalibrationContext) -> CalibrationState | None:
        out = op(s, ctx)
        if out is None:
            return None
        for repair in repairs:
            out = repair(out, ctx) or out
        return out
    return move


# Each SESC move: (name, family of its head operator, head, repairs by family). A family is what an
# ablation (``calibrate.without``, DynaSchedBench Table g-3) removes: the head's moves and its repairs.
_MOVES: tuple[tuple[str, str, Operator, tuple[tuple[str, Operator], ...]], ...] = (
    ("rate", "arrival", rate_correction,
     (("arrival", renewal_resampling), ("slack", slack_scaling), ("bottleneck", bottleneck_engineering))),
    ("renewal", "arrival", renewal_resampling, (("slack", slack_scaling), ("bottleneck", bottleneck_engineering))),
    ("processing", "processing", processing_resampling,
     (("slack", slack_scaling), ("bottleneck", bottleneck_engineering))),
    ("window", "bottleneck", window_swapping, (("bottleneck", bottleneck_engineering),)),
    ("imbalance", "imbalance", group_rebalancing,
     (("processing", processing_resampling), ("slack", slack_scaling), ("bottleneck", bottleneck_engineering))),
    ("slack", "slack", slack_scaling, ()),
    ("outages", "bottleneck", bottleneck_engineering, ()),
)
OPERATOR_FAMILIES = ("arrival", "processing", "slack", "bottleneck", "imbalance")


def operator_table(without: Collection[str] = ()) -> dict[str, Operator]:
    """SESC's moves with the operator families in ``without`` removed: a move whose head belongs to one is
    dropped, and so is every repair of that family that other moves run after their head."""
    return {name: _settled(head, *(fn for family, fn in repairs if family not in without))
            for name, family, head, repairs in _MOVES if family not in without}


OPERATORS: dict[str, Operator] = operator_table()


# --------------------------------------------------------------------------- the greedy loop


def score(new: dict[str, float], old: dict[str, float], tolerance: float) -> float:
    """J(e', e) with the default weights and band ``tolerance`` (:class:`~schedc.dynamic.strategy.Penalty`)."""
    return Penalty(LAMBDA_SOFT, LAMBDA_HARD, tolerance).score(new, old)


def calibrate(point: ConfigPoint, start: Draft | None = None) -> tuple[World, CalibrationReport]:
    """Generate (unless ``start`` is given) and calibrate the world of ``point`` with SESC."""
    began = time.perf_counter()
    options = point.calibrate
    ctx = CalibrationContext(point, streams(point.seed)["calibration"])
    current = ctx.state(start if start is not None else draft(point), 1.0)
    initial, best = current, current
    selector: Selector[CalibrationState] = Selector(
        Penalty(options.lambda_soft, options.lambda_hard, options.epsilon_tol), options.selection == "exhaustive")
    table = operator_table(options.without)
    names = [n for n in table if n != "imbalance" or point.targets.imbalance is not None]
    applied: list[str] = []
    idle = iterations = 0
    while iterations < options.max_iter and idle < options.patience:
        if within(current.errors, options.tolerance):
            break
        iterations += 1
        state = current

        def evaluate(name: str, state: CalibrationState = state) -> tuple[dict[str, float], CalibrationState] | None:
            out = table[name](state, ctx)
            return None if out is None else (out.errors, out)

        chosen = selector.choose(current.errors, names, evaluate)
        if chosen is None:
            idle += 1
            continue
        idle, current = 0, chosen[1]
        applied.append(chosen[0])
        if l2_error(current.errors) < l2_error(best.errors):
            best = current
    return finish("sesc", point, initial.errors, best, iterations, ctx.evaluations, applied, began)


def finish(method: str, point: ConfigPoint, before: dict[str, float], best: CalibrationState, iterations: int,
           evaluations: int, applied: list[str], began: float,
           meta: dict[str, str] | None = None) -> tuple[World, CalibrationReport]:
    """Build the world of the best state (named and targeted as ``point``) and its report."""
    tolerance = point.calibrate.tolerance
    l2 = l2_error(best.errors)
    info = {"calibration": method, "l2_error": f"{l2:.6f}"} | (meta or {})
    world = build_world(replace(best.draft, point=point), info)
    paper_strict, paper_relaxed = success(best.errors, point.targets, point.calibrate.thresholds,
                                          point.calibrate.l2_tolerance)
    return world, CalibrationReport(
        method=method, errors_before=before, errors_after=best.errors, l2_before=l2_error(before), l2_after=l2,
        strict=within(best.errors, tolerance), relaxed=within(best.errors, 2 * tolerance), iterations=iterations,
        evaluations=evaluations, runtime=time.perf_counter() - began, applied=tuple(applied),
        normalised_l2_before=normalised_l2(before, point.targets),
        normalised_l2_after=normalised_l2(best.errors, point.targets),
        paper_strict=paper_strict, paper_relaxed=paper_relaxed)


