"""ConstraintBench's metrics over ``bench eval``'s answer verdicts, as tables by model × family.

Every table has one row per (model, family) and an ``all`` row per model; ``n`` is the number of
answer slots. An answer whose request ended in an error (``status`` ``error``) counts as not
extracted and infeasible, and is counted in the ``errors`` column.

* **optimality** — ``feasible``/``feasible_rate`` (with its 95 % Wilson interval); ``judged`` the
  feasible answers that have a reference value (BKS or validated reference); for every
  ε ∈ {0.1, 0.5, 1, 5} %: ``opt_<ε>`` = answers within ε of the reference / n and
  ``cond_opt_<ε>`` = P(optimal within ε | feasible) = answers within ε / judged.
* **threshold sensitivity** — one row per (model, ε): ``within``, ``rate`` (within / n),
  ``conditional`` (within / judged), how the optimality verdict moves with the threshold.
* **self-report** — ``objective`` the answers with a recomputed objective, ``stated`` those of
  them that state one, ``discrepant`` the stated objectives that differ from the recomputed one,
  and the median / max of the relative error |stated − recomputed| / max(|recomputed|, 1) over
  the discrepant ones.
* **failure modes** — counts per category (:mod:`schedc.verify.failure_modes`) summed over answers,
  and ``answers`` the number of answers with at least one categorised problem.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np

from schedc.bench.stats import wilson
from schedc.verify.failure_modes import CATEGORIES
from schedc.verify.verifier import EPSILONS

EPS_KEYS = tuple(f"{e:g}" for e in EPSILONS)
OPTIMALITY_COLUMNS = ("model", "family", "n", "errors", "feasible", "feasible_rate", "feasible_ci_low",
                      "feasible_ci_high", "judged", *(f"opt_{e}" for e in EPS_KEYS),
                      *(f"cond_opt_{e}" for e in EPS_KEYS))
THRESHOLD_COLUMNS = ("model", "epsilon", "n", "judged", "within", "rate", "conditional")
SELF_REPORT_COLUMNS = ("model", "family", "objective", "stated", "discrepant", "rel_error_median", "rel_error_max")
FAILURE_COLUMNS = ("model", "family", "answers", *CATEGORIES)


def _ratio(count: int, total: int) -> float | None:
    return round(count / total, 6) if total else None


def _within(rows: list[dict[str, Any]], eps: str) -> int:
    return sum(1 for r in rows if r["feasible"] and r.get("optimal_within", {}).get(eps))


def _judged(rows: list[dict[str, Any]]) -> int:
    return sum(1 for r in rows if r["feasible"] and r.get("optimal_within"))


def by_model_family(results: list[dict[str, Any]],
                    row: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> list[dict[str, Any]]:
    """``row`` of every (model, family) group in first-seen order, then of every model (family ``all``)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in results:
        groups[(r["model"], r["family"])].append(r)
        groups[(r["model"], "all")].append(r)
    models = list(dict.fromkeys(r["model"] for r in results))
    families = list(dict.fromkeys(r["family"] for r in results))
    keys = [(m, f) for m in models for f in (*families, "all") if (m, f) in groups]
    return [{"model": m, "family": f, **row(groups[(m, f)])} for m, f in keys]


def optimality_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Feasibility, errors and optimality within ε of one group (definitions in the module docstring)."""
    n, feasible, judged = len(rows), sum(1 for r in rows if r["feasible"]), _judged(rows)
    low, high = wilson(feasible, n)
    out: dict[str, Any] = {"n": n, "errors": sum(1 for r in rows if r.get("status") == "error"),
                           "feasible": feasible, "feasible_rate": _ratio(feasible, n),
                           "feasible_ci_low": None if low is None else round(low, 6),
                           "feasible_ci_high": None if high is None else round(high, 6), "judged": judged}
    out |= {f"opt_{e}": _ratio(_within(rows, e), n) for e in EPS_KEYS}
    out |= {f"cond_opt_{e}": _ratio(_within(rows, e), judged) for e in EPS_KEYS}
    return out


def threshold_table(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (model, ε): how many answers are optimal within ε, over n and over judged."""
    rows = []
    for model in dict.fromkeys(r["model"] for r in results):
        mine = [r for r in results if r["model"] == model]
        judged = _judged(mine)
        for e in EPS_KEYS:
            within = _within(mine, e)
            rows.append({"model": model, "epsilon": e, "n": len(mine), "judged": judged, "within": within,
                         "rate": _ratio(within, len(mine)), "conditional": _ratio(within, judged)})
    return rows


def self_report_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Stated vs recomputed objectives of one group."""
    computed = [r for r in rows if r.get("objective") is not None]
    stated = [r for r in computed if r.get("stated_objective") is not None]
    errors = [r["stated_objective_error"] for r in stated if r["stated_objective"] != r["objective"]]
    return {"objective": len(computed), "stated": len(stated), "discrepant": len(errors),
            "rel_error_median": round(float(np.median(errors)), 6) if errors else None,
            "rel_error_max": round(float(max(errors)), 6) if errors else None}


def failure_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Failure-mode counts of one group."""
    totals = dict.fromkeys(CATEGORIES, 0)
    answers = 0
    for r in rows:
        modes = r.get("failure_modes") or {}
        answers += any(modes.values())
        for category in CATEGORIES:
            totals[category] += modes.get(category, 0)
    return {"answers": answers, **totals}


def constraintbench_tables(results: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The four ConstraintBench tables of the module docstring."""
    return {"optimality": by_model_family(results, optimality_row), "threshold": threshold_table(results),
            "self_report": by_model_family(results, self_report_row),
            "failure_modes": by_model_family(results, failure_row)}


TABLES = (("optimality", "Optimality within ε (ConstraintBench)", OPTIMALITY_COLUMNS),
          ("threshold", "Threshold sensitivity", THRESHOLD_COLUMNS),
          ("self_report", "Self-report discrepancy: stated vs recomputed objective", SELF_REPORT_COLUMNS),
          ("failure_modes", "Failure modes of violations", FAILURE_COLUMNS))
