"""The Pyomo ``ConcreteModel`` store: the same encoders, Pyomo variables and constraint lists.

Used where Pyomo itself is the point — ``--solver NAME`` for any other MILP solver Pyomo drives,
and ``schedc emit lp|mps`` (Pyomo's writers, symbolic names) — and as the reference the light
store (:mod:`schedc.backends.pyomo.linear`) is tested against. Why emit keeps Pyomo rather than
HiGHS's writer: the files stay exactly what they were (rows ``c_ID(k)``, columns ``x(agent_day_period_value)``,
``S(activity)``, ``role(k)``), and emitting is not budgeted, so its slower build costs nothing
that matters.

Every constraint row goes into a ``ConstraintList`` named after its owner (``c_<id>``), every
auxiliary into a ``VarList`` named after its role. :meth:`PyomoStore.matrices` compiles the model
with Pyomo's ``LinearStandardFormCompiler`` (mixed form: ``bound_type`` 1 is ``a·x ≤ rhs``, −1 is
``a·x ≥ rhs``, 0 is ``a·x = rhs``; a ranged constraint gives one row per side), which also lists only
the variables some row or the objective uses.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pyomo.environ as pyo

from schedc.backends.pyomo.linear import INF, Matrices, label


class PyomoStore:
    """Builds a Pyomo ``ConcreteModel`` (``.model``) for :class:`~schedc.backends.pyomo.model.PyomoModel`."""

    def __init__(self, name: str):
        self.model = pyo.ConcreteModel(name=label(name))
        self._rows: dict[str, pyo.ConstraintList] = {}
        self._vars: dict[str, pyo.VarList] = {}
        #: the compiled columns (Pyomo variables) and rows (constraints), in matrix order, after :meth:`matrices`
        self.columns: list[Any] = []
        self.rows: list[Any] = []
        self._position: dict[int, int] = {}

    def _free_name(self, name: str) -> str:
        candidate, k = name, 1
        while self.model.component(candidate) is not None or hasattr(self.model, candidate):
            k += 1
            candidate = f"{name}_{k}"
        return candidate

    def indexed(self, name: str, keys: Sequence[Hashable], lower: Sequence[int] | None,
                upper: Sequence[int] | None) -> dict[Any, Any]:
        if lower is None or upper is None:
            var = pyo.Var(list(keys), domain=pyo.Binary)
        else:
            bounds = {key: (lo, hi) for key, lo, hi in zip(keys, lower, upper, strict=True)}
            var = pyo.Var(list(keys), domain=pyo.NonNegativeIntegers, bounds=lambda _m, *key: bounds[_key(key)])
        self.model.add_component(self._free_name(name), var)
        return {key: var[key] for key in keys}

    def scalar(self, name: str, lower: int, upper: int) -> Any:
        var = pyo.Var(domain=pyo.NonNegativeIntegers, bounds=(lower, upper))
        self.model.add_component(self._free_name(name), var)
        return var

    def new_var(self, role: str, lower: int, upper: int, binary: bool) -> Any:
        family = self._vars.get(role)
        if family is None:
            family = pyo.VarList(domain=pyo.Integers)
            self.model.add_component(self._free_name(role), family)
            self._vars[role] = family
        var = family.add()
        if binary:
            var.domain = pyo.Binary
        else:
            var.setlb(lower)
            var.setub(upper)
        return var

    def add(self, owner: str, relation: Any) -> None:
        rows = self._rows.get(owner)
        if rows is None:
            rows = pyo.ConstraintList()
            self.model.add_component(self._free_name(f"c_{label(owner)}"), rows)
            self._rows[owner] = rows
        rows.add(relation)

    def add_dominating(self, owner: str, var: Any, literals: Sequence[Any]) -> None:
        """The rows ``var ≥ l`` for every literal."""
        for lit in literals:
            self.add(owner, var >= lit)

    def set_objective(self, expr: Any, name: str) -> None:
        for objective in self.model.component_objects(pyo.Objective, active=True):
            objective.deactivate()
        self.model.add_component(self._free_name(name), pyo.Objective(expr=expr, sense=pyo.minimize))

    def matrices(self) -> Matrices:
        """The model compiled by Pyomo's standard-form compiler (see the module docstring)."""
        from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

        info = LinearStandardFormCompiler().write(self.model, mixed_form=True)
        self.columns = list(info.columns)
        self._position = {id(var): j for j, var in enumerate(self.columns)}
        self.rows = [row.constraint for row in info.rows]
        matrix = info.A.tocsr()
        cost = np.asarray(info.c.toarray()[0] if hasattr(info.c, "toarray") else info.c[0], dtype=float)
        rhs = np.asarray(info.rhs, dtype=float)
        kinds = np.array([row.bound_type for row in info.rows], dtype=int)
        return Matrices(col_lower=np.array([-INF if v.lb is None else v.lb for v in self.columns], dtype=float),
                        col_upper=np.array([INF if v.ub is None else v.ub for v in self.columns], dtype=float),
                        integer=np.array([v.is_integer() for v in self.columns], dtype=bool),
                        cost=cost if len(cost) else np.zeros(len(self.columns)),
                        offset=float(info.c_offset[0]) if len(info.c_offset) else 0.0,
                        row_lower=np.where(kinds <= 0, rhs, -INF),  # ≥ and = rows bound from below
                        row_upper=np.where(kinds >= 0, rhs, INF),   # ≤ and = rows bound from above
                        start=matrix.indptr.astype(np.int32), index=matrix.indices.astype(np.int32),
                        value=matrix.data.astype(float))

    def column(self, var: Any) -> int | None:
        return self._position.get(id(var))

    def load(self, values: Sequence[float] | np.ndarray) -> None:
        for var, value in zip(self.columns, values, strict=True):
            var.set_value(value, skip_validation=True)

    def value(self, expr: Any) -> float | None:
        result = pyo.value(expr, exception=False)
        return None if result is None else float(result)

    def labels(self) -> tuple[list[tuple[str, Any]], list[str]]:
        """(component name, index) of every compiled column and the component name of every row
        (after :meth:`matrices`)."""
        columns = [(v.parent_component().local_name, v.index()) for v in self.columns]
        return columns, [row.parent_component().local_name for row in self.rows]


def _key(index: tuple[Any, ...]) -> Any:
    """Pyomo passes a tuple index to a bounds rule as separate arguments."""
    return index[0] if len(index) == 1 else index
