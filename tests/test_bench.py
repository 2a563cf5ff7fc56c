"""SCHEDBench: build, eval (with statistics), run against a local server, validate."""

from __future__ import annotations

import csv
import json
import math
import shutil
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from schedc.bench import build as bench_build
from schedc.bench.evaluate import evaluate, variant_pairs
from schedc.bench.run import run
from schedc.bench.selection import natural_key, ordered, select
from schedc.bench.stats import band_conditions, pair_stats, seed_deltas, verdict, wilson
from schedc.bench.validate import validate
from schedc.cli import app
from schedc.importers.common import read_bks
from tests.conftest import DATA, shared_or_skip

VARIANTS, SEEDS = ["v1", "v2"], [42, 43]


def _copy_sources(target: Path) -> Path:
    """tests/data laid out like shared/data (PSPLIB files in their set folders)."""
    for family in ("jsplib", "itc2007", "inrc2010", "nsplib"):
        shutil.copytree(DATA / family, target / family, ignore=shutil.ignore_patterns("solutions"))
    for family, suffix in (("psplib-sm", ".sm"), ("psplib-mm", ".mm")):
        (target / family).mkdir(parents=True)
        shutil.copy(DATA / family / "bks.csv", target / family / "bks.csv")
        for path in (DATA / family).glob(f"*{suffix}"):
            subset = path.stem[:3]
            (target / family / subset).mkdir(exist_ok=True)
            shutil.copy(path, target / family / subset / path.name)
    return target


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _copy_sources(tmp_path_factory.mktemp("sources"))


