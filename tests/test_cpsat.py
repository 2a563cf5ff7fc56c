"""The CP-SAT backend: known optima, verified solutions, kind coverage, and agreement with the
evaluator on complete assignments (CP-SAT with every decision fixed is the oracle)."""

from __future__ import annotations

import random
from pathlib import Path

import msgspec
import pytest

from schedc.backends.cpsat import ENCODERS, SUPPORTED_KINDS, CpsatModel, SolveOptions, solve
from schedc.backends.cpsat.solve import fixed_verdict
from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Assignment, Solution
from schedc.importers import import_paths
from schedc.ir import Instance
from schedc.kinds import KINDS, Constraint, UnaryNoOverlap, kind_name
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.verify.evaluate import evaluate, make_context
from schedc.verify.verifier import Verifier
from tests.conftest import DATA, ROOT
from tests.test_kinds import complete_spec, random_solution  # noqa: F401  (fixture)

EXAMPLES = sorted((ROOT / "examples").glob("*.sched"))
OPTIONS = SolveOptions(time_limit=30, workers=2, seed=1)


def imported(fmt: str, *parts: str) -> Instance:
    path = DATA.joinpath(*parts)
    bks = next(p / "bks.csv" for p in path.parents if (p / "bks.csv").exists())
    return import_paths(fmt, [path], bks)[0]


@pytest.mark.parametrize(("fmt", "parts", "optimum"), [
    ("jsplib", ("jsplib", "ft06.txt"), 55),
    ("jsplib", ("jsplib", "la01.txt"), 666),
    ("psplib-sm", ("psplib-sm", "j301_1.sm"), 43),
    ("psplib-mm", ("psplib-mm", "j102_2.mm"), 20),
    ("psplib-mm", ("psplib-mm", "j203_2.mm"), 33),
    ("fjsp", ("fjsp", "brandimarte", "Mk01.fjs"), 40),
])
def test_known_optima_are_reached_and_verified(fmt: str, parts: tuple[str, ...], optimum: int) -> None:
    instance = imported(fmt, *parts)
    result = solve(instance, load_family(instance.family), OPTIONS)
    assert (result.status, result.objective) == ("optimal", optimum)
    assert instance.meta.bks == optimum and result.gap_pct == 0.0
    report = Verifier(instance).check(Verifier(instance).write(result.solution))
    assert report.feasible and report.objective == optimum


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_solves_and_its_answer_verifies(path: Path) -> None:
    instance = load_instance(path)
    result = solve(instance, load_family(instance.family, [path.parent]), OPTIONS)
    assert result.status == "optimal"
    verifier = Verifier(instance)
    report = verifier.check(verifier.write(result.solution))
    assert report.feasible and report.objective == result.objective
    if instance.meta.lower_bound is not None:  # soundness: never below a proven bound
        assert result.objective >= instance.meta.lower_bound


def test_nsplib_reference_value() -> None:
    nsplib = DATA / "nsplib"
    instance = import_paths("nsplib", [nsplib / "N25" / "1.nsp"], cases=[nsplib / "Cases" / "6.gen"])[0]
    result = solve(instance, load_family("nsplib"), OPTIONS)
    assert (result.status, result.objective) == ("optimal", 301)  # reference/nsplib.md §5


def test_every_kind_has_a_cpsat_encoder() -> None:
    assert set(SUPPORTED_KINDS) == set(KINDS)
    assert all(cls in ENCODERS for cls in KINDS.values())


def test_complete_spec_builds_and_solves(complete_spec) -> None:  # noqa: F811
    for spec in complete_spec:
        used = {kind_name(c) for c in spec.instance.constraints}
        assert used <= SUPPORTED_KINDS
        result = solve(spec.instance, spec.family, OPTIONS)
        assert result.status in ("optimal", "feasible", "infeasible")


