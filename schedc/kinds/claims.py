"""Claims: what a rule sentence must say about one active constraint.

A claim is derived from an IR constraint by its kind (:meth:`Constraint.claim`) and is the
only input of the kind's sentence templates (``templates/kinds/<kind>/``). It holds

* ``constraint`` and ``kind``: which constraint it states;
* the modality: ``hard``, or soft with its ``weight``, and whether a soft penalty counts
  toward the instance's objective (``scored``: it does not when a makespan instance carries
  soft due dates for information);
* ``counts`` and ``unit``: what the kind counts (working assignments, run lengths, overlapping
  pairs …) and what one violation or penalty point stands for;
* ``params``: the kind's own parameters, named and valued as ``schedc parse --json`` names
  them, with every absent bound (``None``) left out, so that a template cannot mention a bound
  the constraint lacks (under ``StrictUndefined`` reading ``c.min`` of a claim without a
  minimum is an error, not a silent phrase).

The audit of the test suite holds every claim against the constraint it comes from (equal
parameters, one claim per active constraint) and interprets the claim on boundary probes;
the interpretation must agree with the kind's ``check``.
"""

from __future__ import annotations

from typing import Any

import msgspec

COMMON_FIELDS = frozenset({"kind", "id", "hard", "weight", "active", "reason", "span"})
"""Fields every constraint has; the rest are the kind's parameters."""


class Claim(msgspec.Struct, frozen=True, kw_only=True):
    """The structured meaning of one active constraint, as its rule sentences state it."""

    constraint: str
    kind: str
    hard: bool
    weight: int
    scored: bool = True
    counts: str = ""
    unit: str = "violation"
    params: dict[str, Any] = {}

    def to_json(self, text: list[str]) -> dict[str, Any]:
        """The entry of ``schedc render --json``'s ``claims`` list: modality, parameters, sentences."""
        return {"constraint": self.constraint, "kind": self.kind, "hard": self.hard, "weight": self.weight,
                "scored": self.scored, "counts": self.counts, "unit": self.unit, **self.params, "text": text}


def parameters(constraint: msgspec.Struct) -> dict[str, Any]:
    """The kind parameters of ``constraint`` as JSON values, absent (``None``) ones dropped."""
    raw = msgspec.to_builtins(constraint)
    return {key: value for key, value in raw.items() if key not in COMMON_FIELDS and value is not None}
