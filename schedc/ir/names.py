"""Display names: how an instance's entities are called in prompts and answers.

Canonical names (DESIGN.md §3) come from the family spec: ``rename`` pairs turn an IR
prefix followed by a number into a word (``J12`` → ``Job 12``, ``M3`` → ``Machine 3``), and
``day_names`` says whether days are shown 0-based, 1-based or as the day of the month.
A rendering may replace any of them (themed names); the verifier resolves what an answer
writes back to IR names through a :class:`NameMap`, tolerant of case, blanks and — for a
name such as ``Machine 3`` — the bare number ``3``. :class:`NameGuard` keeps the names of one
themed rendering apart (no shared word, no near spelling; see :mod:`schedc.render.themes`).
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

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


# --------------------------------------------------------------------------- hygiene of themed names


FUNCTION_WORDS = frozenset({"a", "an", "and", "at", "de", "for", "in", "of", "on", "the", "to", "with"})
"""Words two names may share (besides the rendering's role words)."""

NEAR = 2
"""Names within this restricted Damerau–Levenshtein distance (casefolded) are too close."""

_WORD = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=1 << 16)
def words_of(name: str) -> frozenset[str]:
    """The casefolded words of a name (runs of letters: ``Cast-iron`` has two)."""
    return frozenset(_WORD.findall(name.casefold()))


def name_key(name: str) -> str:
    """A name as the rules compare it: casefolded, blanks collapsed."""
    return " ".join(name.split()).casefold()


class NameGuard:
    """The names drawn so far, and whether a new one keeps them apart.

    A name is admitted when it shares no word (function and role words aside) with an
    earlier name, its blank-free spelling is new, and it is not within distance 2 of an
    earlier name that has a word within distance 2 of one of its own. Two whole names can
    only be that near through such a pair of words or through an edit of a blank ("Car
    park" and "Carparks"), which the check leaves to the tests of the shipped pools. Near
    words are found through their 2-deletion neighbourhoods: a set lookup per neighbour, not
    a distance per name drawn.
    """

    def __init__(self, exempt: frozenset[str] = FUNCTION_WORDS):
        self.exempt = set(exempt)
        self.words: set[str] = set()
        self.joined: set[str] = set()
        self._near: defaultdict[str, list[tuple[str, str]]] = defaultdict(list)

    def fits(self, name: str) -> bool:
        """Whether ``name`` is apart from every name drawn so far."""
        own = words_of(name) - self.exempt
        if own & self.words or _joined(name) in self.joined:
            return False
        key = name_key(name)
        near = self._near
        for word in own:
            pairs = {pair for variant in deletions(word) & near.keys() for pair in near[variant]}
            if any(osa_distance(word, other, NEAR) <= NEAR and osa_distance(key, owner, NEAR) <= NEAR
                   for other, owner in pairs):
                return False
        return True

    def allow(self, words: set[str]) -> None:
        """Let names share ``words`` from now on (the fixed words of a label pattern)."""
        self.exempt |= words

    def add(self, name: str) -> None:
        """Record a drawn name."""
        own = words_of(name) - self.exempt
        key = name_key(name)
        self.words |= own
        self.joined.add(_joined(name))
        near = self._near
        for word in own:
            entry = (word, key)
            for variant in deletions(word):
                near[variant].append(entry)


def _joined(name: str) -> str:
    return "".join(name.split()).casefold()


@lru_cache(maxsize=1 << 16)
def deletions(text: str) -> frozenset[str]:
    """``text`` with up to two characters deleted (two strings within distance 2 share one)."""
    size = len(text)
    out = {text[:i] + text[i + 1:] for i in range(size)}
    out.update(text[:i] + text[i + 1:j] + text[j + 1:] for i in range(size) for j in range(i + 1, size))
    out.add(text)
    return frozenset(out)


def osa_distance(a: str, b: str, limit: int = 1 << 30) -> int:
    """Restricted Damerau–Levenshtein (optimal string alignment) distance; any value above
    ``limit`` is reported as ``limit + 1``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = ca != cb
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > limit and min(previous) >= limit:  # no later cell can come back under it
            return limit + 1
        before, previous = previous, current
    return min(previous[-1], limit + 1)


def hygiene_problems(names: Sequence[str], exempt: frozenset[str] = FUNCTION_WORDS) -> list[str]:
    """Every pair of ``names`` that shares a word or is near (empty when they obey the rules)."""
    problems = []
    for a, b in itertools.combinations(names, 2):
        shared = (words_of(a) & words_of(b)) - exempt
        if shared:
            problems.append(f"{a!r} and {b!r} share {sorted(shared)}")
        elif osa_distance(name_key(a), name_key(b), NEAR) <= NEAR:
            problems.append(f"{a!r} and {b!r} are near")
    return problems
