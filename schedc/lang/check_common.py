"""Helpers shared by the semantic checks of the kinds (``kind_checks`` and the sequencing kinds).

A leaf module: it imports no kind module, so a kind's own check may use it without a cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schedc.kinds.base import Constraint
    from schedc.lang.semantic import Checker


def known_names(names: dict[str, Any], limit: int = 8) -> str | None:
    if not names:
        return None
    shown = list(names)[:limit]
    return "known: " + ", ".join(shown) + (", ..." if len(names) > limit else "")


def resource_scope(kind: str) -> Callable[[Checker, Any], None]:
    def check(ch: Checker, c: Any) -> None:
        if c.resources == "all":
            return
        for name in c.resources:
            r = ch.resources.get(name)
            if r is None:
                ch.error("E202", f"{c.id}: undefined resource {name!r}", c.span, known_names(ch.resources))
            elif r.kind != kind:
                ch.error("E209", f"{c.id}: resource {name} is {r.kind}, not {kind}", c.span)
    return check


def sequenced(ch: Checker, c: Constraint, resources: list[str]) -> None:
    """Resources a sequencing rule speaks of must be kept unary by a hard ``unary_no_overlap``: the
    backends sequence them, which only agrees with the rule's meaning where operations cannot overlap."""
    covered: set[str] = set()
    for other in ch.instance.constraints:
        if _tag(other) == "unary_no_overlap" and other.active and other.hard:
            covered |= {r for r, res in ch.resources.items() if res.kind == "unary"} if other.resources == "all" \
                else set(other.resources)
    for name in resources:
        if name in ch.resources and name not in covered:
            ch.error("E209", f"{c.id}: resource {name} has no hard unary_no_overlap; {_tag(c)} needs one",
                     c.span, "add `hard unary_no_overlap machines`")


def activity_names(ch: Checker, c: Constraint, names: list[str]) -> None:
    for name in names:
        if name not in ch.activities:
            ch.error("E202", f"{c.id}: undefined activity {name!r}", c.span, known_names(ch.activities))


def _tag(c: Any) -> str:
    """The kind name of a constraint (its msgspec tag; :func:`schedc.kinds.kind_name` without the import)."""
    return str(type(c).__struct_config__.tag)
