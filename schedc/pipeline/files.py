"""``schedc import``, ``fmt``, ``parse --json`` and ``info`` as library functions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.importers import import_paths, write_instances
from schedc.importers.common import write_atomic
from schedc.ir import Family, Instance
from schedc.kinds import kind_name
from schedc.lang.family import load_family, looks_like_family
from schedc.lang.family_parser import parse_family_text
from schedc.lang.parser import parse_file, parse_instance_text
from schedc.lang.printer import print_family, print_instance

if TYPE_CHECKING:
    pass

def import_sources(fmt: str, paths: Sequence[Path], outdir: Path, bks: Path | None = None,
                   cases: Sequence[Path] = ()) -> list[Path]:
    """``schedc import``: convert source files into canonical ``.sched`` files in ``outdir``.

    Every source is imported (and checked) before anything is written, so a bad file
    leaves the output folder untouched.
    """
    return write_instances(import_paths(fmt, paths, bks, cases), outdir)

def format_text(text: str, file: str = "<input>", search: Sequence[Path] = ()) -> str:
    """The canonical form of a ``.sched`` text (instance or family spec), its comments kept
    beside the statements and rows they were written on (:mod:`schedc.lang.comments`)."""
    from schedc.lang.comments import keep_comments

    if looks_like_family(text):
        return keep_comments(text, print_family(parse_family_text(text, file)), file)
    instance = parse_instance_text(text, file, search)
    return keep_comments(text, print_instance(instance, load_family(instance.family, search)), file)

def format_file(path: Path, check: bool = False) -> bool:
    """``schedc fmt``: rewrite ``path`` canonically (or only check); True if it was already canonical."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SchedcError.at("E100", f"cannot read file: {exc}", file=str(path)) from None
    canonical = format_text(text, str(path), [path.parent])
    if canonical == text:
        return True
    if not check:
        write_atomic(path, canonical)
    return False

def to_json(path: Path) -> bytes:
    """``schedc parse --json``: the IR of a file as JSON."""
    return msgspec.json.encode(parse_file(path))

def describe(node: Instance | Family) -> dict[str, Any]:
    """``schedc info``: family, sizes, constraints by kind, reference values."""
    if isinstance(node, Family):
        return {"family_spec": node.name, "structure": node.structure, "objective": node.objective,
                "kinds": list(node.kinds), "classes": [c.name for c in node.classes]}
    sizes: dict[str, int] = {}
    if node.activities:
        sizes["activities"] = len(node.activities)
        sizes["jobs"] = len({a.job for a in node.activities if a.job is not None})
        sizes["modes"] = sum(len(a.modes) for a in node.activities)
    if node.resources:
        sizes["resources"] = len(node.resources)
    if node.calendar is not None:
        sizes["days"] = node.calendar.days
        sizes["periods_per_day"] = node.calendar.periods_per_day
    for cls, count in Counter(e.cls for e in node.entities).items():
        sizes[cls] = count
    by_kind = Counter(kind_name(c) for c in node.constraints)
    hard = sum(1 for c in node.constraints if c.hard and c.active)
    soft = sum(1 for c in node.constraints if not c.hard and c.active)
    meta = msgspec.to_builtins(node.meta)
    meta.pop("span", None)
    return {"name": node.name, "family": node.family, "objective": node.objective.measure, "sizes": sizes,
            "constraints": dict(sorted(by_kind.items())), "hard": hard, "soft": soft,
            "inactive": sum(1 for c in node.constraints if not c.active),
            "meta": {k: v for k, v in meta.items() if v is not None}}
