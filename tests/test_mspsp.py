"""Multi-skill project scheduling (issue 28): the ``skill_requirements`` kind and the ``mspsp`` family.

The kind's ``check`` against its formal meaning on hand-built answers (an uncovered skill unit, a
worker on two activities at once, a worker who cannot serve two units of one activity, an unknown
worker), the semantic pass's refusals, both backends' optima on the toy (hand-computed: 11, and 8
without the rule) with solve → check round trips in every variant's names, fixed-decision verdicts of
both backends against ``check``, the iMOPSE importer on a hand-written ``.def`` file (and on the public
files when a copy of the repository is at hand), and the prompt's statement of the rule and of the answer
format.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from schedc import api
from schedc.backends import cpsat
from schedc.backends import pyomo as milp
from schedc.backends.cpsat.solve import fixed_verdict as cpsat_verdict
from schedc.backends.pyomo.solve import fixed_verdict as milp_verdict
from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.importers import import_paths
from schedc.importers.mspsp import read_def
from schedc.ir import Instance
from schedc.kinds import SkillRequirements
from schedc.lang.family import load_family
from schedc.lang.parser import parse_instance_text
from schedc.verify.evaluate import evaluate, make_context
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "mspsp_small.sched"
DEF = ROOT / "tests" / "data" / "mspsp" / "tiny_4_3.def"
#: The iMOPSE repository as `fetch` brings it (not part of the test data: the repository states no licence).
IMOPSE = Path("/work/.mirror/imopse+iMOPSE/repo")

# The toy's answer at its optimum (11): A1 needs both welders, A5 both wirers, so W1 serves A1, A5 and A3 in turn.
GOOD = """\
Activity 1: start=0, workers=Worker 1, Worker 2
Activity 2: start=0, workers=Worker 4
Activity 3: start=6, workers=Worker 1, Worker 2
Activity 4: start=6, workers=Worker 3, Worker 4
Activity 5: start=3, workers=Worker 1, Worker 3
Activity 6: start=10, workers=Worker 2, Worker 4
"""


def instance() -> Instance:
    return api.load(EXAMPLE)


def answer(**changes: str) -> str:
    """GOOD with some activities' lines replaced (``A3="start=6, workers=Worker 1"``)."""
    lines = GOOD.splitlines()
    for key, rest in changes.items():
        number = int(key[1:])
        lines[number - 1] = f"Activity {number}: {rest}"
    return "\n".join(lines) + "\n"


def teams_violations(report) -> list:  # type: ignore[no-untyped-def]
    return [v for v in report.violations if v.kind == "skill_requirements"]


# ============================================================================ check


def test_the_optimal_answer_is_feasible() -> None:
    report = api.check(instance(), GOOD)
    assert report.feasible and report.objective == 11 and not teams_violations(report)


def test_an_uncovered_skill_unit_is_one_violation_per_unit() -> None:
    # A1 needs 2 welders; with Worker 1 alone one unit is uncovered
    report = api.check(instance(), answer(A1="start=0, workers=Worker 1"))
    found = teams_violations(report)
    assert len(found) == 1 and found[0].amount == 1
    assert "Activity 1 needs 2 workers with the skill welding" in found[0].message
    assert "unit 2 of 2 has no worker" in found[0].message
    # with nobody, both units are uncovered: two violations
    report = api.check(instance(), answer(A1="start=0, workers=-"))
    assert [v.message[-25:] for v in teams_violations(report)] == ["unit 1 of 2 has no worker",
                                                                   "unit 2 of 2 has no worker"]


def test_a_worker_serves_one_skill_of_an_activity() -> None:
    # A3 needs welding and wiring; Worker 1 has both but fills only one of them
    report = api.check(instance(), answer(A3="start=6, workers=Worker 1"))
    found = teams_violations(report)
    assert len(found) == 1 and "Activity 3" in found[0].message
    # Worker 2 (welding) and Worker 1 (welding, wiring): a matching covers both units, whatever the order written
    report = api.check(instance(), answer(A3="start=6, workers=Worker 1, Worker 2"))
    assert not teams_violations(report)
    report = api.check(instance(), answer(A3="start=6, workers=Worker 2, Worker 1"))
    assert not teams_violations(report)


def test_a_worker_without_the_skill_does_not_count() -> None:
    # Worker 3 (wiring, painting) is free during A1 but has no welding: one of A1's two units stays uncovered
    report = api.check(instance(), answer(A1="start=0, workers=Worker 1, Worker 3"))
    assert len(teams_violations(report)) == 1


