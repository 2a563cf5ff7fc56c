"""Property tests of the verifier (:meth:`Verifier.check`) on arbitrary and mutated answers.

(a) Any text — control characters, unusual line breaks, numbers of thousands of digits —
gives a report, never an exception, for every example family. (b) Valid answers mutated the
way models garble them (lines deleted, duplicated, swapped, digits changed, markdown
inserted) give consistent reports: coverage in [0, 1], a violation rate that is None or
non-negative, and ``feasible`` only with full coverage and no hard violation. (c) A complete
schedule written with :meth:`Verifier.write` and checked again gets the verdict of the shared
evaluator: feasible iff :func:`evaluate` finds no violation, and the same objective.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import example as also
from hypothesis import strategies as st

from schedc.core.solution import Assignment, Solution
from schedc.verify.evaluate import evaluate
from schedc.verify.verifier import CheckReport, format_report
from tests.test_extraction import (
    ALL_EXAMPLES,
    FT06_THEME,
    INRC_THEME,
    INTERVAL,
    ITC_THEME,
    base_solution,
    instance_of,
    valid_answer,
    verifier,
)

FUZZ = settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])

HUGE = ["9" * 5000, "-" + "1" * 4400, "1" * 101, "9" * 100, str(2**64), "-0", "+3", "007", "1e9", "NaN", "∞"]
ODD = ["\x00", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029", "\ufeff", "\u200b", "\t", "\r", "\r\n", "\x1b[1m"]
MARKUP = ["```", "```text", "~~~", "**", "*", "_", "__", "`", "- ", "* ", "1. ", "# ", "> ", "<answer>", "</answer>",
          "<b>", "|", "||", "---", "(", ")", "[", "]", " // ", " # ", "; ", ", ", ": ", "=", "step", "start=",
          "mode=", "machine=", "ASSIGNMENTS=", "Makespan: ", "Total cost = ", "Job ", "Activity ", "Nurse ", "Shift ",
          "Machine "]


def _fragments(example: str) -> st.SearchStrategy[str]:
    lines = valid_answer(example).splitlines()
    return st.one_of(st.sampled_from(lines), st.sampled_from(HUGE), st.sampled_from(ODD), st.sampled_from(MARKUP),
                     st.text(max_size=12), st.integers(-10**30, 10**30).map(str))


def garbage(example: str) -> st.SearchStrategy[str]:
    """Texts made of pieces of a valid answer, huge numbers, odd characters and markup."""
    return st.lists(_fragments(example), max_size=30).map("".join)


def consistent(report: CheckReport) -> None:
    """The invariants every report satisfies."""
    assert 0.0 <= report.coverage <= 1.0
    assert report.violation_rate is None or report.violation_rate >= 0
    assert report.hard_violations >= 0
    if report.feasible:
        assert report.extracted and report.coverage == 1.0 and report.hard_violations == 0
    if not report.extracted:
        assert not report.feasible and report.produced == 0
    if report.stated_objective_matches is not None:
        assert report.stated_objective is not None and report.objective is not None
    assert isinstance(format_report(report), str)


# ---------------------------------------------------------------------------- (a) arbitrary text


@pytest.mark.parametrize("example", ALL_EXAMPLES)
@FUZZ
@given(text=st.text())
@also(text="")
@also(text="\x00\r\n\x0b\u2028 Job 1 step 1: start=" + "9" * 5000)
@also(text="Makespan: " + "9" * 5000 + "\nActivity 1: " + "1" * 4400)
@also(text="ASSIGNMENTS=" + "9" * 5000 + "\n4,Ann,E;")
def test_any_text_gives_a_report(example: str, text: str) -> None:
    consistent(verifier(example).check(text))


@pytest.mark.parametrize("example", ALL_EXAMPLES)
@FUZZ
@given(data=st.data())
def test_garbled_answer_pieces_give_a_report(example: str, data: st.DataObject) -> None:
    consistent(verifier(example).check(data.draw(garbage(example))))


# ---------------------------------------------------------------------------- (b) mutated valid answers


@st.composite
def mutated(draw: st.DrawFn, example: str) -> str:
    """A valid answer with a few lines deleted, duplicated, swapped, re-digited or marked up."""
    lines = valid_answer(example).splitlines()
    for _ in range(draw(st.integers(1, 6))):
        if not lines:
            lines.append(draw(st.text(max_size=20)))
            continue
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "digit", "markup", "insert", "truncate"]))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(draw(st.integers(0, len(lines))), lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "digit":
            positions = [k for k, ch in enumerate(lines[i]) if ch.isdigit()]
            if positions:
                k = draw(st.sampled_from(positions))
                new = draw(st.sampled_from(["0", "1", "7", "9", "-1", "99", "", " ", "x", "9" * 200]))
                lines[i] = lines[i][:k] + new + lines[i][k + 1:]
        elif op == "markup":
            mark = draw(st.sampled_from(MARKUP))
            where = draw(st.sampled_from(["before", "after", "around", "line"]))
            if where == "line":
                lines.insert(i, mark)
            else:
                lines[i] = (mark if where != "after" else "") + lines[i] + (mark if where != "before" else "")
        elif op == "insert":
            lines.insert(i, draw(st.text(max_size=40)))
        else:
            lines[i] = lines[i][:draw(st.integers(0, len(lines[i])))]
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    return eol.join(lines) + eol


@pytest.mark.parametrize("example", ALL_EXAMPLES)
@FUZZ
@given(data=st.data())
def test_mutated_answers_give_consistent_reports(example: str, data: st.DataObject) -> None:
    consistent(verifier(example).check(data.draw(mutated(example))))


# ---------------------------------------------------------------------------- (c) write, check, evaluate


def perturbed_interval(example: str, rng: random.Random, changes: int) -> Solution:
    """The feasible base schedule with a few starts shifted and modes changed (feasible or not)."""
    base = base_solution(example)
    starts, modes = dict(base.starts), dict(base.modes)
    activities = instance_of(example).activities
    for _ in range(changes):
        a = rng.choice(activities)
        starts[a.name] = max(0, starts[a.name] + rng.randint(-6, 6))
        if rng.random() < 0.3:
            modes[a.name] = rng.randint(1, len(a.modes))
    return Solution(starts=starts, modes=modes)


def random_itc(rng: random.Random, changes: int) -> Solution:
    """Every course's lectures in distinct periods, rooms and periods partly random."""
    base = list(base_solution("itc2007_small").assignments)
    for _ in range(changes):
        k = rng.randrange(len(base))
        old = base[k]
        taken = {(a.day, a.period) for a in base if a.agent == old.agent}
        free = [(d, p) for d in range(3) for p in range(3) if (d, p) not in taken]
        day, period = rng.choice(free) if free and rng.random() < 0.7 else (old.day, old.period)
        base[k] = Assignment(old.agent, day, period, rng.choice(["Aula", "Lab"]))
    return Solution(assignments=tuple(base))


