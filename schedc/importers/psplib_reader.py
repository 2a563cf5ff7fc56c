"""Raw reader for PSPLIB project-scheduling files (single-mode ``.sm`` and multi-mode ``.mm``).

:func:`read_psplib` turns one file into a :class:`PsplibData` record that mirrors the file: the
header counts, the PROJECT INFORMATION rows, the precedence lists, every (job, mode) line of
REQUESTS/DURATIONS and the RESOURCEAVAILABILITIES. Nothing is renumbered (jobs and modes keep
their 1-based file numbers, the two dummy jobs included) and nothing is interpreted; turning the
record into the project IR is a separate step. The records are in :mod:`.psplib_records`, the
table sections (precedence, requests, capacities) are read by :mod:`.psplib_tables`.

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

Error codes (every failure is a :class:`~schedc.core.diagnostics.SchedcError` with file, line and
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
from pathlib import Path
from typing import NamedTuple

from schedc.importers.psplib_records import (
    Job,
    Mode,
    ProjectInfo,
    PsplibData,
    Resource,
    ResourceKind,
    _end_of,
    _int,
    _Line,
    _Source,
)
from schedc.importers.psplib_tables import (
    _expect_column_header,
    _expected_labels,
    _JobModes,
    _Precedence,
    _read_capacities,
    _read_precedence,
    _read_requests,
)
from schedc.importers.tokens import Token, read_source, tokenize_lines

_KIND_OF_LETTER: dict[str, ResourceKind] = {"R": "renewable", "N": "nonrenewable", "D": "doubly"}
_RULE = re.compile(r"\*{3,}|-{3,}")

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


__all__ = ["Job", "Mode", "ProjectInfo", "PsplibData", "Resource", "ResourceKind", "read_psplib"]
