"""Names that can't be misread (issue 27, "What to build" 4 and 5): regressions and the audit sweep.

A careful reader answering a v4 prompt copies names "exactly as written": within a class the role
word is part of every name or of none; an id is shown in its own class's namespace; no raw file
description sits next to a themed name; no sentence is said twice in a row; a family without a
theme of its own is not placed in a made-up setting, nor given names that read as tasks, roles or
things; articles agree with the words after them; and ``schedc check`` says when an answer is in a
themed rendering's names but was read without ``--variant``. The sweep at the end runs the audit
(``tests/claim_audit.py``) over every built-in family's example, one imported instance per source
format, and the two user families of ``tests/data/user_families`` (a bakery line and operating
rooms, built from built-in kinds), in every variant.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from schedc.cli import app
from schedc.core.solution import Solution
from schedc.importers import import_paths
from schedc.ir import Family, Instance
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.render import VARIANTS, Rendering, display_names, render
from schedc.render.templates import agree_articles, article
from schedc.render.themes import has_own_theme, load_domains, vocabulary
from schedc.verify.verifier import Verifier
from tests import claim_audit as audit
from tests.conftest import DATA, ROOT

USER = DATA / "user_families"
SEEDS = (1, 2, 3, 7, 42)
runner = CliRunner()


@cache
def imported(fmt: str, part: str) -> Instance:
    return import_paths(fmt, [DATA / part])[0]


def user(name: str, spec: str) -> tuple[Instance, Family, list[Path]]:
    folder = USER / name
    instance = load_instance(folder / spec, [folder])
    return instance, load_family(instance.family, [folder]), [folder]


# ---------------------------------------------------------------------------- one class, one form


@pytest.mark.parametrize(("fmt", "part", "role"), [("jsplib", "jsplib/ta01.txt", "job"),  # 15 jobs
                                                   ("itc2007", "itc2007/comp01.ctt", "course"),  # 30 courses
                                                   ("psplib-sm", "psplib-sm/j301_1.sm", "activity")])  # 30
def test_a_spent_pool_goes_on_without_the_role_word(fmt: str, part: str, role: str) -> None:
    """la07's "Work order Saldsel" next to "Pewter valves": once a pool runs out, the names went on as
    "<role word> <tag>", and a reader who wrote ``Saldsel step 1`` lost those lines as unknown."""
    instance = imported(fmt, part)
    family = load_family(instance.family)
    for seed in SEEDS:
        rendering = render(instance, family, "v4", seed)
        word = {**vocabulary(family, None), **next(d for d in load_domains(family.name)
                                                   if d.id == rendering.theme).words}[role]
        shown = [n for r, members in audit.named_classes(rendering, instance, family).items() if r == role
                 for _, n in members]
        assert len(shown) >= 15
        assert not [n for n in shown if audit.role_word_pattern(word).search(n)], (seed, word)
        assert not audit.name_consistency(rendering, instance, family)


def test_no_pool_name_carries_the_word_of_a_role_of_its_domain() -> None:
    """"Milling machine" next to "Lathe" (the word "machine" in one name of a class), "Groundwater
    stability study" among studies, "Algebra field course" among courses: never, in any built-in theme."""
    problems = []
    for path in sorted((ROOT / "templates" / "themes").glob("*.toml")):
        family = load_family(path.stem) if path.stem != "generic" else None
        for domain in load_domains(path.stem):
            words = vocabulary(family, domain) if family is not None else {}
            resource = words.get("resource", "resource")
            for role, pool in domain.pools.items():
                for other in domain.pools:
                    word = {"renewable": resource, "nonrenewable": resource}.get(other) or words.get(other, other)
                    pattern = audit.role_word_pattern(word)
                    problems += [f"{path.stem}/{domain.id}.{role}: {n!r} carries {word!r}" for n in pool
                                 if pattern.search(n)]
    assert not problems, "\n".join(problems[:10])


# ---------------------------------------------------------------------------- namespaces and annotations


def test_an_inrc_contract_is_shown_as_itself_and_without_its_file_description() -> None:
    """INRC contract ``3`` and employee ``3`` share an id: the contract heading read "Under contract
    Maximilian Umarov (night)" — the employee's name and the file's description beside a themed name."""
    instance = imported("inrc2010", "inrc2010/sprint01.xml")
    family = load_family("inrc2010")
    for seed in SEEDS:
        for variant in ("v3a", "v4"):
            rendering = render(instance, family, variant, seed)
            statements = {s.id: s.text for s in rendering.statements}
            for c in (e for e in instance.entities if e.cls == "contract"):
                text = statements[f"contract:{c.name}"]
                assert rendering.names[f"contract:{c.name}"] in text
                assert rendering.names[f"employee:{c.name}"] not in text
                assert str(c.attrs["description"]) not in text.replace(rendering.names[f"contract:{c.name}"], "")
            for s in (e for e in instance.entities if e.cls == "shift"):
                assert f"({s.attrs['description']})" not in statements[f"shift:{s.name}"]
                assert f"described as {s.attrs['description']}" not in statements[f"shift:{s.name}"]
            assert not audit.namespaces(rendering, instance, family)
    canonical = render(instance, family, "v1").text()  # the plain rendering keeps the source's words
    assert "Contract 0 (fulltime)" in canonical and "Shift E (Early)" in canonical


