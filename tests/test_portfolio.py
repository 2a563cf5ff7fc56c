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


def test_an_infeasible_or_missing_hint_is_reported_for_every_backend(tmp_path) -> None:  # noqa: ANN001
    spec = str(ROOT / "examples" / "ft06.sched")
    hint = tmp_path / "a.txt"
    hint.write_text("".join(f"Job {j} step {k}: start=0\n" for j in range(1, 7) for k in range(1, 7)),
                    encoding="utf-8")
    runner = CliRunner()
    for backend in ("cpsat", "pyomo", "auto"):  # every start 0: machines clash
        infeasible = runner.invoke(app, ["solve", spec, "--backend", backend, "--hint", str(hint)])
        assert infeasible.exit_code != 0 and "E506" in infeasible.output and "hard violations" in infeasible.output
        assert "Traceback" not in infeasible.output
    missing = runner.invoke(app, ["solve", spec, "--backend", "pyomo", "--hint", str(tmp_path / "none.txt")])
    assert missing.exit_code != 0 and "cannot read the hint" in missing.output
    good = tmp_path / "good.txt"
    assert runner.invoke(app, ["solve", spec, "--time-limit", "2", "-o", str(good)]).exit_code == 0
    other = runner.invoke(app, ["solve", spec, "--backend", "pyomo", "--solver", "appsi_highs", "--hint", str(good)])
    assert other.exit_code != 0 and "E506" in other.output and "takes no MIP start" in other.output
    assert "Traceback" not in other.output


def portfolio_case(name: str) -> Instance:
    folder = DATA / "portfolio"
    fmt = "jsplib" if name.startswith("la") else "psplib-sm"
    return import_paths(fmt, [folder / f"{name}{'.txt' if fmt == 'jsplib' else '.sm'}"], folder / "bks.csv")[0]


def test_highs_starts_from_the_hint() -> None:
    """HiGHS's own incumbent after a 1 s run from a hint (the decisions only: HiGHS completes the
    order binaries and the makespan) is at least as good as the hint: the MIP start was taken.
    la11's MILP has 950 order binaries and a weak LP bound; the hint is CP-SAT's optimum 1222."""
    from schedc.backends.pyomo.model import PyomoModel
    from schedc.backends.pyomo.solve import SolveOptions, Warm, extract_solution, run
    from schedc.evaluate import evaluate

    instance = portfolio_case("la11")
    family = load_family(instance.family)
    hint = get_backend("cpsat").solve(instance, family).solution
    assert hint is not None
    m = PyomoModel(instance, family)
    target = evaluate(m.ctx, hint).objective
    outcome = run(m, SolveOptions(time_limit=1.0, workers=1), Warm(m.decisions(hint)))
    assert outcome.loaded and outcome.objective is not None and outcome.objective <= target
    assert evaluate(m.ctx, extract_solution(m)).feasible


def test_cli_pyomo_with_a_hint_returns_a_verified_answer_no_worse(tmp_path) -> None:  # noqa: ANN001
    instance = portfolio_case("la11")
    answer = tmp_path / "la11.txt"
    solved = get_backend("cpsat").solve(instance, load_family(instance.family))
    answer.write_text(Verifier(instance).write(solved.solution), encoding="utf-8")
    spec = tmp_path / "la11.sched"
    from schedc.printer import print_instance

    spec.write_text(print_instance(instance), encoding="utf-8")
    run = CliRunner().invoke(app, ["solve", str(spec), "--backend", "pyomo", "--time-limit", "1", "--workers", "1",
                                   "--json", "--hint", str(answer), "-o", str(tmp_path / "out.txt")])
    assert run.exit_code == 0, run.output
    summary = json.loads(run.stdout[run.stdout.index("{"):])
    assert summary["objective"] is not None and summary["objective"] <= solved.objective
    report = Verifier(instance).check((tmp_path / "out.txt").read_text(encoding="utf-8"))
    assert report.feasible and report.objective == summary["objective"]


def test_a_cpsat_proof_stops_highs() -> None:
    """CP-SAT proves la11 at its lower bound within seconds; HiGHS could not within the budget
    (its LP bound is a job length): the portfolio returns long before the budget ends."""
    instance = portfolio_case("la11")
    budget = 60.0
    solved = portfolio.solve(instance, load_family(instance.family), portfolio.SolveOptions(time_limit=budget))
    assert (solved.status, solved.objective) == ("optimal", 1222)
    assert solved.seconds < budget / 2