@pytest.fixture(scope="module")
def built(sources: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench")
    summary = bench_build.build([sources], out, VARIANTS, SEEDS, jobs=2)
    assert not summary.failed
    return out


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _bytes(folder: Path) -> dict[str, bytes]:
    return {k: v[0] for k, v in _snapshot(folder).items()}


# ---------------------------------------------------------------------------------------------- selection/build


def test_natural_and_lexicographic_orders_differ_as_documented() -> None:
    names = ["j3010_1", "j301_10", "j301_2", "j302_1"]
    assert ordered(names, "natural") == ["j301_2", "j301_10", "j302_1", "j3010_1"]
    assert ordered(names, "lexicographic")[0] == "j3010_1"
    assert natural_key("j301_2") < natural_key("j301_10")


def test_composition_follows_the_rules(built: Path, sources: Path) -> None:
    jsplib = read_bks(sources / "jsplib" / "bks.csv")
    expected = {("jsplib", d): sum(1 for r in jsplib.values() if r.difficulty == d) for d in ("easy", "medium", "hard")}
    expected |= {("psplib-sm", "easy"): 1, ("psplib-mm", "easy"): 1, ("psplib-mm", "medium"): 1,
                 ("itc2007", read_bks(sources / "itc2007" / "bks.csv")["comp01"].difficulty): 1,
                 ("inrc2010", "easy"): 1, ("nsplib", "unassigned"): 3}
    with (built / "composition.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ["family", "difficulty", "count"]
    got = {(r["family"], r["difficulty"]): int(r["count"]) for r in rows if int(r["count"])}
    assert got == {k: v for k, v in expected.items() if v}
    records = [json.loads(line) for line in (built / "dataset.jsonl").read_text().splitlines()]
    assert len(records) == sum(got.values()) * len(VARIANTS) * len(SEEDS)
    assert len({r["id"] for r in records}) == len(records)
    assert {tuple(sorted(r)) for r in records} == {tuple(sorted(records[0]))}  # one schema for load_dataset
    assert all((built / r["spec"]).is_file() and r["prompt"] and r["names"] for r in records)
    assert "Easy" in (built / "composition.md").read_text() or "406" in (built / "composition.md").read_text()
    manifest = json.loads((built / "manifest.json").read_text())
    assert "jsplib/abz5" in manifest["missing"]


def test_dataset_card_declares_configs_features_and_licence(built: Path) -> None:
    import hashlib

    import yaml

    text = (built / "README.md").read_text(encoding="utf-8")
    meta = yaml.safe_load(text.split("---\n")[1])
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert configs["all"]["default"] and configs["all"]["data_files"] == [{"split": "test", "path": "dataset.jsonl"}]
    assert {f"schedbench-{v}" for v in VARIANTS} <= set(configs)
    records = [json.loads(line) for line in (built / "dataset.jsonl").read_text().splitlines()]
    assert [f["name"] for f in meta["dataset_info"]["features"]] and \
        {f["name"] for f in meta["dataset_info"]["features"]} == set(records[0])
    for variant in VARIANTS:
        (path,) = [d["path"] for d in configs[f"schedbench-{variant}"]["data_files"]]
        lines = (built / path).read_text().splitlines()
        assert [json.loads(x) for x in lines] == [r for r in records if r["variant"] == variant]
    assert all(r["spec_sha256"] == hashlib.sha256((built / r["spec"]).read_bytes()).hexdigest() for r in records)
    assert "not redistributed" in text and "## Composition" in text


def test_dataset_card_loads_with_hugging_face_datasets(built: Path, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets", reason="needs the [hf] extra (part of [test]): pip install -e '.[hf]'")
    data = datasets.load_dataset(str(built), cache_dir=str(tmp_path))
    assert data["test"].num_rows == len((built / "dataset.jsonl").read_text().splitlines())


def test_rerun_is_a_no_op(built: Path, sources: Path) -> None:
    before = _snapshot(built)
    summary = bench_build.build([sources], built, VARIANTS, SEEDS)
    assert summary.built == 0 and summary.skipped == summary.instances
    assert _snapshot(built) == before


def test_interrupted_build_completes_to_the_same_bytes(built: Path, sources: Path, tmp_path: Path) -> None:
    calls = []

    def crash(result: dict) -> None:
        calls.append(result)
        if len(calls) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        bench_build.build([sources], tmp_path, VARIANTS, SEEDS, on_done=crash)
    assert not (tmp_path / "dataset.jsonl").exists()
    bench_build.build([sources], tmp_path, VARIANTS, SEEDS)
    assert _bytes(tmp_path) == _bytes(built)
    # losing outputs (a records file, a spec, the dataset) is repaired the same way
    next((tmp_path / "records").rglob("*.jsonl")).unlink()
    next((tmp_path / "specs").rglob("*.sched")).unlink()
    (tmp_path / "dataset.jsonl").unlink()
    summary = bench_build.build([sources], tmp_path, VARIANTS, SEEDS)
    assert 1 <= summary.built <= 2
    assert _bytes(tmp_path) == _bytes(built)


def test_shared_data_selection_counts() -> None:
    root = shared_or_skip()
    chosen = select([root])
    present: dict[str, int] = {}
    for item in chosen.present:
        present[item.family] = present.get(item.family, 0) + 1
    assert present == {"jsplib": 41, "psplib-sm": 60, "psplib-mm": 45, "itc2007": 4, "inrc2010": 11, "nsplib": 16}
    assert len(chosen.items) - len(chosen.missing) == 177
    assert all(i.difficulty == "unassigned" for i in chosen.present if i.family == "nsplib")
    sm = [i for i in chosen.items if i.family == "psplib-sm"]
    assert len(sm) == 400 and sm[0].name == "j301_1" and sm[99].name == "j3010_10"


def _mm_universe(root: Path) -> Path:
    """Empty PSPLIB-MM files j10/j20/j30 × 12 groups × 10 (names are all a selection needs), j30 with bks."""
    rows = ["instance,bks,kind,lower_bound,difficulty,source"]
    for subset in ("j10", "j20", "j30"):
        (root / "psplib-mm" / subset).mkdir(parents=True)
        for g in range(1, 13):
            for k in range(1, 11):
                (root / "psplib-mm" / subset / f"{subset}{g}_{k}.mm").touch()
                rows.append(f"{subset}{g}_{k},30,optimal,30,,test")
    (root / "psplib-mm" / "bks.csv").write_text("\n".join(rows) + "\n")
    return root


def test_ablation_and_seed_designs_have_the_papers_sizes(tmp_path: Path) -> None:
    from collections import Counter

    from schedc.bench.selection import DESIGN_TOTALS, stratum

    root = _mm_universe(tmp_path)
    full, ablation, seed = (select([root], name) for name in ("schedbench", "ablation", "seed"))
    assert Counter(i.family for i in ablation.items) == DESIGN_TOTALS["ablation"]  # 470
    assert Counter(i.family for i in seed.items) == DESIGN_TOTALS["seed"]  # 150
    assert len(ablation.items) == 470 and len(seed.items) == 150
    keys = {(i.family, i.name) for i in ablation.items}
    assert keys <= {(i.family, i.name) for i in full.items}
    assert {(i.family, i.name) for i in seed.items} <= keys  # the seed subset is drawn from the ablation set
    assert [i.name for i in select([root], "ablation").items] == [i.name for i in ablation.items]  # seeded
    sets = Counter(stratum(i)[0] for i in ablation.items if i.family == "psplib-sm")
    assert sets == {"j30": 25, "j60": 25, "j90": 25, "j120": 25}  # proportional to the four sets of 100
    mm = Counter(stratum(i)[0] for i in ablation.items if i.family == "psplib-mm")
    assert sorted(mm.values()) == [33, 33, 34]
    order = {(i.family, i.name): k for k, i in enumerate(full.items)}
    assert [order[(i.family, i.name)] for i in ablation.items] == sorted(order[k] for k in keys)  # dataset order


def test_quotas_are_proportional_with_largest_remainders() -> None:
    import random

    from schedc.bench.selection import quotas

    assert quotas([100, 100, 100, 21, 69, 80], 150, random.Random(1)) == [32, 32, 32, 7, 22, 25]
    assert quotas([5, 3], 10, random.Random(1)) == [5, 3]  # a design larger than its population keeps all
    split = [quotas([10, 10, 10], 10, random.Random(s)) for s in range(20)]
    assert all(sorted(q) == [3, 3, 4] for q in split) and len({tuple(q) for q in split}) > 1  # ties: seeded


def test_missing_file_counts_cover_psplib_mm_sets_with_too_few_files() -> None:
    root = shared_or_skip()
    chosen = select([root])
    missing = chosen.missing_files()
    assert missing["psplib-mm"] == 300 - 45  # 45 files present, no item for the other 255
    assert missing["jsplib"] == 262 - 41 and missing["nsplib"] == 80 - 16
    assert missing["itc2007"] == 21 - 4 and missing["inrc2010"] == 69 - 11 and missing["psplib-sm"] == 400 - 60


# ---------------------------------------------------------------------------------------------- eval and statistics


def _answers(built: Path) -> tuple[list[dict], dict[str, float]]:
    """Responses with known verdicts for model m: feasible, infeasible, unparseable; the rest missing."""
    from schedc.backends.cpsat import SolveOptions, solve
    from schedc.core.solution import Solution
    from schedc.lang.family import load_family
    from schedc.lang.load import load_instance
    from schedc.verify.verifier import Verifier

    records = {json.loads(line)["id"]: json.loads(line) for line in (built / "dataset.jsonl").read_text().splitlines()}
    spec = built / records["jsplib/ft06/v1/s42"]["spec"]
    instance = load_instance(spec)
    family = load_family(instance.family, [spec.parent])

    def writer(rid: str) -> Verifier:
        return Verifier(instance, family, {p["ir"]: p["shown"] for p in records[rid]["names"]})

    best = solve(instance, family, SolveOptions(time_limit=5, workers=1)).solution
    clash = Solution(starts={a.name: 0 for a in instance.activities}, modes={a.name: 1 for a in instance.activities})
    bad_text = writer("jsplib/ft06/v2/s42").write(clash) + "Job 99 step 1: start=0\nJob 1 step 1 start 0"
    bad_report = writer("jsplib/ft06/v2/s42").check(bad_text)
    vr_bad = bad_report.violation_rate
    responses = [
        {"model": "m", "id": "jsplib/ft06/v1/s42", "text": writer("jsplib/ft06/v1/s42").write(best) + "Makespan: 66",
         "error": None},
        {"model": "m", "id": "jsplib/ft06/v2/s42", "text": bad_text, "error": None},
        {"model": "m", "id": "jsplib/la01/v1/s42", "text": "I cannot solve this.", "error": None},
        {"model": "m", "id": "jsplib/la01/v2/s42", "text": None, "error": "HTTP 500"},
    ]
    return responses, {"vr_bad": vr_bad, "n_records": len(records), "violations_bad": len(bad_report.violations)}


def test_eval_reproduces_hand_computed_tables(built: Path, tmp_path: Path) -> None:
    responses, known = _answers(built)
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in responses))
    data = evaluate(built, [path], tmp_path / "report", jobs=2)
    rows = {(r["model"], r["family"], r["difficulty"]): r for r in data["feasibility"]}
    jsp = rows[("m", "jsplib", "easy")]
    n = 3 * len(VARIANTS) * len(SEEDS)
    assert (jsp["n"], jsp["extracted"], jsp["feasible"]) == (n, 2, 1)
    assert jsp["feasible_rate"] == round(1 / n, 6) and jsp["extraction_rate"] == round(2 / n, 6)
    assert jsp["gap_mean"] == 0.0 and jsp["gap_median"] == 0.0  # CP-SAT proves ft06 = 55 = BKS
    assert jsp["coverage_mean"] == round(2 / n, 6)
    assert jsp["vr_mean"] == round((0.0 + known["vr_bad"]) / 2, 6) and known["vr_bad"] > 0
    total = rows[("m", "all", "all")]
    assert total["n"] == known["n_records"] and total["feasible"] == 1
    assert rows[("m", "nsplib", "unassigned")]["feasible"] == 0
    answers = [json.loads(line) for line in (tmp_path / "report" / "answers.jsonl").read_text().splitlines()]
    status = {a["id"]: a["status"] for a in answers}
    assert status["jsplib/la01/v2/s42"] == "error" and status["jsplib/la01/v1/s42"] == "ok"
    assert status["jsplib/la01/v1/s43"] == "missing"
    assert jsp["errors"] == 1 and total["errors"] == 1
    low, high = jsp["feasible_ci_low"], jsp["feasible_ci_high"]
    assert low < jsp["feasible_rate"] < high
    assert (tmp_path / "report" / "report.md").read_text().startswith("# SCHEDBench evaluation")
    for name in ("feasibility.png", "delta_vr.png"):
        _assert_png(tmp_path / "report" / name)
    with (tmp_path / "report" / "feasibility.csv").open() as handle:
        assert len(list(csv.DictReader(handle))) == len(data["feasibility"])
    _assert_constraintbench_tables(data, tmp_path / "report", n, known)


def _assert_constraintbench_tables(data: dict, report: Path, n: int, known: dict) -> None:
    """The hand-known answers: ft06 v1 optimal (stated 66 for 55), ft06 v2 clashing + a hallucinated and a
    malformed line, la01 v1 prose, la01 v2 a request error."""
    opt = {(r["model"], r["family"]): r for r in data["optimality"]}[("m", "jsplib")]
    assert (opt["n"], opt["errors"], opt["feasible"], opt["judged"]) == (n, 1, 1, 1)
    assert all(opt[f"opt_{e}"] == round(1 / n, 6) and opt[f"cond_opt_{e}"] == 1.0 for e in ("0.1", "0.5", "1", "5"))
    assert [r["epsilon"] for r in data["threshold"]] == ["0.1", "0.5", "1", "5"]
    assert all(r["within"] == 1 and r["conditional"] == 1.0 for r in data["threshold"])
    selfrep = {(r["model"], r["family"]): r for r in data["self_report"]}[("m", "jsplib")]
    assert (selfrep["objective"], selfrep["stated"], selfrep["discrepant"]) == (1, 1, 1)
    assert selfrep["rel_error_median"] == selfrep["rel_error_max"] == round(11 / 55, 6)
    modes = {(r["model"], r["family"]): r for r in data["failure_modes"]}[("m", "jsplib")]
    assert modes["entity_hallucination"] == 1 and modes["unparseable"] == 2  # the malformed line + la01's prose
    assert modes["constraint_specific"] == known["violations_bad"] and modes["answers"] == 2
    for name in ("optimality.csv", "threshold.csv", "self_report.csv", "failure_modes.csv"):
        assert (report / name).is_file()
    text = (report / "report.md").read_text()
    assert "## Threshold sensitivity" in text and "## Failure modes of violations" in text


def test_eval_pairs_an_ablation_folder_with_a_seed_study_folder(sources: Path, tmp_path: Path) -> None:
    """The paper's design: variants at seed 42 in one folder, the reseeded condition in another."""
    from schedc.core.solution import Solution
    from schedc.lang.family import load_family
    from schedc.lang.load import load_instance
    from schedc.verify.verifier import Verifier

    ablation, seeds = tmp_path / "ablation", tmp_path / "seed"
    bench_build.build([sources], ablation, ["v1", "v2"], [42])
    bench_build.build([sources], seeds, ["v2"], [42, 43])
    records = {json.loads(x)["id"]: json.loads(x) for folder in (ablation, seeds)
               for x in (folder / "dataset.jsonl").read_text().splitlines()}
    instance = load_instance(ablation / records["jsplib/ft06/v1/s42"]["spec"])
    family = load_family(instance.family)
    clash = Solution(starts={a.name: 0 for a in instance.activities}, modes={a.name: 1 for a in instance.activities})
    texts = {}
    for rid in ("jsplib/ft06/v1/s42", "jsplib/ft06/v2/s42", "jsplib/ft06/v2/s43"):
        texts[rid] = Verifier(instance, family, {p["ir"]: p["shown"] for p in records[rid]["names"]}).write(clash)
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({"model": "m", "id": k, "text": v}) + "\n" for k, v in texts.items()))
    data = evaluate(ablation, [path], tmp_path / "report", also=[seeds], families=["jsplib"])
    (row,) = [r for r in data["pairs"] if (r["variant_a"], r["variant_b"]) == ("v1", "v2")]
    assert (row["band_conditions"], row["n"], row["band_n"]) == ("v2", 1, 1)
    assert row["delta_median"] == 0.0 and row["band_median"] == 0.0 and row["verdict"] == "no"


