"""Output grammars: the answer format of an instance as a prompt stanza, a Lark grammar, a GBNF grammar
or a JSON Schema for structured output.

All four are built from one :class:`AnswerSpec`: the family's answer template (``<job> step <step>:
start=<start>``), its optional header (``ASSIGNMENTS=<count>``) and the closed vocabulary of one
rendering — the display names of jobs, activities, machines, agents and values under a names mapping
(canonical names, or themed ones such as ``Sourdough`` for ``J1``) — with the integer ranges the
instance fixes:

* names are literal alternatives (one rule per vocabulary, not one rule per line, so that a grammar
  stays small for 100 jobs); a name is written exactly as displayed (no case or blank tolerance);
  a mapping that shows two entities of a role alike, or a name holding a field separator (``|,;:=``)
  or blanks at an end, is refused (ValueError): the verifier could not read such answers back;
* ``<start>`` and ``<count>`` are non-negative integers without leading zeros, unbounded above;
* ``<step>`` is ``1..n`` for a job of ``n`` operations and ``<mode>`` ``1..k`` for an activity of ``k``
  modes: jobs (activities) are grouped by their number of steps (modes) and each group is one
  alternative of the line rule, so the range follows the name;
* ``<day>`` is the displayed day range (0-based, 1-based or the day of the month, as the family's
  ``day_names`` says) and ``<period>`` ``0..periods-1``, compiled into digit classes;
* lines are separated by ``\\n``, at least one line (``lines="exact"``: exactly the instance's number,
  where the family fixes it), a trailing newline is optional, no blank lines; a header comes first.

The Lark and GBNF forms are written so that every decoding engine reads them alike (tested byte by byte
in ``tests/test_engines.py``): a name and the literal after it are one terminal (``"Iron step "``), since
a greedy lexer such as llguidance's could otherwise never end ``Iron`` beside ``Iron Gate``; no GBNF rule
is named ``start`` (llguidance would read the grammar as Lark); the Lark form has no ``!`` rules, regular
expressions or repetition counts, and writes quotes, ``#`` and ``/`` as ``\\xNN``, so that vLLM's
Lark→EBNF conversion for xgrammar keeps it intact.

Grammars check the *format*, not the schedule: which machine may process an operation, whether every
operation has exactly one line, precedences, capacities and coverage are the verifier's job (an answer
the grammar accepts may still be infeasible, or incomplete). The JSON Schema adds the number of items
where the instance fixes it; what it cannot express is listed in its ``$comment`` (:func:`schema_limits`).

:func:`structured_to_text` turns a structured answer back into answer text, so that the verifier can
check it like any other answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from schedc.answers import AnswerFormat
from schedc.ir import Activity, Family, Instance
from schedc.kinds import CountBounds, Coverage
from schedc.solution import Solution
from schedc.verify import Verifier

FORMATS: tuple[str, ...] = ("text", "lark", "gbnf", "json-schema")
SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"
_PLACEHOLDER = re.compile(r"<([a-z_]+)>")
_NAME_FIELDS = ("job", "activity", "machine", "agent", "value")
#: Characters the verifier reads as field separators: a name holding one could not be read back.
_SEPARATORS = frozenset("|,;:=")
_WRAP = 100  # wrap alternatives lists at about this many characters
#: Numbers of a structured answer are below 10**100, as in a text answer (:data:`schedc.answers._INT`).
_MAX_INT = 10**100


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


Domain = tuple[str, ...] | IntRange


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

    @property
    def fields(self) -> list[str]:
        return [text for kind, text in self.pieces if kind == "field"]


# ---------------------------------------------------------------------------------------- entry points


def answer_grammar(instance: Instance, family: Family | None, names: Mapping[str, str] | None,
                   fmt: str, lines: str = "any") -> str:
    """The answer format of ``instance`` under ``names`` as ``fmt``: text, lark, gbnf or json-schema.

    ``family`` None loads the instance's family; ``names`` maps IR names to display names (None:
    canonical names); ``lines="exact"`` makes the Lark and GBNF grammars accept exactly the instance's
    number of lines. Raises ValueError for an unknown format, a family without an answer format, a
    mapping that shows two entities of one role under the same name, or ``exact`` lines where the
    instance does not fix their number.
    """
    spec = answer_spec(instance, family, names)
    if fmt == "text":
        return text_stanza(spec)
    if fmt == "lark":
        return lark_grammar(spec, lines)
    if fmt == "gbnf":
        return gbnf_grammar(spec, lines)
    if fmt == "json-schema":
        return json.dumps(json_schema(spec), indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"unknown grammar format {fmt!r} (expected one of {', '.join(FORMATS)})")


def structured_to_text(instance: Instance, family: Family | None, names: Mapping[str, str] | None,
                       data: Mapping[str, Any] | str) -> str:
    """A structured answer (``{"assignments": [{...}, ...]}``, as :func:`json_schema` describes) as answer text.

    Values are written as given, in the given order, so that the verifier reports unknown names or
    out-of-range numbers as it would in a text answer; the header's ``<count>`` is the number of items.
    ``names`` is not needed to write (the values carry the display names) and is accepted for symmetry
    with :func:`answer_grammar`. Raises ValueError when ``data`` is not such an object, an item lacks a
    field, or a number is not an integer.
    """
    family = _family(instance, family)
    del names
    items = _items(decode_structured(data) if isinstance(data, str) else data)
    fmt = AnswerFormat(family)
    lines = [_fill(family.answer, _item_values(item, index, fmt.fields)) for index, item in enumerate(items)]
    if family.answer_header:
        lines.insert(0, _fill(family.answer_header, {"count": str(len(items))}))
    return "\n".join(lines) + "\n"


_FENCE = re.compile(r"\A\s*```[A-Za-z]*\s*\n(.*)\n\s*```\s*\Z", re.S)


def answer_text(instance: Instance, family: Family | None, text: str) -> str:
    """An answer as the verifier reads it: a structured answer (JSON, maybe in a code fence) becomes text.

    Anything that is not a JSON object with ``assignments`` — and a structured answer that
    :func:`structured_to_text` refuses — is returned unchanged, so the verifier reports it as it would
    any answer text (usually: nothing extracted).
    """
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text
    if not body.lstrip().startswith("{"):
        return text
    try:
        return structured_to_text(instance, family, None, json.loads(body))
    except ValueError:  # json.JSONDecodeError included
        return text


# ---------------------------------------------------------------------------------------- the spec


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
        day_names=family.day_names, example=_example(verifier, groups[0]), words=_words(verifier))


def _family(instance: Instance, family: Family | None) -> Family:
    if family is not None:
        return family
    from schedc.family import load_family

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
    """Domains every line group of an interval family shares: start times and machines."""
    domains: dict[str, Domain] = {}
    if "start" in fields:
        domains["start"] = IntRange(0)
    if "machine" in fields:
        used = {use.resource for a in verifier.instance.activities for mode in a.modes for use in mode.uses}
        machines = [r.name for r in verifier.instance.resources if r.name in used]
        domains["machine"] = _shown(verifier, "machine", machines)
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
        return len(instance.activities), len(instance.activities)
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
            return all(ctx.bound(c.min, agent) == ctx.bound(c.max, agent) for agent in ctx.select(c.agents))
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
            "machine": roles.get("machine", "machine"), "agent": roles.get(ctx.agent_cls, ctx.agent_cls or "agent"),
            "value": roles.get(ctx.value_cls, ctx.value_cls or "value"), "free": ctx.free or ""}


def _example(verifier: Verifier, group: LineGroup) -> dict[str, object]:
    """Example field values: the first entity of each name role, the least number of each range.

    In an interval family the example is the first activity (in the first line group), on the machine
    of its first mode.
    """
    values: dict[str, object] = {field: domain.lo if isinstance(domain, IntRange) else domain[0]
                                 for field, domain in group.domains.items()}
    if verifier.instance.activities:
        first = verifier.instance.activities[0]
        uses = first.modes[0].uses
        if "machine" in values and uses:
            values["machine"] = verifier.names.show(uses[0].resource)
        if "step" in values and first.step is not None:
            values["step"] = first.step
    return values


# ---------------------------------------------------------------------------------------- integer ranges


def digit_pieces(lo: int, hi: int) -> list[list[tuple[int, int]]]:
    """``lo..hi`` (0 ≤ lo ≤ hi) as disjoint digit patterns: per position an inclusive digit range.

    ``1..28`` → ``[[(1, 9)], [(1, 1), (0, 9)], [(2, 2), (0, 8)]]``, i.e. ``[1-9] | 1[0-9] | 2[0-8]``.
    """
    if not 0 <= lo <= hi:
        raise ValueError(f"bad range {lo}..{hi}")
    pieces: list[list[tuple[int, int]]] = []
    for width in range(len(str(lo)), len(str(hi)) + 1):
        first = max(lo, 10 ** (width - 1) if width > 1 else 0)
        last = min(hi, 10 ** width - 1)
        if first <= last:
            pieces += _same_width(str(first), str(last))
    return pieces


def _same_width(a: str, b: str) -> list[list[tuple[int, int]]]:
    """Digit patterns for ``a..b``, two numerals of the same width."""
    if len(a) == 1:
        return [[(int(a), int(b))]]
    rest = len(a) - 1
    if a[0] == b[0]:
        return [[(int(a[0]), int(a[0]))] + p for p in _same_width(a[1:], b[1:])]
    out: list[list[tuple[int, int]]] = []
    low, high = int(a[0]), int(b[0])
    if a[1:] != "0" * rest:
        out += [[(low, low)] + p for p in _same_width(a[1:], "9" * rest)]
        low += 1
    upper: list[list[tuple[int, int]]] = []
    if b[1:] != "9" * rest:
        upper = [[(high, high)] + p for p in _same_width("0" * rest, b[1:])]
        high -= 1
    if low <= high:
        out.append([(low, high)] + [(0, 9)] * rest)
    return out + upper


def _longest_first(pieces: list[list[tuple[int, int]]]) -> list[list[tuple[int, int]]]:
    """Longer numerals first: a regex alternation takes the first alternative that matches."""
    return sorted(pieces, key=len, reverse=True)


# ---------------------------------------------------------------------------------------- Lark and GBNF

#: Characters written as ``\xNN`` in Lark literals: quotes (vLLM's Lark→EBNF conversion counts them and
#: rewrites '…' pairs), and the comment starters ``#`` and ``/`` (it cuts lines at them, even in a string).
_LARK_HEX = frozenset("\"'#/")
#: Rule names GBNF readers misread: llguidance takes a grammar with a ``start`` rule for Lark.
_GBNF_RENAMED = {"start": "start-time", "root": "root-value"}


def lark_string(text: str) -> str:
    """A Lark string literal matching exactly ``text``, safe through vLLM's Lark→EBNF conversion.

    Backslashes are escaped; quotes, ``#``, ``/`` and control characters are written as ``\\xNN``.
    """
    out = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char in _LARK_HEX or ord(char) < 32 or ord(char) == 127:
            out.append(f"\\x{ord(char):02x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def gbnf_string(text: str) -> str:
    """A GBNF (llama.cpp) string literal matching exactly ``text``; non-ASCII characters stay UTF-8."""
    escapes = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    out = []
    for char in text:
        if char in escapes:
            out.append(escapes[char])
        elif ord(char) < 32 or ord(char) == 127:
            out.append(f"\\x{ord(char):02X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


@dataclass(frozen=True)
class _Style:
    """How one grammar dialect writes symbols, literals, rules and number terminals."""

    name: Literal["lark", "gbnf"]

    def string(self, text: str) -> str:
        return lark_string(text) if self.name == "lark" else gbnf_string(text)

    def symbol(self, field: str, key: tuple[int, ...]) -> str:
        """Lark: an upper-case terminal of letters and digits; GBNF: a lower-case rule name."""
        if self.name == "lark":
            return field.upper().replace("_", "") + "X".join(str(k) for k in key)
        name = "-".join([field.replace("_", "-"), *map(str, key)])
        return _GBNF_RENAMED.get(name, name)

    def rule(self, head: str, alternatives: list[str]) -> str:
        """``head: a | b`` (Lark) or ``head ::= a | b`` (GBNF), long lists wrapped on ``|`` lines."""
        if self.name == "lark":
            return f"{head}: " + "\n    | ".join(_wrap(alternatives, " | "))
        return f"{head} ::= " + " |\n    ".join(_wrap(alternatives, " | "))

    def digits(self, piece: list[tuple[int, int]], rules: dict[str, str]) -> str:
        """A digit pattern: fixed digits as one literal, each digit range as a class (a terminal in Lark)."""
        parts: list[str] = []
        fixed = ""
        for a, b in piece:
            if a == b:
                fixed += str(a)
                continue
            if fixed:
                parts.append(f'"{fixed}"')
                fixed = ""
            parts.append(self._digit_class(a, b, rules))
        if fixed:
            parts.append(f'"{fixed}"')
        return " ".join(parts)

    def _digit_class(self, a: int, b: int, rules: dict[str, str]) -> str:
        if self.name == "gbnf":
            return f"[{a}-{b}]"
        name = f"D{a}{b}"  # no regex (vLLM's conversion cannot read one): the digits as alternatives
        rules.setdefault(name, self.rule(name, [f'"{d}"' for d in range(a, b + 1)]))
        return name

    def number(self, domain: IntRange, rules: dict[str, str]) -> list[str]:
        """The alternatives of an integer range (longer numerals first, for Lark's regex alternation)."""
        if domain.hi is None:
            return ['"0"', self._digit_class(1, 9, rules) + " " + self._digit_class(0, 9, rules) + "*"]
        return [self.digits(p, rules) for p in _longest_first(digit_pieces(domain.lo, domain.hi))]


def _line_sequence(spec: AnswerSpec, group: LineGroup, style: _Style, rules: dict[str, str]) -> str:
    """One alternative of the line rule; the rules it uses are added to ``rules``.

    A name field followed by a literal is one symbol whose alternatives are *name + literal*
    (``"Iron step " | "Iron Gate step "``): a greedy lexer (llguidance) that met ``Iron`` and a blank
    could otherwise never end the shorter name. Longer alternatives come first (Lark's regex alternation
    takes the first that matches).
    """
    out: list[str] = []
    pieces = list(spec.pieces)
    index = 0
    while index < len(pieces):
        kind, text = pieces[index]
        index += 1
        if kind == "lit":
            out.append(style.string(text))
            continue
        domain = group.domains[text]
        symbol = style.symbol(text, group.key if text in ("job", "activity", "step", "mode") else ())
        if isinstance(domain, IntRange):
            rules.setdefault(symbol, style.rule(symbol, style.number(domain, rules)))
        else:
            follow = ""
            if index < len(pieces) and pieces[index][0] == "lit":
                follow = pieces[index][1]
                index += 1
            names = sorted(dict.fromkeys(domain), key=len, reverse=True)
            rules.setdefault(symbol, style.rule(symbol, [style.string(name + follow) for name in names]))
        out.append(symbol)
    return " ".join(out)


def _header_sequence(spec: AnswerSpec, style: _Style, rules: dict[str, str]) -> str:
    """The header line (``ASSIGNMENTS=<count>``)."""
    count = style.symbol("count", ())
    rules.setdefault(count, style.rule(count, style.number(IntRange(0), rules)))
    return " ".join(style.string(text) if kind == "lit" else count for kind, text in spec.header_pieces)


def _body(spec: AnswerSpec, style: _Style, lines: str, newline: str, rules: dict[str, str]) -> str:
    """The sequence of the whole answer: header, lines (any number ≥ 1, or exactly the instance's), newline."""
    head = ("header " + newline + " ") if spec.header else ""
    if lines == "any":
        return f"{head}line ({newline} line)* {newline}?"
    if lines != "exact":
        raise ValueError(f"unknown line mode {lines!r} (expected any or exact)")
    if spec.max_lines is None or spec.max_lines != spec.min_lines:
        raise ValueError(f"the {spec.family} family does not fix the number of answer lines of {spec.instance}")
    return f"{head}line {_repeat(spec.min_lines - 1, style, newline, rules)}{newline}?".replace("  ", " ")


def _repeat(count: int, style: _Style, newline: str, rules: dict[str, str]) -> str:
    """``count`` times ``newline line`` as a sum of power-of-two rules (``rep4: rep2 rep2``): O(log n) rules,
    no repetition operator (vLLM's Lark conversion passes none through)."""
    used, power, name = [], 1, "rep1"
    prefix = "rep" if style.name == "lark" else "rep-"
    while power <= count:
        name = f"{prefix}{power}"
        body = f"{newline} line" if power == 1 else f"{prefix}{power // 2} {prefix}{power // 2}"
        rules.setdefault(name, style.rule(name, [body]))
        if count & power:
            used.append(name)
        power *= 2
    return "".join(f"{u} " for u in reversed(used))


def lark_grammar(spec: AnswerSpec, lines: str = "any") -> str:
    """A Lark grammar accepting exactly the well-formed answers of ``spec``.

    It is read alike by Lark (``parser="lalr"`` or ``"earley"``), llguidance, and vLLM's Lark→EBNF
    conversion for xgrammar: plain ``name: …`` rules (no ``!``, ``?`` or ``->``), no regular expressions,
    no repetition counts, only ``*`` and ``?``. ``lines="exact"`` fixes the number of lines where the
    instance does (a ValueError where it does not).
    """
    style, rules = _Style("lark"), {}
    alternatives = [_line_sequence(spec, group, style, rules) for group in spec.groups]
    header = [f"header: {_header_sequence(spec, style, rules)}"] if spec.header else []
    start = f"start: {_body(spec, style, lines, 'NL', rules)}"
    return "\n".join([f"// Answer grammar (Lark) of {spec.instance}, family {spec.family}.",
                      f"// Line: {spec.template}" + (f"  (after the header {spec.header})" if spec.header else ""),
                      '// Lines are separated by "\\n"; a trailing newline is optional.',
                      start, style.rule("line", alternatives), *header, *rules.values(), 'NL: "\\n"']) + "\n"


def gbnf_grammar(spec: AnswerSpec, lines: str = "any") -> str:
    """A GBNF grammar (llama.cpp, xgrammar, llguidance) accepting exactly the well-formed answers of ``spec``.

    The root rule is ``root``; no rule is named ``start`` (llguidance would take the grammar for Lark).
    ``lines="exact"`` fixes the number of lines where the instance does.
    """
    style, rules = _Style("gbnf"), {}
    alternatives = [_line_sequence(spec, group, style, rules) for group in spec.groups]
    header = [f"header ::= {_header_sequence(spec, style, rules)}"] if spec.header else []
    root = f"root ::= {_body(spec, style, lines, chr(34) + chr(92) + 'n' + chr(34), rules)}"
    return "\n".join([f"# Answer grammar (GBNF) of {spec.instance}, family {spec.family}.",
                      f"# Line: {spec.template}" + (f"  (after the header {spec.header})" if spec.header else ""),
                      root, style.rule("line", alternatives), *header, *rules.values()]) + "\n"


def _wrap(items: list[str], separator: str) -> list[str]:
    """Items joined by ``separator`` in rows of about :data:`_WRAP` characters."""
    rows: list[list[str]] = [[]]
    width = 0
    for item in items:
        if rows[-1] and width + len(separator) + len(item) > _WRAP:
            rows.append([])
            width = 0
        width += len(item) + (len(separator) if rows[-1] else 0)
        rows[-1].append(item)
    return [separator.join(row) for row in rows]


# ---------------------------------------------------------------------------------------- JSON Schema


def schema_limits(spec: AnswerSpec) -> list[str]:
    """What the JSON Schema of ``spec`` cannot say (it describes the items one by one)."""
    key = {"operation": "(job, step)"}.get(spec.unit, spec.unit)
    limits = [f"that no {key} is listed twice: JSON Schema has no uniqueness by key (only the number of "
              "items is bounded, where the instance fixes it)"]
    if "machine" in spec.fields:
        limits.append("which machines may process each operation (only the machine names are listed)")
    if "start" in spec.fields:
        limits.append("an upper bound on start times (the instance states no horizon)")
    if spec.header:
        limits.append(f"the header {spec.header}: its count is the number of items (structured_to_text writes it)")
    limits.append("the constraints of the instance (precedence, capacity, coverage, ...): the verifier checks them")
    return limits


def json_schema(spec: AnswerSpec) -> dict[str, Any]:
    """A JSON Schema (draft 2020-12) of the structured answer ``{"assignments": [item, ...]}``."""
    variants = [_item_schema(spec, group) for group in spec.groups]
    items: dict[str, Any] = variants[0] if len(variants) == 1 else {"anyOf": variants}
    array: dict[str, Any] = {"type": "array", "description": f"one item per {spec.unit}", "items": items,
                             "minItems": spec.min_lines}
    if spec.max_lines is not None:
        array["maxItems"] = spec.max_lines
    return {
        "$schema": SCHEMA_DRAFT,
        "title": f"Answer of {spec.instance} ({spec.family})",
        "description": f"The schedule: one item per {spec.unit}; as a text line each item reads "
                       f"{spec.template!r}" + (f", after a header {spec.header!r}" if spec.header else "") + ".",
        "$comment": "Not expressed: " + "; ".join(schema_limits(spec)) + ".",
        "type": "object",
        "properties": {"assignments": array},
        "required": ["assignments"],
        "additionalProperties": False,
    }


def _item_schema(spec: AnswerSpec, group: LineGroup) -> dict[str, Any]:
    """The object schema of the items of one line group."""
    properties = {field: _field_schema(group.domains[field]) for field in spec.fields}
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


#: Bounded integer fields up to this many values also carry an ``enum`` (see :func:`_field_schema`).
ENUM_LIMIT = 100


def _field_schema(domain: Domain) -> dict[str, Any]:
    """The schema of one field: names as an enum; integers with their bounds.

    A bounded range (step, mode, day, period) of at most :data:`ENUM_LIMIT` values also lists its values
    as an ``enum``: llguidance, xgrammar ≥ 0.1.13, llama.cpp's schema converter and jsonschema honour
    ``minimum``/``maximum``, outlines-core does not (it would let any integer through), and every engine
    honours ``enum``. Unbounded start times keep ``minimum`` only.
    """
    if isinstance(domain, IntRange):
        schema: dict[str, Any] = {"type": "integer", "minimum": domain.lo}
        if domain.hi is not None:
            schema["maximum"] = domain.hi
            if domain.hi - domain.lo < ENUM_LIMIT:
                schema["enum"] = list(range(domain.lo, domain.hi + 1))
        return schema
    return {"type": "string", "enum": list(dict.fromkeys(domain))}


def decode_structured(text: str) -> Any:
    """A JSON text as Python data, or a ValueError saying why it is not JSON.

    Strict JSON (no ``NaN`` or ``Infinity``, numbers in range) through msgspec; nesting too deep
    for the interpreter's stack is reported as an error, not raised as RecursionError.
    """
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    except RecursionError:
        raise ValueError("not JSON: nested too deeply") from None


def _items(data: Any) -> list[Mapping[str, Any]]:
    """The items of a structured answer, or a ValueError."""
    if not isinstance(data, Mapping) or not isinstance(data.get("assignments"), list):
        raise ValueError('a structured answer is an object {"assignments": [...]}')
    items = data["assignments"]
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ValueError(f"item {index} is not an object")
    return items


def _item_values(item: Mapping[str, Any], index: int, fields: list[str]) -> dict[str, str]:
    """An item's fields as the strings the answer line shows."""
    values = {}
    for field in fields:
        if field not in item:
            raise ValueError(f"item {index} lacks {field!r}")
        value = item[field]
        values[field] = _name_value(value, index, field) if field in _NAME_FIELDS else _int_value(value, index, field)
    return values


def _name_value(value: Any, index: int, field: str) -> str:
    """A name field as written: a string (or an integer) on one line."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < _MAX_INT:
        return str(value)
    if not isinstance(value, str):
        raise ValueError(f"item {index}: {field} must be a string, not {_json_type(value)}")
    if any(ch in value for ch in "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
        raise ValueError(f"item {index}: {field} must be on one line")
    return value


def _int_value(value: Any, index: int, field: str) -> str:
    """A number field as written: an integer (or an integral float) of at most 100 digits."""
    if isinstance(value, float) and value.is_integer():  # False for inf and nan
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        shown = repr(value) if isinstance(value, float | str) and len(repr(value)) <= 40 else _json_type(value)
        raise ValueError(f"item {index}: {field} must be an integer, not {shown}")
    if abs(value) >= _MAX_INT:
        raise ValueError(f"item {index}: {field} has more than 100 digits")
    return str(value)


def _json_type(value: Any) -> str:
    """The JSON type of a decoded value, as an error message names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return {str: "a string", list: "an array", dict: "an object"}.get(type(value), type(value).__name__)


def _fill(template: str, values: Mapping[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


# ---------------------------------------------------------------------------------------- the text stanza


def text_stanza(spec: AnswerSpec) -> str:
    """The response-format stanza of a prompt: the line format, an example line, the rules."""
    count = _count_text(spec)
    lines = [f"Answer format: one line per {spec.unit} ({count}), each exactly"]
    if spec.header:
        lines[0] = f"Answer format: first a header line, then one line per {spec.unit} ({count}):"
        lines.append(spec.header)
    lines += [spec.template, "for example"]
    if spec.header:
        lines.append(_fill(spec.header, {"count": str(spec.min_lines)}))
    lines.append(_fill(spec.template, {k: str(v) for k, v in spec.example.items()}))
    lines.append("where")
    lines += [f"- <{field}> {_field_text(spec, field)}" for field in spec.fields]
    if spec.header:
        lines.append("- <count> is the number of lines after the header")
    lines.append(_closing_rule(spec))
    return "\n".join(lines) + "\n"


def _count_text(spec: AnswerSpec) -> str:
    if spec.max_lines == spec.min_lines:
        return f"{spec.min_lines} lines"
    return f"at least {spec.min_lines} lines"


def _closing_rule(spec: AnswerSpec) -> str:
    """The last rule: what must appear once, how a day off is written, and no other text."""
    if spec.unit == "operation":
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
    if field in _NAME_FIELDS:
        names = [name for domain in domains if isinstance(domain, tuple) for name in domain]
        role = words[field]
        lead = {"machine": "the machine chosen among the operation's eligible ones"}.get(field, f"the {role}")
        return f"is {lead}: {_listing(names)}"
    if field == "step":
        return f"is the operation's position in its job, {_range_text(domains, 'the job')}"
    if field == "mode":
        return f"is the chosen mode, {_range_text(domains, 'the activity')}"
    if field == "start":
        return "is the start time, an integer ≥ 0"
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


__all__ = ["FORMATS", "AnswerSpec", "IntRange", "LineGroup", "answer_grammar", "answer_text", "answer_spec",
           "digit_pieces", "gbnf_grammar", "gbnf_string", "json_schema", "lark_grammar", "lark_string", "schema_limits",
           "structured_to_text", "text_stanza"]