def test_a_highs_proof_stops_cpsat(monkeypatch) -> None:  # noqa: ANN001
    """A HiGHS run that proves its answer after 1 s stops CP-SAT on an open j120 instance (no
    solver proves it) long before the budget; the stop request waits for nothing."""
    instance = portfolio_case("j1207_8")
    family = load_family(instance.family)

    def proven_after_a_second(*_args, stop=None, **_kwargs) -> SolveResult:  # noqa: ANN001, ANN002, ANN003
        import time

        time.sleep(1.0)
        return result("pyomo", "optimal", 500, 500.0)  # a stand-in: only its status matters here

    monkeypatch.setattr(portfolio.pyomo, "solve", proven_after_a_second)
    budget = 60.0
    solved = portfolio.solve(instance, family, portfolio.SolveOptions(time_limit=budget))
    assert solved.seconds < budget / 2
    assert solved.backend == "auto:cpsat" and solved.objective is not None and solved.objective < 500


def test_tabu_search_ends_when_asked() -> None:
    from schedc.heuristics import serial_schedule
    from schedc.tabu import improve_jobshop

    instance = portfolio_case("la11")
    asked = []

    def stop() -> bool:
        asked.append(1)
        return True

    improve_jobshop(instance, serial_schedule(instance), time_limit=60.0, stop=stop)
    assert len(asked) == 1  # asked before the first move, and the search ended there


@pytest.mark.parametrize("workers", [1, 2])
def test_the_hint_goes_to_both_backends(monkeypatch, workers: int) -> None:  # noqa: ANN001
    instance = jsplib("ft06")
    family = load_family(instance.family)
    hint = get_backend("cpsat").solve(instance, family, get_backend("cpsat").SolveOptions(time_limit=2)).solution
    received: dict[str, object] = {}

    def recorder(name: str, status: str):  # noqa: ANN202
        def run(*_args, start=None, stop=None, **_kwargs) -> SolveResult:  # noqa: ANN001, ANN002, ANN003
            received[name] = start
            return result(name, status, 60, 50.0)
        return run

    monkeypatch.setattr(portfolio.cpsat, "solve", recorder("cpsat", "feasible"))
    monkeypatch.setattr(portfolio.pyomo, "solve", recorder("pyomo", "feasible"))
    portfolio.solve(instance, family, portfolio.SolveOptions(time_limit=2, workers=workers), start=hint)
    assert received == {"cpsat": hint, "pyomo": hint}


def test_cpsat_builds_its_model_once_highs_holds_the_milp(monkeypatch) -> None:  # noqa: ANN001
    """The two model builds are Python and would share the interpreter lock: CP-SAT's starts only
    once the MILP is handed to HiGHS (the MILP thread sets ``ready``)."""
    import time

    instance = jsplib("ft06")
    events: list[str] = []

    def milp(*_args, ready=None, **_kwargs) -> SolveResult:  # noqa: ANN001, ANN002, ANN003
        time.sleep(0.3)  # building
        events.append("milp handed to HiGHS")
        ready.set()
        time.sleep(0.2)  # searching
        return result("pyomo", "feasible", 60, 50.0)

    def cp(*_args, **_kwargs) -> SolveResult:  # noqa: ANN002, ANN003
        events.append("cpsat builds")
        return result("cpsat", "feasible", 60, 50.0)

    monkeypatch.setattr(portfolio.pyomo, "solve", milp)
    monkeypatch.setattr(portfolio.cpsat, "solve", cp)
    portfolio.solve(instance, load_family(instance.family), portfolio.SolveOptions(time_limit=20, workers=2))
    assert events == ["milp handed to HiGHS", "cpsat builds"]


def test_a_milp_refused_before_highs_still_releases_cpsat() -> None:
    """``ready`` is set however the MILP run ends: here its build is refused (E503)."""
    import threading

    from schedc.backends import pyomo as milp
    from schedc.diagnostics import SchedcError

    instance = portfolio_case("j1207_8")
    stretched = msgspec.structs.replace(instance, activities=tuple(
        msgspec.structs.replace(a, modes=tuple(msgspec.structs.replace(m, duration=m.duration * 10_000)
                                               for m in a.modes)) for a in instance.activities))
    ready = threading.Event()
    with pytest.raises(SchedcError):
        milp.solve(stretched, load_family(instance.family), milp.SolveOptions(time_limit=5), ready=ready)
    assert ready.is_set()