def random_inrc(rng: random.Random, changes: int) -> Solution:
    """Each day's cover filled by distinct nurses; with ``changes`` odd, one extra assignment (over-cover)."""
    ctx = verifier("inrc2010_small").ctx
    nurses = ["Ann", "Bob", "Cleo", "Dan"]
    cover = {0: {"E": 1, "L": 1}, 1: {"E": 1, "L": 1}, 2: {"E": 2, "L": 1}, 3: {"E": 1, "L": 1},
             4: {"E": 1, "L": 1}, 5: {"E": 1}, 6: {"L": 1}}
    assert ctx.days == len(cover)
    out = []
    for day, shifts in cover.items():
        pool = rng.sample(nurses, len(nurses))
        for shift, count in shifts.items():
            out += [Assignment(pool.pop(), day, 0, shift) for _ in range(count)]
        if changes % 2 and day == changes % 7 and pool:
            out.append(Assignment(pool.pop(), day, 0, rng.choice(["E", "L"])))
    return Solution(assignments=tuple(out))


def random_nsplib(rng: random.Random, changes: int) -> Solution:
    """The full nurse-day grid of the base roster with ``changes`` cells redrawn."""
    grid = {(a.agent, a.day): a.value for a in base_solution("nsplib_small").assignments}
    for _ in range(changes):
        grid[rng.choice(sorted(grid))] = rng.choice(["S1", "S2", "Off"])
    return Solution(assignments=tuple(Assignment(n, d, 0, v) for (n, d), v in sorted(grid.items())))


def complete_solution(example: str, seed: int, changes: int) -> Solution:
    rng = random.Random(seed)
    if example in INTERVAL:
        return perturbed_interval(example, rng, changes)
    return {"itc2007_small": random_itc, "inrc2010_small": random_inrc, "nsplib_small": random_nsplib}[example](
        rng, changes)


THEMES = {"ft06": FT06_THEME, "itc2007_small": ITC_THEME, "inrc2010_small": INRC_THEME}
ROUND_TRIPS = [(example, False) for example in ALL_EXAMPLES] + [(example, True) for example in THEMES]


@pytest.mark.parametrize(("example", "themed"), ROUND_TRIPS)
@settings(deadline=None, max_examples=80)
@given(seed=st.integers(0, 2**32), changes=st.integers(0, 5))
@also(seed=0, changes=0)
def test_written_schedule_checks_as_evaluated(example: str, themed: bool, seed: int, changes: int) -> None:
    check = verifier(example, THEMES[example] if themed else None)
    solution = complete_solution(example, seed, changes)
    evaluation = evaluate(check.ctx, solution)
    report = check.check(check.write(solution))
    assert not report.issues, format_report(report)
    assert report.coverage == 1.0
    assert report.feasible == (not evaluation.violations), format_report(report)
    assert report.hard_violations == len(evaluation.violations)
    assert report.objective == evaluation.objective
    assert report.components == evaluation.components


def test_the_round_trip_sees_both_verdicts() -> None:
    """The generated schedules of (c) are feasible for some seeds and infeasible for others."""
    for example in ALL_EXAMPLES:
        check = verifier(example)
        verdicts = {check.check(check.write(complete_solution(example, seed, changes))).feasible
                    for seed in range(12) for changes in (0, 3, 5)}
        assert verdicts == {True, False}, example
