"""The answer format as a prompt stanza: the text an LLM reads before it answers."""

from __future__ import annotations

from schedc.grammars.spec import AnswerSpec, Domain, IntRange, NameList
from schedc.verify.answers import fill_template
from schedc.verify.structured import NAME_FIELDS as _NAME_FIELDS


def text_stanza(spec: AnswerSpec) -> str:
    """The response-format stanza of a prompt: the line format, an example line, the rules."""
    count = _count_text(spec)
    lines = [f"Answer format: one line per {spec.unit} ({count}), each exactly"]
    if spec.header:
        lines[0] = f"Answer format: first a header line, then one line per {spec.unit} ({count}):"
        lines.append(spec.header)
    lines += [spec.template, "for example"]
    if spec.header:
        lines.append(fill_template(spec.header, {"count": str(spec.min_lines)}))
    lines.append(fill_template(spec.template, {k: str(v) for k, v in spec.example.items()}))
    lines.append("where")
    lines += [f"- <{field}> {_field_text(spec, field)}" for field in spec.fields]
    if spec.header:
        lines.append("- <count> is the number of lines after the header")
    lines.append(_closing_rule(spec))
    return "\n".join(lines) + "\n"


def _count_text(spec: AnswerSpec) -> str:
    if spec.max_lines == spec.min_lines:
        return f"{spec.min_lines} lines"
    if spec.max_lines is not None:
        return f"{spec.min_lines} to {spec.max_lines} lines"
    return f"at least {spec.min_lines} lines"


def _closing_rule(spec: AnswerSpec) -> str:
    """The last rule: what must appear once, how a day off is written, and no other text."""
    # only interval instances with optional activities have a bounded, unfixed number of lines
    if spec.max_lines is not None and spec.max_lines != spec.min_lines:  # an omitted line leaves one out
        what = "(job, step)" if "step" in spec.fields else spec.unit
        rule = f"Each {what} appears at most once; an optional one that is not performed has no line. "
    elif spec.unit == "operation":
        rule = "Each (job, step) appears exactly once. "
    elif "activity" in spec.fields:
        rule = f"Each {spec.unit} appears exactly once. "
    elif spec.words.get("free"):
        rule = f"A day off is written {spec.words['free']}. "
    elif spec.unit == "assignment":
        rule = "A day off has no line. "
    else:
        rule = ""
    return rule + "No blank lines and no other text."


def _field_text(spec: AnswerSpec, field: str) -> str:
    """What one placeholder stands for, with its names or its range."""
    domains = [group.domains[field] for group in spec.groups]
    words = spec.words
    if field in _NAME_FIELDS or field in spec.roles:
        names = [name for domain in domains if isinstance(domain, tuple) for name in domain]
        role = words[field]
        lead = {"machine": "the machine chosen among the operation's eligible ones"}.get(field, f"the {role}")
        if field in spec.roles:
            lead = f"the {role} you choose for the {spec.unit}, of a combination listed for it"
        return f"is {lead}: {_listing(names)}"
    if field == "step":
        return f"is the operation's position in its job, {_range_text(domains, 'the job')}"
    if field == "mode":
        return f"is the chosen mode, {_range_text(domains, 'the activity')}"
    if field == "start":
        return "is the start time, an integer ≥ 0"
    if field == "workers":
        names = [n for domain in domains if isinstance(domain, NameList) for n in domain.names]
        worker = words.get("worker", "worker")
        return (f"is the team: distinct {worker} names separated by commas, each {_listing(names)}; "
                f"- when the {words.get('activity', 'activity')} needs no {worker}")
    if field == "day":
        return _day_text(spec, domains[0])
    return f"is the period of the day, {domains[0]}"


def _day_text(spec: AnswerSpec, day: Domain) -> str:
    """How days are numbered, with their range."""
    if spec.day_names == "date":
        return f"is the day of the month, {day}"
    return f"is the day, {day} ({day.lo if isinstance(day, IntRange) else 0} is the first day)"


def _range_text(domains: list[Domain], owner: str) -> str:
    highs = sorted({d.hi for d in domains if isinstance(d, IntRange) and d.hi is not None})
    if len(highs) == 1:
        return f"1..{highs[0]}"
    return f"1 to the number of {'steps' if owner == 'the job' else 'modes'} of {owner} ({highs[0]}..{highs[-1]})"


def _listing(names: list[str], limit: int = 30) -> str:
    """``one of A, B, C`` — or, for many names, a sample of them."""
    if len(names) <= limit:
        return "one of " + ", ".join(names)
    return f"one of the {len(names)} names given ({', '.join(names[:3])}, …, {names[-1]})"
