"""A configuration point's world, calibrated by the method its configuration names.

The dispatcher above the calibrators: SESC (:mod:`schedc.dynamic.calibrate`), the random-search
baseline (:mod:`schedc.dynamic.baseline`) and NSGA-II or the hybrid (:mod:`schedc.dynamic.moo`)
each build on SESC's module, so the choice among them is made here, above all three.
"""

from __future__ import annotations

from schedc.dynamic.baseline import random_search
from schedc.dynamic.calibrate import CalibrationReport, calibrate
from schedc.dynamic.config import ConfigPoint
from schedc.dynamic.generator import build_world, draft
from schedc.dynamic.moo import hybrid_calibrate, moo_calibrate
from schedc.dynamic.world import World


def realise(point: ConfigPoint) -> tuple[World, CalibrationReport | None]:
    """The world of ``point`` as its configuration asks: calibrated by SESC, the baseline, NSGA-II or the hybrid when
    ``calibrate.enabled``, else the plain generator output (and no report)."""
    if not point.calibrate.enabled:
        return build_world(draft(point)), None
    return calibrated(point, point.calibrate.method)


def calibrated(point: ConfigPoint, method: str) -> tuple[World, CalibrationReport]:
    """The world of ``point`` calibrated by ``method`` (``sesc``, ``baseline``, ``moo`` or ``hybrid``), whichever
    method its configuration names; the calibrator's options (tolerances, operators) still come from it."""
    if method == "baseline":
        return random_search(point)
    if method in ("moo", "hybrid"):
        return (moo_calibrate if method == "moo" else hybrid_calibrate)(point)
    return calibrate(point)