def _assert_png(path: Path) -> None:
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 8_000, (path, len(data))
    assert b"tIME" not in data and b"matplotlib" not in data  # no timestamp, no version: deterministic


def test_plots_are_deterministic_and_show_every_pair() -> None:
    from schedc.bench.plots import delta_plot, feasibility_plot

    results = [{"model": m, "family": f, "feasible": k % 3 == 0} for m in ("a", "b") for f in ("jsplib", "nsplib")
               for k in range(5)]
    assert feasibility_plot(results) == feasibility_plot(list(results))
    pairs = {("a", "v1", "v2"): [(0.1, []), (0.3, [0.1]), (None, [0.2])], ("a", "v1", "v3"): [],
             ("b", "v1", "v2"): [(0.5, [])],
             ("b", "v1", "v3"): []}
    assert delta_plot(pairs) == delta_plot(dict(pairs)) != delta_plot({})
    assert delta_plot({}).startswith(b"\x89PNG")


def test_feasibility_bars_carry_wilson_intervals_and_show_zero_rates() -> None:
    """Before: bars without intervals, and a zero rate (or a model without answers) was an empty slot."""
    from matplotlib.collections import LineCollection

    from schedc.bench.plots import feasibility_figure

    results = [{"model": m, "family": f, "feasible": f == "jsplib" and k < 3} for m in ("a", "b")
               for f in ("jsplib", "nsplib", "itc2007") for k in range(7) if (m, f) != ("b", "itc2007")]
    axes = feasibility_figure(results).axes[0]
    # every drawn bar's error bar is its Wilson interval: families jsplib 3/7, itc2007 0/7, nsplib 0/7, all
    segments = sorted((round(float(seg[0][1]), 9), round(float(seg[1][1]), 9)) for c in axes.collections
                      if isinstance(c, LineCollection) for seg in c.get_segments())
    expected = sorted((round(lo, 9), round(hi, 9)) for k, n in ((3, 7), (0, 7), (0, 7), (3, 21), (3, 7), (0, 7),
                                                                (3, 14)) for lo, hi in [wilson(k, n)])
    assert segments == expected
    zeros = [bar for bar in axes.patches if bar.get_gid() == "zero"]
    assert len(zeros) == 3 and all(bar.get_height() > 0 for bar in zeros)  # a visible stub for each 0/7
    assert [t.get_text() for t in axes.texts if t.get_gid() == "no-answer"] == ["n/a"]  # b has no itc2007 answer


