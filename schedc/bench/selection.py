"""The SCHEDBench selection: which source files make up the 1,132 instances, and their difficulty.

Rules (``docs/bench.md``, DESIGN.md §6):

* JSPLib (262): abz5–9, dmu01–80, ft06/10/20, la01–40, orb01–10, swv01–20, ta01–70,
  tai_10_10_*, tai_10_100_*, tai_100_10_* (1–10 each), yn1–4. Difficulty: the ``difficulty``
  column of ``bks.csv`` (JSPLib classification, open → hard); failing that ``classification.csv``.
* PSPLIB single mode (400): the first 100 of each of j30/j60/j90/j120 in the chosen order over the
  full PSPLIB name space (48 parameter groups × 10, j120 60 × 10). j30 easy, j60 medium, j90/j120 hard.
* PSPLIB multi mode (300): the first 100 of each of j10/j20/j30 among the files present (PSPLIB
  distributes only feasible j10/j20 files); j30 restricted to instances with a ``bks`` value.
  j10 easy, j20 medium, j30 hard.
* ITC-2007 (21): comp01–21; INRC-2010 (69): sprint/medium/long × (plain, late, hidden, hint) →
  easy/medium/hard; NSPLib (80): N25 1–10 × cases 1–8.
* ITC and NSPLib: three equal bins by BKS (``bks.csv`` difficulty when given, else bins over the
  BKS values present); an instance without a BKS and without a difficulty is *unassigned*.

"first 100" uses a natural (numeric-aware) order by default; ``lexicographic`` sorts the names
as plain strings (which, for PSPLIB, selects other parameter groups: ``'0' < '_'`` puts ``j3010_*`` …
``j3019_*`` before ``j301_*``).

Two smaller designs are drawn from the SCHEDBench selection (``docs/bench.md``):

* ``ablation`` (470, SCHEDBench Table 9): every ITC (21), INRC (69) and NSPLib (80) instance, and
  fixed samples of 100 JSPLib, 100 RCPSP-SM and 100 RCPSP-MM instances;
* ``seed`` (150): a sample of the ablation set stratified across the six families — 150
  apportioned in proportion to the ablation set's family sizes (JSPLib, RCPSP-SM, RCPSP-MM 32
  each, ITC 7, INRC 22, NSPLib 25) and within each family by stratum — for the seed-sensitivity
  study (k = 3 seeds: the ablation rendering's seed 42 and two new ones;
  variants v2, v3A, v3B by default).

Samples are stratified (:func:`stratum`): JSPLib by sub-family (the name's letters: abz, dmu,
ft, la, orb, swv, ta, tai, yn) × difficulty, PSPLIB by set (j10 … j120, which is also its
difficulty), the other families by difficulty. A stratum's quota is proportional to its size,
rounded by largest remainder (ties in the remainders broken by a seeded shuffle); its members
are a seeded ``random.Random`` sample. The generator of family ``F`` in design ``D`` is
``random.Random(f"{SAMPLE_SEED}:{D}:{F}")`` (string seeds hash with SHA-512: the same on every
machine and Python process). Samples are drawn over the whole selection, present or missing
files alike, so a missing file stays visible as missing; JSPLib strata use the difficulty tables
found in the sources (``bks.csv``, ``classification.csv``), so the canonical tables give the
canonical sample.
"""

from __future__ import annotations

import csv
import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedc.core.diagnostics import SchedcError
from schedc.importers.common import BksRow, read_bks

FAMILIES = ("jsplib", "psplib-sm", "psplib-mm", "itc2007", "inrc2010", "nsplib")
DIFFICULTIES = ("easy", "medium", "hard")
UNASSIGNED = "unassigned"
#: Full selection size per family (the paper's composition).
PAPER_FAMILY_TOTALS = {"jsplib": 262, "psplib-sm": 400, "psplib-mm": 300, "itc2007": 21, "inrc2010": 69,
                       "nsplib": 80}
PAPER_DIFFICULTY_TOTALS = {"easy": 406, "medium": 295, "hard": 431}
ORDERS = ("natural", "lexicographic")
SELECTIONS = ("schedbench", "ablation", "seed")
SAMPLE_SEED = 20240917
#: Instances per family of each design (None = every instance of the SCHEDBench selection).
DESIGN_SIZES: dict[str, dict[str, int | None]] = {
    "schedbench": dict.fromkeys(FAMILIES),
    "ablation": {"jsplib": 100, "psplib-sm": 100, "psplib-mm": 100, "itc2007": None, "inrc2010": None,
                 "nsplib": None},
    # 150 apportioned over the families in proportion to the ablation set (largest remainder):
    # 150 × (100, 100, 100, 21, 69, 80) / 470 = (31.9, 31.9, 31.9, 6.7, 22.0, 25.5)
    "seed": {"jsplib": 32, "psplib-sm": 32, "psplib-mm": 32, "itc2007": 7, "inrc2010": 22, "nsplib": 25},
}
#: The instance count per family the paper states for each design.
DESIGN_TOTALS = {"schedbench": PAPER_FAMILY_TOTALS,
                 "ablation": {"jsplib": 100, "psplib-sm": 100, "psplib-mm": 100, "itc2007": 21, "inrc2010": 69,
                              "nsplib": 80},
                 "seed": {"jsplib": 32, "psplib-sm": 32, "psplib-mm": 32, "itc2007": 7, "inrc2010": 22,
                          "nsplib": 25}}
