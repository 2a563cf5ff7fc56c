"""What an editor asks about a ``.sched`` document, answered from its text (no protocol here).

Positions are 0-based (line, character), as the Language Server Protocol counts them; the
language's spans are 1-based and are converted here. A document that does not parse still gets
completions and hovers: names come from the last text that parsed (:class:`Outline`).

* :func:`diagnostics` — every error the parser and the semantic pass report (the codes of
  ``schedc parse``), each with the range of its span, or of the word it points at;
* :func:`hover` — a kind's documentation (its formal meaning and counting rule), a keyword's role,
  or what a declared name is;
* :func:`completions` — statement keywords at the start of a line, kinds after ``hard``/``soft W``,
  a kind's parameters (``name=``) after the kind and the constraint's id, else declared names;
* :func:`definition` — where a resource, job, activity, entity or constraint id is declared;
* :func:`formatted` — the canonical text (``schedc fmt``), or None when the text does not parse.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from schedc.core.diagnostics import Diagnostic, SchedcError, Span
from schedc.ir import Family, Instance
from schedc.kinds import KINDS

#: What each keyword of the language does (hover text; statement keywords complete at a line's start).
KEYWORDS: dict[str, str] = {
    "instance": "`instance NAME family FAMILY` — the first statement of an instance file: its name and family.",
    "family": "`family NAME { … }` — a family spec; in `instance … family F` the family the instance belongs to.",
    "meta": "`meta { key value … }` — reference data: source, best known value (`bks`, `bks_kind`), bounds.",
    "horizon": "`horizon N` — the time horizon of an interval instance.",
    "calendar": "`calendar days=N [periods_per_day=P] [start_date=…] [start_weekday=…]` — the slots of a "
                "slot instance.",
    "table": "`… table` starts a block of rows, one item per line, closed by `end`.",
    "end": "`end` closes a `table` block.",
    "hard": "`hard KIND ID [params] [table]` — a constraint that must hold (a violation makes an answer "
            "infeasible).",
    "soft": "`soft WEIGHT KIND ID [params] [table]` — a constraint whose violations cost WEIGHT each in the "
            "objective.",
    "inactive": "`hard inactive \"why\" KIND …` — a constraint kept in the file but not enforced.",
    "minimize": "`minimize MEASURE [+ W * MEASURE …]` — the objective.",
    "class": "`class NAME (attr: type …)` — an entity class of a family spec.",
    "decision": "`decision …` — what an answer decides in a slot family.",
    "plan": "`plan [ … ]` — the order of a rendering's sections in a family spec.",
}
STATEMENT_KEYWORDS = ("instance", "meta", "horizon", "calendar", "hard", "soft", "minimize")
#: Fields every constraint has, which are not written as parameters.
COMMON_FIELDS = frozenset({"id", "hard", "weight", "active", "reason", "span"})
_WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")
_CONSTRAINT_HEAD = re.compile(r'^\s*(?:hard|soft\s+\S+)\s+(?:inactive\s+"[^"]*"\s+)?')


@dataclass(frozen=True)
class Position:
    """A 0-based place in a document (LSP's counting)."""

    line: int
    character: int


@dataclass(frozen=True)
class Range:
    """``[start, end)`` in a document, 0-based."""

    start: Position
    end: Position


@dataclass(frozen=True)
class Problem:
    """A diagnostic placed on a range (``severity`` ``error`` or ``warning``)."""

    range: Range
    code: str
    message: str
    severity: str = "error"


@dataclass
class Outline:
    """The declared names of the last text that parsed: name → (what it is, where it is declared)."""

    names: dict[str, tuple[str, Span]] = field(default_factory=dict)


# ---------------------------------------------------------------------------- parsing


def parse(text: str, file: str, search: Sequence[Path] = ()) -> Instance | Family:
    """The instance or family spec of ``text`` (a SchedcError with every diagnostic otherwise)."""
    from schedc.lang.family_parser import parse_family_text
    from schedc.lang.parser import parse_instance_text
    from schedc.lang.statements import looks_like_family

    if looks_like_family(text):
        return parse_family_text(text, file)
    return parse_instance_text(text, file, search)


def diagnostics(text: str, file: str, search: Sequence[Path] = ()) -> tuple[list[Problem], Outline | None]:
    """The problems of ``text`` (none when it parses) and, when it parses, its outline."""
    try:
        node = parse(text, file, search)
    except SchedcError as exc:
        return [_problem(d, text, file) for d in exc.diagnostics], None
    return [], outline(node, text)


def _problem(d: Diagnostic, text: str, file: str) -> Problem:
    """A diagnostic on the range of its span (another file's diagnostic, e.g. a family spec, on line 1)."""
    if d.file != file or d.span is None:
        where = Range(Position(0, 0), Position(0, len(_line(text, 0))))
        message = d.message if d.file == file else f"{d.file}: {d.message}"
    else:
        where, message = _named(span_range(d.span, text), d.span, d.message, text), d.message
    if d.hint:
        message += f" (hint: {d.hint})"
    return Problem(where, d.code, message, "warning" if d.severity == "warning" else "error")


def span_range(span: Span, text: str) -> Range:
    """The 0-based range of a 1-based span; a span without an end covers the word at its start."""
    start = Position(span.line - 1, span.column - 1)
    if span.end_line:
        return Range(start, Position(span.end_line - 1, span.end_column - 1))
    line = _line(text, span.line - 1)
    found = _WORD.match(line, start.character) if start.character < len(line) else None
    end = found.end() if found else min(len(line), start.character + 1)
    return Range(start, Position(start.line, max(end, start.character + 1)))


def _named(where: Range, span: Span, message: str, text: str) -> Range:
    """The range of the name a message quotes (``undefined activity 'J9.2'``) when it stands on the span's
    line after the span's start: a row-wide span then points at the word that is wrong."""
    if span.end_line:
        return where
    line = _line(text, span.line - 1)
    for quoted in re.findall(r"'([^'\s]+)'", message):
        found = re.search(rf"(?<![\w.\-]){re.escape(quoted)}(?![\w.\-])", line[span.column - 1:])
        if found:
            start = span.column - 1 + found.start()
            return Range(Position(span.line - 1, start), Position(span.line - 1, start + len(quoted)))
    return where


def _line(text: str, number: int) -> str:
    lines = text.splitlines()
    return lines[number] if 0 <= number < len(lines) else ""


def outline(node: Instance | Family, text: str) -> Outline:
    """Declared names and their places: resources, jobs, activities, entities and constraint ids."""
    out = Outline()
    if not isinstance(node, Instance):
        for cls in node.classes:
            if cls.span is not None:
                out.names[cls.name] = ("entity class", cls.span)
        return out
    for r in node.resources:
        if r.span is not None:
            out.names[r.name] = (f"{r.kind} resource", r.span)
    for e in node.entities:
        if e.span is not None:
            out.names[e.name] = (f"{e.cls}", e.span)
    for a in node.activities:
        if a.span is not None:
            out.names.setdefault(a.name, ("activity", a.span))
            if a.job is not None and a.job not in out.names:
                out.names[a.job] = ("job", _job_span(a.job, a.span, text))
    for c in node.constraints:
        if c.span is not None:
            kind = type(c).__struct_config__.tag
            out.names[c.id] = (f"{'hard' if c.hard else 'soft'} {kind} constraint", _id_span(c.id, c.span, text))
    return out


def _job_span(job: str, activity: Span, text: str) -> Span:
    """Where a job's name stands on the row that declares its first activity."""
    column = _line(text, activity.line - 1).find(job)
    return Span(line=activity.line, column=column + 1 if column >= 0 else activity.column)


def _id_span(name: str, statement: Span, text: str) -> Span:
    """Where a constraint's id stands on its statement's first line."""
    head = statement.head()
    line = _line(text, head.line - 1)
    found = re.search(rf"(?<![\w.\-]){re.escape(name)}(?![\w.\-])", line)
    return Span(line=head.line, column=found.start() + 1 if found else head.column)


# ---------------------------------------------------------------------------- positions


def word_at(text: str, at: Position) -> tuple[str, Range] | None:
    """The word (a name, kind or keyword; ``key=`` without its ``=``) under ``at``, with its range."""
    line = _line(text, at.line)
    for found in _WORD.finditer(line):
        if found.start() <= at.character <= found.end():
            return found.group(), Range(Position(at.line, found.start()), Position(at.line, found.end()))
    return None


def kind_doc(kind: str) -> str:
    """A kind's documentation: its class docstring, with its module's when the class refers to it."""
    cls = KINDS[kind]
    doc = inspect.getdoc(cls) or ""
    module = inspect.getdoc(sys.modules[cls.__module__]) or ""
    if "module docstring" in doc or "Formal meaning" not in doc:
        doc = f"{doc}\n\n{module}".strip()
    params = ", ".join(f"`{p}=`" for p in kind_parameters(kind))
    return f"**{kind}** (constraint kind)\n\n{doc}" + (f"\n\nParameters: {params}" if params else "")


def kind_parameters(kind: str) -> list[str]:
    """The parameters a kind is written with (its fields but the common ones and its table's)."""
    cls = KINDS[kind]
    table = getattr(cls, "TABLE_FIELD", None)
    return [f.name for f in msgspec.structs.fields(cls) if f.name not in COMMON_FIELDS and f.name != table]


def hover(text: str, at: Position, names: Outline | None) -> tuple[str, Range] | None:
    """Markdown about the word under ``at``: a kind, a keyword or a declared name (None for anything else)."""
    found = word_at(text, at)
    if found is None:
        return None
    word, where = found
    if word in KINDS:
        return kind_doc(word), where
    if word in KEYWORDS:
        return KEYWORDS[word], where
    if names is not None and word in names.names:
        what, span = names.names[word]
        return f"`{word}`: {what}, declared on line {span.line}", where
    return None


def definition(text: str, at: Position, names: Outline | None) -> Range | None:
    """The range of the declaration of the name under ``at`` (None when it is not a declared name)."""
    found = word_at(text, at)
    if found is None or names is None or found[0] not in names.names:
        return None
    span = names.names[found[0]][1]
    return Range(Position(span.line - 1, span.column - 1),
                 Position(span.line - 1, span.column - 1 + len(found[0])))


@dataclass(frozen=True)
class Completion:
    """One completion item: its text, what sort of thing it is and a one-line detail."""

    label: str
    sort: str  # keyword | kind | parameter | name
    detail: str


def completions(text: str, at: Position, names: Outline | None) -> list[Completion]:
    """What may be written at ``at`` (see the module docstring), in a stable order."""
    prefix = _line(text, at.line)[: at.character]
    head = _CONSTRAINT_HEAD.match(prefix)
    if head is not None:
        rest = prefix[head.end():].split()
        if len(rest) == 0 or (len(rest) == 1 and not prefix.endswith(" ")):
            return [Completion(k, "kind", (inspect.getdoc(c) or "").split("\n")[0]) for k, c in sorted(KINDS.items())]
        if rest[0] in KINDS and (len(rest) >= 2 and (len(rest) > 2 or prefix.endswith(" "))):
            return [Completion(f"{p}=", "parameter", f"parameter of {rest[0]}") for p in kind_parameters(rest[0])]
    if re.fullmatch(r"[A-Za-z_]*", prefix):  # a statement's first word (table rows are indented)
        return [Completion(k, "keyword", KEYWORDS[k].split(" — ")[0]) for k in STATEMENT_KEYWORDS]
    if names is None:
        return []
    return [Completion(name, "name", what) for name, (what, _) in sorted(names.names.items())]


def formatted(text: str, file: str, search: Sequence[Path] = ()) -> str | None:
    """The canonical form of ``text`` (``schedc fmt``), or None when it does not parse."""
    from schedc.pipeline.files import format_text

    try:
        return format_text(text, file, search)
    except SchedcError:
        return None
