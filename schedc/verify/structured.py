"""Structured answers read back as answer text: ``{"assignments": [{...}, ...]}`` → the answer lines.

A structured answer (the JSON object ``schedc grammar --format json-schema`` describes, maybe in a
code fence) is written out as the lines of the family's answer format, values as given, so that the
verifier judges it exactly as it would a text answer. The schema itself is :mod:`schedc.grammars`'s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import msgspec

from schedc.ir import Family, Instance
from schedc.verify.answers import LIST_FIELDS, AnswerFormat, fill_template

#: Fields that hold names (the other fields hold integers).
NAME_FIELDS = ("job", "activity", "machine", "agent", "value")
#: Numbers of a structured answer are below this, as in a text answer.
MAX_INT = 10**100


def _family(instance: Instance, family: Family | None) -> Family:
    """The given family, or the one the instance names (looked up among the built-in families)."""
    if family is not None:
        return family
    from schedc.lang.family import load_family

    return load_family(instance.family)


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


def _item_values(item: Mapping[str, Any], index: int, fields: list[str],
                 roles: tuple[str, ...] = ()) -> dict[str, str]:
    """An item's fields as the strings the answer line shows (``roles``: the resource-role fields, names too)."""
    values = {}
    for field in fields:
        if field not in item:
            raise ValueError(f"item {index} lacks {field!r}")
        value = item[field]
        if field in LIST_FIELDS:
            values[field] = _list_value(value, index, field)
            continue
        values[field] = _name_value(value, index, field) if field in NAME_FIELDS + roles else \
            _int_value(value, index, field)
    return values


def _name_value(value: Any, index: int, field: str) -> str:
    """A name field as written: a string (or an integer) on one line."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < MAX_INT:
        return str(value)
    if not isinstance(value, str):
        raise ValueError(f"item {index}: {field} must be a string, not {_json_type(value)}")
    if any(ch in value for ch in "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
        raise ValueError(f"item {index}: {field} must be on one line")
    return value


def _list_value(value: Any, index: int, field: str) -> str:
    """A list field as written: an array of names (``["W1", "W4"]`` → ``W1, W4``; empty → ``-``)."""
    if not isinstance(value, list):
        raise ValueError(f"item {index}: {field} must be an array of names, not {_json_type(value)}")
    names = [_name_value(v, index, field) for v in value]
    return ", ".join(names) if names else "-"


def _int_value(value: Any, index: int, field: str) -> str:
    """A number field as written: an integer (or an integral float) of at most 100 digits."""
    if isinstance(value, float) and value.is_integer():  # False for inf and nan
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        shown = repr(value) if isinstance(value, float | str) and len(repr(value)) <= 40 else _json_type(value)
        raise ValueError(f"item {index}: {field} must be an integer, not {shown}")
    if abs(value) >= MAX_INT:
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
    lines = [fill_template(family.answer, _item_values(item, index, fmt.fields, fmt.roles))
             for index, item in enumerate(items)]
    if family.answer_header:
        lines.insert(0, fill_template(family.answer_header, {"count": str(len(items))}))
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
