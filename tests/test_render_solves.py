"""Render whatever solves (issue 27, items 2–3): specs a new user writes render, and say what is checked.

The fixtures in ``tests/data/user_specs/`` were written from docs/language.md and examples/ as a new
user would: operating rooms as parallel machines whose two steps start together (``s=s``), soft
setups, soft time windows and relations, soft downtime, exams as activities holding two resources at
once, a bakery family without a ``job`` role whose stages each have one oven, a call-centre roster
with minimum-only cover rows. Each renders in all five variants; every rendering passes the claim
audit (tests/claim_audit.py, with its precedence-clause reader) and the faithfulness audit of
tests/test_render.py; the claim interpreter and the verifier agree on boundary probes; and each
solvable fixture's solver answer, written in the v4 names, verifies.
"""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path

import msgspec
import pytest

from schedc.core.diagnostics import SchedcError
from schedc.ir import Family, Instance, Mode, Use
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.lang.parser import parse_instance_text
from schedc.render import VARIANTS, Rendering, render
from schedc.render.engine import with_plan
from schedc.verify.verifier import Verifier
from tests import claim_audit as audit
from tests.conftest import ROOT
from tests.test_render import audit as faithfulness
from tests.test_render import audit_variants

USER = ROOT / "tests" / "data" / "user_specs"


def _is_instance(path: Path) -> bool:
    first = next(line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
                 and not line.lstrip().startswith("#"))
    return first.startswith("instance ")


FIXTURES = sorted(str(p.relative_to(USER)) for p in USER.rglob("*.sched") if _is_instance(p))


@cache
def fixture(name: str) -> tuple[Instance, Family, tuple[Path, ...]]:
    path = USER / name
    instance = load_instance(path)
    search = (path.parent,)
    return instance, with_plan(load_family(instance.family, search), instance), search


def rendered(name: str, variant: str = "v1", seed: int = 7) -> Rendering:
    instance, family, search = fixture(name)
    return render(instance, family, variant, seed, search)


def record(rendering: Rendering, constraint: str) -> tuple[str, ...]:
    return next(r.text for r in rendering.claims if r.claim.constraint == constraint)


# ---------------------------------------------------------------------------- every fixture


@pytest.mark.parametrize("name", FIXTURES)
def test_a_user_spec_renders_in_every_variant_and_passes_both_audits(name: str) -> None:
    instance, family, _ = fixture(name)
    problems: list[str] = []
    for seed in (7, 42):
        renderings = {v: rendered(name, v, seed) for v in VARIANTS}
        for v, r in renderings.items():
            found = (audit.bijection(r, instance) + audit.wording(r, family) + audit.contradictions(r, instance, family)
                     + audit.surface(r) + audit.precedences(r, instance) + faithfulness(r, instance, family))
            problems += [f"{v}/{seed}: {p}" for p in found]
        problems += audit_variants(renderings, family)
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("name", FIXTURES)
def test_the_claims_of_a_user_spec_judge_boundary_probes_as_the_verifier_does(name: str) -> None:
    instance, family, _ = fixture(name)
    solutions = audit.probes(instance, family, random.Random(7))
    made, problems = audit.verdicts_disagree(rendered(name), instance, family, solutions)
    assert made > 0 and not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("name", FIXTURES)
def test_a_user_spec_solves_and_its_answer_verifies_in_the_v4_names(name: str) -> None:
    from schedc.backends.cpsat import SolveOptions, solve

    instance, family, _ = fixture(name)
    result = solve(instance, family, SolveOptions(time_limit=20, workers=1))
    assert result.solution is not None, result.status
    verifier = Verifier(instance, family, rendered(name, "v4", 42).names)
    report = verifier.check(verifier.write(result.solution))
    assert report.feasible and report.objective == result.objective


# ---------------------------------------------------------------------------- precedence relations


def test_a_start_start_synchronisation_is_stated_by_the_rule_sentence() -> None:
    """Was E606 "S1.2 is not bound to start after S1.1 ends": the s=s edges are read back from the sentence."""
    instance, _, _ = fixture("pm_sync.sched")
    r = rendered("pm_sync.sched")
    sentence = record(r, "together")[0]
    activities = {a.name: r.names.get(a.name, a.name) for a in instance.activities}
    assert audit.relation_clauses(sentence, activities) == {("S1.1", "S1.2", 0, "s=s"), ("S2.1", "S2.2", 0, "s=s"),
                                                             ("S3.1", "S3.2", 0, "s=s")}
    assert sentence.startswith("Every listed timing relation must hold")
    jobs = [s.text for s in r.statements if s.category == "jobs"]
    assert len(jobs) == 3 and all("do not form a route" in t and "then" not in t for t in jobs)


