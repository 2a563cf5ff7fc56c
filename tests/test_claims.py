"""The semantic audit of renderings (tests/claim_audit.py) on a stratified sample, and its regressions.

CI runs every family × every variant × one seed over a stratified sample (every bundled example,
one imported instance per source format, a generated dynamic shop); ``-m slow`` runs the whole
audit — every instance of ../shared/data × every variant × three seeds — and prints its totals.
"""

from __future__ import annotations

import collections
import random
from functools import cache
from pathlib import Path

import msgspec
import pytest

from schedc.importers import import_paths
from schedc.ir import Instance
from schedc.lang.family import load_family
from schedc.lang.family_parser import parse_family_text
from schedc.lang.load import load_instance
from schedc.lang.parser import parse_instance_text
from schedc.render import VARIANTS, render
from schedc.render.themes import has_own_theme
from schedc.verify.verifier import Verifier
from tests import claim_audit as audit
from tests.conftest import ROOT
from tests.sources import all_sources, source_id

EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("*.sched"))
SOURCES = all_sources()


def _first_per_format() -> list[int]:
    seen: dict[str, int] = {}
    for index, (fmt, _path, _cases) in enumerate(SOURCES):
        seen.setdefault(fmt, index)
    return list(seen.values())


@cache
def imported(index: int) -> Instance:
    fmt, path, cases = SOURCES[index]
    return import_paths(fmt, [path], cases=cases)[0]


@cache
def generated_shop() -> Instance:
    from schedc.dynamic.api import points_of
    from schedc.dynamic.generator import generate
    from schedc.dynamic.spec import world_to_instance

    point = points_of(ROOT / "examples" / "dfjsp" / "small.toml", calibrate=False, limit=1)[0]
    return world_to_instance(generate(point))


def sample() -> list[pytest.param]:
    out = [pytest.param(("example", name), id=f"example:{name}") for name in EXAMPLES]
    out += [pytest.param(("source", i), id=source_id(SOURCES[i])) for i in _first_per_format()]
    out.append(pytest.param(("generated", 0), id="generated:dfjsp"))
    return out


def instance_of(key: tuple[str, object]) -> Instance:
    kind, value = key
    if kind == "example":
        return load_instance(ROOT / "examples" / f"{value}.sched")
    if kind == "source":
        return imported(int(value))  # type: ignore[arg-type]
    return generated_shop()


def audit_rendering(instance: Instance, variant: str, seed: int) -> list[str]:
    family = load_family(instance.family)
    rendering = render(instance, family, variant, seed)
    return (audit.bijection(rendering, instance) + audit.wording(rendering, family)
            + audit.contradictions(rendering, instance, family) + audit.surface(rendering)
            + audit.names_audit(rendering, instance, family, has_own_theme(family.name))
            + audit.precedences(rendering, instance))


@pytest.mark.parametrize("key", sample())
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_claims_match_constraints_and_sentences_match_claims(key: tuple[str, object], variant: str) -> None:
    instance = instance_of(key)
    problems = audit_rendering(instance, variant, seed=7)
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("key", sample())
def test_the_claim_interpreter_agrees_with_the_verifier_on_boundary_probes(key: tuple[str, object]) -> None:
    instance = instance_of(key)
    family = load_family(instance.family)
    rendering = render(instance, family, "v1")
    solutions = audit.probes(instance, family, random.Random(7))
    made, problems = audit.verdicts_disagree(rendering, instance, family, solutions)
    assert made > 0 and not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("name", EXAMPLES)
def test_check_judges_probe_answers_as_the_claims_say(name: str) -> None:
    """Through the text path: a probe written as a v4 answer and read back by ``schedc check``'s verifier."""
    instance = load_instance(ROOT / "examples" / f"{name}.sched")
    family = load_family(instance.family)
    rendering = render(instance, family, "v4", 7)
    verifier = Verifier(instance, family, rendering.names)
    world = audit.World(instance, family)
    for solution in audit.probes(instance, family, random.Random(3))[:12]:
        report = verifier.check(verifier.write(solution))
        if not report.extracted or report.issues:  # an empty or malformed answer is judged structurally
            continue
        found: dict[str, int] = {}
        for v in report.violations:
            found[v.constraint] = found.get(v.constraint, 0) + v.amount
        schedule = audit.Schedule(world, solution)
        for record in rendering.claims:
            if record.claim.hard:
                assert found.get(record.claim.constraint, 0) == audit.interpret(record.claim, schedule), \
                    record.claim.constraint


# ---------------------------------------------------------------------------- regressions of issue 17


def _text(name: str, variant: str = "v1", seed: int = 7) -> str:
    return render(load_instance(ROOT / "examples" / f"{name}.sched"), variant=variant, seed=seed).text()


