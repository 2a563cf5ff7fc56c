"""Classic scheme generators: deterministic per seed, the scheme's distributions, and optima that an
independent brute force over all sequences confirms."""

from __future__ import annotations

import itertools
import re

import pytest
from typer.testing import CliRunner

import schedc
from schedc.cli import app
from schedc.generators import SdstParams, WtParams, sdst_instance, wt_instance


def numbers(text: str, pattern: str) -> list[tuple[int, ...]]:
    return [tuple(map(int, m)) if isinstance(m, tuple) else (int(m),) for m in re.findall(pattern, text)]


def test_same_seed_same_bytes_other_seed_other_instance() -> None:
    assert wt_instance(WtParams(), 5) == wt_instance(WtParams(), 5)
    assert wt_instance(WtParams(), 5) != wt_instance(WtParams(), 6)
    assert sdst_instance(SdstParams(), 2) == sdst_instance(SdstParams(), 2)
    assert sdst_instance(SdstParams(), 2) != sdst_instance(SdstParams(), 3)


@pytest.mark.parametrize(("tf", "rdd"), [(0.2, 0.2), (0.6, 1.0), (1.0, 0.2)])
def test_wt_follows_the_scheme(tf: float, rdd: float) -> None:
    text = wt_instance(WtParams(jobs=100, tf=tf, rdd=rdd), 1)
    p = [x for (x,) in numbers(text, r"M1:(\d+)")]
    dues = numbers(text, r"due=(\d+) weight=(\d+)")
    assert len(p) == len(dues) == 100
    assert all(1 <= x <= 100 for x in p) and all(1 <= w <= 10 for _, w in dues)
    total = sum(p)
    low, high = max(0, round(total * (1 - tf - rdd / 2))), round(total * (1 - tf + rdd / 2))
    assert all(low <= d <= max(low, high) for d, _ in dues)
    assert len({d for d, _ in dues}) > 50  # drawn, not constant
    instance = schedc.load(text)
    assert instance.family == "single_machine" and instance.objective.measure == "tardiness"


def test_wt_optimum_matches_a_brute_force() -> None:
    text = wt_instance(WtParams(jobs=6, tf=0.6, rdd=0.4), 11)
    p = [x for (x,) in numbers(text, r"M1:(\d+)")]
    dues = numbers(text, r"due=(\d+) weight=(\d+)")

    def cost(order: tuple[int, ...]) -> int:
        t, total = 0, 0
        for j in order:
            t += p[j]
            total += dues[j][1] * max(0, t - dues[j][0])
        return total

    best = min(cost(order) for order in itertools.permutations(range(6)))
    solved = schedc.solve(text, time_limit=20, workers=1)
    assert solved.status == "optimal" and solved.objective == best


def test_sdst_follows_the_scheme_and_its_optimum_matches_a_brute_force() -> None:
    text = sdst_instance(SdstParams(jobs=4, machines=2, setup_max=9), 4)
    rows = numbers(text, r"M(\d) J(\d+)\.1 J(\d+)\.1 (\d+)")
    assert len(rows) == 2 * 4 * 3 and all(1 <= s <= 9 for *_, s in rows)
    setup = {(m, j, k): s for m, j, k, s in rows}
    cells = re.findall(r"^  J(\d+) (\S+)$", text, re.MULTILINE)
    p = {(int(m), int(j)): int(d) for j, row in cells for m, d in re.findall(r"M(\d+):(\d+)", row)}
    assert all(1 <= d <= 99 for d in p.values())

    def machine_time(m: int, jobs: tuple[int, ...]) -> int:
        if not jobs:
            return 0
        return min(sum(p[m, j] for j in order) + sum(setup[m, a, b] for a, b in itertools.pairwise(order))
                   for order in itertools.permutations(jobs))

    best = min(max(machine_time(1, tuple(j for j, m in zip(range(1, 5), split, strict=True) if m == 1)),
                   machine_time(2, tuple(j for j, m in zip(range(1, 5), split, strict=True) if m == 2)))
               for split in itertools.product((1, 2), repeat=4))
    solved = schedc.solve(text, time_limit=20, workers=1)
    assert solved.status == "optimal" and solved.objective == best


def test_the_cli_writes_checkable_files(tmp_path) -> None:
    result = CliRunner().invoke(app, ["generate-classic", "wt", "-o", str(tmp_path), "--jobs", "5", "--count", "2",
                                      "--seed", "7"])
    assert result.exit_code == 0, result.output
    files = sorted(tmp_path.glob("*.sched"))
    assert [f.name for f in files] == ["wt5_tf06_rdd06_s7.sched", "wt5_tf06_rdd06_s8.sched"]
    assert all(schedc.load(f).name == f.stem for f in files)
    bad = CliRunner().invoke(app, ["generate-classic", "wt", "-o", str(tmp_path), "--tf", "1.5"])
    assert bad.exit_code != 0 and "--tf and --rdd must lie in [0, 1]" in bad.output


def test_generated_files_are_canonical() -> None:
    from schedc.pipeline.files import format_text

    for text in (wt_instance(WtParams(jobs=5), 1), sdst_instance(SdstParams(jobs=3), 1)):
        assert format_text(text) == text
