"""schedc: a declarative DSL compiler for scheduling problems.

The Python API (guide: ``docs/api.md``)::

    import schedc

    instance = schedc.load("examples/ft06.sched")          # a path, a .sched text or an Instance
    solved = schedc.solve(instance, time_limit=5)           # .status .objective .bound .answer
    prompt = schedc.render(instance, variant="v4", seed=42) # .text
    report = schedc.check(instance, solved.answer)          # .feasible .objective .violations
    schema = schedc.grammar(instance, format="json-schema")

The functions live in :mod:`schedc.api` and are imported on first use, so that
``import schedc`` stays cheap and every submodule can be imported on its own.

``schedc.render`` and ``schedc.grammar`` are also the names of subpackages (the renderings and
the shipped Lark grammar). Importing a subpackage binds it as an attribute of its parent; this
package refuses that one binding (:class:`_Package`), so the two names stay the functions while
``from schedc.render import display_names`` and ``sys.modules["schedc.render"]`` work as before.
"""

from __future__ import annotations

import sys as _sys
import types as _types
from pathlib import Path as _Path
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from schedc.api import Prompt, Solved, check, grammar, load, render, solve
    from schedc.core.diagnostics import SchedcError
    from schedc.ir import Instance
    from schedc.verify.verifier import CheckReport

#: The top-level names and the modules they come from.
_EXPORTS = {
    "load": "schedc.api", "solve": "schedc.api", "render": "schedc.api", "check": "schedc.api",
    "grammar": "schedc.api", "Prompt": "schedc.api", "Solved": "schedc.api",
    "CheckReport": "schedc.verify.verifier", "Instance": "schedc.ir", "SchedcError": "schedc.core.diagnostics",
}
__all__ = ["CheckReport", "Instance", "Prompt", "SchedcError", "Solved", "__version__", "check", "grammar", "load",
           "render", "solve"]


def __getattr__(name: str) -> Any:
    """Import the API's names, and submodules (``schedc.pipeline``), on first use (PEP 562)."""
    import importlib

    module = _EXPORTS.get(name)
    if module is None:
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module 'schedc' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


#: API functions named like a subpackage of schedc.
_SHADOWED = frozenset({"render", "grammar"})


class _Package(_types.ModuleType):
    """The schedc module, keeping ``render`` and ``grammar`` bound to the API functions."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SHADOWED and isinstance(value, _types.ModuleType):
            return  # the import system binding the subpackage: it stays reachable through sys.modules
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package

# The module paths of the old flat layout (``schedc.parser``, ``schedc.evaluate``, …) still import,
# with a deprecation warning, until the next release.
from schedc.core import moved as _moved  # noqa: E402

_moved.install()


# Installed, `grammar/`, `specs/`, `templates/` and `backends/` are subpackages of schedc
# (pyproject.toml maps them in). Imported straight from a source checkout, they live beside
# this folder: let the package search there too, so both layouts import the same names.
_CHECKOUT = _Path(__file__).resolve().parent.parent
if (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / "backends" / "__init__.py").is_file():
    __path__.append(str(_CHECKOUT))  # type: ignore[name-defined]  # noqa: F821
