"""The placeholders of a family's answer line, and the resource roles that name a mode.

An interval family whose answer line has a placeholder named after one of its entity classes
(``answer "<activity> start=<start> room=<room> surgeon=<surgeon>"`` with ``class room ()`` and
``class surgeon ()``) names each activity's chosen mode by the resources of those classes it uses,
instead of by its number (``mode=<mode>``). Such a class is a *resource role*: its entities are unary
resources of the instance. The language (semantic pass), the verifier, the grammars and the renderings
read the roles from here, so that they agree on which placeholders are roles.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from schedc.ir.instance import Family, Instance
from schedc.ir.nodes import Activity, Mode

#: Placeholders that hold names, and those that hold integers (besides the roles of a family).
NAME_FIELDS = ("job", "activity", "machine", "agent", "value")
INT_FIELDS = ("step", "start", "mode", "day", "period", "count")
#: Placeholders holding a comma-separated list of names (``workers=W1, W4``; ``-`` for none).
LIST_FIELDS = ("workers",)
PLACEHOLDER = re.compile(r"<([a-z_]+)>")


def role_fields(family: Family) -> tuple[str, ...]:
    """The placeholders of an interval family's answer line that name a resource role: an entity class
    of the family (``<room>`` where it declares ``class room ()``), in template order.

    A line with role fields names its activity's mode by the resources of those classes the mode uses
    (``room=OR3, surgeon=Hale``) instead of by number; the semantic pass makes sure that every mode uses
    exactly one unary resource of every role and that no two modes of an activity use the same ones.
    """
    if family.structure != "interval":
        return ()
    classes = {c.name for c in family.classes}
    return tuple(f for f in dict.fromkeys(PLACEHOLDER.findall(family.answer))
                 if f in classes and f not in NAME_FIELDS + INT_FIELDS + LIST_FIELDS)


def answer_problems(family: Family) -> list[str]:
    """What is wrong with the placeholders of a family's answer line (empty: nothing)."""
    roles = role_fields(family)
    problems = [f"unknown answer placeholder <{f}>" for f in dict.fromkeys(PLACEHOLDER.findall(family.answer))
                if f not in NAME_FIELDS + INT_FIELDS + LIST_FIELDS + roles]
    named = [f"<{f}>" for f in ("mode", "machine") if f"<{f}>" in family.answer]
    if roles and named:
        problems.append(f"the answer names the mode by its resources ({', '.join(f'<{r}>' for r in roles)}) "
                        f"and by {' and '.join(named)}: use one of the two")
    return problems


def role_members(instance: Instance, roles: tuple[str, ...]) -> dict[str, str]:
    """Resource name → its role, for the members of ``roles`` listed by the instance (a name listed by two
    roles keeps the first; the semantic pass then finds a mode without the other, E214)."""
    members: dict[str, str] = {}
    for e in instance.entities:
        if e.cls in roles:
            members.setdefault(e.name, e.cls)
    return members


def mode_roles(mode: Mode, members: Mapping[str, str]) -> dict[str, list[str]]:
    """The resources ``mode`` uses, by role (``members``: resource name → its role), in the order it lists
    them; resources of no role are left out."""
    out: dict[str, list[str]] = {}
    for use in mode.uses:
        role = members.get(use.resource)
        if role is not None:
            out.setdefault(role, []).append(use.resource)
    return out


def role_keys(activity: Activity, roles: tuple[str, ...], members: Mapping[str, str]) -> list[tuple[str, ...] | None]:
    """Per mode of ``activity`` (in order), the resource of each role it uses, or None when a mode does not use
    exactly one resource of every role (the semantic pass reports such a mode, E214)."""
    keys: list[tuple[str, ...] | None] = []
    for mode in activity.modes:
        used = mode_roles(mode, members)
        keys.append(tuple(used[r][0] for r in roles) if all(len(used.get(r, ())) == 1 for r in roles) else None)
    return keys
