"""Display names: how an instance's entities are called in prompts and answers.

Canonical names (DESIGN.md §3) come from the family spec: ``rename`` pairs turn an IR
prefix followed by a number into a word (``J12`` → ``Job 12``, ``M3`` → ``Machine 3``), and
``day_names`` says whether days are shown 0-based, 1-based or as the day of the month.
A rendering may replace any of them (themed names); the verifier resolves what an answer
writes back to IR names through a :class:`NameMap`, tolerant of case, blanks and — for a
name such as ``Machine 3`` — the bare number ``3``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from schedc.ir import Family, Instance

_NUMBERED = re.compile(r"^([A-Za-z_]+)([0-9]+)$")


def canonical_name(name: str, family: Family) -> str:
    """The canonical display name of an IR name under the family's ``rename`` rules."""
    match = _NUMBERED.match(name)
    if match is not None:
        for prefix, word in family.rename:
            if match.group(1) == prefix:
                return f"{word}{match.group(2)}"
    return name


def canonical_names(instance: Instance, family: Family) -> dict[str, str]:
    """IR name → canonical display name, for every name an answer may mention."""
    names: dict[str, str] = {}
    for items in (instance.resources, instance.entities):
        for item in items:
            names[item.name] = canonical_name(item.name, family)
    step_word = dict(family.roles).get("operation", "step")
    for activity in instance.activities:
        if activity.job is not None:
            names[activity.job] = canonical_name(activity.job, family)
            names[activity.name] = f"{names[activity.job]} {step_word} {activity.step}"
        else:
            names[activity.name] = canonical_name(activity.name, family)
    return names


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


class NameMap:
    """Resolves displayed names back to IR names, per role (jobs, machines, agents, ...)."""

    def __init__(self, display: Mapping[str, str]):
        self.display = dict(display)
        self._back: dict[str, dict[str, str]] = {}

    def show(self, name: str) -> str:
        return self.display.get(name, name)

    def resolver(self, role: str, names: Iterable[str]) -> dict[str, str]:
        """A lookup table from accepted spellings to the IR names of one role."""
        table = self._back.get(role)
        if table is None:
            table = {}
            ambiguous: set[str] = set()
            for name in names:
                shown = self.show(name)
                for spelling in (_key(shown), _key(name), *_number_alias(shown)):
                    if spelling in table and table[spelling] != name:
                        ambiguous.add(spelling)
                    table.setdefault(spelling, name)
            for spelling in ambiguous:  # a spelling two names share resolves to neither
                del table[spelling]
            self._back[role] = table
        return table

    @staticmethod
    def lookup(table: Mapping[str, str], written: str) -> str | None:
        return table.get(_key(written))


def _number_alias(shown: str) -> list[str]:
    """``Machine 3`` may also be written ``3``."""
    match = re.match(r"^[A-Za-z][A-Za-z ]*?\s([0-9]+)$", shown)
    return [match.group(1)] if match else []
