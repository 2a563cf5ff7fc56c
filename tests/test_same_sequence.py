"""The ``same_sequence`` kind (the permutation flow shop): its check and count at the boundary, its
semantic errors, and both backends against an independent brute force over job permutations.
"""

from __future__ import annotations

import itertools
import random

import msgspec
import pytest

from schedc.backends import get_backend
from schedc.backends.base import SolveResult
from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.ir import Instance
from schedc.kinds import SameSequence
from schedc.kinds.context import View
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.lang.parser import parse_instance_text
from schedc.verify.evaluate import evaluate, make_context
from tests.conftest import ROOT


def flow_shop(times: list[list[int]], *statements: str, overlap: bool = True) -> Instance:
    """A flow shop of ``times[j][k]`` (job j on machine k), routes in machine order, plus ``statements``."""
    machines = len(times[0])
    lines = ["instance t family flow_shop", "resources table", *(f"  M{k} unary" for k in range(1, machines + 1)),
             "end", "jobs table",
             *(f"  J{j} " + " ".join(f"M{k}:{d}" for k, d in enumerate(row, start=1)) for j, row in
               enumerate(times, start=1)), "end", "hard precedence_lag routes table",
             *(f"  {' -> '.join(f'J{j}.{k}' for k in range(1, machines + 1))}" for j in range(1, len(times) + 1)),
             "end", *(["hard unary_no_overlap machines"] if overlap else []), "hard mode_choice modes",
             *statements, "minimize makespan", ""]
    return parse_instance_text("\n".join(lines))


def found(instance: Instance, **starts: int) -> list[int]:
    ctx = make_context(instance, load_family("flow_shop"))
    ev = evaluate(ctx, Solution(starts=starts))
    rule = next(c for c in instance.constraints if isinstance(c, SameSequence))
    counted = rule.count(ctx, View(ctx, Solution(starts=starts)))
    listed = [v.amount for v in ev.violations if v.constraint == rule.id]
    assert counted == ({1: len(listed)} if listed else {})  # the fast path counts what check lists
    return listed


TWO = [[2, 1], [1, 2], [3, 1]]


def test_the_same_order_on_both_machines_holds_and_each_swapped_pair_is_one_violation() -> None:
    inst = flow_shop(TWO, "hard same_sequence p")
    same = {"J1.1": 0, "J2.1": 2, "J3.1": 3, "J1.2": 2, "J2.2": 3, "J3.2": 6}
    assert found(inst, **same) == []
    one_swap = {**same, "J2.2": 7, "J3.2": 6}  # M2: J1, J3, J2 against M1: J1, J2, J3
    assert found(inst, **one_swap) == [1]
    reversed_ = {"J1.1": 0, "J2.1": 2, "J3.1": 3, "J3.2": 6, "J2.2": 7, "J1.2": 9}
    assert found(inst, **reversed_) == [1, 1, 1]  # three pairs, each out of order


def test_a_table_pairs_operations_explicitly_and_others_stay_free() -> None:
    inst = flow_shop(TWO, "hard same_sequence p resources=[M1 M2] table\n  J1.1 J2.2\n  J2.1 J1.2\nend")
    starts = {"J1.1": 0, "J2.1": 2, "J3.1": 3, "J2.2": 3, "J1.2": 5, "J3.2": 6}
    assert found(inst, **starts) == []  # J1.1 < J2.1 on M1 and J2.2 < J1.2 on M2
    assert found(inst, **{**starts, "J2.2": 7, "J1.2": 5, "J3.2": 9}) == [1]


