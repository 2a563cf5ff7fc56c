"""Drive the authors' package ``dsbx`` (optional, not a project dependency) on a schedc Grid point.

:func:`dsbx_calibrate` translates a :class:`~schedc.dynamic.config.ConfigPoint` of the Grid plant into
a dsbx ``InputModel`` (same machines, groups, speeds, families, mean work per step as the processing
mean, same horizon, job count, seed and targets; processing SCV, arrival SCV, tightness ``ddt``,
disturbance, load CV ``load_cv`` = χ*), runs its sequential calibration pipeline
(``run_generation_pipeline``, SESC in the paper's terms, its default settings) and returns its final
metrics as a schedc error vector, so that :mod:`schedc.dynamic.success` scores both packages alike.
"""

from __future__ import annotations

import logging
import tempfile
import time
from pathlib import Path

from schedc.dynamic.config import ConfigPoint

METRICS = {"utilisation": "rho_global", "arrival_scv": "scv_a", "processing_scv": "scv_p", "tightness": "ddt",
           "disturbance": "disturbance", "imbalance": "load_cv"}


def available() -> bool:
    try:
        import dsbx.Gen.pipeline  # noqa: F401
    except ImportError:
        return False
    return True


def input_model(point: ConfigPoint) -> object:
    from dsbx.Gen.models.inputs import InputModel

    t = point.targets
    plant = point.plant
    templates = [{"family": tpl.name, "route": [
        {"machine_group": g, "process_time": {"dist": "norm" if t.processing_scv > 0 else "const", "mean": w,
                                              "scv": t.processing_scv}}
        for g, w in zip(tpl.route, tpl.work, strict=True)]} for tpl in plant.templates]
    shares = [tpl.share for tpl in plant.templates]
    data = {
        "meta": {"seed": point.seed},
        "plant": {"machines": [{"id": m.name, "group": m.group, "speed": m.speed} for m in plant.machines],
                  "process_templates": templates, "job_mix_weights": [s / sum(shares) for s in shares]},
        "scale": {"horizon": float(point.scale.horizon), "jobs_total": point.scale.jobs},
        "targets": {"rho_global": t.utilisation, "ddt": t.tightness, "scv_a": t.arrival_scv, "scv_p": t.processing_scv,
                    "disturbance": t.disturbance, "load_cv": t.imbalance},
    }
    return InputModel.model_validate(data)


def dsbx_calibrate(point: ConfigPoint, steps: int = 40, method: str = "sesc") -> tuple[dict[str, float], float]:
    """(schedc error vector of dsbx's calibrated instance, wall seconds); ``method`` ``sesc`` (its sequential
    pipeline), ``moo`` or ``hybrid`` (its NSGA-II calibrators, with their default settings)."""
    from dsbx.Gen.pipeline import run_generation_pipeline
    from loguru import logger

    logger.remove()
    logging.disable(logging.WARNING)
    model = input_model(point)
    with tempfile.TemporaryDirectory() as out:
        began = time.perf_counter()
        final = run_generation_pipeline(model, Path(out), max_calib_steps=steps, use_moo=method == "moo",
                                        use_hybrid=method == "hybrid")
        seconds = time.perf_counter() - began
    if final is None:
        raise RuntimeError(f"dsbx produced no instance for {point.name}")
    values = {"utilisation": point.targets.utilisation, "arrival_scv": point.targets.arrival_scv,
              "processing_scv": point.targets.processing_scv, "tightness": point.targets.tightness,
              "disturbance": point.targets.disturbance, "imbalance": point.targets.imbalance}
    errors = {}
    for key, target in values.items():
        if target is None:
            continue
        observed = float(final[METRICS[key]])
        errors[key] = observed - target if target == 0 else (observed - target) / abs(target)
    return errors, seconds
