"""The typed scheduling IR (see :mod:`schedc.ir.nodes` and :mod:`schedc.ir.instance`).

A stage of the package (see ``tests/test_import_graph.py``). Takes in nothing but the kinds (the
constraint structs an instance holds); gives out the frozen nodes every later stage reads —
:class:`Instance`, :class:`Family`, entities, activities — and the canonical display names
(:mod:`schedc.ir.names`). Imports only :mod:`schedc.core` and :mod:`schedc.kinds`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from schedc.ir.instance import Family, Instance, Objective, PlanStep, Structure
from schedc.ir.nodes import (
    WEEKDAYS,
    Activity,
    AttributeDecl,
    AttrValue,
    Calendar,
    Entity,
    EntityClass,
    Meta,
    Mode,
    Node,
    Resource,
    SlotDecision,
    Use,
)


def without_spans(value: Any) -> Any:
    """The builtin form of an IR value with every ``span`` (and ``horizon_span``) removed (for equality tests)."""
    return _drop_spans(msgspec.to_builtins(value))


def _drop_spans(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_spans(v) for k, v in value.items() if k != "span" and not k.endswith("_span")}
    if isinstance(value, (list, tuple)):
        return [_drop_spans(v) for v in value]
    return value


def equal_ignoring_spans(a: Any, b: Any) -> bool:
    """IR equality as the project uses it: all fields equal except source spans."""
    return without_spans(a) == without_spans(b)


def to_json(instance: Instance) -> bytes:
    return msgspec.json.encode(instance)


def from_json(data: bytes | str) -> Instance:
    return msgspec.json.decode(data, type=Instance)


__all__ = [
    "WEEKDAYS", "Activity", "AttributeDecl", "AttrValue", "Calendar", "Entity", "EntityClass", "Family",
    "Instance", "Meta", "Mode", "Node", "Objective", "PlanStep", "Resource", "SlotDecision", "Structure",
    "Use", "equal_ignoring_spans", "from_json", "to_json", "without_spans",
]