def test_nsplib_counts_say_working_shifts_next_to_exactly_one_shift_a_day() -> None:
    instance = load_instance(ROOT / "examples" / "nsplib_small.sched")
    family = load_family("nsplib")
    rendering = render(instance, family, "v1", 7)
    assert "between 3 and 5 working shifts in total (Off does not count)" in rendering.text()
    assert not audit.contradictions(rendering, instance, family)


def test_the_contradiction_check_catches_the_old_nsplib_wording() -> None:
    instance = load_instance(ROOT / "examples" / "nsplib_small.sched")
    family = load_family("nsplib")
    rendering = render(instance, family, "v1", 7)
    old = [r if r.claim.kind != "count_bounds" else type(r)(claim=r.claim, text=(
        "Every nurse must have between 3 and 5 shifts in total.",)) for r in rendering.claims]
    broken = msgspec.structs.replace(rendering, claims=tuple(old))
    assert audit.contradictions(broken, instance, family)


def test_inrc_one_sided_and_soft_rules_name_only_their_bound_and_no_must() -> None:
    text = _text("inrc2010_small")
    assert "should have at most 4 shifts in total; each shift above the maximum is penalised by 1" in text
    assert "below the minimum" not in text and "beyond the maximum or missing from the minimum" not in text
    assert "every stretch of consecutive free days should last at least 2 days" in text
    assert "SaturdaySunday" not in text and "Saturday and Sunday" in text
    rules = text.split("Contract full")[1].split("\n")[0]
    assert " must " not in rules and "No nurse may" not in rules


def test_itc_unavailability_names_the_period_and_soft_rules_are_soft() -> None:
    text = _text("itc2007_small")
    assert "Course Math is unavailable in period 0 of day 0." in text
    assert "(period 0)" not in text
    assert "(a listed day without periods excludes all its periods)" in text


def test_dfjsp_states_speeds_half_open_time_and_one_space_between_sentences() -> None:
    text = _text("dfjsp_small")
    assert "already include each machine's speed" in text
    assert "[S, S + d)" in text and "may end exactly at a or start exactly at b" in text
    v4 = _text("dfjsp_small", "v4")
    assert not [line for line in v4.splitlines() if __import__("re").search(r"[a-z0-9][.;:][A-Z]", line)]
    lateness = [line for line in v4.splitlines() if "late" in line and "due date" in line]
    assert lateness and all("cost" not in line or "information" in line for line in lateness)
    assert any(p in v4 for p in ("does not count toward the goal", "not part of the goal", "does not change the goal"))


@pytest.mark.parametrize("name", ["ft06", "fjsp_small", "rcpsp_small", "mrcpsp_small", "dfjsp_small"])
def test_every_interval_family_states_the_half_open_time_model(name: str) -> None:
    text = _text(name)
    assert "half-open interval [S, S + d)" in text and "may start at exactly S + d" in text


def test_a_job_shop_with_time_windows_hears_nothing_of_due_dates_or_events(tmp_path: Path) -> None:
    spec = (ROOT / "examples" / "ft06.sched").read_text(encoding="utf-8").replace(
        "family jobshop", "family dfjsp").replace("minimize makespan", "hard time_window arrivals table\n  J2 3\nend\n"
                                                  "minimize makespan")
    instance = parse_instance_text(spec, file=str(tmp_path / "x.sched"))
    text = render(instance).text()
    assert "due date" not in text.lower() and "event log" not in text.lower()
    assert "release date" in text.lower()


def test_nsplib_without_costs_is_not_told_to_minimise_preference_costs() -> None:
    spec = (ROOT / "examples" / "nsplib_small.sched").read_text(encoding="utf-8")
    start = spec.index("assignment_cost")
    start = spec.rindex("\n", 0, start) + 1
    end = spec.index("end", spec.index("table", start)) + 3
    instance = parse_instance_text(spec[:start] + spec[end:])
    text = render(instance).text()
    assert "preference cost" not in text
    assert "nothing else is scored" in text


def test_a_user_family_renders_in_every_variant_without_templates(tmp_path: Path) -> None:
    (tmp_path / "workshop.sched").write_text(USER_FAMILY, encoding="utf-8")
    (tmp_path / "w1.sched").write_text(USER_INSTANCE, encoding="utf-8")
    instance = load_instance(tmp_path / "w1.sched")
    family = load_family("workshop", [tmp_path])
    texts = {v: render(instance, family, v, 7, [tmp_path]).text() for v in VARIANTS}
    assert "release date" in texts["v1"].lower() and "Job 2" in texts["v1"]
    assert texts["v3a"] != texts["v1"]  # the generic theme pools name the jobs
    for variant in VARIANTS:
        assert not audit_rendering_with(instance, family, variant, [tmp_path])


