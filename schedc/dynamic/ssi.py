"""Schedule Stress Index (SSI): one 0–100 number for how hard a dynamic instance is to schedule well.

Four raw components, each from the instance metrics (:mod:`schedc.dynamic.metrics`):

* congestion  C = ρ_nb / (1 − ρ_nb) · (1 + (c_a² + c_p²)/2) — the Kingman (G/G/1) waiting-time factor
  of the bottleneck, ρ_nb = min(max_g ρ_g, 1 − ε) (the busiest machine group over the arrival
  window, capped below 1; bottleneck windows are transient overloads, which do not build the
  steady-state queue Kingman's formula describes);
* pressure    P = 1 / max(τ, ε)                              — due-date pressure;
* complexity  K = min(M · L̄ / K_max, 1)                      — machines × mean route length;
* shocks      S = min(δ / S_max, 1)                          — disturbance.

Each is log-normalised, n(x) = clip(log(1 + x) / log(1 + x_max), 0, 1), with x_max = C_max, P_max,
1 and 1 for C, P, K, S, and SSI = 100 · mean(n(C), n(P), n(K), n(S)).

Default normalisers: C_max = 50 (ρ_nb = 0.96 with c_a² = c_p² = 1 gives C = 48), P_max = 2
(τ = 0.5: due dates half the processing time away), K_max = 100 (e.g. 20 machines × 5 steps),
S_max = 0.2 (a fifth of the capacity lost), ε = 0.01.

Tiers: **easy** SSI < 42.5, **medium** 42.5 ≤ SSI < 49, **hard** SSI ≥ 49 (:data:`TIER_CUTS`): the
terciles of the SSI on 40 random DynaSched-Grid points (``benchmarks/dfjsp_ssi.py --points 40``:
42.5 / 48.8, range 24.8–63.4), so each tier holds about a third of the Grid.
"""

from __future__ import annotations

import math

import msgspec

from schedc.dynamic.metrics import Metrics

TIER_CUTS = (42.5, 49.0)


def tier(index: float, cuts: tuple[float, float] = TIER_CUTS) -> str:
    """``easy`` below ``cuts[0]``, ``hard`` from ``cuts[1]`` on, ``medium`` between."""
    return "easy" if index < cuts[0] else "hard" if index >= cuts[1] else "medium"


class SsiNormalisers(msgspec.Struct, frozen=True, kw_only=True):
    """Normalisers of the SSI components (see the module docstring)."""

    c_max: float = 50.0
    p_max: float = 2.0
    k_max: float = 100.0
    s_max: float = 0.2
    epsilon: float = 0.01


class Ssi(msgspec.Struct, frozen=True, kw_only=True):
    """Raw components, their normalised values in [0, 1] and the index in [0, 100]."""

    congestion: float
    pressure: float
    complexity: float
    shocks: float
    normalised: tuple[float, float, float, float]
    index: float
    tier: str = ""


def log_normalise(x: float, x_max: float) -> float:
    """clip(log(1 + x) / log(1 + x_max), 0, 1)."""
    return min(max(math.log1p(max(x, 0.0)) / math.log1p(x_max), 0.0), 1.0)


def bottleneck_utilisation(metrics: Metrics, epsilon: float = 0.01) -> float:
    """ρ_nb: the busiest machine group, capped at 1 − ε."""
    finite = [r for r in metrics.group_utilisation.values() if math.isfinite(r)]
    return min(max(finite, default=0.0), 1 - epsilon)


def stress_index(metrics: Metrics, norm: SsiNormalisers | None = None) -> Ssi:
    """The SSI of an instance's metrics."""
    norm = norm or SsiNormalisers()
    rho = bottleneck_utilisation(metrics, norm.epsilon)
    congestion = rho / (1 - rho) * (1 + (metrics.arrival_scv + metrics.processing_scv) / 2)
    pressure = 1 / max(metrics.tightness, norm.epsilon)
    complexity = min(metrics.machines * metrics.mean_route_length / norm.k_max, 1.0)
    shocks = min(metrics.disturbance / norm.s_max, 1.0)
    normalised = (log_normalise(congestion, norm.c_max), log_normalise(pressure, norm.p_max),
                  log_normalise(complexity, 1.0), log_normalise(shocks, 1.0))
    return Ssi(congestion=congestion, pressure=pressure, complexity=complexity, shocks=shocks,
               normalised=normalised, index=100 * sum(normalised) / 4, tier=tier(100 * sum(normalised) / 4))
