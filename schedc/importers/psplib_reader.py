"""Raw reader for PSPLIB project-scheduling files (single-mode ``.sm`` and multi-mode ``.mm``).

:func:`read_psplib` turns one file into a :class:`PsplibData` record that mirrors the file: the
header counts, the PROJECT INFORMATION rows, the precedence lists, every (job, mode) line of
REQUESTS/DURATIONS and the RESOURCEAVAILABILITIES. Nothing is renumbered (jobs and modes keep
their 1-based file numbers, the two dummy jobs included) and nothing is interpreted; turning the
record into the project IR is a separate step.

Layout. Blocks are separated by rule lines of asterisks (the REQUESTS table also has a dash
rule under its column header); rule lines and blank lines are skipped wherever they occur.
Everything before the first section label is the header of ``label : value`` lines. Sections
are found by their labels (``PROJECT INFORMATION:``, ``PRECEDENCE RELATIONS:``,
``REQUESTS/DURATIONS:``, ``RESOURCEAVAILABILITIES:``), never by line numbers; labels are matched
case-insensitively with blanks ignored. Tokens are separated by blanks or tabs; trailing blanks,
CRLF line ends and column alignment do not matter. Tables are read line by line: a precedence
line holds ``jobnr #modes #successors successor...``; a REQUESTS line holds
``jobnr mode duration r_1 .. r_K`` on a job's first mode line and ``mode duration r_1 .. r_K``
on the continuation lines of a ``.mm`` file (told apart by the token count, 3 + K vs 2 + K).
Resource column labels may be written ``R 1`` (two tokens, as PSPLIB does) or ``R1``; both are
normalised to ``R1``.

Tolerated variations: the generator lines (``file with basedata``, ``initial value random
generator``), ``projects``, ``horizon``, the ``RESOURCES`` line, the nonrenewable and doubly
constrained counts (absent = 0) and the whole PROJECT INFORMATION section may be missing (MMLIB
style headers); PROJECT INFORMATION may have any subset of its six known columns.

Error codes (every failure is a :class:`~schedc.diagnostics.SchedcError` with file, line and
column, saying what was expected):

- ``I301`` the file cannot be read.
- ``I302`` a word where an integer is expected.
- ``I303`` a number out of range (a negative count, duration, request or capacity; fewer than
  two jobs; zero modes or projects).
- ``I304`` a required section, header field or table line is missing (e.g. a truncated file).
- ``I305`` unexpected content: an unknown header line or PROJECT INFORMATION column, a field or
  section given twice, extra tokens after a header value, a missing column-header line, data
  lines after RESOURCEAVAILABILITIES' values.
- ``I306`` header counts disagree: the number of PROJECT INFORMATION rows differs from
  ``projects``, or ``#jobs`` + 2 differs from ``jobs (incl. supersource/sink )``.
- ``I307`` the job list does not match the job count: a job number out of sequence, a job beyond
  the header's count, or a section that stops before the last job.
- ``I308`` a precedence line lists a different number of successors than its ``#successors``.
- ``I309`` a successor that does not exist (outside 1..jobs) or is the job itself.
- ``I310`` a successor listed twice for the same job.
- ``I311`` modes do not match: a mode number out of sequence, or a job with more or fewer
  REQUESTS lines than its ``#modes`` in PRECEDENCE RELATIONS.
- ``I312`` wrong number of values on a table line (REQUESTS line vs the resource count,
  capacities vs resources, PROJECT INFORMATION row vs its columns).
- ``I313`` resource labels do not match the header's resource counts (REQUESTS column labels,
  RESOURCEAVAILABILITIES names, or a letter in a ``- renewable : 4 R`` line).
- ``I314`` a dummy job (the first or the last) with a non-zero duration.
- ``I315`` a ``.sm`` file with a job that has more than one mode.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, NamedTuple

import msgspec

from schedc.diagnostics import SchedcError
from schedc.importers.tokens import Token, read_source, tokenize_lines

ResourceKind = Literal["renewable", "nonrenewable", "doubly"]
"""Kind of a PSPLIB resource: ``R`` renewable (per period), ``N`` nonrenewable (project total),
``D`` doubly constrained (both)."""

_KIND_OF_LETTER: dict[str, ResourceKind] = {"R": "renewable", "N": "nonrenewable", "D": "doubly"}
_INT = re.compile(r"[+-]?[0-9]+")
_RULE = re.compile(r"\*{3,}|-{3,}")
_LABEL = re.compile(r"([A-Za-z]+)([0-9]+)")
_DIGITS = re.compile(r"[0-9]+")

# Section labels, keyed by their normal form (lower case, blanks and the colon removed).
_SECTIONS = {
    "projectinformation": "PROJECT INFORMATION",
    "precedencerelations": "PRECEDENCE RELATIONS",
    "requests/durations": "REQUESTS/DURATIONS",
    "resourceavailabilities": "RESOURCEAVAILABILITIES",
}
_REQUIRED_SECTIONS = ("PRECEDENCE RELATIONS", "REQUESTS/DURATIONS", "RESOURCEAVAILABILITIES")

# Header fields, keyed by the normal form of their label; value = (field, label as printed).
_HEADER_FIELDS = {
    "filewithbasedata": ("basedata", "file with basedata"),
    "initialvaluerandomgenerator": ("seed", "initial value random generator"),
    "projects": ("projects", "projects"),
    "jobs(incl.supersource/sink)": ("jobs", "jobs (incl. supersource/sink )"),
    "horizon": ("horizon", "horizon"),
    "-renewable": ("R", "- renewable"),
    "-nonrenewable": ("N", "- nonrenewable"),
    "-doublyconstrained": ("D", "- doubly constrained"),
}

# PROJECT INFORMATION columns, keyed by lower-case label; value = ProjectInfo field.
_PROJECT_COLUMNS = {
    "pronr.": "number",
    "#jobs": "n_jobs",
    "rel.date": "release_date",
    "duedate": "due_date",
    "tardcost": "tard_cost",
    "mpm-time": "mpm_time",
}


# ----------------------------------------------------------------------------------------------
# Records


class Resource(msgspec.Struct, frozen=True, kw_only=True):
    """One resource column, in file order (all R, then all N, then all D)."""

    name: str
    """Normalised label: the kind letter and its 1-based number, e.g. ``"R1"``, ``"N2"``."""
    kind: ResourceKind
    """``renewable`` (capacity per period), ``nonrenewable`` (budget for the whole project) or
    ``doubly`` (both at once)."""
    capacity: int
    """The RESOURCEAVAILABILITIES value of this column."""


class Mode(msgspec.Struct, frozen=True, kw_only=True):
    """One REQUESTS/DURATIONS line: a way of executing a job."""

    number: int
    """Mode number as in the file (1-based, consecutive within the job)."""
    duration: int
    """Duration of the job in this mode (periods)."""
    requests: tuple[int, ...]
    """Request per resource, aligned with :attr:`PsplibData.resources`: per period for R, total
    for N."""


class Job(msgspec.Struct, frozen=True, kw_only=True):
    """One activity (job), the two dummies included."""

    number: int
    """Job number as in the file: 1 is the supersource, ``n_jobs`` the supersink."""
    successors: tuple[int, ...]
    """Job numbers of the immediate successors, in file order (finish-to-start, lag 0)."""
    modes: tuple[Mode, ...]
    """The job's modes in file order; exactly one in a ``.sm`` file."""


