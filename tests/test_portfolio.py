"""``--backend auto`` (schedc.backends.portfolio): the best verified answer of CP-SAT and HiGHS
with the best proven bound, within one budget; and ``--hint`` starts."""

from __future__ import annotations

import json

import msgspec
import pytest
from typer.testing import CliRunner

from schedc.backends import get_backend, portfolio
from schedc.backends.base import SolveResult
from schedc.cli import app
from schedc.family import load_family
from schedc.importers import import_paths
from schedc.ir import Instance
from schedc.verify import Verifier
from tests.conftest import DATA, ROOT


def jsplib(name: str) -> Instance:
    return import_paths("jsplib", [DATA / "jsplib" / f"{name}.txt"], DATA / "jsplib" / "bks.csv")[0]


def result(backend: str, status: str, objective: int | None, bound: float | None) -> SolveResult:
    return SolveResult(instance="x", backend=backend, status=status, objective=objective,  # type: ignore[arg-type]
                       bound=bound, bks=10, gap_pct=None, seconds=1.0, build_seconds=0.5)


def test_combine_keeps_the_best_answer_and_the_largest_bound() -> None:
    instance = jsplib("ft06")
    combined = portfolio.combine(instance, [result("cpsat", "feasible", 60, 50.0),
                                            result("pyomo", "feasible", 58, 53.0)])
    assert (combined.backend, combined.objective, combined.bound, combined.status) == ("auto:pyomo", 58, 53.0,
                                                                                        "feasible")
    # one run's bound proves the other's answer optimal
    combined = portfolio.combine(instance, [result("cpsat", "feasible", 55, 40.0),
                                            result("pyomo", "feasible", 57, 55.0)])
    assert (combined.objective, combined.status) == (55, "optimal")
    assert combined.gap_pct == pytest.approx((55 - 55) / 55 * 100)
    nothing = portfolio.combine(instance, [result("cpsat", "infeasible", None, None),
                                           result("pyomo", "unknown", None, None)])
    assert (nothing.status, nothing.objective) == ("infeasible", None)


def test_both_backends_support_the_job_shop() -> None:
    assert portfolio.supporting(jsplib("ft06")) == ["cpsat", "pyomo"]
    assert get_backend("auto") is portfolio


@pytest.mark.parametrize("workers", [1, 2])
def test_auto_solves_ft06_to_its_verified_optimum(workers: int) -> None:
    instance = jsplib("ft06")
    family = load_family(instance.family)
    solved = portfolio.solve(instance, family, portfolio.SolveOptions(time_limit=3, workers=workers, seed=0))
    assert solved.backend.startswith("auto:") and solved.objective == 55
    assert solved.bound is not None and solved.bound <= 55
    verifier = Verifier(instance)
    report = verifier.check(verifier.write(solved.solution))
    assert report.feasible and report.objective == 55


def test_cli_solve_with_auto_and_a_hint(tmp_path) -> None:  # noqa: ANN001
    runner = CliRunner()
    spec = ROOT / "examples" / "ft06.sched"
    first = runner.invoke(app, ["solve", str(spec), "--time-limit", "3", "-o", str(tmp_path / "a.txt")])
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, ["solve", str(spec), "--backend", "auto", "--time-limit", "3", "--json",
                                "--hint", str(tmp_path / "a.txt")])
    assert again.exit_code == 0, again.output
    summary = json.loads(again.stdout[again.stdout.index("{"):])
    assert summary["objective"] == 55 and summary["backend"].startswith("auto:")


def test_a_hint_that_does_not_verify_is_a_clear_error(tmp_path) -> None:  # noqa: ANN001
    bad = tmp_path / "bad.txt"
    bad.write_text("Job 1 step 1: start=0\n", encoding="utf-8")  # incomplete: most operations missing
    outcome = CliRunner().invoke(app, ["solve", str(ROOT / "examples" / "ft06.sched"), "--time-limit", "2",
                                       "--hint", str(bad)])
    assert outcome.exit_code != 0
    assert "hint" in outcome.output and "Traceback" not in outcome.output


def test_the_combined_result_round_trips_as_json() -> None:
    combined = portfolio.combine(jsplib("ft06"), [result("cpsat", "optimal", 55, 55.0)])
    assert msgspec.json.decode(msgspec.json.encode(combined), type=SolveResult) == combined


def test_pyomo_rejects_a_hint_and_a_missing_hint_file_is_reported(tmp_path) -> None:  # noqa: ANN001
    spec = str(ROOT / "examples" / "ft06.sched")
    hint = tmp_path / "a.txt"
    hint.write_text("".join(f"Job {j} step {k}: start=0\n" for j in range(1, 7) for k in range(1, 7)),
                    encoding="utf-8")
    runner = CliRunner()
    pyomo_run = runner.invoke(app, ["solve", spec, "--backend", "pyomo", "--hint", str(hint)])
    assert pyomo_run.exit_code != 0 and "E506" in pyomo_run.output and "Traceback" not in pyomo_run.output
    infeasible = runner.invoke(app, ["solve", spec, "--hint", str(hint)])  # every start 0: machines clash
    assert infeasible.exit_code != 0 and "hard violations" in infeasible.output
    missing = runner.invoke(app, ["solve", spec, "--hint", str(tmp_path / "none.txt")])
    assert missing.exit_code != 0 and "cannot read the hint" in missing.output