def test_a_job_shop_with_a_partial_route_names_the_routed_jobs_and_states_the_rest() -> None:
    r = rendered("jobshop_sync.sched")
    text = r.text()
    sentence = record(r, "routes")[0]
    assert sentence.startswith("Within each of the jobs Job 1 and Job 3, a step may start only once")
    assert "the end of Job 3 step 1 plus 2 is at or before the start of Job 3 step 2" in sentence
    assert "the end of Job 2 step 2 is at or before the start of Job 1 step 3" in sentence
    assert "Job 2 has 2 steps that do not form a route" in text
    # the family background and the framing no longer say that every job is a fixed sequence
    assert "fixed sequence of steps (where its route is given)" in r.background
    assert "in the order listed below where a route is given" in text


def test_the_precedence_audit_catches_a_wrong_or_missing_clause() -> None:
    instance, _, _ = fixture("pm_sync.sched")
    r = rendered("pm_sync.sched")
    for old, new in (("is exactly the start of S2 step 2", "is at or before the start of S2 step 2"),
                     ("; the start of S3 step 1 is exactly the start of S3 step 2", "")):
        claims = tuple(msgspec.structs.replace(c, text=(c.text[0].replace(old, new), *c.text[1:]))
                       if c.claim.constraint == "together" else c for c in r.claims)
        assert audit.precedences(msgspec.structs.replace(r, claims=claims), instance)


def test_a_cross_job_precedence_of_a_job_shop_is_a_rule_sentence() -> None:
    """ft06 with an extra edge J1.6 → J2.1 was refused (no job statement states it); the rule sentence does."""
    instance = load_instance(ROOT / "examples" / "ft06.sched")
    routes = instance.constraints[0]
    extra = msgspec.structs.replace(routes, edges=(*routes.edges, type(routes.edges[0])(before="J1.6", after="J2.1")))
    broken = msgspec.structs.replace(instance, constraints=(extra, *instance.constraints[1:]))
    r = render(broken)
    assert "Each listed timing relation must hold: the end of Job 1 step 6 is at or before the start of Job 2 " \
           "step 1." in record(r, routes.id)[0]
    assert not audit.precedences(r, broken) + faithfulness(r, broken, load_family("jobshop"))


# ---------------------------------------------------------------------------- soft interval rules


def test_a_soft_setup_is_stated_as_soft_with_its_weight() -> None:
    """Was E606 "interval renderings state hard rules only"; the penalty is per time unit of setup missing,
    as the kind's check counts (its amount is the shortfall)."""
    r = rendered("pm_soft_setup.sched")
    sentence = record(r, "spacing")[0]
    assert "should separate them; each time unit of setup missing is penalised by 2" in sentence
    assert "on Machine 2, Job 4 step 1 right after Job 3 step 1: 3" in sentence
    assert not re.search(r"\bmust\b|\bmay\b", sentence)


def test_soft_windows_and_relations_say_what_each_unit_costs() -> None:
    r = rendered("pm_soft_rules.sched")
    windows = record(r, "wishes")[0]
    assert windows.startswith("Every step of a listed job should start no earlier than its release date")
    assert "(Job 2: release date 3, deadline 9; Job 3: release date 0, latest start 2, earliest end 6; Job 4: " \
           "release date 1)" in windows
    assert "for each step, every time unit by which it misses one of these bounds is penalised by 2" in windows
    relations = record(r, "ties")[0]
    assert "the start of Job 3 step 1 minus 2 is at or before the start of Job 1 step 1" in relations
    assert relations.endswith("each one that does not is penalised by 3.")
    # a soft window is no release date: the background keeps every step available from time 0
    assert "Every step is available from time 0." in r.background and "Release dates are" not in r.background


def soft_downtime() -> Instance:
    """tests/data/user_specs_ir/single_downtime.sched with both downtime rules made soft in the IR (weights 4
    and 2): a form the semantic pass rejects (E213, no solver encodes it) but a program may build."""
    instance = load_instance(ROOT / "tests" / "data" / "user_specs_ir" / "single_downtime.sched")
    weights = {"maintenance": 4, "lunch": 2}
    return msgspec.structs.replace(instance, constraints=tuple(
        msgspec.structs.replace(c, hard=False, weight=weights[c.id]) if c.id in weights else c
        for c in instance.constraints))


def test_soft_downtime_and_soft_breaks_state_what_the_checker_scores() -> None:
    instance = soft_downtime()
    family = load_family("single_machine")
    r = render(instance, family, "v1", 7)
    overlap = record(r, "maintenance")[0]
    assert "each time unit in which a step on it overlaps a window from a to b is penalised by 4" in overlap
    assert overlap.endswith("The downtime windows: Machine 1 from 4 to 6 (service).")
    breaks = record(r, "lunch")[0]
    assert "penalised by 2 for each time unit from its start to b" in breaks and "Machine 2 from 2 to 3" in breaks
    problems = []
    for variant in VARIANTS:
        rendering = render(instance, family, variant, 42)
        problems += audit.wording(rendering, family) + audit.bijection(rendering, instance)
        problems += faithfulness(rendering, instance, family)
    made, found = audit.verdicts_disagree(r, instance, family, audit.probes(instance, family, random.Random(5)))
    assert made > 0 and not problems + found, (problems + found)[:5]