def test_pair_statistics_match_a_direct_computation() -> None:
    from scipy.stats import bootstrap

    rng = np.random.default_rng(7)
    delta, band = rng.random(40), rng.random((40, 3)) * 0.3
    stats = pair_stats([(d, list(b)) for d, b in zip(delta, band, strict=True)], replicates=500, seed=11)
    assert stats.n == stats.n_delta == 40 and stats.band_n == 120
    assert stats.delta_median == pytest.approx(np.median(delta))
    assert stats.delta_iqr == pytest.approx(np.percentile(delta, 75) - np.percentile(delta, 25))
    assert stats.band_iqr == pytest.approx(np.percentile(band, 75) - np.percentile(band, 25))
    assert stats.estimate == pytest.approx(np.median(delta) - np.median(band))  # B pooled over every seed pair

    def direct(d: np.ndarray, b1: np.ndarray, b2: np.ndarray, b3: np.ndarray) -> float:
        return float(np.median(d) - np.median(np.concatenate([b1, b2, b3])))

    expected = bootstrap((delta, *band.T), direct, paired=True, vectorized=False, n_resamples=500,
                         method="percentile", random_state=np.random.default_rng(11)).confidence_interval
    assert (stats.ci_low, stats.ci_high) == pytest.approx((expected.low, expected.high))
    assert stats.verdict == "yes"
    assert pair_stats([]).verdict == "n/a" and pair_stats([(0.2, [])]).verdict == "n/a"


def _two_instance_results(cases: list[tuple[float, float]]) -> list[dict]:
    """VRs giving instance k the |ΔVR| (v1 vs v2 at seed 42) and the δ (v2, seeds 42 vs 43) of ``cases[k]``."""
    results = []
    for k, (delta, band) in enumerate(cases):
        for variant, seed, vr in (("v1", 42, 0.5 - delta), ("v2", 42, 0.5), ("v2", 43, 0.5 + band)):
            results.append({"model": "m", "family": "jsplib", "instance": f"i{k}", "variant": variant, "seed": seed,
                            "violation_rate": vr})
    return results


