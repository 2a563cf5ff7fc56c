"""The answer specification shared by every grammar format: fields, vocabularies and integer ranges
of one instance under one rendering's names."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from schedc.core.solution import Solution
from schedc.ir import Activity, Family, Instance
from schedc.kinds import CountBounds, Coverage
from schedc.verify.answers import AnswerFormat
from schedc.verify.verifier import Verifier

FORMATS: tuple[str, ...] = ("text", "lark", "gbnf", "json-schema")
SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"
_PLACEHOLDER = re.compile(r"<([a-z_]+)>")
#: Characters the verifier reads as field separators: a name holding one could not be read back.
_SEPARATORS = frozenset("|,;:=")
#: Numbers of a structured answer are below 10**100, as in a text answer (:data:`schedc.verify.answers._INT`).


@dataclass(frozen=True)
class IntRange:
    """The integers ``lo..hi`` (``hi`` None: every integer ≥ 0), written in decimal without leading zeros."""

    lo: int
    hi: int | None = None

    def __post_init__(self) -> None:
        if self.lo < 0 or (self.hi is None and self.lo != 0) or (self.hi is not None and self.hi < self.lo):
            raise ValueError(f"unsupported integer range {self}")

    def __str__(self) -> str:
        return f"{self.lo}..{'' if self.hi is None else self.hi}"


@dataclass(frozen=True)
class NameList:
    """A comma-separated list of distinct names of ``names`` (``W1, W4``), or ``-`` for none: the team of
    workers an activity line names (``skill_requirements``)."""

    names: tuple[str, ...]


Domain = tuple[str, ...] | IntRange | NameList


@dataclass(frozen=True)
class LineGroup:
    """One alternative of the line rule: the domain of every field of the template.

    ``key`` names the group (``(6,)``: the jobs of 6 steps); it is empty when one group suffices.
    """

    key: tuple[int, ...]
    domains: dict[str, Domain]


@dataclass(frozen=True)
class AnswerSpec:
    """The answer format of one instance under one rendering's names."""

    instance: str
    family: str
    template: str
    header: str
    pieces: tuple[tuple[str, str], ...]
    header_pieces: tuple[tuple[str, str], ...]
    groups: tuple[LineGroup, ...]
    min_lines: int
    max_lines: int | None
    unit: str
    day_names: str
    example: dict[str, object]
    words: dict[str, str]
    #: the placeholders that name a resource role (:mod:`schedc.ir.answer_roles`): names, like ``machine``
    roles: tuple[str, ...] = ()

    @property
    def fields(self) -> list[str]:
        return [text for kind, text in self.pieces if kind == "field"]


# ---------------------------------------------------------------------------------------- entry points

def answer_spec(instance: Instance, family: Family | None, names: Mapping[str, str] | None) -> AnswerSpec:
    """The fields, vocabularies and ranges of the answer format (shared by every grammar format)."""
    family = _family(instance, family)
    verifier = Verifier(instance, family, names)
    fmt = AnswerFormat(family)
    pieces = _pieces(family.answer)
    fields = [text for kind, text in pieces if kind == "field"]
    groups = _interval_groups(verifier, fields) if instance.activities else _slot_groups(verifier, fields)
    low, high = _line_bounds(verifier)
    return AnswerSpec(
        instance=instance.name, family=family.name, template=fmt.template, header=family.answer_header,
        pieces=pieces, header_pieces=_pieces(family.answer_header) if family.answer_header else (),
        groups=groups, min_lines=low, max_lines=high, unit=_unit_word(verifier),
        day_names=family.day_names, example=_example(verifier, groups[0]), words=_words(verifier),
        roles=fmt.roles)


def _family(instance: Instance, family: Family | None) -> Family:
    if family is not None:
        return family
    from schedc.lang.family import load_family

    return load_family(instance.family)


