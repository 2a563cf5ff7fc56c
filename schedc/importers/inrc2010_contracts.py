"""The ``<Contracts>`` of an INRC-2010 instance: on/weight rules, boolean rules, weekends, patterns.

Read for :func:`schedc.importers.inrc2010_reader.read_inrc`, by the rules of its docstring
(activity of a rule, absent elements, the weekend definition resolved to the horizon's blocks).
"""

from __future__ import annotations

from collections.abc import Mapping

from schedc.importers.inrc2010_records import (
    WEEKEND_DEFINITIONS,
    InrcBoolRule,
    InrcContract,
    InrcOnWeightRule,
)
from schedc.importers.inrc2010_xml import (
    Horizon,
    XmlFile,
    XmlNode,
    attr,
    boolean,
    group,
    id_attr,
    id_list,
    leaf,
    opt,
    some,
    uint,
    unique,
    weight_attr,
)

_ON_WEIGHT_RULES: Mapping[str, str] = {
    "MaxNumAssignments": "max_num_assignments",
    "MinNumAssignments": "min_num_assignments",
    "MaxConsecutiveWorkingDays": "max_consecutive_working_days",
    "MinConsecutiveWorkingDays": "min_consecutive_working_days",
    "MaxConsecutiveFreeDays": "max_consecutive_free_days",
    "MinConsecutiveFreeDays": "min_consecutive_free_days",
    "MaxConsecutiveWorkingWeekends": "max_consecutive_working_weekends",
    "MinConsecutiveWorkingWeekends": "min_consecutive_working_weekends",
    "MaxWorkingWeekendsInFourWeeks": "max_working_weekends_in_four_weeks",
}

_BOOL_RULES: Mapping[str, str] = {
    "SingleAssignmentPerDay": "single_assignment_per_day",
    "CompleteWeekends": "complete_weekends",
    "IdenticalShiftTypesDuringWeekend": "identical_shift_types_during_weekend",
    "NoNightShiftBeforeFreeWeekend": "no_night_shift_before_free_weekend",
    "TwoFreeDaysAfterNightShifts": "two_free_days_after_night_shifts",
    "AlternativeSkillCategory": "alternative_skill_category",
}

_CONTRACT_CHILDREN: Mapping[str, bool] = {
    "Description": False, **dict.fromkeys(_ON_WEIGHT_RULES, False), **dict.fromkeys(_BOOL_RULES, False),
    "WeekendDefinition": False, "UnwantedPatterns": False,
}

_ABSENT_ON_WEIGHT = InrcOnWeightRule(on=False, weight=0, value=0, active=False, present=False, line=0)


def _on_weight_rule(ctx: XmlFile, node: XmlNode | None) -> InrcOnWeightRule:
    """An on/weight/value rule element (inactive default when absent)."""
    if node is None:
        return _ABSENT_ON_WEIGHT
    on = boolean(ctx, node, attr(ctx, node, "on"), f"the 'on' attribute of <{node.tag}>")
    weight = weight_attr(ctx, node)
    value = uint(ctx, node, leaf(ctx, node, "a non-negative integer"), f"the value of <{node.tag}>", "I514")
    return InrcOnWeightRule(on=on, weight=weight, value=value, active=on and weight > 0, present=True,
                            line=node.line)


def _bool_rule(ctx: XmlFile, node: XmlNode | None, absent_value: bool) -> InrcBoolRule:
    """A weight + boolean rule element (``absent_value``, weight 0 when absent)."""
    if node is None:
        return InrcBoolRule(value=absent_value, weight=0, active=False, present=False, line=0)
    weight = weight_attr(ctx, node)
    value = boolean(ctx, node, leaf(ctx, node, "true or false"), f"the value of <{node.tag}>")
    return InrcBoolRule(value=value, weight=weight, active=value and weight > 0, present=True, line=node.line)


_Weekend = tuple[str, tuple[str, ...], tuple[tuple[int, ...], ...]]


def _weekend(ctx: XmlFile, node: XmlNode | None, horizon: Horizon) -> _Weekend:
    """The weekend definition, its weekday names and its blocks of day indices."""
    name = "SaturdaySunday"
    if node is not None:
        name = leaf(ctx, node, "a weekend definition")
        if name not in WEEKEND_DEFINITIONS:
            raise ctx.error("I522", f"unknown weekend definition {name!r}", node,
                            hint="expected one of " + ", ".join(WEEKEND_DEFINITIONS))
    days = WEEKEND_DEFINITIONS[name]
    blocks = tuple(
        tuple(range(d, min(d + len(days), horizon.n_days)))
        for d in range(horizon.n_days) if horizon.weekday(d) == days[0]
    )
    return name, days, blocks


def _read_contract(ctx: XmlFile, node: XmlNode, patterns: set[str], horizon: Horizon) -> InrcContract:
    """One ``<Contract>``."""
    contract_id = id_attr(ctx, node)
    groups = group(ctx, node, _CONTRACT_CHILDREN)
    rules: dict[str, object] = {
        field: _on_weight_rule(ctx, opt(groups, tag)) for tag, field in _ON_WEIGHT_RULES.items()
    }
    for tag, field in _BOOL_RULES.items():
        rules[field] = _bool_rule(ctx, opt(groups, tag), absent_value=tag == "SingleAssignmentPerDay")
    weekend_node = opt(groups, "WeekendDefinition")
    name, days, blocks = _weekend(ctx, weekend_node, horizon)
    description = opt(groups, "Description")
    return InrcContract(
        id=contract_id,
        description=leaf(ctx, description, "a description", allow_empty=True) if description else None,
        weekend_definition=name, weekend_definition_given=weekend_node is not None,
        weekend_days=days, weekends=blocks,
        unwanted_patterns=id_list(ctx, opt(groups, "UnwantedPatterns"), "Pattern", patterns, "pattern",
                                   "I519"),
        line=node.line,
        **rules,  # type: ignore[arg-type]
    )


def read_contracts(ctx: XmlFile, node: XmlNode, patterns: set[str],
                    horizon: Horizon) -> tuple[InrcContract, ...]:
    """All ``<Contract>`` elements, unique ids, at least one."""
    contracts: list[InrcContract] = []
    seen: dict[str, int] = {}
    for child in some(ctx, node, group(ctx, node, {"Contract": True}), "Contract"):
        contract = _read_contract(ctx, child, patterns, horizon)
        unique(ctx, child, contract.id, seen, "contract")
        contracts.append(contract)
    return tuple(contracts)