class ProjectInfo(msgspec.Struct, frozen=True, kw_only=True):
    """One row of PROJECT INFORMATION; a field is None when the file has no such column."""

    number: int | None = None
    """``pronr.``: project number."""
    n_jobs: int | None = None
    """``#jobs``: number of non-dummy jobs."""
    release_date: int | None = None
    """``rel.date``: release date of the project."""
    due_date: int | None = None
    """``duedate``: due date of the project."""
    tard_cost: int | None = None
    """``tardcost``: tardiness cost per period late."""
    mpm_time: int | None = None
    """``MPM-Time``: critical-path length ignoring resources (a makespan lower bound)."""


class PsplibData(msgspec.Struct, frozen=True, kw_only=True):
    """The contents of one PSPLIB ``.sm``/``.mm`` file."""

    name: str
    """Instance name: the file stem, e.g. ``"j301_1"``."""
    n_jobs: int
    """``jobs (incl. supersource/sink )``: number of jobs including the two dummies."""
    horizon: int | None
    """``horizon``: the generator's upper bound on the makespan (None if the line is absent)."""
    resources: tuple[Resource, ...]
    """The resource columns with their capacities, in file order."""
    jobs: tuple[Job, ...]
    """All jobs in order, ``jobs[i].number == i + 1``."""
    projects: tuple[ProjectInfo, ...] = ()
    """PROJECT INFORMATION rows (empty if the section is absent)."""
    n_projects: int | None = None
    """``projects``: number of projects stated in the header (None if absent)."""
    basedata: str | None = None
    """``file with basedata``: name of the generator's input file (None if absent)."""
    seed: int | None = None
    """``initial value random generator``: the generator's seed (None if absent)."""


