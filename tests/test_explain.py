"""Infeasibility explained: ``schedc solve`` names hard constraints that cannot hold together.

Each instance below is an example made infeasible by one edit. The explanation must be the
expected set, be *infeasible* (the ordinary CP-SAT model of only those hard constraints has no
solution) and *minimal* (without any one of them, the ordinary model of the rest has one) —
judged by fresh models, not by the explain-mode encoding that found the set.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from ortools.sat.python import cp_model
from typer.testing import CliRunner

import schedc
from schedc.backends.cpsat import CpsatModel
from schedc.backends.cpsat.explain import explain_infeasibility
from schedc.cli import app
from schedc.core.diagnostics import SchedcError
from schedc.ir import Instance
from schedc.lang.load import resolve
from tests.conftest import ROOT
from tests.test_kinds import complete_spec  # noqa: F401  (fixture)

EXAMPLES = ROOT / "examples"

#: example, edit (old text, new text), the constraints of the expected explanation
CASES = {
    "deadline_after_a_release": ("dfjsp_small", ("hard resource_downtime outages table",
                                                 "hard time_window deadlines table\n  J3 5 14\nend\n"
                                                 "hard resource_downtime outages table"), {"routes", "deadlines"}),
    "too_many_day_shifts": ("nsplib_small", ("  0 S1=1.. S2=1..", "  0 S1=3.. S2=2.."),
                            {"one_shift_per_day", "coverage"}),
    "budget_too_small": ("mrcpsp_small", ("  N1 nonrenewable 8", "  N1 nonrenewable 2"), {"budget"}),
    "lectures_in_too_few_periods": ("itc2007_small", ("Math t1 3 3 40", "Math t1 9 3 40"),
                                    {"lectures", "one_lecture_per_period", "availability"}),
}


def edited(example: str, old: str, new: str, tmp_path: Path) -> Path:
    text = (EXAMPLES / f"{example}.sched").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / f"{example}.sched"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def feasible_with(instance: Instance, ids: set[str]) -> bool:
    """Whether the ordinary model with only the hard constraints ``ids`` (and every soft one) has a solution."""
    kept = tuple(c for c in instance.constraints if not c.hard or c.id in ids)
    model = CpsatModel(msgspec.structs.replace(instance, constraints=kept), resolve(instance).family, named=False)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 30
    status = solver.solve(model.model)
    assert status != cp_model.UNKNOWN
    return status in (cp_model.OPTIMAL, cp_model.FEASIBLE)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_explanation_is_the_conflict_and_minimal(case: str, tmp_path: Path) -> None:
    example, (old, new), expected = CASES[case]
    instance = schedc.load(edited(example, old, new, tmp_path))
    conflict = explain_infeasibility(instance, resolve(instance).family, budget=60, seed=0)
    assert conflict is not None
    ids = {item.id for item in conflict.constraints}
    assert ids == expected
    assert conflict.minimal and conflict.verified and not conflict.always_on
    assert not feasible_with(instance, ids)
    for dropped in ids:
        assert feasible_with(instance, ids - {dropped}), dropped
    spans = {c.id: c.span.head() for c in instance.constraints if c.span is not None}  # the statements'
    assert all(item.span == spans[item.id] and item.span is not None for item in conflict.constraints)
    assert all(not item.span.rows for item in conflict.constraints)  # no line table of rows in the report


@pytest.mark.parametrize("example", ["ft06", "rcpsp_small", "inrc2010_small", "nsplib_small"])
def test_a_feasible_instance_has_no_explanation(example: str) -> None:
    instance = schedc.load(EXAMPLES / f"{example}.sched")
    assert explain_infeasibility(instance, resolve(instance).family, budget=30) is None


def test_solve_prints_the_explanation_with_positions(tmp_path: Path) -> None:
    example, (old, new), _ = CASES["deadline_after_a_release"]
    path = edited(example, old, new, tmp_path)
    result = CliRunner().invoke(app, ["solve", str(path)])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[1:] == [
        "these 2 hard constraints cannot hold together (minimal: without any one of them the rest can hold):",
        f"  {path}:29:1: precedence_lag routes",
        f"  {path}:42:1: time_window deadlines"]
    data = json.loads(CliRunner().invoke(app, ["solve", str(path), "--json"]).stdout)
    lines = [(c["id"], c["span"]["line"]) for c in data["conflict"]["constraints"]]
    assert lines == [("routes", 29), ("deadlines", 42)]
    unexplained = CliRunner().invoke(app, ["solve", str(path), "--json", "--explain-time", "0"])
    assert json.loads(unexplained.stdout)["conflict"] is None


def test_the_api_returns_the_conflict(tmp_path: Path) -> None:
    example, (old, new), expected = CASES["budget_too_small"]
    solved = schedc.solve(edited(example, old, new, tmp_path), time_limit=10)
    assert solved.status == "infeasible" and not solved.feasible and solved.answer is None
    assert solved.conflict is not None and {c.id for c in solved.conflict.constraints} == expected


def _status(model: cp_model.CpModel) -> str:
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 30
    return solver.status_name(solver.solve(model))


def _hard_if_supported(spec: Any, index: int) -> Any:
    """Constraint ``index`` of a spec made hard, unless CP-SAT encodes only its soft form."""
    constraints = list(spec.instance.constraints)
    hard = msgspec.structs.replace(constraints[index], hard=True)
    constraints[index] = hard
    try:
        CpsatModel(msgspec.structs.replace(spec.instance, constraints=tuple(constraints)), spec.family, named=False)
    except SchedcError:
        return spec.instance.constraints[index]
    return hard


def test_the_explain_model_switches_every_kind_and_agrees_with_the_ordinary_model(complete_spec) -> None:  # noqa: F811
    """Every kind, made hard: each constraint can be switched off, and with all switched on the
    explain-mode model has a solution exactly when the ordinary model has one."""
    for spec in complete_spec:
        hard = tuple(_hard_if_supported(spec, k) for k in range(len(spec.instance.constraints)))
        instance = msgspec.structs.replace(spec.instance, constraints=hard)
        explain = CpsatModel(instance, spec.family, named=False, explain=True)
        assert not explain.unconditional
        assert set(explain.enforce) == {c.id for c in hard if c.active and c.hard}
        for literal in explain.enforce.values():
            explain.model.add(literal == 1)
        ordinary = CpsatModel(instance, spec.family, named=False)
        assert _status(explain.model) in ("OPTIMAL", "FEASIBLE", "INFEASIBLE")
        assert (_status(explain.model) == "INFEASIBLE") == (_status(ordinary.model) == "INFEASIBLE"), spec.path


def test_the_kind_walk_is_not_vacuous(complete_spec) -> None:  # noqa: F811
    """Most kinds take part above in their hard form (CP-SAT encodes only some costs softly)."""
    from schedc.kinds import KINDS, kind_name

    made = [_hard_if_supported(spec, k) for spec in complete_spec for k in range(len(spec.instance.constraints))]
    hard = {kind_name(c) for c in made if c.hard and c.active}
    assert len(hard) >= len(KINDS) - 4, sorted(set(KINDS) - hard)


def test_a_horizon_no_activity_can_meet_is_named_as_the_cause(tmp_path: Path) -> None:
    """Found by the conformance long run: with `horizon 0` the explanation has no switchable constraint in its
    core (the horizon is never switched off) and `solve` said "the data alone admit no schedule"."""
    text = (EXAMPLES / "rcpsp_small.sched").read_text(encoding="utf-8")
    spec = tmp_path / "rcpsp_small.sched"
    head = "instance rcpsp_small family rcpsp\n"
    spec.write_text(text.replace(head, head + "horizon 0\n"), encoding="utf-8")
    result = CliRunner().invoke(app, ["solve", str(spec), "--time-limit", "10"])
    assert result.exit_code == 1 and "infeasible" in result.output, result.output
    assert "what cannot be switched off (horizon)" in result.output and "data alone" not in result.output