def test_an_unsupported_form_is_a_clear_error() -> None:
    instance = load_instance(ROOT / "examples" / "ft06.sched")
    soft = tuple(msgspec.structs.replace(c, hard=False) if isinstance(c, UnaryNoOverlap) else c
                 for c in instance.constraints)
    with pytest.raises(SchedcError) as exc:
        CpsatModel(msgspec.structs.replace(instance, constraints=soft), load_family("jobshop"))
    message = str(exc.value)
    assert "cpsat backend does not support the soft form of the kind unary_no_overlap" in message
    assert "constraint machines" in message


def test_emitted_model_is_a_text_proto(tmp_path: Path) -> None:
    from schedc.pipeline.solving import emit_cpsat

    out = tmp_path / "ft06.pb.txt"
    emit_cpsat(ROOT / "examples" / "ft06.sched", out)
    assert out.read_text().startswith("variables {")


# ------------------------------------------------------------------ oracle agreement


SOFT_UNSUPPORTED = ("unary_no_overlap", "cumulative_renewable", "resource_downtime", "same_sequence",
                    "skill_requirements")


def relaxed(instance: Instance) -> Instance:
    """Every hard constraint whose soft form CP-SAT encodes made soft (weight 1): random answers
    then stay feasible and exercise the penalty encodings of every such kind."""
    def soften(c: Constraint) -> Constraint:
        if c.hard and kind_name(c) not in SOFT_UNSUPPORTED and kind_name(c) != "mode_choice":
            return msgspec.structs.replace(c, hard=False, weight=1)
        return c
    return msgspec.structs.replace(instance, constraints=tuple(soften(c) for c in instance.constraints))


def mutated(instance: Instance, base: Solution, rng: random.Random) -> Solution:
    """A few local changes of a (usually optimal) solution: moved starts, other modes; other
    values, days, swapped or dropped assignments."""
    if instance.activities:
        starts, modes = dict(base.starts), dict(base.modes)
        for a in rng.sample(instance.activities, k=min(3, len(instance.activities))):
            starts[a.name] = max(0, starts[a.name] + rng.randint(-3, 3))
            if len(a.modes) > 1 and rng.random() < 0.5:
                modes[a.name] = rng.randint(1, len(a.modes))
        return Solution(starts=starts, modes=modes, workers=base.workers)  # teams kept: they meet other times
    ctx = make_context(instance)
    cells = {(x.agent, x.day, x.period): x.value for x in base.assignments}
    for _ in range(rng.randint(1, 3)):
        agent, day, period = rng.choice(list(cells)) if cells else (rng.choice(ctx.agents), 0, 0)
        move = rng.random()
        if move < 0.4:
            cells[(agent, day, period)] = rng.choice(ctx.values)
        elif move < 0.7:
            other = rng.choice(ctx.agents)
            if (other, day, period) in cells:
                cells[(agent, day, period)], cells[(other, day, period)] = \
                    cells[(other, day, period)], cells[(agent, day, period)]
        elif move < 0.85:
            cells.pop((agent, day, period), None)
        else:
            cells[(agent, rng.randrange(ctx.days), rng.randrange(ctx.periods))] = rng.choice(ctx.values)
    return Solution(assignments=tuple(Assignment(a, d, p, v) for (a, d, p), v in cells.items()))


def agreement_cases(count: int, seed: int) -> list[tuple[str, Instance, Solution]]:
    """(label, instance, complete assignment): random and mutated answers of every example,
    on the instance as it is and relaxed to soft constraints."""
    rng = random.Random(seed)
    cases = []
    for path in EXAMPLES:
        original = load_instance(path)
        for instance in (original, relaxed(original)):
            family = load_family(instance.family)
            ctx = make_context(instance, family)
            best = solve(original, family, SolveOptions(time_limit=10, workers=1, seed=seed)).solution
            for k in range(count):
                if k % 2 and best is not None:
                    solution = mutated(instance, best, rng)
                else:
                    solution = random_solution(ctx, rng, fill=rng.choice((0.3, 0.6, 1.0)))
                    if instance.activities:  # spread starts over the whole horizon
                        solution = Solution(starts={a: rng.randrange(60) for a in solution.starts},
                                            modes=solution.modes)
                label = f"{path.stem}{'-relaxed' if instance is not original else ''}-{k}"
                cases.append((label, instance, solution))
    return cases


