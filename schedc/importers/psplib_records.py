"""Records of a PSPLIB file and the line model its readers share (see :mod:`.psplib_reader`).

:class:`PsplibData` mirrors one ``.sm``/``.mm`` file without interpretation; :class:`_Line`,
:class:`_Source` and the integer helpers are what the section readers of
:mod:`.psplib_reader` and :mod:`.psplib_tables` build their positioned errors with.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, NamedTuple

import msgspec

from schedc.core.diagnostics import SchedcError
from schedc.importers.tokens import Token

ResourceKind = Literal["renewable", "nonrenewable", "doubly"]
"""Kind of a PSPLIB resource: ``R`` renewable (per period), ``N`` nonrenewable (project total),
``D`` doubly constrained (both)."""

_INT = re.compile(r"[+-]?[0-9]{1,4000}")  # int() refuses longer digit strings

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