# ----------------------------------------------------------------------------------------------
# Line model and error helpers


class _Line(NamedTuple):
    """One non-blank, non-rule source line with its tokens."""

    number: int
    text: str
    tokens: tuple[Token, ...]


class _Source(NamedTuple):
    """The file being read, for building positioned errors."""

    file: str
    text: str
    last_line: int

    def error(self, code: str, message: str, line: int, column: int = 1,
              hint: str | None = None) -> SchedcError:
        return SchedcError.at(code, message, file=self.file, line=line, column=column, hint=hint,
                              source=self.text)

    def at(self, code: str, message: str, token: Token, hint: str | None = None) -> SchedcError:
        return self.error(code, message, token.line, token.column, hint)


class _Sections(NamedTuple):
    """The header lines and the lines of each labelled section (label line number, body)."""

    header: list[_Line]
    bodies: dict[str, tuple[int, list[_Line]]]


def _lines(text: str) -> list[_Line]:
    """All lines that are neither blank nor rules, with their tokens."""
    by_line: dict[int, list[Token]] = {}
    for token in tokenize_lines(text):
        by_line.setdefault(token.line, []).append(token)
    raw = text.splitlines()
    out = []
    for number, tokens in sorted(by_line.items()):
        line_text = raw[number - 1]
        if _RULE.fullmatch(line_text.strip()):
            continue
        out.append(_Line(number, line_text, tuple(tokens)))
    return out


def _section_name(line: _Line) -> str | None:
    """The canonical section name if ``line`` is a section label line, else None."""
    key = "".join(line.text.split()).lower().rstrip(":")
    return _SECTIONS.get(key)


def _split_sections(src: _Source, lines: list[_Line]) -> _Sections:
    """Group the lines into the header and the labelled sections."""
    header: list[_Line] = []
    bodies: dict[str, tuple[int, list[_Line]]] = {}
    current = header
    for line in lines:
        name = _section_name(line)
        if name is None:
            current.append(line)
            continue
        if name in bodies:
            raise src.at("I305", f"section {name} appears twice (first at line {bodies[name][0]})",
                         line.tokens[0])
        current = []
        bodies[name] = (line.number, current)
    for name in _REQUIRED_SECTIONS:
        if name not in bodies:
            raise src.error("I304", f"expected a section {name}: (not found in the file)", src.last_line,
                            hint="the file may be truncated")
    return _Sections(header, bodies)


def _int(src: _Source, token: Token, what: str, minimum: int | None = 0) -> int:
    """``token`` as an integer, at least ``minimum`` (no bound if None)."""
    if not _INT.fullmatch(token.text):
        raise src.at("I302", f"expected {what} (an integer), found {token.text!r}", token)
    value = int(token.text)
    if minimum is not None and value < minimum:
        raise src.at("I303", f"expected {what} to be at least {minimum}, found {value}", token)
    return value


def _is_int(token: Token) -> bool:
    return _INT.fullmatch(token.text) is not None


def _end_of(lines: Sequence[_Line], label_line: int) -> int:
    """The line number where a section ends (its last line, or its label line if empty)."""
    return lines[-1].number if lines else label_line


# ----------------------------------------------------------------------------------------------
# Header


class _Header(NamedTuple):
    basedata: str | None
    seed: int | None
    projects: int | None
    jobs: int
    horizon: int | None
    counts: dict[str, int]  # resource letter -> count


