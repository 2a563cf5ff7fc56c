"""The parts of a rendering around the statements: system prompt, background, response format.

The response-format stanza is derived from the family spec (``answer``, ``answer_header``,
``day_names``, ``decision``) and the rendering's display names and vocabulary, so that the
format a model is told to write is exactly the one :class:`~schedc.verify.verifier.Verifier` reads
back with the same names.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

from schedc.ir import Family, Instance
from schedc.ir.answer_roles import role_fields
from schedc.render.assumptions import applicable
from schedc.render.claims import role_words
from schedc.render.rows import all_routed
from schedc.render.templates import render_shared, render_shared_string, render_string
from schedc.render.themes import plural

_PLACEHOLDER = re.compile(r"<([a-z_]+)>")


def system_prompt(family: Family, words: dict[str, str]) -> str:
    """The system prompt (shared template ``templates/system.j2``)."""
    return render_shared("system.j2", {"title": family.title or family.name, "structure": family.structure,
                                       "w": words})


def background(instance: Instance, family: Family, words: dict[str, str], names: dict[str, str] | None = None) -> str:
    """The family's framing text (rendered in the sandbox), then the shared assumptions that apply to
    this instance (:mod:`schedc.render.assumptions`), as one paragraph."""
    r = role_words(instance, family, words, names or {})
    context = {"w": words, "r": r, "roles": dict(family.roles), "routes": all_routed(instance)}
    text = render_string(textwrap.dedent(family.background).strip(), context)
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
    shared = [render_shared_string(a.text, {"r": r, "w": words}) for a in applicable(instance, family)]
    if shared:
        paragraphs.append(" ".join(shared))
    return "\n\n".join(p for p in paragraphs if p)


def response_format(instance: Instance, family: Family, names: dict[str, str], words: dict[str, str]) -> str:
    """The answer-format stanza in this rendering's names (shared template ``templates/response_format.j2``)."""
    fields = _PLACEHOLDER.findall(family.answer)
    shown = _shown_placeholders(family, words)
    context: dict[str, Any] = {
        "format": _PLACEHOLDER.sub(lambda m: f"<{shown.get(m.group(1), m.group(1))}>", family.answer),
        "header": family.answer_header,
        "fields": [(shown.get(f, f), _describe(f, instance, family, words)) for f in dict.fromkeys(fields)],
        "examples": _examples(instance, family, names, words),
        "lines": _lines_note(instance, family, names, words) + _roles_note(family, words),
        "w": words,
    }
    return render_shared("response_format.j2", context)


def _shown_placeholders(family: Family, words: dict[str, str]) -> dict[str, str]:
    """Answer-line placeholder → how the stanza names it: in the rendering's role words (``<course>``
    rather than ``<agent>``, ``<order>`` for a themed job); the line itself is read by position."""
    decision = family.decision
    out = {"job": words.get("job", "job"), "machine": words.get("machine", "machine"),
           "activity": words.get("activity", "activity")}
    for role in role_fields(family):
        out[role] = words.get(role, role)
    if decision is not None:
        out["agent"] = _role_word(family, decision.agent, "agent", words)
        out["value"] = _role_word(family, decision.value, "value", words)
    return out


def _role_word(family: Family, role: str | None, default: str, words: dict[str, str] | None = None) -> str:
    """The word of a role: the rendering's (themed) vocabulary first, then the family's ``roles``."""
    return (words or {}).get(role or "") or dict(family.roles).get(role or "", default)


def _describe(field: str, instance: Instance, family: Family, words: dict[str, str]) -> str:
    """What one placeholder of the answer line stands for."""
    decision = family.decision
    agent = _role_word(family, decision.agent if decision else None, "agent", words)
    value = _role_word(family, decision.value if decision else None, "value", words)
    texts = {
        "job": f"the {words.get('job', 'job')} name exactly as written above",
        "step": f"the step number within its {words.get('job', 'job')}, counted from 1 in route order",
        "start": "the start time, an integer ≥ 0",
        "machine": f"the {words.get('machine', 'machine')} chosen for that step, named as above",
        "activity": f"the {words.get('activity', 'activity')} name exactly as written above",
        "mode": "the number of the chosen mode, as listed above",
        "agent": f"the {agent} name exactly as written above",
        "value": f"the {value} name exactly as written above",
        "day": _day_text(instance, family),
        "period": "the period of the day, counted from 0",
        "count": "the number of assignment lines that follow",
        "workers": _workers_text(instance, family, words),
    }
    roles = role_fields(family)
    if field in roles:
        activity = words.get("activity", "activity")
        text = f"the {words.get(field, field)} you choose for that {activity}, named as above"
        if field == roles[-1] and len(roles) > 1:
            text += (f"; the {_listing([words.get(r, r) for r in roles])} of a line must be one of the "
                     f"{'pairs' if len(roles) == 2 else 'combinations'} listed for its {activity}")
        return text
    return texts.get(field, field)


def _roles_note(family: Family, words: dict[str, str]) -> str:
    """The sentence of the stanza saying that a line names the chosen mode by its resources per role."""
    roles = role_fields(family)
    if not roles:
        return ""
    chosen = _listing([f"the {words.get(r, r)}" for r in roles])
    return f" Each line names {chosen} you choose for that {words.get('activity', 'activity')}."


