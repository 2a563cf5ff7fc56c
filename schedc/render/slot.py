"""Statement builders of the slot families (timetabling, rostering).

Categories are generic: ``framing``/``counts`` (calendar and sizes), one category per
entity class (``courses``, ``shifts``, … — one statement per entity when the plan marks it
``*``, else one statement listing the class), ``cover``/``coverage`` (staffing per day),
``unavailability`` (forbidden slots per agent), ``requests``/``preferences`` (assignment
costs per agent), ``skills`` (the skill names in use), ``rules`` (one statement per remaining
constraint) and ``closing`` (the objective, and the remaining constraints when the plan has
no ``rules``; :mod:`schedc.render.rules`). Rules attached to an entity by their selector
(``employee[contract=0]``) are stated with that entity (a contract and its rules). Every rule
sentence is written from its constraint's claim by the kind's own templates
(:mod:`schedc.render.claims`); data statements list rows without modality.
"""

from __future__ import annotations

from typing import Any

from schedc.ir import Entity, Family, PlanStep
from schedc.kinds import (
    AssignmentCost,
    Constraint,
    Coverage,
    Selector,
    Unavailability,
    kind_name,
)
from schedc.render import rules
from schedc.render.context import BuildContext, Builder, Item
from schedc.render.facts import FactId, attribute_text, day_number
from schedc.render.themes import attribute_role, many, plural

# --------------------------------------------------------------------------- days and names


def day_label(ctx: BuildContext, day: int) -> dict[str, Any]:
    """A day as templates show it: its written number and, when known, its weekday."""
    cal = ctx.instance.calendar
    weekday = cal.weekday(day) if cal is not None and day >= 0 else None
    return {"index": day, "number": day_number(ctx.family, ctx.instance, day), "weekday": weekday}


def role(ctx: BuildContext, cls: str) -> str:
    """The word for an entity class (family ``roles``, else the class name)."""
    return ctx.words.get(cls, cls)


def roles(ctx: BuildContext, cls: str) -> str:
    """The plural word for an entity class."""
    return many(ctx.words, cls, role(ctx, cls))


def _entity_classes(ctx: BuildContext) -> list[str]:
    return list(dict.fromkeys(e.cls for e in ctx.instance.entities))


def _entity_facts(ctx: BuildContext, entity: Entity) -> list[FactId]:
    """The attribute and membership facts of one entity."""
    return [f for f in ctx.about(entity.cls, entity.name) if f[0] in ("attr", "member")]


# --------------------------------------------------------------------------- framing and counts


def framing(ctx: BuildContext) -> list[Item]:
    """The setting; calendar and sizes too unless the plan has a ``counts`` category."""
    has_counts = any(step.category == "counts" for step in ctx.family.plan)
    return [_calendar_item(ctx, "framing", claim=not has_counts)]


def counts(ctx: BuildContext) -> list[Item]:
    """Calendar and the number of entities of every class."""
    return [_calendar_item(ctx, "counts", claim=True)]


def _calendar_item(ctx: BuildContext, item_id: str, claim: bool) -> Item:
    cal = ctx.instance.calendar
    sizes = [{"cls": cls, "count": ctx.facts[("size", cls)][0], "one": role(ctx, cls), "many": roles(ctx, cls)}
             for cls in _entity_classes(ctx)]
    start = cal.start_date.isoformat() if cal is not None and cal.start_date is not None else None
    context = {"days": cal.days if cal else 0, "periods": cal.periods_per_day if cal else 1, "start": start,
               "first": day_label(ctx, 0), "last": day_label(ctx, (cal.days if cal else 1) - 1), "sizes": sizes,
               "stated": claim}
    ids = [("calendar",), *(("size", s["cls"]) for s in sizes)] if claim else []
    return Item(item_id, context, ctx.claim(ids), (start,) if start else ())


# --------------------------------------------------------------------------- entities


def entity_builder(cls: str, each: bool) -> Builder:
    """A builder stating the entities of ``cls``: one statement each, or one for the class."""

    def build(ctx: BuildContext) -> list[Item]:
        """The statements of the class's entities."""
        members = [e for e in ctx.instance.entities if e.cls == cls]
        if each:
            return [_entity_item(ctx, e) for e in members]
        ids = [f for e in members for f in _entity_facts(ctx, e)]
        names = [ctx.show(e.name, cls) for e in members]
        free = ctx.family.decision.free if ctx.family.decision else None
        context = {"cls": cls, "one": role(ctx, cls), "many": roles(ctx, cls), "entities": names,
                   "free": ctx.show(free, cls) if free in {e.name for e in members} else None}
        return [Item(cls, context, ctx.claim(ids), tuple(names))]

    return build