def _read_header(src: _Source, lines: list[_Line], first_section_line: int) -> _Header:
    """Read the ``label : value`` lines before the first section."""
    ints: dict[str, int] = {}
    basedata: str | None = None
    where: dict[str, int] = {}
    for line in lines:
        colon = line.text.find(":")
        if colon < 0:
            if "".join(line.text.split()).lower() == "resources":
                continue
            raise src.at("I305", f"expected a header line 'label : value', found {line.text.strip()!r}",
                         line.tokens[0])
        key = "".join(line.text[:colon].split()).lower()
        if key not in _HEADER_FIELDS:
            raise src.at("I305", f"unknown header field {line.text[:colon].strip()!r}", line.tokens[0],
                         hint="expected one of: " + ", ".join(label for _, label in _HEADER_FIELDS.values()))
        field, label = _HEADER_FIELDS[key]
        if field in where:
            raise src.at("I305", f"header field {label!r} given twice (first at line {where[field]})",
                         line.tokens[0])
        where[field] = line.number
        if field == "basedata":
            basedata = line.text[colon + 1:].strip()
        else:
            ints[field] = _header_int(src, line, colon, field, label)
    for field, label in (("jobs", "jobs (incl. supersource/sink )"), ("R", "- renewable")):
        if field not in ints:
            raise src.error("I304", f"expected the header field {label!r} before the first section",
                            first_section_line)
    return _Header(basedata=basedata, seed=ints.get("seed"), projects=ints.get("projects"),
                   jobs=ints["jobs"], horizon=ints.get("horizon"),
                   counts={letter: ints.get(letter, 0) for letter in "RND"})


def _header_int(src: _Source, line: _Line, colon: int, field: str, label: str) -> int:
    """The integer value of one header line (a resource count may be followed by its letter)."""
    tokens = [t for t in line.tokens if t.column - 1 > colon]
    if not tokens:
        raise src.error("I304", f"expected a value for {label!r} after the colon", line.number,
                        colon + 2)
    minimums = {"projects": 1, "jobs": 2, "seed": None}
    value = _int(src, tokens[0], f"the value of {label!r}", minimums.get(field, 0))
    rest = tokens[1:]
    if field in _KIND_OF_LETTER and rest:
        if rest[0].text != field:
            raise src.at("I313", f"expected the resource letter {field!r} after the count, "
                         f"found {rest[0].text!r}", rest[0])
        rest = rest[1:]
    if rest:
        raise src.at("I305", f"unexpected {rest[0].text!r} after the value of {label!r}", rest[0])
    return value


# ----------------------------------------------------------------------------------------------
# PROJECT INFORMATION


def _read_projects(src: _Source, label_line: int, lines: list[_Line], header: _Header
                   ) -> tuple[ProjectInfo, ...]:
    """Read the PROJECT INFORMATION column header and its rows."""
    _expect_column_header(src, "PROJECT INFORMATION", label_line, lines,
                          "pronr. #jobs rel.date duedate tardcost MPM-Time")
    columns: list[str] = []
    for token in lines[0].tokens:
        field = _PROJECT_COLUMNS.get(token.text.lower())
        if field is None or field in columns:
            problem = "unknown" if field is None else "repeated"
            raise src.at("I305", f"{problem} PROJECT INFORMATION column {token.text!r}", token,
                         hint="expected columns among: pronr. #jobs rel.date duedate tardcost MPM-Time")
        columns.append(field)
    rows = [_project_row(src, line, columns) for line in lines[1:]]
    if header.projects is not None and len(rows) != header.projects:
        raise src.error("I306", f"expected {header.projects} PROJECT INFORMATION row(s) (header "
                        f"'projects'), found {len(rows)}", _end_of(lines, label_line))
    if len(rows) == 1 and rows[0].n_jobs is not None and rows[0].n_jobs + 2 != header.jobs:
        token = lines[1].tokens[columns.index("n_jobs")]
        raise src.at("I306", f"expected #jobs = {header.jobs - 2} (the header's "
                     f"'jobs (incl. supersource/sink )' {header.jobs} minus the two dummies), "
                     f"found {rows[0].n_jobs}", token)
    return tuple(rows)


def _project_row(src: _Source, line: _Line, columns: list[str]) -> ProjectInfo:
    if len(line.tokens) != len(columns):
        raise src.at("I312", f"expected {len(columns)} PROJECT INFORMATION values (one per column), "
                     f"found {len(line.tokens)}", line.tokens[0])
    values = {field: _int(src, token, f"the {field.replace('_', ' ')} value", None)
              for field, token in zip(columns, line.tokens, strict=True)}
    return ProjectInfo(**values)


# ----------------------------------------------------------------------------------------------
# PRECEDENCE RELATIONS


class _Precedence(NamedTuple):
    line: int
    modes: int
    successors: tuple[int, ...]


