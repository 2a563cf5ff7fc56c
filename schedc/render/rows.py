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

from typing import NamedTuple

from schedc.ir import Activity, Instance
from schedc.kinds import Constraint, PrecedenceLag
from schedc.render.context import BuildContext
from schedc.render.facts import FactId, per_instance

ROW_HOMES: dict[str, str] = {"release": "releases", "deadline": "releases", "latest_start": "releases",
                             "earliest_end": "releases", "downtime": "downtime", "due": "due_dates",
                             "capacity": "resources", "budget": "resources"}
"""Fact kind of a hard rule's row → the plan category that states it (when the plan has it)."""

SENTENCE_FACTS = ("rule", "pattern_cost", "unary", "setup", "window_due", "relation", "soft", "skill_need",
                  "skill_unit", "slot_relation", "slot_cost_row", "day_length")
"""Fact kinds a rule sentence always states itself: the rule, a weekend cost table, machines it quantifies,
setup rows, the due dates and weights a time window carries for the objective, the relations other than
end-before-start, every row of a soft rule, and the rows of a skill demand or of skill requirements."""


@per_instance
def job_steps(instance: Instance) -> dict[str, list[Activity]]:
    """Job → its activities in step order (callers must not mutate the result)."""
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


@per_instance
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
    return ctx.categories()


class EdgeHomes:
    """Where the hard end-to-start edges of one rendering are stated (looked up once, asked per edge)."""

    def __init__(self, ctx: BuildContext):
        plan = ctx.categories()
        self.chained = route_edges(ctx.instance) if "jobs" in plan else {}
        self.listing = "precedences" in plan

    def home(self, c: Constraint, before: str, after: str) -> str:
        """``jobs`` (a routed job's statement), ``precedences`` or ``rule`` (the rule's own sentence)."""
        if self.chained.get((before, after)) == c.id:
            return "jobs"
        return "precedences" if self.listing else "rule"


def edge_home(ctx: BuildContext, c: Constraint, before: str, after: str) -> str:
    """Which statement states a hard end-to-start edge of ``c``: ``jobs``, ``precedences`` or ``rule``."""
    return EdgeHomes(ctx).home(c, before, after)


def in_sentence(ctx: BuildContext, c: Constraint, fact: FactId) -> bool:
    """Whether the rule sentence of ``c`` states ``fact`` (one of ``c``'s facts)."""
    return _stated(ctx, None, c, fact)


def _stated(ctx: BuildContext, homes: EdgeHomes | None, c: Constraint, fact: FactId) -> bool:
    kind = fact[0]
    if kind in SENTENCE_FACTS:
        return True
    if kind == "edge":
        return (homes or EdgeHomes(ctx)).home(c, str(fact[1]), str(fact[2])) == "rule"
    home = ROW_HOMES.get(str(kind))
    return home is not None and home not in ctx.categories()


def sentence_facts(ctx: BuildContext, c: Constraint) -> list[FactId]:
    """The facts of ``c`` its rule sentence states, in ledger order."""
    homes = EdgeHomes(ctx)
    return [f for f in ctx.constraint_facts(c.id) if _stated(ctx, homes, c, f)]


class Split(NamedTuple):
    """How the sentence of one precedence rule divides its edges (in IR names): the multi-step jobs it chains
    (``routes``) and whether those are all of them (``all_routes``), whether ``precedences`` statements
    list some of its edges (``classic``, ``lags``: with a delay), and the edges its sentence states itself."""

    routes: tuple[str, ...]
    all_routes: bool
    classic: bool
    lags: bool
    clauses: tuple[tuple[str, str, int, str], ...]


@per_instance
def _splits(instance: Instance) -> dict[tuple[frozenset[str], str], Split]:
    """The memo of :func:`precedence_split` for one instance, filled as splits are asked for."""
    return {}


def precedence_split(ctx: BuildContext, c: PrecedenceLag) -> Split:
    """The :class:`Split` of ``c`` under the rendering's plan (computed once per instance and plan: the five
    variants of an instance share it)."""
    key = (ctx.categories(), c.id)
    cache = _splits(ctx.instance)
    found = cache.get(key)
    if found is None:
        found = cache[key] = _split(ctx, c)
    return found


def _split(ctx: BuildContext, c: PrecedenceLag) -> Split:
    routes: list[str] = []
    chains = 0
    if c.hard and "jobs" in ctx.categories():
        routed = routing(ctx.instance)
        multi = [job for job, acts in job_steps(ctx.instance).items() if len(acts) > 1]
        routes, chains = [job for job in multi if routed.get(job) == c.id], len(multi)
    homes = EdgeHomes(ctx)
    classic, lags, clauses = False, False, []
    for e in c.edges:
        home = homes.home(c, e.before, e.after) if c.hard and e.end_start else "rule"
        if home == "precedences":
            classic, lags = True, lags or bool(e.lag)
        elif home == "rule":
            clauses.append((e.before, e.after, e.lag, e.relation))
    return Split(routes=tuple(routes), all_routes=len(routes) == chains, classic=classic, lags=lags,
                 clauses=tuple(clauses))