#: The design each smaller design is drawn from.
DRAWN_FROM = {"ablation": "schedbench", "seed": "ablation"}
SM_SETS = {"j30": 48, "j60": 48, "j90": 48, "j120": 60}
SM_DIFFICULTY = {"j30": "easy", "j60": "medium", "j90": "hard", "j120": "hard"}
MM_DIFFICULTY = {"j10": "easy", "j20": "medium", "j30": "hard"}
PER_SET = 100
PSPLIB_SET = re.compile(r"j(?:120|10|20|30|60|90)")  # the set of a PSPLIB name (j1201_1 is set j120)


@dataclass(frozen=True)
class Item:
    """One selected instance: where its files are (``paths`` empty when missing) and its difficulty."""

    family: str
    name: str
    paths: tuple[str, ...]
    difficulty: str
    bks_path: str | None = None

    @property
    def missing(self) -> bool:
        return not self.paths


@dataclass
class Selection:
    """The selected items, in dataset order, and notes on what was left out."""

    items: list[Item] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    name: str = "schedbench"

    def missing_files(self) -> dict[str, int]:
        """Per family: selected items without a source file, plus the instances the design should
        have but no source folder names at all (e.g. PSPLIB-MM sets with fewer than 100 files)."""
        counts = {f: 0 for f in FAMILIES}
        for item in self.items:
            counts[item.family] += item.missing
        for family, total in DESIGN_TOTALS[self.name].items():
            counts[family] += max(0, total - sum(1 for i in self.items if i.family == family))
        return counts

    @property
    def present(self) -> list[Item]:
        return [i for i in self.items if not i.missing]

    @property
    def missing(self) -> list[Item]:
        return [i for i in self.items if i.missing]


