"""The closed set of constraint kinds, one module each, and their registry.

A stage of the package (see ``tests/test_import_graph.py``). Takes in table rows and parameters (from
the language) and decisions (:class:`~schedc.core.solution.Solution`); gives out each kind's struct,
its formal meaning, its ``check`` and its claim. The IR holds these structs, so the kinds read an
instance through protocols (:mod:`schedc.kinds.shapes`) and import nothing above :mod:`schedc.core`.

``KINDS`` maps the kind name used in ``.sched`` text and JSON to its struct; ``AnyConstraint``
is the tagged union msgspec decodes. Adding a kind = one module + one line in ``_ALL``.
"""

from __future__ import annotations

from typing import Union

from schedc.kinds.base import (
    AttrRef,
    Bound,
    Constraint,
    Row,
    RowError,
    Selector,
    TableContext,
    ValueFilter,
    Windows,
)
from schedc.kinds.consecutive import Consecutive, Pair
from schedc.kinds.costs import AssignmentCost, CapacityOverflow, Compactness, CostEntry, Spread, Stability
from schedc.kinds.counting import CountBounds, Coverage, OnePerSlot, Requirement
from schedc.kinds.no_idle import NoIdle
from schedc.kinds.objective import ObjectiveBound
from schedc.kinds.optional import OptionalActivities, Selection
from schedc.kinds.precedence_lag import Edge, PrecedenceLag
from schedc.kinds.resource_ties import ResourceTies, Tie
from schedc.kinds.resources import CumulativeRenewable, ModeChoice, NonrenewableBudget, UnaryNoOverlap
from schedc.kinds.same_sequence import Partner, SameSequence
from schedc.kinds.sequences import ConsecutiveRunBounds, PatternCost, PatternProhibition, WindowPatternCost
from schedc.kinds.setup_times import Setup, SetupTimes
from schedc.kinds.skill_requirements import SkillNeedUnit, SkillRequirements
from schedc.kinds.skills import SkillDemand, SkillEligibility, SkillNeed
from schedc.kinds.slots import SlotConflict, Unavailability, Unavailable
from schedc.kinds.spacing import (
    DayLength,
    OrderRow,
    SharedCapacity,
    SlotCost,
    SlotCostRow,
    SlotOrder,
    Spacing,
    ValueMix,
)
from schedc.kinds.timing import Downtime, DueDate, ResourceDowntime, Tardiness, TimeWindow, Window

_ALL: tuple[type[Constraint], ...] = (
    PrecedenceLag,
    UnaryNoOverlap,
    CumulativeRenewable,
    NonrenewableBudget,
    ModeChoice,
    TimeWindow,
    ResourceDowntime,
    Tardiness,
    OnePerSlot,
    Coverage,
    CountBounds,
    SlotConflict,
    Unavailability,
    ConsecutiveRunBounds,
    PatternProhibition,
    WindowPatternCost,
    AssignmentCost,
    CapacityOverflow,
    Spread,
    Stability,
    Compactness,
    ObjectiveBound,
    SetupTimes,
    OptionalActivities,
    NoIdle,
    Consecutive,
    ResourceTies,
    SameSequence,
    SkillEligibility,
    SkillDemand,
    SkillRequirements,
    Spacing,
    SlotOrder,
    SharedCapacity,
    ValueMix,
    SlotCost,
)

KINDS: dict[str, type[Constraint]] = {cls.__struct_config__.tag: cls for cls in _ALL}  # type: ignore[misc]
AnyConstraint = Union[_ALL]  # type: ignore[valid-type]  # noqa: UP007

INTERVAL_KINDS = frozenset({"precedence_lag", "unary_no_overlap", "cumulative_renewable",
                            "nonrenewable_budget", "mode_choice", "time_window", "resource_downtime", "tardiness",
                            "setup_times", "optional", "no_idle", "consecutive", "resource_ties",
                            "same_sequence", "skill_requirements"})
#: kinds that fit either structure (they speak of the objective, not of intervals or slots)
ANY_STRUCTURE_KINDS = frozenset({"objective_bound"})
SLOT_KINDS = frozenset(KINDS) - INTERVAL_KINDS - ANY_STRUCTURE_KINDS


def kind_name(constraint: Constraint) -> str:
    """The tag of a constraint's kind (``precedence_lag``, ``coverage``, …)."""
    return type(constraint).__struct_config__.tag  # type: ignore[return-value]


__all__ = [
    "KINDS", "AnyConstraint", "INTERVAL_KINDS", "SLOT_KINDS", "ANY_STRUCTURE_KINDS", "kind_name",
    "AttrRef", "Bound", "Constraint", "Row", "RowError", "Selector", "TableContext", "ValueFilter", "Windows",
    "AssignmentCost", "CapacityOverflow", "Compactness", "CostEntry", "Spread", "Stability",
    "Coverage", "CountBounds", "OnePerSlot", "Requirement", "Edge", "PrecedenceLag",
    "CumulativeRenewable", "ModeChoice", "NonrenewableBudget", "UnaryNoOverlap",
    "ConsecutiveRunBounds", "PatternCost", "PatternProhibition", "WindowPatternCost",
    "SlotConflict", "Unavailability", "Unavailable",
    "ObjectiveBound", "Setup", "SetupTimes", "OptionalActivities", "Selection",
    "NoIdle", "Consecutive", "Pair", "ResourceTies", "Tie", "SameSequence", "Partner",
    "SkillDemand", "SkillEligibility", "SkillNeed", "SkillNeedUnit", "SkillRequirements",
    "Spacing", "DayLength", "SlotOrder", "OrderRow", "SharedCapacity", "ValueMix", "SlotCost", "SlotCostRow",
    "DueDate", "Downtime", "ResourceDowntime", "Tardiness", "TimeWindow", "Window",
]
