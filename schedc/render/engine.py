"""Rendering an instance: plan → statement items → order → paraphrases → text, with a fact ledger.

The family's plan (``plan [framing jobs* closing]``) orders the statement categories; a
category marked ``*`` may be permuted by the order axis. Builders (:data:`BUILDERS`) turn a
category into items; categories in :data:`LATE` are built after the others so that they can
state whatever the others left unsaid. Every active constraint's rule sentence is written
from its claim by its kind's templates (:mod:`schedc.render.claims`); the rendering records,
per claim, the sentences that state it. A family without a plan gets its structure's default
plan. A rendering that leaves a fact of the instance unclaimed is refused (E606): rendering is
faithful or fails.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.ir import Family, Instance, PlanStep
from schedc.ir.answer_roles import role_fields
from schedc.ir.names import canonical_names
from schedc.lang.family import find_family_file, load_family
from schedc.render import interval, slot
from schedc.render.claims import ClaimWriter
from schedc.render.context import BuildContext, Builder, Item, unsupported
from schedc.render.facts import FactId, facts
from schedc.render.model import DEFAULT_SEED, ClaimRecord, Rendering, Statement, Variant, stream
from schedc.render.model import variant as find_variant
from schedc.render.prompt import background, response_format, system_prompt
from schedc.render.templates import KindTemplates, TemplateSet
from schedc.render.themes import Domain, load_domains, pick_domain, plural, themed_names, vocabulary

BUILDERS: dict[str, Callable[[PlanStep, Family], Builder | None]] = {"interval": interval.builder,
                                                                     "slot": slot.builder}
"""Family structure → the lookup of a plan step's builder."""

LATE = ("rules", "closing")
"""Categories built last (they may state what earlier categories left unclaimed)."""


def render(instance: Instance, family: Family | None = None, variant: str = "v1", seed: int = DEFAULT_SEED,
           search: Sequence[Path] = ()) -> Rendering:
    """The rendering of ``instance`` in one variant and seed (identical bytes in every process)."""
    family = with_plan(family or load_family(instance.family, search), instance)
    chosen = find_variant(variant)
    memo = _memo(instance, family, chosen, seed, search)
    domain, names = memo.domain, memo.names
    words = {**structure_words(instance), **vocabulary(family, domain)}
    ctx = BuildContext(instance=instance, family=family, names=names, words=words, facts=facts(instance),
                       domain=domain)
    source = find_family_file(family.name, search)
    ctx.writer = ClaimWriter(ctx, KindTemplates(family.name, search, str(source) if source else None))
    templates = TemplateSet(family.name, search, entity_categories(family), str(source) if source else None)
    statements = _statements(ctx, chosen, seed, templates, memo)
    missing = ctx.unclaimed()
    if missing:
        raise unstated(family, missing, str(source) if source else None)
    return Rendering(instance=instance.name, family=family.name, variant=chosen.name, seed=seed,
                     theme=domain.id if domain else None, system=system_prompt(family, words),
                     background=background(instance, family, words, names), statements=tuple(statements),
                     response_format=response_format(instance, family, names, words), names=dict(names),
                     claims=_claim_records(ctx, statements))


def structure_words(instance: Instance) -> dict[str, str]:
    """The word of a job's steps when the family does not name its ``operation`` role: ``step``, as the
    canonical names call them (``Job 1 step 2``, :func:`schedc.ir.names.canonical_names`), so that a
    family of jobs without that role never says "the last activity ends". The other interval roles a
    family leaves out are named by :func:`~schedc.render.themes.vocabulary`; the family's roles and a
    theme's words take precedence over both."""
    if any(a.job is not None for a in instance.activities):
        return {"operation": "step", "operations": "steps"}
    return {}


#: the plan category that states each kind of fact, for the hint of a plan that leaves facts unstated
FACT_CATEGORIES = {"duration": "jobs or activities", "uses": "jobs or activities", "choice": "jobs or activities",
                   "edge": "jobs", "size": "framing", "calendar": "framing", "attr": "an entity class",
                   "member": "an entity class", "objective": "closing", "cover": "cover",
                   "unavailable": "unavailability", "cost": "requests"}


