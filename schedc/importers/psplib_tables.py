"""The table sections of a PSPLIB file: PRECEDENCE RELATIONS, REQUESTS/DURATIONS and
RESOURCEAVAILABILITIES, with their resource column labels (layout and error codes:
:mod:`.psplib_reader`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from schedc.importers.psplib_records import Mode, _end_of, _int, _is_int, _Line, _Source
from schedc.importers.tokens import Token

_LABEL = re.compile(r"([A-Za-z]+)([0-9]{1,4000})")  # int() refuses longer digit strings
_DIGITS = re.compile(r"[0-9]{1,4000}")

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