# Two instances: a bootstrap resample is {1,1} (p = 1/4), {1,2} (1/2) or {2,2} (1/4); a median of two values is
# their mean, so the 2.5 % and 97.5 % percentiles are the statistics of {1,1} and {2,2}, computed by hand:
# d({1,1}) = Δ1 − δ1, d({2,2}) = Δ2 − δ2, estimate = (Δ1 + Δ2)/2 − (δ1 + δ2)/2, IQR(B) = |δ2 − δ1|/2.
VERDICT_CASES = [
    # yes: CI [0.5 − 0.1, 0.7 − 0.2] = [0.4, 0.5] lies above 0
    ([(0.5, 0.1), (0.7, 0.2)], 0.45, (0.4, 0.5), "yes"),
    # near: CI [0.07 − 0.1, 0.4 − 0.2] = [−0.03, 0.2] straddles 0, −0.03 > −IQR(B) = −0.05
    ([(0.07, 0.1), (0.4, 0.2)], 0.085, (-0.03, 0.2), "near"),
    # no (< noise): CI [0.0 − 0.3, 0.4 − 0.2] = [−0.3, 0.2] straddles 0 but −0.3 ≤ −IQR(B) = −0.05
    ([(0.0, 0.3), (0.4, 0.2)], -0.05, (-0.3, 0.2), "no (< noise)"),
    # no: effect and band identically zero, CI [0, 0]
    ([(0.0, 0.0), (0.0, 0.0)], 0.0, (0.0, 0.0), "no"),
]


@pytest.mark.parametrize(("cases", "estimate", "ci", "expected"), VERDICT_CASES, ids=[c[3] for c in VERDICT_CASES])
def test_each_verdict_reproduces_a_hand_computed_example(cases: list, estimate: float, ci: tuple,
                                                         expected: str) -> None:
    (row,) = variant_pairs(_two_instance_results(cases), replicates=400)
    assert (row["variant_a"], row["variant_b"], row["band_conditions"], row["n"]) == ("v1", "v2", "v2", 2)
    assert row["estimate"] == pytest.approx(estimate)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(ci)
    assert row["verdict"] == expected


def test_verdict_rules_at_their_boundaries() -> None:
    assert verdict(0.1, 0.01, 0.2, 0.0, False) == "yes"
    assert verdict(0.0, 0.0, 0.1, 0.05, False) == "near"  # a lower bound of exactly 0 straddles
    assert verdict(0.0, -0.05, 0.1, 0.05, False) == "no (< noise)"  # reaching −IQR(B) is not near
    assert verdict(-0.1, -0.2, -0.01, 0.5, False) == "no (< noise)"  # entirely below 0
    assert verdict(0.0, 0.0, 0.0, 0.0, True) == "no"


def test_band_pools_every_seed_pair_of_the_reseeded_condition() -> None:
    vr = {("v2", 42): 0.1, ("v2", 43): 0.4, ("v2", 44): 0.2, ("v3a", 42): 0.0, ("v3a", 43): 0.5, ("v1", 42): 0.3}
    assert seed_deltas(vr, ["v2"], [42, 43, 44]) == pytest.approx([0.3, 0.1, 0.2])
    assert seed_deltas(vr, ["v2", "v3a"], [42, 43, 44]) == pytest.approx([0.3, 0.1, 0.2, 0.5])
    assert band_conditions(("v1", "v2"), ["v2", "v3a"]) == ["v2"]
    assert band_conditions(("v1", "v4"), ["v2", "v3a"]) == ["v2", "v3a"]  # neither reseeded: every condition


def test_wilson_intervals_are_the_published_ones() -> None:
    """Newcombe (1998), Statistics in Medicine 17:857, Table I, method 3 (score interval without continuity
    correction), to the four decimals printed there; and the closed form at 95 % on other counts."""
    published = {(81, 263): (0.2553, 0.3662), (15, 148): (0.0624, 0.1605), (0, 20): (0.0, 0.1611),
                  (1, 29): (0.0061, 0.1718)}
    for (k, n), interval in published.items():
        assert wilson(k, n) == pytest.approx(interval, abs=5e-5)
    z = 1.959963984540054
    for k, n in ((3, 10), (10, 10), (1, 1), (57, 470)):
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        assert wilson(k, n) == pytest.approx((max(0.0, centre - half), min(1.0, centre + half)), abs=1e-12)
    assert wilson(0, 0) == (None, None)
    low, high = wilson(5, 10, level=0.5)
    assert low > wilson(5, 10)[0] and high < wilson(5, 10)[1]  # a lower level, a narrower interval


# ---------------------------------------------------------------------------------------------- run


