"""``schedc snapshot update`` and ``check`` over spec files and folders, as library functions.

Where snapshots live: a spec ``F`` given as a file is stored as ``SNAPDIR/<stem of F>.snap.json``; a
folder ``D`` is searched for ``.sched`` instances (family specs, hidden folders and ``__snapshots__``
skipped; a user family beside its instances is found as ``schedc render`` finds it), each stored as
``SNAPDIR/<its path below D, without .sched>.snap.json``. ``SNAPDIR`` is ``--dir``, else
``__snapshots__`` inside the folder given (beside the file given), so both ways of naming a spec use the
same file. In the snapshot folder of a folder argument, a snapshot whose spec was not found is
``removed``: ``check`` reports it, ``update`` deletes it.

Options: those given, else those stored in the spec's snapshot, else the defaults
(:class:`~schedc.snapshot.document.Options`), one by one. Nothing is written unless every spec and every
stored snapshot reads; then each file that changed is replaced atomically.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.snapshot import store
from schedc.snapshot.diff import SpecDiff, compare
from schedc.snapshot.document import DEFAULT_TIME_LIMIT, Options, observe, options

SKIPPED_FOLDERS = frozenset({"__snapshots__", "__pycache__"})


class Target(NamedTuple):
    """A spec and the file its snapshot is stored in."""

    spec: Path
    snapshot: Path


class Given(msgspec.Struct, frozen=True, kw_only=True):
    """Options from the command line or a call; None: not given (the stored or default value is used)."""

    variants: tuple[str, ...] | None = None
    seeds: tuple[int, ...] | None = None
    formats: tuple[str, ...] | None = None
    with_solve: bool | None = None
    time_limit: float | None = None

    def merged(self, stored: dict[str, Any] | None, file: str = "<snapshot>") -> Options:
        """These options, the stored snapshot's (in ``file``) where not given, else the defaults (checked)."""
        kept = (stored or {}).get("options", {})
        pick = lambda mine, name: mine if mine is not None else kept.get(name)  # noqa: E731
        time_limit = pick(self.time_limit, "time_limit")
        try:
            return options(variants=pick(self.variants, "variants"), seeds=pick(self.seeds, "seeds"),
                           formats=pick(self.formats, "formats"),
                           with_solve=bool(pick(self.with_solve, "with_solve")),
                           time_limit=DEFAULT_TIME_LIMIT if time_limit is None else time_limit)
        except SchedcError as exc:  # the given options are checked before: a stored one is wrong
            raise SchedcError([msgspec.structs.replace(d, file=file) for d in exc.diagnostics]) from None

    def check(self) -> None:
        """A SchedcError (E954) for a bad option given, before any spec is read."""
        self.merged(None, "<input>")


class Found(NamedTuple):
    """The specs of the paths, and the snapshot folders in which a snapshot without a spec is ``removed``."""

    targets: list[Target]
    scanned: list[Path]


def find(paths: Sequence[Path], snapdir: Path | None = None) -> Found:
    """The specs named by ``paths`` (files, or folders searched recursively) with their snapshot files."""
    if not paths:
        raise SchedcError.at("E950", "no spec file or folder given", hint="schedc snapshot check examples/")
    targets: dict[Path, Target] = {}
    scanned: list[Path] = []
    for path in paths:
        if path.is_dir():
            folder = snapdir if snapdir is not None else path / "__snapshots__"
            scanned.append(folder)
            specs = [(f, f.relative_to(path).with_suffix("").as_posix()) for f in _instances(path)]
        elif path.is_file():
            if _is_family(path):
                raise SchedcError.at("E951", "this is a family spec; snapshots are taken of instances",
                                     file=str(path), line=1, hint="give the instances of the family (or their folder)")
            folder = snapdir if snapdir is not None else path.parent / "__snapshots__"
            specs = [(path, path.stem)]
        else:
            raise SchedcError.at("E950", "no such file or folder", file=str(path))
        for spec, name in specs:
            _add(targets, Target(spec, folder / (name + store.SUFFIX)))
    return Found(list(targets.values()), scanned)


