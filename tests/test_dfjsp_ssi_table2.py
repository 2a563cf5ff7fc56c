"""The Table 2 pieces of benchmarks/dfjsp_ssi.py: quintile means with bootstrap intervals, the pool
split and subsample, the best fixed rule and the gap readings. Synthetic data, nothing calibrated."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmarks.dfjsp_ssi import best_fixed_rule, gap_definitions, limit_pool, quintile_table, split_configs
from schedc.dynamic.rules import RULE_NAMES

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "dfjsp"


def test_quintile_table_on_a_known_answer() -> None:
    ssi = np.arange(50.0)[::-1]  # reversed: the groups come from the SSI order, not the input order
    gap = 2 * ssi
    table = quintile_table(ssi, gap, seed=3, resamples=2000)
    assert table.size == 10
    assert table.bottom == pytest.approx(9.0)  # mean of 2·(0..9)
    assert table.top == pytest.approx(89.0)  # mean of 2·(40..49)
    assert table.difference == pytest.approx(80.0)
    for mean, (low, high), span in ((table.bottom, table.bottom_ci, (0, 18)), (table.top, table.top_ci, (80, 98)),
                                    (table.difference, table.difference_ci, (62, 98))):
        assert span[0] <= low < mean < high <= span[1]
    assert quintile_table(ssi, gap, seed=3, resamples=2000) == table  # seeded: the same intervals again


def test_quintile_table_with_constant_groups_has_point_intervals() -> None:
    ssi = np.arange(20.0)
    gap = np.where(ssi < 10, 5.0, 30.0)
    table = quintile_table(ssi, gap, seed=0, resamples=500)
    assert (table.bottom, table.top, table.difference) == (5.0, 30.0, 25.0)
    assert table.bottom_ci == pytest.approx((5.0, 5.0)) and table.difference_ci == pytest.approx((25.0, 25.0))


def test_limit_pool_is_a_seeded_ordered_subsample() -> None:
    points = list(range(100))
    picked = limit_pool(points, 10, seed=1)  # type: ignore[arg-type]
    assert len(picked) == 10 == len(set(picked)) and picked == sorted(picked)
    assert picked == limit_pool(points, 10, seed=1)  # type: ignore[arg-type]
    assert picked != limit_pool(points, 10, seed=2)  # type: ignore[arg-type]
    assert limit_pool(points, None, seed=1) is points and limit_pool(points, 500, seed=1) is points  # type: ignore[arg-type]


def test_split_configs_pools_by_file_name() -> None:
    pools = split_configs([str(EXAMPLES / "dynasched_sweep_centroid.toml"),
                           str(EXAMPLES / "dynasched_sweep_tightness.toml")])
    assert pools["grid"] == [] and len(pools["sweep"]) == 5 + 110
    with pytest.raises(SystemExit):
        split_configs([str(EXAMPLES / "small.toml")])


def row(spans: dict[str, int], random_policy: int) -> dict:
    rules = dict.fromkeys(RULE_NAMES, 1000) | spans
    return {"rules": rules, "random_policy": random_policy}


def test_best_fixed_rule_and_gaps() -> None:
    a, b = RULE_NAMES[3], RULE_NAMES[5]
    # a is best on the first instance, b on the second; b is closer to the best on average, so it wins
    rows = [row({a: 500, b: 505}, 700), row({a: 1000, b: 990}, 1200)]
    assert best_fixed_rule(rows) == b
    fixed, gaps = gap_definitions(rows, seed=0)
    assert fixed == b
    primary, oracle, random_rule = gaps.values()
    assert list(primary) == [700 - 505, 1200 - 990]
    assert list(oracle) == [700 - 500, 1200 - 990]
    assert all(g >= 0 for g in random_rule)


def test_several_random_runs_add_a_mean_row() -> None:
    a = RULE_NAMES[0]
    rows = [row({a: 500}, 700) | {"random_policy_runs": [700, 800, 900]},
            row({a: 400}, 600) | {"random_policy_runs": [600, 500, 700]}]
    fixed, gaps = gap_definitions(rows, seed=0)
    assert fixed == a and len(gaps) == 4
    assert list(gaps[f"mean of 3 random-policy runs − best fixed rule ({a})"]) == [300.0, 200.0]