class _Recorded(BaseHTTPRequestHandler):
    """Answers /chat/completions from a recorded reply; the first request of a prompt marked FLAKY gets 503."""

    requests: list[dict] = []
    failed_once: set[str] = set()
    flaky = True

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        user = body["messages"][1]["content"]
        if type(self).flaky and len(type(self).requests) == 1 and user not in type(self).failed_once:
            type(self).failed_once.add(user)
            self.send_response(503)
            self.end_headers()
            return
        reply = {"choices": [{"message": {"role": "assistant", "content": f"recorded answer {len(user)}"}}],
                 "usage": {"prompt_tokens": len(user) // 4, "completion_tokens": 3}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def test_run_against_a_local_server_uses_the_cache(built: Path, tmp_path: Path) -> None:
    server = HTTPServer(("127.0.0.1", 0), _Recorded)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/v1"
        out = tmp_path / "r.jsonl"
        first = run(built, url, "model-a", out, concurrency=2, limit=4, backoff=0.01)
        # v1 is the same prompt for both seeds: one request answers both records
        assert (first.sent, first.deduplicated, first.errors, first.requests, first.retries) == (3, 1, 0, 4, 1)
        second = run(built, url, "model-a", out, limit=4)
        assert second.requests == 0 and second.skipped == 4
        fresh = tmp_path / "again.jsonl"
        third = run(built, url, "model-a", fresh, limit=4)  # new responses file: answers come from the cache
        assert third.requests == 0 and third.cached == 4
    finally:
        server.shutdown()
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 4 and all(r["text"].startswith("recorded answer") and r["error"] is None for r in records)
    assert {"model", "id", "text", "usage", "error"} <= set(records[0])
    assert len(_Recorded.requests) == 4
    assert _Recorded.requests[0]["messages"][0]["role"] == "system"


def test_run_records_errors_after_bounded_retries(built: Path, tmp_path: Path) -> None:
    summary = run(built, "http://127.0.0.1:9/v1", "m", tmp_path / "r.jsonl", limit=1, retries=2, backoff=0.01,
                  timeout=2)
    assert summary.errors == 1 and (summary.requests, summary.retries) == (3, 2)
    (record,) = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert record["text"] is None and "after 3 attempts" in record["error"]


# ---------------------------------------------------------------------------------------------- validate


def test_validate_computes_references_where_none_exists(built: Path, sources: Path, tmp_path: Path) -> None:
    bench = shutil.copytree(built, tmp_path / "bench")
    rows = validate(bench, time_limit=2, families=["nsplib"])
    assert len(rows) == 3 and all(r["bks"] is None for r in rows)
    assert all(r["verified"] and r["reference"] == r["objective"] and r["reference_kind"] for r in rows)
    validate(bench, time_limit=2, instances=["jsplib/ft06"])  # the table grows; earlier rows are kept
    with (bench / "reference.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert {r["instance"] for r in table} == {r["instance"] for r in rows} | {"ft06"}
    # the references close the composition: NSPLib gets three equal tiers ranked by reference value
    summary = bench_build.build([sources], bench, VARIANTS, SEEDS)
    assert summary.built == 3  # only the NSPLib records change (their difficulty), nothing is re-rendered
    ranked = sorted(rows, key=lambda r: (r["reference"], natural_key(r["instance"])))
    assert summary.composition["nsplib"] == {"easy": 1, "medium": 1, "hard": 1}
    records = [json.loads(line) for line in (bench / "dataset.jsonl").read_text().splitlines()]
    tiers = {r["instance"]: r["difficulty"] for r in records if r["family"] == "nsplib"}
    assert [tiers[r["instance"]] for r in ranked] == ["easy", "medium", "hard"]
    # and bench eval judges NSPLib answers against them
    from schedc.lang.load import load_instance
    from schedc.verify.verifier import Verifier

    record = next(r for r in records if r["family"] == "nsplib" and r["variant"] == "v1")
    best = next(r for r in rows if r["instance"] == record["instance"])
    from schedc.backends.cpsat import SolveOptions, solve
    from schedc.lang.family import load_family

    instance = load_instance(bench / record["spec"])
    family = load_family(instance.family)
    solution = solve(instance, family, SolveOptions(time_limit=2, workers=1)).solution
    text = Verifier(instance, family).write(solution)
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"model": "m", "id": record["id"], "text": text, "error": None}) + "\n")
    data = evaluate(bench, [path], tmp_path / "report", families=["nsplib"])
    (answer,) = [json.loads(x) for x in (tmp_path / "report" / "answers.jsonl").read_text().splitlines()
                 if json.loads(x)["status"] == "ok"]
    assert answer["feasible"] and answer["gap_pct"] == pytest.approx((answer["objective"] - best["reference"])
                                                                     / best["reference"] * 100, abs=1e-3)
    assert {r["family"] for r in data["optimality"]} == {"nsplib", "all"}


# ---------------------------------------------------------------------------------------------- Dask and CLI

runner = CliRunner()
BUILD_OUTPUTS = ("specs/", "records/", "dataset.jsonl", "composition.csv", "composition.md", "manifest.json")


def _cli(*args: object):
    result = runner.invoke(app, ["bench", *map(str, args)])
    assert "Traceback" not in result.output, result.output
    return result


def _ok(*args: object):
    result = _cli(*args)
    assert result.exit_code == 0, result.output
    return result


def _fails(*args: object, message: str):
    result = _cli(*args)
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), (result.exit_code, result.output)
    assert message in result.stderr, result.stderr
    return result


def _build_outputs(folder: Path) -> dict[str, bytes]:
    return {k: v for k, v in _bytes(folder).items() if k.startswith(BUILD_OUTPUTS)}


def _cli_build(sources: Path, out: Path, *extra: str):
    return _ok("build", sources, "-o", out, "--variants", ",".join(VARIANTS), "--seeds", ",".join(map(str, SEEDS)),
               *extra)


@pytest.fixture(scope="module")
def dask_scheduler():
    """A 2-worker local Dask cluster (separate processes), closed after the module."""
    distributed = pytest.importorskip("distributed")
    from schedc.bench.executor import LOCAL_CLUSTER_OPTIONS

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  **LOCAL_CLUSTER_OPTIONS) as cluster:
        yield cluster.scheduler_address


def test_dask_build_and_eval_match_the_local_executor(built: Path, sources: Path, dask_scheduler: str,
                                                      tmp_path: Path) -> None:
    _cli_build(sources, tmp_path / "bench", "--executor", "dask", "--scheduler", dask_scheduler)
    assert _build_outputs(tmp_path / "bench") == _build_outputs(built)
    responses, _ = _answers(built)
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in responses))
    _ok("eval", built, path, "-o", tmp_path / "local", "--jobs", "2")
    _ok("eval", built, path, "-o", tmp_path / "dask", "--executor", "dask", "--scheduler", dask_scheduler)
    local, dask = _bytes(tmp_path / "local"), _bytes(tmp_path / "dask")
    assert local == dask and {"report.md", "answers.jsonl", "feasibility.png", "delta_vr.png"} <= set(local)


def test_dask_executor_without_a_scheduler_starts_a_local_cluster() -> None:
    pytest.importorskip("distributed")
    from schedc.bench.executor import run_tasks

    assert sorted(run_tasks(abs, [-1, -2, 3], jobs=1, executor="dask")) == [1, 2, 3]