# ---------------------------------------------------------------------------- sentences said once


def test_two_rules_with_one_sentence_are_stated_once() -> None:
    """sprint03/long02: "Each listed cost is added, times 1, …" twice in a row (day-off and shift-off
    requests, two assignment-cost rules that read the same) — once now, standing for both claims."""
    instance = imported("inrc2010", "inrc2010/sprint01.xml")
    family = load_family("inrc2010")
    for variant in VARIANTS:
        rendering = render(instance, family, variant, 42)
        claims = {r.claim.constraint: r for r in rendering.claims}
        sentence = claims["day_off_requests"].text[0]
        assert claims["shift_off_requests"].text[0] == sentence
        assert rendering.text().count(sentence) == 1, variant
        assert not audit.repeated_sentences(rendering)
        assert not audit.bijection(rendering, instance)


ROSTER = """\
family callcentre {
  title "Call-centre rostering"
  structure slot
  objective penalty
  kinds [one_per_slot assignment_cost]
  class agent ()
  class shift ()
  decision agent=agent value=shift grain=day
  answer "<day>,<agent>,<value>"
  roles [agent "agent" shift "shift"]
}
"""

ROSTER_INSTANCE = """\
instance c1 family callcentre
calendar days=3 periods_per_day=1
agent () table
  A1 A2
end
shift () table
  Early Late
end
hard one_per_slot one_a_day
soft 2 assignment_cost wishes table
  A1 0 Early 3
end
soft 2 assignment_cost vetoes table
  A2 1 Late 4
end
minimize penalty
"""


def test_two_rule_statements_that_read_the_same_become_one(tmp_path: Path) -> None:
    """In a plan with a ``rules`` category (every user family), two rules whose sentences coincide
    gave two identical statements; now one statement states both (its ledger claims both rules)."""
    (tmp_path / "callcentre.sched").write_text(ROSTER, encoding="utf-8")
    (tmp_path / "c1.sched").write_text(ROSTER_INSTANCE, encoding="utf-8")
    instance = load_instance(tmp_path / "c1.sched", [tmp_path])
    family = load_family("callcentre", [tmp_path])
    for variant in VARIANTS:
        rendering = render(instance, family, variant, 7, [tmp_path])
        rules = [s for s in rendering.statements if s.category == "rules"]
        texts = [s.text for s in rules]
        assert len(texts) == len(set(texts)), texts
        merged = next(s for s in rules if ("rule", "wishes") in s.facts)
        assert ("rule", "vetoes") in merged.facts
        assert not audit.repeated_sentences(rendering) and not audit.bijection(rendering, instance)


# ---------------------------------------------------------------------------- a family without a theme


@pytest.mark.parametrize(("name", "spec"), [("bakery", "b1.sched"), ("surgery", "s1.sched")])
def test_a_user_family_gets_no_setting_and_no_domain_words_as_names(name: str, spec: str) -> None:
    """"Bakery line scheduling" was placed in "a regional service depot" and "a planning office", its
    ovens named "Lathe"; a surgery was named "Cleaning" or "Inspection" and its surgeons "Engineers"."""
    instance, family, search = user(name, spec)
    assert not has_own_theme(family.name, search)
    for seed in SEEDS:
        rendering = render(instance, family, "v4", seed, search)
        assert "setting" not in rendering.user_prompt().lower()
        assert not audit.theme_coherence(rendering, instance, family, own_theme=False)
        for domain in load_domains(family.name, search):
            assert not domain.setting


def test_the_generic_pools_read_as_names_in_any_domain() -> None:
    """No generic pool name is a word of a built-in theme (a thing, a task, a role) or a gerund."""
    lexicon = audit.domain_lexicon()
    bad = [n for d in load_domains("generic") for role, pool in d.pools.items() if role != "agent" for n in pool
           if any(w in lexicon or w.endswith("ing") for w in n.casefold().split())]
    assert not bad, bad[:10]


def test_a_surgery_family_calls_its_rooms_and_surgeons_by_its_resource_word() -> None:
    """A family that names its resources but not its machines: unary resources (operating rooms,
    surgeons) were "machines" in every rule sentence."""
    instance, family, search = user("surgery", "s1.sched")
    for variant in VARIANTS:
        text = render(instance, family, variant, 7, search).text()
        assert "machine" not in text.lower(), variant
        assert "may process at most one surgery at a time" in text or variant in ("v3b", "v4")


