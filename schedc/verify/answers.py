"""Answer formats and tolerant extraction of schedule lines from model output.

A family spec states its answer line as a template (``<job> step <step>: start=<start>``);
:class:`AnswerFormat` compiles it into a regular expression that tolerates case and blanks.
:func:`extract` reads an answer the way a forgiving human would: it drops code fences,
markdown (headings, bullets, bold, italics, backticks, table borders), XML-like tags, CRLF,
byte order marks, trailing punctuation and trailing remarks (``(...)``, ``# ...``), keeps
every line that matches the format, and records why every other non-blank line was skipped.
Objective values a model states (``makespan: 55``) are collected so the verifier can compare
them with the recomputed one — never trust them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

import msgspec

from schedc.ir import Family
from schedc.ir.answer_roles import INT_FIELDS, LIST_FIELDS, NAME_FIELDS, PLACEHOLDER, role_fields
from schedc.verify.failure_modes import UNPARSEABLE_REASON

#: An integer of at most 100 digits: longer ones are garbage, and ``int()`` refuses more than 4300 digits.
_INT = r"[+-]?[0-9]{1,100}"
#: A name: no separator, no blank at either end (so that blanks around it are not ambiguous).
_NAME = r"[^|,;:=\s](?:[^|,;:=]*?[^|,;:=\s])?"
#: Skipped lines (and structural issues) a report keeps in full by default; the others are only counted.
KEEP = 1000
#: Characters of a line a report quotes.
SHOWN_CHARS = 200
#: Characters of an answer split into lines at a time.
CHUNK = 1 << 18
_PLACEHOLDER = PLACEHOLDER
_FENCE = re.compile(r"^\s*(```|~~~)")
_TAG = re.compile(r"</?[A-Za-z][\w\-]*(?:\s[^<>]*)?>")
_BULLET = re.compile(r"^\s*(?:#{1,6}\s+|[-*+•>]\s+|[0-9]+[.)]\s+)")
_EMPHASIS = re.compile(r"\*\*|__|`")
_ITALIC = re.compile(r"(?<![\w*])\*(?=\S)([^*]*?\S)\*(?![\w*])|(?<![\w_])_(?=\S)([^_]*?\S)_(?![\w_])")
_INVISIBLE = re.compile("[\ufeff\u200b\u200c\u200d\u2060]")  # a byte order mark, zero-width characters
#: A character without which none of ``_TAG``, ``_INVISIBLE``, ``_EMPHASIS``, ``_ITALIC`` or CR removal applies.
_MARKUP = re.compile("[\r<*_`\ufeff\u200b\u200c\u200d\u2060]")
_COMMENT = re.compile(r"\s(?:#|//|--|—|–|<-|←)")
_LABEL = r"(makespan|objective(?:\s+value)?|total\s+(?:cost|penalty)|penalty|cost)"
_STATED = re.compile(r"(?i)\b" + _LABEL + r"\b[^0-9\n-]{0,12}?(-?[0-9]{1,100})\b")
#: A line that is an objective statement and nothing else: ``Makespan: 55``, ``The total cost is 9 units``.
_STATED_LINE = re.compile(r"(?i)^(?:[a-z]+\s+){0,2}?" + _LABEL + r"\s*(?:is\b|=|:)?\s*(-?[0-9]{1,100})\b[^0-9]*$")


class AnswerLine(msgspec.Struct, frozen=True, kw_only=True):
    """One extracted line: its 1-based line number, text and the fields of the format."""

    line: int
    text: str
    fields: dict[str, str]


class Skipped(msgspec.Struct, frozen=True, kw_only=True):
    """A non-blank line that is not a schedule line, and why."""

    line: int
    text: str
    reason: str


class Extraction(msgspec.Struct, frozen=True, kw_only=True):
    """What an answer contains: schedule lines, an optional header, skipped lines, stated values."""

    lines: tuple[AnswerLine, ...]
    skipped: tuple[Skipped, ...]
    header: dict[str, str] | None = None
    stated_objective: int | None = None

    @property
    def ok(self) -> bool:
        return bool(self.lines)


class AnswerFormat:
    """The compiled answer format of a family."""

    def __init__(self, family: Family):
        if not family.answer:
            raise ValueError(f"family {family.name} states no answer format")
        self.template = family.answer
        self.fields = _PLACEHOLDER.findall(family.answer)
        #: placeholders naming a resource role (:func:`role_fields`): the line names the mode by them
        self.roles = role_fields(family)
        self.line = _compile(family.answer, self.roles)
        self.header = _compile(family.answer_header) if family.answer_header else None
        self.header_template = family.answer_header
        #: A template ending in ";" terminates each assignment, so several may share a line.
        self.terminator = ";" if family.answer.rstrip().endswith(";") else None


def _compile(template: str, roles: tuple[str, ...] = ()) -> re.Pattern[str]:
    """A template → an anchored, case-insensitive, blank-tolerant regex with named groups (``roles``: the
    role placeholders, which hold names)."""
    template = _strip_trailing(template.strip())
    parts = []
    pos = 0
    for match in _PLACEHOLDER.finditer(template):
        parts.append(_literal(template[pos:match.start()], after_field=pos > 0))
        name = match.group(1)
        if name not in NAME_FIELDS + INT_FIELDS + LIST_FIELDS + roles:
            raise ValueError(f"unknown answer placeholder <{name}>")
        if name in LIST_FIELDS:
            parts.append(f"(?P<{name}>{_NAME}(?:\\s*,\\s*{_NAME})*)")
        else:
            parts.append(f"(?P<{name}>{_INT})" if name in INT_FIELDS else f"(?P<{name}>{_NAME})")
        pos = match.end()
    parts.append(_literal(template[pos:], after_field=pos > 0))
    return re.compile(r"^\s*+" + "".join(parts) + r"\s*+$", re.IGNORECASE)


def _literal(text: str, after_field: bool = False) -> str:
    """Literal template text (``after_field``: right after a placeholder): words must be separated, from
    each other and from the field before them, punctuation may have blanks around it.

    Blanks are matched possessively (names never end in a blank), so that a long run of
    blanks costs linear time, not quadratic or worse.
    """
    out = []
    tokens = re.findall(r"\w+|[^\w\s]+|\s+", text)
    for k, token in enumerate(tokens):
        if token.isspace():
            # a blank between a field and a word of the template is required too: " in " after a name may
            # not match the end of the name ("Quentin Horvat in Dawn" is Quentin Horvat, not Quent)
            word_next = k + 1 < len(tokens) and (tokens[k + 1][0].isalnum() or tokens[k + 1][0] == "_")
            out.append(r"\s++" if (out and out[-1][-1:].isalnum()) or (k == 0 and after_field and word_next)
                       else r"\s*+")
        elif token[0].isalnum() or token[0] == "_":
            out.append(re.escape(token))
        else:
            out.append(r"\s*+" + re.escape(token) + r"\s*+")
    return "".join(out)


def _strip_trailing(text: str) -> str:
    """``text`` without trailing blanks, periods, semicolons and commas (in linear time)."""
    end = len(text)
    while end and (text[end - 1].isspace() or text[end - 1] in ".;,"):
        end -= 1
    return text[:end]


def _strip_comment(text: str) -> str:
    """``text`` without a trailing ``(...)`` or ``[...]`` remark, or a ``# ...``/``// ...`` comment."""
    text = text.rstrip()
    for opening, closing in ("()", "[]"):
        start = text.rfind(opening)
        if text.endswith(closing) and start > 0 and closing not in text[start:-1]:
            return _strip_trailing(text[:start])
    comment = _COMMENT.search(text)
    return _strip_trailing(text[:comment.start()]) if comment else text