def test_a_double_booked_worker_is_one_violation_per_overlapping_pair() -> None:
    # Worker 1 on A5 [3, 6) and on A3 [5, 9): overlap 1 (A3 moved one unit earlier also breaks nothing else)
    report = api.check(instance(), answer(A3="start=5, workers=Worker 1, Worker 2"))
    found = teams_violations(report)
    assert len(found) == 1 and found[0].amount == 1
    assert found[0].message == ("Worker 1 works on Activity 5 [3, 6) and on Activity 3 [5, 9) at the same time "
                                "(1 time unit)")
    # touching intervals do not overlap
    assert not teams_violations(api.check(instance(), GOOD))


def test_an_unknown_worker_is_a_structural_issue_with_its_line_and_column() -> None:
    report = api.check(instance(), answer(A2="start=0, workers=Worker 4, Worker 9"))
    unknown = [i for i in report.issues if i.kind == "unknown_entity"]
    assert len(unknown) == 1 and unknown[0].line == 2 and unknown[0].counted
    assert unknown[0].message == "unknown worker 'Worker 9' (column 40)"
    assert not report.feasible
    assert not teams_violations(report)  # the known worker still covers A2's unit


def test_check_agrees_with_the_formal_meaning_on_random_teams() -> None:
    """For random teams and starts, the violations are the uncovered units (brute force over assignments of
    members to units) plus the overlaps of each worker's activities."""
    inst = instance()
    family = load_family("mspsp")
    ctx = make_context(inst, family)
    rule = next(c for c in inst.constraints if isinstance(c, SkillRequirements))
    skills = {e.name: set(e.attrs["skills"]) for e in inst.entities}
    durations = {a.name: a.modes[0].duration for a in inst.activities}
    rng = random.Random(7)
    for _ in range(200):
        starts = {a: rng.randrange(8) for a in durations}
        teams = {a: tuple(rng.sample(sorted(skills), rng.randint(0, 3))) for a in durations}
        expected = 0
        for a in durations:
            units = [r.skill for r in rule.needs if r.activity == a for _ in range(r.count)]
            expected += len(units) - _most_filled(units, list(teams[a]), skills)
        for w in skills:
            on = [a for a in durations if w in teams[a]]
            expected += sum(max(0, min(starts[a] + durations[a], starts[b] + durations[b]) - max(starts[a], starts[b]))
                            for i, a in enumerate(on) for b in on[i + 1:])
        found = evaluate(ctx, Solution(starts=starts, workers=teams))
        assert found.hard_amounts.get("teams", 0) == expected


def _most_filled(units: list[str], team: list[str], skills: dict[str, set[str]]) -> int:
    if not units:
        return 0
    rest = _most_filled(units[1:], team, skills)
    return max([rest, *(1 + _most_filled(units[1:], [m for m in team if m != w], skills)
                        for w in team if units[0] in skills[w])])


# ============================================================================ the semantic pass


def _toy_with(rows: str) -> str:
    text = EXAMPLE.read_text(encoding="utf-8")
    head, _, tail = text.partition("hard skill_requirements teams workers=worker table\n")
    return head + "hard skill_requirements teams workers=worker table\n" + rows + tail[tail.index("end\n"):]


@pytest.mark.parametrize(("rows", "code", "words"), [
    ("  A1 welding 3\n", "E206", "needs 3 workers with the skill 'welding', but only 2"),
    ("  A9 welding 1\n", "E202", "undefined activity 'A9'"),
    # two welders and one of them the only other wirer: 2 welding + 1 wiring need three distinct workers of two
    ("  A1 welding 2\n  A1 wiring 2\n", "E206", "no team of the workers of the rule covers every skill unit"),
    ("  A1 welding 0\n", "E1", "must be at least 1"),
])
def test_impossible_requirements_are_refused(rows: str, code: str, words: str) -> None:
    with pytest.raises(SchedcError) as exc:
        parse_instance_text(_toy_with(rows), "toy.sched", search=[ROOT / "examples"])
    assert any(d.code.startswith(code) and words in d.message for d in exc.value.diagnostics), exc.value


def test_the_soft_form_is_refused_where_it_is_written() -> None:
    text = EXAMPLE.read_text(encoding="utf-8").replace("hard skill_requirements", "soft 2 skill_requirements")
    with pytest.raises(SchedcError) as exc:
        parse_instance_text(text, "toy.sched")
    assert any(d.code == "E213" for d in exc.value.diagnostics)


# ============================================================================ backends


