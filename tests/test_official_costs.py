"""Official fidelity: published solutions re-scored to the costs the official evaluators give.

ITC-2007 (official validator) and INRC-2010 (UOS evaluator): every solution listed in a
``costs.csv`` — the bundled copies in tests/data/solutions and, when present, all of
../shared/data/<family>/solutions — must get the official total, hard count and every
per-component cost. NSPLib has no official evaluator: the published GA roster is checked
against its stated preference cost and an independent recount.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path

import pytest

from schedc.core.solution import Assignment, Solution
from schedc.importers import import_paths
from schedc.importers.solutions import read_inrc_solution, read_itc_solution
from schedc.verify.evaluate import evaluate, make_context
from schedc.verify.verifier import Verifier
from tests.conftest import DATA, SHARED

ITC_COMPONENTS = {"room_capacity": "RoomCapacity", "min_working_days": "MinWorkingDays",
                  "curriculum_compactness": "CurriculumCompactness", "room_stability": "RoomStability",
                  "lectures": "Lectures", "conflicts": "Conflicts", "availability": "Availability",
                  "room_occupancy": "RoomOccupancy"}
# UOS evaluator message (lower-cased) -> the id pattern of our constraints
INRC_COMPONENTS = {
    "maximum_number_of_assignments_exceeded": r"c.+_max_assignments",
    "minimum_number_of_assignments_unsatisfied": r"c.+_min_assignments",
    "maximum_consecutive_working_days_exceeded": r"c.+_max_consecutive_working_days",
    "minimum_consecutive_working_days_unsatisfied": r"c.+_min_consecutive_working_days",
    "maximum_consecutive_days_off_exceeded": r"c.+_max_consecutive_free_days",
    "minimum_consecutive_days_off_unsatisfied": r"c.+_min_consecutive_free_days",
    "maximum_consecutive_working_weekends_exceeded": r"c.+_max_consecutive_working_weekends",
    "minimum_consecutive_working_weekends_unsatisfied": r"c.+_min_consecutive_working_weekends",
    "incomplete_weekend": r"c.+_complete_weekends",
    "weekend_with_different_shifts_assigned": r"c.+_identical_shift_types_during_weekend",
    "inadequate_sequence_of_shifts": r"c.+_pattern_.+",
    "insufficient_skills": r"c.+_alternative_skill_category",
    "unsatisfied_day_off_request": r"day_off_requests",
    "unsatisfied_working_day_request": r"day_on_requests",
    "unsatisfied_shift_off_request": r"shift_off_requests",
    "unsatisfied_shift_on_request": r"shift_on_requests",
}


def cost_rows(family: str) -> list[tuple[Path, dict[str, str]]]:
    """(solutions folder, row) for every costs.csv row, bundled and shared."""
    out = []
    for folder in (DATA / "solutions" / family, SHARED / family / "solutions"):
        if (folder / "costs.csv").exists():
            with open(folder / "costs.csv", newline="") as handle:
                out += [(folder, row) for row in csv.DictReader(handle)]
    return out


def components(row: dict[str, str]) -> dict[str, int]:
    pairs = (item.split("=", 1) for item in row["components"].split(";") if "=" in item)
    return {k: int(v) for k, v in pairs if re.fullmatch(r"-?\d+", v)}


def row_id(item: tuple[Path, dict[str, str]]) -> str:
    folder, row = item
    return ("bundled:" if folder.is_relative_to(DATA) else "shared:") + row["solution_file"]


ITC_ROWS = cost_rows("itc2007")
INRC_ROWS = cost_rows("inrc2010")


def itc_instance(folder: Path, name: str) -> Path:
    for candidate in (folder.parent / f"{name}.ctt", DATA / "itc2007" / f"{name}.ctt"):
        if candidate.exists():
            return candidate
    pytest.skip(f"instance {name} not available")


@pytest.mark.parametrize("item", ITC_ROWS, ids=[row_id(i) for i in ITC_ROWS])
def test_itc2007_solutions_get_the_validators_costs(item: tuple[Path, dict[str, str]]) -> None:
    folder, row = item
    [instance] = import_paths("itc2007", [itc_instance(folder, row["instance"])])
    solution, _warnings = read_itc_solution(folder / row["solution_file"], instance)
    result = evaluate(make_context(instance), solution)
    official = components(row)
    ours = {**result.components, **result.hard_amounts}
    assert result.objective == int(row["official_cost"])
    assert sum(result.hard_amounts[c] for c in ("lectures", "conflicts", "availability", "room_occupancy")) \
        == int(row["hard_violations"])
    for our_id, name in ITC_COMPONENTS.items():
        assert ours[our_id] == official[name], name


def inrc_instance(folder: Path, name: str) -> Path:
    for candidate in (folder / name, folder.parent / f"{name}.xml", DATA / "inrc2010" / f"{name}.xml"):
        if candidate.exists() and candidate.is_file():
            return candidate
    pytest.skip(f"instance {name} not available")


@pytest.mark.parametrize("item", INRC_ROWS, ids=[row_id(i) for i in INRC_ROWS])
def test_inrc2010_solutions_get_the_evaluators_costs(item: tuple[Path, dict[str, str]]) -> None:
    folder, row = item
    [instance] = import_paths("inrc2010", [inrc_instance(folder, row["instance"])])
    solution = read_inrc_solution(folder / row["solution_file"], instance)
    result = evaluate(make_context(instance), solution)
    assert result.objective == int(row["official_cost"])
    assert sum(result.hard_amounts.values()) == int(row["hard_violations"])
    grouped: dict[str, int] = defaultdict(int)
    for cid, cost in result.components.items():
        matches = [name for name, pattern in INRC_COMPONENTS.items() if re.fullmatch(pattern, cid)]
        assert len(matches) == 1, cid
        grouped[matches[0]] += cost
    official = {k: v for k, v in components(row).items() if k in INRC_COMPONENTS}
    assert {k: v for k, v in grouped.items() if v} == official


def test_inrc_answer_text_gives_the_same_cost_as_the_solution_file() -> None:
    """The SCHEDBench answer format (day of month, employee, shift) carries the same schedule."""
    [instance] = import_paths("inrc2010", [DATA / "inrc2010" / "sprint01.xml"])
    solution = read_inrc_solution(DATA / "solutions" / "inrc2010" / "sprint01__chgogos_56.sol.xml", instance)
    verifier = Verifier(instance)
    report = verifier.check(verifier.write(solution))
    assert report.feasible and report.objective == 56 and report.coverage == 1.0


def test_itc_answer_text_matches_the_validator() -> None:
    [instance] = import_paths("itc2007", [DATA / "itc2007" / "comp01.ctt"])
    lines = (DATA / "solutions" / "itc2007" / "comp01__docheinstein_race.sol").read_text().split("\n")
    answer = "\n".join("|".join(line.split()) for line in lines if line.strip())
    report = Verifier(instance).check(answer)
    assert report.feasible and report.objective == 5
    assert report.components == {"room_capacity": 4, "min_working_days": 0, "curriculum_compactness": 0,
                                 "room_stability": 1}


def test_itc_duplicate_lecture_in_one_period_is_reported_not_dropped() -> None:
    [instance] = import_paths("itc2007", [DATA / "itc2007" / "comp01.ctt"])
    lines = [line for line in (DATA / "solutions" / "itc2007" / "comp01__docheinstein_race.sol").read_text()
             .split("\n") if line.strip()]
    course, _room, day, period = lines[0].split()
    duplicate = f"{course}|C|{day}|{period}"  # same course and period, another room
    report = Verifier(instance).check("\n".join(["|".join(x.split()) for x in lines] + [duplicate]))
    assert not report.feasible
    assert [i.kind for i in report.issues] == ["conflicting_duplicate"]
    assert report.objective == 5  # scored as the validator does: the repeated entry is skipped


def read_ga_roster(path: Path) -> list[list[int]]:
    """The GA output: after a blank line, 7 rows (days) of 25 shift indices (-1 = day off)."""
    blocks = path.read_text().replace("\r", "").split("\n\n")
    return [[int(x) for x in line.split()] for line in blocks[1].strip().split("\n")]


def test_nsplib_published_roster_recount() -> None:
    folder = DATA / "solutions" / "nsplib"
    [row] = list(csv.DictReader(open(folder / "costs.csv", newline="")))
    nsplib = DATA / "nsplib"
    [instance] = import_paths("nsplib", [nsplib / "N25" / "1.nsp"], cases=[nsplib / "Cases" / "2.gen"])
    roster = read_ga_roster(folder / row["solution_file"])
    shifts = ["S1", "S2", "S3"]
    solution = Solution(assignments=tuple(
        Assignment(f"N{n + 1}", day, 0, "Off" if code < 0 else shifts[code])
        for day, codes in enumerate(roster) for n, code in enumerate(codes)))
    result = evaluate(make_context(instance), solution)
    expected = components(row)
    assert result.objective == expected["preference_cost"] == 429
    # the recount finds one nurse working more days than case 2 allows, and no other broken rule
    assert [(v.constraint, v.amount) for v in result.violations] == [("working_count", 1)]
    assert len(result.violations) == int(row["hard_violations"])


def test_structured_json_answers_are_checked_like_text() -> None:
    """ConstraintBench-style structured output: the JSON object stands for the answer lines."""
    import json

    from schedc.grammars import answer_grammar

    [instance] = import_paths("itc2007", [DATA / "itc2007" / "comp01.ctt"])
    lines = [line.split() for line in (DATA / "solutions" / "itc2007" / "comp01__docheinstein_race.sol")
             .read_text().split("\n") if line.strip()]
    schema = json.loads(answer_grammar(instance, None, None, "json-schema"))
    keys = list(schema["properties"]["assignments"]["items"]["properties"])
    items = [dict(zip(keys, (c, r, int(d), int(p)), strict=True)) for c, r, d, p in lines]
    report = Verifier(instance).check("```json\n" + json.dumps({"assignments": items}) + "\n```")
    assert report.feasible and report.objective == 5 and report.produced == len(lines)
