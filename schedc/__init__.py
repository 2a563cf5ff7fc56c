"""schedc: a declarative DSL compiler for scheduling problems."""

from pathlib import Path as _Path

__version__ = "0.1.0"

# Installed, `grammar/`, `specs/`, `templates/` and `backends/` are subpackages of schedc
# (pyproject.toml maps them in). Imported straight from a source checkout, they live beside
# this folder: let the package search there too, so both layouts import the same names.
_CHECKOUT = _Path(__file__).resolve().parent.parent
if (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / "backends" / "__init__.py").is_file():
    __path__.append(str(_CHECKOUT))  # type: ignore[name-defined]  # noqa: F821
