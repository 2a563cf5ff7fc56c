"""DynaSched-Subset (farthest-point k-center) and the parallel, resumable generate / calibrate / subset."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from schedc.dynamic import batch
from schedc.dynamic.api import generate_dir
from schedc.dynamic.subset import feature_matrix, k_center, ks_report, select

ROOT = Path(__file__).resolve().parent.parent
GRID = ROOT / "examples" / "dfjsp" / "grid.toml"
SMALL = ROOT / "examples" / "dfjsp" / "small.toml"
POOL_POINTS = 8


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pool")
    generate_dir(GRID, out, calibrate=False, limit=POOL_POINTS)
    return out


@pytest.fixture(scope="module")
def cluster() -> Any:
    distributed = pytest.importorskip("distributed", reason="the dask executor needs dask.distributed")
    from schedc.bench.executor import LOCAL_CLUSTER_OPTIONS

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  **LOCAL_CLUSTER_OPTIONS) as local:
        yield local.scheduler_address


# --------------------------------------------------------------------------- the selection itself


def test_k_center_starts_at_the_centre_and_adds_the_farthest() -> None:
    points = np.array([[0.0], [1.0], [2.0], [10.0], [11.0]])
    chosen, radius = k_center(points, 3)
    assert chosen == [2, 4, 0]  # mean 4.8: closest is 2.0; then 11 (farthest), then 0 (distance 2 vs 1)
    assert radius == 1.0


def test_k_center_is_within_twice_the_optimal_radius() -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        points = rng.normal(size=(9, 3))
        for k in (2, 3, 4):
            _, radius = k_center(points, k)
            best = min(_radius(points, list(s)) for s in itertools.combinations(range(len(points)), k))
            assert best - 1e-12 <= radius <= 2 * best + 1e-12


def _radius(points: np.ndarray, centres: list[int]) -> float:
    return float(max(min(np.linalg.norm(p - points[c]) for c in centres) for p in points))


def test_features_are_z_scores_and_a_scaled_difficulty_rank() -> None:
    records = [{"metrics": {"utilisation": u, "arrival_scv": 1.0, "processing_scv": 0.5, "tightness": 3.0,
                            "disturbance": 0.05, "imbalance": 0.1 * i}, "ssi": s}
               for i, (u, s) in enumerate([(0.7, 30.0), (0.8, 50.0), (0.9, 40.0)])]
    f = feature_matrix(records)
    assert f.shape == (3, 7)
    assert np.allclose(f[:, 0], (np.array([0.7, 0.8, 0.9]) - 0.8) / np.std([0.7, 0.8, 0.9]))
    assert np.all(f[:, 1] == 0)  # constant in the pool
    assert np.allclose(f[:, 6], np.array([-1.0, 1.0, 0.0]) * np.sqrt(1.5))  # ranks 1, 3, 2 → z-scored


def test_ks_statistics_of_the_pool_itself_are_zero_and_of_a_biased_subset_large() -> None:
    records = [{"metrics": {k: float(i) for k in ("utilisation", "arrival_scv", "processing_scv", "tightness",
                                                   "disturbance", "imbalance")}, "ssi": float(i)} for i in range(10)]
    assert all(v["statistic"] == 0 for v in ks_report(records, list(range(10))).values())
    biased = ks_report(records, [7, 8, 9])
    assert biased["utilisation"]["statistic"] == pytest.approx(0.7)


# --------------------------------------------------------------------------- the command


def test_subset_of_a_generated_pool(pool: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "subset"
    report = select(pool, 3, out)
    names = [c["instance"] for c in report["chosen"]]
    assert report["pool"] == POOL_POINTS and len(set(names)) == 3
    assert {p.name for p in out.iterdir() if p.is_file()} == {
        "subset.json", "manifest.json", *(f"{n}{s}" for n in names for s in (".sched", ".world.json"))}
    pool_entries = {e["instance"]: e for e in json.loads((pool / "manifest.json").read_text())}
    assert json.loads((out / "manifest.json").read_text()) == [pool_entries[n] for n in names]
    for c in report["chosen"]:  # features are the world's metrics, as the generator's manifest states them
        for key, value in c["metrics"].items():
            assert value == pytest.approx(pool_entries[c["instance"]]["metrics"][key])
    assert set(report["ks"]) == {"utilisation", "arrival_scv", "processing_scv", "tightness", "disturbance",
                                 "imbalance", "ssi"}
    # a rerun reads the per-instance cache: nothing is recomputed
    import schedc.dynamic.subset as subset

    monkeypatch.setattr(subset, "features_of", lambda path: pytest.fail(f"recomputed {path}"))
    assert select(pool, 3, out) == report


def test_subset_cli_and_bad_input(pool: Path, tmp_path: Path) -> None:
    from schedc.cli import app

    runner = CliRunner()
    done = runner.invoke(app, ["subset", str(pool), "-k", "2", "-o", str(tmp_path / "s"), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["k"] == 2
    too_many = runner.invoke(app, ["subset", str(pool), "-k", "99", "-o", str(tmp_path / "t")])
    assert too_many.exit_code == 2 and f"holds {POOL_POINTS} instances, fewer than k = 99" in too_many.output
    missing = runner.invoke(app, ["subset", str(tmp_path / "nope"), "-k", "2", "-o", str(tmp_path / "u")])
    assert missing.exit_code == 2 and "is not a folder" in missing.output


# --------------------------------------------------------------------------- executors and resuming


def test_generate_in_parallel_and_on_dask_writes_the_same_bytes(tmp_path: Path, cluster: str) -> None:
    reference = tmp_path / "reference"
    generate_dir(GRID, reference, calibrate=False, limit=4)
    local, dask = tmp_path / "local", tmp_path / "dask"
    batch.generate(GRID, local, calibrate=False, limit=4, jobs=2)
    batch.generate(GRID, dask, calibrate=False, limit=4, jobs=2, executor="dask", scheduler=cluster)
    assert folder_bytes(local) == folder_bytes(dask) == folder_bytes(reference)
    assert not (local / batch.POINTS_DIR).exists()


def test_generate_resumes_per_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import schedc.dynamic.api as api

    out = tmp_path / "out"
    (out / batch.POINTS_DIR).mkdir(parents=True)
    # an interrupted run: points 0 and 1 finished (files, then entry), point 2 only half-written
    for point in api.points_of(GRID, False, 2):
        files, entry = api.realise_point(point)
        for name, content in files:
            (out / name).write_bytes(content.encode() if isinstance(content, str) else content)
        (out / batch.POINTS_DIR / f"{point.name}.json").write_text(json.dumps(entry))
    (out / "dfjsp_grid_002.sched").write_text("torn")
    realised: list[str] = []
    original = api.realise_point
    monkeypatch.setattr(api, "realise_point", lambda p: realised.append(p.name) or original(p))
    batch.generate(GRID, out, calibrate=False, limit=4)
    assert realised == ["dfjsp_grid_002", "dfjsp_grid_003"]
    reference = tmp_path / "reference"
    monkeypatch.setattr(api, "realise_point", original)
    generate_dir(GRID, reference, calibrate=False, limit=4)
    assert folder_bytes(out) == folder_bytes(reference)


def test_calibrate_on_dask_and_resumed(tmp_path: Path, cluster: str, monkeypatch: pytest.MonkeyPatch) -> None:
    local = batch.calibrate(SMALL)
    remote = batch.calibrate(SMALL, executor="dask", scheduler=cluster, jobs=2)
    strip = [{**r, "sesc": {k: v for k, v in r["sesc"].items() if k != "runtime"}} for r in (*local, *remote)]
    assert strip[0] == strip[1]
    rows = tmp_path / "rows.jsonl"
    first = batch.calibrate(SMALL, resume=rows)
    monkeypatch.setattr(batch, "_calibrate_task", lambda task: pytest.fail("recomputed a finished point"))
    assert batch.calibrate(SMALL, resume=rows) == first


def test_subset_on_dask_matches_local(pool: Path, tmp_path: Path, cluster: str) -> None:
    local = select(pool, 4, tmp_path / "local")
    remote = select(pool, 4, tmp_path / "dask", jobs=2, executor="dask", scheduler=cluster)
    assert local == remote


# --------------------------------------------------------------------------- the dataset configurations


def test_dataset_configurations() -> None:
    import tomllib

    from schedc.dynamic.config import grid_size, load_config

    folder = ROOT / "examples" / "dfjsp"
    sizes = {"dynasched_sweep_centroid": 5, "dynasched_sweep_utilisation": 150, "dynasched_sweep_tightness": 110,
             "dynasched_sweep_variability": 60, "dynasched_sweep_disturbance": 130,
             **{f"dynasched_scale_{n}": 5 for n in (200, 400, 800, 1600)},
             **{f"dynasched_complexity_{k}": 5 for k in ("baseline_static", "batch_only", "pm_only", "route_only",
                                                          "full")}}
    for name, size in sizes.items():
        config = load_config(folder / f"{name}.toml")
        assert grid_size(config) == size
        assert len(config.plant.machines) == 10 and len(config.plant.groups()) == 4
        assert len(config.plant.templates) == 3 and {len(t.route) for t in config.plant.templates} == {4}
    assert [load_config(folder / f"dynasched_scale_{n}.toml").scale.jobs for n in (200, 1600)] == [200, 1600]
    seeds = []
    for s in range(1, 6):
        path = folder / f"dynasched_grid_s{s}.toml"
        raw = tomllib.loads(path.read_text())
        counts = [len(v) for v in raw["targets"].values() if isinstance(v, list)]
        assert np.prod(counts) == 6000 and len(counts) == 6 and raw["scale"]["jobs"] == 200
        seeds.append(set(range(raw["seed"], raw["seed"] + 6000)))
        assert grid_size(load_config(path)) == 6000
    assert sum(len(s) for s in seeds) == len(set().union(*seeds))  # disjoint seed blocks
