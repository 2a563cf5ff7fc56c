"""The DynaSchedBench pieces of the dynamic shop: χ calibration, strategy choice, paper success,
NSGA-II baselines, SSI tiers, literature machine rules and the simulator's O(√N) state."""

from __future__ import annotations

import math

import msgspec
import numpy as np
import pytest
from typer.testing import CliRunner

from benchmarks.dfjsp_grid import point_of
from schedc.core.diagnostics import SchedcError
from schedc.dynamic.calibrate import calibrate
from schedc.dynamic.config import TargetPoint, parse_config
from schedc.dynamic.generator import draft
from schedc.dynamic.imbalance import group_loads, rebalance_groups
from schedc.dynamic.metrics import error_vector, metrics_from_arrays, op_work_time
from schedc.dynamic.rules import MACHINE_RULES, CompositeRule, run_policy
from schedc.dynamic.simstate import CHUNK, JobVector
from schedc.dynamic.simulator import Simulator
from schedc.dynamic.ssi import tier
from schedc.dynamic.strategy import Penalty, Selector, predict
from schedc.dynamic.success import normalised_l2, success, thresholds
from tests.test_dynamic_generator import PLANT
from tests.test_dynamic_simulator import random_world

TARGETS = {"utilisation": 0.85, "tightness": 3.0, "arrival_scv": 1.0, "processing_scv": 0.5,
           "disturbance": 0.05, "imbalance": 0.2}


def grid_point(seed: int = 5, **targets: float):
    return point_of(TARGETS | targets, seed=seed, jobs=120, name=f"p{seed}")


# ----------------------------------------------------------------------------- χ


def test_chi_zero_is_a_valid_target_and_negative_is_not() -> None:
    base = f"{PLANT}\n[scale]\nhorizon = 100\n[targets]\nutilisation = 0.8\n"
    parse_config(base + "imbalance = 0.0\n")
    with pytest.raises(SchedcError, match=r"imbalance: expected 0 ≤ χ\* < 10"):
        parse_config(base + "imbalance = -0.1\n")


@pytest.mark.parametrize("chi", [0.0, 0.1, 0.35])
def test_group_rebalancing_hits_chi_and_keeps_the_total_work(chi: float) -> None:
    d = draft(grid_point())
    work_before = op_work_time(d.arrays())[0].sum()
    out = rebalance_groups(d, chi, np.random.default_rng(0))
    rho, _ = group_loads(out)
    assert abs(rho.std() / rho.mean() - chi) < 0.01  # integer rounding only
    assert abs(op_work_time(out.arrays())[0].sum() / work_before - 1) < 0.01
    assert (out.dur[d.dur > 0] >= 1).all() and ((out.dur > 0) == (d.dur > 0)).all()


@pytest.mark.parametrize("selection", ["impact", "exhaustive"])
def test_sesc_reaches_paper_strict_success_with_chi_targeted(selection: str) -> None:
    for seed, chi in ((1, 0.0), (2, 0.3)):
        p = grid_point(seed, imbalance=chi)
        p = msgspec.structs.replace(p, calibrate=msgspec.structs.replace(p.calibrate, selection=selection))
        world, report = calibrate(p)
        assert report.paper_strict and report.normalised_l2_after < 0.02, (seed, report.errors_after)
        assert report.normalised_l2_after < report.normalised_l2_before
        assert world.meta["calibration"] == "sesc"


# ----------------------------------------------------------------------------- paper success


def test_normalised_l2_and_success_by_hand() -> None:
    targets = TargetPoint(utilisation=0.8, arrival_scv=1.0, processing_scv=2.0, tightness=3.0, disturbance=0.0,
                          imbalance=0.2)
    errors = {"utilisation": 0.05, "arrival_scv": -0.1, "processing_scv": 0.1, "tightness": 0.0,
              "disturbance": 0.02, "imbalance": 0.1}
    diff = [0.05 * 0.8, -0.1, 0.1 * 2, 0, 0.02, 0.1 * 0.2]
    expected = math.sqrt(sum(x * x for x in diff)) / math.sqrt(0.64 + 1 + 4 + 9 + 0 + 0.04)
    assert normalised_l2(errors, targets) == pytest.approx(expected)
    theta = thresholds(targets)
    assert theta["processing_scv"] == 0.18 and theta["utilisation"] == 0.06 and theta["imbalance"] == 0.15
    assert success(errors, targets) == (True, True)
    assert success(errors | {"utilisation": 0.07}, targets) == (False, True)
    assert success(errors, targets, {"arrival_scv": 0.05}) == (False, True)
    assert success(errors, targets, l2_tolerance=0.01) == (False, False)


# ----------------------------------------------------------------------------- strategy choice


def test_penalty_protects_satisfied_metrics() -> None:
    phi = Penalty(lambda_soft=1.0, lambda_hard=100.0, epsilon_tol=0.05)
    old = {"a": 0.01, "b": 0.5}
    assert phi.score({"a": 0.01, "b": 0.1}, old) == pytest.approx(0.0001 + 0.01)
    assert phi.score({"a": 0.15, "b": 0.0}, old) == pytest.approx(0.0225 + 100 * 0.01)  # pushed out of the band
    assert phi.score({"a": 0.0, "b": 0.6}, old) == pytest.approx(0.36 + 0.01)  # worse outside: soft
    assert predict({"a": 0.2, "b": 0.4}, {"a": 1.0, "b": -0.5}) == pytest.approx({"a": 0.0, "b": 0.5})


