"""The light linear-model layer under the MILP backend: columns, sparse linear expressions, rows.

Why: building the Pyomo model of the largest timetables (ITC-2007 comp12: 79,432 rows, 41,920
columns) took ~1.1 s of expression objects plus ~1.8 s of Pyomo's standard-form walk before HiGHS
saw a single row — a quarter of a 20 s budget (issue #19). Every row the encoders write is linear
with integer data, so this layer keeps only what HiGHS needs:

- a variable is a column index (:class:`Var`); its bounds and integrality live in the store's lists;
- a linear expression (:class:`LinExpr`) is a ``{column: coefficient}`` map plus a constant, built by
  the operators the encoders use (``+ − *`` with numbers and expressions, ``sum``, :func:`quicksum`);
- a comparison ``<= >= ==`` gives a :class:`Row` ``lo ≤ Σ a_j x_j ≤ hi``, which the store appends to
  CSR arrays at once (:meth:`LinearStore.add`); the objective is a cost vector.

The semantics are Pyomo's where the encoders can see them: expressions are immutable values
(``m.end[a]`` is reused by many rows), ``0 * x`` is the number 0, a sum without variables is a
number (``isinstance(lit, int)`` tests stay valid), and the truth value of a row is an error, as
Pyomo's relational expressions are. The same encoders still build a Pyomo ``ConcreteModel`` through
:class:`schedc.backends.pyomo.pyomo_store.PyomoStore` (other solvers, ``schedc emit lp|mps``);
:func:`quicksum` serves both. ``tests/test_linear_layer.py`` holds the two stores' matrices equal.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

INF = math.inf
Number = int | float


class Var:
    """A column of the light model (an integer variable: every schedc decision is one)."""

    __slots__ = ("col",)

    def __init__(self, col: int):
        self.col = col

    __hash__ = object.__hash__  # a Var is a dict key by identity, as a Pyomo variable is

    def expr(self) -> LinExpr:
        return LinExpr({self.col: 1}, 0)

    def __add__(self, other: Any) -> Any:
        if type(other) is int or type(other) is float:
            return LinExpr({self.col: 1}, other)
        return self.expr() + other

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        return self.expr() - other

    def __rsub__(self, other: Any) -> Any:
        if type(other) is int or type(other) is float:  # 1 − x: the negated literal, a common case
            return LinExpr({self.col: -1}, other)
        return other + (-1) * self

    def __mul__(self, other: Any) -> Any:
        if type(other) is int or type(other) is float:
            return LinExpr({self.col: other}, 0) if other else 0
        return NotImplemented  # a product of variables is not linear

    __rmul__ = __mul__

    def __neg__(self) -> LinExpr:
        return LinExpr({self.col: -1}, 0)

    # ``w >= l`` between two variables (the OR linearisation's rows, most of a timetable's) and a
    # comparison with a number are built directly: a quarter of the time through an expression
    def __le__(self, other: Any) -> Row:
        if type(other) is int or type(other) is float:
            return Row({self.col: 1}, -INF, other)
        return self.expr() <= other

    def __ge__(self, other: Any) -> Row:
        kind = type(other)
        if kind is int or kind is float:
            return Row({self.col: 1}, other, INF)
        if kind is Var and other.col != self.col:
            return Row({self.col: 1, other.col: -1}, 0, INF)
        return self.expr() >= other

    def __eq__(self, other: Any) -> Row:  # type: ignore[override]
        if type(other) is int or type(other) is float:
            return Row({self.col: 1}, other, other)
        return self.expr() == other

    def __bool__(self) -> bool:
        raise TypeError("a variable has no truth value (Pyomo refuses it too)")

    def __repr__(self) -> str:
        return f"Var({self.col})"


class LinExpr:
    """``Σ terms[j]·x_j + const``; immutable (its dict may be shared, so it is never changed)."""

    __slots__ = ("const", "terms")

    def __init__(self, terms: dict[int, Number], const: Number):
        self.terms = terms
        self.const = const

    def __add__(self, other: Any) -> Any:
        kind = type(other)
        if kind is int or kind is float:
            return LinExpr(self.terms, self.const + other) if other else self
        if kind is Var:
            terms = dict(self.terms)
            terms[other.col] = terms.get(other.col, 0) + 1
            return LinExpr(terms, self.const)
        if kind is LinExpr:
            return LinExpr(_merge(self.terms, other.terms, 1), self.const + other.const)
        return NotImplemented

    __radd__ = __add__

    def __mul__(self, other: Any) -> Any:
        if type(other) is int or type(other) is float:
            if not other:
                return 0
            return LinExpr({col: coef * other for col, coef in self.terms.items()}, self.const * other)
        return NotImplemented

    __rmul__ = __mul__

    def __neg__(self) -> LinExpr:
        return self * -1

    def __sub__(self, other: Any) -> Any:
        if type(other) is int or type(other) is float:
            return LinExpr(self.terms, self.const - other)
        difference = _difference(self, other)  # one copy of the terms, not a negated one and a sum
        if difference is None:
            return NotImplemented
        return LinExpr(*difference)

    def __rsub__(self, other: Any) -> Any:
        return (-1) * self + other

    # Comparing with anything but a number or an expression is not a row: NotImplemented lets
    # Python fall back to identity for ``==`` (``None in (expr, …)`` is False, as with Pyomo).

    def __le__(self, other: Any) -> Row:
        difference = _difference(self, other)
        if difference is None:
            return NotImplemented
        return Row(difference[0], -INF, -difference[1])

    def __ge__(self, other: Any) -> Row:
        difference = _difference(self, other)
        if difference is None:
            return NotImplemented
        return Row(difference[0], -difference[1], INF)

    def __eq__(self, other: Any) -> Row:  # type: ignore[override]
        difference = _difference(self, other)
        if difference is None:
            return NotImplemented
        return Row(difference[0], -difference[1], -difference[1])

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError("a linear expression has no truth value (Pyomo refuses it too)")

    def __repr__(self) -> str:
        return f"LinExpr({self.terms}, {self.const})"


def _difference(left: LinExpr, right: Any) -> tuple[dict[int, Number], Number] | None:
    """The terms and constant of ``left − right`` (``right``: a number, a Var or a LinExpr; None otherwise)."""
    kind = type(right)
    if kind is int or kind is float:
        return left.terms, left.const - right
    if kind is Var:
        terms = dict(left.terms)
        terms[right.col] = terms.get(right.col, 0) - 1
        return terms, left.const
    if kind is not LinExpr:
        return None
    return _merge(left.terms, right.terms, -1), left.const - right.const


def _merge(left: dict[int, Number], right: dict[int, Number], sign: int) -> dict[int, Number]:
    """``left + sign·right`` as a new map, looping in Python over the smaller one only (a row of
    ``compactness`` subtracts one group occupancy of hundreds of terms from another)."""
    if len(right) > len(left):
        terms = right.copy() if sign == 1 else {col: -coef for col, coef in right.items()}
        get = terms.get
        for col, coef in left.items():
            terms[col] = get(col, 0) + coef
        return terms
    terms = left.copy()
    get = terms.get
    for col, coef in right.items():
        terms[col] = get(col, 0) + sign * coef
    return terms


class Row:
    """``lo ≤ Σ terms[j]·x_j ≤ hi`` (infinite bounds for one-sided rows); built by a comparison."""

    __slots__ = ("hi", "lo", "terms")

    def __init__(self, terms: dict[int, Number], lo: float, hi: float):
        self.terms = terms
        self.lo = lo
        self.hi = hi

    def __bool__(self) -> bool:
        raise TypeError("a row has no truth value: add it to the model (Pyomo refuses it too)")


def quicksum(items: Iterable[Any]) -> Any:
    """The sum of numbers and expressions in one pass (``pyomo.environ.quicksum`` for Pyomo's).

    Light items accumulate into one coefficient map; a sum without variables is a number, as
    Pyomo's is. Items of the Pyomo store (the reference model) are summed by Pyomo itself."""
    terms: dict[int, Number] = {}
    get = terms.get
    const: Number = 0
    foreign: list[Any] = []
    for item in items:
        kind = type(item)
        if kind is Var:
            col = item.col
            terms[col] = get(col, 0) + 1
        elif kind is LinExpr:
            const += item.const
            if not terms:  # the first expression is copied at C speed
                terms.update(item.terms)
                continue
            for col, coef in item.terms.items():
                terms[col] = get(col, 0) + coef
        elif isinstance(item, int | float):
            const += item
        else:
            foreign.append(item)
    if foreign:
        if terms:
            raise TypeError("a sum mixes light and Pyomo expressions")
        import pyomo.environ as pyo  # only the Pyomo store's expressions get here

        return pyo.quicksum(foreign) + const if const else pyo.quicksum(foreign)
    return LinExpr(terms, const) if terms else const


def evaluate(expr: Any, values: Sequence[float] | np.ndarray) -> float:
    """The value of a number, Var or LinExpr at the column values ``values``."""
    if type(expr) is Var:
        return float(values[expr.col])
    if type(expr) is LinExpr:
        return float(expr.const + sum(coef * values[col] for col, coef in expr.terms.items()))
    return float(expr)


@dataclass(frozen=True)
class Matrices:
    """A minimised MILP in the arrays HiGHS takes: column bounds, integrality and costs, rows
    ``row_lower ≤ A x ≤ row_upper`` with ``A`` in compressed-row form (``start``, ``index``, ``value``)."""

    col_lower: np.ndarray
    col_upper: np.ndarray
    integer: np.ndarray
    cost: np.ndarray
    offset: float
    row_lower: np.ndarray
    row_upper: np.ndarray
    start: np.ndarray
    index: np.ndarray
    value: np.ndarray

    @property
    def num_col(self) -> int:
        return len(self.col_lower)

    @property
    def num_row(self) -> int:
        return len(self.row_lower)


class Store(Protocol):
    """Where a :class:`~schedc.backends.pyomo.model.PyomoModel` puts its variables, rows and objective:
    :class:`LinearStore` (the default, straight to HiGHS) or the Pyomo ``ConcreteModel`` of
    :class:`~schedc.backends.pyomo.pyomo_store.PyomoStore`."""

    model: Any

    def indexed(self, name: str, keys: Sequence[Hashable], lower: Sequence[int] | None,
                upper: Sequence[int] | None) -> dict[Any, Any]: ...

    def scalar(self, name: str, lower: int, upper: int) -> Any: ...

    def new_var(self, role: str, lower: int, upper: int, binary: bool) -> Any: ...

    def add(self, owner: str, relation: Any) -> None: ...

    def add_dominating(self, owner: str, var: Any, literals: Sequence[Any]) -> None: ...

    def set_objective(self, expr: Any, name: str) -> None: ...

    def matrices(self) -> Matrices: ...

    def column(self, var: Any) -> int | None: ...

    def load(self, values: Sequence[float] | np.ndarray) -> None: ...

    def value(self, expr: Any) -> float | None: ...

    def labels(self) -> tuple[list[tuple[str, Any]], list[str]]: ...


class LinearStore:
    """Columns and rows appended straight into arrays; names only as (group, key) per column and
    an owner per row, spelled out on request (:meth:`labels`)."""

    def __init__(self, name: str):
        self.model = self  # what ``PyomoModel.model`` shows: the light model itself
        self.name = name
        self.col_lower: list[float] = []
        self.col_upper: list[float] = []
        self.col_group: list[int] = []
        self.col_key: list[Any] = []
        self.groups: list[str] = []
        self._group_of: dict[str, int] = {}
        self._counters: dict[str, int] = {}
        # plain lists: extending one from a dict's keys or values runs in C (an array.array's
        # extend converts element by element, which took a quarter of comp12's build)
        self.start: list[int] = [0]
        self.index: list[int] = []
        self.coefs: list[Number] = []
        self.row_lower: list[float] = []
        self.row_upper: list[float] = []
        self.row_owner: list[int] = []
        self.owners: list[str] = []
        self._owner_of: dict[str, int] = {}
        self.names = NameSpace()
        self.cost: dict[int, Number] = {}
        self.offset: Number = 0
        self.values: np.ndarray | None = None

    # ------------------------------------------------------------------ columns

    def _group(self, name: str) -> int:
        group = self._group_of.get(name)
        if group is None:
            group = self._group_of[name] = len(self.groups)
            self.groups.append(self.names.claim(name))
        return group

    def _column(self, group: int, key: Any, lower: float, upper: float) -> Var:
        col = len(self.col_lower)
        self.col_lower.append(lower)
        self.col_upper.append(upper)
        self.col_group.append(group)
        self.col_key.append(key)
        return Var(col)

    def indexed(self, name: str, keys: Sequence[Hashable], lower: Sequence[int] | None,
                upper: Sequence[int] | None) -> dict[Any, Var]:
        """One column per key (binaries when no bounds are given; otherwise non-negative integers),
        appended as whole lists (the assignment binaries of a timetable are tens of thousands)."""
        group, first, count = self._group(name), len(self.col_lower), len(keys)
        self.col_lower.extend([0] * count if lower is None else [max(0, lo) for lo in lower])
        self.col_upper.extend([1] * count if upper is None else upper)
        self.col_group.extend([group] * count)
        self.col_key.extend(keys)
        return {key: Var(col) for col, key in enumerate(keys, start=first)}

    def scalar(self, name: str, lower: int, upper: int) -> Var:
        """A non-negative integer column of its own."""
        return self._column(self._group(name), None, max(0, lower), upper)

    def new_var(self, role: str, lower: int, upper: int, binary: bool) -> Var:
        """The next integer column of the list ``role`` (numbered from 1, as a Pyomo ``VarList``)."""
        number = self._counters[role] = self._counters.get(role, 0) + 1
        return self._column(self._group(role), number, 0 if binary else lower, 1 if binary else upper)

    # ------------------------------------------------------------------ rows and objective

    def add(self, owner: str, relation: Row) -> None:
        """Append one row of ``owner``; zero coefficients are dropped and a row left without
        variables is checked at once (kept as an impossible row when it fails)."""
        terms = relation.terms
        if 0 in terms.values():
            terms = {col: coef for col, coef in terms.items() if coef}
        if not terms and relation.lo <= 0 <= relation.hi:
            return
        owned = self._owner_of.get(owner)
        if owned is None:
            owned = self._owner_of[owner] = len(self.owners)
            self.owners.append(self.names.claim(f"c_{label(owner)}"))
        if not terms:  # 0 outside [lo, hi]: the model is infeasible, and an emitted file shows why
            never = self.new_var("never", 0, 0, False)
            terms = {never.col: 1}
            relation = Row(terms, 1, INF)
        self.index.extend(terms)
        self.coefs.extend(terms.values())
        self.start.append(len(self.index))
        self.row_lower.append(relation.lo)
        self.row_upper.append(relation.hi)
        self.row_owner.append(owned)

    def add_dominating(self, owner: str, var: Var, literals: Sequence[Any]) -> None:
        """The rows ``var ≥ l`` for every literal (the OR linearisation's lower side, most rows of a
        timetable): a plain variable's row is appended straight to the arrays, anything else
        through :meth:`add`."""
        col = var.col
        for lit in literals:
            if type(lit) is not Var or lit.col == col:
                self.add(owner, var >= lit)
                continue
            owned = self._owner_of.get(owner)
            if owned is None:
                self.add(owner, var >= lit)  # registers the owner
                continue
            self.index.extend((col, lit.col))
            self.coefs.extend((1, -1))
            self.start.append(len(self.index))
            self.row_lower.append(0)
            self.row_upper.append(INF)
            self.row_owner.append(owned)

    def set_objective(self, expr: Any, name: str) -> None:
        """Minimise ``expr`` (replaces the objective before it)."""
        self.names.claim(name)
        if type(expr) is Var:
            expr = expr.expr()
        if type(expr) is LinExpr:
            self.cost, self.offset = dict(expr.terms), expr.const
        else:
            self.cost, self.offset = {}, expr

    # ------------------------------------------------------------------ to and from HiGHS

    def matrices(self) -> Matrices:
        columns = len(self.col_lower)
        cost = np.zeros(columns)
        if self.cost:
            cost[np.fromiter(self.cost, dtype=np.int64, count=len(self.cost))] = list(self.cost.values())
        return Matrices(col_lower=np.asarray(self.col_lower, dtype=float),
                        col_upper=np.asarray(self.col_upper, dtype=float),
                        integer=np.ones(columns, dtype=bool), cost=cost, offset=float(self.offset),
                        row_lower=np.asarray(self.row_lower, dtype=float),
                        row_upper=np.asarray(self.row_upper, dtype=float),
                        start=np.asarray(self.start, dtype=np.int32), index=np.asarray(self.index, dtype=np.int32),
                        value=np.asarray(self.coefs, dtype=float))

    def column(self, var: Any) -> int | None:
        return var.col if type(var) is Var else None

    def load(self, values: Sequence[float] | np.ndarray) -> None:
        self.values = np.asarray(values, dtype=float)

    def value(self, expr: Any) -> float | None:
        """``expr`` at the loaded solution (None before one is loaded, as Pyomo's unset values)."""
        if self.values is None:
            return None if type(expr) in (Var, LinExpr) else float(expr)
        return evaluate(expr, self.values)

    def labels(self) -> tuple[list[tuple[str, Any]], list[str]]:
        """(group name, key) of every column and the owner name of every row."""
        columns = [(self.groups[g], key) for g, key in zip(self.col_group, self.col_key, strict=True)]
        return columns, [self.owners[o] for o in self.row_owner]


class NameSpace:
    """Component names given out once each, ``name``, ``name_2``, … as Pyomo's model names them."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def claim(self, name: str) -> str:
        candidate, k = name, 1
        while candidate in self.taken:
            k += 1
            candidate = f"{name}_{k}"
        self.taken.add(candidate)
        return candidate


def label(text: str) -> str:
    """A name usable in LP/MPS files (letters, digits, underscores)."""
    import re

    return re.sub(r"\W", "_", text) or "_"
