"""``schedc perturb``: boundary pairs are feasible / infeasible as claimed (both backends agree on small
instances), variants are ordinary instances with their provenance in ``meta``, runs are deterministic per seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedc.api import load_instance
from schedc.cli import app
from schedc.family import load_family
from schedc.variants import solve_instance
from schedc.variants.perturb import perturb
from tests.conftest import ROOT

EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("*.sched"))
runner = CliRunner()


def base(name: str):
    instance = load_instance(ROOT / "examples" / f"{name}.sched")
    return instance, load_family(instance.family)


@pytest.mark.parametrize("name", EXAMPLES)
def test_boundary_pairs_are_feasible_and_infeasible_as_the_manifest_says(name: str, tmp_path: Path) -> None:
    instance, family = base(name)
    manifest = perturb(instance, family, tmp_path, "boundary", count=3, seed=1, time_limit=1.0, explain=0)
    assert manifest["variants"], f"{name}: no boundary found"
    assert json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8")) == manifest
    for record in manifest["variants"]:
        variant = load_instance(tmp_path / record["file"])
        assert variant.meta.base == name and variant.meta.derivation == "boundary" and variant.meta.seed == 1
        assert variant.meta.changes == "; ".join(record["changes"])
        solved = solve_instance(variant, family, time_limit=2.0)
        assert solved.status == record["status"]
        if record["status"] != "infeasible":
            assert solved.objective == record["objective"]
    pairs = [manifest["variants"][k:k + 2] for k in range(0, len(manifest["variants"]), 2)]
    for feasible, infeasible in pairs:
        assert abs(feasible["value"] - infeasible["value"]) == 1 and feasible["kind"] == infeasible["kind"]
    assert len({p[0]["kind"] for p in pairs}) == len(pairs)  # one scalar per kind


@pytest.mark.parametrize("name", ["rcpsp_small", "mrcpsp_small", "nsplib_small"])
def test_both_backends_agree_on_boundary_pairs(name: str, tmp_path: Path) -> None:
    from schedc.backends.pyomo import SolveOptions, solve

    instance, family = base(name)
    manifest = perturb(instance, family, tmp_path, "boundary", count=2, seed=3, time_limit=1.0, explain=0)
    for record in manifest["variants"]:
        variant = load_instance(tmp_path / record["file"])
        status = solve(variant, family, SolveOptions(time_limit=30), None).status
        assert (status == "infeasible") == (record["status"] == "infeasible"), record["file"]


def test_the_infeasible_side_names_its_conflict(tmp_path: Path) -> None:
    instance, family = base("mrcpsp_small")
    manifest = perturb(instance, family, tmp_path, "boundary", count=1, seed=1, time_limit=1.0)
    infeasible = [r for r in manifest["variants"] if r["status"] == "infeasible"]
    assert infeasible and all(r["conflict"] for r in infeasible)


def test_boundary_runs_are_deterministic_per_seed(tmp_path: Path) -> None:
    instance, family = base("nsplib_small")
    runs = [perturb(instance, family, tmp_path / str(k), "boundary", count=2, seed=4, time_limit=1.0, explain=0)
            for k in range(2)]
    assert runs[0] == runs[1]
    for record in runs[0]["variants"]:
        assert (tmp_path / "0" / record["file"]).read_bytes() == (tmp_path / "1" / record["file"]).read_bytes()


def test_the_cli_writes_variants_and_rejects_a_bad_mode(tmp_path: Path) -> None:
    spec = str(ROOT / "examples" / "rcpsp_small.sched")
    result = runner.invoke(app, ["perturb", spec, "-o", str(tmp_path), "--mode", "boundary", "--count", "1",
                                 "--seed", "2", "--time-limit", "1"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "manifest.json").exists() and "infeasible" in result.output
    bad = runner.invoke(app, ["perturb", spec, "-o", str(tmp_path / "x"), "--mode", "chaos"])
    assert bad.exit_code == 2 and "E803" in bad.output


# ---------------------------------------------------------------------------- sat


@pytest.mark.parametrize("name", EXAMPLES)
def test_twenty_sat_variants_stay_feasible_and_are_verified(name: str, tmp_path: Path) -> None:
    instance, family = base(name)
    manifest = perturb(instance, family, tmp_path, "sat", count=20, seed=1, time_limit=1.0)
    assert len(manifest["variants"]) == 20
    for record in manifest["variants"]:
        variant = load_instance(tmp_path / record["file"])
        assert variant.meta.base == name and variant.meta.derivation == "sat" and variant.meta.seed == 1
        assert record["changes"] and variant.meta.changes == "; ".join(record["changes"])
        assert record["status"] in ("optimal", "feasible") and record["reference_objective"] is not None
        assert record["objective"] <= record["reference_objective"]  # the certificate is one feasible schedule
        solved = solve_instance(variant, family, time_limit=1.0)
        assert solved.status in ("optimal", "feasible")
        if solved.status == record["status"] == "optimal":
            assert solved.objective == record["objective"]


def test_sat_runs_are_deterministic_per_seed_and_differ_across_seeds(tmp_path: Path) -> None:
    instance, family = base("rcpsp_small")
    runs = [perturb(instance, family, tmp_path / str(k), "sat", count=5, seed=seed, time_limit=1.0)
            for k, seed in enumerate((8, 8, 9))]
    changes = [[r["changes"] for r in run["variants"]] for run in runs]
    assert changes[0] == changes[1] != changes[2]
    for record in runs[0]["variants"]:
        assert (tmp_path / "0" / record["file"]).read_bytes() == (tmp_path / "1" / record["file"]).read_bytes()


def test_sat_changes_keep_the_certificate_feasible() -> None:
    """The operators' proposals are filtered by the certificate: every accepted change keeps it feasible."""
    import random

    from schedc.evaluate import evaluate, make_context
    from schedc.variants.sat import sat_variant

    instance, family = base("ft06")
    certificate = solve_instance(instance, family, time_limit=1.0).solution
    assert certificate is not None
    rng = random.Random(0)
    for _ in range(10):
        variant, changes = sat_variant(instance, family, certificate, rng)
        assert changes and evaluate(make_context(variant, family), certificate).feasible
