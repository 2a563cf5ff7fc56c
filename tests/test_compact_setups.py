"""Compact ``setup_times`` rows (issue 28): a constant row ``R * *`` and class rows ``R JOB JOB``.

A compact rule must mean exactly what its expansion into one activity row per ordered pair means: the
resolved matrix, the CP-SAT and Pyomo/HiGHS optima, and the verifier's violations and objective on
random schedules are compared between the two spellings. The expansions are written out here by the
precedence of :mod:`schedc.kinds.setup_times` (pair row, then class row, then ``* *``), independently
of :meth:`SetupTimes.matrix`.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from schedc.core.diagnostics import SchedcError
from schedc.core.solution import Solution
from schedc.ir import Family, Instance
from schedc.kinds import SetupTimes
from schedc.lang.family import load_family
from schedc.lang.parser import parse_instance_text
from schedc.lang.printer import print_instance
from schedc.verify.evaluate import evaluate, make_context

SURGERY = Path(__file__).parent / "data" / "user_families" / "surgery"
LAB = """family lab {
  title "Interval lab: compact setups"
  structure interval
  objective [makespan penalty setup_time]
  kinds [precedence_lag unary_no_overlap mode_choice setup_times time_window tardiness no_idle]
  answer "<job> step <step>: start=<start>"
  roles [job "job" operation "step" machine "machine"]
}
"""


def table(head: str, rows: list[str]) -> str:
    return "\n".join([f"{head} table", *(f"  {r}" for r in rows), "end"])


# ============================================================================ operating rooms: R * *

def surgeries(n: int, rng: random.Random) -> list[tuple[str, int, tuple[str, ...]]]:
    """``n`` surgeries: name, duration and the rooms it may take (one mode per room)."""
    return [(f"S{i}", rng.randint(1, 4), ("R1", "R2") if rng.random() < 0.6 else ("R1",)) for i in range(1, n + 1)]


def operating_rooms(ops: list[tuple[str, int, tuple[str, ...]]], setups: str, seed: int) -> Instance:
    rng = random.Random(seed)
    rows = [f"{name} {k} {d} {int(room == 'R1')} {int(room == 'R2')} {i % 2} {1 - i % 2}"
            for i, (name, d, rooms) in enumerate(ops) for k, room in enumerate(rooms, start=1)]
    text = "\n".join(["instance ors family surgery", "resources table", "  R1 unary", "  R2 unary", "  D1 unary",
                      "  D2 unary", "end", table("activities (R1 R2 D1 D2)", rows),
                      "hard unary_no_overlap rooms_and_surgeons", "hard mode_choice modes", setups,
                      table("soft 1 tardiness lateness", [f"{n} {rng.randint(2, 7)} {rng.randint(1, 3)}"
                                                         for n, _, _ in ops]),
                      "minimize penalty", ""])
    return parse_instance_text(text, search=[SURGERY])


def users(ops: list[tuple[str, int, tuple[str, ...]]], room: str) -> list[str]:
    return [name for name, _, rooms in ops if room in rooms]


def expanded_rooms(ops: list[tuple[str, int, tuple[str, ...]]], constant: dict[str, int],
                   pairs: dict[tuple[str, str, str], int]) -> list[str]:
    """One activity row per ordered pair of distinct surgeries a room may run: the pair's own time, else
    the room's constant."""
    return [f"{room} {a} {b} {pairs.get((room, a, b), time)}" for room, time in constant.items()
            for a in users(ops, room) for b in users(ops, room) if a != b]


def random_schedules(instance: Instance, rng: random.Random, count: int) -> list[Solution]:
    out = []
    for _ in range(count):
        starts = {a.name: rng.randint(0, 12) for a in instance.activities}
        modes = {a.name: rng.randint(1, len(a.modes)) for a in instance.activities}
        out.append(Solution(starts=starts, modes=modes))
    return out


def verdicts(instance: Instance, family: Family, schedules: list[Solution]) -> list[object]:
    ctx = make_context(instance, family)
    out: list[object] = []
    for s in schedules:
        ev = evaluate(ctx, s)
        out.append((ev.objective, ev.feasible, [(v.constraint, v.amount, v.message) for v in ev.violations],
                    [(v.constraint, v.amount, v.message) for v in ev.penalties]))
    return out


def solve(instance: Instance, family: Family, backend: str) -> tuple[str, int | None]:
    from schedc.backends import get_backend

    module = get_backend(backend)
    result = module.solve(instance, family, module.SolveOptions(time_limit=30, workers=1))
    return result.status, result.objective


def matrix_of(instance: Instance, cid: str) -> dict[str, dict[tuple[str, str], int]]:
    rule = next(c for c in instance.constraints if c.id == cid)
    assert isinstance(rule, SetupTimes)
    return rule.matrix(instance)