def natural_key(name: str) -> tuple:
    """Numeric-aware sort key: ``j301_2`` < ``j301_10`` < ``j3010_1``."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", name) if p)


def ordered(names: Iterable[str], order: str) -> list[str]:
    """``names`` sorted naturally or as plain strings."""
    if order not in ORDERS:
        raise SchedcError.at("B101", f"unknown order {order!r}", hint="orders: " + ", ".join(ORDERS))
    return sorted(names, key=natural_key) if order == "natural" else sorted(names)


def jsplib_names() -> list[str]:
    """The 262 JSPLib instance names of SCHEDBench."""
    names = [f"abz{i}" for i in range(5, 10)] + [f"dmu{i:02d}" for i in range(1, 81)]
    names += ["ft06", "ft10", "ft20"] + [f"la{i:02d}" for i in range(1, 41)] + [f"orb{i:02d}" for i in range(1, 11)]
    names += [f"swv{i:02d}" for i in range(1, 21)] + [f"ta{i:02d}" for i in range(1, 71)]
    names += [f"tai_{size}_{k}" for size in ("10_10", "10_100", "100_10") for k in range(1, 11)]
    return names + [f"yn{i}" for i in range(1, 5)]


def inrc_names() -> list[str]:
    """The 69 INRC-2010 instance names."""
    names = []
    for track, plain in (("sprint", 10), ("medium", 5), ("long", 5)):
        for variant, count in (("", plain), ("_late", plain), ("_hidden", plain), ("_hint", 3)):
            names += [f"{track}{variant}{k:02d}" for k in range(1, count + 1)]
    return names


def _bks_table(folder: Path) -> dict[str, BksRow]:
    path = folder / "bks.csv"
    return read_bks(path) if path.is_file() else {}


def _find(folders: list[Path], relative: str) -> Path | None:
    """The first source folder holding ``relative``."""
    for folder in folders:
        candidate = folder / relative
        if candidate.is_file():
            return candidate
    return None


def _bks_path(folders: list[Path], family: str) -> str | None:
    found = _find(folders, f"{family}/bks.csv")
    return str(found) if found else None


def _merged_bks(folders: list[Path], family: str) -> dict[str, BksRow]:
    table: dict[str, BksRow] = {}
    for folder in reversed(folders):
        table.update(_bks_table(folder / family))
    return table


def _classification(folders: list[Path]) -> dict[str, str]:
    found = _find(folders, "jsplib/classification.csv")
    if found is None:
        return {}
    with found.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    mapping = {"easy": "easy", "medium": "medium", "hard": "hard", "open": "hard"}
    return {r["instance"]: mapping.get(r.get("class_2026_06_09", ""), UNASSIGNED) for r in rows}


def _item(folders: list[Path], family: str, name: str, relatives: tuple[str, ...], difficulty: str) -> Item:
    """The item of ``name``; a PSPLIB file is looked for in its set folder, then at the family root."""
    found = [_find(folders, f"{family}/{rel}") or _find(folders, f"{family}/{Path(rel).name}") for rel in relatives]
    paths = tuple(str(p) for p in found) if all(found) else ()
    return Item(family, name, paths, difficulty, _bks_path(folders, family))


def select_jsplib(folders: list[Path], order: str) -> list[Item]:
    bks, classes = _merged_bks(folders, "jsplib"), _classification(folders)
    items = []
    for name in jsplib_names():
        row = bks.get(name)
        difficulty = (row.difficulty if row and row.difficulty else None) or classes.get(name, UNASSIGNED)
        items.append(_item(folders, "jsplib", name, (f"{name}.txt",), difficulty))
    return items


def select_sm(folders: list[Path], order: str) -> list[Item]:
    items = []
    for subset, groups in SM_SETS.items():
        universe = [f"{subset}{g}_{k}" for g in range(1, groups + 1) for k in range(1, 11)]
        for name in ordered(universe, order)[:PER_SET]:
            items.append(_item(folders, "psplib-sm", name, (f"{subset}/{name}.sm",), SM_DIFFICULTY[subset]))
    return items


def select_mm(folders: list[Path], order: str, notes: list[str]) -> list[Item]:
    bks = _merged_bks(folders, "psplib-mm")
    items = []
    for subset, difficulty in MM_DIFFICULTY.items():
        names = {p.stem for folder in folders for where in (folder / "psplib-mm" / subset, folder / "psplib-mm")
                 for p in where.glob(f"{subset}*_*.mm") if re.fullmatch(rf"{subset}\d+_\d+", p.stem)}
        if subset == "j30":
            feasible = {n for n in names if bks.get(n) is not None and bks[n].bks is not None}
            if len(feasible) < len(names):
                notes.append(f"psplib-mm/j30: {len(names) - len(feasible)} file(s) without a known feasible "
                             "schedule (no bks value) left out")
            names = feasible
        chosen = ordered(names, order)[:PER_SET]
        if len(chosen) < PER_SET:
            notes.append(f"psplib-mm/{subset}: {len(chosen)} of {PER_SET} instances found")
        items += [_item(folders, "psplib-mm", n, (f"{subset}/{n}.mm",), difficulty) for n in chosen]
    return items


def select_itc(folders: list[Path], order: str, references: Mapping[str, int]) -> list[Item]:
    names = [f"comp{k:02d}" for k in range(1, 22)]
    bins = bks_bins(names, _merged_bks(folders, "itc2007"), missing_as_zero=True, references=references)
    return [_item(folders, "itc2007", n, (f"{n}.ctt",), bins[n]) for n in names]


def select_inrc(folders: list[Path], order: str) -> list[Item]:
    level = {"sprint": "easy", "medium": "medium", "long": "hard"}
    return [_item(folders, "inrc2010", n, (f"{n}.xml",), level[re.match(r"[a-z]+", n).group(0)])  # type: ignore[union-attr]
            for n in inrc_names()]


def select_nsplib(folders: list[Path], order: str, references: Mapping[str, int]) -> list[Item]:
    names = {(k, c): f"n25_{k}_case{c}" for k in range(1, 11) for c in range(1, 9)}
    bins = bks_bins(list(names.values()), _merged_bks(folders, "nsplib"), missing_as_zero=False,
                    references=references)
    return [_item(folders, "nsplib", n, (f"N25/{k}.nsp", f"Cases/{c}.gen"), bins[n]) for (k, c), n in names.items()]


def bks_bins(names: list[str], bks: dict[str, BksRow], missing_as_zero: bool,
             references: Mapping[str, int] | None = None) -> dict[str, str]:
    """Difficulty by three equal bins of the ranked reference values (``bks.csv`` difficulty wins when given).

    An instance's value is its BKS, else the reference ``bench validate`` computed (``references``,
    read from the benchmark folder's ``reference.csv``). Instances are sorted by (value, natural
    name) — ties broken by the natural order of the names — and cut into three bins of (nearly)
    equal size, the larger bins first (21 → 7/7/7, 80 → 27/27/26). Without a value an instance is
    sorted as 0 when ``missing_as_zero`` (ITC comp11, a sum of penalties), else it stays unassigned.
    """
    references = references or {}
    given = {n: bks[n].difficulty for n in names if n in bks and bks[n].difficulty in DIFFICULTIES}
    values = {n: bks[n].bks if n in bks and bks[n].bks is not None else references.get(n) for n in names}
    ranked = [n for n in names if values[n] is not None or missing_as_zero]
    ranked.sort(key=lambda n: (values[n] or 0, natural_key(n)))
    result = {n: UNASSIGNED for n in names}
    size, extra = divmod(len(ranked), 3)
    start = 0
    for index, level in enumerate(DIFFICULTIES):
        stop = start + size + (1 if index < extra else 0)
        result.update({n: level for n in ranked[start:stop]})
        start = stop
    result.update(given)  # type: ignore[arg-type]
    return result


def select(sources: list[Path], selection: str = "schedbench", order: str = "natural",
           references: Mapping[tuple[str, str], Mapping[str, Any]] | None = None) -> Selection:
    """The selection over ``sources`` (folders laid out like ``examples/sources``).

    ``references`` — (family, instance) → {"value", …} as :func:`schedc.bench.validate.read_references`
    gives — rank the ITC and NSPLib instances that have no BKS.
    """
    refs = {family: {name: r["value"] for (f, name), r in (references or {}).items() if f == family}
            for family in ("itc2007", "nsplib")}
    if selection not in SELECTIONS:
        raise SchedcError.at("B102", f"unknown selection {selection!r}", hint="selections: " + ", ".join(SELECTIONS))
    ordered([], order)
    missing = [str(s) for s in sources if not Path(s).is_dir()]
    if missing:
        raise SchedcError.at("B103", f"source folder(s) not found: {', '.join(missing)}",
                             hint="give folders laid out like examples/sources (jsplib/, psplib-sm/, ...)")
    folders = [Path(s) for s in sources]
    result = Selection(name=selection)
    result.items += select_jsplib(folders, order) + select_sm(folders, order)
    result.items += select_mm(folders, order, result.notes)
    result.items += select_itc(folders, order, refs["itc2007"]) + select_inrc(folders, order)
    result.items += select_nsplib(folders, order, refs["nsplib"])
    for design in _lineage(selection):
        result.items = sample_design(result.items, design)
    return result


def _lineage(selection: str) -> list[str]:
    """The designs to draw, in order, to reach ``selection`` from the SCHEDBench selection."""
    chain = []
    while selection in DRAWN_FROM:
        chain.insert(0, selection)
        selection = DRAWN_FROM[selection]
    return chain


def stratum(item: Item) -> tuple[str, str]:
    """The sampling stratum of an item (see the module docstring)."""
    if item.family == "jsplib":
        return (re.match(r"[a-z]+", item.name).group(0), item.difficulty)  # type: ignore[union-attr]
    if item.family in ("psplib-sm", "psplib-mm"):
        return (PSPLIB_SET.match(item.name).group(0), item.difficulty)  # type: ignore[union-attr]
    return ("", item.difficulty)


def quotas(sizes: list[int], total: int, rng: random.Random) -> list[int]:
    """Largest-remainder apportionment of ``total`` over strata of ``sizes`` (ties: seeded shuffle)."""
    population = sum(sizes)
    if total >= population:
        return list(sizes)
    exact = [total * size / population for size in sizes]
    counts = [int(x) for x in exact]
    order = list(range(len(sizes)))
    rng.shuffle(order)
    order.sort(key=lambda k: exact[k] - counts[k], reverse=True)
    for k in order[:total - sum(counts)]:
        counts[k] += 1
    return counts


def stratified_sample(items: list[Item], total: int, rng: random.Random) -> list[Item]:
    """``total`` items drawn by stratum (:func:`stratum`), in the order of ``items``."""
    strata: dict[tuple[str, str], list[Item]] = {}
    for item in items:
        strata.setdefault(stratum(item), []).append(item)
    keys = list(strata)
    chosen: set[tuple[str, str]] = set()
    for key, count in zip(keys, quotas([len(strata[k]) for k in keys], total, rng), strict=True):
        chosen.update((i.family, i.name) for i in rng.sample(strata[key], count))
    return [i for i in items if (i.family, i.name) in chosen]


def sample_design(items: list[Item], design: str) -> list[Item]:
    """The items of ``design`` drawn from ``items`` (the design it is drawn from), family by family."""
    out = []
    for family in FAMILIES:
        mine = [i for i in items if i.family == family]
        size = DESIGN_SIZES[design][family]
        rng = random.Random(f"{SAMPLE_SEED}:{design}:{family}")
        out += mine if size is None else stratified_sample(mine, size, rng)
    return out
