"""Locating the data folders shipped with the package (grammar, specs, templates).

Installed, they are the subpackages ``schedc.grammar``, ``schedc.specs``,
``schedc.templates`` (mapped from the top-level folders in ``pyproject.toml``); in a plain
checkout without installation the top-level folders are used directly.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path


@cache
def data_dir(name: str) -> Path:
    """The folder of the shipped data package ``name`` (``grammar``, ``specs``, ``templates``)."""
    spec = importlib.util.find_spec(f"schedc.{name}")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(__file__).resolve().parent.parent / name
