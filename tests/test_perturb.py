"""``schedc perturb``: boundary pairs are feasible / infeasible as claimed (both backends agree on small
instances), variants are ordinary instances with their provenance in ``meta``, runs are deterministic per seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedc.cli import app
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.render import render
from schedc.variants import solve_instance
from schedc.variants.perturb import perturb
from tests import claim_audit as audit
from tests.conftest import ROOT

EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("*.sched"))
runner = CliRunner()


def base(name: str):
    instance = load_instance(ROOT / "examples" / f"{name}.sched")
    return instance, load_family(instance.family)


#: The scalars each example's boundary search must find (``--count 10 --seed 1``): every family's natural
#: scalar — the horizon (a makespan bound) of the shops, release dates of the dynamic shop, capacities of
#: RCPSP-MM, coverage demands, run minimums and maxima of the rostering families, the penalty bound.
#: (rcpsp_small's capacity already equals its largest demand; inrc2010_small's optimum is 0.)
NATURAL = {
    "dfjsp_small": {"release", "objective_bound"},
    "fjsp_small": {"objective_bound"},
    "flow_shop_small": {"objective_bound"},
    "ft06": {"objective_bound"},
    "inrc2010_small": {"coverage"},
    "itc2007_small": {"objective_bound"},
    "itc2007_exam_small": {"objective_bound"},
    "mrcpsp_small": {"nonrenewable_budget", "objective_bound"},
    "open_shop_small": {"objective_bound"},
    "operating_rooms": {"release", "objective_bound"},  # the emergency S4 arrives at 60
    "permutation_flow_shop_small": {"objective_bound"},
    "parallel_machines_small": {"objective_bound"},  # a weighted-sum objective: no makespan bound for releases
    "single_machine_small": {"objective_bound"},
    "nsplib_small": {"objective_bound", "consecutive_run_bounds", "consecutive_run_bounds.min", "coverage"},
    "rcpsp_small": {"objective_bound"},
    "mspsp_small": {"objective_bound"},
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_boundary_pairs_are_feasible_and_infeasible_as_claimed_by_both_backends(name: str, tmp_path: Path) -> None:
    from schedc.backends.pyomo import SolveOptions, solve

    instance, family = base(name)
    manifest = perturb(instance, family, tmp_path, "boundary", count=10, seed=1, time_limit=2.0, explain=0)
    assert json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8")) == manifest
    pairs = [manifest["variants"][k:k + 2] for k in range(0, len(manifest["variants"]), 2)]
    assert {p[0]["kind"] for p in pairs} == NATURAL[name] and len(pairs) == len(NATURAL[name])  # one per kind
    for feasible, infeasible in pairs:
        assert abs(feasible["value"] - infeasible["value"]) == 1 and feasible["kind"] == infeasible["kind"]
        assert (feasible["status"], infeasible["status"]) in (("optimal", "infeasible"), ("feasible", "infeasible"))
    for record in manifest["variants"]:
        variant = load_instance(tmp_path / record["file"])
        assert variant.meta.base == name and variant.meta.derivation == "boundary" and variant.meta.seed == 1
        assert variant.meta.changes == "; ".join(record["changes"])
        # the manifest's status and objective are CP-SAT's; Pyomo/HiGHS judges the written file independently
        pyomo = solve(variant, family, SolveOptions(time_limit=30), None)
        assert (pyomo.status == "infeasible") == (record["status"] == "infeasible"), record["file"]
        if record["status"] == "optimal" and pyomo.status == "optimal":
            assert pyomo.objective == record["objective"], record["file"]
        rendering = render(variant, family, "v4", 7)  # renders like any instance, stating the moved value
        assert not audit.bijection(rendering, variant) + audit.surface(rendering), record["file"]


def test_a_release_date_is_moved_against_the_bases_makespan() -> None:
    """dfjsp_small has releases and no deadlines: the horizon they are moved against is the base's makespan."""
    from schedc.kinds import ObjectiveBound, TimeWindow
    from schedc.variants.scalars import scalars

    instance, family = base("dfjsp_small")
    found = scalars(instance, family, z=15)["release"]
    assert [s.label for s in found] == [f"release of {t} (releases)" for t in ("J1", "J2", "J3", "J3.3")]
    j2 = found[1]
    assert (j2.value, j2.limit) == (2, 15)
    assert j2.changes(9) == ["added objective_bound bound_1 on the makespan with max=15",
                             "release of J2 (releases): 2 -> 9"]
    moved = j2.apply(instance, 9)
    assert moved.constraints[-1] == ObjectiveBound(id="bound_1", measure="makespan", max=15)
    window = next(c for c in moved.constraints if isinstance(c, TimeWindow))
    assert [(w.target, w.release) for w in window.windows] == [("J1", 0), ("J2", 9), ("J3", 5), ("J3.3", 12)]


def test_run_minimums_are_raised_towards_their_maximum_or_the_calendar() -> None:
    from schedc.variants.scalars import scalars

    instance, family = base("nsplib_small")
    found = scalars(instance, family, z=None)
    assert [(s.label, s.value, s.limit) for s in found["consecutive_run_bounds.min"]] == [("min of S2_runs", 2, 7)]
    assert [(s.label, s.value, s.limit) for s in found["count_bounds.min"]] == [("min of working_count", 3, 5)]
    assert "objective_bound" not in found  # no base value given: no objective bound to add


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
    assert bad.exit_code == 2 and "'chaos' is not one of" in " ".join(bad.output.split())  # Typer's choice error


# ---------------------------------------------------------------------------- sat


@pytest.mark.parametrize("name", EXAMPLES)
def test_twenty_sat_variants_stay_feasible_and_are_verified(name: str, tmp_path: Path) -> None:
    """Each variant is checked by the verifier against the written certificate (an answer text, as
    `schedc check` reads it); every tenth is re-solved independently (the solves are the cost)."""
    from schedc.verify.verifier import Verifier

    instance, family = base(name)
    manifest = perturb(instance, family, tmp_path, "sat", count=20, seed=1, time_limit=1.0)
    assert len(manifest["variants"]) == 20
    certificate = (tmp_path / f"{name}_certificate.txt").read_text(encoding="utf-8")
    assert Verifier(instance, family).check(certificate).feasible
    for k, record in enumerate(manifest["variants"]):
        variant = load_instance(tmp_path / record["file"])
        assert variant.meta.base == name and variant.meta.derivation == "sat" and variant.meta.seed == 1
        assert record["changes"] and variant.meta.changes == "; ".join(record["changes"])
        assert record["certificate"] == f"{name}_certificate.txt"
        report = Verifier(variant, family).check(certificate)
        assert report.feasible and report.hard_violations == 0 and not report.issues, record["file"]
        assert report.objective == record["reference_objective"]
        assert record["status"] in ("optimal", "feasible")
        assert record["objective"] <= record["reference_objective"]  # the certificate is one feasible schedule
        if record["status"] == "optimal":
            assert (variant.meta.bks, variant.meta.bks_kind) == (record["objective"], "optimal")
        if k % 10 == 0:
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

    from schedc.variants.sat import sat_variant
    from schedc.verify.evaluate import evaluate, make_context

    instance, family = base("ft06")
    certificate = solve_instance(instance, family, time_limit=1.0).solution
    assert certificate is not None
    rng = random.Random(0)
    for _ in range(10):
        variant, changes = sat_variant(instance, family, certificate, rng)
        assert changes and evaluate(make_context(variant, family), certificate).feasible