# ---------------------------------------------------------------------------- articles


def test_articles_agree_with_the_role_words() -> None:
    assert article("oven") == "an oven" and article("unit") == "a unit" and article("hour") == "an hour"
    assert article("SUV") == "an SUV" and article("batch") == "a batch" and article("operating room") == \
        "an operating room"
    assert agree_articles("No step may run on a oven; An order or a order.", ["oven", "order"]) == \
        "No step may run on an oven; An order or an order."
    assert agree_articles("A Orion step", ["order"]) == "A Orion step"  # only role words are touched


def test_no_a_before_a_vowel_role_word_in_a_rendering() -> None:
    """"No step of a order may start" (parallel machines, themed as a bakery's orders)."""
    instance = load_instance(ROOT / "examples" / "parallel_machines_small.sched")
    family = load_family(instance.family)
    for variant in VARIANTS:
        for seed in SEEDS:
            rendering = render(instance, family, variant, seed)
            assert not audit.articles(rendering), (variant, seed)
    bakery, family, search = user("bakery", "b1.sched")
    for variant in VARIANTS:
        assert not audit.articles(render(bakery, family, variant, 7, search))


# ---------------------------------------------------------------------------- check: the hint


def _themed_answer(instance: Instance, seed: int) -> str:
    """A complete answer (every step at its job's position, no care for feasibility) in the v4 names."""
    verifier = Verifier(instance, None, display_names(instance, variant="v4", seed=seed))
    starts = {a.name: 10 * i for i, a in enumerate(instance.activities)}
    return verifier.write(Solution(starts=starts, modes={}))


def test_check_without_variant_says_the_names_are_a_themed_renderings(tmp_path: Path) -> None:
    """36 × "unknown job 'Velvet Compass'", coverage 0 % and no hint: now one hint line names the flag."""
    spec = ROOT / "examples" / "ft06.sched"
    instance = load_instance(spec)
    for seed in (42, 43):
        answer = tmp_path / f"answer{seed}.txt"
        answer.write_text(_themed_answer(instance, seed), encoding="utf-8")
        result = runner.invoke(app, ["check", str(spec), str(answer)])
        hints = [line for line in result.output.splitlines() if line.startswith("hint:")]
        assert len(hints) == 1 and f"--variant v4 --variant-seed {seed}" in hints[0], result.output
        report = json.loads(runner.invoke(app, ["check", str(spec), str(answer), "--json"]).output)
        assert f"--variant-seed {seed}" in report["naming_hint"] and report["coverage"] == 0.0
        good = runner.invoke(app, ["check", str(spec), str(answer), "--variant", "v4", "--variant-seed", str(seed)])
        assert "hint:" not in good.output and "coverage 100.0%" in good.output


def test_check_gives_no_hint_for_names_no_rendering_shows(tmp_path: Path) -> None:
    spec = ROOT / "examples" / "ft06.sched"
    instance = load_instance(spec)
    text = _themed_answer(instance, 42)
    for shown in set(display_names(instance, variant="v4", seed=42).values()):
        if " step " not in shown:
            text = text.replace(shown, "Qqq " + shown[::-1])
    answer = tmp_path / "answer.txt"
    answer.write_text(text, encoding="utf-8")
    report = json.loads(runner.invoke(app, ["check", str(spec), str(answer), "--json"]).output)
    assert report["naming_hint"] is None and report["issues"][0]["kind"] == "unknown_entity"
    canonical = Verifier(instance).write(Solution(starts={a.name: 0 for a in instance.activities}, modes={}))
    answer.write_text(canonical, encoding="utf-8")
    assert json.loads(runner.invoke(app, ["check", str(spec), str(answer), "--json"]).output)["naming_hint"] is None


def test_check_names_the_theme_pools_for_a_seed_it_does_not_try(tmp_path: Path) -> None:
    from schedc.pipeline import check_answer
    from schedc.pipeline.hints import SEEDS as TRIED

    spec = ROOT / "examples" / "ft06.sched"
    instance = load_instance(spec)
    seed = next(s for s in range(1000, 2000) if s not in TRIED)
    report = check_answer(spec, _themed_answer(instance, seed))
    assert report.naming_hint is not None and "theme pools" in report.naming_hint


def test_batch_reports_carry_the_hint(tmp_path: Path) -> None:
    spec = ROOT / "examples" / "ft06.sched"
    batch = tmp_path / "b.jsonl"
    batch.write_text(json.dumps({"id": "a", "answer": _themed_answer(load_instance(spec), 42)}) + "\n",
                     encoding="utf-8")
    result = runner.invoke(app, ["check", str(spec), "--batch", str(batch)])
    assert "--variant-seed 42" in json.loads(result.output.splitlines()[0])["naming_hint"]


