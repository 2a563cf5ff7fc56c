"""The counting path of ``bench eval`` gives the same verdicts as ``schedc check``.

``Verifier.check(text, detail=False)`` evaluates with :func:`schedc.verify.evaluate.tally` (each
constraint's ``count``, e.g. the heap sweep of ``unary_no_overlap``) instead of building every
violation record. These tests compare it with the plain path constraint by constraint on random
schedules of specs that use every kind, and answer by answer — valid, all-at-zero, perturbed,
structured, unknown names, prose — against the JSON of the ``schedc check`` command.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from schedc.backends.search.heuristics import serial_schedule
from schedc.bench.evaluate import _verdict, check_group
from schedc.cli import app
from schedc.core.solution import Solution
from schedc.kinds.context import View
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.verify.evaluate import evaluate, make_context, tally
from schedc.verify.verifier import Verifier, format_report
from tests.test_kinds import complete_spec, random_solution  # noqa: F401  (fixture)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SPECS = sorted(p for p in EXAMPLES.glob("*.sched"))
runner = CliRunner()


@pytest.mark.parametrize("seed", range(12))
def test_every_constraints_count_matches_its_check(complete_spec, seed: int) -> None:  # noqa: F811
    rng = random.Random(seed)
    violated: set[str] = set()
    for spec in complete_spec:
        ctx = spec.context()
        for fill in (1.0, 0.6):
            solution = random_solution(ctx, rng, fill)
            view = View(ctx, solution)
            for constraint in spec.instance.constraints:
                listed = Counter(v.amount for v in constraint.check(ctx, view))
                assert constraint.count(ctx, view) == dict(listed), (constraint.id, seed)
                if listed:
                    violated.add(type(constraint).__struct_config__.tag)
            full, counted = evaluate(ctx, solution), tally(ctx, solution)
            assert counted.sizes == dict(Counter((v.kind, v.amount) for v in full.violations))
            assert (counted.components, counted.hard_amounts, counted.objective) == \
                (full.components, full.hard_amounts, full.objective)
            assert counted.violations == len(full.violations)
    assert violated  # random schedules break some constraints


def test_counts_on_crowded_and_spread_schedules() -> None:
    """All at 0 (every pair overlaps), touching intervals and zero-length ones (never conflict)."""
    instance = load_instance(EXAMPLES / "ft06.sched")
    ctx = make_context(instance)
    [unary] = [c for c in instance.constraints if type(c).__struct_config__.tag == "unary_no_overlap"]
    rng = random.Random(7)
    names = list(ctx.activities)
    schedules = [{n: 0 for n in names}, {n: 3 * k for k, n in enumerate(names)},
                 {n: rng.randrange(4) for n in names}, {n: rng.randrange(60) for n in names}]
    for starts in schedules:
        view = View(ctx, Solution(starts=starts, modes={n: 1 for n in names}))
        for constraint in instance.constraints:  # unary_no_overlap and precedence_lag override count
            assert constraint.count(ctx, view) == dict(Counter(v.amount for v in constraint.check(ctx, view)))
    zero = View(ctx, Solution(starts={n: 0 for n in names}, modes={n: 1 for n in names}))
    assert unary.count(ctx, zero) == {1: 6 * 15}  # 6 machines, every pair of 6 jobs
    [routes] = [c for c in instance.constraints if type(c).__struct_config__.tag == "precedence_lag"]
    assert routes.count(ctx, zero) == {1: 6 * 5}  # every step after the first of each of the 6 jobs


def _answers(verifier: Verifier, rng: random.Random) -> list[str]:
    """Good and bad answers to one instance."""
    instance = verifier.instance
    if instance.activities:
        valid = verifier.write(serial_schedule(instance))
        if not verifier.check(valid).feasible:  # the serial heuristic waits for no setup (operating_rooms' cleaning)
            from schedc.backends import cpsat

            solved = cpsat.solve(instance, verifier.family, cpsat.SolveOptions(time_limit=10, workers=1, seed=0))
            assert solved.solution is not None
            valid = verifier.write(solved.solution)
        zero = verifier.write(Solution(starts={a.name: 0 for a in instance.activities},
                                       modes={a.name: 1 for a in instance.activities}))
    else:
        ctx = verifier.ctx
        valid = verifier.write(random_solution(ctx, rng, 0.7))
        zero = verifier.write(random_solution(ctx, rng, 1.0))
    lines = valid.splitlines()
    shuffled = lines[:]
    rng.shuffle(shuffled)
    dropped = [line for line in lines if rng.random() > 0.2]
    repeated = lines + lines[: max(1, len(lines) // 5)]
    renamed = [line.replace(line.split("|")[0].split(",")[0][:3], "Zz", 1) if k % 4 == 0 else line
               for k, line in enumerate(lines)]
    digits = [line.replace("1", "7").replace("0", "2") for line in lines]
    structured = json.dumps({"assignments": [{"line": line} for line in lines[:3]]})
    return [valid, zero, "\n".join(shuffled), "\n".join(dropped), "\n".join(repeated), "\n".join(renamed),
            "\n".join(digits), "```\n" + valid + "```\nMakespan: 12\nTotal cost: 4", structured,
            "I cannot solve this.", "", "**" + "\n- ".join(lines[:5]) + "** (done)"]


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_counting_path_gives_the_check_commands_json(spec: Path, tmp_path: Path) -> None:
    instance = load_instance(spec)
    family = load_family(instance.family)
    verifier = Verifier(instance, family)
    rng = random.Random(spec.stem)
    answers = _answers(verifier, rng)
    feasible = 0
    for k, text in enumerate(answers):
        full, fast = verifier.check(text), verifier.check(text, detail=False)
        assert msgspec.structs.replace(full, violations=[]) == fast, (spec.stem, k)
        assert fast.hard_violations >= len(full.violations)
        feasible += full.feasible
        if k < 8:  # the command's JSON is the plain path's report
            path = tmp_path / f"answer{k}.txt"
            path.write_text(text, encoding="utf-8")
            result = runner.invoke(app, ["check", str(spec), str(path), "--json"])
            assert result.exit_code == (0 if full.feasible else 1), result.output
            assert json.loads(result.output) == json.loads(msgspec.json.encode(full))
    assert 0 < sum(not verifier.check(t).feasible for t in answers)
    if instance.activities:
        assert feasible > 0  # the heuristic's answer


def test_bench_eval_rows_equal_the_plain_reports(tmp_path: Path) -> None:
    """``check_group`` (the eval worker) against ``_verdict`` of the plain report, answer by answer."""
    for spec in SPECS:
        instance = load_instance(spec)
        verifier = Verifier(instance, load_family(instance.family))
        answers = _answers(verifier, random.Random(spec.stem + "eval"))
        slots = [{"model": "m", "id": f"{spec.stem}/{k}", "instance": instance.name, "family": instance.family,
                  "difficulty": "easy", "variant": "v1", "seed": 42, "names": [], "text": text}
                 for k, text in enumerate(answers)]
        rows = check_group({"spec": str(spec), "slots": slots, "reference": None})
        for slot, row in zip(slots, rows, strict=True):
            base = {k: slot[k] for k in ("model", "id", "instance", "family", "difficulty", "variant", "seed")}
            assert row == _verdict(base, verifier.check(slot["text"])), slot["id"]


def _listed(text: str) -> tuple[list[str], list[str]]:
    """(items under the verdict line, items under "not counted as violations:") of a text report."""
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith(("FEASIBLE", "INFEASIBLE")))
    counted: list[str] = []
    others: list[str] = []
    target = counted
    for line in lines[start + 1:]:
        if line == "not counted as violations:":
            target = others
        elif line.startswith("  "):
            target.append(line)
        else:
            break
    return counted, others


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_the_text_report_lists_as_many_violations_as_it_counts(spec: Path) -> None:
    """``INFEASIBLE: H hard violations`` is followed by exactly H items; uncounted issues (missing lines,
    repeats under ``--duplicates warn``) are listed apart; VR = H / produced lines (docs/check.md).
    Before: missing lines were listed among the violations ("1 hard violations" over two items)."""
    instance = load_instance(spec)
    rng = random.Random(spec.stem)
    for policy in ("error", "warn"):
        verifier = Verifier(instance, None, duplicates=policy)
        for text in _answers(verifier, rng):
            report = verifier.check(text)
            if not report.extracted:
                continue
            counted, others = _listed(format_report(report, limit=10**9))
            assert report.hard_violations == len(counted) == sum(i.counted for i in report.issues) \
                + len(report.violations)
            assert len(others) == sum(not i.counted for i in report.issues)
            assert all(i.kind != "missing" or not i.counted for i in report.issues)
            assert report.violation_rate == pytest.approx(report.hard_violations / report.produced, abs=1e-6)
            assert f"violation rate {report.hard_violations}/{report.produced} = " in format_report(report)
            shown, _ = _listed(format_report(report, limit=3))  # past the limit: a note says how many more
            assert len(shown) == min(len(counted), 3) + (len(counted) > 3)
            if len(counted) > 3:
                assert shown[-1] == f"  … {len(counted) - 3} more hard violations (see --json)"
