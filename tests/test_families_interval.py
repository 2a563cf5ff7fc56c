"""The machine-scheduling families (single_machine, parallel_machines, flow_shop, open_shop):
their examples parse, solve to the same optimum with both backends, verify, and render in every
variant; the schedules mean what each family says (one job at a time in an open shop, the same
route in a flow shop)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import schedc
from schedc.backends import cpsat
from schedc.backends import pyomo as milp
from schedc.lang.family import builtin_family_names, load_family
from schedc.lang.load import load_instance
from schedc.verify.verifier import Verifier
from tests.conftest import ROOT

#: family → (example, its optimum, worked out by hand and confirmed by both backends)
EXAMPLES = {
    "single_machine": ("single_machine_small", 3),
    "parallel_machines": ("parallel_machines_small", 7),  # makespan + setup time; 6 before it had setups
    "flow_shop": ("flow_shop_small", 15),
    "open_shop": ("open_shop_small", 9),
}
VARIANTS = ("v1", "v2", "v3a", "v3b", "v4")


def example(family: str) -> Path:
    return ROOT / "examples" / f"{EXAMPLES[family][0]}.sched"


def test_the_families_are_built_in() -> None:
    assert set(EXAMPLES) <= set(builtin_family_names())


@pytest.mark.parametrize("family", sorted(EXAMPLES))
def test_both_backends_reach_the_optimum_and_the_verifier_agrees(family: str) -> None:
    instance = load_instance(example(family))
    spec = load_family(instance.family)
    assert instance.family == family
    for backend in (cpsat, milp):
        result = backend.solve(instance, spec, backend.SolveOptions(time_limit=30, workers=1, seed=0))
        assert (result.status, result.objective) == ("optimal", EXAMPLES[family][1]), backend.__name__
        verifier = Verifier(instance)
        report = verifier.check(verifier.write(result.solution))
        assert report.feasible and report.objective == result.objective


@pytest.mark.parametrize("family", sorted(EXAMPLES))
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_renders_and_its_answer_format_reads_back(family: str, variant: str) -> None:
    prompt = schedc.render(example(family), variant=variant, seed=7)
    assert "Answer format" in prompt.text
    solved = schedc.solve(example(family), time_limit=10, variant=variant, variant_seed=7)
    report = schedc.check(example(family), solved.answer, variant=variant, seed=7)
    assert report.feasible and report.objective == EXAMPLES[family][1]


def test_open_shop_forbids_a_job_on_two_machines_at_once() -> None:
    # O11 (on M1) and O12 (on M2) at the same time: the machines are free, but job J1 is not.
    path = example("open_shop")
    solved = schedc.solve(path, time_limit=10)
    lines = solved.answer.splitlines()
    starts = {line.split(":")[0]: int(line.split("=")[1]) for line in lines}
    starts["Operation 12"] = starts["Operation 11"]
    answer = "\n".join(f"{name}: start={start}" for name, start in starts.items())
    report = schedc.check(path, answer)
    assert not report.feasible
    assert any("Job 1" in v.message or "J1" in v.message for v in report.violations)


def test_flow_shop_routes_keep_the_machine_order() -> None:
    instance = load_instance(example("flow_shop"))
    by_job: dict[str, list[str]] = {}
    for a in instance.activities:
        by_job.setdefault(a.job or "", []).append(a.modes[0].uses[0].resource)
    assert {tuple(route) for route in by_job.values()} == {("M1", "M2", "M3")}


def test_single_machine_penalty_is_the_weighted_tardiness() -> None:
    # J1 [0,4) J2 [4,6) J4 [6,9) J3 [9,14): J2 is 1 late at weight 3, the others on time.
    answer = "Job 1 step 1: start=0\nJob 2 step 1: start=4\nJob 4 step 1: start=6\nJob 3 step 1: start=9\n"
    report = schedc.check(example("single_machine"), answer)
    assert report.feasible and report.objective == 3


# ------------------------------------------------------- optional activities: grammars and verifier agree

OPTIONAL = """instance opt_small family single_machine
resources table
  M1 unary
end
jobs table
  J1 M1:3 M1:2
  J2 M1:4
  J3 M1:2
end
hard precedence_lag routes table
  J1.1 -> J1.2
end
hard unary_no_overlap machine
hard mode_choice modes
hard optional choices table
  exactly_one J2.1 J3.1
end
hard time_window windows table
  J1 0 - due=4 weight=2
  J2 0 - due=9
  J3 0 - due=9
end
minimize tardiness
"""


def test_grammars_and_verifier_agree_on_omitted_optional_lines() -> None:
    from schedc.grammars import structured_to_text
    from tests.engines import LlguidanceMatcher

    engine = LlguidanceMatcher()
    schema = json.loads(schedc.grammar(OPTIONAL, format="json-schema"))
    compiled = {form: engine.compile(form, schedc.grammar(OPTIONAL, format=form)) for form in ("lark", "gbnf")}
    compiled["json"] = engine.compile("json", schema)
    solved = schedc.solve(OPTIONAL, time_limit=10)
    # J2 (4 units, ending at 9) and J3 (2 units) are both optimal choices: tardiness 2, J1's alone
    chosen = [j for j in ("Job 2", "Job 3") if j in solved.answer]
    assert solved.objective == 2 and len(chosen) == 1
    lines = solved.answer.strip().splitlines()
    other = "Job 3" if chosen == ["Job 2"] else "Job 2"
    both = "\n".join([*lines, f"{other} step 1: start=11"])  # exactly_one broken: both optional jobs performed
    mandatory_missing = "\n".join(line for line in lines if not line.startswith("Job 1 step 2"))
    for text, feasible in ((solved.answer, True), (both, False), (mandatory_missing, False)):
        for form in ("lark", "gbnf"):  # the line grammars check the format; the rules are the verifier's
            assert engine.accepts(compiled[form], text), (form, text)
        report = schedc.check(OPTIONAL, text)
        assert report.feasible is feasible, (text, [v.message for v in report.violations], report.issues)
    # the JSON Schema bounds the number of items: the required activities at least, all at most
    items = schema["properties"]["assignments"]
    assert (items["minItems"], items["maxItems"]) == (2, 4)
    as_json = {"assignments": [{"job": f"Job {line[4]}", "step": int(line.split()[3][0]),
                                "start": int(line.split("=")[1])} for line in lines]}
    assert engine.accepts(compiled["json"], json.dumps(as_json))
    assert schedc.check(OPTIONAL, structured_to_text(schedc.load(OPTIONAL), None, None, as_json)).feasible
    too_few = {"assignments": as_json["assignments"][:1]}
    assert not engine.accepts(compiled["json"], json.dumps(too_few))
    # the prompt says how to leave one out
    assert "leave out the line of an optional one" in schedc.grammar(OPTIONAL, format="text")