def clean_line(raw: str) -> str:
    """A line without markdown, tags and trailing punctuation."""
    if _MARKUP.search(raw) is None:  # none of the substitutions below can apply but the bullet's
        return _strip_trailing(_BULLET.sub("", raw, count=1)).strip()
    text = _TAG.sub(" ", _INVISIBLE.sub("", raw.replace("\r", "")))
    text = _EMPHASIS.sub("", text)
    text = _ITALIC.sub(lambda m: m.group(1) or m.group(2), text)
    text = _BULLET.sub("", text, count=1)
    return _strip_trailing(text).strip()


def extract(text: str, fmt: AnswerFormat) -> Extraction:
    """Extract the schedule lines of an answer (never raises on any text).

    A stated objective is taken from the last line that only states it (``Makespan: 55``),
    else from the last mention in prose (``... a makespan of 55 ...``): conclusions come last.
    Every skipped line is kept; :class:`AnswerStream` reads an answer of any size with a bounded record.
    """
    stream = AnswerStream(text, fmt, keep=None)
    lines = tuple(stream.lines)
    return Extraction(lines=lines, skipped=tuple(stream.skipped), header=stream.header,
                      stated_objective=stream.stated_objective)


def iter_lines(text: str, chunk: int = CHUNK) -> Iterator[str]:
    """The lines of ``text`` exactly as ``text.splitlines()`` gives them, made about ``chunk`` characters at a time.

    A chunk ends just after a line feed, so a CRLF pair is never cut and every chunk's lines are
    whole lines; no list of every line of a huge answer is ever held.
    """
    start, size = 0, len(text)
    while start < size:
        cut = text.find("\n", start + chunk)
        end = size if cut < 0 else cut + 1
        yield from text[start:end].splitlines()
        start = end


