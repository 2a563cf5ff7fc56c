"""The backend of a solve that names none (issue 29, item 2): ``auto`` on slot models when the
``milp`` extra is installed and two workers or more share the budget, ``cpsat`` otherwise
(:func:`schedc.backends.default_backend`; the measurement behind it: docs/solving.md, "The
default backend").

What is checked is the choice and that it is what runs: the command line, the library and the
pipeline all route a solve without a backend through it, an explicit ``--backend`` is obeyed, and
a machine without the ``milp`` extra falls back to CP-SAT instead of failing. No assertion here is
about how good or how fast an answer is.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import schedc
import schedc.backends as backends
from schedc.backends import default_backend
from schedc.backends.base import SolveResult
from schedc.cli import app
from schedc.core import extras
from schedc.lang.family import load_family
from schedc.lang.load import resolve
from schedc.pipeline.solving import solve_file
from tests.conftest import DATA, ROOT

EXAMPLES = ROOT / "examples"
ROSTER = EXAMPLES / "nsplib_small.sched"
OVERDEMAND = DATA / "callcentre" / "overdemand.sched"


@pytest.mark.parametrize(("family", "chosen"), [
    ("jobshop", "cpsat"), ("fjsp", "cpsat"), ("rcpsp", "cpsat"), ("mrcpsp", "cpsat"), ("dfjsp", "cpsat"),
    ("inrc2010", "auto"), ("nsplib", "auto"), ("itc2007", "auto"), ("itc2007_exam", "auto"),
])
def test_slot_families_default_to_the_portfolio_and_interval_families_to_cpsat(family: str, chosen: str) -> None:
    spec = load_family(family)
    assert default_backend(spec, workers=2) == chosen
    assert chosen == ("auto" if spec.structure == "slot" else "cpsat")


def test_a_user_family_is_chosen_for_by_its_structure() -> None:
    _, family, _ = resolve(OVERDEMAND)  # tests/data/callcentre: a family of our own, not a built-in one
    assert family.structure == "slot" and default_backend(family) == "auto"


def test_one_worker_keeps_cpsat_on_every_family() -> None:
    # the portfolio would halve each solver's budget there, which was not measured
    assert default_backend(load_family("inrc2010"), workers=1) == "cpsat"


def test_without_the_milp_extra_the_default_is_cpsat(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def no_highs(name: str, *args: object) -> object:
        return None if name == "highspy" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", no_highs)
    assert not extras.installed("milp")
    assert default_backend(load_family("inrc2010")) == "cpsat"


def test_installed_knows_the_extras_of_this_environment() -> None:
    assert extras.installed("milp")  # the test extra installs it
    assert not extras.installed("no-such-extra")  # an extra that provides nothing is not installed


def test_a_roster_without_a_backend_is_solved_by_the_portfolio() -> None:
    result, answer = solve_file(ROSTER, time_limit=5, workers=2)
    assert result.backend.startswith("auto:") and answer is not None


def test_an_explicit_backend_is_obeyed_on_a_roster() -> None:
    result, _ = solve_file(ROSTER, "cpsat", time_limit=5, workers=2)
    assert result.backend in ("cpsat", "cpsat+probe:pyomo")


def test_a_job_shop_without_a_backend_is_solved_by_cpsat() -> None:
    result, answer = solve_file(EXAMPLES / "ft06.sched", time_limit=5, workers=2)
    assert result.backend == "cpsat" and result.objective == 55 and answer is not None


def test_without_the_milp_extra_a_roster_is_solved_by_cpsat(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(backends, "installed", lambda extra: False)
    result, _ = solve_file(ROSTER, time_limit=5, workers=2)
    assert not result.backend.startswith("auto")


def test_the_command_line_and_the_library_use_the_default(tmp_path: Path) -> None:
    outcome = CliRunner().invoke(app, ["solve", str(ROSTER), "--time-limit", "5", "--json"])
    assert outcome.exit_code == 0, outcome.output
    summary = json.loads(outcome.stdout[outcome.stdout.index("{"):])
    assert summary["backend"].startswith("auto:")
    solved = schedc.solve(ROSTER, time_limit=5)
    assert solved.result is not None and solved.result.backend.startswith("auto:")


def test_the_over_demanded_roster_is_infeasible_under_the_default_with_its_conflict() -> None:
    result, answer = solve_file(OVERDEMAND, time_limit=30, workers=2, explain=10)
    assert result.backend.startswith("auto") and result.status == "infeasible" and answer is None
    assert result.conflict is not None
    assert {c.id for c in result.conflict.constraints} == {"one_shift_per_day", "staffing", "days_off"}


def result(status: str, objective: int | None) -> SolveResult:
    return SolveResult(instance="x", backend="b", status=status, objective=objective,  # type: ignore[arg-type]
                       bound=None, bks=None, gap_pct=None, seconds=1.0, build_seconds=0.1)


@pytest.mark.parametrize(("cpsat_side", "auto_side", "said"), [
    (result("feasible", 60), result("feasible", 58), "win"),
    (result("feasible", 58), result("feasible", 60), "loss"),
    (result("feasible", 58), result("optimal", 58), "win"),  # the same answer, proven
    (result("unknown", None), result("feasible", 99), "win"),  # an answer beats none
    (result("unknown", None), result("infeasible", None), "win"),  # a proof beats nothing
    (result("optimal", 58), result("optimal", 58), "tie"),
])
def test_the_default_backend_benchmark_ranks_answers_as_a_user_would(cpsat_side: SolveResult, auto_side: SolveResult,
                                                                     said: str) -> None:
    from benchmarks.default_backend import verdict

    assert verdict(cpsat_side, auto_side) == said