def test_dask_executor_reports_an_unreachable_scheduler(built: Path, tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr("schedc.bench.executor.CONNECT_TIMEOUT", 1)
    _fails("validate", built, "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9", message="B113")


def test_cli_build_writes_the_dataset(built: Path, sources: Path, tmp_path: Path) -> None:
    result = _cli_build(sources, tmp_path, "--jobs", "2")
    assert "SCHEDBench composition" in result.stdout and "have no source file" in result.stderr
    assert _build_outputs(tmp_path) == _build_outputs(built)
    assert "0 built" in _cli_build(sources, tmp_path).stdout  # a rerun is a no-op


def test_cli_build_rejects_bad_input(tmp_path: Path) -> None:
    _fails("build", tmp_path / "nowhere", "-o", tmp_path / "out", message="source folder(s) not found")
    _fails("build", tmp_path, "-o", tmp_path / "out", "--seeds", "4x", message="cannot read the list")
    _fails("build", tmp_path, "-o", tmp_path / "out", "--executor", "spark", message="'spark' is not one of")
    assert not (tmp_path / "out").exists()


def test_cli_seed_selection_uses_the_seed_designs_variants_and_seeds(sources: Path, tmp_path: Path) -> None:
    result = _ok("build", sources, "-o", tmp_path / "s", "--selection", "seed")
    manifest = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert (manifest["selection"], manifest["variants"], manifest["seeds"]) == ("seed", ["v2", "v3a", "v3b"],
                                                                               [42, 43, 44])
    assert "selection `seed`" in result.stdout and sum(manifest["missing_files"].values()) + len(
        manifest["instances"]) == 150
    _fails("build", sources, "-o", tmp_path / "x", "--selection", "nope", message="'nope' is not one of")


def test_cli_eval_writes_the_report(built: Path, tmp_path: Path) -> None:
    responses, _ = _answers(built)
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in responses))
    result = _ok("eval", built, path, "-o", tmp_path / "report")
    assert result.stdout.startswith("# SCHEDBench evaluation")
    written = {p.name for p in (tmp_path / "report").iterdir()}
    assert written == {"report.md", "feasibility.csv", "pairs.csv", "report.json", "answers.jsonl",
                       "feasibility.png", "delta_vr.png", "optimality.csv", "threshold.csv", "self_report.csv",
                       "failure_modes.csv"}
    _assert_png(tmp_path / "report" / "feasibility.png")