def _entity_item(ctx: BuildContext, entity: Entity) -> Item:
    """One entity's statement. Its name and the names its attributes hold are shown in their own
    classes' namespaces (INRC contract ``3`` is not employee ``3``); a free-text annotation (a ``str``
    attribute: INRC's "Night", "50_percent") is ``None`` in a themed rendering that renamed the entity,
    since the source's words would contradict the themed name."""
    attrs: dict[str, Any] = {}
    verbatim: list[str] = [ctx.mention(entity.name, role(ctx, entity.cls), entity.cls)]
    withheld = _annotations(ctx, entity)
    for attr, value in entity.attrs.items():
        if attr in withheld:
            attrs[attr] = None
        elif isinstance(value, tuple):
            many = attribute_role(attr, True)
            attrs[attr] = [ctx.show(v, many) for v in value]
            verbatim += [ctx.mention(v, role(ctx, attr), many) for v in value]
        elif isinstance(value, str) and attribute_text(value) != value:
            attrs[attr] = attribute_text(value)
        elif isinstance(value, str):
            attrs[attr] = ctx.show(value, attribute_role(attr, False))
            verbatim.append(ctx.mention(value, role(ctx, attr), attribute_role(attr, False)))
        else:
            attrs[attr] = value
    attached = [c for c in ctx.instance.constraints if c.active and _attached_to(c, entity)]
    ids = _entity_facts(ctx, entity)
    contexts = []
    for c in attached:
        ids += rules.rule_facts(ctx, c)
        contexts.append(rules.rule_ref(c, ctx))
        verbatim += contexts[-1]["verbatim"]
    context = {"name": ctx.show(entity.name, entity.cls), "cls": entity.cls, "one": role(ctx, entity.cls),
               "attrs": attrs, "rules": contexts}
    return Item(f"{entity.cls}:{entity.name}", context, ctx.claim(ids), tuple(verbatim))


def _annotations(ctx: BuildContext, entity: Entity) -> frozenset[str]:
    """The free-text attributes of ``entity`` a rendering withholds: all of them in a themed rendering
    that shows the entity under a new name, none otherwise."""
    cls = ctx.family.entity_class(entity.cls)
    if ctx.domain is None or cls is None or ctx.show(entity.name, entity.cls) == entity.name:
        return frozenset()
    return frozenset(d.name for d in cls.attributes if d.type == "str")


def _attached_to(c: Constraint, entity: Entity) -> bool:
    """A rule selecting agents by this entity (``employee[contract=0]`` is attached to contract 0)."""
    agents = getattr(c, "agents", None)
    return isinstance(agents, Selector) and (entity.cls, entity.name) in agents.where


SKILL_KINDS = frozenset({"skill_eligibility", "skill_demand"})
"""The kinds that read skills (:mod:`schedc.kinds.skills`)."""


def skills(ctx: BuildContext) -> list[Item]:
    """The skill names the entities mention (no facts of their own: membership is stated per entity), and
    what skills mean: nothing by themselves. Only the skill kinds read them (``ruled``: the instance has an
    active one, stated by its own rule sentence); where no such rule exists, a skill is information."""
    from schedc.render.claims import words_for  # claims imports this module's users

    names = list(dict.fromkeys(s for e in ctx.instance.entities for s in e.attrs.get("skills", ()) or ()))
    shown = [ctx.show(s, "skill") for s in names]
    r = words_for(ctx)
    ruled = any(c.active and kind_name(c) in SKILL_KINDS for c in ctx.instance.constraints)
    return [Item("skills", {"skills": shown, "agent": r.get("agent", "agent"), "value": r.get("value", "value"),
                            "ruled": ruled}, (), tuple(shown))]


# --------------------------------------------------------------------------- tables per day or agent


def cover(ctx: BuildContext) -> list[Item]:
    """One statement per day with staffing requirements."""
    items = []
    for c in ctx.instance.constraints:
        if not (isinstance(c, Coverage) and c.active):
            continue
        days: dict[int, list[Any]] = {}
        for r in c.requirements:
            days.setdefault(r.day, []).append(r)
        for day, rows in sorted(days.items()):
            shown = [{"value": ctx.show(r.value, _value_cls(ctx)), "min": r.min, "max": r.max, "period": r.period}
                     for r in rows]
            ids = [("cover", c.id, r.day, *(() if r.period is None else (r.period,)), r.value) for r in rows]
            context = {"day": day_label(ctx, day), "rows": shown, "complete": c.complete, **_soft(c)}
            items.append(Item(f"cover:{c.id}:{day}", context, ctx.claim(ids), tuple(x["value"] for x in shown)))
    return items