def _instances(folder: Path) -> list[Path]:
    """The ``.sched`` instances below ``folder`` (not family specs), in an order that is the same everywhere."""
    found = [f for f in folder.rglob("*.sched") if f.is_file() and not any(
        part.startswith(".") or part in SKIPPED_FOLDERS for part in f.relative_to(folder).parent.parts)]
    found = sorted((f for f in found if not _is_family(f)), key=lambda f: f.relative_to(folder).as_posix())
    if not found:
        raise SchedcError.at("E950", "no .sched instance in this folder", file=str(folder))
    return found


def _is_family(path: Path) -> bool:
    from schedc.lang.family import looks_like_family

    try:
        return looks_like_family(path.read_text(encoding="utf-8", errors="replace"))
    except OSError as exc:
        raise SchedcError.at("E950", f"cannot read the spec: {exc.strerror or exc}", file=str(path)) from None


def _add(targets: dict[Path, Target], target: Target) -> None:
    """Record ``target`` unless the same spec is there already; two specs for one snapshot file are an error."""
    known = targets.get(target.snapshot)
    if known is None:
        targets[target.snapshot] = target
    elif known.spec.resolve() != target.spec.resolve():
        raise SchedcError.at("E955", f"{known.spec} and {target.spec} would share the snapshot {target.snapshot}",
                             hint="snapshot them into different folders (--dir), or rename one")


def orphans(found: Found) -> list[Path]:
    """Snapshot files in the scanned folders that no spec of the paths owns."""
    owned = {t.snapshot.resolve() for t in found.targets}
    out: set[Path] = set()
    for folder in found.scanned:
        if folder.is_dir():
            out |= {f for f in folder.rglob("*" + store.SUFFIX) if f.resolve() not in owned}
    return sorted(out, key=lambda p: p.as_posix())


class Observed(NamedTuple):
    """A spec's snapshot as stored (None: none yet) and as built now, and the changes between them."""

    target: Target
    stored: dict[str, Any] | None
    document: dict[str, Any]
    diff: SpecDiff


def observe_all(found: Found, given: Given) -> list[Observed]:
    """Every spec's stored and current document and their diff; one SchedcError with every bad input."""
    given.check()
    out: list[Observed] = []
    errors: list[SchedcError] = []
    for target in found.targets:
        try:
            found = store.read(target.snapshot)
            stored, text = found if found is not None else (None, None)
            document = observe(target.spec, given.merged(stored, str(target.snapshot)))
        except SchedcError as exc:
            errors.append(exc)
            continue
        out.append(Observed(target, stored, document, compare(stored, document, str(target.spec),
                                                              str(target.snapshot), text)))
    if errors:
        raise SchedcError.merge(errors)
    return out


def check(paths: Sequence[Path], snapdir: Path | None = None, given: Given | None = None) -> list[SpecDiff]:
    """``schedc snapshot check``: per spec (in path order), what changed since its snapshot; then the
    snapshots left without a spec (status ``removed``)."""
    found = find(paths, snapdir)
    diffs = [o.diff for o in observe_all(found, given or Given())]
    return diffs + [SpecDiff(spec="", snapshot=str(p), status="removed") for p in orphans(found)]


class Written(msgspec.Struct, frozen=True):
    """What ``update`` did to one snapshot file: ``created``, ``updated``, ``unchanged`` or ``removed``."""

    snapshot: str
    spec: str
    action: str


def update(paths: Sequence[Path], snapdir: Path | None = None, given: Given | None = None) -> list[Written]:
    """``schedc snapshot update``: write the snapshot of every spec whose snapshot is missing or changed,
    delete those left without a spec. Everything is read before anything is written."""
    found = find(paths, snapdir)
    observed = observe_all(found, given or Given())
    out: list[Written] = []
    for item in observed:
        action = {"new": "created", "changed": "updated"}.get(item.diff.status, "unchanged")
        if action != "unchanged":
            store.write(item.target.snapshot, item.document)
        out.append(Written(str(item.target.snapshot), str(item.target.spec), action))
    for path in orphans(found):
        try:
            path.unlink()
        except OSError as exc:
            raise SchedcError.at("E956", f"cannot delete the snapshot: {exc.strerror or exc}", file=str(path)) from None
        out.append(Written(str(path), "", "removed"))
    return out
