"""``--backend auto`` (schedc.backends.portfolio): the best verified answer of CP-SAT and HiGHS
with the best proven bound, within one budget; and ``--hint`` starts."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from schedc.backends import get_backend, portfolio, pyomo
from schedc.backends.base import SolveResult
from schedc.cli import app
from schedc.core.diagnostics import SchedcError
from schedc.importers import import_paths
from schedc.ir import Instance
from schedc.lang.family import load_family
from schedc.verify.verifier import Verifier
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
    # builds one after the other cost the budget their total; side by side on two cores, the longer
    builds = [msgspec.structs.replace(result("cpsat", "feasible", 60, 50.0), build_seconds=0.6),
              msgspec.structs.replace(result("pyomo", "feasible", 58, 53.0), build_seconds=0.4)]
    assert portfolio.combine(instance, builds).build_seconds == pytest.approx(1.0)
    assert portfolio.combine(instance, builds, overlapping_builds=True).build_seconds == pytest.approx(0.6)
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
    from schedc.verify.evaluate import evaluate

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
    from schedc.lang.printer import print_instance

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
    monkeypatch.setattr(portfolio.pyomo, "solve", proven_after_a_second)  # runs in the MILP's child process
    budget = 60.0
    solved = portfolio.solve(instance, family, portfolio.SolveOptions(time_limit=budget))
    assert solved.seconds < budget / 2
    assert solved.backend == "auto:cpsat" and solved.objective is not None and solved.objective < 500


def test_tabu_search_ends_when_asked() -> None:
    from schedc.backends.search.heuristics import serial_schedule
    from schedc.backends.search.tabu import improve_jobshop

    instance = portfolio_case("la11")
    asked = []

    def stop() -> bool:
        asked.append(1)
        return True

    improve_jobshop(instance, serial_schedule(instance), time_limit=60.0, stop=stop)
    assert len(asked) == 1  # asked before the first move, and the search ended there


# Stand-ins for pyomo.solve in the MILP's child process: module-level, so that the child can
# import them by name (a monkeypatched function crosses the process boundary by reference).

def proven_after_a_second(*_args, stop=None, **_kwargs) -> SolveResult:  # noqa: ANN001, ANN002, ANN003
    import time

    time.sleep(1.0)
    return result("pyomo", "optimal", 500, 500.0)  # only its status matters


def returns_its_start_and_process(*_args, start=None, **_kwargs) -> SolveResult:  # noqa: ANN001, ANN002, ANN003
    import os
    import time

    time.sleep(0.3)  # "building"
    return msgspec.structs.replace(result("pyomo", "feasible", 60, 50.0), instance=str(os.getpid()),
                                   solution=start, build_seconds=0.3)


def refuses_the_model(*_args, **_kwargs) -> SolveResult:  # noqa: ANN002, ANN003
    raise SchedcError.at("E503", "a stand-in refusal", hint="the hint survives the trip")


def dies(*_args, **_kwargs) -> SolveResult:  # noqa: ANN002, ANN003
    import os

    os._exit(3)


def records_in_this_process(received: dict[str, object], name: str):  # noqa: ANN201
    def run(*_args, start=None, **_kwargs) -> SolveResult:  # noqa: ANN001, ANN002, ANN003
        received[name] = start
        return result(name, "feasible", 60, 50.0)
    return run


def test_the_hint_goes_to_both_backends_one_after_the_other(monkeypatch) -> None:  # noqa: ANN001
    instance = jsplib("ft06")
    family = load_family(instance.family)
    hint = get_backend("cpsat").solve(instance, family, get_backend("cpsat").SolveOptions(time_limit=2)).solution
    received: dict[str, object] = {}
    monkeypatch.setattr(portfolio.cpsat, "solve", records_in_this_process(received, "cpsat"))
    monkeypatch.setattr(portfolio.pyomo, "solve", records_in_this_process(received, "pyomo"))
    portfolio.solve(instance, family, portfolio.SolveOptions(time_limit=2, workers=1), start=hint)
    assert received == {"cpsat": hint, "pyomo": hint}


def test_the_milp_runs_in_a_worker_process_with_the_hint_and_the_trip_counted_as_building(monkeypatch) -> None:  # noqa: ANN001, E501
    """With two workers the MILP is built and solved in a worker process, which the next request
    reuses; the hint reaches it; its build time includes the trip there (for the first request of
    a fresh worker, the worker's start); the portfolio's build time is the longer of the two."""
    import os

    instance = jsplib("ft06")
    family = load_family(instance.family)
    hint = get_backend("cpsat").solve(instance, family, get_backend("cpsat").SolveOptions(time_limit=2)).solution
    received: dict[str, object] = {}
    monkeypatch.setattr(portfolio.cpsat, "solve", records_in_this_process(received, "cpsat"))
    monkeypatch.setattr(portfolio.pyomo, "solve", returns_its_start_and_process)
    portfolio._end_idle_workers()  # the first request below starts a worker
    options = portfolio.SolveOptions(time_limit=5, workers=2)
    cp, first = portfolio._side_by_side(instance, family, options, None, hint)
    assert received == {"cpsat": hint}
    assert first.instance != str(os.getpid()) and first.solution == hint
    assert first.build_seconds > 0.3  # the stand-in's 0.3 s plus the worker's start
    _, second = portfolio._side_by_side(instance, family, options, None, None)
    assert second.instance == first.instance and second.solution is None  # the same worker, its own start
    solved = portfolio.solve(instance, family, options)
    assert solved.build_seconds == pytest.approx(0.5)  # CP-SAT's stand-in's 0.5 s, not a sum with the MILP's


@pytest.mark.parametrize(("stand_in", "error", "message"), [
    # raised in the worker: the caller gets the same error, and the worker serves the next request
    (refuses_the_model, SchedcError, r"E503.*a stand-in refusal(.|\n)*the hint survives the trip"),
    # the worker dies: a clear error, and the next request starts a new worker
    (dies, RuntimeError, r"MILP worker process ended without an answer \(exit code 3\)"),
])
def test_a_failed_milp_request_is_a_clear_error_and_the_next_one_is_served(monkeypatch, stand_in, error,  # noqa: ANN001
                                                                         message: str) -> None:
    instance = jsplib("ft06")
    family = load_family(instance.family)
    monkeypatch.setattr(portfolio.cpsat, "solve", records_in_this_process({}, "cpsat"))
    monkeypatch.setattr(portfolio.pyomo, "solve", stand_in)
    with pytest.raises(error, match=message):
        portfolio.solve(instance, family, portfolio.SolveOptions(time_limit=5, workers=2))
    monkeypatch.setattr(portfolio.pyomo, "solve", returns_its_start_and_process)
    _, mip = portfolio._side_by_side(instance, family, portfolio.SolveOptions(time_limit=5, workers=2), None, None)
    assert mip.status == "feasible"


def test_a_stop_for_an_ended_request_leaves_the_next_one_running() -> None:
    from schedc.backends.milp_child import _Stops

    stops = _Stops()
    first = stops.begin(1)
    stops.stop(1)
    assert first.is_set()
    stops.stop(1)  # late: request 1 has ended
    assert not stops.begin(2).is_set()
    stops.stop(3)  # a stop that comes before its request
    assert stops.begin(3).is_set()


def test_a_forked_process_does_not_reuse_its_parents_milp_worker(monkeypatch) -> None:  # noqa: ANN001
    """A fork (a benchmark's process pool) inherits the idle workers' pipes; the child must start
    its own worker, never write into its parent's."""
    import os

    instance = jsplib("ft06")
    family = load_family(instance.family)
    monkeypatch.setattr(portfolio.cpsat, "solve", records_in_this_process({}, "cpsat"))
    monkeypatch.setattr(portfolio.pyomo, "solve", returns_its_start_and_process)
    _, mip = portfolio._side_by_side(instance, family, portfolio.SolveOptions(time_limit=5, workers=2), None, None)
    assert portfolio._IDLE  # the worker waits for the next request
    inherited = portfolio._IDLE[-1]
    pid = os.fork()
    if pid == 0:  # the child: its own worker, reported through the exit code
        code = 2
        try:
            fresh = portfolio._worker()
            code = 0 if fresh is not inherited and not inherited.usable() and fresh.usable() else 1
            fresh.close()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    _, again = portfolio._side_by_side(instance, family, portfolio.SolveOptions(time_limit=5, workers=2), None, None)
    assert again.instance == mip.instance  # the parent's worker still serves the parent


def test_an_idle_milp_worker_that_died_is_replaced(monkeypatch) -> None:  # noqa: ANN001
    instance = jsplib("ft06")
    family = load_family(instance.family)
    monkeypatch.setattr(portfolio.cpsat, "solve", records_in_this_process({}, "cpsat"))
    monkeypatch.setattr(portfolio.pyomo, "solve", returns_its_start_and_process)
    _, first = portfolio._side_by_side(instance, family, portfolio.SolveOptions(time_limit=5, workers=2), None, None)
    idle = portfolio._IDLE[-1]
    idle._process.kill()
    idle._process.wait()
    _, second = portfolio._side_by_side(instance, family, portfolio.SolveOptions(time_limit=5, workers=2), None, None)
    assert second.status == "feasible" and second.instance != first.instance


def test_without_worker_pipes_the_milp_runs_in_a_thread_with_the_hint(monkeypatch) -> None:  # noqa: ANN001
    """Where descriptors cannot be passed to a worker (Windows), both run in this process; the
    builds then share the interpreter, and the budget loses their sum."""
    instance = jsplib("ft06")
    family = load_family(instance.family)
    hint = get_backend("cpsat").solve(instance, family, get_backend("cpsat").SolveOptions(time_limit=2)).solution
    received: dict[str, object] = {}
    monkeypatch.setattr(portfolio, "WORKER_PIPES", False)
    monkeypatch.setattr(portfolio.cpsat, "solve", records_in_this_process(received, "cpsat"))
    monkeypatch.setattr(portfolio.pyomo, "solve", records_in_this_process(received, "pyomo"))
    solved = portfolio.solve(instance, family, portfolio.SolveOptions(time_limit=2, workers=2), start=hint)
    assert received == {"cpsat": hint, "pyomo": hint}
    assert solved.build_seconds == pytest.approx(1.0)  # the two stand-ins' 0.5 s each


def late_marker(served: int) -> Path:
    """Where :func:`builds_past_the_budget` marks that it finished, for the process ``served``."""
    return Path(tempfile.gettempdir()) / f"schedc-late-milp-{served}"


def builds_past_the_budget(*_args, **_kwargs) -> object:  # noqa: ANN002, ANN003
    """A MILP run (in the worker process) still building long after CP-SAT is done: no interrupt reaches it."""
    import time

    time.sleep(20.0)
    late_marker(os.getppid()).write_text("replied", encoding="utf-8")
    return pyomo.solve(*_args, **_kwargs)


@pytest.mark.parametrize(("name", "time_limit"), [("ft06", 30.0), ("ta01", 2.0)])
def test_a_milp_still_building_after_a_proof_or_the_budget_is_not_waited_for(
        name: str, time_limit: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """ft06: CP-SAT proves the optimum at once; ta01: CP-SAT ends its 2 s budget unproven. Either
    way the portfolio answers with CP-SAT's result and ends the worker instead of waiting 20 s
    for HiGHS's reply (the marker is written only by a run that was waited for)."""
    marker = late_marker(os.getpid())
    marker.unlink(missing_ok=True)
    monkeypatch.setattr(portfolio.pyomo, "solve", builds_past_the_budget)
    instance = jsplib(name)
    solved = portfolio.solve(instance, load_family(instance.family),
                             portfolio.SolveOptions(time_limit=time_limit, workers=2, seed=0))
    assert solved.backend == "auto:cpsat" and solved.objective is not None
    assert (solved.status == "optimal") == (name == "ft06")
    assert not marker.exists()
    again = portfolio.solve(jsplib("ft06"), load_family("jobshop"), portfolio.SolveOptions(time_limit=30, workers=2))
    assert again.objective == 55  # a new worker serves the next request
