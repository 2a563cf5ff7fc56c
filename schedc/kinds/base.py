"""What every constraint kind shares: common fields, parameter types, table rows.

A constraint kind is a frozen :class:`Constraint` subclass tagged with its kind name
(``kind`` in JSON). Each kind lives in its own module which owns its meaning: the struct,
a docstring with the formal definition and the counting rule of its violations, and the
row syntax of its table when it has one. The ``.sched`` statement of a constraint is
generic — ``hard|soft W [inactive "why"] KIND ID key=value... [table ... end]`` — and the
parser fills the struct's fields from the ``key=value`` parameters by their annotations
(:mod:`schedc.lang.params`), so a new kind never needs a grammar change.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, ClassVar, Literal

import msgspec

from schedc.core.diagnostics import Span

if TYPE_CHECKING:
    from schedc.kinds.claims import Claim
    from schedc.kinds.context import EvalContext, View

Boundary = Literal["observed"]
#: An integer as the language writes it: ASCII digits with an optional sign (``int()`` also reads
#: ``٣``, ``1_000`` and blanks around the digits).
_ASCII_INT = re.compile(r"[+-]?[0-9]{1,4000}")


def ascii_int(text: str) -> int | None:
    """The integer ``text`` writes in ASCII digits, or None."""
    return int(text) if _ASCII_INT.fullmatch(text) else None



class AttrRef(msgspec.Struct, frozen=True, kw_only=True, tag="attr"):
    """A bound read per agent from one of its attributes (``@lectures`` in the text)."""

    attr: str


Bound = int | AttrRef | None
"""A lower/upper bound: a constant, a per-agent attribute, or absent."""

NonNegative = Annotated[int, msgspec.Meta(ge=0)]
"""A number the kind's meaning requires to be at least 0 (a count, a time, a weight).

The semantic pass reads these annotations (:func:`schedc.lang.semantic.check_annotations`) and rejects
smaller values wherever they appear, also when an attribute reference (``@min_days``) supplies them;
decoding the IR from JSON enforces them too."""

Positive = Annotated[int, msgspec.Meta(ge=1)]
"""A number the kind's meaning requires to be at least 1 (a length)."""

CountBound = NonNegative | AttrRef | None
"""A bound on a count: a non-negative constant, a per-agent attribute (non-negative too), or absent."""


class Selector(msgspec.Struct, frozen=True, kw_only=True):
    """A set of entities of class ``cls``: all of them, those whose attributes equal the
    ``where`` pairs (``employee[contract=0]``), or the listed ``names`` (``nurse{N1 N2}``)."""

    cls: str
    where: tuple[tuple[str, str], ...] = ()
    names: tuple[str, ...] = ()


class ValueFilter(msgspec.Struct, frozen=True, kw_only=True):
    """Which assignments of an agent-slot count.

    ``work``: assigned a value other than the family's free value; ``free``: not assigned
    (or assigned the free value); ``values``: assigned one of ``values``.
    """

    mode: Literal["work", "free", "values"]
    values: tuple[str, ...] = ()


WORK = ValueFilter(mode="work")


class Windows(msgspec.Struct, frozen=True, kw_only=True):
    """The sequence a run or window rule looks at.

    ``days``: one element per day. ``weekends``: one element per weekend of the given
    definition (``SaturdaySunday``, ``FridaySaturdaySunday``, ``SaturdaySundayMonday``,
    ``FridaySaturdaySundayMonday``): the block of consecutive days starting on every day of
    the horizon whose weekday is the definition's first day, cut at the horizon end.
    """

    over: Literal["days", "weekends"] = "days"
    weekend: str | None = None