def test_selector_orders_by_prediction_and_stops_at_the_first_improvement() -> None:
    errors = {"utilisation": 0.3, "tightness": 0.01}
    results = {"rate": {"utilisation": 0.0, "tightness": 0.01}, "slack": {"utilisation": 0.3, "tightness": 0.0}}
    asked: list[str] = []

    def evaluate(name: str):
        asked.append(name)
        return (results[name], name) if name in results else None

    impact = Selector(Penalty())
    assert impact.choose(errors, ["slack", "rate"], evaluate) == ("rate", "rate") and asked == ["rate"]
    asked.clear()
    assert Selector(Penalty(), exhaustive=True).choose(errors, ["slack", "rate"], evaluate) == ("rate", "rate")
    assert asked == ["slack", "rate"]
    assert Selector(Penalty()).choose({"tightness": 0.0}, ["slack"], lambda n: ({"tightness": 0.1}, n)) is None


# ----------------------------------------------------------------------------- NSGA-II baselines


def test_moo_and_hybrid_calibrators() -> None:
    pytest.importorskip("pymoo", reason="the moo extra (pymoo) is not installed")
    from schedc.dynamic.moo import NsgaOptions, hybrid_calibrate, inputs_point, moo_calibrate

    p = grid_point(3)
    doubled = inputs_point(p, np.array([1.5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]))
    rho = metrics_from_arrays(draft(doubled).arrays()).utilisation
    assert rho > 1.3 * metrics_from_arrays(draft(p).arrays()).utilisation
    _, moo = moo_calibrate(p, NsgaOptions(population=8, generations=2))
    assert moo.method == "moo" and moo.evaluations <= 16
    again = moo_calibrate(p, NsgaOptions(population=8, generations=2))[1]
    assert again.errors_after == moo.errors_after  # seeded
    _, hybrid = hybrid_calibrate(p, NsgaOptions(population=8, generations=2))
    assert hybrid.method == "hybrid" and hybrid.normalised_l2_after <= moo.normalised_l2_after


# ----------------------------------------------------------------------------- SSI, rules, simulator


def test_ssi_tiers() -> None:
    assert [tier(v) for v in (10, 42.4, 42.5, 48.9, 49, 90)] == ["easy", "easy", "medium", "medium", "hard", "hard"]
    assert tier(50, (40, 55)) == "medium"


class Checked:
    """FIFO with a machine rule, asserting the rule's defining property at every decision."""

    def __init__(self, machine_rule: str):
        self.rule = CompositeRule("FIFO", machine_rule)
        self.name = self.rule.name
        self.checked = 0

    def choose(self, sim: Simulator, state):
        op, machine = self.rule.choose(sim, state)
        t = state.time
        start = {m: sim.earliest_start(m, sim.ready_at(state, m), sim.estimate(op, m, t), t)
                 for m in sim.eligible(op, t)}
        if self.rule.machine_rule in ("SPT", "LIT"):
            assert start[machine] == min(start.values())  # available now or earliest
        if self.rule.machine_rule == "SPT":
            fastest = min(sim.estimate(op, m, t) for m, s in start.items() if s == start[machine])
            assert sim.estimate(op, machine, t) == fastest
        self.checked += 1
        return op, machine


@pytest.mark.parametrize("machine_rule", sorted(MACHINE_RULES))
def test_machine_rules_pick_by_their_definition(machine_rule: str) -> None:
    world = random_world(60, 6, seed=4)
    sim = Simulator(world)
    policy = Checked(machine_rule)
    assert run_policy(sim, policy).done and policy.checked > 50


def test_job_vector_is_a_tuple_that_shares_chunks() -> None:
    v = JobVector.filled(-1, 3 * CHUNK + 5)
    w = v.set(CHUNK + 2, 7)
    assert list(v) == [-1] * len(v) and w[CHUNK + 2] == 7 and w[-1] == -1 and len(w) == 3 * CHUNK + 5
    assert w.chunks[0] is v.chunks[0] and w.chunks[2] is v.chunks[2] and v != w
    assert w.set(CHUNK + 2, -1) == v


def test_bisected_outage_scans_agree_with_a_plain_scan() -> None:
    world = random_world(80, 5, seed=9)
    sim = Simulator(world)
    rng = np.random.default_rng(1)
    for _ in range(400):
        m, t, ready, d = int(rng.integers(5)), int(rng.integers(300)), int(rng.integers(300)), int(rng.integers(15))
        outages = sim.machine_outages[m]
        assert sim.down(m, t) == any(o.start <= t < o.end for o in outages)
        s = ready
        while True:  # the first s ≥ ready whose run overlaps no outage known at t
            hit = [o for o in outages if (o.cause == "maintenance" or o.start <= t)
                   and o.start < s + max(d, 1) and o.end > s]
            if not hit:
                break
            s = max(o.end for o in hit)
        assert sim.earliest_start(m, ready, d, t) == s


def test_calibrate_cli_reports_paper_figures_and_rejects_bad_thresholds(tmp_path) -> None:
    from schedc.cli import app

    config = tmp_path / "c.toml"
    config.write_text(f"{PLANT}\n[scale]\nhorizon = 200\n[targets]\nutilisation = 0.8\nimbalance = 0.1\n"
                      "[calibrate]\nenabled = true\n", encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(app, ["calibrate", str(config), "--threshold", "imbalance=0.3"])
    assert done.exit_code == 0 and "norm. L2 before → after" in done.output and "paper strict" in done.output
    bad = runner.invoke(app, ["calibrate", str(config), "--threshold", "speed=0.3"])
    assert bad.exit_code != 0 and "expected KEY=VALUE" in bad.output and "Traceback" not in bad.output


def test_error_vector_reports_chi_zero_absolutely() -> None:
    p = grid_point(7, imbalance=0.0)
    metrics = metrics_from_arrays(draft(p).arrays())
    assert error_vector(metrics, p.targets)["imbalance"] == pytest.approx(metrics.imbalance)