def _pieces(template: str) -> tuple[tuple[str, str], ...]:
    """A template as ("lit", text) and ("field", placeholder) pieces, in order, without empty literals."""
    out: list[tuple[str, str]] = []
    pos = 0
    for match in _PLACEHOLDER.finditer(template):
        if match.start() > pos:
            out.append(("lit", template[pos:match.start()]))
        out.append(("field", match.group(1)))
        pos = match.end()
    if pos < len(template):
        out.append(("lit", template[pos:]))
    return tuple(out)


def _shown(verifier: Verifier, role: str, ir_names: Sequence[str]) -> tuple[str, ...]:
    """The display names of one role, in order; a ValueError if there are none or two of them read alike."""
    if not ir_names:
        raise ValueError(f"the instance has no {role} an answer could name")
    shown = tuple(verifier.names.show(name) for name in ir_names)
    seen: dict[str, str] = {}
    for ir_name, text in zip(ir_names, shown, strict=True):
        key = " ".join(text.split()).casefold()
        if key in seen and seen[key] != ir_name:
            raise ValueError(f"the names mapping shows {seen[key]} and {ir_name} both as {text!r}: "
                             f"answers could not tell these {role}s apart")
        if not text.strip() or text != text.strip():
            raise ValueError(f"the display name {text!r} of {ir_name} is blank or has blanks at an end")
        if _SEPARATORS.intersection(text):
            raise ValueError(f"the display name {text!r} of {ir_name} holds one of {''.join(sorted(_SEPARATORS))}, "
                             "which separate the fields of an answer line")
        seen[key] = ir_name
    return shown


def _interval_groups(verifier: Verifier, fields: list[str]) -> tuple[LineGroup, ...]:
    """Line groups of an interval family: units (jobs or activities) grouped by step and mode counts."""
    role = "job" if "job" in fields else "activity"
    units: dict[str, list[Activity]] = {}
    for activity in verifier.instance.activities:
        units.setdefault((activity.job or "") if role == "job" else activity.name, []).append(activity)
    shown = dict(zip(units, _shown(verifier, role, list(units)), strict=True))
    keyed: dict[tuple[int, ...], list[str]] = {}
    for unit, activities in units.items():
        key = ((len(activities),) if "step" in fields else ()) + \
              ((max(len(a.modes) for a in activities),) if "mode" in fields else ())
        keyed.setdefault(key, []).append(shown[unit])
    shared = _shared_domains(verifier, fields)
    groups = []
    for key, members in keyed.items():
        domains: dict[str, Domain] = {**shared, role: tuple(members)}
        counts = list(key)
        if "step" in fields:
            domains["step"] = IntRange(1, counts.pop(0))
        if "mode" in fields:
            domains["mode"] = IntRange(1, counts.pop(0))
        groups.append(LineGroup(key=key if len(keyed) > 1 else (), domains=domains))
    return tuple(groups)


def _shared_domains(verifier: Verifier, fields: list[str]) -> dict[str, Domain]:
    """Domains every line group of an interval family shares: start times (at most the horizon, when the
    instance states one: every activity ends by it) and machines."""
    domains: dict[str, Domain] = {}
    if "start" in fields:
        domains["start"] = IntRange(0, verifier.instance.horizon)
    if "machine" in fields:
        used = {use.resource for a in verifier.instance.activities for mode in a.modes for use in mode.uses}
        machines = [r.name for r in verifier.instance.resources if r.name in used]
        domains["machine"] = _shown(verifier, "machine", machines)
    for role in verifier.format.roles:  # the members of each resource role some mode uses
        used = {use.resource for a in verifier.instance.activities for mode in a.modes for use in mode.uses}
        members = [name for name, cls in verifier.members.items() if cls == role and name in used]
        domains[role] = _shown(verifier, role, members)
    if "workers" in fields:
        domains["workers"] = NameList(_shown(verifier, "worker", verifier.workers))
    return domains


