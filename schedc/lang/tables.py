"""Reading the rows of ``table ... end`` blocks.

A table block is one token of the grammar; its rows are split here: cells are separated by
blanks, a cell may be ``"quoted"`` (to hold blanks), ``#`` starts a comment outside quotes,
and blank lines are skipped. Each row keeps its line and the column of every cell so that
errors point at the exact cell.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator, Sequence
from typing import Any

from schedc.core.diagnostics import Span
from schedc.ir import Activity, Entity, EntityClass, Mode, Resource, Use
from schedc.kinds.base import Row, RowError, ascii_int
from schedc.lang.params import unquote

_CELL = re.compile(r'"(?:[^"\\]|\\.)*"|[^\s"#]+|#|"')


def split_table(token_text: str, first_line: int, owner: str | None = None) -> list[Row]:
    """The rows of a TABLE token whose text starts at line ``first_line``.

    The token's first line (``table``) and last line (``end``) are not rows. A table whose
    ``end`` is missing swallows the statements after it up to the next table's ``end``; with
    ``owner`` (how to name the table in a message) a row that reads as a statement is reported
    as the missing ``end``, naming the table and the line where it opened.
    """
    lines = token_text.split("\n")
    rows: list[Row] = []
    for offset, line in enumerate(lines[1:-1], start=1):
        if "#" not in line and '"' not in line:
            cells = line.split()
            if not cells:
                continue
            row = Row(cells, _columns(line, cells), first_line + offset)
        else:
            quoted = _split_quoted(line, first_line + offset)
            if quoted is None:
                continue
            row = quoted
        if owner is not None and _is_statement(row.cells):
            raise row.error(f"{owner}, opened at line {first_line}, has no 'end' before this statement", 0,
                            f"close the table with 'end' on a line of its own before line {row.line}")
        rows.append(row)
    return rows


_OBJECTIVES = ("makespan", "penalty")


def _is_statement(cells: list[str]) -> bool:
    """Whether a table row reads as a statement of the language (so an ``end`` is missing before it).

    Only shapes no data row has: a table header (``NAME [(...)] table``), a constraint
    (``hard KIND ID ...`` or ``soft W KIND ID ...`` with a known kind), ``minimize makespan``,
    ``instance X family F``.
    """
    from schedc.kinds import KINDS  # the registry module imports this package's base

    head = cells[0]
    if cells[-1] == "table" and (len(cells) == 2 or cells[1].startswith("(") or head in ("hard", "soft")):
        return True
    if head == "hard":
        return len(cells) >= 3 and cells[1] in KINDS
    if head == "soft":
        return len(cells) >= 4 and cells[2] in KINDS
    if head == "minimize":
        return len(cells) == 2 and cells[1] in _OBJECTIVES
    return head == "instance" and len(cells) == 4 and cells[2] == "family"


def _columns(line: str, cells: list[str]) -> list[int]:
    columns = []
    pos = 0
    for cell in cells:
        pos = line.index(cell, pos)
        columns.append(pos + 1)
        pos += len(cell)
    return columns


def _split_quoted(line: str, line_no: int) -> Row | None:
    cells: list[str] = []
    columns: list[int] = []
    for match in _CELL.finditer(line):
        text = match.group()
        if text == "#":
            break
        if text == '"':
            raise RowError("unterminated quoted cell", line_no, match.start() + 1, 'close it with "')
        if text.startswith('"'):
            text = unquote(text)
        cells.append(text)
        columns.append(match.start() + 1)
    return Row(cells, columns, line_no) if cells else None

# ----------------------------------------------------------------------------- instance tables
# The rows of the instance-level tables (resources, jobs, activities, entity classes);
# constraint tables are read by their kinds.


def parse_int(text: str) -> int | None:
    """The integer a cell holds (in ASCII digits), or None."""
    return ascii_int(text)


def read_resources(rows: list[Row], span: Span | None) -> Iterator[Resource]:
    for row in rows:
        if len(row) not in (2, 3):
            raise row.error(f"expected 'name kind [capacity]', found {len(row)} cells")
        kind = row.cells[1]
        if kind not in ("unary", "renewable", "nonrenewable"):
            raise row.error(f"unknown resource kind {kind!r}; expected unary, renewable or nonrenewable", 1)
        if kind == "unary" and len(row) == 3 and row.cells[2] != "1":
            raise row.error("a unary resource has capacity 1", 2)
        if kind != "unary" and len(row) != 3:
            raise row.error(f"a {kind} resource needs a capacity", 1)
        capacity = row.int(2, "a capacity") if len(row) == 3 else 1
        yield Resource(name=row.cells[0], kind=kind, capacity=capacity,  # type: ignore[arg-type]
                       span=Span(line=row.line, column=row.columns[0]))


def read_jobs(rows: list[Row]) -> Iterator[Activity]:
    """Rows ``JOB op op …``; an op is ``MACHINE:DURATION`` or alternatives ``M1:d1/M2:d2``."""
    for row in rows:
        if len(row) < 2:
            raise row.error("expected a job name followed by its operations (MACHINE:DURATION ...)")
        job = row.cells[0]
        for step, cell in enumerate(row.cells[1:], start=1):
            modes = tuple(_job_option(row, step, option) for option in cell.split("/"))
            yield Activity(name=f"{job}.{step}", modes=modes, job=job, step=step,
                           span=Span(line=row.line, column=row.columns[step]))


def _job_option(row: Row, index: int, option: str) -> Mode:
    machine, sep, duration = option.rpartition(":")
    value = parse_int(duration)
    if not sep or not machine or value is None:
        raise row.error(f"expected MACHINE:DURATION, found {option!r}", index)
    if value < 0:
        raise row.error(f"a duration cannot be negative, found {value}", index)
    return Mode(duration=value, uses=(Use(resource=machine),))


def read_activities(rows: list[Row], resources: list[str]) -> list[Activity]:
    """Rows ``name mode duration q_1 … q_R`` (one per mode, modes numbered 1.. in order)."""
    order: list[str] = []
    modes: dict[str, list[Mode]] = {}
    spans: dict[str, Span] = {}
    for row in rows:
        row.expect_len(3 + len(resources), "name mode duration and one amount per resource column")
        name = row.cells[0]
        if name in modes and order[-1] != name:
            raise row.error(f"activity {name} is defined twice (first at line {spans[name].line}); "
                            "the rows of one activity's modes must be consecutive")
        if name not in modes:
            order.append(name)
            modes[name] = []
            spans[name] = Span(line=row.line, column=row.columns[0])
        number = row.int(1, "a mode number", minimum=1)
        if number != len(modes[name]) + 1:
            raise row.error(f"modes of {name} are numbered 1, 2, ... in order; expected mode "
                            f"{len(modes[name]) + 1}, found {number}", 1)
        duration = row.int(2, "a duration")
        uses = tuple(Use(resource=r, amount=a) for r, a in
                     zip(resources, (row.int(3 + k, f"the amount of {r}") for k, r in enumerate(resources)),
                         strict=True) if a)
        modes[name].append(Mode(duration=duration, uses=uses))
    return [Activity(name=n, modes=tuple(modes[n]), span=spans[n]) for n in order]


def read_entity(row: Row, cls: EntityClass) -> Entity:
    row.expect_len(1 + len(cls.attributes), "the name and " + " ".join(a.name for a in cls.attributes))
    attrs: dict[str, Any] = {}
    for k, decl in enumerate(cls.attributes, start=1):
        text = row.cells[k]
        if decl.type == "int":
            attrs[decl.name] = row.int(k, decl.name, minimum=None)
        elif decl.type == "names":
            items = () if text == "-" else tuple(text.split(","))
            if any(not item or item == "-" for item in items):
                raise row.error(f"{decl.name} is a comma-separated list of names (- for none); found {text!r}", k)
            attrs[decl.name] = items
        else:
            attrs[decl.name] = text
    return Entity(name=row.cells[0], cls=cls.name, attrs=attrs, span=Span(line=row.line, column=row.columns[0]))


def unknown_columns(columns: Sequence[tuple[str, Span]], resources: Sequence[Resource]) -> list[tuple[str, Span, str]]:
    """(message, position, hint) for every column of an ``activities (R1 R2 ...)`` header that names no resource.

    One error on the header per bad column, rather than one per activity that uses the column.
    """
    known = [r.name for r in resources]
    out = []
    for name, span in columns:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = (f"did you mean {close[0]!r}?" if close else
                    "resources: " + ", ".join(known) if known else "declare it in the resources table")
            out.append((f"activities: column {name!r} is not a declared resource", span, hint))
    return out