def assert_agreement(instance: Instance, solution: Solution) -> None:
    family = load_family(instance.family)
    result = evaluate(make_context(instance, family), solution)
    feasible, objective, components = fixed_verdict(instance, family, solution)
    assert feasible == result.feasible, [v.message for v in result.violations[:3]]
    if feasible:
        assert objective == result.objective
        assert {k: v for k, v in components.items() if v} == {k: v for k, v in result.components.items() if v}


DEFAULT_CASES = agreement_cases(count=6, seed=7)


@pytest.mark.parametrize("case", DEFAULT_CASES, ids=[c[0] for c in DEFAULT_CASES])
def test_fixed_cpsat_agrees_with_the_evaluator(case: tuple[str, Instance, Solution]) -> None:
    _label, instance, solution = case
    assert_agreement(instance, solution)


@pytest.mark.slow
def test_fixed_cpsat_agrees_with_the_evaluator_on_many_answers() -> None:
    cases = agreement_cases(count=80, seed=2024)  # 7 examples × 2 variants × 80 = 1,120 answers
    assert len(cases) >= 1000
    for _label, instance, solution in cases:
        assert_agreement(instance, solution)


def real_cases() -> list[tuple[str, Instance, Solution]]:
    """Published solutions of real instances and mutations of them."""
    from schedc.importers.solutions import read_inrc_solution, read_itc_solution

    rng = random.Random(11)
    comp01 = imported("itc2007", "itc2007", "comp01.ctt")
    sprint01 = imported("inrc2010", "inrc2010", "sprint01.xml")
    n25 = import_paths("nsplib", [DATA / "nsplib" / "N25" / "1.nsp"], cases=[DATA / "nsplib" / "Cases" / "2.gen"])[0]
    bases = [
        ("comp01", comp01, read_itc_solution(DATA / "solutions" / "itc2007" / "comp01__docheinstein_race.sol",
                                             comp01)[0]),
        ("sprint01", sprint01, read_inrc_solution(DATA / "solutions" / "inrc2010" / "sprint01__chgogos_56.sol.xml",
                                                  sprint01)),
        ("n25_1_case2", n25, solve(n25, load_family("nsplib"), OPTIONS).solution),
    ]
    cases = []
    for label, instance, base in bases:
        cases.append((label, instance, base))
        cases += [(f"{label}-mutated-{k}", instance, mutated(instance, base, rng)) for k in range(3)]
        cases += [(f"{label}-relaxed-{k}", relaxed(instance), mutated(instance, base, rng)) for k in range(2)]
    return cases


REAL_CASES = real_cases()


@pytest.mark.parametrize("case", REAL_CASES, ids=[c[0] for c in REAL_CASES])
def test_fixed_cpsat_agrees_on_real_instances(case: tuple[str, Instance, Solution]) -> None:
    _label, instance, solution = case
    assert_agreement(instance, solution)


def test_a_feasible_solution_may_carry_penalty_slack_but_never_less() -> None:
    from schedc.backends.base import SolverDisagreement, check_agreement

    check_agreement("cpsat", 331, 323, True, {}, optimal=False)  # slack in a non-optimal incumbent
    with pytest.raises(SolverDisagreement):
        check_agreement("cpsat", 331, 323, True, {}, optimal=True)
    with pytest.raises(SolverDisagreement):
        check_agreement("cpsat", 320, 323, True, {}, optimal=False)
    with pytest.raises(SolverDisagreement):
        check_agreement("cpsat", 323, 323, False, {}, optimal=False)