@pytest.mark.parametrize("backend", ["cpsat", "pyomo"])
def test_both_backends_find_the_hand_computed_optimum_and_check_accepts_it(backend: str) -> None:
    """Both welders on A1, both wirers on A5, and A3 needs one of each: A5 and A3 cannot overlap (W1 or W3
    is in both), so the makespan is A1 (3) + A5 and A3 in turn (7) + A6 (1) = 11; without the rule, 8."""
    solved = api.solve(instance(), backend=backend, explain=None)
    assert (solved.status, solved.objective) == ("optimal", 11)
    report = api.check(instance(), solved.answer)
    assert report.feasible and report.objective == 11
    free = parse_instance_text(EXAMPLE.read_text(encoding="utf-8").split("# ACTIVITY SKILL COUNT")[0]
                               + "minimize makespan\n", "free.sched")
    assert api.solve(free, backend=backend, explain=None).objective == 8


@pytest.mark.parametrize("variant", ["v1", "v2", "v3a", "v3b", "v4"])
def test_solve_then_check_in_every_variant(variant: str) -> None:
    solved = api.solve(instance(), variant=variant, variant_seed=42, explain=None)
    report = api.check(instance(), solved.answer, variant=variant, seed=42)
    assert report.feasible and report.objective == 11


def test_fixed_decisions_get_the_verdict_of_check_in_both_backends() -> None:
    """Random teams (sometimes with members who have none of the skills) and starts: CP-SAT's and the MILP's
    verdict with every decision fixed equals ``check``'s."""
    inst = instance()
    family = load_family("mspsp")
    ctx = make_context(inst, family)
    workers = [e.name for e in inst.entities]
    rng = random.Random(3)
    seen = set()
    for _ in range(12):
        starts = {a.name: rng.randrange(12) for a in inst.activities}
        teams = {a.name: tuple(rng.sample(workers, rng.randint(1, 3))) for a in inst.activities}
        solution = Solution(starts=starts, workers=teams)
        feasible = evaluate(ctx, solution).feasible
        seen.add(feasible)
        assert cpsat_verdict(inst, family, solution)[0] == feasible
        assert milp_verdict(inst, family, solution)[0] == feasible
    base = {"A1": ("W1", "W2"), "A2": ("W4",), "A3": ("W1", "W2"), "A4": ("W3", "W4"), "A5": ("W1", "W3"),
            "A6": ("W2", "W4")}
    starts = {f"A{i}": s for i, s in enumerate((0, 0, 6, 6, 3, 10), start=1)}
    # W2 (welding) is an extra member of A5 (wiring), free then: feasible; W4 (painting) an extra member of A3
    # [6, 10) while it paints on A4 [6, 8): infeasible — members without a required skill still occupy a worker
    for teams, expected in ((base, True), ({**base, "A5": ("W1", "W3", "W2")}, True),
                            ({**base, "A3": ("W1", "W2", "W4")}, False)):
        solution = Solution(starts=starts, workers=teams)
        assert evaluate(ctx, solution).feasible == expected
        assert cpsat_verdict(inst, family, solution)[0] == expected
        assert milp_verdict(inst, family, solution)[0] == expected
    assert seen == {True, False} or seen == {False}


def test_every_backend_declares_the_kind() -> None:
    assert "skill_requirements" in cpsat.SUPPORTED_KINDS and "skill_requirements" in milp.SUPPORTED_KINDS


# ============================================================================ importer


def test_the_importer_reads_a_def_file() -> None:
    """tiny_4_3.def (hand-written in the iMOPSE layout): 4 tasks, 3 resources; W2 has Q1 at level 2, so it
    lists Q1L0..Q1L2; task 3 needs Q1 at level 2 (only W2), task 4 waits for tasks 2 and 3."""
    data = read_def(DEF)
    assert [t.predecessors for t in data.tasks] == [(), (), (), (2, 3)]
    inst = import_paths("mspsp", [DEF])[0]
    assert inst.family == "mspsp" and inst.name == "tiny_4_3"
    skills = {e.name: e.attrs["skills"] for e in inst.entities}
    assert skills == {"W1": ("Q0L0", "Q0L1", "Q1L0"), "W2": ("Q1L0", "Q1L1", "Q1L2"), "W3": ("Q0L0",)}
    rule = next(c for c in inst.constraints if isinstance(c, SkillRequirements))
    assert [(r.activity, r.skill, r.count) for r in rule.needs] == [
        ("A1", "Q0L1", 1), ("A2", "Q0L0", 1), ("A3", "Q1L2", 1), ("A4", "Q1L0", 1)]
    # A1 (5) needs W1 (only Q0 at level 1); A3 (4) needs W2 and then A4 (3, after A2 and A3) W1 or W2: 7 + ...
    # A2 (6) by W3 in parallel; A4 starts at max(6, 4) = 6 and ends at 9
    for backend in ("cpsat", "pyomo"):
        solved = api.solve(inst, backend=backend, explain=None)
        assert (solved.status, solved.objective) == ("optimal", 9)
        assert api.check(inst, solved.answer).feasible


