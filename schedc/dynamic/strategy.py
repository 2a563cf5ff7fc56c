"""SESC strategy choice: impact vectors and the asymmetric penalty φ (DynaSchedBench eq. 32).

Every operator s has an **impact vector** I_s over the metrics: I_{s,l} ∈ [0, 1] is the share of
metric l's error that s is expected to remove (1 for the metric it targets), I_{s,l} < 0 the side
effect it is expected to cause on l, per unit of error it removes. For the error vector e the
predicted errors after s are

    |ê_l| = (1 − I_{s,l}) |e_l|                       if I_{s,l} ≥ 0
    |ê_l| = |e_l| + |I_{s,l}| Σ_k I⁺_{s,k} |e_k|       if I_{s,l} < 0

and a candidate error vector e' (predicted or measured) replacing e is scored

    J(e', e) = Σ_l e'_l² + φ(e', e),
    φ(e', e) = λ_hard Σ_{l: |e_l| ≤ ε_tol} [|e'_l| − ε_tol]₊² + λ_soft Σ_{l: |e_l| > ε_tol} [|e'_l| − |e_l|]₊²

(λ_hard ≫ λ_soft: pushing a satisfied metric out of its band ε_tol is what costs). With
``selection = "impact"`` the operators are ranked by J of their *predicted* errors and evaluated in
that order; the first whose *measured* J beats Σ e_l² is applied, so a step usually costs one or
two evaluations. After every evaluation the operator's impact vector moves halfway towards the
measured effect (1 − |e'_l|/|e_l| on the metrics it targets, minus the error added per unit removed
on the others), so the ranking learns the instance.
``selection = "exhaustive"`` evaluates every operator and applies the best measured J (the
previous behaviour). ``benchmarks/dfjsp_calibration.py`` measures both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")

# Declared impact vectors: "bottleneck" stands for every window key bottleneck[i].
IMPACTS: dict[str, dict[str, float]] = {
    "rate": {"utilisation": 1.0, "arrival_scv": -0.2, "imbalance": -0.1, "bottleneck": -0.2},
    "renewal": {"arrival_scv": 1.0, "bottleneck": -0.2},
    "processing": {"processing_scv": 1.0, "tightness": -0.1},
    "window": {"bottleneck": 0.8, "arrival_scv": -0.1},
    "slack": {"tightness": 1.0},
    "outages": {"disturbance": 1.0, "bottleneck": 1.0},
    "imbalance": {"imbalance": 1.0, "bottleneck": -0.2},  # its move repairs c_p², τ and outages itself
}
LEARNING_RATE = 0.5


@dataclass(frozen=True)
class Penalty:
    """φ's weights and satisfaction band."""

    lambda_soft: float = 1.0
    lambda_hard: float = 100.0
    epsilon_tol: float = 0.05

    def score(self, new: Mapping[str, float], old: Mapping[str, float]) -> float:
        """J(e', e) = Σ e'² + φ(e', e) (module docstring); lower is better."""
        total = 0.0
        for key, e in new.items():
            before, after = abs(old[key]), abs(e)
            total += e * e
            if before <= self.epsilon_tol:
                total += self.lambda_hard * max(after - self.epsilon_tol, 0.0) ** 2
            else:
                total += self.lambda_soft * max(after - before, 0.0) ** 2
        return total


def _key(metric: str) -> str:
    return metric.split("[")[0]


def predict(errors: Mapping[str, float], impact: Mapping[str, float]) -> dict[str, float]:
    """Predicted |ê| after an operator with ``impact`` (module docstring)."""
    removed = sum(max(impact.get(_key(k), 0.0), 0.0) * abs(e) for k, e in errors.items())
    out = {}
    for k, e in errors.items():
        i = impact.get(_key(k), 0.0)
        out[k] = (1 - i) * abs(e) if i >= 0 else abs(e) + (-i) * removed
    return out


@dataclass
class Selector(Generic[T]):
    """Chooses the operator of each SESC step (module docstring); keeps the learnt impact vectors."""

    penalty: Penalty
    exhaustive: bool = False
    impacts: dict[str, dict[str, float]] = field(default_factory=lambda: {k: dict(v) for k, v in IMPACTS.items()})

    def ranked(self, errors: Mapping[str, float], names: list[str]) -> list[str]:
        """Operators by predicted J (ties: catalogue order)."""
        return sorted(names, key=lambda n: self.penalty.score(predict(errors, self.impacts.get(n, {})), errors))

    def learn(self, name: str, old: Mapping[str, float], new: Mapping[str, float]) -> None:
        """Move the impact vector halfway towards the measured effect: on a targeted metric the share
        of its error removed, elsewhere minus the error added per unit of error removed."""
        impact = self.impacts.setdefault(name, {})
        removed = sum(max(impact.get(_key(k), 0.0), 0.0) * abs(e) for k, e in old.items())
        for key in {_key(k) for k in old}:
            pairs = [(abs(e), abs(new[k])) for k, e in old.items() if _key(k) == key]
            current = impact.get(key, 0.0)
            if current > 0:
                shares = [1 - after / before for before, after in pairs if before > 1e-9]
                if not shares:
                    continue
                measured = min(max(sum(shares) / len(shares), 0.0), 1.0)
            elif removed > 1e-9:
                measured = -max(sum(after - before for before, after in pairs) / removed, 0.0)
            else:
                continue
            impact[key] = current + LEARNING_RATE * (measured - current)

    def choose(self, errors: Mapping[str, float], names: list[str],
               evaluate: Callable[[str], tuple[Mapping[str, float], T] | None]) -> tuple[str, T] | None:
        """The operator to apply and its result, or None when no operator improves Σ e²."""
        base = sum(e * e for e in errors.values()) - 1e-12
        best: tuple[float, str, T] | None = None
        for name in (names if self.exhaustive else self.ranked(errors, names)):
            found = evaluate(name)
            if found is None:
                continue
            new, candidate = found
            self.learn(name, errors, new)
            value = self.penalty.score(new, errors)
            if value < base and (best is None or value < best[0]):
                best = (value, name, candidate)
                if not self.exhaustive:
                    break
        return None if best is None else (best[1], best[2])