def unstated(family: Family, missing: list[FactId], file: str | None = None) -> SchedcError:
    """E606 for a plan that leaves facts unstated: which facts, and which categories would state them
    (reported at the family spec, where the plan is written)."""
    shown = ", ".join(repr(m) for m in missing[:5])
    wanted = sorted({FACT_CATEGORIES.get(str(m[0]), "rules or closing") for m in missing})
    return unsupported(f"the plan of family {family.name!r} leaves {len(missing)} facts unstated: {shown}",
                       hint=f"add {' / '.join(wanted)} to the family's plan, or leave `plan` out to use the "
                       "default plan of its structure, which states everything its kinds and data carry", file=file)


def with_plan(family: Family, instance: Instance) -> Family:
    """The family with its statement plan, or the default plan of its structure when it has none."""
    if family.plan:
        return family
    return msgspec.structs.replace(family, plan=default_plan(family, instance))


def default_plan(family: Family, instance: Instance) -> tuple[PlanStep, ...]:
    """A plan stating everything a family of built-in kinds can carry: sizes, data (categories with
    nothing to state are skipped), the rules, the objective. Entity classes are stated one entity each."""
    if family.structure == "interval":
        # "roles" only where the answer names modes by them: a category draws from the template stream; entity
        # classes other than machines, events and roles (stated by categories of their own), one entity each:
        # the workers of skill_requirements
        roles = role_fields(family)
        classes = [f"{c.name}*" for c in family.classes if c.name not in ("machine", "event", *roles)]
        names = ["framing", "machines", *(["roles"] if roles else []), "jobs*", "resources", *classes,
                 "activities*", "precedences*", "releases", "due_dates", "downtime", "events", "rules", "closing"]
    else:
        skills = any("skills" in e.attrs for e in instance.entities)
        names = ["framing", *(["skills"] if skills else []), *(f"{c.name}*" for c in family.classes),
                 "cover*", "unavailability*", "requests*", "rules", "closing"]
    return tuple(PlanStep(category=n.rstrip("*"), shuffle=n.endswith("*")) for n in names)


def entity_categories(family: Family) -> frozenset[str]:
    """Plan categories that name an entity class (``courses``, ``nurse``): they may use the default
    entity paraphrases."""
    classes = {c.name for c in family.classes} | {plural(c.name) for c in family.classes}
    return frozenset(step.category for step in family.plan if step.category in classes)


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
    family = with_plan(family or load_family(instance.family, search), instance)
    return naming(instance, family, find_variant(variant), seed, search)[1]


class Memo:
    """What the variants of one instance that show the same names share (v1, v2 and v3b; v3a and v4 of
    one seed): the names, the statement items (and the facts they claim) and every statement already
    rendered, with the rule sentences it wrote. A variant differs from another only in the paraphrase
    chosen and the order, so reusing these gives the same bytes as building them again."""

    def __init__(self, family: Family, domain: Domain | None, names: dict[str, str]):
        self.family = family
        self.domain = domain
        self.names = names
        self.items: dict[str, list[Item]] | None = None
        self.claimed: frozenset[FactId] = frozenset()
        self.statements: dict[tuple[str, int, str], tuple[Statement, list[tuple[str, str]]]] = {}


_MEMOS: dict[int, tuple[Instance, dict[tuple[object, ...], Memo]]] = {}


def _memo(instance: Instance, family: Family, chosen: Variant, seed: int, search: Sequence[Path]) -> Memo:
    """The memo of the names this variant shows (kept for the last few instances, by identity)."""
    entry = _MEMOS.get(id(instance))
    if entry is None or entry[0] is not instance:
        if len(_MEMOS) >= 4:
            _MEMOS.pop(next(iter(_MEMOS)))
        entry = _MEMOS[id(instance)] = (instance, {})
    key = (id(family), chosen.theme, seed if chosen.theme else None, tuple(str(p) for p in search))
    found = entry[1].get(key)
    if found is None or found.family is not family:
        domain, names = naming(instance, family, chosen, seed, search)
        found = entry[1][key] = Memo(family, domain, names)
    return found


def _statements(ctx: BuildContext, chosen: Variant, seed: int, templates: TemplateSet, memo: Memo) -> list[Statement]:
    if memo.items is None:
        memo.items = _build(ctx)
        memo.claimed = frozenset(ctx.claimed)
    else:
        ctx.claimed.update(memo.claimed)
    items = memo.items
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
        step_context = {**shared, "say": ctx.writer.say(index), "style": index}
        made = [_remembered(ctx, memo, templates, step, index, item, step_context) for item in group]
        made = _once(made, [i.id for i in items[step.category]])
        out += [s for s in made if s.text or s.facts]  # a category with nothing to say states nothing
    return out


