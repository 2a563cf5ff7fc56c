"""Rendering an instance: plan → statement items → order → paraphrases → text, with a fact ledger.

The family's plan (``plan [framing jobs* closing]``) orders the statement categories; a
category marked ``*`` may be permuted by the order axis. Builders (:data:`BUILDERS`) turn a
category into items; categories in :data:`LATE` are built after the others so that they can
state whatever the others left unsaid. A rendering that leaves a fact of the instance
unclaimed is refused (E606): rendering is faithful or fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from schedc.family import load_family
from schedc.ir import Family, Instance, PlanStep
from schedc.kinds import INTERVAL_KINDS, kind_name
from schedc.names import canonical_names
from schedc.render import interval, slot
from schedc.render.context import BuildContext, Builder, Item, unsupported
from schedc.render.facts import facts
from schedc.render.model import DEFAULT_SEED, Rendering, Statement, Variant, printed_numbers, stream
from schedc.render.model import variant as find_variant
from schedc.render.prompt import background, response_format, system_prompt
from schedc.render.templates import TemplateSet
from schedc.render.themes import Domain, load_domains, pick_domain, themed_names, vocabulary

BUILDERS: dict[str, Callable[[PlanStep, Family], Builder | None]] = {"interval": interval.builder,
                                                                     "slot": slot.builder}
"""Family structure → the lookup of a plan step's builder."""

LATE = ("rules", "closing")
"""Categories built last (they may state what earlier categories left unclaimed)."""


def render(instance: Instance, family: Family | None = None, variant: str = "v1", seed: int = DEFAULT_SEED,
           search: Sequence[Path] = ()) -> Rendering:
    """The rendering of ``instance`` in one variant and seed (identical bytes in every process)."""
    family = family or load_family(instance.family, search)
    chosen = find_variant(variant)
    domain, names = naming(instance, family, chosen, seed, search)
    words = vocabulary(family, domain)
    ctx = BuildContext(instance=instance, family=family, names=names, words=words, facts=facts(instance),
                       domain=domain)
    statements = _statements(ctx, chosen, seed, TemplateSet(family.name, search))
    missing = ctx.unclaimed()
    if missing:
        shown = ", ".join(repr(m) for m in missing[:5])
        raise unsupported(f"the plan of family {family.name!r} leaves {len(missing)} facts unstated: {shown}")
    return Rendering(instance=instance.name, family=family.name, variant=chosen.name, seed=seed,
                     theme=domain.id if domain else None, system=system_prompt(family, words),
                     background=background(family, words), statements=tuple(statements),
                     response_format=response_format(instance, family, names, words), names=names)


def naming(instance: Instance, family: Family, chosen: Variant, seed: int,
           search: Sequence[Path] = ()) -> tuple[Domain | None, dict[str, str]]:
    """(theme domain, display names) of a variant: canonical unless the variant is themed."""
    domains = load_domains(family.name, search) if chosen.theme else ()
    if not domains:
        return None, canonical_names(instance, family)
    rng = stream(seed, instance.name, "theme")
    domain = pick_domain(domains, rng)
    return domain, themed_names(instance, family, domain, rng)


def display_names(instance: Instance, family: Family | None = None, variant: str = "v1",
                  seed: int = DEFAULT_SEED, search: Sequence[Path] = ()) -> dict[str, str]:
    """IR name → display name in a variant: what the verifier must use to read its answers."""
    family = family or load_family(instance.family, search)
    return naming(instance, family, find_variant(variant), seed, search)[1]


def _statements(ctx: BuildContext, chosen: Variant, seed: int, templates: TemplateSet) -> list[Statement]:
    _refuse_soft_interval(ctx)
    items = _build(ctx)
    template_rng = stream(seed, ctx.instance.name, "template")
    order_rng = stream(seed, ctx.instance.name, "order")
    shared = _shared_context(ctx)
    out: list[Statement] = []
    for step in ctx.family.plan:
        draw = template_rng.random()  # one draw per plan step in every variant keeps the stream aligned
        group = list(items[step.category])
        if not group:
            continue
        count = len(templates.paraphrases(step.category)[1])
        index = int(draw * count) if chosen.template else 0
        if chosen.order and step.shuffle:
            order_rng.shuffle(group)
        out += [_statement(templates, step, index, item, shared) for item in group]
    return out


def _build(ctx: BuildContext) -> dict[str, list[Item]]:
    lookup = BUILDERS[ctx.family.structure]
    steps: list[PlanStep] = sorted(ctx.family.plan, key=lambda s: s.category in LATE)
    items: dict[str, list[Item]] = {}
    for step in steps:
        builder = lookup(step, ctx.family)
        if builder is None:
            raise unsupported(f"no statement builder for plan category {step.category!r}",
                              hint="categories: the fixed ones of schedc/render/{interval,slot}.py or an entity "
                              "class name")
        items[step.category] = builder(ctx)
    return items


def _shared_context(ctx: BuildContext) -> dict[str, Any]:
    theme = None if ctx.domain is None else {"id": ctx.domain.id, "setting": ctx.domain.setting}
    return {"w": ctx.words, "theme": theme, "family": ctx.family.name, "title": ctx.family.title}


def _statement(templates: TemplateSet, step: PlanStep, index: int, item: Item, shared: dict[str, Any]) -> Statement:
    name, text = templates.render(step.category, index, {**shared, **item.context})
    return Statement(id=item.id, category=step.category, template=name, text=text, facts=item.facts,
                     numbers=printed_numbers(text, item.verbatim), verbatim=item.verbatim)


STATED_SOFT_INTERVAL_KINDS = frozenset({"tardiness"})
"""Interval kinds whose soft form a statement states (lateness costs); other soft interval rules are refused."""


def _refuse_soft_interval(ctx: BuildContext) -> None:
    for c in ctx.instance.constraints:
        if c.active and not c.hard and kind_name(c) in INTERVAL_KINDS - STATED_SOFT_INTERVAL_KINDS:
            raise unsupported(f"soft {kind_name(c)} constraint {c.id!r}: interval renderings state hard rules only")
