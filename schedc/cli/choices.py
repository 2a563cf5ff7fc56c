"""The closed choices of command-line options, as Enums (Typer lists them in ``--help`` and
rejects anything else before a command runs). Each mirrors a registry of the library; a test
holds them equal (``tests/test_cli_options.py``)."""

from __future__ import annotations

from enum import Enum, StrEnum


class Variant(StrEnum):
    """Surface variants of a rendering (:data:`schedc.render.model.VARIANTS`)."""

    v1 = "v1"
    v2 = "v2"
    v3a = "v3a"
    v3b = "v3b"
    v4 = "v4"


class Backend(StrEnum):
    """Solver backends (:data:`schedc.backends.BACKENDS`)."""

    cpsat = "cpsat"
    pyomo = "pyomo"
    auto = "auto"


class GrammarFormat(StrEnum):
    """Answer-format outputs (:data:`schedc.grammars.FORMATS`)."""

    text = "text"
    lark = "lark"
    gbnf = "gbnf"
    json_schema = "json-schema"


class Duplicates(StrEnum):
    """What a repeated assignment is in ``check`` (:data:`schedc.verify.verifier.DUPLICATE_POLICIES`)."""

    error = "error"
    warn = "warn"


def choice_value(choice: Enum | None) -> str | None:
    """The string of a choice (None stays None)."""
    return None if choice is None else str(choice.value)