def _expect_column_header(src: _Source, section: str, label_line: int, lines: list[_Line],
                          example: str) -> None:
    """A section's first line must be its column header (a line not starting with a number)."""
    if not lines or _is_int(lines[0].tokens[0]):
        at = lines[0].number if lines else label_line
        raise src.error("I305", f"expected the {section} column header line {example!r}", at)


def _read_precedence(src: _Source, label_line: int, lines: list[_Line], n_jobs: int
                     ) -> list[_Precedence]:
    """Read one ``jobnr #modes #successors successor...`` line per job, jobs 1..n_jobs in order."""
    _expect_column_header(src, "PRECEDENCE RELATIONS", label_line, lines,
                          "jobnr. #modes #successors successors")
    records: list[_Precedence] = []
    for line in lines[1:]:
        records.append(_precedence_line(src, line, len(records) + 1, n_jobs))
    if len(records) < n_jobs:
        raise src.error("I307", f"expected a PRECEDENCE RELATIONS line for job {len(records) + 1} "
                        f"(the header declares {n_jobs} jobs), found the end of the section",
                        _end_of(lines, label_line), hint="the file may be truncated")
    return records


def _precedence_line(src: _Source, line: _Line, expected: int, n_jobs: int) -> _Precedence:
    tokens = line.tokens
    job = _int(src, tokens[0], "a job number")
    if expected > n_jobs:
        raise src.at("I307", f"found job {job} after the last job {n_jobs} (the header declares "
                     f"{n_jobs} jobs incl. supersource/sink)", tokens[0])
    if job != expected:
        raise src.at("I307", f"expected job {expected}, found job {job}", tokens[0],
                     hint="jobs must be numbered 1, 2, ... in order")
    if len(tokens) < 3:
        what = "#modes" if len(tokens) == 1 else "#successors"
        raise src.error("I304", f"expected {what} of job {job}", line.number, len(line.text.rstrip()) + 1)
    modes = _int(src, tokens[1], f"#modes of job {job}", 1)
    count = _int(src, tokens[2], f"#successors of job {job}")
    listed = tokens[3:]
    if len(listed) != count:
        at = listed[count] if len(listed) > count else tokens[2]
        raise src.at("I308", f"job {job} declares {count} successor(s) but the line lists "
                     f"{len(listed)}", at)
    successors: list[int] = []
    for token in listed:
        succ = _int(src, token, f"a successor of job {job}", None)
        if not 1 <= succ <= n_jobs or succ == job:
            why = "is the job itself" if succ == job else f"does not exist (jobs are 1..{n_jobs})"
            raise src.at("I309", f"successor {succ} of job {job} {why}", token)
        if succ in successors:
            raise src.at("I310", f"successor {succ} of job {job} is listed twice", token)
        successors.append(succ)
    return _Precedence(line.number, modes, tuple(successors))


# ----------------------------------------------------------------------------------------------
# Resource labels


def _resource_labels(src: _Source, tokens: Sequence[Token]) -> list[tuple[str, Token]]:
    """Normalise ``R 1 R 2`` / ``R1 R2`` label tokens to ``["R1", "R2"]`` (with first tokens)."""
    out: list[tuple[str, Token]] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        match = _LABEL.fullmatch(token.text)
        if match:
            out.append((match.group(1).upper() + str(int(match.group(2))), token))
            i += 1
        elif token.text.isalpha() and i + 1 < len(tokens) and _DIGITS.fullmatch(tokens[i + 1].text):
            out.append((token.text.upper() + str(int(tokens[i + 1].text)), token))
            i += 2
        else:
            raise src.at("I313", f"expected a resource label such as 'R 1' or 'N1', found {token.text!r}",
                         token)
    return out


def _expected_labels(counts: dict[str, int]) -> list[str]:
    return [f"{letter}{k}" for letter in "RND" for k in range(1, counts[letter] + 1)]


def _check_labels(src: _Source, labels: list[tuple[str, Token]], counts: dict[str, int],
                  where: str, line: int) -> None:
    """The labels must be R1..R_kR, N1..N_kN, D1..D_kD for the header's counts, in that order."""
    expected = _expected_labels(counts)
    names = [name for name, _ in labels]
    if names == expected:
        return
    first = next((i for i, (a, b) in enumerate(zip(names, expected, strict=False)) if a != b),
                 min(len(names), len(expected)))
    declared = f"{counts['R']} renewable, {counts['N']} nonrenewable, {counts['D']} doubly constrained"
    message = (f"{where} lists resources {' '.join(names) or '(none)'}; the header declares {declared}, "
               f"expected {' '.join(expected) or '(none)'}")
    if first < len(labels):
        raise src.at("I313", message, labels[first][1])
    raise src.error("I313", message, line)


