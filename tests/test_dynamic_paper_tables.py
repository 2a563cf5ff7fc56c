"""Calibration tables in the paper's layout (DynaSchedBench Table 1, Appendix E, Table g-3) and the SESC ablation.

The aggregates are checked on rows whose figures are written by hand; the ablation on real calibrations:
a family left out is never applied, and without slack scaling the tightness error stays where the
generator put it.
"""

from __future__ import annotations

import typing

import msgspec
import pytest

from schedc.dynamic import batch
from schedc.dynamic.calibrate import OPERATOR_FAMILIES, calibrate, operator_table
from schedc.dynamic.config import CalibrateSpec, expand, parse_config
from schedc.dynamic.generator import draft
from schedc.dynamic.paper_tables import (
    ABLATION_WITHOUT,
    PAPER_ABLATION,
    ablation_deltas,
    grid_key,
    outside_band,
    quartiles,
    success_rates,
    table1_entry,
)
from tests.test_dynamic_calibrate import GRID


def _row(name: str, l2: float, runtime: float, strict: bool = True, relaxed: bool = True) -> dict:
    return {"instance": name, "sesc": {"normalised_l2_after": l2, "runtime": runtime, "paper_strict": strict,
                                       "paper_relaxed": relaxed}}


def test_table1_entry_by_hand() -> None:
    rows = [_row("g_s1_000", 0.10, 1.0), _row("g_s2_000", 0.30, 3.0), _row("g_s3_000", 0.20, 2.0),
            _row("g_s1_001", 0.40, 4.0), _row("g_s2_001", 0.60, 5.0), _row("g_s1_002", 0.90, 9.0),
            {"instance": "g_s1_003", "moo": {"normalised_l2_after": 7.0, "runtime": 7.0}}]
    e = table1_entry(rows, "sesc")
    # L2 sorted: .1 .2 .3 .4 .6 .9 → median (.3+.4)/2; P25 at rank 1.25 → .2 + .25·.1; P75 at rank 3.75 → .4 + .75·.2
    assert e.l2 == pytest.approx((0.35, 0.225, 0.55))
    assert e.runs == 6 and e.points == 2  # point 002 has one seed: out of the seed columns
    # per point: 000 mean .2 std .1; 001 mean .5 std √0.02 = .141421
    assert e.seed_mean == pytest.approx((0.35, 0.275, 0.425))
    assert e.seed_std[0] == pytest.approx((0.1 + 0.02 ** 0.5) / 2)
    with pytest.raises(ValueError, match="no hybrid"):
        table1_entry(rows, "hybrid")


def test_success_deltas_keys_and_bands() -> None:
    reports = [_row("a", 0.01, 1)["sesc"], _row("b", 0.2, 1, strict=False, relaxed=False)["sesc"],
               _row("c", 0.05, 1, strict=False)["sesc"]]
    assert success_rates(reports) == pytest.approx((1 / 3, 2 / 3))
    full = {f"p{i}": 0.1 * i for i in range(1, 11)}
    ablated = {k: v + 0.05 for k, v in full.items()} | {"p10": 2.0, "extra": 9.0}
    mean, p90, n = ablation_deltas(full, ablated)
    # mean: 0.05 on nine points and 1.0 on p10 → (0.45 + 1.0) / 10 = 0.145; p90 sits at rank 0.9 · 9 = 8.1:
    # ablated 0.95 + 0.1 · (2.0 − 0.95) = 1.055, full 0.9 + 0.1 · 0.1 = 0.91
    assert n == 10 and mean == pytest.approx(0.145)
    assert p90 == pytest.approx(1.055 - 0.91)
    assert grid_key("dynasched_grid_s3_0042") == (3, 42)
    with pytest.raises(ValueError):
        grid_key("dfjsp_small")
    assert outside_band(0.01, (0.05, 0.03, 0.08)) and not outside_band(0.05, (0.05, 0.03, 0.08))
    assert quartiles([1.0]) == (1.0, 1.0, 1.0)


def test_ablation_variants_are_table_g3_in_families_schedc_has() -> None:
    assert [v for v, _, _ in PAPER_ABLATION] == list(ABLATION_WITHOUT)
    known = set(OPERATOR_FAMILIES)
    assert all(w is None or set(w) <= known for w in ABLATION_WITHOUT.values())
    field = typing.get_type_hints(CalibrateSpec)["without"]
    assert set(typing.get_args(typing.get_args(field)[0])) == known


def test_operator_table_drops_moves_and_repairs() -> None:
    assert set(operator_table()) == {"rate", "renewal", "processing", "window", "imbalance", "slack", "outages"}
    assert set(operator_table(("slack",))) == {"rate", "renewal", "processing", "window", "imbalance", "outages"}
    assert set(operator_table(("arrival", "bottleneck"))) == {"processing", "imbalance", "slack"}


def test_sesc_without_slack_scaling_leaves_tightness_off_target() -> None:
    points = expand(parse_config(GRID, "grid.toml"))
    for p in points[:4]:
        # a world drawn for τ* = 2.5, calibrated towards τ* = 4: only the allowances can close the gap
        start = draft(p)
        target = msgspec.structs.replace(p, targets=msgspec.structs.replace(p.targets, tightness=4.0))
        _, full = calibrate(target, start=start)
        off = msgspec.structs.replace(target, calibrate=msgspec.structs.replace(p.calibrate, without=["slack"]))
        _, ablated = calibrate(off, start=start)
        assert abs(full.errors_before["tightness"]) > 0.3
        assert abs(full.errors_after["tightness"]) < 0.05  # by slack scaling, as a move or as a repair
        assert "slack" not in ablated.applied and abs(ablated.errors_after["tightness"]) > 0.3


def test_batch_runs_the_methods_asked_for_on_the_points_named(tmp_path) -> None:
    config = tmp_path / "grid.toml"
    config.write_text(GRID, encoding="utf-8")
    names = [p.name for p in expand(parse_config(GRID, "grid.toml"))]
    rows = batch.calibrate(config, methods=("sesc", "baseline"), names={names[3], names[1]}, without=("arrival",))
    assert [r["instance"] for r in rows] == [names[1], names[3]]
    assert all(set(r) == {"instance", "sesc", "baseline"} for r in rows)
    assert all(not {"rate", "renewal"} & set(r["sesc"]["applied"]) for r in rows)
    with pytest.raises(Exception, match="unknown calibration method 'nsga'"):
        batch.calibrate(config, methods=("nsga",))
