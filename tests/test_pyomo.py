"""The Pyomo MILP backend (HiGHS): the same optima as CP-SAT on every example and on small real
instances, verified answers, agreement with the evaluator on fixed decisions, kind × backend
coverage, clear errors, and the LP/MPS export."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from schedc.backends import cpsat, get_backend
from schedc.backends import pyomo as milp
from schedc.cli import app
from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.importers import import_paths
from schedc.ir import Family, Instance
from schedc.kinds import (
    KINDS,
    AssignmentCost,
    Compactness,
    Constraint,
    Coverage,
    CumulativeRenewable,
    ResourceDowntime,
    SameSequence,
    SkillRequirements,
    UnaryNoOverlap,
    Unavailability,
    WindowPatternCost,
    kind_name,
)
from schedc.kinds.timing import Downtime
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.pipeline.solving import emit_milp
from schedc.verify.evaluate import evaluate, make_context
from schedc.verify.verifier import Verifier
from tests.conftest import DATA, ROOT
from tests.test_cpsat import REAL_CASES, agreement_cases, imported, relaxed
from tests.test_kinds import Spec, complete_spec, random_solution  # noqa: F401  (fixture)

EXAMPLES = sorted((ROOT / "examples").glob("*.sched"))
PYOMO = milp.SolveOptions(time_limit=60, workers=2, seed=1)
CPSAT = cpsat.SolveOptions(time_limit=60, workers=2, seed=1)
BACKENDS = ("cpsat", "pyomo")
FT06 = ROOT / "examples" / "ft06.sched"


# ------------------------------------------------------------------ small real instances


def without_reference(instance: Instance, name: str) -> Instance:
    """A derived instance: new name, and no best-known value (that of the original does not apply)."""
    meta = msgspec.structs.replace(instance.meta, bks=None, bks_kind=None, lower_bound=None)
    return msgspec.structs.replace(instance, name=name, meta=meta)


def keep_agents(instance: Instance, count: int) -> Instance:
    """The instance restricted to its first ``count`` agents: the other agents' entities, table
    rows and group memberships dropped (nurses of a roster, courses of a timetable)."""
    agent_cls = load_family(instance.family).decision.agent  # type: ignore[union-attr]
    agents = [e.name for e in instance.entities if e.cls == agent_cls]
    kept, dropped = set(agents[:count]), set(agents[count:])

    def members(value: object) -> object:
        if isinstance(value, tuple) and any(v in dropped for v in value):
            return tuple(v for v in value if v not in dropped)
        return value

    entities = tuple(msgspec.structs.replace(e, attrs={k: members(v) for k, v in e.attrs.items()})
                     for e in instance.entities if e.name not in dropped or e.cls != agent_cls)

    def restrict(c: Constraint) -> Constraint:
        if isinstance(c, AssignmentCost):
            return msgspec.structs.replace(c, entries=tuple(x for x in c.entries if x.agent in kept))
        if isinstance(c, Unavailability):
            return msgspec.structs.replace(c, slots=tuple(x for x in c.slots if x.agent in kept))
        return c

    cut = msgspec.structs.replace(instance, entities=entities, constraints=tuple(map(restrict, instance.constraints)))
    return without_reference(cut, f"{instance.name}_{count}_{agent_cls}s")


def keep_days(instance: Instance, days: int) -> Instance:
    """The instance cut to its first ``days`` days (requirements, costs and unavailabilities of
    later days dropped)."""
    def restrict(c: Constraint) -> Constraint:
        if isinstance(c, AssignmentCost):
            return msgspec.structs.replace(c, entries=tuple(x for x in c.entries if x.day < days))
        if isinstance(c, Unavailability):
            return msgspec.structs.replace(c, slots=tuple(x for x in c.slots if x.day < days))
        if isinstance(c, Coverage):
            return msgspec.structs.replace(c, requirements=tuple(x for x in c.requirements if x.day < days))
        return c

    calendar = msgspec.structs.replace(instance.calendar, days=days)
    cut = msgspec.structs.replace(instance, calendar=calendar, constraints=tuple(map(restrict, instance.constraints)))
    return without_reference(cut, f"{instance.name}_{days}days")


def nsplib(case: int) -> Instance:
    cases = [DATA / "nsplib" / "Cases" / f"{case}.gen"]
    return import_paths("nsplib", [DATA / "nsplib" / "N25" / "1.nsp"], cases=cases)[0]


SMALL_INSTANCES: dict[str, Callable[[], Instance]] = {
    "ft06": lambda: imported("jsplib", "jsplib", "ft06.txt"),
    "la01": lambda: imported("jsplib", "jsplib", "la01.txt"),
    "j301_1": lambda: imported("psplib-sm", "psplib-sm", "j301_1.sm"),
    "j102_2": lambda: imported("psplib-mm", "psplib-mm", "j102_2.mm"),
    "j203_2": lambda: imported("psplib-mm", "psplib-mm", "j203_2.mm"),
    "n25_1_case6": lambda: nsplib(6),
    "n25_1_case2_8nurses": lambda: keep_agents(nsplib(2), 8),
    "comp01_8courses": lambda: keep_agents(imported("itc2007", "itc2007", "comp01.ctt"), 8),
    "sprint01_7days": lambda: keep_days(imported("inrc2010", "inrc2010", "sprint01.xml"), 7),
}
"""Small real (or truncated real) instances of every family on which both backends prove optimality."""
SLOW = {"j203_2"}  # ~10 s for HiGHS
KNOWN_OPTIMA = {"ft06": 55, "la01": 666, "j301_1": 43, "j102_2": 20, "j203_2": 33, "n25_1_case6": 301}


def solve_both(instance: Instance, family: Family) -> tuple:
    return milp.solve(instance, family, PYOMO), cpsat.solve(instance, family, CPSAT)


def assert_same_verified_optimum(instance: Instance, family: Family) -> int:
    """Both backends prove the same optimum and both answers verify with that objective."""
    found, reference = solve_both(instance, family)
    assert (found.status, reference.status) == ("optimal", "optimal")
    assert found.objective == reference.objective
    assert found.bound == found.objective  # HiGHS's dual bound closes the gap
    verifier = Verifier(instance, family)
    for result in (found, reference):
        report = verifier.check(verifier.write(result.solution))
        assert report.feasible and report.objective == result.objective
    if instance.meta.lower_bound is not None:
        assert found.objective >= instance.meta.lower_bound
    return found.objective


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_has_the_same_optimum_in_both_backends(path: Path) -> None:
    instance = load_instance(path)
    assert_same_verified_optimum(instance, load_family(instance.family, [path.parent]))


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n
                                  for n in SMALL_INSTANCES])
def test_small_real_instances_have_the_same_optimum_in_both_backends(name: str) -> None:
    instance = SMALL_INSTANCES[name]()
    optimum = assert_same_verified_optimum(instance, load_family(instance.family))
    if name in KNOWN_OPTIMA:
        assert optimum == KNOWN_OPTIMA[name]


def test_a_time_limit_is_honoured_with_a_verified_incumbent() -> None:
    instance = imported("fjsp", "fjsp", "brandimarte", "Mk01.fjs")  # not proven by the MILP in seconds
    began = time.perf_counter()
    result = milp.solve(instance, load_family(instance.family), milp.SolveOptions(time_limit=2, workers=1))
    assert time.perf_counter() - began < 20  # 2 s of search, the rest is building and re-checking
    assert result.status in ("feasible", "optimal") and result.objective is not None
    assert result.bound is not None and result.bound <= result.objective
    report = Verifier(instance).check(Verifier(instance).write(result.solution))
    assert report.feasible and report.objective == result.objective


def test_without_a_solver_solution_the_heuristic_schedule_is_reported() -> None:
    instance = load_instance(ROOT / "examples" / "rcpsp_small.sched")
    result = milp.solve(instance, load_family("rcpsp"), milp.SolveOptions(time_limit=0))
    assert result.status in ("feasible", "optimal") and result.solution is not None
    assert evaluate(make_context(instance), result.solution).feasible


def test_another_pyomo_interface_to_highs_gives_the_same_optimum() -> None:
    for name in ("nsplib_small", "rcpsp_small"):
        instance = load_instance(ROOT / "examples" / f"{name}.sched")
        family = load_family(instance.family)
        legacy = milp.solve(instance, family, milp.SolveOptions(time_limit=30, solver="appsi_highs"))
        assert (legacy.status, legacy.objective) == ("optimal", milp.solve(instance, family, PYOMO).objective)


def test_an_infeasible_instance_is_infeasible_in_both_backends() -> None:
    instance = load_instance(ROOT / "examples" / "nsplib_small.sched")
    understaffed = msgspec.structs.replace(instance, constraints=tuple(
        msgspec.structs.replace(c, requirements=tuple(msgspec.structs.replace(r, min=5) for r in c.requirements))
        if isinstance(c, Coverage) else c for c in instance.constraints))  # 5 nurses wanted of 4
    found, reference = solve_both(understaffed, load_family("nsplib"))
    assert (found.status, reference.status) == ("infeasible", "infeasible")
    assert found.objective is None and found.solution is None


def test_a_mode_the_activity_does_not_have_makes_the_fixed_model_infeasible() -> None:
    instance = load_instance(FT06)
    starts = {a.name: 100 * i for i, a in enumerate(instance.activities)}
    solution = Solution(starts=starts, modes={instance.activities[0].name: 2})
    assert not evaluate(make_context(instance), solution).feasible
    assert milp.fixed_verdict(instance, load_family("jobshop"), solution) == (False, None, {})


# ------------------------------------------------------------------ oracle agreement with fixed decisions


def assert_fixed_agreement(instance: Instance, solution: Solution, family: Family | None = None) -> None:
    """The MILP with every decision fixed says what the evaluator says: feasibility, objective,
    and every non-zero penalty component."""
    family = family or load_family(instance.family)
    result = evaluate(make_context(instance, family), solution)
    feasible, objective, components = milp.fixed_verdict(instance, family, solution)
    assert feasible == result.feasible, [v.message for v in result.violations[:3]]
    if feasible:
        assert objective == result.objective
        assert {k: v for k, v in components.items() if v} == {k: v for k, v in result.components.items() if v}


ORACLE_CASES = agreement_cases(count=6, seed=13) + REAL_CASES


@pytest.mark.parametrize("case", ORACLE_CASES, ids=[c[0] for c in ORACLE_CASES])
def test_fixed_milp_agrees_with_the_evaluator(case: tuple[str, Instance, Solution]) -> None:
    _label, instance, solution = case
    assert_fixed_agreement(instance, solution)


@pytest.mark.slow
def test_fixed_milp_agrees_with_the_evaluator_on_many_answers() -> None:
    cases = agreement_cases(count=80, seed=2024)  # 7 examples × 2 variants × 80 = 1,120 answers
    for _label, instance, solution in cases:
        assert_fixed_agreement(instance, solution)


def order_free(instance: Instance) -> Instance:
    """Without ``mixed_values`` window costs when a day has several periods: a day holding two
    working values then has the value listed first *in the answer* (the kind's check), which no
    model of the decisions alone can reproduce (both backends count every combination held)."""
    if instance.calendar is None or instance.calendar.periods_per_day == 1:
        return instance
    return msgspec.structs.replace(instance, constraints=tuple(
        c for c in instance.constraints if not (isinstance(c, WindowPatternCost) and c.cost == "mixed_values")))


def test_fixed_milp_agrees_on_the_complete_spec(complete_spec: list[Spec]) -> None:  # noqa: F811
    rng = random.Random(5)
    for spec in complete_spec:
        for instance in (order_free(spec.instance), relaxed(order_free(spec.instance))):
            ctx = make_context(instance, spec.family)
            for _ in range(12):
                solution = random_solution(ctx, rng, fill=rng.choice((0.3, 0.6, 1.0)))
                result = evaluate(ctx, solution)
                feasible, objective, components = milp.fixed_verdict(instance, spec.family, solution)
                assert feasible == result.feasible
                if feasible:
                    assert objective == result.objective
                    assert {k: v for k, v in components.items() if v} == \
                        {k: v for k, v in result.components.items() if v}


# ------------------------------------------------------------------ kinds × backends


UNSUPPORTED_FORMS = {("unary_no_overlap", "soft"), ("cumulative_renewable", "soft"), ("compactness", "hard"),
                     ("resource_downtime", "soft"), ("same_sequence", "soft"), ("skill_requirements", "soft")}
"""Forms of supported kinds that neither backend encodes (each raises the clear error tested below)."""
BUILDERS = {"cpsat": cpsat.CpsatModel, "pyomo": milp.build_model}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_is_supported_by_every_backend(kind: str, backend: str) -> None:
    module = get_backend(backend)
    assert kind in module.SUPPORTED_KINDS
    assert KINDS[kind] in module.ENCODERS


def test_the_complete_spec_has_the_same_verdict_in_both_backends(complete_spec: list[Spec]) -> None:  # noqa: F811
    for spec in complete_spec:
        found, reference = solve_both(spec.instance, spec.family)
        assert found.status == reference.status
        assert found.objective == reference.objective
        if found.solution is not None:  # every kind's own check judges the MILP's answer
            assert evaluate(spec.context(), found.solution).feasible


def _flip(instance: Instance, cls: type[Constraint]) -> Instance:
    return msgspec.structs.replace(instance, constraints=tuple(
        msgspec.structs.replace(c, hard=not c.hard) if isinstance(c, cls) else c for c in instance.constraints))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("kind", "form"), sorted(UNSUPPORTED_FORMS))
def test_an_unsupported_form_is_a_clear_error(complete_spec: list[Spec], backend: str, kind: str,  # noqa: F811
                                              form: str) -> None:
    cls = {"unary_no_overlap": UnaryNoOverlap, "cumulative_renewable": CumulativeRenewable,
           "compactness": Compactness, "resource_downtime": ResourceDowntime, "same_sequence": SameSequence,
           "skill_requirements": SkillRequirements}[kind]
    spec = next(s for s in complete_spec if any(isinstance(c, cls) for c in s.instance.constraints))
    with pytest.raises(SchedcError) as exc:
        BUILDERS[backend](_flip(spec.instance, cls), spec.family)
    assert f"the {backend} backend does not support the {form} form of the kind {kind}" in str(exc.value)


ENCODED_FORMS = {("setup_times", "soft"), ("no_idle", "soft"), ("consecutive", "soft"),
                 ("resource_downtime", "pausable")}
"""Forms both backends encode since they stopped raising E501 (focused tests: ``test_interval_forms.py``)."""


def _variant(instance: Instance, kind: str, form: str) -> Instance:
    """The instance with the kind's rules in ``form``; pausable: a break of the renewable R1 too (its
    time-indexed rows then cover each stretched interval)."""
    def change(c: Constraint) -> Constraint:
        if kind_name(c) != kind:
            return c
        if form == "pausable":
            return msgspec.structs.replace(c, pausable=True, windows=(*c.windows, Downtime(resource="R1", start=1,
                                                                                         end=3)))
        return msgspec.structs.replace(c, hard=False, weight=2)
    return msgspec.structs.replace(instance, constraints=tuple(change(c) for c in instance.constraints))


@pytest.mark.parametrize(("kind", "form"), sorted(ENCODED_FORMS))
def test_the_newly_encoded_forms_agree_in_both_backends(complete_spec: list[Spec], kind: str,  # noqa: F811
                                                        form: str) -> None:
    spec = next(s for s in complete_spec if any(kind_name(c) == kind for c in s.instance.constraints))
    instance = _variant(spec.instance, kind, form)
    found, reference = solve_both(instance, spec.family)
    assert found.status == reference.status == "optimal"
    assert found.objective == reference.objective
    for result in (found, reference):
        ev = evaluate(make_context(instance, spec.family), result.solution)
        assert ev.feasible and ev.objective == result.objective
    rng = random.Random(len(kind))
    for _ in range(6):  # the fixed MILP is the evaluator's oracle on the changed form too
        assert_fixed_agreement(instance, random_solution(make_context(instance, spec.family), rng), spec.family)


def test_a_too_long_horizon_is_refused_instead_of_hanging() -> None:
    instance = load_instance(ROOT / "examples" / "rcpsp_small.sched")
    stretched = msgspec.structs.replace(instance, activities=tuple(
        msgspec.structs.replace(a, modes=tuple(msgspec.structs.replace(m, duration=m.duration * 10_000)
                                               for m in a.modes)) for a in instance.activities))
    with pytest.raises(SchedcError) as exc:
        milp.solve(stretched, load_family("rcpsp"), PYOMO)
    assert "E503" in str(exc.value) and "time-indexed" in str(exc.value) and "cpsat" in str(exc.value)


# ------------------------------------------------------------------ solver choice and the command line

runner = CliRunner()


@pytest.mark.parametrize(("name", "message"), [
    ("no_such_solver", "unknown Pyomo solver 'no_such_solver'"),
    ("ipopt", "cannot solve mixed-integer programs"),
])
def test_a_bad_solver_name_is_a_clear_error(name: str, message: str) -> None:
    with pytest.raises(SchedcError, match=message):
        milp.check_solver(name)
    result = runner.invoke(app, ["solve", str(FT06), "--backend", "pyomo", "--solver", name])
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_an_uninstalled_solver_is_a_clear_error() -> None:
    import pyomo.environ as pyo

    missing = next((n for n in ("cbc", "glpk", "gurobi_direct", "cplex_direct", "xpress_direct")
                    if not pyo.SolverFactory(n).available(exception_flag=False)), None)
    if missing is None:
        pytest.skip("every candidate solver is installed here")
    with pytest.raises(SchedcError, match="not installed"):
        milp.check_solver(missing)


def test_cli_solves_with_the_pyomo_backend() -> None:
    result = runner.invoke(app, ["solve", str(FT06), "--backend", "pyomo", "--solver", "highs", "--json"])
    assert result.exit_code == 0, result.output
    assert '"backend": "pyomo"' in result.output and '"objective": 55' in result.output


def test_cpsat_rejects_a_solver_choice() -> None:
    result = runner.invoke(app, ["solve", str(FT06), "--solver", "highs"])
    assert result.exit_code == 2 and "cpsat backend has no solver choice" in result.output


@pytest.mark.parametrize(("example", "fmt"), [("ft06", "lp"), ("nsplib_small", "mps"), ("itc2007_small", "lp")])
def test_the_emitted_milp_solves_to_the_same_optimum(tmp_path: Path, example: str, fmt: str) -> None:
    import highspy

    spec = ROOT / "examples" / f"{example}.sched"
    out = tmp_path / f"{example}.{fmt}"
    result = runner.invoke(app, ["emit", fmt, str(spec), "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "c_" in text and ("x(" in text or "S(" in text)  # rows and columns keep schedc's names
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.readModel(str(out))
    highs.run()
    instance = load_instance(spec)
    expected = milp.solve(instance, load_family(instance.family), PYOMO).objective
    assert round(highs.getInfo().objective_function_value) == expected


def test_emit_rejects_an_unknown_format(tmp_path: Path) -> None:
    with pytest.raises(SchedcError, match="unknown MILP file format"):
        emit_milp(FT06, tmp_path / "x.txt", "txt")


def test_counts_of_the_truncated_instances() -> None:
    nurses = SMALL_INSTANCES["n25_1_case2_8nurses"]()
    assert len(make_context(nurses).agents) == 8 and nurses.meta.bks is None
    week = SMALL_INSTANCES["sprint01_7days"]()
    assert week.calendar.days == 7 and all(r.day < 7 for c in week.constraints if isinstance(c, Coverage)
                                           for r in c.requirements)
    courses = SMALL_INSTANCES["comp01_8courses"]()
    ctx = make_context(courses)
    assert len(ctx.agents) == 8
    assert all(m in ctx.agents for attrs in ctx.by_class["curriculum"].values() for m in attrs["members"])
    assert {kind_name(c) for c in courses.constraints} >= {"compactness", "slot_conflict", "stability"}


def test_a_foreign_highs_scheduler_does_not_stop_the_backend() -> None:
    """Another highspy user in the process starts HiGHS's process-wide scheduler with 2 threads;
    the backend's 1-thread run would then be refused (model status "not set") unless it restarts
    the scheduler: it does, and proves ft06's optimum."""
    import highspy

    instance = load_instance(FT06)
    family = load_family(instance.family)
    one_thread = milp.SolveOptions(time_limit=30, workers=1)
    assert milp.solve(instance, family, one_thread).status == "optimal"  # the backend's scheduler: 1 thread
    highspy.Highs.resetGlobalScheduler(True)
    foreign = highspy.Highs()
    foreign.setOptionValue("output_flag", False)
    foreign.setOptionValue("threads", 2)
    foreign.addVar(0.0, 1.0)
    foreign.run()
    result = milp.solve(instance, family, one_thread)
    assert (result.status, result.objective) == ("optimal", 55)


