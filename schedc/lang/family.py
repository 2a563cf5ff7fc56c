"""Finding and loading family specs.

An instance names its family (``instance ft06 family jobshop``). The spec is looked up as
``<name>.sched`` first in the folders given by the caller (the instance's own folder, then
any ``--family-path``), then among the built-in specs shipped in ``specs/``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path

from schedc.core.diagnostics import SchedcError
from schedc.ir import Family
from schedc.lang.family_parser import parse_family_text
from schedc.lang.resources import data_dir
from schedc.lang.statements import looks_like_family

__all__ = ["builtin_family_names", "find_family_file", "load_family", "looks_like_family"]


def builtin_family_names() -> list[str]:
    """The names of the family specs shipped with schedc."""
    return sorted(p.stem for p in data_dir("specs").glob("*.sched"))


def find_family_file(name: str, search: Sequence[Path] = ()) -> Path | None:
    """The spec file of family ``name``: in ``search`` folders first, then built-in."""
    for folder in [*search, data_dir("specs")]:
        candidate = Path(folder) / f"{name}.sched"
        if candidate.is_file():
            return candidate
    return None


@cache
def _load_family_file(path: Path, mtime_ns: int) -> Family:
    text = path.read_text(encoding="utf-8")
    return parse_family_text(text, file=str(path))


def load_family(name: str, search: Sequence[Path] = ()) -> Family:
    """Load (and cache) the spec of family ``name``; a SchedcError if it cannot be found."""
    path = find_family_file(name, search)
    if path is None:
        known = ", ".join(builtin_family_names()) or "none"
        raise SchedcError.at("E103", f"unknown family {name!r}",
                             hint=f"built-in families: {known}; or put {name}.sched beside the instance")
    return _load_family_file(path.resolve(), path.stat().st_mtime_ns)
