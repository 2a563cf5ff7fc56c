"""Resource kinds of interval families: ``unary_no_overlap``, ``cumulative_renewable``,
``nonrenewable_budget``.

Each applies to the resources it names (``resources=[M1 M2]``) or to every resource of its
type (``resources=all``, the default). The intervals involved are those of the activities
whose *chosen* mode uses the resource.
"""

from __future__ import annotations

from typing import Literal

from schedc.kinds.base import Constraint

ResourceScope = Literal["all"] | tuple[str, ...]


class UnaryNoOverlap(Constraint, frozen=True, kw_only=True, tag="unary_no_overlap"):
    """Unary resources: present intervals on the resource are pairwise disjoint.

    Formal meaning: for every resource r and activities a ≠ b whose chosen modes use r,
    ``E_a ≤ S_b ∨ E_b ≤ S_a``. Touching intervals (``E_a = S_b``) are allowed and
    zero-length intervals never conflict.

    Counting rule: one violation per overlapping pair on a resource (amount 1 each).
    """

    resources: ResourceScope = "all"


class CumulativeRenewable(Constraint, frozen=True, kw_only=True, tag="cumulative_renewable"):
    """Renewable resources: the running demand never exceeds the capacity.

    Formal meaning: for every renewable resource r with capacity C_r and every integer
    time t, ``Σ_{a : S_a ≤ t < E_a} q_{a,r}(mode_a) ≤ C_r``.

    Counting rule: one violation per resource and maximal time segment where the load
    exceeds the capacity; its amount is the excess summed over the time units of the
    segment.
    """

    resources: ResourceScope = "all"


class NonrenewableBudget(Constraint, frozen=True, kw_only=True, tag="nonrenewable_budget"):
    """Non-renewable resources: total consumption stays within the budget.

    Formal meaning: for every non-renewable resource r with budget B_r,
    ``Σ_a q_{a,r}(mode_a) ≤ B_r`` (consumed once per activity).

    Counting rule: one violation per resource over budget; amount = the excess.
    """

    resources: ResourceScope = "all"


class ModeChoice(Constraint, frozen=True, kw_only=True, tag="mode_choice"):
    """Every activity executes in exactly one of its modes (for job shops with machine
    choice, a mode is an eligible machine). The mode fixes the duration and resource use.

    Formal meaning: ``mode_a ∈ {1, …, |modes(a)|}`` for every activity a.

    Counting rule: one violation per activity given a mode it does not have.
    """
