"""Forms of the interval kinds both backends now encode: pausable breaks (with several modes and
optional activities), the objective terms of jobs whose activities are all optional, and the soft
forms of ``setup_times``, ``no_idle`` and ``consecutive``.

Each form is judged three ways on small seeded instances: CP-SAT's and the MILP's optima are equal,
they equal a brute-force minimum over every schedule of a small horizon judged by the evaluator's
``count`` (``tally``), and with every decision fixed both backends report the evaluator's feasibility,
objective and per-constraint penalties (the fixed-assignment oracle). A hand-made instance per form
shows that the form changes the optimum.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from backends.pyomo.pausable import work_time
from schedc.backends.cpsat.solve import fixed_verdict as cpsat_verdict
from schedc.backends.pyomo import fixed_verdict as pyomo_verdict
from schedc.core.solution import Solution
from schedc.ir import Instance
from schedc.kinds.measures import MEASURES
from schedc.kinds.timing import stretched_end
from schedc.verify.evaluate import evaluate, make_context, tally
from tests.test_interval_kinds import family_of, folder, shop, solve, table  # noqa: F401  (fixture)


def brute_force(instance: Instance, folder: Path, horizon: int) -> int | None:  # noqa: F811
    """The least objective of a feasible schedule with every start in ``[0, horizon)`` (every mode,
    every optional activity in or out), by the evaluator's counts."""
    ctx = make_context(instance, family_of(folder))
    names = [a.name for a in instance.activities]
    choices = [[(s, k) for s in range(horizon) for k in range(1, len(a.modes) + 1)]
               + ([None] if a.name in ctx.optional else []) for a in instance.activities]
    best = None
    for combo in itertools.product(*choices):
        solution = Solution(starts={n: c[0] for n, c in zip(names, combo, strict=True) if c},
                            modes={n: c[1] for n, c in zip(names, combo, strict=True) if c})
        t = tally(ctx, solution)
        if t.violations == 0 and t.objective is not None and (best is None or t.objective < best):
            best = t.objective
    return best


def assert_optimum(instance: Instance, folder: Path, horizon: int) -> int:  # noqa: F811
    """Both backends reach the brute-force optimum, and the evaluator accepts their answers with it."""
    expected = brute_force(instance, folder, horizon)
    results = {b: solve(instance, folder, b) for b in ("cpsat", "pyomo")}
    for backend, result in results.items():
        assert result.status == "optimal", backend
        assert result.objective == expected, (backend, result.objective, expected)
        ev = evaluate(make_context(instance, family_of(folder)), result.solution)
        assert ev.feasible and ev.objective == expected
    assert expected is not None
    return expected


def assert_oracle(instance: Instance, folder: Path, solution: Solution) -> bool:  # noqa: F811
    """Both fixed models agree with the evaluator on one schedule; True when it is feasible."""
    family = family_of(folder)
    ev = evaluate(make_context(instance, family), solution)
    wanted = {k: v for k, v in ev.components.items() if v}
    for verdict in (cpsat_verdict, pyomo_verdict):
        feasible, objective, components = verdict(instance, family, solution)
        assert feasible == ev.feasible, (verdict.__module__, solution, [v.message for v in ev.violations])
        if feasible:
            assert objective == ev.objective, (verdict.__module__, solution)
            assert {k: v for k, v in components.items() if v} == wanted, (verdict.__module__, solution)
    return ev.feasible


def sequenced(instance: Instance, rng: random.Random, optional: frozenset[str] = frozenset()) -> Solution:
    """A schedule without overlaps on any machine: the activities one after another in a random order,
    random gaps, random modes, optional ones sometimes left out."""
    order = list(instance.activities)
    rng.shuffle(order)
    starts, modes, t = {}, {}, 0
    for a in order:
        if a.name in optional and rng.random() < 0.3:
            continue
        k = rng.randint(1, len(a.modes))
        t += rng.choice((0, 0, 1, 2, 3))
        starts[a.name], modes[a.name] = t, k
        t += a.modes[k - 1].duration + 3  # room for the longest break of these instances
    return Solution(starts=starts, modes=modes)


# ============================================================================ pausable breaks


def test_work_coordinates_give_the_stretched_end() -> None:
    """The MILP's closed forms ``S = w + Σ L_b [w ≥ P_b]`` and ``E = w + d + Σ L_b [w + d > P_b]``
    equal the kind's ``stretched_end`` at every start outside the breaks."""
    rng = random.Random(3)
    for _ in range(200):
        cuts = sorted(rng.sample(range(1, 30), 6))
        breaks = [(lo, hi) for lo, hi in zip(cuts[::2], cuts[1::2], strict=True)]
        for start in range(0, 32):
            if any(lo <= start < hi for lo, hi in breaks):
                continue
            w = work_time(start, breaks)
            for d in range(1, 9):  # zero-length work does not pause (no sequence holds it)
                total = sum(hi - lo for lo, hi in breaks if w >= work_time(lo, breaks))
                assert w + total == start
                stretch = sum(hi - lo for lo, hi in breaks if w + d > work_time(lo, breaks))
                assert w + d + stretch == stretched_end(start, d, breaks)