def _slot_groups(verifier: Verifier, fields: list[str]) -> tuple[LineGroup, ...]:
    """The one line group of a slot family: agents, values, the displayed days, the periods."""
    ctx = verifier.ctx
    domains: dict[str, Domain] = {}
    for field in fields:
        if field == "agent":
            domains[field] = _shown(verifier, "agent", ctx.agents)
        elif field == "value":
            domains[field] = _shown(verifier, "value", ctx.values)
        elif field == "day":
            domains[field] = IntRange(verifier.day_display(0), verifier.day_display(max(ctx.days, 1) - 1))
        elif field == "period":
            domains[field] = IntRange(0, max(ctx.periods, 1) - 1)
    return (LineGroup(key=(), domains=domains),)


def _line_bounds(verifier: Verifier) -> tuple[int, int | None]:
    """The fewest and the most lines a complete answer has (most None: not fixed by the instance)."""
    instance = verifier.instance
    if instance.activities:
        # an optional activity that is not performed has no line (docs/language.md): the selection rules
        # (exactly_one, ...) are the verifier's, so the fewest lines is the number of required activities
        return len(instance.activities) - len(verifier.ctx.optional), len(instance.activities)
    required = verifier.coverage(Solution())[1]
    return required, required if verifier.exactly or _exact_demand(verifier) else None


def _exact_demand(verifier: Verifier) -> bool:
    """Whether the demand the verifier counts coverage by is exact (so it is also the number of lines)."""
    ctx = verifier.ctx
    for c in ctx.instance.constraints:
        if isinstance(c, Coverage) and c.active and c.hard:
            return c.complete and all(r.min is not None and r.min == r.max for r in c.requirements)
    for c in ctx.instance.constraints:
        if isinstance(c, CountBounds) and c.active and c.hard and c.values.mode == "work" and c.min is not None:
            # exact only if it binds every agent: the agents it does not select may work any number of days
            selected = ctx.select(c.agents)
            return set(selected) >= set(ctx.agents) and \
                all(ctx.bound(c.min, agent) == ctx.bound(c.max, agent) for agent in selected)
    return False


def _unit_word(verifier: Verifier) -> str:
    """What one answer line stands for: an operation, an activity, a nurse and day, a lecture, an assignment."""
    roles = dict(verifier.family.roles)
    if verifier.instance.activities:
        return "operation" if any(a.job is not None for a in verifier.instance.activities) else \
            roles.get("activity", "activity")
    if verifier.exactly:
        agent = roles.get(verifier.ctx.agent_cls, "agent")
        return f"{agent} and day" if verifier.ctx.periods == 1 else f"{agent}, day and period"
    return roles.get("lecture", "assignment")


def _words(verifier: Verifier) -> dict[str, str]:
    """The family's words for the roles of the answer fields."""
    roles = dict(verifier.family.roles)
    ctx = verifier.ctx
    return {"job": roles.get("job", "job"), "activity": roles.get("activity", "activity"),
            "worker": roles.get("worker", "worker"),
            "machine": roles.get("machine", "machine"), "agent": roles.get(ctx.agent_cls, ctx.agent_cls or "agent"),
            "value": roles.get(ctx.value_cls, ctx.value_cls or "value"), "free": ctx.free or "",
            **{role: roles.get(role, role) for role in verifier.format.roles}}


def _example(verifier: Verifier, group: LineGroup) -> dict[str, object]:
    """Example field values: the first entity of each name role, the least number of each range.

    In an interval family the example is the first activity (in the first line group), on the machine
    of its first mode.
    """
    values: dict[str, object] = {field: domain.lo if isinstance(domain, IntRange) else
                                 ", ".join(domain.names[:1]) if isinstance(domain, NameList) else domain[0]
                                 for field, domain in group.domains.items()}
    if verifier.instance.activities:
        first = verifier.instance.activities[0]
        uses = first.modes[0].uses
        if "machine" in values and uses:
            values["machine"] = verifier.names.show(uses[0].resource)
        for use in uses:  # the resources of the first mode, by role
            if (role := verifier.members.get(use.resource)) in values:
                values[role] = verifier.names.show(use.resource)
        if "step" in values and first.step is not None:
            values["step"] = first.step
    return values


# ---------------------------------------------------------------------------------------- integer ranges