@pytest.mark.parametrize("kind", ["unary_no_overlap", "cumulative_renewable", "nonrenewable_budget", "mode_choice",
                                  "optional", "no_idle", "consecutive", "resource_ties", "tardiness",
                                  "same_sequence"])
def test_every_interval_kind_words_its_soft_form_as_soft(kind: str) -> None:
    """Each paraphrase of the soft form: evaluative words, the weight, no obligation (the wording audit) —
    also of the forms the semantic pass rejects (E213), which an IR built by a program may still carry."""
    from schedc.render.templates import KindTemplates

    templates = KindTemplates("parallel_machines")
    r = {"task": "step", "tasks": "steps", "job": "job", "jobs": "jobs", "machine": "machine",
         "machines": "machines", "time": "time unit", "times": "time units"}
    c = {"hard": False, "weight": 7, "scored": True, "scope": [], "listed": ["Job 1 step 1 with Job 2 step 1"],
         "groups": ["at least one of Job 1 step 1, Job 2 step 1"], "machines": True, "choice": True,
         "weighted": False}
    for style in range(3):
        text = templates.sentence(kind, style, {"c": c, "r": r, "w": {}})
        assert " 7" in text and audit.EVALUATIVE.search(text) and not audit.HARD_ONLY.search(text), text


# ---------------------------------------------------------------------------- resources and structure


def test_a_multi_resource_mode_names_each_resource() -> None:
    """E3 holds both cohorts and a seat of the hall at once; a unary resource is named without an amount."""
    for variant in VARIANTS:
        r = rendered("exams/week1.sched", variant, 42)
        e3 = next(s.text for s in r.statements if s.id == "activities:E3")
        assert all(r.names[n] in e3 for n in ("CA", "CB", "HALL")), e3
        assert f"1 unit of {r.names['CA']}" not in e3
        unary = record(r, "cohorts")[0]
        assert r.names["CA"] in unary and r.names["CB"] in unary and r.names["HALL"] not in unary


def test_a_job_step_holding_two_machines_names_both() -> None:
    """A mode with two unary resources (an IR built by a program) was refused with E606."""
    instance, family, search = fixture("pm_sync.sched")
    first = instance.activities[0]
    both = Mode(duration=3, uses=(Use(resource="R1"), Use(resource="D2")))
    joined = [msgspec.structs.replace(first, modes=(both,)) if a is first else a for a in instance.activities]
    changed = msgspec.structs.replace(instance, activities=tuple(joined))
    text = render(changed, family, "v1", 7, search).text()
    assert "step 1 on R1 together with D2 for 3 time units" in text


def test_a_family_without_a_job_role_renders_in_every_variant(tmp_path: Path) -> None:
    """Was E604 "'dict object' has no attribute 'jobs'": templates fall back to the structure's words."""
    texts = {variant: rendered("bakery/morning.sched", variant, 42).text() for variant in VARIANTS}
    assert all("There are 2 jobs to schedule on 3 ovens" in texts[v] for v in ("v1", "v2", "v3b"))
    source = (USER / "bakery" / "bakery.sched").read_text(encoding="utf-8")
    (tmp_path / "bakery.sched").write_text(re.sub(r"\n  roles \[[^\]]*\]", "", source), encoding="utf-8")
    (tmp_path / "morning.sched").write_text((USER / "bakery" / "morning.sched").read_text(encoding="utf-8"),
                                            encoding="utf-8")
    instance = load_instance(tmp_path / "morning.sched")
    family = load_family("bakery", [tmp_path])
    for variant in VARIANTS:
        r = render(instance, family, variant, 7, [tmp_path])
        assert not audit.wording(r, family) + faithfulness(r, instance, with_plan(family, instance))


def test_job_statements_follow_the_structure_of_the_instance() -> None:
    """One machine per step: the job shop wording, never the flexible "can use: A (2) | B (5)" listing; a
    flexible shop keeps it."""
    bakery = [s.text for seed in range(12) for v in ("v3b", "v4")
              for s in rendered("bakery/morning.sched", v, seed).statements if s.category == "jobs"]
    assert bakery and not [t for t in bakery if "can use" in t or " | " in t]
    assert any(re.search(r"\w+s 1–3 run on", t) for t in bakery)
    fjsp = load_instance(ROOT / "examples" / "fjsp_small.sched")
    flexible = [s.text for seed in range(12) for s in render(fjsp, variant="v3b", seed=seed).statements
                if s.category == "jobs"]
    assert any("can use" in t for t in flexible)