class AnswerStream:
    """Extraction of one answer as a stream: iterate :attr:`lines` once for the schedule lines.

    While the lines are read, the stream records the header, the stated objective, how many lines
    were produced and skipped, how many of the skipped ones carried values in a shape the format does
    not accept (:func:`schedc.verify.failure_modes.is_unparseable`), and the first ``keep`` skipped
    lines in full (None: all of them). Memory is bounded by ``keep`` and the longest line, not by
    the number of lines, so an answer of millions of lines is read in linear time and constant
    memory beside its text.
    """

    def __init__(self, text: str, fmt: AnswerFormat, keep: int | None = KEEP):
        self.text, self.fmt, self.keep = text, fmt, keep
        self.skipped: list[Skipped] = []
        self.skipped_count = 0
        self.unparseable = 0
        self.produced = 0
        self.header: dict[str, str] | None = None
        self.stated_objective: int | None = None

    @property
    def omitted_skipped(self) -> int:
        """Skipped lines counted but not kept in full."""
        return self.skipped_count - len(self.skipped)

    @property
    def lines(self) -> Iterator[AnswerLine]:
        """The schedule lines, in order (a generator: the answer is read as it is consumed)."""
        return self._read()

    def _skip(self, number: int, raw: str, reason: str) -> None:
        self.skipped_count += 1
        if reason.startswith(UNPARSEABLE_REASON):
            self.unparseable += 1
        if self.keep is None or len(self.skipped) < self.keep:
            self.skipped.append(Skipped(line=number, text=shorten(raw.strip()), reason=reason))

    def _read(self) -> Iterator[AnswerLine]:
        fmt = self.fmt
        statement: int | None = None
        mention: int | None = None
        for number, raw in enumerate(iter_lines(self.text), start=1):
            if not raw.strip():
                continue
            if _FENCE.match(raw):
                self._skip(number, raw, "code fence")
                continue
            cleaned = clean_line(raw)
            # before the format: "Makespan: 55" fits "<activity>: <start>"
            if stated_line := _STATED_LINE.match(cleaned):
                statement = int(stated_line.group(2))
                self._skip(number, raw, "states an objective value")
                continue
            match = _match_line(cleaned, fmt)
            if match is not None:
                self.produced += 1
                yield AnswerLine(line=number, text=raw.strip(), fields=_fields(match))
                continue
            if several := _several(cleaned, fmt):
                self.produced += len(several)
                for piece, m in several:
                    yield AnswerLine(line=number, text=piece, fields=_fields(m))
                continue
            if fmt.header is not None and self.header is None and (hmatch := fmt.header.match(cleaned)):
                self.header = _fields(hmatch)
                continue
            value = _stated(cleaned)
            if value is not None:
                mention = value
            self._skip(number, raw, "states an objective value" if value is not None else _why_skipped(cleaned, fmt))
        self.stated_objective = statement if statement is not None else mention


def shorten(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` cut to ``limit`` characters (an ellipsis and the length say so): reports quote, not copy, lines."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def _match_line(cleaned: str, fmt: AnswerFormat) -> re.Match[str] | None:
    """The format's match of a cleaned line, else of the line without table borders or a trailing comment.

    ``| Math | Aula | 0 | 1 |`` (a markdown table row) and ``Job 1 step 1: start=0 (on Machine 3)``
    are read as a forgiving human would; the fallbacks are tried only when the line itself fails.
    """
    if not cleaned:
        return None
    if match := fmt.line.match(cleaned):  # the common case: no fallback is computed
        return match
    candidates = [cleaned]
    if len(cleaned) > 1 and cleaned[0] == "|" and cleaned[-1] == "|":
        candidates.append(cleaned[1:-1].strip())
    candidates += [stripped for c in list(candidates) if (stripped := _strip_comment(c)) != c]
    for candidate in candidates[1:]:
        if candidate and (match := fmt.line.match(candidate)):
            return match
    return None


def _several(cleaned: str, fmt: AnswerFormat) -> list[tuple[str, re.Match[str]]]:
    """``4,Ann,E; 4,Bob,L;``: several terminated assignments on one line, if every one of them matches."""
    if fmt.terminator is None or fmt.terminator not in cleaned:
        return []
    pieces = [piece.strip() for piece in cleaned.split(fmt.terminator) if piece.strip()]
    found = [(piece, _match_line(piece, fmt)) for piece in pieces]
    if len(found) < 2 or any(m is None for _, m in found):
        return []
    return [(piece, m) for piece, m in found if m is not None]


def _fields(match: re.Match[str]) -> dict[str, str]:
    return {k: v.strip() for k, v in match.groupdict().items() if v is not None}


def _stated(text: str) -> int | None:
    match = _STATED.search(text)
    return int(match.group(2)) if match else None


def _why_skipped(cleaned: str, fmt: AnswerFormat) -> str:
    if not cleaned:
        return "markup only"
    if not any(ch.isdigit() for ch in cleaned):
        return "prose (no schedule values)"
    return f"does not match the answer format {fmt.template!r}"



def split_list(text: str) -> list[str]:
    """The names of a list field (``W1, W4`` → ``["W1", "W4"]``; ``-`` → none)."""
    names = [part.strip() for part in text.split(",")]
    return [] if names == ["-"] else [n for n in names if n]


def fill_template(template: str, values: Mapping[str, str]) -> str:
    """An answer (or header) template with each ``<field>`` replaced by its value."""
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