PAUSE = table("hard resource_downtime lunch pausable=true", "M1 2 4 lunch", "M1 7 8")


def test_pausing_over_a_break_shortens_the_schedule(folder: Path) -> None:  # noqa: F811
    """One operation of 4 on M1 with a break [2, 4): 8 when it must wait for the break, 6 when it pauses."""
    stop = shop(folder, ["J1 M1:4"], table("hard resource_downtime lunch", "M1 2 4"))
    pause = shop(folder, ["J1 M1:4"], table("hard resource_downtime lunch pausable=true", "M1 2 4"))
    assert assert_optimum(stop, folder, 9) == 8
    assert assert_optimum(pause, folder, 9) == 6


@pytest.mark.parametrize("seed", range(3))
def test_pausable_breaks_with_modes_and_optional_work(folder: Path, seed: int) -> None:  # noqa: F811
    """J1 pauses over M1's breaks or runs on M2 (down, not pausable, in [3, 5)); exactly one of J2 and J3."""
    rng = random.Random(40 + seed)
    jobs = [f"J1 M1:{rng.randint(2, 4)}/M2:{rng.randint(3, 5)}", f"J2 M1:{rng.randint(1, 3)}",
            f"J3 M2:{rng.randint(1, 2)}/M1:{rng.randint(1, 3)}"]
    inst = shop(folder, jobs, PAUSE, table("hard resource_downtime repair", "M2 3 5"),
                table("hard optional o", "exactly_one J2.1 J3.1"),
                table("hard time_window w", f"J2 0 due={rng.randint(3, 6)} weight=3", "J3 1"),
                objective="makespan + tardiness")
    assert_optimum(inst, folder, 9)
    feasible = sum(assert_oracle(inst, folder, sequenced(inst, rng, frozenset({"J2.1", "J3.1"}))) for _ in range(6))
    assert feasible > 0


def test_every_start_of_a_pausing_operation_has_the_evaluators_end(folder: Path) -> None:  # noqa: F811
    """Both fixed models at every start and mode of one operation (work ending just as a break begins
    included): feasible exactly outside the breaks, with the stretched end as the makespan."""
    inst = shop(folder, ["J1 M1:3/M2:2"], table("hard resource_downtime lunch pausable=true", "M1 2 4", "M1 5 6"),
                table("hard optional o", "optional J1.1"))
    verdicts = [assert_oracle(inst, folder, Solution(starts={"J1.1": t}, modes={"J1.1": k}))
                for t in range(9) for k in (1, 2)]
    assert verdicts == [t not in (2, 3, 5) or k == 2 for t in range(9) for k in (1, 2)]


def test_a_start_inside_a_break_is_refused_by_both_fixed_models(folder: Path) -> None:  # noqa: F811
    inst = shop(folder, ["J1 M1:3/M2:3", "J2 M1:2"], PAUSE, table("hard optional o", "optional J2.1"))
    assert not assert_oracle(inst, folder, Solution(starts={"J1.1": 3}, modes={"J1.1": 1}))  # inside [2, 4)
    assert assert_oracle(inst, folder, Solution(starts={"J1.1": 3}, modes={"J1.1": 2}))  # M2 has no break
    assert assert_oracle(inst, folder, Solution(starts={"J1.1": 0, "J2.1": 4}, modes={"J1.1": 2}))


# ============================================================================ jobs of optional activities


@pytest.mark.parametrize("measure", [m for m in MEASURES if m not in ("penalty", "makespan", "setup_time")])
def test_objective_terms_of_jobs_that_may_be_left_out(folder: Path, measure: str) -> None:  # noqa: F811
    """J2 and J3 consist of optional work only (J3 of two activities, one of which is performed):
    a job left out has no completion and adds nothing to any term."""
    inst = shop(folder, ["J1 M1:2", "J2 M1:3", "J3 M1:1 M2:2"],
                table("hard optional o", "optional J2.1", "exactly_one J3.1 J3.2"),
                table("hard time_window w", "J1 1 due=2 weight=2", "J2 1 due=5 weight=3", "J3 2 due=4"),
                objective=measure)
    assert_optimum(inst, folder, 7)
    rng = random.Random(len(measure))
    optional = frozenset({"J2.1", "J3.1", "J3.2"})
    assert sum(assert_oracle(inst, folder, sequenced(inst, rng, optional)) for _ in range(5)) > 0


def test_max_lateness_of_no_performed_job_is_zero(folder: Path) -> None:  # noqa: F811
    inst = shop(folder, ["J1 M1:2", "J2 M1:3"], table("hard optional o", "optional J1.1 J2.1"),
                table("hard time_window w", "J1 0 due=9", "J2 0 due=7"), objective="max_lateness")
    assert assert_oracle(inst, folder, Solution(starts={}))
    assert assert_optimum(inst, folder, 4) == -7  # J1 alone at 0: 2 − 9 (J2 alone: 3 − 7; both: at best −2)


# ============================================================================ soft sequencing rules


