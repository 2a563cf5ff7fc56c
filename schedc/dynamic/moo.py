"""Parameter-space NSGA-II calibrators: MOO (12-D) and Hybrid (5-D), the paper's baselines.

Both search *generator inputs* (like :mod:`schedc.dynamic.baseline`) and regenerate the world with
the point's seed for every candidate (common random numbers: only the inputs differ); every
candidate is measured against the point's original targets.

* **MOO** — x ∈ [0.5, 2]^(5 + F + G) multiplies the generator's scalar inputs (ρ, c_a², c_p², τ, δ),
  the F family shares of the job mix and the mean work of each of the G machine groups (12-D on the
  Grid plant: 5 + 3 + 4). Mix shares and group work are what move χ in parameter space.
* **Hybrid** — x ∈ [0.5, 2]^5 multiplies only the coupled scalar inputs (ρ, c_a², c_p², τ, δ); the
  best candidate is then finished by SESC (:func:`~schedc.dynamic.calibrate.calibrate` started from
  it), whose exact operators handle χ, τ and the outages.

NSGA-II (``pymoo``, the ``moo`` extra) with population 60 (MOO) / 100 (Hybrid), 40 generations, SBX
crossover (η = 15, p = 0.9) and polynomial mutation (η = 20, p = 1/n), on two objectives
f₁ = normalised L2 and f₂ = max_l |e_l| / θ_l, with one constraint per metric g_l = |e_l| − θ_l ≤ 0
(the paper's per-metric tolerances, :mod:`schedc.dynamic.success`). Selection is constraint-prioritised
(eqs. b-4/b-5: Deb's rules, as pymoo's NSGA-II applies them in its binary tournament and survival): a
feasible candidate beats an infeasible one, two infeasible ones compare by total violation Σ_l [g_l]₊,
two feasible ones by non-domination rank then crowding distance. The result is the feasible candidate
of least f₁, or the least-violating one when none is feasible.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import msgspec
import numpy as np

from schedc.core.diagnostics import SchedcError
from schedc.dynamic.baseline import BOUNDS
from schedc.dynamic.calibrate import CalibrationReport, CalibrationState, calibrate, finish
from schedc.dynamic.config import ConfigPoint
from schedc.dynamic.generator import draft
from schedc.dynamic.metrics import error_vector, l2_error, metrics_from_arrays
from schedc.dynamic.success import normalised_l2, thresholds
from schedc.dynamic.world import World

SCALARS = tuple(BOUNDS)  # utilisation, arrival_scv, processing_scv, tightness, disturbance
LOW, HIGH = 0.5, 2.0


@dataclass(frozen=True)
class NsgaOptions:
    """NSGA-II settings (module docstring)."""

    population: int = 60
    generations: int = 40
    sbx_eta: float = 15.0
    pm_eta: float = 20.0


def inputs_point(point: ConfigPoint, x: np.ndarray) -> ConfigPoint:
    """The point whose generator inputs are the targets scaled by ``x`` (scalars, then shares, then group work)."""
    t = point.targets
    scalars = {key: float(np.clip(getattr(t, key) * x[i], *BOUNDS[key])) for i, key in enumerate(SCALARS)}
    plant = point.plant
    templates = plant.templates
    groups = plant.groups()
    if len(x) > len(SCALARS):
        shares = x[len(SCALARS):len(SCALARS) + len(templates)]
        work = x[len(SCALARS) + len(templates):]
        templates = tuple(msgspec.structs.replace(
            tpl, share=tpl.share * float(shares[f]),
            work=tuple(w * float(work[groups.index(g)]) for w, g in zip(tpl.work, tpl.route, strict=True)))
            for f, tpl in enumerate(templates))
    return msgspec.structs.replace(point, targets=msgspec.structs.replace(t, **scalars),
                                   plant=msgspec.structs.replace(plant, templates=templates))


def _evaluate(point: ConfigPoint, x: np.ndarray) -> CalibrationState:
    generated = draft(inputs_point(point, x))
    metrics = metrics_from_arrays(generated.arrays(), point.targets.bottlenecks)
    return CalibrationState(generated, 1.0, error_vector(metrics, point.targets))


def nsga2(point: ConfigPoint, dimensions: int, options: NsgaOptions) -> tuple[CalibrationState, int]:
    """Run NSGA-II over ``dimensions`` input multipliers; (best state, evaluations)."""
    try:
        from pymoo.algorithms.moo.nsga2 import NSGA2
        from pymoo.core.problem import ElementwiseProblem
        from pymoo.operators.crossover.sbx import SBX
        from pymoo.operators.mutation.pm import PM
        from pymoo.optimize import minimize
    except ImportError:
        raise SchedcError.at("E715", "the moo and hybrid calibrators need pymoo",
                             hint="pip install 'schedc[moo]'") from None
    theta = thresholds(point.targets, point.calibrate.thresholds)
    keys = list(theta)
    seen: list[CalibrationState] = []

    class Inputs(ElementwiseProblem):
        def __init__(self) -> None:
            super().__init__(n_var=dimensions, n_obj=2, n_ieq_constr=len(keys), xl=LOW, xu=HIGH)

        def _evaluate(self, x: np.ndarray, out: dict, *args: object, **kwargs: object) -> None:
            state = _evaluate(point, x)
            seen.append(state)
            ratio = [abs(state.errors[k]) / theta[k] for k in keys]
            out["F"] = [normalised_l2(state.errors, point.targets), max(ratio)]
            out["G"] = [abs(state.errors[k]) - theta[k] for k in keys]

    # the first individual is the uncalibrated input (x = 1), the rest uniform in the box
    start = np.random.default_rng(point.seed).uniform(LOW, HIGH, size=(options.population, dimensions))
    start[0] = 1.0
    algorithm = NSGA2(pop_size=options.population, sampling=start, crossover=SBX(eta=options.sbx_eta, prob=0.9),
                      mutation=PM(eta=options.pm_eta), eliminate_duplicates=True)
    minimize(Inputs(), algorithm, ("n_gen", options.generations), seed=point.seed, verbose=False)

    def rank(s: CalibrationState) -> tuple[float, float]:
        violation = sum(max(abs(s.errors[k]) - theta[k], 0.0) for k in keys)
        return violation, normalised_l2(s.errors, point.targets)

    return min(seen, key=rank), len(seen)


def moo_calibrate(point: ConfigPoint, options: NsgaOptions | None = None) -> tuple[World, CalibrationReport]:
    """The 12-D MOO baseline (module docstring)."""
    began = time.perf_counter()
    initial = _evaluate(point, np.ones(len(SCALARS)))
    dims = len(SCALARS) + len(point.plant.templates) + len(point.plant.groups())
    best, evaluations = nsga2(point, dims, options or NsgaOptions(population=60))
    return finish("moo", point, initial.errors, best, 0, evaluations, [], began)


def hybrid_calibrate(point: ConfigPoint, options: NsgaOptions | None = None) -> tuple[World, CalibrationReport]:
    """The 5-D Hybrid: NSGA-II over the coupled scalar inputs, then SESC from the best candidate."""
    began = time.perf_counter()
    initial = _evaluate(point, np.ones(len(SCALARS)))
    best, evaluations = nsga2(point, len(SCALARS), options or NsgaOptions(population=100))
    world, final = calibrate(point, start=replace(best.draft, point=point))
    return world, msgspec.structs.replace(
        final, method="hybrid", errors_before=initial.errors, l2_before=l2_error(initial.errors),
        normalised_l2_before=normalised_l2(initial.errors, point.targets),
        evaluations=evaluations + final.evaluations, runtime=time.perf_counter() - began)
