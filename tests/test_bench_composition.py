"""The composition note's rule-determined part, on a complete name universe.

``composition.md`` states what every canonical source file gives (406 / 294 / 432). Every family but
JSPLib is fixed by the selection rules and the names alone (PSPLIB sets, INRC names, ITC and NSPLib
equal bins); JSPLib's 139 / 42 / 81 come from its full classification table, which only the complete
sources carry. This test derives the rest and checks that the note's sums add up.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from schedc.bench.build import COMPLETE_SOURCES_NOTE
from schedc.bench.selection import bks_bins, natural_key, select
from tests.test_bench import _mm_universe

NOTE_FAMILIES = {"RCPSP-SM": "psplib-sm", "RCPSP-MM": "psplib-mm", "ITC": "itc2007", "INRC": "inrc2010",
                 "NSPLib": "nsplib"}


def _note() -> tuple[tuple[int, ...], dict[str, tuple[int, ...]]]:
    total = re.search(r"easy/medium/hard (\d+) / (\d+) / (\d+)", COMPLETE_SOURCES_NOTE)
    parts = dict(re.findall(r"(JSPLib|RCPSP-SM|RCPSP-MM|ITC|INRC|NSPLib) (\d+/\d+/\d+)", COMPLETE_SOURCES_NOTE))
    assert total is not None and len(parts) == 6
    return tuple(map(int, total.groups())), {k: tuple(map(int, v.split("/"))) for k, v in parts.items()}


def test_the_rules_give_the_notes_counts_for_every_family_but_jsplib(tmp_path: Path) -> None:
    root = _mm_universe(tmp_path)
    nsplib = sorted((f"n25_{k}_case{c}" for k in range(1, 11) for c in range(1, 9)), key=natural_key)
    references = {("nsplib", name): {"value": 100 + (k * 37) % 80} for k, name in enumerate(nsplib)}
    chosen = select([root], references=references)
    counts: dict[str, Counter] = {}
    for item in chosen.items:
        counts.setdefault(item.family, Counter())[item.difficulty] += 1
    total, parts = _note()
    for label, family in NOTE_FAMILIES.items():
        assert tuple(counts[family][d] for d in ("easy", "medium", "hard")) == parts[label], family
    assert sum(counts[f]["unassigned"] for f in NOTE_FAMILIES.values()) == 0
    # the note's JSPLib share is what remains of its totals, and it covers the 262 JSPLib instances
    assert tuple(t - sum(parts[k][i] for k in NOTE_FAMILIES) for i, t in enumerate(total)) == parts["JSPLib"]
    assert sum(parts["JSPLib"]) == sum(1 for i in chosen.items if i.family == "jsplib") == 262


def test_equal_bins_break_ties_by_natural_name() -> None:
    names = [f"n25_{k}_case{c}" for k in range(1, 11) for c in range(1, 9)]
    tiers = bks_bins(names, {}, missing_as_zero=False, references={n: 5 for n in names})
    assert Counter(tiers.values()) == {"easy": 27, "medium": 27, "hard": 26}
    ordered = sorted(names, key=natural_key)
    assert {tiers[n] for n in ordered[:27]} == {"easy"} and {tiers[n] for n in ordered[54:]} == {"hard"}
    partial = bks_bins(names, {}, missing_as_zero=False, references={n: 1 for n in names[:9]})
    assert Counter(partial.values()) == {"easy": 3, "medium": 3, "hard": 3, "unassigned": 71}
    itc = bks_bins([f"comp{k:02d}" for k in range(1, 22)], {}, missing_as_zero=True)
    assert Counter(itc.values()) == {"easy": 7, "medium": 7, "hard": 7}