@pytest.mark.parametrize(("statement", "message"), [
    ("hard same_sequence p resources=[M1]", "needs two or more distinct unary resources"),
    ("hard same_sequence p resources=[M1 M1]", "needs two or more distinct unary resources"),
    ("hard same_sequence p table\n  J1.1 J1.2\nend", "a table of pairs needs exactly two listed resources"),
    ("hard same_sequence p resources=[M1 M2] table\n  J1.1 J1.2\n  J1.1 J2.2\nend", "J1.1 is paired twice on M1"),
    ("hard same_sequence p resources=[M1 M2] table\n  J1.2 J2.2\nend", "J1.2 never uses M1"),
    ("hard same_sequence p resources=[M1 M9]", "undefined resource 'M9'"),
])
def test_bad_statements_are_precise_errors(statement: str, message: str) -> None:
    with pytest.raises(SchedcError, match=message):
        flow_shop(TWO, statement)


def test_the_machines_must_be_kept_unary() -> None:
    with pytest.raises(SchedcError, match="resource M1 has no hard unary_no_overlap; same_sequence needs one"):
        flow_shop(TWO, "hard same_sequence p", overlap=False)


def permutation_makespan(times: list[list[int]]) -> int:
    """The best makespan over every job order, by the permutation flow shop recurrence
    ``C[j][k] = max(C[j-1][k], C[j][k-1]) + p[j][k]`` (independent of schedc's models)."""
    best = None
    for order in itertools.permutations(range(len(times))):
        done = [0] * len(times[0])
        for j in order:
            for k, p in enumerate(times[j]):
                done[k] = max(done[k], done[k - 1] if k else 0) + p
        best = done[-1] if best is None else min(best, done[-1])
    assert best is not None
    return best


def solve(instance: Instance, backend: str) -> SolveResult:
    module = get_backend(backend)
    return module.solve(instance, load_family("flow_shop"), module.SolveOptions(time_limit=20, workers=1))


@pytest.mark.parametrize("seed", range(3))
def test_both_backends_find_the_best_permutation(seed: int) -> None:
    rng = random.Random(1800 + seed)
    times = [[rng.randint(1, 9) for _ in range(3)] for _ in range(4)]
    inst = flow_shop(times, "hard same_sequence p")
    expected = permutation_makespan(times)
    for backend in ("cpsat", "pyomo"):
        result = solve(inst, backend)
        assert result.status == "optimal" and result.objective == expected, backend
        assert evaluate(make_context(inst, load_family("flow_shop")), result.solution).feasible


def test_the_example_needs_the_rule_for_its_optimum() -> None:
    inst = load_instance(ROOT / "examples" / "permutation_flow_shop_small.sched")
    free = msgspec.structs.replace(inst, constraints=tuple(c for c in inst.constraints
                                                           if not isinstance(c, SameSequence)))
    for backend in ("cpsat", "pyomo"):
        assert solve(inst, backend).objective == 50
    passing = solve(free, "cpsat")
    assert passing.objective == 46  # a job overtakes another: not a permutation schedule
    verdict = evaluate(make_context(inst, load_family("flow_shop")), passing.solution)
    assert [v.kind for v in verdict.violations] == ["same_sequence"]


def test_the_soft_form_is_rejected_where_it_is_written() -> None:
    """No backend encodes it, so the semantic pass refuses it (E213) rather than ``solve`` alone."""
    with pytest.raises(SchedcError) as exc:
        flow_shop(TWO, "soft 3 same_sequence p")
    diagnostic = exc.value.diagnostics[0]
    assert diagnostic.code == "E213" and "soft same_sequence" in diagnostic.message and diagnostic.span.line == 18


@pytest.mark.parametrize("backend", ["cpsat", "pyomo"])
def test_an_unchecked_soft_form_is_still_refused_with_e501(backend: str) -> None:
    hard = flow_shop(TWO, "hard same_sequence p")
    inst = msgspec.structs.replace(hard, constraints=tuple(
        msgspec.structs.replace(c, hard=False, weight=3) if isinstance(c, SameSequence) else c
        for c in hard.constraints))
    with pytest.raises(SchedcError) as exc:
        solve(inst, backend)
    assert exc.value.diagnostics[0].code == "E501" and "same_sequence" in str(exc.value)
