"""The ``rules`` and ``closing`` categories shared by every structure.

Every active constraint has a rule fact ``("rule", id)``; the statement that prints its
rule sentence claims it. Entity statements may state the rules attached to them (a contract
and its rules); ``rules`` states, one statement each, the rules no earlier category stated;
``closing`` states the objective, with the remaining rules when the plan has no ``rules``, and
the horizon of an interval instance that has one (``("horizon",)``).
"""

from __future__ import annotations

from typing import Any

from schedc.kinds import Constraint, kind_name
from schedc.kinds.measures import describe_objective
from schedc.render.context import BuildContext, Item
from schedc.render.rows import sentence_facts


def rule_ref(c: Constraint, ctx: BuildContext) -> dict[str, Any]:
    """A rule as category templates see it (they write its sentence with ``say(rule)``)."""
    return {"kind": kind_name(c), "id": c.id, "hard": c.hard, "weight": c.weight,
            "verbatim": ctx.writer.verbatim(c.id)}


def rule_facts(ctx: BuildContext, c: Constraint) -> list[Any]:
    """The facts of ``c`` that its rule sentence states (:mod:`schedc.render.rows`)."""
    return sentence_facts(ctx, c)


def pending(ctx: BuildContext) -> list[Constraint]:
    """Active constraints whose rule no statement has stated yet."""
    return [c for c in ctx.instance.constraints if c.active and ("rule", c.id) in ctx.facts
            and ("rule", c.id) not in ctx.claimed]


def rules(ctx: BuildContext) -> list[Item]:
    """One statement per rule not stated yet."""
    items = []
    for c in pending(ctx):
        ref = rule_ref(c, ctx)
        items.append(Item(f"rules:{c.id}", {"rule": ref}, ctx.claim(rule_facts(ctx, c)), tuple(ref["verbatim"])))
    return items


def closing(ctx: BuildContext) -> list[Item]:
    """The objective, with the rules no other category stated when the plan has no ``rules``."""
    has_rules = any(step.category == "rules" for step in ctx.family.plan)
    left = [] if has_rules else pending(ctx)
    refs = [rule_ref(c, ctx) for c in left]
    ids = [f for c in left for f in rule_facts(ctx, c)]
    ids.append(("objective", ctx.instance.objective.measure))
    verbatim = tuple(v for r in refs for v in r["verbatim"])
    context = {"objective": ctx.instance.objective.measure, "rules": refs, "goal": goal(ctx),
               "horizon": horizon(ctx)}
    if context["horizon"] is not None:
        ids.append(("horizon",))
    return [Item("closing", context, ctx.claim(ids), verbatim)]


def horizon(ctx: BuildContext) -> dict[str, Any] | None:
    """The horizon H of an interval instance, for the closing statement (every performed activity ends by H:
    :func:`~schedc.kinds.timing.horizon_violations`), or None."""
    if ("horizon",) not in ctx.facts:
        return None
    from schedc.render.claims import words_for  # claims imports this module's users

    return {"time": ctx.instance.horizon, "task": words_for(ctx)["task"], "tasks": words_for(ctx)["tasks"],
            "optional": bool(ctx.instance.activities) and any(
                kind_name(c) == "optional" for c in ctx.instance.constraints if c.active)}


def goal(ctx: BuildContext) -> dict[str, Any]:
    """What the objective sums, for closing templates: due-date lateness, preference costs, soft rules."""
    active = [c for c in ctx.instance.constraints if c.active]
    soft = [kind_name(c) for c in active if not c.hard]
    objective = ctx.instance.objective
    measures = ""
    if objective.measure not in ("makespan", "penalty"):  # due-date, setup and weighted-sum objectives
        from schedc.render.claims import words_for  # claims imports this module's users

        r = words_for(ctx)
        measures = describe_objective(objective.measure, objective.terms,
                                      {"task": r["task"], "tasks": r["tasks"], "job": r["job"], "jobs": r["jobs"]})
    return {"soft_kinds": soft, "lateness": "tardiness" in soft, "costs": "assignment_cost" in soft,
            "only_costs": bool(soft) and set(soft) == {"assignment_cost"}, "any_soft": bool(soft),
            "any_hard": any(c.hard for c in active), "measures": measures}