def _listing(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _workers_text(instance: Instance, family: Family, words: dict[str, str]) -> str:
    """How the team of an activity is written (``skill_requirements``): its workers' names, by commas."""
    worker = _role_word(family, "worker", "worker", words)
    activity = words.get("activity", "activity")
    article = "an" if activity[:1].lower() in "aeiou" else "a"
    return (f"the {plural(worker)} of the {activity}'s team, each name exactly as written above, separated by "
            f"commas (the order does not matter); each {worker} fills one skill the {activity} needs, so name "
            f"as many {plural(worker)} as it needs in all; write - for {article} {activity} that needs no {worker}")


def _day_text(instance: Instance, family: Family) -> str:
    cal = instance.calendar
    days = cal.days if cal is not None else 0
    if family.day_names == "index1":
        return f"the day, counted from 1 (days 1 to {days})"
    if family.day_names == "date" and cal is not None and cal.start_date is not None:
        first = cal.start_date
        return (f"the day of the month: the first day of the schedule, {first.isoformat()}, is day {first.day}, "
                f"the last is day {first.day + days - 1}")
    return f"the day, counted from 0 (days 0 to {days - 1})"


def _examples(instance: Instance, family: Family, names: dict[str, str], words: dict[str, str]) -> list[str]:
    """Up to two answer lines with this rendering's names and placeholders for the decided values."""
    decision = family.decision
    value = _role_word(family, decision.value if decision else None, "value", words)
    base = {"start": "<integer>", "mode": "<mode>", "machine": f"<{words.get('machine', 'machine')}>",
            "value": f"<{value}>", "day": "<day>", "period": "<period>",
            **{role: f"<{words.get(role, role)}>" for role in role_fields(family)},
            "workers": "<{0}>, <{0}>".format(_role_word(family, "worker", "worker", words))}
    fills = [{**base, **who} for who in _example_subjects(instance, family, names)]
    return [_PLACEHOLDER.sub(lambda m, f=f: f.get(m.group(1), m.group(0)), family.answer) for f in fills]


def _example_subjects(instance: Instance, family: Family, names: dict[str, str]) -> list[dict[str, str]]:
    """Who the example lines are about: two steps of the first job, two activities, or two agents."""
    steps = [a for a in instance.activities if a.job is not None and a.job == instance.activities[0].job]
    if steps:
        return [{"job": names.get(a.job or "", ""), "step": str(a.step)} for a in steps[:2]]
    if instance.activities:
        return [{"activity": names.get(a.name, a.name)} for a in instance.activities[:2]]
    agent_cls = family.decision.agent if family.decision else None
    agents = [e.name for e in instance.entities if e.cls == agent_cls]
    return [{"agent": names.get(a, a)} for a in agents[:2]]


def _one_per_slot(instance: Instance) -> str | None:
    """What a hard ``one_per_slot`` (per agent) asks of every agent-slot, as the verifier reads it
    (:class:`schedc.verify.verifier.Verifier`): ``"exactly"`` one line, ``"at most"`` one, or None (no such
    rule: an agent may hold several values in a slot)."""
    from schedc.kinds import OnePerSlot

    rules = [c for c in instance.constraints if isinstance(c, OnePerSlot) and c.active and c.hard]
    if any(c.exactly for c in rules):
        return "exactly"
    return "at most" if any(c.per == "agent" for c in rules) else None


def _lines_note(instance: Instance, family: Family, names: dict[str, str], words: dict[str, str]) -> str:
    """Which lines the answer must contain."""
    if instance.activities:
        count = len(instance.activities)
        from schedc.kinds.optional import optional_activities

        if optional := optional_activities(instance):  # a left-out optional activity has no line
            what = f"step of every {words.get('job', 'job')}" if any(a.job for a in instance.activities) else \
                words.get("activity", "activity")
            return (f"Give exactly one line for every {what} that is performed ({count - len(optional)} to {count} "
                    f"lines): leave out the line of an optional one to leave it out.")
        if any(a.job is not None for a in instance.activities):
            return f"Give exactly one line for every step of every {words.get('job', 'job')} ({count} lines in all)."
        return f"Give exactly one line for every {words.get('activity', 'activity')} ({count} lines in all)."
    decision = family.decision
    if decision is None:
        return "Give one line per assignment."
    agent = _role_word(family, decision.agent, "agent", words)
    value = _role_word(family, decision.value, "value", words)
    if decision.free is not None:
        off = names.get(decision.free, decision.free)
        listed = _one_per_slot(instance)
        if listed == "at most":  # one_per_slot exactly=false: at most one value a day
            return (f"Give at most one line for every {agent} on every day; a day without a line is a day off, "
                    f"as is a day given the {value} {off}.")
        if listed is None:  # no hard one_per_slot: an agent may hold several values a day
            return (f"Give one line for every {value} a {agent} holds on a day; a day without a line is a day "
                    f"off, as is a day given only the {value} {off}.")
        agents = sum(1 for e in instance.entities if e.cls == decision.agent)
        days = instance.calendar.days if instance.calendar else 0
        return (f"Give exactly one line for every {agent} on every day ({agents * days} lines in all), days off "
                f"included: a day off is written with the {value} {off}.")
    if decision.grain == "period":
        unit = _role_word(family, "lecture", "assignment", words)
        return f"Give one line per {unit}: it places one {unit} of a {agent} in a {value} on a day and period."
    return f"Give one line per {agent} and day worked; a day without a line is a day off."
