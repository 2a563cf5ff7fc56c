"""The records of a rendering and the variant/seed machinery.

Three axes vary independently (DESIGN.md §4): ``template`` (which paraphrase of each
statement category), ``theme`` (domain and entity names) and ``order`` (permutation of
shuffleable categories). Each axis draws from its own stream, seeded from
``(seed, instance name, axis)`` through BLAKE2b — never Python's ``hash()``, which is salted
per process — so a rendering is the same bytes in every process.
"""

from __future__ import annotations

import hashlib
import random
import re
from functools import lru_cache
from typing import NamedTuple

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.kinds.claims import Claim
from schedc.render.facts import FactId

DEFAULT_SEED = 42
AXES = ("template", "theme", "order")


class Variant(NamedTuple):
    """Which axes a variant varies."""

    name: str
    theme: bool
    template: bool
    order: bool


VARIANTS: dict[str, Variant] = {
    "v1": Variant("v1", theme=False, template=False, order=False),
    "v2": Variant("v2", theme=False, template=False, order=True),
    "v3a": Variant("v3a", theme=True, template=False, order=False),
    "v3b": Variant("v3b", theme=False, template=True, order=False),
    "v4": Variant("v4", theme=True, template=True, order=True),
}


def variant(name: str) -> Variant:
    """The variant called ``name`` (case-insensitive: ``v3A`` = ``v3a``); a SchedcError otherwise."""
    found = VARIANTS.get(name.strip().lower())
    if found is None:
        raise SchedcError.at("E602", f"unknown variant {name!r}", hint="variants: " + ", ".join(VARIANTS))
    return found


def stream(seed: int, instance: str, axis: str) -> random.Random:
    """The random stream of one axis for (seed, instance): stable across processes."""
    key = f"schedc-render\x1f{seed}\x1f{instance}\x1f{axis}".encode()
    return random.Random(int.from_bytes(hashlib.blake2b(key, digest_size=16).digest(), "big"))


class Statement(msgspec.Struct, frozen=True, kw_only=True):
    """One rendered statement and its ledger entry.

    ``facts`` are the facts it expresses; :attr:`numbers` the integers its text prints, in
    order, outside the ``verbatim`` strings (display names and attribute texts, which may
    contain digits of their own); ``template`` the paraphrase used.
    """

    id: str
    category: str
    template: str
    text: str
    facts: tuple[FactId, ...] = ()
    verbatim: tuple[str, ...] = ()

    @property
    def numbers(self) -> tuple[int, ...]:
        """The integers the text prints outside its verbatim strings (computed when the ledger is read:
        rendering a prompt does not need them)."""
        return printed_numbers(self.text, self.verbatim)


class ClaimRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A claim of the rendering and the sentences that state it (rule sentence first)."""

    claim: Claim
    text: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return self.claim.to_json(list(self.text))


class Rendering(msgspec.Struct, frozen=True, kw_only=True):
    """A whole rendering: system prompt, background, statements, response format, names."""

    instance: str
    family: str
    variant: str
    seed: int
    theme: str | None
    system: str
    background: str
    statements: tuple[Statement, ...]
    response_format: str
    names: dict[str, str]
    claims: tuple[ClaimRecord, ...] = ()

    @property
    def instance_text(self) -> str:
        """The instance text: statements, a blank line between statement categories."""
        parts: list[str] = []
        previous: str | None = None
        for statement in self.statements:
            if previous is not None:
                parts.append("\n\n" if statement.category != previous else "\n")
            parts.append(statement.text)
            previous = statement.category
        return "".join(parts)

    def user_prompt(self) -> str:
        """Background, instance text and response format: the user message."""
        return "\n\n".join(p for p in (self.background, self.instance_text, self.response_format) if p)

    def text(self) -> str:
        """The plain-text prompt ``schedc render`` prints: system prompt, then the user message."""
        return f"{self.system}\n\n{self.user_prompt()}\n"

    def ledger(self) -> list[dict[str, object]]:
        """Statement → fact ids (and printed numbers), in text order."""
        return [{"id": s.id, "category": s.category, "template": s.template, "facts": [list(f) for f in s.facts],
                 "numbers": list(s.numbers)} for s in self.statements]

    def to_json(self) -> dict[str, object]:
        """The JSON form of ``schedc render --json``."""
        return {"name": self.instance, "family": self.family, "variant": self.variant, "seed": self.seed,
                "theme": self.theme, "system": self.system, "background": self.background,
                "instance": self.instance_text, "response_format": self.response_format,
                "names": self.names, "ledger": self.ledger(), "claims": [c.to_json() for c in self.claims]}


_NUMBER = re.compile(r"(?<!\w)-?\d+(?!\w)")


def printed_numbers(text: str, verbatim: tuple[str, ...] | list[str]) -> tuple[int, ...]:
    """The integers ``text`` prints outside occurrences of the ``verbatim`` strings.

    An occurrence must stand alone (no letter or digit right before or after it), so that
    ``Machine 1`` is not found inside ``Machine 12``; a minus sign right after a letter or
    digit is a dash (``1-3``), not a sign.
    """
    return tuple(int(m.group(0)) for m in _NUMBER.finditer(_mask(text, verbatim)))


def _mask(text: str, verbatim: tuple[str, ...] | list[str]) -> str:
    """``text`` with every standalone occurrence (any case) of a verbatim string containing a digit blanked."""
    items = {" ".join(v.split()) for v in verbatim if any(ch.isdigit() for ch in v)}
    for item in sorted(items, key=lambda v: (-len(v), v)):
        text = _occurrence(item).sub(lambda m: " " * len(m.group(0)), text)
    return text


@lru_cache(maxsize=65536)
def _occurrence(item: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(item) + r"(?!\w)", re.IGNORECASE)