def test_cli_eval_rejects_bad_input(built: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"model": "m", "id": "jsplib/ft06/v1/s42", "text": "x"}\n{"model": "m", "id": \n')
    result = _fails("eval", built, bad, "-o", tmp_path / "report", message="not a JSON line")
    assert ":2" in result.stderr  # the bad line is named
    _fails("eval", tmp_path / "nowhere", bad, "-o", tmp_path / "report", message="no dataset")
    _fails("eval", built, tmp_path / "missing.jsonl", "-o", tmp_path / "report", message="cannot read")
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text('{"model": "m", "id": "jsplib/nope/v1/s42", "text": "x"}\n')
    _fails("eval", built, unknown, "-o", tmp_path / "report", message="not in the dataset")
    assert not (tmp_path / "report").exists()


def test_cli_validate_on_an_nsplib_only_source(tmp_path: Path) -> None:
    shutil.copytree(DATA / "nsplib", tmp_path / "src" / "nsplib")
    _ok("build", tmp_path / "src", "-o", tmp_path / "bench", "--variants", "v1")
    result = _ok("validate", tmp_path / "bench", "--time-limit", "2", "--jobs", "2")
    assert "3 instances validated" in result.stdout
    with (tmp_path / "bench" / "reference.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3 and all(r["family"] == "nsplib" and r["verified"] == "True" and r["reference"] for r in rows)
    assert len(list((tmp_path / "bench" / "validate" / "nsplib").glob("*.json"))) == 3
    _fails("validate", tmp_path / "nowhere", message="no dataset")


class _Steady(_Recorded):
    """The recorded server without the initial 503 (its own request log)."""

    requests: list[dict] = []
    failed_once: set[str] = set()
    flaky = False


def test_cli_run_against_a_local_server(built: Path, tmp_path: Path) -> None:
    server = HTTPServer(("127.0.0.1", 0), _Steady)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/v1"
        out = tmp_path / "r.jsonl"
        result = _ok("run", built, "--endpoint", url, "--model", "cli-model", "--responses", out, "--limit", "3",
                     "--concurrency", "2")
        assert "3 prompts: 2 sent, 0 from cache, 0 already answered, 0 errors" in result.stdout
        assert "3 already answered" in _ok("run", built, "--endpoint", url, "--model", "cli-model", "--responses",
                                           out, "--limit", "3").stdout
        _fails("run", built, "--endpoint", url, "--model", "cli-model", "--concurrency", "0", message="B301")
        _fails("run", tmp_path / "nowhere", "--endpoint", url, "--model", "m", message="no dataset")
    finally:
        server.shutdown()
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 3 and all(r["model"] == "cli-model" and r["text"] for r in records)
    assert len(_Steady.requests) == 2  # v1 for seeds 42 and 43: one request
    assert (built / "cache" / "cli-model.jsonl").is_file()


def test_validate_flags_a_solver_disagreement_without_crashing(built: Path, monkeypatch) -> None:
    from schedc.backends.base import SolverDisagreement

    def disagree(*args: object, **kwargs: object) -> None:
        raise SolverDisagreement("cpsat claims objective 331 but the verifier computes 323")

    monkeypatch.setattr("schedc.backends.cpsat.solve", disagree)
    result = _cli("validate", built, "--time-limit", "1.5")
    assert result.exit_code == 1 and "solver_disagreement" in result.stdout and "claims objective" in result.stderr
    with (built / "reference.csv").open() as handle:
        table = list(csv.DictReader(handle))
    assert table and all(r["flags"] == "solver_disagreement" and "331" in r["error"] for r in table)
    assert not list((built / "validate").rglob("*.json")) or all(
        json.loads(p.read_text())["time_limit"] != 1.5 for p in (built / "validate").rglob("*.json"))


# ------------------------------------------------------------------------- benchmarks of variants (issue 16)


def _ft06_source(target: Path) -> Path:
    """A source folder with JSPLib ft06 only (bks 55, proven optimal: CP-SAT solves it in well under a second)."""
    (target / "jsplib").mkdir(parents=True)
    shutil.copy(DATA / "jsplib" / "ft06.txt", target / "jsplib" / "ft06.txt")
    shutil.copy(DATA / "jsplib" / "bks.csv", target / "jsplib" / "bks.csv")
    return target


def _records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "dataset.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_perturbed_build_holds_verified_variants_that_name_their_base(tmp_path: Path) -> None:
    from schedc.bench.derive import Derivation
    from schedc.lang.family import load_family
    from schedc.lang.load import load_instance
    from schedc.variants import solve_instance
    from schedc.verify.evaluate import evaluate as evaluate_solution
    from schedc.verify.evaluate import make_context

    source = _ft06_source(tmp_path / "src")
    derivation = Derivation(mode="sat", count=3, seed=5, time_limit=5.0)
    out = tmp_path / "sat"
    summary = bench_build.build([source], out, ["v1", "v4"], [42], derivation=derivation)
    assert not summary.failed and summary.instances == 3 and summary.records == 3 * 2
    records = _records(out)
    assert [r["id"] for r in records] == [f"jsplib/ft06_sat_{k}/{v}/s42" for k in (1, 2, 3) for v in ("v1", "v4")]
    index = json.loads((out / "variants" / "jsplib" / "ft06.json").read_text(encoding="utf-8"))
    by_name = {v["name"]: v for v in index["variants"]}
    for record in records:
        variant = load_instance(out / record["spec"])
        family = load_family(variant.family)
        listed = by_name[record["instance"]]
        assert record["base"] == variant.meta.base == "ft06" and record["derivation"] == "sat"
        assert record["changes"] == variant.meta.changes == "; ".join(listed["changes"]) != ""
        assert record["difficulty"] == "easy" and record["bks"] == listed["objective"]
        solved = solve_instance(variant, family, time_limit=5.0)  # every variant is feasible, its bks the optimum
        assert solved.status == "optimal" and solved.objective == record["bks"]
        assert evaluate_solution(make_context(variant, family), solved.solution).feasible
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["derivation"] == {"mode": "sat", "count": 3, "seed": 5, "time_limit": 5.0}
    assert {i["base"] for i in manifest["instances"]} == {"ft06"}
    assert "| jsplib | 3 | 0 | 0 |" in (out / "composition.md").read_text(encoding="utf-8")
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "- name: base" in card and "variants, not the originals" in card
    before = _snapshot(out)
    bench_build.build([source], out, ["v1", "v4"], [42], derivation=derivation)
    assert _snapshot(out) == before  # a rerun touches nothing
    again = tmp_path / "again"
    bench_build.build([source], again, ["v1", "v4"], [42], derivation=derivation)
    assert _bytes(again) == _bytes(out)  # deterministic per seed
    other = tmp_path / "other"
    bench_build.build([source], other, ["v1"], [42], derivation=Derivation(mode="sat", count=3, seed=6,
                                                                          time_limit=5.0))
    assert [r["changes"] for r in _records(other)] != [r["changes"] for r in records if r["variant"] == "v1"]


def test_a_tightened_build_accepts_the_optimum_and_rejects_a_worse_answer(tmp_path: Path) -> None:
    """End to end through ``bench eval``: makespan 55 is feasible under ⌊1.15 × 55⌋ = 63, makespan 65 is not."""
    from schedc.core.solution import Solution
    from schedc.lang.family import load_family
    from schedc.lang.load import load_instance
    from schedc.variants import solve_instance
    from schedc.verify.verifier import Verifier

    out = tmp_path / "tight"
    _ok("build", _ft06_source(tmp_path / "src"), "-o", out, "--tighten", "1.15", "--variants", "v1")
    (record,) = _records(out)
    assert (record["id"], record["base"], record["derivation"]) == ("jsplib/ft06_tight/v1/s42", "ft06", "tighten")
    assert record["changes"] == "added objective_bound near_optimal with max=63" and record["bks"] == 55
    assert "63" in record["prompt"]  # the rendering states the bound
    instance = load_instance(out / record["spec"])
    family = load_family(instance.family)
    best = solve_instance(instance, family, time_limit=5.0).solution
    assert best is not None
    late = Solution(starts={a: s + 10 for a, s in best.starts.items()}, modes=best.modes)
    writer = Verifier(instance, family, {p["ir"]: p["shown"] for p in record["names"]})
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps({"model": m, "id": record["id"], "text": writer.write(s), "error": None})
                                 + "\n" for m, s in (("best", best), ("late", late))))
    data = evaluate(out, [responses], tmp_path / "report")
    feasible = {r["model"]: r["feasible"] for r in data["feasibility"] if r["family"] == "all"}
    assert feasible == {"best": 1, "late": 0}


def test_variant_build_options_are_checked(tmp_path: Path) -> None:
    source = _ft06_source(tmp_path / "src")
    _fails("build", source, "-o", tmp_path / "a", "--perturb", "boundary:2", message="B107")
    _fails("build", source, "-o", tmp_path / "a", "--perturb", "sat:0", message="B107")
    _fails("build", source, "-o", tmp_path / "a", "--tighten", "0.9", message="B107")
    _fails("build", source, "-o", tmp_path / "a", "--tighten", "1.1", "--perturb", "sat:1", message="not both")
    assert not (tmp_path / "a").exists()
    _ok("build", source, "-o", tmp_path / "b", "--tighten", "1.1", "--variants", "v1")
    _fails("build", source, "-o", tmp_path / "b", "--variants", "v1", message="B108")  # a plain build on top