@pytest.mark.parametrize(("text", "code"), [
    ("Tasks: 1\nResources: 1\nResourceID\n1 1.0 Q0: 0\n", "I803"),
    ("Tasks: 1\nResources: 1\nResourceID\n1 1.0 Q0: 0\nTaskID\n1 5 Q0: 0 1\n", "I806"),
    ("Tasks: 1\nResources: 1\nResourceID\n2 1.0 Q0: 0\nTaskID\n1 5 Q0: 0\n", "I805"),
    ("Resources: 1\nResourceID\n1 1.0 Q0: 0\nTaskID\n1 5 Q0: 0\n", "I802"),
])
def test_malformed_def_files_are_clear_errors(tmp_path: Path, text: str, code: str) -> None:
    path = tmp_path / "bad.def"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SchedcError) as exc:
        read_def(path)
    assert exc.value.diagnostics[0].code == code


def test_the_public_small_instances_solve_alike_in_both_backends(tmp_path: Path) -> None:
    """iMOPSE's Small set (10 and 15 tasks), read from a copy of the repository when one is at hand."""
    folder = IMOPSE / "configurations" / "problems" / "MSRCPSP" / "Small"
    if not IMOPSE.exists():
        pytest.skip("no copy of the iMOPSE repository")
    import subprocess

    names = ["10_3_5_3.def", "10_7_10_7.def", "15_9_12_9.def"]
    for name in names:
        text = subprocess.run(["git", "-C", str(IMOPSE), "show", f"HEAD:{folder.relative_to(IMOPSE)}/{name}"],
                              capture_output=True, text=True, check=True).stdout
        (tmp_path / name).write_text(text, encoding="utf-8")
    expected = {"10_3_5_3": 93, "10_7_10_7": 104, "15_9_12_9": 90}  # optimal on both backends (see the report)
    for inst in import_paths("mspsp", [tmp_path / n for n in names]):
        for backend in ("cpsat", "pyomo"):
            solved = api.solve(inst, backend=backend, time_limit=60, explain=None)
            assert (solved.status, solved.objective) == ("optimal", expected[inst.name])
            assert api.check(inst, solved.answer).feasible


# ============================================================================ rendering


def test_the_prompt_states_skills_requirements_and_the_answer_format() -> None:
    text = api.render(instance(), variant="v1").text
    assert "There are 4 workers." in text
    assert "Worker 1: skills welding and wiring." in text
    assert "Activity 1 needs 2 workers with the skill welding" in text
    assert "Activity 3 needs 1 worker with the skill welding and 1 worker with the skill wiring" in text
    assert "A worker counts for one skill of an activity only" in text
    assert "may work on at most one activity at a time" in text
    assert "<activity>: start=<start>, workers=<workers>" in text
    assert "separated by commas" in text


def test_every_variant_states_every_requirement() -> None:
    inst = instance()
    rule = next(c for c in inst.constraints if isinstance(c, SkillRequirements))
    for variant in ("v2", "v3a", "v3b", "v4"):
        prompt = api.render(inst, variant=variant)
        sentence = next(line for line in prompt.text.splitlines() if " needs 2 " in line)
        for r in rule.needs:
            assert f"{prompt.names.get(r.activity, r.activity)} needs" in sentence, (variant, r)
        clauses = sentence.count(" needs ") + sentence.count(" and 1 ")
        assert clauses >= len(rule.needs), variant


def test_the_implied_makespan_bound_is_the_workers_load_over_their_number() -> None:
    """The toy: 28 worker-time units over 4 workers (7); welding 11 over its 2 holders (6), wiring 10 over 2 (5),
    painting 7 over 2 (4): the bound is 7, below the optimum 11. tiny_4_3: 18 over 3 workers (6); Q0L1's one
    holder carries A1 (5): 6, below the optimum 9."""
    inst = instance()
    ctx = make_context(inst, load_family("mspsp"))
    rule = next(c for c in inst.constraints if isinstance(c, SkillRequirements))
    assert rule.makespan_bound(ctx) == 7
    tiny = import_paths("mspsp", [DEF])[0]
    rule = next(c for c in tiny.constraints if isinstance(c, SkillRequirements))
    assert rule.makespan_bound(make_context(tiny, load_family("mspsp"))) == 6