def audit_rendering_with(instance: Instance, family: object, variant: str, search: list[Path]) -> list[str]:
    rendering = render(instance, family, variant, 7, search)  # type: ignore[arg-type]
    return (audit.bijection(rendering, instance) + audit.wording(rendering, family)  # type: ignore[arg-type]
            + audit.contradictions(rendering, instance, family)  # type: ignore[arg-type]
            + audit.precedences(rendering, instance))


def test_template_errors_name_the_family_spec(tmp_path: Path) -> None:
    (tmp_path / "workshop.sched").write_text(USER_FAMILY.replace("plan [", "plan [nonsense "), encoding="utf-8")
    from schedc.core.diagnostics import SchedcError

    with pytest.raises(SchedcError) as caught:
        family = parse_family_text((tmp_path / "workshop.sched").read_text(), file=str(tmp_path / "workshop.sched"))
        render(parse_instance_text(USER_INSTANCE), family, "v1", 7, [tmp_path])
    assert "workshop.sched" in str(caught.value)


USER_FAMILY = """\
family workshop {
  title "Workshop with release dates (weighted tardiness)"
  structure interval
  objective penalty
  kinds [precedence_lag unary_no_overlap mode_choice time_window tardiness]
  answer "<job> step <step>: start=<start>"
  rename [J "Job " M "Machine "]
  roles [job "job" operation "step" machine "machine"]
  background \"\"\"
    A small workshop makes jobs, each a fixed sequence of steps on given machines.
  \"\"\"
}
"""

USER_INSTANCE = """\
instance w1 family workshop
resources table
  M1 unary
  M2 unary
end
jobs table
  J1 M1:3 M2:2
  J2 M2:4 M1:1
end
hard precedence_lag routes table
  J1.1 -> J1.2
  J2.1 -> J2.2
end
hard unary_no_overlap machines
hard mode_choice modes
hard time_window arrivals table
  J2 2
end
soft 1 tardiness lateness table
  J1 6
  J2 7 2
end
minimize penalty
"""


def test_the_wording_check_catches_the_old_inrc_and_itc_sentences() -> None:
    """Sentences of the old renderings, put in place of the new ones, fail the wording audit."""
    old = {"max_assignments": "Every nurse with contract full must have at most 4 shifts in total (soft: each shift "
                              "below the minimum or above the maximum costs 1).",
           "late_then_early": "No nurse with contract full may have shift L followed by shift E on consecutive days."}
    instance = load_instance(ROOT / "examples" / "inrc2010_small.sched")
    family = load_family("inrc2010")
    rendering = render(instance, family, "v1", 7)
    swapped = tuple(msgspec.structs.replace(r, text=(old[r.claim.constraint],)) if r.claim.constraint in old else r
                    for r in rendering.claims)
    problems = audit.wording(msgspec.structs.replace(rendering, claims=swapped), family)
    assert any("soft rule worded as hard" in p and "max_assignments" in p for p in problems)
    assert any("mentions a minimum the claim lacks" in p for p in problems)
    assert any("soft rule worded as hard" in p and "late_then_early" in p for p in problems)


def test_render_json_lists_one_claim_per_active_constraint_with_its_sentences() -> None:
    import json

    from typer.testing import CliRunner

    from schedc.cli import app

    result = CliRunner().invoke(app, ["render", str(ROOT / "examples" / "inrc2010_small.sched"), "--json"])
    assert result.exit_code == 0, result.output
    claims = json.loads(result.output)["claims"]
    by_id = {c["constraint"]: c for c in claims}
    assert len(claims) == len(by_id) == 8
    assert by_id["max_assignments"]["max"] == 4 and "min" not in by_id["max_assignments"]
    assert by_id["max_assignments"]["hard"] is False and by_id["max_assignments"]["weight"] == 1
    assert by_id["max_assignments"]["text"][0].startswith("Every nurse with contract full should have at most 4")
    assert by_id["cover"]["kind"] == "coverage" and len(by_id["cover"]["text"]) == 8  # the rule and 7 days


@pytest.mark.slow
def test_the_whole_audit(capsys: pytest.CaptureFixture[str]) -> None:
    """Every instance of the bundled and shared data, the examples and two generated shops × every variant ×
    three seeds; the totals are printed (run with ``-m slow -s``)."""
    keys = [("example", n) for n in EXAMPLES] + [("source", i) for i in range(len(SOURCES))] + [("generated", 0)]
    totals = {"instances": 0, "renderings": 0, "claims": 0, "sentences": 0, "probes": 0, "judgements": 0}
    problems: list[str] = []
    for key in keys:
        instance = instance_of(key)
        family = load_family(instance.family)
        totals["instances"] += 1
        for variant in VARIANTS:
            for seed in (7, 42, 1234):
                rendering = render(instance, family, variant, seed)
                totals["renderings"] += 1
                totals["claims"] += len(rendering.claims)
                totals["sentences"] += sum(len(r.text) for r in rendering.claims)
                problems += [f"{instance.name} {variant}/{seed}: {p}" for p in
                             audit.bijection(rendering, instance) + audit.wording(rendering, family)
                             + audit.contradictions(rendering, instance, family) + audit.surface(rendering)
                             + audit.names_audit(rendering, instance, family, has_own_theme(family.name))
                             + audit.precedences(rendering, instance)]
        solutions = audit.probes(instance, family, random.Random(11))
        made, found = audit.verdicts_disagree(render(instance, family, "v1"), instance, family, solutions)
        totals["probes"] += len(solutions)
        totals["judgements"] += made
        problems += [f"{instance.name}: {p}" for p in found]
    kinds = collections.Counter(p.split(": ", 2)[1].split(":")[0] for p in problems)
    with capsys.disabled():
        print("\nsemantic audit totals:", totals, "problems:", len(problems), dict(kinds))
    assert not problems, "\n".join(problems[:20])