@pytest.mark.parametrize(("name", "effort"), [("n25_case1", 0.2), ("ft06", None)])
def test_highs_spends_more_on_heuristics_for_slot_models_only(monkeypatch, name: str, effort: float | None) -> None:  # noqa: ANN001
    """The heuristic effort is chosen by the model's structure: slot models (no activities) get
    SLOT_HEURISTIC_EFFORT, interval models HiGHS's default (the option is not set)."""
    import importlib

    solve_module = importlib.import_module("schedc.backends.pyomo.solve")  # the package exports its solve()
    assert solve_module.SLOT_HEURISTIC_EFFORT == 0.2
    instance = nsplib(1) if name.startswith("n25") else imported("jsplib", "jsplib", "ft06.txt")
    passed: list[dict[str, object]] = []
    real = solve_module.solve_direct

    def recording(store, time_limit, options, **kwargs):  # noqa: ANN001, ANN003, ANN202
        passed.append(dict(options))
        return real(store, time_limit, options, **kwargs)

    monkeypatch.setattr(solve_module, "solve_direct", recording)
    solved = milp.solve(instance, load_family(instance.family), milp.SolveOptions(time_limit=2, workers=1))
    assert solved.objective is not None and passed
    assert passed[0].get("mip_heuristic_effort") == effort


_UNCONSTRAINED_FLOW_TIME = """\
instance g172 family parallel_machines
resources table
  M1 unary
  M2 unary
end
jobs table
  J1 M2:3 M1:1
  J2 M1:1/M2:1
  J3 M2:2
  J4 M1:3
end
minimize flow_time
"""


def test_highs_answers_its_own_optimum_not_the_start_it_was_given(tmp_path: Path) -> None:
    """Found by the conformance long run (3,000 specs): with the serial heuristic's schedule as MIP start, HiGHS
    1.16 reported the optimum 9 of this rule-free instance but returned the start's values (flow time 15), and
    the solve stopped with a SolverDisagreement. The run is now repeated without the start when HiGHS's
    values disagree with its own objective."""
    (tmp_path / "g172.sched").write_text(_UNCONSTRAINED_FLOW_TIME, encoding="utf-8")
    instance = load_instance(tmp_path / "g172.sched")
    family = load_family(instance.family)
    result = milp.solve(instance, family, milp.SolveOptions(time_limit=20))
    assert result.status == "optimal" and result.objective == 9 and result.solution is not None
    assert evaluate(make_context(instance, family), result.solution).objective == 9
