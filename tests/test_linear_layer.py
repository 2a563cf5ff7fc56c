"""The light linear layer of the MILP backend (``backends/pyomo/linear.py``) against Pyomo.

The same encoders build each instance twice: into the light store, and into a Pyomo
``ConcreteModel`` compiled by Pyomo's ``LinearStandardFormCompiler``. The two programs must be
the same up to the order of rows and columns: every column's bounds and integrality, every row
(its owner, coefficients and bounds, up to the sign of the whole row), the objective — on every
example, on a small instance of every imported family, on the complete spec (every kind, hard and
soft) and on a model with every decision fixed (the oracle's model). The arithmetic's
Pyomo-like semantics the encoders rely on are tested on their own, and so is the promise that
the default path never imports Pyomo.
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from schedc.backends.cpsat import solve as cpsat_solve
from schedc.backends.cpsat.solve import SolveOptions as CpsatOptions
from schedc.backends.pyomo.linear import LinExpr, Matrices, Row, Var, quicksum
from schedc.backends.pyomo.model import PyomoModel
from schedc.importers import import_paths
from schedc.ir import Family, Instance
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from tests.conftest import DATA, ROOT
from tests.test_kinds import Spec, complete_spec  # noqa: F401  (fixture)

EXAMPLES = sorted((ROOT / "examples").glob("*.sched"))
IMPORTED = [("jsplib", "jsplib/la01.txt"), ("psplib-sm", "psplib-sm/j301_1.sm"), ("psplib-mm", "psplib-mm/j102_2.mm"),
            ("fjsp", "fjsp/brandimarte/Mk01.fjs"), ("itc2007", "itc2007/comp01.ctt"),
            ("inrc2010", "inrc2010/sprint01.xml")]

Program = tuple[dict[Any, tuple[float, float, bool]], Counter[Any], dict[Any, float], float]


def _imported(fmt: str, path: str) -> Instance:
    source = DATA / path
    bks = source.parent / "bks.csv" if (source.parent / "bks.csv").exists() else None
    if fmt == "nsplib":
        return import_paths(fmt, [source], DATA / "nsplib" / "bks.csv", cases=[DATA / "nsplib" / "Cases" / "1.gen"])[0]
    return import_paths(fmt, [source], bks)[0]


def program(m: PyomoModel) -> Program:
    """The model's program with columns named (component, index) and rows as multiset entries
    (owner, sorted coefficients, bounds), each row signed so that its first coefficient is positive;
    only the columns some row or the objective uses (Pyomo's compiler lists no others)."""
    matrices: Matrices = m.store.matrices()
    columns, owners = m.store.labels()
    names = [(group, repr(key)) for group, key in columns]
    used = set(matrices.index.tolist()) | {j for j, c in enumerate(matrices.cost.tolist()) if c}
    bounds = {names[j]: (float(matrices.col_lower[j]), float(matrices.col_upper[j]), bool(matrices.integer[j]))
              for j in used}
    rows: Counter[Any] = Counter()
    for r in range(matrices.num_row):
        span = range(matrices.start[r], matrices.start[r + 1])
        terms = sorted((names[matrices.index[k]], float(matrices.value[k])) for k in span if matrices.value[k])
        lo, hi = float(matrices.row_lower[r]), float(matrices.row_upper[r])
        if terms and terms[0][1] < 0:
            terms, lo, hi = [(n, -c) for n, c in terms], -hi, -lo
        rows[(owners[r], tuple(terms), lo, hi)] += 1
    cost = {names[j]: float(c) for j, c in enumerate(matrices.cost.tolist()) if c}
    return bounds, rows, cost, float(matrices.offset)


def assert_same_program(instance: Instance, family: Family, fixed: Any = None) -> None:
    light = program(PyomoModel(instance, family, fixed, store="light"))
    reference = program(PyomoModel(instance, family, fixed, store="pyomo"))
    for part, ours, theirs in zip(("columns", "rows", "objective", "offset"), light, reference, strict=True):
        if part == "rows":
            missing, extra = theirs - ours, ours - theirs
            assert not missing and not extra, f"{instance.name}: rows only in Pyomo's {list(missing)[:3]}, " \
                                              f"only in the light model's {list(extra)[:3]}"
        else:
            assert ours == theirs, f"{instance.name}: the {part} differ"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_gives_pyomos_program(path: Path) -> None:
    instance = load_instance(path)
    assert_same_program(instance, load_family(instance.family))


@pytest.mark.parametrize(("fmt", "path"), [*IMPORTED, ("nsplib", "nsplib/N25/1.nsp")], ids=lambda v: str(v))
def test_a_small_instance_of_every_family_gives_pyomos_program(fmt: str, path: str) -> None:
    instance = _imported(fmt, path)
    assert_same_program(instance, load_family(instance.family))


def test_the_complete_spec_gives_pyomos_program_hard_soft_and_fixed(complete_spec: list[Spec]) -> None:  # noqa: F811
    for spec in complete_spec:
        assert_same_program(spec.instance, spec.family)
        solved = cpsat_solve(spec.instance, spec.family, CpsatOptions(time_limit=10, workers=1))
        if solved.solution is not None:  # the oracle's model: every decision fixed by equality rows
            assert_same_program(spec.instance, spec.family, solved.solution)


# ------------------------------------------------------------------ the arithmetic


def test_the_arithmetic_follows_pyomos_semantics() -> None:
    x, y = Var(0), Var(1)
    assert 0 * x == 0 and isinstance(0 * x, int)  # a vanished term is the number 0, as in Pyomo
    assert quicksum([]) == 0 and quicksum([1, 2]) == 3  # a sum without variables is a number
    expr = quicksum([2 * x, 1 - y, 3, -x])
    assert isinstance(expr, LinExpr) and expr.terms == {0: 1, 1: -1} and expr.const == 4
    assert (sum([x, y, x]) - 2 * x).terms == {0: 0, 1: 1}  # the builtin sum works too
    row = 2 * x + 1 <= y + 5
    assert isinstance(row, Row) and row.terms == {0: 2, 1: -1} and (row.lo, row.hi) == (-math.inf, 4)
    row = 3 >= x  # a number on the left: Python reflects it to x <= 3
    assert row.terms == {0: 1} and row.hi == 3
    equal = x == 1
    assert (equal.lo, equal.hi) == (1, 1)
    shared = x + y
    _ = shared + x
    assert shared.terms == {0: 1, 1: 1}  # expressions are values: adding to one leaves it as it was
    for relation in (x <= y, x + 1 == y):
        with pytest.raises(TypeError):
            bool(relation)
    with pytest.raises(TypeError):
        _ = x * y  # not linear


def test_the_default_path_never_imports_pyomo() -> None:
    code = ("import sys\n"
            "from schedc.pipeline import load_instance\n"
            "from schedc.lang.family import load_family\n"
            "from schedc.backends import pyomo as milp\n"
            f"inst = load_instance({str(ROOT / 'examples' / 'ft06.sched')!r})\n"
            "r = milp.solve(inst, load_family(inst.family), milp.SolveOptions(time_limit=10, workers=1))\n"
            "assert r.status == 'optimal' and r.objective == 55, r\n"
            "print(sorted(m for m in sys.modules if m == 'pyomo' or m.startswith('pyomo.')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
