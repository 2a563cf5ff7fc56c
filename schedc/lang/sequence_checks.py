"""The semantic check of ``same_sequence`` (:mod:`schedc.kinds.same_sequence`): its scope and pairing.

Dispatched by the semantic pass through :data:`schedc.lang.kind_checks.CONSTRAINT_CHECKS`, like the
checks of the other kinds; it lives in the language stage because it reads the pass's
:class:`~schedc.lang.semantic.Checker`.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from schedc.kinds.same_sequence import SameSequence, can_use
from schedc.lang.check_common import activity_names, resource_scope, sequenced

if TYPE_CHECKING:
    from schedc.lang.semantic import Checker


def check_same_sequence(ch: Checker, c: SameSequence) -> None:
    """The scope names two or more distinct unary resources kept by a hard ``unary_no_overlap``; a
    table (two resources only) pairs activities that can use their resource, each at most once; the
    default pairing needs jobs with at most one activity on each resource of the scope."""
    resource_scope("unary")(ch, c)
    scope = [r for r, res in ch.resources.items() if res.kind == "unary"] if c.resources == "all" \
        else list(c.resources)
    if len(set(scope)) != len(scope) or len(scope) < 2:
        ch.error("E210", f"{c.id}: needs two or more distinct unary resources, got {', '.join(scope) or 'none'}",
                 c.span, "list them: resources=[M1 M2]")
        return
    sequenced(ch, c, scope)
    if c.pairs:
        _table_checks(ch, c, scope)
        return
    if not ch.jobs:
        ch.error("E210", f"{c.id}: the activities have no jobs to pair by; pair them with a table FIRST SECOND",
                 c.span)
    for job in ch.jobs:
        for resource in scope:
            users = [a.name for a in ch.instance.activities if a.job == job
                     and any(u.resource == resource and u.amount for m in a.modes for u in m.uses)]
            if len(users) > 1:
                ch.error("E209", f"{c.id}: job {job} has {len(users)} activities on {resource} "
                         f"({', '.join(users)}); pair them with a table FIRST SECOND", c.span)


def _table_checks(ch: Checker, c: SameSequence, scope: list[str]) -> None:
    if c.resources == "all" or len(scope) != 2:
        ch.error("E210", f"{c.id}: a table of pairs needs exactly two listed resources (resources=[A B])", c.span)
        return
    activity_names(ch, c, [name for p in c.pairs for name in (p.first, p.second)])
    for side, resource in (("first", scope[0]), ("second", scope[1])):
        names = [getattr(p, side) for p in c.pairs]
        for name in sorted(n for n, count in Counter(names).items() if count > 1):
            ch.error("E201", f"{c.id}: {name} is paired twice on {resource}", c.span)
        for name in names:
            if name in ch.activities and not can_use(ch.instance, name, resource):
                ch.error("E209", f"{c.id}: {name} never uses {resource}, so it has no place in its sequence", c.span)
