"""Enumerating canonical source files by format, bundled (tests/data) and shared (../shared/data)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import DATA, SHARED


def source_files(root: Path) -> list[tuple[str, Path, tuple[Path, ...]]]:
    """(format, path, nsplib cases) for every instance file under a data root laid out like shared/data."""
    out: list[tuple[str, Path, tuple[Path, ...]]] = []
    if not root.exists():
        return out
    out += [("jsplib", p, ()) for p in sorted((root / "jsplib").glob("*.txt"))]
    out += [("fjsp", p, ()) for p in sorted((root / "fjsp").rglob("*.fjs"))]
    out += [("psplib-sm", p, ()) for p in sorted((root / "psplib-sm").rglob("*.sm"))]
    out += [("psplib-mm", p, ()) for p in sorted((root / "psplib-mm").rglob("*.mm"))]
    out += [("itc2007", p, ()) for p in sorted((root / "itc2007").glob("*.ctt"))]
    inrc = [p for p in sorted((root / "inrc2010").glob("*.xml")) if p.name != "competition.xsd"]
    inrc += sorted((root / "inrc2010" / "solutions" / "extra").glob("toy*.xml"))
    inrc += [p for p in sorted((root / "inrc2010" / "solutions" / "uos_unit_tests").glob("test_*.xml"))
             if "solution" not in p.name]
    out += [("inrc2010", p, ()) for p in inrc if not p.name.endswith(".sol.xml")]
    cases = tuple(sorted((root / "nsplib" / "Cases").glob("*.gen")))
    for nsp in sorted((root / "nsplib").rglob("*.nsp")):
        out += [("nsplib", nsp, (case,)) for case in cases]
    return out


def all_sources() -> list[tuple[str, Path, tuple[Path, ...]]]:
    """Bundled sources plus every shared one (when ../shared/data exists)."""
    return source_files(DATA) + source_files(SHARED)


def source_id(item: tuple[str, Path, tuple[Path, ...]]) -> str:
    fmt, path, cases = item
    base = DATA if path.is_relative_to(DATA) else SHARED
    label = str(path.relative_to(base))
    return f"{'bundled' if base == DATA else 'shared'}:{label}" + (f"+{cases[0].stem}" if cases else "")