def test_soft_forms_change_the_optimum(folder: Path) -> None:  # noqa: F811
    """Hard setups, no-idle and consecutive pairs cost time; soft ones can be cheaper to break."""
    jobs = ["J1 M1:2", "J2 M1:2"]
    order = table("hard precedence_lag p", "J1.1 -> J2.1")
    setup = "M1 J1.1 J2.1 5"
    hard = shop(folder, jobs, order, table("hard setup_times s", setup), objective="2*makespan + penalty")
    soft = shop(folder, jobs, order, table("soft 1 setup_times s", setup), objective="2*makespan + penalty")
    assert assert_optimum(hard, folder, 8) == 18  # 2 + 5 + 2
    assert assert_optimum(soft, folder, 8) == 13  # back to back, the 5 setup units missed
    window = table("hard time_window w", "J1 0 due=2 weight=2", "J2 5")
    hard = shop(folder, jobs, window, "hard no_idle f resources=[M1]", objective="makespan + tardiness + penalty")
    soft = shop(folder, jobs, window, "soft 1 no_idle f resources=[M1]", objective="makespan + tardiness + penalty")
    assert assert_optimum(hard, folder, 8) == 7 + 2 * 3  # J1 waits to end at 5, 3 late
    assert assert_optimum(soft, folder, 8) == 7 + 3  # J1 on time, 3 idle units
    jobs = ["J1 M1:2", "J2 M1:1", "J3 M1:2"]
    window = table("hard time_window w", "J1 0 due=2 weight=3", "J3 0 due=4 weight=3")
    pair = table("hard consecutive c", "J1.1 J2.1")
    hard = shop(folder, jobs, window, pair, objective="tardiness + penalty")
    soft = shop(folder, jobs, window, pair.replace("hard", "soft 2"), objective="tardiness + penalty")
    assert assert_optimum(hard, folder, 6) == 3  # J1 J2 J3: J3 ends at 5
    assert assert_optimum(soft, folder, 6) == 2  # J1 J3 J2, the pair broken


def soft_instance(folder: Path, rng: random.Random) -> Instance:  # noqa: F811
    """Three operations on M1 (one of them flexible between M1 and M2) with random soft and hard setups,
    a soft no-idle M1 and a soft consecutive pair; objective makespan + tardiness + penalty."""
    durations = [rng.randint(1, 3) for _ in range(3)]
    jobs = [f"J1 M1:{durations[0]}/M2:{durations[0] + 1}", f"J2 M1:{durations[1]}", f"J3 M1:{durations[2]}"]
    names = ["J1.1", "J2.1", "J3.1"]
    pairs = [(a, b) for a in names for b in names if a != b]
    rows = [f"M1 {a} {b} {rng.randint(1, 3)}" for a, b in rng.sample(pairs, 3)]
    first, second = rng.sample(names, 2)
    return shop(folder, jobs, table(f"soft {rng.randint(1, 2)} setup_times s", *rows[:2]),
                table("hard setup_times h", rows[2]), f"soft {rng.randint(1, 2)} no_idle f resources=[M1]",
                table(f"soft {rng.randint(1, 3)} consecutive c", f"{first} {second}"),
                table("hard time_window w", *(f"J{j} 0 due={rng.randint(2, 6)}" for j in range(1, 4))),
                objective="makespan + tardiness + penalty")


@pytest.mark.parametrize("seed", range(3))
def test_soft_sequencing_rules_in_both_backends(folder: Path, seed: int) -> None:  # noqa: F811
    rng = random.Random(500 + seed)
    inst = soft_instance(folder, rng)
    assert_optimum(inst, folder, 10)


def test_soft_sequencing_rules_agree_with_the_evaluator_on_fixed_schedules(folder: Path) -> None:  # noqa: F811
    """Every penalty of a soft sequencing rule is the evaluator's, schedule by schedule, in both fixed models."""
    rng = random.Random(77)
    feasible = penalised = 0
    for _ in range(4):
        inst = soft_instance(folder, rng)
        for _ in range(6):
            solution = sequenced(inst, rng)
            feasible += assert_oracle(inst, folder, solution)
            ev = evaluate(make_context(inst, family_of(folder)), solution)
            penalised += any(ev.components.get(c, 0) for c in ("s", "f", "c"))
    assert feasible >= 12 and penalised >= 8


def test_a_zero_length_operation_breaks_its_consecutive_pair(folder: Path) -> None:  # noqa: F811
    """J1.1 takes no time on M1, so it is in no sequence of M1 and cannot be directly followed by J2.1."""
    jobs = ["J1 M1:0", "J2 M1:2"]
    pair = table("hard consecutive c", "J1.1 J2.1")
    hard = shop(folder, jobs, pair, objective="makespan + penalty")
    soft = shop(folder, jobs, pair.replace("hard", "soft 3"), objective="makespan + penalty")
    assert [v.amount for v in evaluate(make_context(soft, family_of(folder)),
                                       Solution(starts={"J1.1": 0, "J2.1": 0})).penalties] == [1]
    assert {solve(hard, folder, b).status for b in ("cpsat", "pyomo")} == {"infeasible"}
    assert assert_optimum(soft, folder, 3) == 2 + 3
