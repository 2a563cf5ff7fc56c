"""Old import paths of modules that moved in 0.2, kept for one release with a deprecation warning.

Until 0.2 every stage lived in modules directly under ``schedc/`` (``schedc.parser``,
``schedc.evaluate``, …). ``import schedc.parser`` still works: :class:`MovedModuleFinder` — on
``sys.meta_path`` once :mod:`schedc` is imported — answers the old name with the module at its new
place, warning once (:class:`DeprecationWarning`). No file of the old layout exists any more.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

#: Old module name → new module name.
MOVED: dict[str, str] = {
    "schedc.diagnostics": "schedc.core.diagnostics",
    "schedc.solution": "schedc.core.solution",
    "schedc.resources": "schedc.lang.resources",
    "schedc.names": "schedc.ir.names",
    "schedc.check_common": "schedc.lang.check_common",
    "schedc.parser": "schedc.lang.parser",
    "schedc.printer": "schedc.lang.printer",
    "schedc.syntax_errors": "schedc.lang.syntax_errors",
    "schedc.constraint_stmt": "schedc.lang.constraint_stmt",
    "schedc.family_parser": "schedc.lang.family_parser",
    "schedc.family": "schedc.lang.family",
    "schedc.params": "schedc.lang.params",
    "schedc.tables": "schedc.lang.tables",
    "schedc.semantic": "schedc.lang.semantic",
    "schedc.kind_checks": "schedc.lang.kind_checks",
    "schedc.comments": "schedc.lang.comments",
    "schedc.answers": "schedc.verify.answers",
    "schedc.evaluate": "schedc.verify.evaluate",
    "schedc.verify_text": "schedc.verify.report_text",
    "schedc.failure_modes": "schedc.verify.failure_modes",
    "schedc.ctt_search": "schedc.backends.search.ctt_search",
    "schedc.ctt_kernel": "schedc.backends.search.ctt_kernel",
    "schedc.tabu": "schedc.backends.search.tabu",
    "schedc.heuristics": "schedc.backends.search.heuristics",
    "schedc.cli_app": "schedc.cli.application",
    "schedc.cli_choices": "schedc.cli.choices",
    "schedc.cli_dynamic": "schedc.cli.dynamic",
    "schedc.cli_generators": "schedc.cli.generators",
    "schedc.cli_variants": "schedc.cli.variants",
    "schedc.bench.cli": "schedc.cli.bench",
    "schedc.library": "schedc.api",
    "schedc.plotting.timeline": "schedc.dynamic.timeline_plot",
}


class _Alias(importlib.abc.Loader):
    """Loads an old name as the module at its new place."""

    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(f"{spec.name} moved to {self.new}; the old name goes in the next release",
                      DeprecationWarning, stacklevel=2)
        return importlib.import_module(self.new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module was executed under its new name."""


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the old names of :data:`MOVED` (and only those)."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(new))


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (after the ordinary finders: a real module always wins)."""
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
