"""Why an answer's names are unknown: a themed rendering's names read without ``--variant``.

A model answering a themed prompt (v3a, v4) writes the names that prompt showed ("Velvet Compass
step 1: …"); ``schedc check`` without ``--variant`` reads canonical names and finds every line an
unknown entity. :class:`NamingHints` tells that case apart cheaply, only for reports with unknown
entities: it tries the themed names of the usual seeds (:data:`SEEDS`; v3a and v4 of one seed show
the same names), then the names of the family's theme pools, and says which ``--variant``/``--variant-seed``
to pass — one line, in the report's ``naming_hint``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from pathlib import Path

import msgspec

from schedc.ir import Family, Instance
from schedc.verify.answers import NAME_FIELDS, AnswerFormat, AnswerStream
from schedc.verify.verifier import CheckReport

SEEDS = (42, 43, 44, 0, 1, 7)
"""The seeds tried, in order: the default (42), the seed study's (43, 44), then the small ones of examples."""

MATCHED = 0.5
"""The share of the answer's distinct names a rendering must explain to be named in the hint."""

SAMPLE = 10_000
"""Schedule lines whose names are sampled for the hint: an answer's first lines show its naming, and a huge
answer costs no more than they do."""


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


class NamingHints:
    """The naming hints of one instance under one family (themed names computed once, on demand)."""

    def __init__(self, instance: Instance, family: Family, search: Sequence[Path] = ()):
        self.instance = instance
        self.family = family
        self.search = tuple(search)
        self._seeds: dict[int, frozenset[str]] = {}
        self._pools: frozenset[str] | None = None

    def add(self, report: CheckReport, text: str) -> CheckReport:
        """``report`` with a hint when it lists unknown entities and the answer's names are themed."""
        if not any(i.kind == "unknown_entity" for i in report.issues):
            return report
        hint = self.hint(text)
        return report if hint is None else msgspec.structs.replace(report, naming_hint=hint)

    def hint(self, text: str) -> str | None:
        """The hint for an answer text read with canonical names, or None when its names are not themed."""
        written = self.written(text)
        if not written:
            return None
        canonical = len(written & self.canonical())
        need = max(canonical + 1, MATCHED * len(written))
        for seed in SEEDS:
            if len(written & self.themed(seed)) >= need:
                return (f"the names are those of the themed rendering of seed {seed} (variants v3a and v4 show them); "
                        f"check with --variant v4 --variant-seed {seed}")
        if len(written & self.pools()) >= need:
            return ("the names come from the theme pools of this family (a themed rendering, v3a or v4); check "
                    "with --variant v4 and the --variant-seed the prompt was rendered with")
        return None

    def written(self, text: str) -> set[str]:
        """The distinct names the first :data:`SAMPLE` schedule lines of the answer write (jobs, activities,
        agents, values, machines, the resources of roles): read as a stream, so a huge answer costs no more
        than its first lines."""
        try:
            fmt = AnswerFormat(self.family)
        except ValueError:
            return set()
        fields = NAME_FIELDS + fmt.roles  # the resources a line names per role are names too
        lines = AnswerStream(text, fmt, keep=0).lines
        return {_key(line.fields[f]) for line in islice(lines, SAMPLE) for f in fields if f in line.fields}

    def canonical(self) -> frozenset[str]:
        from schedc.ir.names import canonical_names

        names = canonical_names(self.instance, self.family)
        return frozenset(_key(n) for n in [*names, *names.values()])

    def themed(self, seed: int) -> frozenset[str]:
        """The display names of the themed rendering of ``seed``."""
        found = self._seeds.get(seed)
        if found is None:
            from schedc.render import display_names

            names = display_names(self.instance, self.family, "v4", seed, self.search)
            found = self._seeds[seed] = frozenset(_key(n) for n in names.values())
        return found

    def pools(self) -> frozenset[str]:
        """Every name of the family's theme pools (its own, or the generic ones)."""
        if self._pools is None:
            from schedc.render.themes import load_domains

            self._pools = frozenset(_key(n) for d in load_domains(self.family.name, self.search)
                                    for pool in d.pools.values() for n in pool)
        return self._pools
