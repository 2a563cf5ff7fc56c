"""Typed ``key=value`` parameters of constraint statements, in both directions.

The parser turns each parameter into a raw value — ``("word", text)``, ``("string", text)``,
``("attr", name)``, ``("list", [raw...])``, ``("selector", text)``, ``("call", text)`` — and
:func:`coerce` converts it to the type the kind's struct field declares (read from its
annotation). :func:`format_value` is the inverse used by the printer. A value that does not
fit raises :class:`ParamError` with a message saying what was expected.
"""

from __future__ import annotations

import re
import types
import typing
from functools import cache
from typing import Any, Literal, Union, get_args, get_origin

import msgspec

from schedc.core.literals import quote, quote_word, unquote
from schedc.kinds.base import AttrRef, Selector, ValueFilter, Windows, ascii_int

__all__ = ["ParamError", "coerce", "field_types", "format_value", "quote", "quote_word", "unquote"]

Raw = tuple[str, Any]

_SELECTOR = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.\-]*)\[([^\]\s]*)\]$")
_CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\(([^)\s]*)\)$")


class ParamError(Exception):
    """A parameter value that does not fit its declared type."""


@cache
def field_types(cls: type[msgspec.Struct]) -> dict[str, Any]:
    """The resolved annotations of a struct's fields (class variables excluded), in field order."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in msgspec.structs.fields(cls)}


def describe(tp: Any) -> str:
    """A short human description of a type, for error messages."""
    if tp is int:
        return "an integer"
    if tp is str:
        return "a name"
    if tp is bool:
        return "true or false"
    if tp is type(None):
        return "nothing"
    origin = get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(str(a) for a in get_args(tp))
    if origin in (Union, types.UnionType):
        return " or ".join(describe(a) for a in get_args(tp) if a is not type(None))
    if origin is tuple:
        return "a list [a b ...]"
    return {Selector: "a selector (class, class[attr=value] or class[n1,n2])",
            ValueFilter: "a value filter (work, free, a value, or a list [v1 v2])",
            Windows: "days or weekends(Definition)", AttrRef: "@attribute"}.get(tp, getattr(tp, "__name__", str(tp)))


def coerce(raw: Raw, tp: Any) -> Any:
    """Convert a raw parameter to type ``tp`` or raise :class:`ParamError`."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        for option in get_args(tp):
            if option is type(None):
                continue
            try:
                return coerce(raw, option)
            except ParamError:
                continue
        raise ParamError(f"expected {describe(tp)}, found {show_raw(raw)}")
    converter = _CONVERTERS.get(tp)
    if converter is not None:
        return converter(raw)
    if origin is Literal:
        if raw[0] == "word" and raw[1] in get_args(tp):
            return raw[1]
        raise ParamError(f"expected {describe(tp)}, found {show_raw(raw)}")
    if origin is tuple:
        if raw[0] != "list":
            raise ParamError(f"expected a list [a b ...], found {show_raw(raw)}")
        return tuple(_word(item) for item in raw[1])
    raise ParamError(f"unsupported parameter type {describe(tp)}")


def show_raw(raw: Raw) -> str:
    kind, value = raw
    if kind == "list":
        return "[" + " ".join(show_raw(v) for v in value) + "]"
    if kind == "attr":
        return "@" + value
    if kind == "string":
        return '"' + value + '"'
    return str(value)


def _word(raw: Raw) -> str:
    if raw[0] in ("word", "string"):
        return raw[1]
    raise ParamError(f"expected a name, found {show_raw(raw)}")


def _int(raw: Raw) -> int:
    value = ascii_int(raw[1]) if raw[0] == "word" else None
    if value is not None:
        return value
    raise ParamError(f"expected an integer, found {show_raw(raw)}")


def _bool(raw: Raw) -> bool:
    if raw == ("word", "true"):
        return True
    if raw == ("word", "false"):
        return False
    raise ParamError(f"expected true or false, found {show_raw(raw)}")


def _attr(raw: Raw) -> AttrRef:
    if raw[0] == "attr":
        return AttrRef(attr=raw[1])
    raise ParamError(f"expected @attribute, found {show_raw(raw)}")


def _selector(raw: Raw) -> Selector:
    if raw[0] == "word":
        return Selector(cls=raw[1])
    if raw[0] != "selector":
        raise ParamError(f"expected {describe(Selector)}, found {show_raw(raw)}")
    match = _SELECTOR.match(raw[1])
    assert match is not None  # the lexer only produces matching tokens
    cls, inside = match.groups()
    items = [s for s in inside.split(",") if s]
    if not items:
        raise ParamError(f"empty selector {raw[1]}: write {cls}[attr=value] or {cls}[name1,name2]")
    pairs = [item.split("=", 1) for item in items]
    if all(len(p) == 2 for p in pairs):
        return Selector(cls=cls, where=tuple((k, v) for k, v in pairs))
    if any(len(p) == 2 for p in pairs):
        raise ParamError(f"selector {raw[1]} mixes attr=value conditions and names")
    return Selector(cls=cls, names=tuple(items))


def _value_filter(raw: Raw) -> ValueFilter:
    if raw == ("word", "work"):
        return ValueFilter(mode="work")
    if raw == ("word", "free"):
        return ValueFilter(mode="free")
    if raw[0] == "word":
        return ValueFilter(mode="values", values=(raw[1],))
    if raw[0] == "list" and raw[1]:
        return ValueFilter(mode="values", values=tuple(_word(v) for v in raw[1]))
    raise ParamError(f"expected {describe(ValueFilter)}, found {show_raw(raw)}")


def _windows(raw: Raw) -> Windows:
    if raw == ("word", "days"):
        return Windows()
    if raw[0] == "call":
        match = _CALL.match(raw[1])
        assert match is not None
        name, arg = match.groups()
        if name == "weekends" and arg:
            return Windows(over="weekends", weekend=arg)
    raise ParamError(f"expected {describe(Windows)}, found {show_raw(raw)}")


_CONVERTERS = {int: _int, str: _word, bool: _bool, AttrRef: _attr, Selector: _selector,
               ValueFilter: _value_filter, Windows: _windows}


def format_value(value: Any) -> str:
    """The canonical text of a coerced parameter value (inverse of :func:`coerce`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return quote_word(value)
    if isinstance(value, tuple):
        return "[" + " ".join(format_value(v) for v in value) + "]"
    if isinstance(value, AttrRef):
        return "@" + value.attr
    if isinstance(value, Selector):
        if value.where:
            return value.cls + "[" + ",".join(f"{k}={v}" for k, v in value.where) + "]"
        if value.names:
            return value.cls + "[" + ",".join(value.names) + "]"
        return value.cls
    if isinstance(value, ValueFilter):
        if value.mode != "values":
            return value.mode
        single = len(value.values) == 1 and value.values[0] not in ("work", "free")
        return quote_word(value.values[0]) if single else format_value(value.values)
    if isinstance(value, Windows):
        return "days" if value.over == "days" else f"weekends({value.weekend})"
    raise TypeError(f"cannot format parameter value {value!r}")
