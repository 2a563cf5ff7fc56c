"""Snapshot tests of the verifier's verdict on realistic, messy model answers.

Every case starts from a valid answer of one example instance — a feasible schedule built
here (a serial list schedule for the interval families, a hand-made roster or timetable for
the slot families) and rendered with :meth:`Verifier.write` — and then messes it up the way
language models do: prose around it, markdown, code fences, tags, odd case and blanks, CRLF,
truncation, duplicates, hallucinated entities, wrong separators, stated objectives, ...

The snapshot is a compact verdict (:func:`verdict`): extracted lines, skipped lines with
their reasons, structural issues, hard violations, feasibility, coverage, violation rate and
objectives. Update with ``pytest --snapshot-update`` after a deliberate change and read the diff.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest

from schedc.core.solution import Assignment, Solution
from schedc.kinds.precedence_lag import PrecedenceLag
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.verify.evaluate import evaluate
from schedc.verify.verifier import CheckReport, Verifier, format_report
from tests.conftest import ROOT

EXAMPLES = ROOT / "examples"
INTERVAL = ("ft06", "fjsp_small", "rcpsp_small", "mrcpsp_small")
SLOT = ("itc2007_small", "inrc2010_small", "nsplib_small")
ALL_EXAMPLES = INTERVAL + SLOT

# ---------------------------------------------------------------------------- valid schedules

# modes of the multi-mode example that fit the non-renewable budget N1 (1 + 1 + 2 + 1 <= 8)
MRCPSP_MODES = {"A1": 2, "A2": 2, "A3": 2, "A4": 2}

# course, day, period, room (0-based days and periods, as the itc2007 answer format writes them)
ITC = [("Math", 0, 1, "Aula"), ("Math", 1, 1, "Aula"), ("Math", 2, 1, "Aula"),
       ("Phys", 0, 2, "Lab"), ("Phys", 1, 2, "Lab"),
       ("Chem", 0, 0, "Lab"), ("Chem", 1, 0, "Lab"),
       ("Bio", 2, 0, "Aula"), ("Bio", 0, 2, "Aula")]
# day index -> shift -> nurses, staffing every shift exactly as the cover table demands
INRC = {0: {"E": ["Ann"], "L": ["Bob"]}, 1: {"E": ["Cleo"], "L": ["Dan"]}, 2: {"E": ["Ann", "Bob"], "L": ["Cleo"]},
        3: {"E": ["Dan"], "L": ["Ann"]}, 4: {"E": ["Bob"], "L": ["Cleo"]}, 5: {"E": ["Dan"]}, 6: {"L": ["Dan"]}}
# nurse -> shift of each day (day 0 first)
NSP = {"N1": "S1 S1 S1 Off Off S1 S1", "N2": "S2 S2 Off S2 S2 Off Off",
       "N3": "Off Off S2 S2 S1 Off Off", "N4": "Off Off S1 S1 S1 Off Off"}


def serial_schedule(instance, modes: dict[str, int] | None = None) -> Solution:
    """A feasible list schedule: activities in precedence order, each at its earliest resource-feasible start."""
    modes = modes or {}
    capacity = {r.name: r.capacity for r in instance.resources if r.kind != "nonrenewable"}
    preds: dict[str, list[tuple[str, int]]] = {a.name: [] for a in instance.activities}
    for c in instance.constraints:
        if isinstance(c, PrecedenceLag) and c.active:
            for e in c.edges:
                preds[e.after].append((e.before, e.lag))
    usage: dict[tuple[str, int], int] = {}
    starts: dict[str, int] = {}
    ends: dict[str, int] = {}
    chosen: dict[str, int] = {}
    pending = list(instance.activities)
    while pending:
        activity = next(a for a in pending if all(p in ends for p, _ in preds[a.name]))
        pending.remove(activity)
        number = modes.get(activity.name, 1)
        mode = activity.modes[number - 1]
        uses = [u for u in mode.uses if u.resource in capacity]

        def fits(t: int, uses=uses, duration=mode.duration) -> bool:
            return all(usage.get((u.resource, x), 0) + u.amount <= capacity[u.resource]
                       for u in uses for x in range(t, t + duration))

        t = max((ends[p] + lag for p, lag in preds[activity.name]), default=0)
        while not fits(t):
            t += 1
        for u in uses:
            for x in range(t, t + mode.duration):
                usage[(u.resource, x)] = usage.get((u.resource, x), 0) + u.amount
        starts[activity.name], ends[activity.name], chosen[activity.name] = t, t + mode.duration, number
    return Solution(starts=starts, modes=chosen)


@cache
def instance_of(example: str):
    return load_instance(EXAMPLES / f"{example}.sched")


def verifier(example: str, names: dict[str, str] | None = None) -> Verifier:
    return _verifier(example, tuple(sorted((names or {}).items())))


@cache
def _verifier(example: str, names: tuple[tuple[str, str], ...]) -> Verifier:
    instance = instance_of(example)
    return Verifier(instance, load_family(instance.family, [EXAMPLES]), dict(names))


@cache
def base_solution(example: str) -> Solution:
    """A feasible schedule of an example instance."""
    if example in INTERVAL:
        return serial_schedule(instance_of(example), MRCPSP_MODES if example == "mrcpsp_small" else None)
    if example == "itc2007_small":
        return Solution(assignments=tuple(Assignment(c, d, p, r) for c, d, p, r in ITC))
    if example == "inrc2010_small":
        return Solution(assignments=tuple(Assignment(n, d, 0, s) for d, cover in INRC.items()
                                          for s, nurses in cover.items() for n in nurses))
    if example == "nsplib_small":
        return Solution(assignments=tuple(Assignment(n, d, 0, s) for n, row in NSP.items()
                                          for d, s in enumerate(row.split())))
    raise KeyError(example)


def valid_answer(example: str, names: dict[str, str] | None = None) -> str:
    return verifier(example, names).write(base_solution(example))


def objective_of(example: str) -> int:
    objective = evaluate(verifier(example).ctx, base_solution(example)).objective
    assert objective is not None
    return objective


# ---------------------------------------------------------------------------- ways to mess up an answer


def rows(text: str) -> list[str]:
    return text.splitlines()


def join(lines: list[str], eol: str = "\n") -> str:
    return eol.join(lines) + eol


def each(func: Callable[[int, str], str]) -> Callable[[str], str]:
    """Apply ``func(index, line)`` to every line of the valid answer."""
    return lambda text: join([func(i, line) for i, line in enumerate(rows(text))])


def around(before: str, after: str = "") -> Callable[[str], str]:
    return lambda text: before + text + after


def edit(index: int, new: str | Callable[[str], str]) -> Callable[[str], str]:
    """Replace line ``index`` (negative counts from the end) by ``new`` (or ``new(old)``)."""

    def apply(text: str) -> str:
        lines = rows(text)
        lines[index] = new(lines[index]) if callable(new) else new
        return join(lines)

    return apply


def insert(index: int, *new: str) -> Callable[[str], str]:
    def apply(text: str) -> str:
        lines = rows(text)
        lines[index:index] = list(new)
        return join(lines)

    return apply


def drop(predicate: Callable[[str], bool]) -> Callable[[str], str]:
    return lambda text: join([line for line in rows(text) if not predicate(line)])


def then(*steps: Callable[[str], str]) -> Callable[[str], str]:
    def apply(text: str) -> str:
        for step in steps:
            text = step(text)
        return text

    return apply


def sub(pattern: str, repl: str | Callable[[re.Match[str]], str], count: int = 0) -> Callable[[str], str]:
    return lambda text: re.sub(pattern, repl, text, count=count, flags=re.MULTILINE)


def constant(answer: str) -> Callable[[str], str]:
    return lambda _text: answer


def interval_json(example: str) -> str:
    solution = base_solution(example)
    return json.dumps({"schedule": [{"job": int(a.job[1:]), "step": a.step, "start": solution.starts[a.name]}
                                    for a in instance_of(example).activities], "makespan": objective_of(example)},
                      indent=2)


@dataclass(frozen=True)
class Case:
    example: str
    mess: Callable[[str], str]
    names: dict[str, str] = field(default_factory=dict)


FT06_THEME = {**{f"J{i}": name for i, name in enumerate(["Sourdough", "Baguette", "Brioche", "Rye", "Focaccia",
                                                           "Ciabatta"], start=1)},
              **{f"M{i}": name for i, name in enumerate(["Mixer", "Proofer", "Oven", "Cooler", "Slicer", "Packer"],
                                                         start=1)}}
ITC_THEME = {"Math": "Calculus I", "Phys": "Mechanics", "Chem": "Organic Chemistry", "Bio": "Genetics",
             "Aula": "Hall A", "Lab": "Lab 2"}
INRC_THEME = {"Ann": "Nurse Ann", "Bob": "Nurse Bob", "Cleo": "Nurse Cleo", "Dan": "Nurse Dan",
              "E": "Early", "L": "Late"}

REASONING = """\
Let me think step by step. Machine 3 is first needed by Job 1 step 1 (1 unit) and Job 3 step 1 (5 units),
so Job 3 step 1 can start at 1 at the earliest. Machine 2 has a total load of 8+3+1+6+5+3 = 26.
A first attempt gave a makespan of 80, which is too long, so I reordered Machine 5.

