"""``objective_bound`` and ``schedc tighten``: the bound keeps the optimum feasible, makes worse
answers infeasible, is stated by the renderings as the claims say, and is encoded alike by both backends."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from schedc.cli import app
from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.kinds import ObjectiveBound
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.lang.parser import parse_instance_text
from schedc.render import VARIANTS, render
from schedc.variants import solve_instance, tighten
from schedc.verify.evaluate import evaluate, make_context
from tests import claim_audit as audit
from tests.conftest import ROOT

EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("*.sched"))
runner = CliRunner()


def tightened(name: str, factor: str = "1.15"):
    instance = load_instance(ROOT / "examples" / f"{name}.sched")
    family = load_family(instance.family)
    return instance, family, tighten(instance, family, factor, time_limit=2.0)


@pytest.mark.parametrize("name", EXAMPLES)
def test_tightening_keeps_the_optimum_feasible_at_the_floor_of_factor_times_z(name: str) -> None:
    instance, family, result = tightened(name)
    bound = result.instance.constraints[-1]
    assert isinstance(bound, ObjectiveBound) and bound.hard
    assert bound.measure == instance.objective.measure
    assert bound.max == math.floor(1.15 * result.reference.value + 1e-9) == result.bound
    assert result.instance.meta.base == instance.name and result.instance.meta.reference == result.reference.value
    solved = solve_instance(result.instance, family, time_limit=2.0)
    assert solved.status == "optimal" and solved.objective == result.reference.value


def test_a_worse_answer_of_the_base_is_infeasible_once_tightened() -> None:
    instance, family, result = tightened("ft06")
    optimum = solve_instance(instance, family).solution
    assert optimum is not None
    late = Solution(starts={a: s + 10 for a, s in optimum.starts.items()}, modes=optimum.modes)  # makespan 65
    base = evaluate(make_context(instance, family), late)
    tight = evaluate(make_context(result.instance, family), late)
    assert base.feasible and base.objective == 65
    assert not tight.feasible and tight.hard_amounts["near_optimal"] == 65 - 63


def test_a_penalty_bound_counts_the_weighted_soft_penalties_exactly_at_the_bound() -> None:
    """Probes at a measured penalty P: bound P holds, bound P − 1 is missed by one; the claim
    interpreter says the same as the verifier."""
    instance = load_instance(ROOT / "examples" / "nsplib_small.sched")
    family = load_family(instance.family)
    world = audit.World(instance, family)
    rng = random.Random(5)
    for _ in range(5):
        solution = audit.random_solution(world, rng)
        penalty = evaluate(make_context(instance, family), solution).objective
        assert penalty is not None
        for bound, excess in ((penalty, 0), (penalty - 1, 1)):
            if bound < 0:
                continue
            c = ObjectiveBound(id="cap", measure="penalty", max=bound)
            bounded = msgspec.structs.replace(instance, constraints=(*instance.constraints, c))
            ev = evaluate(make_context(bounded, family), solution)
            assert ev.hard_amounts["cap"] == excess
            assert audit.interpret(c.claim(), audit.Schedule(audit.World(bounded, family), solution)) == excess


@pytest.mark.parametrize("name", ["ft06", "nsplib_small", "itc2007_small", "mrcpsp_small"])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_audit_passes_on_tightened_instances(name: str, variant: str) -> None:
    _instance, family, result = tightened(name)
    rendering = render(result.instance, family, variant, 7)
    problems = (audit.bijection(rendering, result.instance) + audit.wording(rendering, family)
                + audit.contradictions(rendering, result.instance, family) + audit.surface(rendering))
    assert not problems, "\n".join(problems[:10])
    sentence = next(r.text[0] for r in rendering.claims if r.claim.kind == "objective_bound")
    assert sentence.count(str(result.bound)) == 1
    assert ("makespan" if result.instance.objective.measure == "makespan" else "penalty") in sentence


@pytest.mark.parametrize("name", ["ft06", "rcpsp_small", "nsplib_small"])
def test_the_interpreter_agrees_with_the_verifier_on_tightened_instances(name: str) -> None:
    _instance, family, result = tightened(name)
    rendering = render(result.instance, family, "v1")
    solutions = audit.probes(result.instance, family, random.Random(7))
    made, problems = audit.verdicts_disagree(rendering, result.instance, family, solutions)
    assert made > 0 and not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("name", ["rcpsp_small", "itc2007_small"])
def test_both_backends_agree_on_a_tight_bound(name: str) -> None:
    """At factor 1 the optimum is exactly at the bound; one below it, no schedule exists."""
    from schedc.backends.pyomo import SolveOptions as PyomoOptions
    from schedc.backends.pyomo import solve as pyomo_solve

    _instance, family, result = tightened(name, "1")
    c = result.instance.constraints[-1]
    below = msgspec.structs.replace(result.instance, constraints=(*result.instance.constraints[:-1],
                                                                  msgspec.structs.replace(c, max=c.max - 1)))
    for inst, expected in ((result.instance, "optimal"), (below, "infeasible")):
        assert solve_instance(inst, family).status == expected
        assert pyomo_solve(inst, family, PyomoOptions(time_limit=20), None).status == expected


def test_the_cli_writes_the_tightened_instance(tmp_path: Path) -> None:
    out = tmp_path / "ft06_tight.sched"
    result = runner.invoke(app, ["tighten", str(ROOT / "examples" / "ft06.sched"), "-o", str(out), "--factor",
                                 "1.15", "--json"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["bound"] == 63 and record["reference"] == 55 and record["reference_source"] == "bks"
    text = out.read_text(encoding="utf-8")
    assert "hard objective_bound near_optimal max=63" in text and "factor 1.15" in text
    assert load_instance(out).meta.base == "ft06"


@pytest.mark.parametrize("factor", ["0.9", "abc"])
def test_a_bad_factor_is_an_error(tmp_path: Path, factor: str) -> None:
    result = runner.invoke(app, ["tighten", str(ROOT / "examples" / "ft06.sched"), "-o", str(tmp_path / "x.sched"),
                                 "--factor", factor])
    assert result.exit_code == 2 and "E801" in result.output
    assert not (tmp_path / "x.sched").exists()


def test_no_known_value_and_no_schedule_is_an_error() -> None:
    """An infeasible base without a bks: a deadline nobody meets (tighten drops objective bounds, not deadlines)."""
    from schedc.kinds import TimeWindow, Window

    instance = load_instance(ROOT / "examples" / "rcpsp_small.sched")
    family = load_family(instance.family)
    deadline = TimeWindow(id="never", windows=(Window(target=instance.activities[-1].name, release=0, deadline=1),))
    hopeless = msgspec.structs.replace(instance, meta=msgspec.structs.replace(instance.meta, bks=None),
                                       constraints=(*instance.constraints, deadline))
    with pytest.raises(SchedcError, match="E802"):
        tighten(hopeless, family, time_limit=1.0)


@pytest.mark.parametrize(("statement", "message"), [
    ("soft 1 objective_bound cap max=3", "must be hard"),
    ("hard objective_bound cap measure=penalty max=3", "must have measure=makespan"),
])
def test_bad_objective_bounds_are_semantic_errors(statement: str, message: str) -> None:
    text = (ROOT / "examples" / "ft06.sched").read_text(encoding="utf-8")
    with pytest.raises(SchedcError, match=message) as info:
        parse_instance_text(text.replace("minimize makespan", f"{statement}\nminimize makespan"))
    assert "E212" in str(info.value)


def _worse_neighbours(instance, solution: Solution):
    """Schedules near an optimum that are feasible for the base more often than not: every start shifted
    past the last outage (interval families), or two agents' rows exchanged, or two assignments of
    one slot exchanging their values (slot families). The caller keeps the feasible, worse ones."""
    if solution.starts:
        from schedc.kinds.timing import ResourceDowntime

        outages = [w.end for c in instance.constraints if isinstance(c, ResourceDowntime) for w in c.windows]
        shift = max([10, *outages])
        yield Solution(starts={a: s + shift for a, s in solution.starts.items()}, modes=solution.modes,
                       workers=solution.workers)
        return
    rows = solution.assignments
    agents = sorted({a.agent for a in rows})
    for i, first in enumerate(agents):
        for second in agents[i + 1:]:
            swap = {first: second, second: first}
            yield Solution(assignments=tuple(msgspec.structs.replace(a, agent=swap.get(a.agent, a.agent))
                                             for a in rows))
    for i, a in enumerate(rows):
        for j in range(i + 1, len(rows)):
            b = rows[j]
            if (a.day, a.period) == (b.day, b.period) and a.value != b.value:
                changed = list(rows)
                changed[i], changed[j] = (msgspec.structs.replace(a, value=b.value),
                                          msgspec.structs.replace(b, value=a.value))
                yield Solution(assignments=tuple(changed))
    # one assignment moved to another slot or value (an exam timetable has few feasible swaps)
    cal = instance.calendar
    values = sorted({a.value for a in rows} | {e.name for e in instance.entities if e.cls == "room"})
    for i, a in enumerate(rows):
        for day in range(cal.days if cal else 0):
            for period in range(cal.periods_per_day if cal else 0):
                for value in values:
                    if (day, period, value) != (a.day, a.period, a.value):
                        changed = list(rows)
                        changed[i] = msgspec.structs.replace(a, day=day, period=period, value=value)
                        yield Solution(assignments=tuple(changed))


@pytest.mark.parametrize("name", EXAMPLES)
def test_on_every_family_a_known_worse_answer_is_infeasible_once_tightened(name: str) -> None:
    """At factor 1 the bound is z*: the optimum stays feasible, and a feasible answer of the base that
    is worse (found near the optimum) is rejected by exactly its excess."""
    instance, family, result = tightened(name, "1")
    optimum = solve_instance(instance, family, time_limit=2.0)
    assert optimum.status == "optimal" and optimum.objective == result.bound
    assert evaluate(make_context(result.instance, family), optimum.solution).feasible
    base_ctx, tight_ctx = make_context(instance, family), make_context(result.instance, family)
    for k, candidate in enumerate(_worse_neighbours(instance, optimum.solution)):
        verdict = evaluate(base_ctx, candidate)
        if verdict.feasible and verdict.objective > result.bound:
            tight = evaluate(tight_ctx, candidate)
            assert not tight.feasible
            assert {k: v for k, v in tight.hard_amounts.items() if v} == {"near_optimal": verdict.objective
                                                                           - result.bound}
            return
        assert k < 2000, "no worse feasible answer near the optimum"
    pytest.fail(f"{name}: no worse feasible answer near the optimum")