# ---------------------------------------------------------------------------- the audit catches the old defects


def _swap(rendering: Rendering, old: str, new: str) -> Rendering:
    statements = tuple(msgspec.structs.replace(s, text=s.text.replace(old, new)) for s in rendering.statements)
    return msgspec.structs.replace(rendering, statements=statements)


def test_the_name_audit_catches_a_role_word_in_some_names_only() -> None:
    instance = load_instance(ROOT / "examples" / "ft06.sched")
    family = load_family("jobshop")
    rendering = render(instance, family, "v4", 42)
    job = instance.activities[0].job
    names = {**rendering.names, job: f"{audit.role_words_of(rendering, family)['job'].capitalize()} Saldsel"}
    broken = msgspec.structs.replace(rendering, names=names)
    assert any("carry the role word" in p for p in audit.name_consistency(broken, instance, family))


def test_the_namespace_audit_catches_a_contract_shown_as_an_employee() -> None:
    instance = imported("inrc2010", "inrc2010/sprint01.xml")
    family = load_family("inrc2010")
    rendering = render(instance, family, "v4", 42)
    broken = _swap(rendering, f"{rendering.names['contract:3']} ", f"{rendering.names['employee:3']} ")
    assert any("as the employee" in p for p in audit.namespaces(broken, instance, family))


def test_the_repeat_audit_catches_a_sentence_said_twice_in_a_row() -> None:
    instance = imported("inrc2010", "inrc2010/sprint01.xml")
    rendering = render(instance, load_family("inrc2010"), "v4", 42)
    sentence = next(r.text[0] for r in rendering.claims if r.claim.constraint == "day_off_requests")
    assert not audit.repeated_sentences(rendering)
    assert audit.repeated_sentences(_swap(rendering, sentence, f"{sentence} {sentence}"))


def test_the_coherence_and_article_audits_catch_the_old_bakery_text() -> None:
    instance, family, search = user("bakery", "b1.sched")
    rendering = render(instance, family, "v4", 7, search)
    first = rendering.statements[0]
    placed = msgspec.structs.replace(rendering, statements=(msgspec.structs.replace(
        first, text="The setting is a regional service depot. " + first.text), *rendering.statements[1:]))
    assert audit.theme_coherence(placed, instance, family, own_theme=False)
    renamed = msgspec.structs.replace(rendering, names={**rendering.names, "B1": "Cleaning", "O1": "Lathe"})
    assert len(audit.theme_coherence(renamed, instance, family, own_theme=False)) >= 2
    assert audit.articles(_swap(rendering, "an oven", "a oven")) or audit.articles(
        msgspec.structs.replace(rendering, background=rendering.background + " Each stage uses a oven."))


# ---------------------------------------------------------------------------- the sweep


def sweep_cases() -> list[pytest.param]:
    out = [pytest.param("example", p.stem, id=f"example:{p.stem}") for p in sorted((ROOT / "examples").glob("*.sched"))]
    out += [pytest.param("source", f"{fmt}|{part}", id=f"source:{part}") for fmt, part in
            (("jsplib", "jsplib/ta01.txt"), ("fjsp", "fjsp/brandimarte/Mk01.fjs"), ("psplib-sm", "psplib-sm/j301_1.sm"),
             ("psplib-mm", "psplib-mm/j102_2.mm"), ("itc2007", "itc2007/comp01.ctt"),
             ("inrc2010", "inrc2010/sprint01.xml"))]
    out += [pytest.param("user", f"{n}|{s}", id=f"user:{n}") for n, s in (("bakery", "b1.sched"),
                                                                          ("surgery", "s1.sched"))]
    return out


def sweep_instance(kind: str, key: str) -> tuple[Instance, Family, list[Path]]:
    if kind == "example":
        instance = load_instance(ROOT / "examples" / f"{key}.sched")
        return instance, load_family(instance.family), []
    first, second = key.split("|")
    if kind == "source":
        if not (DATA / second).exists():
            pytest.skip(f"{second} is not bundled")
        instance = imported(first, second)
        return instance, load_family(instance.family), []
    return user(first, second)


@pytest.mark.parametrize(("kind", "key"), sweep_cases())
def test_names_namespaces_sentences_settings_and_articles_in_every_variant(kind: str, key: str) -> None:
    instance, family, search = sweep_instance(kind, key)
    own = has_own_theme(family.name, search)
    problems = []
    for variant in VARIANTS:
        for seed in (7, 42):
            rendering = render(instance, family, variant, seed, search)
            problems += [f"{variant}/{seed}: {p}" for p in audit.names_audit(rendering, instance, family, own)]
    assert not problems, "\n".join(problems[:10])
