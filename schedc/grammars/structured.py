"""Structured answers: the JSON Schema of an answer format.

Such answers are read back as answer text by :mod:`schedc.verify.structured`.
"""

from __future__ import annotations

from typing import Any

from schedc.grammars.spec import SCHEMA_DRAFT, AnswerSpec, Domain, IntRange, LineGroup, NameList
from schedc.verify.structured import answer_text, decode_structured, structured_to_text

#: Reading a structured answer back is the verifier's work (:mod:`schedc.verify.structured`); the names
#: stay importable here beside the schema that describes such answers.
__all__ = ["answer_text", "decode_structured", "json_schema", "schema_limits", "structured_to_text"]


def schema_limits(spec: AnswerSpec) -> list[str]:
    """What the JSON Schema of ``spec`` cannot say (it describes the items one by one)."""
    key = {"operation": "(job, step)"}.get(spec.unit, spec.unit)
    limits = [f"that no {key} is listed twice: JSON Schema has no uniqueness by key (only the number of "
              "items is bounded, where the instance fixes it)"]
    if "machine" in spec.fields:
        limits.append("which machines may process each operation (only the machine names are listed)")
    if roles := [f for f in spec.fields if f in spec.roles]:
        shown = " and ".join(spec.words.get(r, r) for r in roles)
        limits.append(f"which combinations of {shown} each {spec.unit} allows (only the names of each are listed)")
    starts = [g.domains["start"] for g in spec.groups if "start" in g.domains]
    if starts and any(isinstance(d, IntRange) and d.hi is None for d in starts):
        limits.append("an upper bound on start times (the instance states no horizon)")
    elif starts:
        limits.append("that each item ends by the horizon (only its start is bounded by it)")
    if "workers" in spec.fields:
        limits.append("that the workers of a team are distinct (the verifier counts a repeated one once)")
    if spec.header:
        limits.append(f"the header {spec.header}: its count is the number of items (structured_to_text writes it)")
    limits.append("the constraints of the instance (precedence, capacity, coverage, ...): the verifier checks them")
    return limits


def json_schema(spec: AnswerSpec) -> dict[str, Any]:
    """A JSON Schema (draft 2020-12) of the structured answer ``{"assignments": [item, ...]}``."""
    variants = [_item_schema(spec, group) for group in spec.groups]
    items: dict[str, Any] = variants[0] if len(variants) == 1 else {"anyOf": variants}
    array: dict[str, Any] = {"type": "array", "description": f"one item per {spec.unit}", "items": items,
                             "minItems": spec.min_lines}
    if spec.max_lines is not None:
        array["maxItems"] = spec.max_lines
    return {
        "$schema": SCHEMA_DRAFT,
        "title": f"Answer of {spec.instance} ({spec.family})",
        "description": f"The schedule: one item per {spec.unit}; as a text line each item reads "
                       f"{spec.template!r}" + (f", after a header {spec.header!r}" if spec.header else "") + ".",
        "$comment": "Not expressed: " + "; ".join(schema_limits(spec)) + ".",
        "type": "object",
        "properties": {"assignments": array},
        "required": ["assignments"],
        "additionalProperties": False,
    }


def _item_schema(spec: AnswerSpec, group: LineGroup) -> dict[str, Any]:
    """The object schema of the items of one line group."""
    properties = {field: _field_schema(group.domains[field]) for field in spec.fields}
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


#: Bounded integer fields up to this many values also carry an ``enum`` (see :func:`_field_schema`).
ENUM_LIMIT = 100


def _field_schema(domain: Domain) -> dict[str, Any]:
    """The schema of one field: names as an enum; integers with their bounds.

    A bounded range (step, mode, day, period) of at most :data:`ENUM_LIMIT` values also lists its values
    as an ``enum``: llguidance, xgrammar ≥ 0.1.13, llama.cpp's schema converter and jsonschema honour
    ``minimum``/``maximum``, outlines-core does not (it would let any integer through), and every engine
    honours ``enum``. Unbounded start times keep ``minimum`` only.
    """
    if isinstance(domain, NameList):  # a team: distinct names, written "A, B" (none: "-")
        return {"type": "array", "items": {"type": "string", "enum": list(dict.fromkeys(domain.names))}}
    if isinstance(domain, IntRange):
        schema: dict[str, Any] = {"type": "integer", "minimum": domain.lo}
        if domain.hi is not None:
            schema["maximum"] = domain.hi
            if domain.hi - domain.lo < ENUM_LIMIT:
                schema["enum"] = list(range(domain.lo, domain.hi + 1))
        return schema
    return {"type": "string", "enum": list(dict.fromkeys(domain))}


# ---------------------------------------------------------------------------------------- the spec
