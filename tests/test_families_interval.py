"""The machine-scheduling families (single_machine, parallel_machines, flow_shop, open_shop):
their examples parse, solve to the same optimum with both backends, verify, and render in every
variant; the schedules mean what each family says (one job at a time in an open shop, the same
route in a flow shop)."""

from __future__ import annotations

from pathlib import Path

import pytest

import schedc
from schedc.api import load_instance
from schedc.backends import cpsat
from schedc.backends import pyomo as milp
from schedc.family import builtin_family_names, load_family
from schedc.verify import Verifier
from tests.conftest import ROOT

#: family → (example, its optimum, worked out by hand and confirmed by both backends)
EXAMPLES = {
    "single_machine": ("single_machine_small", 3),
    "parallel_machines": ("parallel_machines_small", 6),
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