# ----------------------------------------------------------------------------------------------
# REQUESTS/DURATIONS


class _JobModes(NamedTuple):
    """The REQUESTS lines read so far for one job: its modes and the line of each."""

    modes: list[Mode]
    lines: list[int]


def _read_requests(src: _Source, label_line: int, lines: list[_Line], counts: dict[str, int],
                   precedence: list[_Precedence]) -> list[_JobModes]:
    """Read the REQUESTS/DURATIONS table: one line per (job, mode), jobs and modes in order."""
    _expect_column_header(src, "REQUESTS/DURATIONS", label_line, lines, "jobnr. mode duration R 1 ...")
    head = lines[0]
    if len(head.tokens) < 3:
        raise src.at("I305", "expected the column header 'jobnr. mode duration' followed by the "
                     "resource labels", head.tokens[0])
    _check_labels(src, _resource_labels(src, head.tokens[3:]), counts, "the REQUESTS/DURATIONS header",
                  head.number)
    n_resources = sum(counts.values())
    jobs: list[_JobModes] = []
    for line in lines[1:]:
        _request_line(src, line, n_resources, jobs, precedence)
    end = _end_of(lines, label_line)
    if jobs:
        _check_modes_done(src, jobs, precedence, end, "the end of the section")
    if len(jobs) < len(precedence):
        raise src.error("I307", f"expected REQUESTS/DURATIONS lines for job {len(jobs) + 1} (the header "
                        f"declares {len(precedence)} jobs), found the end of the section", end,
                        hint="the file may be truncated")
    return jobs


def _request_line(src: _Source, line: _Line, n_resources: int, jobs: list[_JobModes],
                  precedence: list[_Precedence]) -> None:
    """Add one REQUESTS line to ``jobs`` (a new job, or a further mode of the current one)."""
    tokens = line.tokens
    first_line = f"{3 + n_resources} values (job, mode, duration and {n_resources} requests)"
    if len(tokens) == 3 + n_resources:
        _start_job(src, tokens[0], jobs, precedence)
        tokens = tokens[1:]
    elif len(tokens) != 2 + n_resources:
        raise src.at("I312", f"expected {first_line} or {2 + n_resources} on a further mode line, "
                     f"found {len(tokens)}", tokens[0])
    elif not jobs or len(jobs[-1].modes) >= precedence[len(jobs) - 1].modes:
        raise src.at("I312", f"expected the first line of job {len(jobs) + 1} with {first_line}, "
                     f"found {len(tokens)} values", tokens[0],
                     hint=f"job {len(jobs)} already has all its modes" if jobs else None)
    job = len(jobs)
    modes = jobs[-1].modes
    number = _int(src, tokens[0], f"a mode number of job {job}", 1)
    if number != len(modes) + 1:
        raise src.at("I311", f"expected mode {len(modes) + 1} of job {job}, found mode {number}", tokens[0])
    duration = _int(src, tokens[1], f"the duration of job {job} mode {number}")
    requests = tuple(_int(src, t, f"a resource request of job {job} mode {number}") for t in tokens[2:])
    modes.append(Mode(number=number, duration=duration, requests=requests))
    jobs[-1].lines.append(line.number)


def _start_job(src: _Source, token: Token, jobs: list[_JobModes], precedence: list[_Precedence]) -> None:
    """Check that the first mode line of the next job may start at ``token`` and open it."""
    if jobs:
        _check_modes_done(src, jobs, precedence, token.line, f"a line for job {token.text}")
    job = _int(src, token, "a job number")
    expected = len(jobs) + 1
    if expected > len(precedence):
        raise src.at("I307", f"found job {job} after the last job {len(precedence)}", token)
    if job != expected:
        raise src.at("I307", f"expected the first REQUESTS/DURATIONS line of job {expected}, found job {job}",
                     token, hint="jobs must appear in order 1, 2, ..., each with all its modes")
    jobs.append(_JobModes([], []))


