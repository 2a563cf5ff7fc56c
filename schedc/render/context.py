"""What statement builders share: the instance, its display names and vocabulary, the fact table."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from schedc.core.diagnostics import SchedcError
from schedc.ir import Family, Instance
from schedc.render.facts import FactId, Facts, facts_by_constraint
from schedc.render.themes import Domain

if TYPE_CHECKING:
    from schedc.render.claims import ClaimWriter


class Item(NamedTuple):
    """A statement before its template is chosen: ledger id, template context, facts, verbatim strings."""

    id: str
    context: dict[str, Any]
    facts: tuple[FactId, ...]
    verbatim: tuple[str, ...] = ()


@dataclass
class BuildContext:
    """The inputs of every category builder of one rendering."""

    instance: Instance
    family: Family
    names: dict[str, str]
    words: dict[str, str]
    facts: Facts
    domain: Domain | None
    claimed: set[FactId] = field(default_factory=set)
    writer: ClaimWriter | None = None  # the rule-sentence writer of this rendering, set by the engine
    _index: dict[tuple[str | int, ...], list[FactId]] | None = None
    _categories: frozenset[str] | None = None

    def about(self, *key: str | int) -> list[FactId]:
        """Facts whose id starts with ``key`` after the fact kind: ``about("course", "Math")`` gives
        ``("attr", "course", "Math", ...)`` and ``("member", "course", "Math", ...)`` (indexed once)."""
        if self._index is None:
            index: dict[tuple[str | int, ...], list[FactId]] = {}
            for f in self.facts:
                for end in (2, 3):
                    if len(f) >= end:
                        index.setdefault(tuple(f[1:end]), []).append(f)
            self._index = index
        return self._index.get(key, [])

    def categories(self) -> frozenset[str]:
        """The categories of the rendering's plan (computed once)."""
        if self._categories is None:
            self._categories = frozenset(step.category for step in self.family.plan)
        return self._categories

    def constraint_facts(self, constraint_id: str) -> tuple[FactId, ...]:
        """The facts an active constraint contributes, in ledger order."""
        return facts_by_constraint(self.instance).get(constraint_id, ())

    def show(self, name: str, role: str | None = None) -> str:
        """The display name of an IR name in this rendering; with ``role`` (a contract, a skill), the
        name of that role where two roles share the IR name (INRC contract ``0`` and employee ``0``)."""
        if role is not None:
            return self.names.get(f"{role}:{name}") or self.names.get(name, name)
        return self.names.get(name, name)

    def mention(self, name: str, word: str, role: str | None = None) -> str:
        """How a statement's ledger records a mention of ``name``: its display name, or, when that is
        a bare number (INRC employee ``3``), the phrase ``word 3`` that templates print, so that the
        number audit never mistakes data for the name."""
        shown = self.show(name, role)
        return f"{word} {shown}" if shown.strip().lstrip("-").isdigit() else shown

    def claim(self, ids: Iterable[FactId]) -> tuple[FactId, ...]:
        """Only the ids that are facts of the instance, recorded as claimed (order kept, no repeats)."""
        out = tuple(dict.fromkeys(i for i in ids if i in self.facts))
        self.claimed.update(out)
        return out

    def unclaimed(self, prefix: str | None = None) -> list[FactId]:
        """Facts no statement has claimed yet (of one fact kind if ``prefix`` is given)."""
        return [f for f in self.facts if f not in self.claimed and (prefix is None or f[0] == prefix)]


Builder = Callable[[BuildContext], list[Item]]


def unsupported(message: str, hint: str | None = None, file: str | None = None) -> SchedcError:
    """The error for an instance whose structure the family's rendering plan cannot state faithfully
    (``file``: the family spec, when the fix belongs there)."""
    return SchedcError.at("E606", f"cannot render faithfully: {message}", hint=hint, file=file or "<input>")
