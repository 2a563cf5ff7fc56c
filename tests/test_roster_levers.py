"""Rostering levers: the kind pattern that selects them, the greedy first-feasible roster, the
agent-row LNS, the hint of slot starts, and the counted ``mixed_values`` encoding (checked
against the evaluator with every decision fixed, in both backends)."""

from __future__ import annotations

import random

import msgspec
import pytest

from schedc.api import load_instance
from schedc.backends import pyomo as milp
from schedc.backends import sequence_encoders
from schedc.backends.cpsat import CpsatModel, SolveOptions, solve
from schedc.backends.cpsat.roster_lns import improve_roster
from schedc.backends.cpsat.roster_start import (
    ROSTER_PARAMETERS,
    greedy_start,
    is_open_roster,
    is_roster,
    roster_parameters,
)
from schedc.backends.cpsat.solve import fixed_verdict
from schedc.evaluate import evaluate, make_context
from schedc.family import load_family
from schedc.importers import import_paths
from schedc.ir import Instance
from schedc.kinds import Constraint, Coverage, WindowPatternCost
from schedc.solution import Assignment, Solution
from tests.conftest import DATA, ROOT


@pytest.fixture(scope="module")
def sprint01() -> Instance:
    return import_paths("inrc2010", [DATA / "inrc2010" / "sprint01.xml"], DATA / "inrc2010" / "bks.csv")[0]


@pytest.fixture(scope="module")
def n25() -> Instance:
    nsplib = DATA / "nsplib"
    return import_paths("nsplib", [nsplib / "N25" / "1.nsp"], cases=[nsplib / "Cases" / "6.gen"])[0]  # with hard runs


def test_the_pattern_selects_rosters_by_their_kinds(sprint01: Instance, n25: Instance) -> None:
    comp01 = import_paths("itc2007", [DATA / "itc2007" / "comp01.ctt"], DATA / "itc2007" / "bks.csv")[0]
    ft06 = load_instance(ROOT / "examples" / "ft06.sched")
    assert is_roster(sprint01) and is_open_roster(sprint01)
    assert is_roster(n25) and not is_open_roster(n25)  # hard count bounds and runs: no greedy
    assert not is_roster(comp01) and not is_roster(ft06)
    family = load_family("inrc2010")
    m = CpsatModel(sprint01, family, named=False)
    assert roster_parameters(m, 1) == ROSTER_PARAMETERS and roster_parameters(m, 2) == {}
    assert roster_parameters(CpsatModel(comp01, load_family("itc2007"), named=False), 1) == {}


def test_the_greedy_roster_meets_every_hard_rule(sprint01: Instance) -> None:
    ctx = make_context(sprint01)
    start = greedy_start(ctx)
    assert start is not None
    result = evaluate(ctx, start)
    assert result.feasible and result.objective is not None and result.objective > 0
    cover = next(c for c in sprint01.constraints if isinstance(c, Coverage))
    staffed = {(a.day, a.value) for a in start.assignments}
    assert all((r.day, r.value) in staffed for r in cover.requirements if r.min)


def test_the_greedy_gives_up_when_a_slot_cannot_be_staffed(sprint01: Instance) -> None:
    def overstaff(c: Constraint) -> Constraint:
        if not isinstance(c, Coverage):
            return c
        first, *rest = c.requirements
        return msgspec.structs.replace(c, requirements=(msgspec.structs.replace(first, min=11, max=11), *rest))

    short = msgspec.structs.replace(sprint01, constraints=tuple(overstaff(c) for c in sprint01.constraints))
    assert greedy_start(make_context(short)) is None


def test_the_lns_keeps_a_verified_roster_no_worse_than_its_start(sprint01: Instance) -> None:
    m = CpsatModel(sprint01, load_family("inrc2010"), named=False)
    start = greedy_start(m.ctx)
    assert start is not None
    improved = improve_roster(m, start, seconds=3.0, seed=0)
    before, after = evaluate(m.ctx, start), evaluate(m.ctx, improved)
    assert after.feasible and after.objective is not None and before.objective is not None
    assert after.objective <= before.objective