def _check_modes_done(src: _Source, jobs: list[_JobModes], precedence: list[_Precedence], line: int,
                      found: str) -> None:
    """The current (last) job must have as many modes as PRECEDENCE RELATIONS declares."""
    job = len(jobs)
    have, declared = len(jobs[-1].modes), precedence[job - 1].modes
    if have < declared:
        raise src.error("I311", f"expected mode {have + 1} of job {job} (PRECEDENCE RELATIONS line "
                        f"{precedence[job - 1].line} declares {declared} modes), found {found}", line)


# ----------------------------------------------------------------------------------------------
# RESOURCEAVAILABILITIES


def _read_capacities(src: _Source, label_line: int, lines: list[_Line], counts: dict[str, int]
                     ) -> list[int]:
    """Read the resource names line and the capacities line."""
    if not lines or _is_int(lines[0].tokens[0]):
        at = lines[0].number if lines else label_line
        raise src.error("I305", "expected the RESOURCEAVAILABILITIES names line 'R 1 R 2 ...'", at)
    _check_labels(src, _resource_labels(src, lines[0].tokens), counts, "RESOURCEAVAILABILITIES",
                  lines[0].number)
    if len(lines) < 2:
        raise src.error("I304", "expected the line of resource capacities after the names line",
                        lines[0].number, hint="the file may be truncated")
    values = lines[1].tokens
    n_resources = sum(counts.values())
    if len(values) != n_resources:
        at = values[n_resources] if len(values) > n_resources else values[0]
        raise src.at("I312", f"expected {n_resources} capacities (one per resource), found {len(values)}", at)
    if len(lines) > 2:
        raise src.at("I305", "unexpected line after the RESOURCEAVAILABILITIES capacities",
                     lines[2].tokens[0])
    return [_int(src, token, f"the capacity of resource {k + 1}") for k, token in enumerate(values)]


# ----------------------------------------------------------------------------------------------
# Assembly


def _check_dummies(src: _Source, jobs: list[_JobModes]) -> None:
    """The supersource (job 1) and supersink (last job) must have duration 0 in every mode."""
    for job in sorted({1, len(jobs)}):
        for mode in jobs[job - 1].modes:
            if mode.duration != 0:
                raise src.error("I314", f"expected duration 0 for dummy job {job} "
                                f"({'supersource' if job == 1 else 'supersink'}), found {mode.duration}",
                                jobs[job - 1].lines[mode.number - 1])


def _check_single_mode(src: _Source, precedence: list[_Precedence]) -> None:
    for job, record in enumerate(precedence, start=1):
        if record.modes != 1:
            raise src.error("I315", f"expected 1 mode per job in a .sm file, job {job} has {record.modes}",
                            record.line, hint="multi-mode instances use the .mm extension")


def read_psplib(path: str | Path) -> PsplibData:
    """Read a PSPLIB ``.sm`` or ``.mm`` file into a :class:`PsplibData` record."""
    path = Path(path)
    text = read_source(path, code="I301")
    src = _Source(str(path), text, max(1, len(text.splitlines())))
    sections = _split_sections(src, _lines(text))
    first_label = min(line for line, _ in sections.bodies.values())
    header = _read_header(src, sections.header, first_label)
    projects: tuple[ProjectInfo, ...] = ()
    if "PROJECT INFORMATION" in sections.bodies:
        projects = _read_projects(src, *sections.bodies["PROJECT INFORMATION"], header)
    precedence = _read_precedence(src, *sections.bodies["PRECEDENCE RELATIONS"], header.jobs)
    if path.suffix.lower() == ".sm":
        _check_single_mode(src, precedence)
    requests = _read_requests(src, *sections.bodies["REQUESTS/DURATIONS"], header.counts, precedence)
    _check_dummies(src, requests)
    capacities = _read_capacities(src, *sections.bodies["RESOURCEAVAILABILITIES"], header.counts)
    resources = tuple(
        Resource(name=name, kind=_KIND_OF_LETTER[name[0]], capacity=capacity)
        for name, capacity in zip(_expected_labels(header.counts), capacities, strict=True)
    )
    jobs = tuple(
        Job(number=k, successors=prec.successors, modes=tuple(entry.modes))
        for k, (prec, entry) in enumerate(zip(precedence, requests, strict=True), start=1)
    )
    return PsplibData(name=path.stem, n_jobs=header.jobs, horizon=header.horizon, resources=resources,
                      jobs=jobs, projects=projects, n_projects=header.projects,
                      basedata=header.basedata, seed=header.seed)
