"""Rostering levers: the kind pattern that selects them, the greedy first-feasible roster, the
agent-row LNS and the hint of slot starts."""

from __future__ import annotations

import msgspec
import pytest

from schedc.backends.cpsat import CpsatModel, SolveOptions, solve
from schedc.backends.cpsat.roster_lns import improve_roster
from schedc.backends.cpsat.roster_start import (
    ROSTER_PARAMETERS,
    greedy_start,
    is_open_roster,
    is_roster,
    roster_parameters,
)
from schedc.importers import import_paths
from schedc.ir import Instance
from schedc.kinds import Constraint, Coverage
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.verify.evaluate import evaluate, make_context
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


def test_the_lns_ends_when_asked(sprint01: Instance) -> None:
    """A stop requested half a second in ends the step under way and the search (a 60 s budget),
    and the best roster so far is returned, verified and no worse than the start."""
    import time

    m = CpsatModel(sprint01, load_family("inrc2010"), named=False)
    start = greedy_start(m.ctx)
    assert start is not None
    began = time.perf_counter()
    improved = improve_roster(m, start, seconds=60.0, seed=0, stop=lambda: time.perf_counter() - began > 0.5)
    assert time.perf_counter() - began < 5.0
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
