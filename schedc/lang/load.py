"""Loading a spec from what a caller has: a path, a ``.sched`` text or a parsed instance.

Every library function that takes an instance accepts a :data:`Source` and calls :func:`resolve`
for the instance, its family and the folders the family (and themes) are looked up in.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

from schedc.core.diagnostics import SchedcError
from schedc.ir import Family, Instance
from schedc.lang.family import load_family, looks_like_family
from schedc.lang.parser import parse_file, parse_instance_text

if TYPE_CHECKING:
    pass

Source: TypeAlias = str | os.PathLike[str] | Instance
"""An instance: the path of a ``.sched`` file, the text of one, or a parsed :class:`Instance`."""

class Resolved(NamedTuple):
    """An instance with its family and the folders its family (and themes) are looked up in."""

    instance: Instance
    family: Family
    search: list[Path]

def load_instance(path: str | os.PathLike[str], search: Sequence[Path] = ()) -> Instance:
    """Parse an instance file; a SchedcError if it is a family spec or invalid."""
    result = parse_file(path, search)
    if not isinstance(result, Instance):
        raise SchedcError.at("E119", "expected an instance file, found a family spec", file=str(path), line=1)
    return result

def is_path_text(source: str) -> bool:
    """Whether a string names a file rather than holding ``.sched`` text.

    A string is a path when it is one line and names an existing file or ends in ``.sched``
    (so that a missing file is reported as such, not as a syntax error).
    """
    if "\n" in source or not source.strip():
        return False
    return source.endswith(".sched") or Path(source).is_file()

def resolve(source: Source, search: Sequence[str | os.PathLike[str]] = ()) -> Resolved:
    """An instance and its family from a path, a ``.sched`` text or an :class:`Instance`.

    A file's family is looked up beside it first, then in ``search``, then among the built-in
    families; a text's or an object's in ``search``, then built-in.
    """
    folders = [Path(s) for s in search]
    if isinstance(source, Instance):
        instance = source
    elif isinstance(source, os.PathLike) or (isinstance(source, str) and is_path_text(source)):
        path = Path(source)
        folders = [path.parent, *folders]
        instance = load_instance(path, folders)
    elif isinstance(source, str):
        if looks_like_family(source):
            raise SchedcError.at("E119", "expected an instance, found a family spec", line=1)
        instance = parse_instance_text(source, "<text>", folders)
    else:
        raise TypeError(f"expected a path, a .sched text or an Instance, not {type(source).__name__}")
    return Resolved(instance, load_family(instance.family, folders), folders)

def source_label(source: Source) -> str:
    """The file name a diagnostic about ``source`` shows."""
    if isinstance(source, Instance):
        return f"<instance {source.name}>"
    if isinstance(source, str) and not is_path_text(source):
        return "<text>"
    return str(source)
