"""Failure-mode categories of an answer's problems (ConstraintBench's taxonomy).

Every hard violation, every structural issue and every unparseable line of a verified answer
gets one category, derived only from what the verifier found (the constraint kind, the issue
kind, the violation's amount):

=============================  =====================================================================
category                       what falls into it
=============================  =====================================================================
``entity_hallucination``       a line naming an entity the instance does not have (issue
                               ``unknown_entity``: an unknown job, step, activity, nurse, room …)
``unparseable``                a line with schedule values that does not match the answer format
                               (skipped as ``does not match the answer format``), a ``format``
                               issue (missing or wrong header), or an answer with no schedule line
``structural_misunderstanding`` the shape of the answer is wrong: ``missing``, ``duplicate``,
                               ``conflicting_duplicate`` and ``out_of_domain`` issues, and
                               violations of the kinds in :data:`STRUCTURAL_KINDS` (one value per
                               agent and slot, a mode the activity does not have)
``budget_threshold_near_miss`` a violation of a kind in :data:`THRESHOLD_KINDS` (a capacity (also shared), budget,
                               count, run-length, coverage or skill demand, deadline, horizon or objective
                               bound) whose amount is at most :data:`NEAR_MISS_UNITS`: the bound is exceeded
                               or missed by one unit
``constraint_specific``        every other hard violation: precedences, overlaps, conflicts,
                               unavailability, downtime, forbidden patterns, and threshold
                               violations beyond the near-miss margin
=============================  =====================================================================
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

CATEGORIES = ("structural_misunderstanding", "entity_hallucination", "unparseable", "constraint_specific",
              "budget_threshold_near_miss")
NEAR_MISS_UNITS = 1
THRESHOLD_KINDS = frozenset({"cumulative_renewable", "nonrenewable_budget", "count_bounds", "consecutive_run_bounds",
                             "coverage", "skill_demand", "capacity_overflow", "spread", "stability",
                             "time_window", "objective_bound", "horizon", "shared_capacity"})
STRUCTURAL_KINDS = frozenset({"one_per_slot", "mode_choice"})
ISSUE_CATEGORIES = {"unknown_entity": "entity_hallucination", "format": "unparseable",
                    "missing": "structural_misunderstanding", "duplicate": "structural_misunderstanding",
                    "conflicting_duplicate": "structural_misunderstanding",
                    "out_of_domain": "structural_misunderstanding"}
UNPARSEABLE_REASON = "does not match the answer format"


def violation_category(kind: str, amount: int) -> str:
    """The category of a hard violation of constraint kind ``kind`` with size ``amount``."""
    if kind in STRUCTURAL_KINDS:
        return "structural_misunderstanding"
    if kind in THRESHOLD_KINDS and amount <= NEAR_MISS_UNITS:
        return "budget_threshold_near_miss"
    return "constraint_specific"


def issue_category(kind: str) -> str:
    """The category of a structural issue (``Issue.kind``)."""
    return ISSUE_CATEGORIES.get(kind, "structural_misunderstanding")


def is_unparseable(reason: str) -> bool:
    """Whether a skipped line's reason says it carried values in a shape the format does not accept."""
    return reason.startswith(UNPARSEABLE_REASON)


def count(categories: Iterable[str]) -> dict[str, int]:
    """Counts per category, every category present (zeros included), in :data:`CATEGORIES` order."""
    seen = Counter(categories)
    return {c: seen[c] for c in CATEGORIES}
