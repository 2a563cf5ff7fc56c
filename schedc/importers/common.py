"""What every importer shares: the BKS table, metadata, checked results, atomic output."""

from __future__ import annotations

import csv
import os
import tempfile
from pathlib import Path

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.ir import Instance, Meta
from schedc.kinds import Selector

BKS_COLUMNS = ("instance", "bks", "kind", "lower_bound", "difficulty", "source")


class BksRow(msgspec.Struct, frozen=True, kw_only=True):
    """One row of a ``bks.csv`` table (empty cells are None)."""

    bks: int | None = None
    kind: str | None = None
    lower_bound: int | None = None
    difficulty: str | None = None
    source: str | None = None


def read_bks(path: str | Path) -> dict[str, BksRow]:
    """Read a BKS table with columns ``instance,bks,kind,lower_bound,difficulty,source``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SchedcError.at("I901", f"cannot read BKS table: {exc}", file=str(path)) from None
    rows = list(csv.reader(text.splitlines()))
    if not rows or tuple(c.strip() for c in rows[0][: len(BKS_COLUMNS)]) != BKS_COLUMNS:
        raise SchedcError.at("I902", "a BKS table starts with the header " + ",".join(BKS_COLUMNS), file=str(path),
                             line=1, source=text)
    table: dict[str, BksRow] = {}
    for line_no, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        cells = [c.strip() for c in row] + [""] * (len(BKS_COLUMNS) - len(row))
        table[cells[0]] = BksRow(bks=_opt_int(cells[1], path, line_no, text), kind=cells[2] or None,
                                 lower_bound=_opt_int(cells[3], path, line_no, text),
                                 difficulty=cells[4] or None, source=cells[5] or None)
    return table


def _opt_int(cell: str, path: Path, line: int, text: str) -> int | None:
    if not cell:
        return None
    try:
        return int(cell)
    except ValueError:
        raise SchedcError.at("I903", f"expected an integer or an empty cell, found {cell!r}", file=str(path),
                             line=line, source=text) from None


def make_meta(name: str, source: str, bks: dict[str, BksRow] | None) -> Meta:
    """Metadata for instance ``name`` read from ``source``, with BKS values when known."""
    row = (bks or {}).get(name)
    if row is None:
        return Meta(source=source)
    kind = row.kind if row.kind in ("optimal", "upper_bound") else None
    difficulty = row.difficulty if row.difficulty in ("easy", "medium", "hard") else None
    return Meta(source=source, bks=row.bks, bks_kind=kind, lower_bound=row.lower_bound,  # type: ignore[arg-type]
                difficulty=difficulty, bks_source=row.source)  # type: ignore[arg-type]


def all_of(cls: str) -> Selector:
    """The selector of every entity of class ``cls``."""
    return Selector(cls=cls)


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write ``text`` (or raw bytes) to ``path`` so that readers never see a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as raw:
                raw.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes the file private; give it the usual mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def checked(instance: Instance) -> Instance:
    """Run the semantic pass on an importer's output (an importer bug must not go unnoticed)."""
    from schedc.lang.semantic import check_instance

    check_instance(instance, file=instance.meta.source or instance.name)
    return instance