def test_a_constant_row_is_every_pair_of_ten_surgeries() -> None:
    """The operating-room case of issue 28: one row ``R1 * * 15`` instead of 90."""
    ops = [(f"S{i}", 2, ("R1",)) for i in range(1, 11)]
    compact = operating_rooms(ops, table("hard setup_times cleaning", ["R1 * * 15"]), 0)
    rows = expanded_rooms(ops, {"R1": 15}, {})
    assert len(rows) == 90
    expanded = operating_rooms(ops, table("hard setup_times cleaning", rows), 0)
    assert matrix_of(compact, "cleaning") == matrix_of(expanded, "cleaning")
    family = load_family("surgery", [SURGERY])
    schedules = random_schedules(compact, random.Random(1), 30)
    assert verdicts(compact, family, schedules) == verdicts(expanded, family, schedules)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("modality", ["hard", "soft 2"])
def test_a_constant_row_means_its_expansion_in_both_backends_and_the_verifier(seed: int, modality: str) -> None:
    rng = random.Random(seed)
    ops = surgeries(5, rng)
    first, second = rng.sample(users(ops, "R1"), 2)
    compact_rows = ["R1 * * 2", "R2 * * 1", f"R1 {first} {second} 0"]
    compact = operating_rooms(ops, table(f"{modality} setup_times cleaning", compact_rows), seed)
    rows = expanded_rooms(ops, {"R1": 2, "R2": 1}, {("R1", first, second): 0})
    expanded = operating_rooms(ops, table(f"{modality} setup_times cleaning", rows), seed)
    assert matrix_of(compact, "cleaning") == matrix_of(expanded, "cleaning")
    family = load_family("surgery", [SURGERY])
    schedules = random_schedules(compact, rng, 25)
    assert verdicts(compact, family, schedules) == verdicts(expanded, family, schedules)
    for backend in ("cpsat", "pyomo"):
        status, objective = solve(compact, family, backend)
        assert status == "optimal"
        assert (status, objective) == solve(expanded, family, backend), backend
    free = operating_rooms(ops, table(f"{modality} setup_times cleaning", ["R1 * * 0"]), seed)
    assert solve(free, family, "cpsat")[1] < objective  # the setups bind: the comparison is not vacuous


# ============================================================================ a class matrix over jobs


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lab")
    (path / "lab.sched").write_text(LAB, encoding="utf-8")
    return path


def shop(folder: Path, jobs: list[str], *statements: str, objective: str = "makespan + setup_time") -> Instance:
    text = "\n".join(["instance t family lab", "resources table", "  M1 unary", "  M2 unary", "end",
                      table("jobs", jobs), "hard unary_no_overlap machines", "hard mode_choice modes",
                      *statements, f"minimize {objective}", ""])
    return parse_instance_text(text, search=[folder])


#: the class matrix of the tests: three families of jobs on M1, the constant for the others,
#: one pair of operations overriding its jobs' row
CLASS_ROWS = ["M1 J1 J2 3", "M1 J2 J1 1", "M1 J1 J1 2", "M1 J3 J1 4", "M1 * * 1", "M1 J2.1 J1.3 0", "M2 J2 J3 2"]


def expand_classes(instance: Instance, rows: list[str]) -> list[str]:
    """One activity row per ordered pair that some row of ``rows`` covers, by the precedence pair > jobs > * *."""
    given = {tuple(r.split()[:3]): r.split()[3] for r in rows}
    out = []
    for resource in dict.fromkeys(r.split()[0] for r in rows):
        on = [a for a in instance.activities if any(u.resource == resource for m in a.modes for u in m.uses)]
        for a in on:
            for b in on:
                keys = [(resource, a.name, b.name), (resource, a.job, b.job), (resource, "*", "*")]
                found = [given[k] for k in keys if k in given]
                if a.name != b.name and found:
                    out.append(f"{resource} {a.name} {b.name} {found[0]}")
    return out


@pytest.mark.parametrize("seed", range(3))
def test_a_class_matrix_means_its_expansion_in_both_backends_and_the_verifier(folder: Path, seed: int) -> None:
    rng = random.Random(10 + seed)
    jobs = [f"J{j} M1:{rng.randint(1, 3)} M2:{rng.randint(1, 3)}" for j in range(1, 4)] + ["J4 M1:2"]
    jobs[0] += f" M1:{rng.randint(1, 2)}"  # J1 twice on M1: the J1 J1 row applies between J1.1 and J1.3
    chains = table("hard precedence_lag p", ["J1.1 -> J1.2 -> J1.3", "J2.1 -> J2.2", "J3.1 -> J3.2"])
    idle = "hard no_idle flow resources=[M2]"  # reads the setups of M2 (the J2 J3 row) through the same table
    compact = shop(folder, jobs, chains, idle, table("hard setup_times s", CLASS_ROWS))
    rows = expand_classes(compact, CLASS_ROWS)
    expanded = shop(folder, jobs, chains, idle, table("hard setup_times s", rows))
    assert matrix_of(compact, "s") == matrix_of(expanded, "s")
    assert matrix_of(compact, "s")["M1"][("J1.1", "J1.3")] == 2 and matrix_of(compact, "s")["M1"][("J4.1", "J1.1")] == 1
    family = load_family("lab", [folder])
    schedules = [Solution(starts={a.name: rng.randint(0, 15) for a in compact.activities}) for _ in range(25)]
    assert verdicts(compact, family, schedules) == verdicts(expanded, family, schedules)
    for backend in ("cpsat", "pyomo"):
        status, objective = solve(compact, family, backend)
        assert status == "optimal"
        assert (status, objective) == solve(expanded, family, backend), backend