def test_a_plan_without_a_data_category_gets_its_rows_in_the_rule_sentence() -> None:
    """fjsp's plan has no downtime or due-date statements: before, E606 "leaves 2 facts unstated"."""
    text = (ROOT / "examples" / "fjsp_small.sched").read_text(encoding="utf-8").replace(
        "minimize makespan", "hard resource_downtime repairs table\n  M1 5 8 repair\nend\n"
        "soft 1 tardiness late table\n  J1 20\nend\nminimize makespan")
    instance = parse_instance_text(text)
    family = load_family("fjsp")
    r = render(instance, family, "v1")
    assert record(r, "repairs")[0].endswith("The downtime windows: Machine 1 from 5 to 8 (repair).")
    assert record(r, "late")[0].endswith("The due dates: Job 1 due at 20.")
    assert not faithfulness(r, instance, family) + audit.wording(r, family)


def test_latest_starts_and_earliest_ends_are_printed() -> None:
    """They were stated as rules ("where a latest start is listed") but their values were never listed."""
    text = (ROOT / "examples" / "parallel_machines_small.sched").read_text(encoding="utf-8").replace(
        "  J3 2\n", "  J3 2 - latest_start=9 earliest_end=5\n")
    instance = parse_instance_text(text)
    family = load_family("parallel_machines")
    for variant in VARIANTS:
        r = render(instance, family, variant, 3)
        releases = next(s.text for s in r.statements if s.category == "releases")
        assert "9" in releases and "5" in releases, releases
        assert not faithfulness(r, instance, family)


# ---------------------------------------------------------------------------- bounds of cover rows


def _cover_sentences(instance: Instance, family: Family, search: tuple[Path, ...] = ()) -> set[str]:
    return {r.text[0] for seed in range(16) for v in ("v3b", "v4")
            for r in render(instance, family, v, seed, search).claims if r.claim.kind == "coverage"}


def test_minimum_cover_rows_are_never_read_as_exact() -> None:
    """nsplib_small's rows are minimums (``S1=1..``): v3b/v4 said "every shift must have as many nurses as
    listed" while v1 said "at least"."""
    nsplib = load_instance(ROOT / "examples" / "nsplib_small.sched")
    sentences = _cover_sentences(nsplib, load_family("nsplib"))
    assert len(sentences) >= 3 and all("at least" in s or "fewer" in s for s in sentences), sentences
    instance, family, search = fixture("callcentre/week.sched")
    assert all("at least" in s or "fewer" in s for s in _cover_sentences(instance, family, search))
    inrc = load_instance(ROOT / "examples" / "inrc2010_small.sched")  # exact rows stay exact
    exact = _cover_sentences(inrc, load_family("inrc2010"))
    assert all(re.search(r"exactly|equal|fewer or more", s) for s in exact), exact


def test_the_wording_audit_catches_a_minimum_read_as_exact() -> None:
    nsplib = load_instance(ROOT / "examples" / "nsplib_small.sched")
    family = load_family("nsplib")
    r = render(nsplib, family, "v1")
    old = "The staffing listed for each day is required: every shift must have as many nurses as listed."
    claims = tuple(msgspec.structs.replace(c, text=(old,)) if c.claim.kind == "coverage" else c for c in r.claims)
    problems = audit.wording(msgspec.structs.replace(r, claims=claims), family)
    assert any("read as an exact number" in p for p in problems)


def test_a_constant_minimum_beside_an_attribute_maximum_is_stated() -> None:
    """``min=3 max=@max_shifts``: the paraphrases for an attribute bound dropped the constant minimum."""
    instance, family, search = fixture("callcentre/week.sched")
    sentences = {r.text[0] for seed in range(16) for r in render(instance, family, "v3b", seed, search).claims
                 if r.claim.constraint == "workload"}
    assert len(sentences) == 3 and all(" 3 " in s and "max shifts" in s for s in sentences), sentences


# ---------------------------------------------------------------------------- what stays refused


def test_a_plan_that_leaves_data_unstated_says_which_category_would_state_it(tmp_path: Path) -> None:
    source = (USER / "bakery" / "bakery.sched").read_text(encoding="utf-8").replace(
        "  background", "  plan [framing rules closing]\n  background")
    (tmp_path / "bakery.sched").write_text(source, encoding="utf-8")
    (tmp_path / "morning.sched").write_text((USER / "bakery" / "morning.sched").read_text(encoding="utf-8"),
                                            encoding="utf-8")
    instance = load_instance(tmp_path / "morning.sched")
    with pytest.raises(SchedcError, match="E606") as caught:
        render(instance, load_family("bakery", [tmp_path]), "v1", 7, [tmp_path])
    message = str(caught.value)
    assert "leaves" in message and "jobs or activities" in message and "leave `plan` out" in message