def test_a_roster_solved_with_one_worker_is_no_worse_than_the_greedy(sprint01: Instance) -> None:
    family = load_family("inrc2010")
    greedy = evaluate(make_context(sprint01), greedy_start(make_context(sprint01)))  # type: ignore[arg-type]
    result = solve(sprint01, family, SolveOptions(time_limit=4, workers=1, seed=0))
    assert result.objective is not None and greedy.objective is not None
    assert result.objective <= greedy.objective
    assert result.bound is not None and result.bound <= 56  # the published optimum of sprint01


def test_a_slot_start_is_kept_when_the_search_has_no_time(sprint01: Instance) -> None:
    """A given start for a slot instance hints CP-SAT and is reported when nothing better is found."""
    ctx = make_context(sprint01)
    start = greedy_start(ctx)
    assert start is not None
    result = solve(sprint01, load_family("inrc2010"), SolveOptions(time_limit=0.05, workers=1, local_search=0),
                   start=start)
    assert result.objective is not None and result.objective <= evaluate(ctx, start).objective  # type: ignore[operator]


# ------------------------------------------------------------------ counted mixed_values: the oracle


def _answers(instance: Instance, count: int, seed: int) -> list[Solution]:
    """Random answers: some days with several values (the general form of the cost), some free."""
    ctx = make_context(instance)
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        cells = []
        for agent in ctx.agents:
            for day in range(ctx.days):
                if rng.random() < 0.75:
                    for value in rng.sample(ctx.values, k=rng.choice((1, 1, 1, 2))):
                        cells.append(Assignment(agent, day, 0, value))
        out.append(Solution(assignments=tuple(cells)))
    return out


def _weekends_only(instance: Instance) -> Instance:
    """The instance with its weekend rules only, soft (every answer is feasible)."""
    kept = tuple(c for c in instance.constraints if isinstance(c, WindowPatternCost))
    return msgspec.structs.replace(instance, constraints=kept)


@pytest.mark.parametrize("backend", ["cpsat", "pyomo"])
def test_counted_mixed_values_agree_with_the_evaluator(sprint01: Instance, backend: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sequence_encoders, "COMBINATIONS", 0)  # every window counted
    instance = _weekends_only(sprint01)
    family = load_family("inrc2010")
    verdict = fixed_verdict if backend == "cpsat" else milp.fixed_verdict
    ctx = make_context(instance)
    nonzero = 0
    for solution in _answers(instance, 6, seed=3):
        result = evaluate(ctx, solution)
        feasible, objective, components = verdict(instance, family, solution)
        assert feasible and result.feasible
        assert objective == result.objective
        assert {k: v for k, v in components.items() if v} == {k: v for k, v in result.components.items() if v}
        nonzero += sum(1 for k, v in result.components.items() if v and "identical" in k)
    assert nonzero  # the answers exercise the cost


@pytest.mark.parametrize("hard", [False, True])
def test_counted_mixed_values_accept_exactly_the_windows_the_evaluator_accepts(
        sprint01: Instance, hard: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every assignment of one agent's first weekend (free or one of the values, each day), the
    counted encoding: the evaluator's cost (soft), the evaluator's feasibility (hard)."""
    ctx = make_context(sprint01)
    rule = next(c for c in sprint01.constraints if isinstance(c, WindowPatternCost) and c.cost == "mixed_values")
    rule = msgspec.structs.replace(rule, hard=hard)
    instance = msgspec.structs.replace(sprint01, constraints=(rule,))
    family = load_family("inrc2010")
    agent = ctx.select(rule.agents)[0]
    weekend = next(w for w in ctx.windows(rule.windows) if len(w) >= rule.min_length)
    choices = [None, *ctx.values]
    answers = []
    for first in choices:
        for second in choices:
            cells = [Assignment(agent, d, 0, v) for d, v in zip(weekend, (first, second), strict=True) if v]
            answers.append(Solution(assignments=tuple(cells)))
    monkeypatch.setattr(sequence_encoders, "COMBINATIONS", 0)
    costs = set()
    for solution in answers:
        result = evaluate(make_context(instance), solution)
        feasible, objective, _ = fixed_verdict(instance, family, solution, time_limit=5)
        assert feasible == result.feasible
        if feasible:
            assert objective == result.objective
            costs.add(objective)
    assert costs == ({0} if hard else {0, 2})  # hard: only the cost-free windows are accepted
