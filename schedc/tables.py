"""Reading the rows of ``table ... end`` blocks.

A table block is one token of the grammar; its rows are split here: cells are separated by
blanks, a cell may be ``"quoted"`` (to hold blanks), ``#`` starts a comment outside quotes,
and blank lines are skipped. Each row keeps its line and the column of every cell so that
errors point at the exact cell.
"""

from __future__ import annotations

import re

from schedc.kinds.base import Row, RowError
from schedc.params import unquote

_CELL = re.compile(r'"(?:[^"\\]|\\.)*"|[^\s"#]+|#|"')


def split_table(token_text: str, first_line: int) -> list[Row]:
    """The rows of a TABLE token whose text starts at line ``first_line``.

    The token's first line (``table``) and last line (``end``) are not rows.
    """
    lines = token_text.split("\n")
    rows: list[Row] = []
    for offset, line in enumerate(lines[1:-1], start=1):
        if "#" not in line and '"' not in line:
            cells = line.split()
            if not cells:
                continue
            rows.append(Row(cells, _columns(line, cells), first_line + offset))
            continue
        row = _split_quoted(line, first_line + offset)
        if row is not None:
            rows.append(row)
    return rows


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
