"""The worked problems of docs/tutorial.md (``examples/tutorial/``): each renders, solves and checks.

Every instance there renders in all five variants and passes the claim and faithfulness audits;
CP-SAT and the MILP (HiGHS) both prove the same optimum, and each answer, written in the v4 names,
verifies with that objective. Where docs/tutorial/models/ holds the same problem written in another
modelling library (CPMpy, PyJobShop), that model is solved too and must reach the same optimum: an
independent reading of the rules the prompt states.
"""

from __future__ import annotations

import importlib.util
import re
import runpy
from functools import cache
from pathlib import Path

import pytest

from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.render import VARIANTS, Rendering, render
from schedc.render.engine import with_plan
from schedc.verify.verifier import Verifier
from tests import claim_audit as audit
from tests.conftest import ROOT
from tests.test_render import audit as faithfulness
from tests.test_render import audit_variants

TUTORIAL = ROOT / "examples" / "tutorial"
MODELS = ROOT / "docs" / "tutorial" / "models"


def _is_instance(path: Path) -> bool:
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return next(line for line in lines if line and not line.startswith("#")).startswith("instance ")


EXAMPLES = ROOT / "examples"
# the tutorial's own folder, and the examples of built-in families it walks through
INSTANCES = sorted([*(str(p.relative_to(EXAMPLES)) for p in TUTORIAL.glob("*.sched") if _is_instance(p)),
                    "operating_rooms.sched", "mspsp_small.sched", "exams/exams_small.sched"])
# the other library's model of each instance, and the package it needs
OTHER_MODELS = {"tutorial/call_centre_2w.sched": ("call_centre_cpmpy.py", "cpmpy"),
                "operating_rooms.sched": ("operating_rooms_pyjobshop.py", "pyjobshop"),
                "mspsp_small.sched": ("mspsp_cpmpy.py", "cpmpy"),
                "exams/exams_small.sched": ("exams_cpmpy.py", "cpmpy")}


@cache
def loaded(name: str):  # noqa: ANN201 - (instance, family with its plan)
    path = EXAMPLES / name
    instance = load_instance(path)
    return instance, with_plan(load_family(instance.family, (path.parent,)), instance)


def rendered(name: str, variant: str, seed: int = 42) -> Rendering:
    instance, family = loaded(name)
    return render(instance, family, variant, seed, ((EXAMPLES / name).parent,))


def test_the_tutorial_has_its_problems() -> None:
    assert {"tutorial/call_centre_2w.sched", "operating_rooms.sched", "mspsp_small.sched",
            "exams/exams_small.sched"} <= set(INSTANCES)


@pytest.mark.parametrize("name", INSTANCES)
def test_a_tutorial_problem_renders_in_every_variant_and_passes_the_audits(name: str) -> None:
    instance, family = loaded(name)
    renderings = {v: rendered(name, v) for v in VARIANTS}
    problems = [f"{v}: {p}" for v, r in renderings.items()
                for p in (audit.bijection(r, instance) + audit.wording(r, family)
                          + audit.contradictions(r, instance, family) + audit.surface(r)
                          + audit.precedences(r, instance) + faithfulness(r, instance, family))]
    problems += audit_variants(renderings, family)
    assert not problems, "\n".join(problems[:10])


@cache
def optimum(name: str, backend: str) -> tuple[str, int | None, str | None]:
    from schedc import api

    solved = api.solve(EXAMPLES / name, backend=backend, time_limit=60, variant="v4", variant_seed=42,
                       search=((EXAMPLES / name).parent,))
    return solved.status, solved.objective, solved.answer


@pytest.mark.parametrize("backend", ["cpsat", "pyomo"])
@pytest.mark.parametrize("name", INSTANCES)
def test_both_backends_prove_one_optimum_and_the_answer_verifies(name: str, backend: str) -> None:
    pytest.importorskip("pyomo") if backend == "pyomo" else None
    status, objective, answer = optimum(name, backend)
    assert status == "optimal" and answer is not None
    instance, family = loaded(name)
    verifier = Verifier(instance, family, rendered(name, "v4").names)
    report = verifier.check(answer)
    assert report.feasible and report.objective == objective
    if backend == "pyomo":
        assert objective == optimum(name, "cpsat")[1]


@pytest.mark.parametrize("name", sorted(OTHER_MODELS))
def test_the_same_problem_in_another_library_has_the_same_optimum(name: str) -> None:
    script, package = OTHER_MODELS[name]
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed (test extra)")
    model = runpy.run_path(str(MODELS / script))["model"]
    if package == "cpmpy":
        assert model.solve(time_limit=60)
        status, objective = model.status().exitstatus.name, model.objective_value()
    else:
        result = model.solve(display=False, time_limit=60)
        status, objective = result.status.value.upper(), result.objective
    assert status == "OPTIMAL"
    assert objective == optimum(name, "cpsat")[1]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_problem_without_jobs_is_never_told_of_jobs_or_steps(variant: str) -> None:
    """The surgeries have no job: the release sentences said "Any job not listed…", "No step may start
    before its arrival; unlisted jobs…" and "…or belonging to a job with one" until they asked."""
    text = rendered("operating_rooms.sched", variant).text()
    assert "arriv" in text.lower() or "release" in text.lower()
    assert not re.search(r"\b(jobs?|steps?)\b", text, re.IGNORECASE), re.search(r".{60}\b(jobs?|steps?)\b.{20}",
                                                                                text, re.IGNORECASE)
