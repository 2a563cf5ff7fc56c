"""Where each table row of a constraint is stated: a data statement of the plan, or the rule sentence.

A rule sentence states its claim; the rows of the claim (release dates, downtime windows, due
dates, precedences) are stated by the data category of the plan that lists such rows in its own
words — when the plan has that category and the category's words fit the row: data categories
word *hard* rows ("nothing may start earlier"), so the rows of a soft rule are always listed by
the rule sentence itself, and so is every row of a hard rule whose category the family's plan
lacks (a flexible job shop with downtime). Nothing is refused for want of a category.

Precedences have three homes. A job whose steps are chained, in step order, by the end-to-start
edges of one hard rule is a *routed* job: its job statement lists the steps in route order and
states the lag-free edges of the chain. The other hard end-to-start edges (across jobs, or with a
delay) go to the ``precedences`` category when the plan has one; every remaining edge — another
relation (``s=s``, ``e->e``, …), a negative delay, a soft rule's edge — is a clause of the rule
sentence (:func:`schedc.render.claims.claim_view`).
"""

from __future__ import annotations

from schedc.ir import Activity, Instance
from schedc.kinds import Constraint, PrecedenceLag
from schedc.render.context import BuildContext
from schedc.render.facts import FactId, per_instance

ROW_HOMES: dict[str, str] = {"release": "releases", "deadline": "releases", "latest_start": "releases",
                             "earliest_end": "releases", "downtime": "downtime", "due": "due_dates",
                             "capacity": "resources", "budget": "resources"}
"""Fact kind of a hard rule's row → the plan category that states it (when the plan has it)."""

SENTENCE_FACTS = ("rule", "pattern_cost", "unary", "setup", "window_due", "relation", "soft")
"""Fact kinds a rule sentence always states itself: the rule, a weekend cost table, machines it quantifies,
setup rows, the due dates and weights a time window carries for the objective, the relations other than
end-before-start, and every row of a soft rule."""


def job_steps(instance: Instance) -> dict[str, list[Activity]]:
    """Job → its activities in step order."""
    out: dict[str, list[Activity]] = {}
    for a in instance.activities:
        if a.job is not None:
            out.setdefault(a.job, []).append(a)
    return {job: sorted(acts, key=lambda a: a.step or 0) for job, acts in out.items()}


@per_instance
def routing(instance: Instance) -> dict[str, str]:
    """Job → the id of the first active hard precedence rule whose end-to-start edges (any delay ≥ 0)
    chain all its steps in step order; jobs of one step map to ``""`` (nothing to chain), and jobs no
    single rule chains are absent."""
    chains = [(c.id, {(e.before, e.after) for e in c.edges if e.end_start}) for c in instance.constraints
              if isinstance(c, PrecedenceLag) and c.active and c.hard]
    out: dict[str, str] = {}
    for job, acts in job_steps(instance).items():
        pairs = [(a.name, b.name) for a, b in zip(acts, acts[1:], strict=False)]
        if not pairs:
            out[job] = ""
            continue
        found = next((cid for cid, edges in chains if all(p in edges for p in pairs)), None)
        if found is not None:
            out[job] = found
    return out


def all_routed(instance: Instance) -> bool:
    """Whether every job of two or more steps is a routed job (backgrounds and framings may then say
    that each job is a fixed sequence of steps)."""
    routed = routing(instance)
    return all(job in routed for job in job_steps(instance))


@per_instance
def route_edges(instance: Instance) -> dict[tuple[str, str], str]:
    """(before, after) → the rule whose lag-free edge a job statement states (the routed chains)."""
    routed = routing(instance)
    lag_free = {(c.id, e.before, e.after) for c in instance.constraints if isinstance(c, PrecedenceLag)
                and c.active and c.hard for e in c.edges if e.relation == "e->s" and e.lag == 0}
    out: dict[tuple[str, str], str] = {}
    for job, acts in job_steps(instance).items():
        cid = routed.get(job)
        for a, b in zip(acts, acts[1:], strict=False):
            if cid and (cid, a.name, b.name) in lag_free:
                out[(a.name, b.name)] = cid
    return out


def categories(ctx: BuildContext) -> frozenset[str]:
    """The categories of the rendering's plan."""
    return frozenset(step.category for step in ctx.family.plan)


def edge_home(ctx: BuildContext, c: Constraint, before: str, after: str) -> str:
    """Which statement states a hard end-to-start edge of ``c``: ``jobs``, ``precedences`` or ``rule``."""
    plan = categories(ctx)
    if "jobs" in plan and route_edges(ctx.instance).get((before, after)) == c.id:
        return "jobs"
    return "precedences" if "precedences" in plan else "rule"


def in_sentence(ctx: BuildContext, c: Constraint, fact: FactId) -> bool:
    """Whether the rule sentence of ``c`` states ``fact`` (one of ``c``'s facts)."""
    kind = str(fact[0])
    if kind in SENTENCE_FACTS:
        return True
    if kind == "edge":
        return edge_home(ctx, c, str(fact[1]), str(fact[2])) == "rule"
    home = ROW_HOMES.get(kind)
    return home is not None and home not in categories(ctx)


def sentence_facts(ctx: BuildContext, c: Constraint) -> list[FactId]:
    """The facts of ``c`` its rule sentence states, in ledger order."""
    return [f for f in ctx.constraint_facts(c.id) if in_sentence(ctx, c, f)]