def unavailability(ctx: BuildContext) -> list[Item]:
    """One statement per agent with forbidden slots."""
    items = []
    for c in ctx.instance.constraints:
        if not (isinstance(c, Unavailability) and c.active):
            continue
        by_agent: dict[str, list[Any]] = {}
        for u in c.slots:
            by_agent.setdefault(u.agent, []).append(u)
        for agent, slots in by_agent.items():
            shown = [{"day": day_label(ctx, u.day), "period": u.period} for u in slots]
            ids = [("unavailable", c.id, agent, u.day, *(() if u.period is None else (u.period,))) for u in slots]
            context = {"agent": ctx.show(agent, _agent_cls(ctx)), "slots": shown, **_soft(c)}
            mention = ctx.mention(agent, _agent_words(ctx)["agent"], _agent_cls(ctx))
            items.append(Item(f"unavailability:{c.id}:{agent}", context, ctx.claim(ids), (mention,)))
    return items


def requests(ctx: BuildContext) -> list[Item]:
    """One statement per agent with assignment costs (requests, preferences)."""
    values = [e.name for e in ctx.instance.entities if ctx.family.decision and e.cls == ctx.family.decision.value]
    items = []
    for c in ctx.instance.constraints:
        if not (isinstance(c, AssignmentCost) and c.active):
            continue
        by_agent: dict[str, list[Any]] = {}
        for e in c.entries:
            by_agent.setdefault(e.agent, []).append(e)
        for agent, entries in by_agent.items():
            items.append(_request_item(ctx, c, agent, entries, values))
    return items


def _request_item(ctx: BuildContext, c: AssignmentCost, agent: str, entries: list[Any], values: list[str]) -> Item:
    shown = [{"day": None if e.day < 0 else day_label(ctx, e.day), "value": None if e.value == "*" else
              ctx.show(e.value, _value_cls(ctx)), "cost": e.cost, "when": e.when} for e in entries]
    grid = _grid(ctx, entries, values)
    ids = [("cost", c.id, e.agent, e.day, e.value, e.when) for e in entries]
    context = {"agent": ctx.show(agent, _agent_cls(ctx)), "entries": shown, "grid": grid, **_soft(c)}
    words = _agent_words(ctx)
    verbatim = (ctx.mention(agent, words["agent"], _agent_cls(ctx)),
                *dict.fromkeys(ctx.mention(e.value, words["value"], _value_cls(ctx)) for e in entries
                               if e.value != "*"))
    return Item(f"requests:{c.id}:{agent}", context, ctx.claim(ids), verbatim)


def _grid(ctx: BuildContext, entries: list[Any], values: list[str]) -> list[dict[str, Any]] | None:
    """Per day, the cost of every value, when ``entries`` are a full day × value grid in order."""
    days = ctx.instance.calendar.days if ctx.instance.calendar else 0
    expected = [(d, v) for d in range(days) for v in values]
    if [(e.day, e.value) for e in entries] != expected or any(e.when != "assigned" for e in entries):
        return None
    width = len(values)
    return [{"day": day_label(ctx, d), "costs": [{"value": ctx.show(e.value, _value_cls(ctx)), "cost": e.cost}
                                                   for e in entries[d * width:(d + 1) * width]]}
            for d in range(days)]


# --------------------------------------------------------------------------- shared


def _soft(c: Constraint) -> dict[str, Any]:
    return {"hard": c.hard, "weight": c.weight}


def _agent_cls(ctx: BuildContext) -> str:
    """The class of the decision's agents (whose names answers use)."""
    return ctx.family.decision.agent if ctx.family.decision else "agent"


def _value_cls(ctx: BuildContext) -> str:
    """The class of the decision's values (shifts, rooms)."""
    return ctx.family.decision.value if ctx.family.decision else "value"


def _agent_words(ctx: BuildContext) -> dict[str, str]:
    decision = ctx.family.decision
    agent = decision.agent if decision else "agent"
    value = decision.value if decision else "value"
    return {"agent": role(ctx, agent), "value": role(ctx, value)}


BUILDERS: dict[str, Builder] = {
    "framing": framing,
    "counts": counts,
    "skills": skills,
    "cover": cover,
    "coverage": cover,
    "unavailability": unavailability,
    "requests": requests,
    "preferences": requests,
    "rules": rules.rules,
    "closing": rules.closing,
}
"""Plan category → builder, for the slot families (entity categories are resolved by class)."""


def builder(step: PlanStep, family: Family) -> Builder | None:
    """The builder of a plan step: a fixed category, or an entity class named by the category."""
    return BUILDERS.get(step.category) or class_builder(step, family)


def class_builder(step: PlanStep, family: Family) -> Builder | None:
    """The statements of the entity class a plan step names (singular or plural), one entity each when the step
    may be shuffled; None when it names no class of the family."""
    for cls in family.classes:
        if step.category in (cls.name, plural(cls.name)):
            return entity_builder(cls.name, each=step.shuffle)
    return None