"""

CASES: dict[str, Case] = {
    # ---- jobshop (ft06)
    "jobshop_clean": Case("ft06", lambda text: text),
    "jobshop_preamble_and_closing_prose": Case("ft06", around(
        "Sure! Here is a feasible schedule for the 6x6 job shop instance:\n\n",
        "\nThis schedule respects all precedence constraints and no machine runs two operations at once.\n"
        "Let me know if you would like me to try to improve it!\n")),
    "jobshop_reasoning_with_numbers": Case("ft06", around(REASONING, "\nFinal makespan: 71\n")),
    "jobshop_code_fence_text": Case("ft06", around("Schedule:\n```text\n", "```\n")),
    "jobshop_code_fence_plain_and_heading": Case("ft06", around("## Final schedule\n\n```\n", "```\n")),
    "jobshop_bold_bullets": Case("ft06", each(lambda i, line: "- **" + line.replace(":", "**:", 1))),
    "jobshop_numbered_list_italic": Case("ft06", each(lambda i, line: f"{i + 1}. *{line}*")),
    "jobshop_answer_tags": Case("ft06", then(around("<answer>", "</answer>\n"),
                                             sub(r"^Job 3 step 1", "<op>Job 3 step 1"))),
    "jobshop_crlf_tabs_stray_spaces": Case("ft06", lambda text: join(
        [f"  {line.replace(': ', ' :  ').replace('=', ' = ')}\t " if i % 2 else "\t" + line.replace(" ", "  ")
         for i, line in enumerate(rows(text))], eol="\r\n")),
    "jobshop_trailing_period_semicolon": Case("ft06", each(lambda i, line: line + ".;,"[i % 3])),
    "jobshop_upper_and_lower_case": Case("ft06", each(lambda i, line: line.upper() if i % 2 else line.lower())),
    "jobshop_byte_order_mark_and_zero_width": Case("ft06", then(around("\ufeff"), sub(r"^Job 2 ", "Job\u200b 2 "))),
    "jobshop_truncated_last_line": Case("ft06", edit(-1, lambda line: line[:len("Job 6 step 6: sta")])),
    "jobshop_truncated_number": Case("ft06", edit(-1, lambda line: line[:-1])),
    "jobshop_duplicated_line": Case("ft06", insert(5, "Job 1 step 5: start=17")),
    "jobshop_conflicting_duplicate": Case("ft06", insert(12, "Job 2 step 3: start=0")),
    "jobshop_hallucinated_job_and_step": Case("ft06", around("", "Job 9 step 1: start=0\nJob 1 step 7: start=80\n")),
    "jobshop_negative_start": Case("ft06", edit(0, "Job 1 step 1: start=-1")),
    "jobshop_wrong_separator": Case("ft06", sub(r"^(Job \d+ step \d+): start=(\d+)$", r"\1 - start \2")),
    "jobshop_machine_overlap": Case("ft06", edit(0, "Job 1 step 1: start=2")),
    "jobshop_stated_makespan_right": Case("ft06", around("", "\n**Makespan: 71**\n")),
    "jobshop_stated_makespan_wrong": Case("ft06", around("The optimal makespan is 55.\n\n", "\nMakespan = 55\n")),
    "jobshop_bare_job_numbers": Case("ft06", sub(r"^Job ", "")),
    "jobshop_themed_names_in_fence": Case("ft06", around("```\n", "```\n"), FT06_THEME),
    "jobshop_themed_names_answered_canonically": Case("ft06", lambda text: valid_answer("ft06"), FT06_THEME),
    "jobshop_empty_answer": Case("ft06", constant("")),
    "jobshop_only_prose": Case("ft06", constant(
        "This is a classic 6x6 instance (ft06). I cannot compute an exact schedule here,\n"
        "but its optimal makespan is known to be 55 time units.\n")),
    "jobshop_json_answer": Case("ft06", constant(interval_json("ft06"))),
    "jobshop_markdown_table": Case("ft06", lambda text: join(
        ["| Job | Step | Start |", "|-----|------|-------|"]
        + [re.sub(r"^Job (\d+) step (\d+): start=(\d+)$", r"| \1 | \2 | \3 |", line) for line in rows(text)])),
    "jobshop_underscore_italic_in_quote": Case("ft06", each(lambda i, line: "> _" + line.replace(":", "_:", 1))),
    "jobshop_all_on_one_line": Case("ft06", lambda text: ", ".join(rows(text)) + "\n"),
    "jobshop_trailing_comment": Case("ft06", each(lambda i, line: line + " (machine busy until later)"
                                                  if i == 3 else line + "  # ok" if i == 4 else line)),
    # ---- fjsp
    "fjsp_clean": Case("fjsp_small", lambda text: text),
    "fjsp_machine_as_number_and_ir_name": Case("fjsp_small", then(sub(r"machine=Machine (\d)$", r"machine=\1", 4),
                                                                  sub(r"machine=Machine (\d)$", r"machine=M\1"))),
    "fjsp_ineligible_and_unknown_machine": Case("fjsp_small", then(
        edit(3, "Job 2 step 1: start=0, machine=Machine 3"), edit(4, "Job 2 step 2: start=3, machine=Machine 7"))),
    "fjsp_missing_machine_field": Case("fjsp_small", sub(r", machine=Machine \d$", "", 2)),
    # ---- rcpsp
    "rcpsp_clean_with_ir_names": Case("rcpsp_small", sub(r"^Activity ", "A")),
    "rcpsp_precedence_and_capacity_violation": Case("rcpsp_small", then(
        edit(5, "Activity 6: 0"), edit(1, "Activity 2: 0"), around("", "Makespan: 12\n"))),
    "rcpsp_hallucinated_activity_and_lowercase": Case("rcpsp_small", then(
        sub(r"^Activity", "activity"), around("", "Activity 7: 13\nActivity 0: 0\n"))),
    "rcpsp_xml_inline_tags_and_bullets": Case("rcpsp_small", each(lambda i, line: f"* <start>{line}</start>")),
    # ---- mrcpsp
    "mrcpsp_clean_stated_right": Case("mrcpsp_small", around("<answer>\n", "</answer>\nThe makespan is 8.\n")),
    "mrcpsp_mode_out_of_range": Case("mrcpsp_small", edit(0, "Activity 1: start=0, mode=3")),
    "mrcpsp_budget_exceeded": Case("mrcpsp_small", constant(
        "Activity 1: start=0, mode=1\nActivity 2: start=0, mode=1\nActivity 3: start=2, mode=1\n"
        "Activity 4: start=3, mode=1\nMakespan: 5\n")),
    "mrcpsp_fields_swapped": Case("mrcpsp_small", sub(r"start=(\d+), mode=(\d+)", r"mode=\2, start=\1")),
    # ---- itc2007
    "itc_clean_in_fence": Case("itc2007_small", around("```\n", "```\nTotal penalty: 10\n")),
    "itc_comma_separators": Case("itc2007_small", sub(r"\|", ",")),
    "itc_unknown_room_and_course": Case("itc2007_small", around("", "Math|Room 9|2|2\nArt|Aula|1|0\n")),
    "itc_day_and_period_out_of_range": Case("itc2007_small", then(edit(0, "Math|Aula|3|1"), edit(1, "Math|Aula|1|3"))),
    "itc_markdown_table": Case("itc2007_small", lambda text: join(
        ["| Course | Room | Day | Period |", "|---|---|---|---|"] + [f"| {line} |" for line in rows(text)])),
    "itc_room_clash_and_wrong_cost": Case("itc2007_small", then(edit(3, "Phys|Aula|0|1"),
                                                                around("", "Total penalty: 0\n"))),
    "itc_conflicting_duplicate_period": Case("itc2007_small", around("", "Math|Lab|0|1\n")),
    "itc_trailing_remarks_and_objective_line": Case("itc2007_small", then(
        each(lambda i, line: line + ["  (Monday)", " [ok]", " // lab", ""][i % 4]), around("", "Objective: 10\n"))),
    "itc_themed_names_mixed_case": Case("itc2007_small", each(lambda i, line: line.lower() if i % 2 else line),
                                        ITC_THEME),
    # ---- inrc2010
    "inrc_clean_with_prose": Case("inrc2010_small", around("Here is the roster in the requested format:\n\n",
                                                           "\nTotal cost: 9\n")),
    "inrc_missing_header": Case("inrc2010_small", drop(lambda line: line.startswith("ASSIGNMENTS"))),
    "inrc_wrong_count": Case("inrc2010_small", sub(r"^ASSIGNMENTS=13$", "ASSIGNMENTS=14")),
    "inrc_unknown_nurse_and_shift": Case("inrc2010_small", then(edit(-1, "10,Eve,L;"), edit(-2, "9,Dan,N;"),
                                                                sub(r"^ASSIGNMENTS=13$", "ASSIGNMENTS=13"))),
    "inrc_day_indices_instead_of_dates": Case("inrc2010_small", sub(r"^(\d+),", lambda m: f"{int(m[1]) - 4},")),
    "inrc_undercovered_and_stated_wrong": Case("inrc2010_small", then(
        drop(lambda line: line == "6,Bob,E;"), sub(r"^ASSIGNMENTS=13$", "ASSIGNMENTS=12"),
        around("", "Total penalty = 3\n"))),
    "inrc_all_on_one_line": Case("inrc2010_small", lambda text: rows(text)[0] + "\n" + " ".join(rows(text)[1:]) + "\n"),
    "inrc_duplicate_and_double_shift": Case("inrc2010_small", then(
        insert(2, "4,Ann,E;"), insert(3, "4,Ann,L;"), sub(r"^ASSIGNMENTS=13$", "ASSIGNMENTS=15"))),
    "inrc_themed_names_crlf": Case("inrc2010_small", lambda text: text.replace("\n", "\r\n"), INRC_THEME),
    # ---- nsplib
    "nsplib_clean_bullets": Case("nsplib_small", each(lambda i, line: f"- {line}")),
    "nsplib_day_zero_based": Case("nsplib_small", sub(r"\|(\d)\|", lambda m: f"|{int(m[1]) - 1}|")),
    "nsplib_missing_nurse": Case("nsplib_small", drop(lambda line: line.startswith("Nurse 4|"))),
    "nsplib_unknown_shift_and_nurse": Case("nsplib_small", then(
        edit(0, "Nurse 1|1|Night"), around("", "Nurse 5|1|Off\n"))),
    "nsplib_conflicting_duplicate": Case("nsplib_small", insert(1, "Nurse 1|1|Shift 2")),
    "nsplib_ir_names_and_coverage_gap": Case("nsplib_small", then(
        sub(r"^Nurse (\d)\|(\d)\|Shift (\d)$", r"N\1|\2|S\3"), edit(0, "N1|1|Off"))),
}


def verdict(report: CheckReport) -> dict[str, Any]:
    """The parts of a report worth reading in a snapshot."""
    out: dict[str, Any] = {"extracted": report.extracted}
    if not report.extracted:
        out["extraction_error"] = report.extraction_error
    out["lines"] = report.produced
    out["skipped"] = [f"line {s.line} ({s.reason}): {s.text[:70]}" for s in report.skipped_lines[:6]]
    if len(report.skipped_lines) > 6:
        out["skipped"].append(f"... {len(report.skipped_lines) - 6} more")
    out["issues"] = [f"{i.kind}" + (f" (line {i.line})" if i.line else "") + f": {i.message}" for i in report.issues]
    out["violations"] = [f"{v.kind} {v.constraint} x{v.amount}: {v.message}" for v in report.violations[:8]]
    if len(report.violations) > 8:
        out["violations"].append(f"... {len(report.violations) - 8} more")
    out.update(feasible=report.feasible, coverage=report.coverage, hard_violations=report.hard_violations,
               violation_rate=report.violation_rate, objective=report.objective,
               stated_objective=report.stated_objective, stated_objective_matches=report.stated_objective_matches)
    return out


@pytest.mark.parametrize("example", ALL_EXAMPLES)
def test_base_schedules_are_feasible(example: str) -> None:
    check = verifier(example).check(valid_answer(example))
    assert check.feasible, format_report(check)
    assert check.coverage == 1.0 and check.objective == objective_of(example)


def test_cases_cover_every_family() -> None:
    assert len(CASES) >= 32
    assert {case.example for case in CASES.values()} == set(ALL_EXAMPLES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_messy_answer(name: str, snapshot) -> None:
    case = CASES[name]
    check = verifier(case.example, case.names)
    text = case.mess(valid_answer(case.example, case.names))
    report = check.check(text)
    assert format_report(report)  # the text form renders too
    if not name.endswith("_clean"):
        assert text != valid_answer(case.example, case.names), "the mess did not change the answer"
    assert verdict(report) == snapshot
