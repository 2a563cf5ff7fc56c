"""Judging answers: extraction, the shared evaluator, the verifier and its reports, failure modes.

A stage (see ``tests/test_import_graph.py``). Takes in an instance (:mod:`schedc.ir`), the display
names an answer is written in and the answer text (or a structured answer); gives out a
constraint-by-constraint report (:class:`~schedc.verify.verifier.CheckReport`). The evaluator
(:mod:`schedc.verify.evaluate`) judges decisions with every kind's own ``check`` and is shared with the
solver backends. Imports only the stages below it (core, kinds, ir, lang); never renderings,
grammars or backends.

``from schedc.verify import Verifier`` keeps working as it did when this was one module: the
verifier's names are found on first use.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

#: The verifier's public names, re-exported here without a warning.
_PUBLIC = frozenset({"Verifier", "CheckReport", "format_report", "DUPLICATE_POLICIES"})


def __getattr__(name: str) -> Any:
    """The verifier's names (``schedc.verify`` was one module before 0.2); private ones warn."""
    if name.startswith("__"):
        raise AttributeError(name)
    verifier = importlib.import_module("schedc.verify.verifier")
    if not hasattr(verifier, name):
        raise AttributeError(f"module 'schedc.verify' has no attribute {name!r}")
    if name not in _PUBLIC:
        warnings.warn(f"schedc.verify.{name} moved to schedc.verify.verifier.{name}", DeprecationWarning,
                      stacklevel=2)
    return getattr(verifier, name)