def _once(made: list[Statement], declared: list[str]) -> list[Statement]:
    """The statements of one category with each text said once: two statements that came out the
    same (two rules whose sentences coincide) become the one declared first, stating the facts of
    both, at its own place in the (possibly shuffled) order."""
    by_text: dict[str, list[Statement]] = {}
    for s in made:
        if s.text:
            by_text.setdefault(s.text, []).append(s)
    if all(len(group) == 1 for group in by_text.values()):
        return made
    rank = {name: i for i, name in enumerate(declared)}
    keep: dict[str, Statement] = {}
    for group in by_text.values():
        group = sorted(group, key=lambda s: rank.get(s.id, len(rank)))
        keep[group[0].id] = msgspec.structs.replace(
            group[0], facts=tuple(dict.fromkeys(f for s in group for f in s.facts)),
            verbatim=tuple(dict.fromkeys(v for s in group for v in s.verbatim)))
    return [keep[s.id] if s.id in keep else s for s in made if s.id in keep or not s.text]


def _remembered(ctx: BuildContext, memo: Memo, templates: TemplateSet, step: PlanStep, index: int, item: Item,
                context: dict[str, Any]) -> Statement:
    """A statement rendered once per memo; a repeat replays the rule sentences it wrote."""
    key = (step.category, index, item.id)
    found = memo.statements.get(key)
    if found is not None:
        for constraint_id, text in found[1]:
            ctx.writer.texts[constraint_id].append(text)
        return found[0]
    start = len(ctx.writer.log)
    statement = _statement(templates, step, index, item, context)
    written = ctx.writer.log[start:]
    if len(written) > 1 and len({text for _, text in written}) < len(written):
        repeated = [text for text, n in Counter(text for _, text in written).items() if n > 1]
        statement = msgspec.structs.replace(statement, text=said_once(statement.text, repeated))
    memo.statements[key] = (statement, written)
    return statement


def said_once(text: str, sentences: list[str]) -> str:
    """``text`` with every later occurrence of each of ``sentences`` left out: two rules whose
    sentences coincide (INRC's day-off and shift-off requests, each "Each listed cost is added …")
    are stated by the one sentence, not by the same sentence twice in a row."""
    for sentence in sentences:
        first = text.find(sentence)
        if first >= 0:
            end = first + len(sentence)
            again = re.compile(r"(?<!\S)" + re.escape(sentence) + r"(?!\S)")  # whole sentences only
            text = text[:end] + again.sub("", text[end:])
    return " ".join(text.split())


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
    # a domain without a setting (the generic ones, for families without a theme of their own) places the
    # problem nowhere: templates see no theme, so a bakery is never said to be in a service depot
    theme = None if ctx.domain is None or not ctx.domain.setting else {"id": ctx.domain.id,
                                                                       "setting": ctx.domain.setting}
    return {"w": ctx.words, "theme": theme, "family": ctx.family.name, "title": ctx.family.title}


def _claim_records(ctx: BuildContext, statements: list[Statement]) -> tuple[ClaimRecord, ...]:
    """One record per active constraint: its claim and the sentences of this rendering that state it —
    its rule sentence first, then the data statements that list its rows."""
    owner = {f: cid for cid in ctx.writer.by_id for f in ctx.constraint_facts(cid)}
    listed: dict[str, list[str]] = {cid: [] for cid in ctx.writer.by_id}
    for s in statements:
        for cid in dict.fromkeys(owner[f] for f in s.facts if f in owner):
            listed[cid].append(s.text)
    out = []
    for constraint_id, claim in ctx.writer.by_id.items():
        texts = list(dict.fromkeys(ctx.writer.texts[constraint_id]))
        texts += [t for t in listed[constraint_id] if t not in texts and not any(r in t for r in texts)]
        out.append(ClaimRecord(claim=claim, text=tuple(texts)))
    return tuple(out)


def _statement(templates: TemplateSet, step: PlanStep, index: int, item: Item, shared: dict[str, Any]) -> Statement:
    name, text = templates.render(step.category, index, {**shared, **item.context})
    return Statement(id=item.id, category=step.category, template=name, text=text, facts=item.facts,
                     verbatim=item.verbatim)