def test_a_pair_row_overrides_a_class_row_which_overrides_the_constant(folder: Path) -> None:
    inst = shop(folder, ["J1 M1:1", "J2 M1:1 M1:1", "J3 M1:1"],
                table("hard setup_times s", ["M1 * * 5", "M1 J2 J1 3", "M1 J2.2 J1.1 0"]))
    times = matrix_of(inst, "s")["M1"]
    assert times[("J2.2", "J1.1")] == 0 and times[("J2.1", "J1.1")] == 3 and times[("J1.1", "J2.1")] == 5
    assert len(times) == 4 * 3  # every ordered pair of the four operations on M1


def test_compact_rows_print_back(folder: Path) -> None:
    inst = shop(folder, ["J1 M1:1", "J2 M1:2"], table("soft 2 setup_times s", ["M1 * * 5", "M1 J2 J1 3"]))
    text = print_instance(inst, load_family("lab", [folder]))
    assert "M1 * * 5" in text and "M1 J2 J1 3" in text
    assert parse_instance_text(text, search=[folder]).constraints == inst.constraints


# ============================================================================ rendering


@pytest.mark.parametrize("variant", ["v1", "v2", "v3A", "v3B", "v4"])
def test_the_rendering_states_the_constant_once(variant: str) -> None:
    from schedc.render import render
    from tests import claim_audit as audit

    ops = [(f"S{i}", 2, ("R1",)) for i in range(1, 11)]
    inst = operating_rooms(ops, table("hard setup_times cleaning", ["R1 * * 15"]), 0)
    family = load_family("surgery", [SURGERY])
    rendering = render(inst, family, variant, 7, [SURGERY])
    text = rendering.text()
    assert "every changeover between two surgeries takes 15 time units" in text
    assert "right after" not in text  # no pair is listed
    assert "unlisted pairs" not in text and "other pairs" not in text  # * * leaves no pair without a setup
    problems = (audit.bijection(rendering, inst) + audit.wording(rendering, family)
                + audit.contradictions(rendering, inst, family))
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("variant", ["v1", "v2", "v3A", "v3B", "v4"])
def test_the_rendering_of_a_class_matrix_passes_the_claim_audit(folder: Path, variant: str) -> None:
    from schedc.render import render
    from tests import claim_audit as audit

    inst = shop(folder, ["J1 M1:2 M2:1 M1:1", "J2 M1:1 M2:2", "J3 M1:2 M2:1", "J4 M1:2"],
                table("hard setup_times s", CLASS_ROWS))
    family = load_family("lab", [folder])
    rendering = render(inst, family, variant, 7, [folder])
    text = rendering.text()
    jobs = ("job J1", "job J2") if variant in ("v1", "v2", "v3B") else ("", "")  # v3A, v4: themed names
    assert f"a changeover from any step of {jobs[0]}" in text and f"to any step of {jobs[1]}" in text
    assert "takes 3 time units" in text
    assert ("a setup listed for one pair of steps overrides the one listed for their jobs, which overrides the one for "
            "every changeover") in text
    problems = (audit.bijection(rendering, inst) + audit.wording(rendering, family)
                + audit.contradictions(rendering, inst, family))
    assert not problems, "\n".join(problems[:10])
    if variant == "v1":
        solutions = audit.probes(inst, family, random.Random(7), randoms=40)
        made, disagreements = audit.verdicts_disagree(rendering, inst, family, solutions)
        assert made > 0 and not disagreements, "\n".join(disagreements[:10])


# ============================================================================ errors


@pytest.mark.parametrize(("rows", "message", "where"), [
    (["M1 J1.1 J2.1 1", "M1 * J2.1 2"], "* stands for every activity in both FROM and TO or in neither", "14:6"),
    (["M1 J1.1 J2.1 1", "M3 * * 2"], "undefined resource 'M3'", "14:3"),
    (["M1 J9 J2 2"], "'J9' is neither an activity nor a job", "13:3"),
    (["M1 J1 J2.1 2"], "J1 is a job and J2.1 is an activity", "13:3"),
    (["M2 J1 J2 2"], "no activity of job J1 uses M2", "13:3"),
])
def test_a_bad_compact_row_is_a_positioned_error(folder: Path, rows: list[str], message: str, where: str) -> None:
    with pytest.raises(SchedcError) as exc:
        shop(folder, ["J1 M1:3", "J2 M1:2 M2:1"], table("hard setup_times s", rows))
    assert message in str(exc.value)
    assert f":{where}:" in str(exc.value)