def _guide_blocks() -> tuple[str, str]:
    """The family and the instance of the worked example in docs/language.md."""
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    section = text[text.index("## A new family from scratch"):]
    blocks = section.split("```\n")[1::2]
    family = next(b for b in blocks if b.startswith("family workshop"))
    instance = next(b for b in blocks if b.startswith("instance w1"))
    return family, instance


def test_the_worked_example_of_the_language_guide_runs(tmp_path: Path) -> None:
    """The guide's user family, written to files as the reader would: render v1–v4, solve in v4 names, check."""
    from typer.testing import CliRunner

    from schedc.cli import app

    family, instance = _guide_blocks()
    (tmp_path / "workshop.sched").write_text(family, encoding="utf-8")
    spec = tmp_path / "w1.sched"
    spec.write_text(instance, encoding="utf-8")
    runner = CliRunner()
    for variant in VARIANTS:
        result = runner.invoke(app, ["render", str(spec), "--variant", variant, "--variant-seed", "42"])
        assert result.exit_code == 0, result.output
    answer = tmp_path / "a.txt"
    solved = runner.invoke(app, ["solve", str(spec), "--variant", "v4", "--variant-seed", "42", "-o", str(answer)])
    assert solved.exit_code == 0, solved.output
    checked = runner.invoke(app, ["check", str(spec), str(answer), "--variant", "v4", "--variant-seed", "42", "--json"])
    assert checked.exit_code == 0, checked.output
    report = __import__("json").loads(checked.output)
    assert report["feasible"] and report["objective"] == 2
    v1 = runner.invoke(app, ["render", str(spec), "--variant", "v1"]).output
    guide = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    sentences = [s for s in v1.splitlines() if s.startswith(("Within each job", "No step of a job", "A job whose"))]
    assert sentences and all(s in guide for s in sentences)  # the guide quotes what the renderer writes


def test_a_soft_unavailability_is_stated_as_soft_with_its_weight() -> None:
    spec = (ROOT / "examples" / "itc2007_small.sched").read_text(encoding="utf-8")
    assert "hard unavailability" in spec
    instance = parse_instance_text(spec.replace("hard unavailability", "soft 3 unavailability"))
    rendering = render(instance, variant="v1")
    record = next(r for r in rendering.claims if r.claim.kind == "unavailability")
    assert record.text[0].startswith("No course should be given a lecture in a period listed as unavailable")
    assert "is penalised by 3" in record.text[0]
    assert not audit.wording(rendering, load_family("itc2007"))


def test_a_resource_of_capacity_one_is_one_unit() -> None:
    from schedc.render.templates import TemplateSet

    words = {"unit": "day", "units": "days", "resource": "crew", "resources": "crews", "activity": "scene",
             "activities": "scenes"}
    for family in ("rcpsp", "mrcpsp"):
        templates = TemplateSet(family)
        for index in range(len(templates.paraphrases("resources")[1])):
            _, text = templates.render("resources", index, {"w": words, "theme": None, "renewable": [
                {"name": "Stunt performers", "capacity": 1}], "nonrenewable": [{"name": "Permits", "budget": 1}]})
            assert not audit.PLURAL_AFTER_ONE.search(text), text


def test_the_built_in_job_shop_accepts_release_dates(tmp_path: Path) -> None:
    from schedc.backends.cpsat import solve

    spec = (ROOT / "examples" / "ft06.sched").read_text(encoding="utf-8").replace(
        "minimize makespan", "hard time_window arrivals table\n  J2 3\n  J5 4\nend\nminimize makespan")
    instance = parse_instance_text(spec)
    family = load_family("jobshop")
    text = render(instance, family, "v4", 5).text()
    assert "release date" in text.lower()
    result = solve(instance, family)
    verifier = Verifier(instance, family, render(instance, family, "v4", 5).names)
    report = verifier.check(verifier.write(result.solution))
    assert report.feasible and report.objective == result.objective
