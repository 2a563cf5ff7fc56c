"""Structured answers: the JSON Schema of an answer format, and structured answers read back as answer text."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from schedc.grammars.spec import (
    _MAX_INT,
    _NAME_FIELDS,
    SCHEMA_DRAFT,
    AnswerSpec,
    Domain,
    IntRange,
    LineGroup,
    _family,
    _fill,
)
from schedc.ir import Family, Instance
from schedc.verify.answers import AnswerFormat


def schema_limits(spec: AnswerSpec) -> list[str]:
    """What the JSON Schema of ``spec`` cannot say (it describes the items one by one)."""
    key = {"operation": "(job, step)"}.get(spec.unit, spec.unit)
    limits = [f"that no {key} is listed twice: JSON Schema has no uniqueness by key (only the number of "
              "items is bounded, where the instance fixes it)"]
    if "machine" in spec.fields:
        limits.append("which machines may process each operation (only the machine names are listed)")
    starts = [g.domains["start"] for g in spec.groups if "start" in g.domains]
    if starts and any(isinstance(d, IntRange) and d.hi is None for d in starts):
        limits.append("an upper bound on start times (the instance states no horizon)")
    elif starts:
        limits.append("that each item ends by the horizon (only its start is bounded by it)")
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
    if isinstance(domain, IntRange):
        schema: dict[str, Any] = {"type": "integer", "minimum": domain.lo}
        if domain.hi is not None:
            schema["maximum"] = domain.hi
            if domain.hi - domain.lo < ENUM_LIMIT:
                schema["enum"] = list(range(domain.lo, domain.hi + 1))
        return schema
    return {"type": "string", "enum": list(dict.fromkeys(domain))}


def decode_structured(text: str) -> Any:
    """A JSON text as Python data, or a ValueError saying why it is not JSON.

    Strict JSON (no ``NaN`` or ``Infinity``, numbers in range) through msgspec; nesting too deep
    for the interpreter's stack is reported as an error, not raised as RecursionError.
    """
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    except RecursionError:
        raise ValueError("not JSON: nested too deeply") from None


def _items(data: Any) -> list[Mapping[str, Any]]:
    """The items of a structured answer, or a ValueError."""
    if not isinstance(data, Mapping) or not isinstance(data.get("assignments"), list):
        raise ValueError('a structured answer is an object {"assignments": [...]}')
    items = data["assignments"]
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ValueError(f"item {index} is not an object")
    return items


def _item_values(item: Mapping[str, Any], index: int, fields: list[str]) -> dict[str, str]:
    """An item's fields as the strings the answer line shows."""
    values = {}
    for field in fields:
        if field not in item:
            raise ValueError(f"item {index} lacks {field!r}")
        value = item[field]
        values[field] = _name_value(value, index, field) if field in _NAME_FIELDS else _int_value(value, index, field)
    return values


def _name_value(value: Any, index: int, field: str) -> str:
    """A name field as written: a string (or an integer) on one line."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < _MAX_INT:
        return str(value)
    if not isinstance(value, str):
        raise ValueError(f"item {index}: {field} must be a string, not {_json_type(value)}")
    if any(ch in value for ch in "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
        raise ValueError(f"item {index}: {field} must be on one line")
    return value


def _int_value(value: Any, index: int, field: str) -> str:
    """A number field as written: an integer (or an integral float) of at most 100 digits."""
    if isinstance(value, float) and value.is_integer():  # False for inf and nan
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        shown = repr(value) if isinstance(value, float | str) and len(repr(value)) <= 40 else _json_type(value)
        raise ValueError(f"item {index}: {field} must be an integer, not {shown}")
    if abs(value) >= _MAX_INT:
        raise ValueError(f"item {index}: {field} has more than 100 digits")
    return str(value)


def _json_type(value: Any) -> str:
    """The JSON type of a decoded value, as an error message names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return {str: "a string", list: "an array", dict: "an object"}.get(type(value), type(value).__name__)


# ---------------------------------------------------------------------------------------- the text stanza

def structured_to_text(instance: Instance, family: Family | None, names: Mapping[str, str] | None,
                       data: Mapping[str, Any] | str) -> str:
    """A structured answer (``{"assignments": [{...}, ...]}``, as :func:`json_schema` describes) as answer text.

    Values are written as given, in the given order, so that the verifier reports unknown names or
    out-of-range numbers as it would in a text answer; the header's ``<count>`` is the number of items.
    ``names`` is not needed to write (the values carry the display names) and is accepted for symmetry
    with :func:`answer_grammar`. Raises ValueError when ``data`` is not such an object, an item lacks a
    field, or a number is not an integer.
    """
    family = _family(instance, family)
    del names
    items = _items(decode_structured(data) if isinstance(data, str) else data)
    fmt = AnswerFormat(family)
    lines = [_fill(family.answer, _item_values(item, index, fmt.fields)) for index, item in enumerate(items)]
    if family.answer_header:
        lines.insert(0, _fill(family.answer_header, {"count": str(len(items))}))
    return "\n".join(lines) + "\n"


_FENCE = re.compile(r"\A\s*```[A-Za-z]*\s*\n(.*)\n\s*```\s*\Z", re.S)


def answer_text(instance: Instance, family: Family | None, text: str) -> str:
    """An answer as the verifier reads it: a structured answer (JSON, maybe in a code fence) becomes text.

    Anything that is not a JSON object with ``assignments`` — and a structured answer that
    :func:`structured_to_text` refuses — is returned unchanged, so the verifier reports it as it would
    any answer text (usually: nothing extracted).
    """
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text
    if not body.lstrip().startswith("{"):
        return text
    try:
        return structured_to_text(instance, family, None, json.loads(body))
    except ValueError:  # json.JSONDecodeError included
        return text


# ---------------------------------------------------------------------------------------- the spec