class Constraint(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    """Fields common to every constraint kind.

    ``hard`` constraints must hold; their violations are counted by the kind's rule.
    ``soft`` ones (``hard = False``) add ``weight × penalty`` to the objective, the penalty
    being the kind's measure of violation. An ``active = False`` constraint is carried
    (and can be shown) but is neither enforced nor scored; ``reason`` says why.
    """

    id: str
    hard: bool = True
    weight: NonNegative = 1
    active: bool = True
    reason: str | None = None
    span: Span | None = None

    #: Name of the field filled from the statement's ``table ... end`` body, if any. The struct of its
    #: rows may declare ``KEY`` (a tuple of field names): no two rows of a table may share a key.
    TABLE_FIELD: ClassVar[str | None] = None
    #: What the kind counts, and the unit of one violation (penalty unit of a soft rule), for its claim.
    COUNTS: ClassVar[str] = ""
    UNIT: ClassVar[str] = "violation"

    @classmethod
    def parse_rows(cls, rows: Sequence[Row], params: dict[str, object], ctx: TableContext) -> tuple[object, ...]:
        """Turn table rows into the value of :attr:`TABLE_FIELD` (kinds with tables override).

        ``params`` are the statement's other parameters (already typed), ``ctx`` what the
        instance has declared so far. The parser passes one row at a time (so that it can record
        which row gives which items, :class:`~schedc.core.diagnostics.Span`): rows are read independently.
        """
        raise NotImplementedError

    def format_rows(self, ctx: TableContext) -> list[str]:
        """The canonical table rows of this constraint (kinds with tables override)."""
        raise NotImplementedError

    def check(self, ctx: EvalContext, view: View) -> list[Violation]:
        """Every violated unit of this constraint in a schedule (each kind implements its meaning)."""
        raise NotImplementedError

    def claim(self, objective: str = "penalty") -> Claim:
        """What this constraint's rule sentences must say (:mod:`schedc.kinds.claims`).

        ``objective`` is the instance's measure: a soft rule's penalty counts toward it only
        when the instance minimises the penalty (a makespan instance reports it, no more).
        Kinds whose sentences need more than their parameters override this.
        """
        from schedc.kinds.claims import Claim, parameters

        counts, unit = self.claim_counts()
        return Claim(constraint=self.id, kind=type(self).__struct_config__.tag, hard=self.hard,  # type: ignore[arg-type]
                     weight=self.weight, scored=self.hard or objective == "penalty", counts=counts, unit=unit,
                     params=parameters(self))

    def claim_counts(self) -> tuple[str, str]:
        """(what this constraint counts, the unit of one violation): the kind's, unless its parameters
        change them (a count of free days rather than working assignments)."""
        return self.COUNTS, self.UNIT

    def count(self, ctx: EvalContext, view: View) -> dict[int, int]:
        """amount → how many violations :meth:`check` lists with that amount (without their messages).

        Kinds whose violations can number ~10⁵ in one answer override this with a direct count;
        ``tests/test_verify_counts.py`` compares every override with ``check``.
        """
        counts: dict[int, int] = {}
        for v in self.check(ctx, view):
            counts[v.amount] = counts.get(v.amount, 0) + 1
        return counts

    def violation(self, message: str, amount: int = 1, entities: tuple[str, ...] = (),
                  time: int | None = None, day: int | None = None) -> Violation:
        """A violation record of this constraint."""
        return Violation(constraint=self.id, kind=type(self).__struct_config__.tag, hard=self.hard,  # type: ignore[arg-type]
                         amount=amount, entities=entities, time=time, day=day, message=message)


class Violation(msgspec.Struct, frozen=True, kw_only=True):
    """One violated (hard) or penalised (soft) unit of a constraint.

    ``amount`` is the size of the violation (penalty units before the weight); ``entities``
    the display names involved; ``time`` a time point (interval families) and ``day`` a
    0-based day (slot families) where it happens.
    """

    constraint: str
    kind: str
    hard: bool
    amount: int = 1
    entities: tuple[str, ...] = ()
    time: int | None = None
    day: int | None = None
    message: str


class TableContext(msgspec.Struct, frozen=True, kw_only=True):
    """What a table body may need from its instance: horizon days and value names in order."""

    days: int = 0
    values: tuple[str, ...] = ()


class Row:
    """One table row: its cells and their positions, with typed accessors.

    Errors raised through :meth:`error` become positioned diagnostics in the parser.
    """

    __slots__ = ("cells", "columns", "line")

    def __init__(self, cells: list[str], columns: list[int], line: int):
        self.cells = cells
        self.columns = columns
        self.line = line

    def __len__(self) -> int:
        return len(self.cells)

    def error(self, message: str, index: int = 0, hint: str | None = None) -> RowError:
        column = self.columns[index] if index < len(self.columns) else (self.columns[-1] if self.columns else 1)
        return RowError(message, self.line, column, hint)

    def expect_len(self, n: int, what: str) -> None:
        if len(self.cells) != n:
            raise self.error(f"expected {n} cells ({what}), found {len(self.cells)}",
                             min(n, len(self.cells) - 1) if self.cells else 0)

    def expect_optional_last(self, n: int, layout: str) -> None:
        """``n`` cells, or ``n − 1`` when the last (optional) one is left out; ``layout`` names them."""
        if len(self.cells) not in (n - 1, n):
            extra = len(self.cells) > n  # point at the first extra cell, or at the last one given
            raise self.error(f"expected {layout}, found {len(self.cells)} cells",
                             n if extra else max(len(self.cells) - 1, 0))

    def int(self, index: int, what: str, minimum: int | None = 0) -> int:
        text = self.cells[index]
        value = ascii_int(text)
        if value is None:
            raise self.error(f"expected {what} (an integer), found {text!r}", index)
        if minimum is not None and value < minimum:
            raise self.error(f"{what} must be at least {minimum}, found {value}", index)
        return value

    def opt_int(self, index: int, what: str) -> int | None:
        return None if self.cells[index] == "-" else self.int(index, what)


class RowError(Exception):
    """A malformed table row (converted to a diagnostic by the parser)."""

    def __init__(self, message: str, line: int, column: int, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.hint = hint


def fmt_opt(value: int | None) -> str:
    """A table cell for an optional integer (``-`` when absent)."""
    return "-" if value is None else str(value)
