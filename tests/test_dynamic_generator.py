"""Dynamic flexible job shop: configuration, generator, metrics and the Schedule Stress Index."""

from __future__ import annotations

from pathlib import Path

import msgspec
import numpy as np
import pytest

from schedc.core.diagnostics import SchedcError
from schedc.dynamic.config import ConfigPoint, expand, grid_size, load_config, parse_config
from schedc.dynamic.generator import build_world, draft, generate, warp
from schedc.dynamic.metrics import compute_metrics, error_vector, metrics_from_arrays
from schedc.dynamic.ssi import stress_index
from schedc.dynamic.world import World

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "dfjsp"

PLANT = """
name = "t"
seed = 3
[plant]
machines = [
    { name = "M1", group = "a", speed = 1.0 },
    { name = "M2", group = "a", speed = 1.25 },
    { name = "M3", group = "b", speed = 0.8 },
    { name = "M4", group = "b", speed = 1.0 },
]
[[plant.templates]]
name = "x"
route = ["a", "b", "a"]
work = [20.0, 24.0, 18.0]
[[plant.templates]]
name = "y"
route = ["b", "a"]
work = [22.0, 20.0]
share = 0.5
"""


def point(targets: str, scale: str = "horizon = 400", extra: str = "", **changes: object) -> ConfigPoint:
    """The single point of the test plant with the given ``[targets]`` body."""
    text = f"{PLANT}\n[scale]\n{scale}\n[targets]\n{targets}\n{extra}"
    [p] = expand(parse_config(text, "test.toml"))
    return msgspec.structs.replace(p, **changes) if changes else p


BASE = "utilisation = 0.8\narrival_scv = 1.5\nprocessing_scv = 0.5\ntightness = 3.0\ndisturbance = 0.05"
SCENARIOS = """
[scenarios]
cancel = 0.1
rework = 0.1
priority_change = 0.2
route_change = 0.1
due_date_change = 0.2
processing_time_change = 0.2
batch = 0.2
maintenance_interval = 100
maintenance_duration = 3
"""


# --------------------------------------------------------------------------- configuration


def test_examples_load_and_expand() -> None:
    small = load_config(EXAMPLES / "small.toml")
    [only] = expand(small)
    world = generate(only)
    assert 6 <= len(world.machines) <= 8 and len(set(m.group for m in world.machines)) in (3, 4)
    assert 20 <= len(world.jobs) + len(world.cancelled) <= 30 and len(small.plant.templates) == 3
    grid = load_config(EXAMPLES / "grid.toml")
    points = expand(grid)
    assert len(points) == grid_size(grid) == 54
    assert len({p.name for p in points}) == 54 and len({p.seed for p in points}) == 54
    assert [p.name for p in points[:2]] == ["dfjsp_grid_000", "dfjsp_grid_001"]
    # row-major: the last field (tightness) varies fastest
    assert (points[0].targets.tightness, points[1].targets.tightness) == (2.0, 4.0)


def test_grid_expansion_is_the_cartesian_product() -> None:
    config = parse_config(f"{PLANT}\n[scale]\nhorizon = 100\n[targets]\nutilisation = [0.5, 0.6]\n"
                          "arrival_scv = [0.5, 1.0, 2.0]\nimbalance = [0.1, 0.2]\n")
    points = expand(config)
    assert len(points) == 12
    assert {(p.targets.utilisation, p.targets.arrival_scv, p.targets.imbalance) for p in points} == {
        (u, a, i) for u in (0.5, 0.6) for a in (0.5, 1.0, 2.0) for i in (0.1, 0.2)}
    assert [p.seed for p in points] == [3 + i for i in range(12)]


def test_joint_targets_are_zipped_into_one_axis() -> None:
    config = parse_config(f"{PLANT}\n[scale]\nhorizon = 100\n[targets]\nutilisation = [0.5, 0.6]\n"
                          "arrival_scv = [0.5, 1.0, 2.0]\nprocessing_scv = [0.25, 0.5, 1.0]\n"
                          'joint = [["processing_scv", "arrival_scv"]]\n')
    points = expand(config)
    assert len(points) == grid_size(config) == 6
    assert [(p.targets.utilisation, p.targets.arrival_scv, p.targets.processing_scv) for p in points] == [
        (u, a, c) for u in (0.5, 0.6) for a, c in ((0.5, 0.25), (1.0, 0.5), (2.0, 1.0))]
    assert [p.seed for p in points] == [3 + i for i in range(6)]


@pytest.mark.parametrize(("joint", "expected"), [
    ('[["arrival_scv", "processing_scv"]]', "$.targets.joint[0]: expected lists of the same length (level k of "
                                            "each goes together), got arrival_scv has 3, processing_scv has 2"),
    ('[["arrival_scv", "speed"]]', "$.targets.joint[0][1]: unknown target 'speed'"),
    ('[["arrival_scv"]]', "$.targets.joint[0]: expected at least two target names"),
    ('[["arrival_scv", "utilisation"], ["arrival_scv", "tightness"]]',
     "$.targets.joint[1][0]: target 'arrival_scv' is already in a joint group"),
])
def test_joint_target_errors(joint: str, expected: str) -> None:
    with pytest.raises(SchedcError) as caught:
        parse_config(f"{PLANT}\n[scale]\nhorizon = 100\n[targets]\nutilisation = [0.5, 0.6, 0.7]\n"
                     f"arrival_scv = [0.5, 1.0, 2.0]\nprocessing_scv = [0.25, 0.5]\ntightness = [2.0, 3.0, 4.0]\n"
                     f"joint = {joint}\n", "test.toml")
    assert "E714" in str(caught.value) and expected in str(caught.value)


@pytest.mark.parametrize(("text", "expected"), [
    (PLANT.replace('speed = 0.8', 'speeed = 0.8'), ["E713", "$.plant.machines[2].speeed", "unknown key",
                                                    "test.toml:8:33:"]),
    (PLANT.replace('speed = 0.8', 'speed = "fast"'), ["E713", "$.plant.machines[2].speed", "expected `float`"]),
    (PLANT.replace('route = ["b", "a"]', 'route = ["b", "c"]'), ["E714", "$.plant.templates[1].route[1]",
                                                                  "unknown machine group 'c'"]),
    (PLANT.replace('speed = 0.8', 'speed = 0.805'), ["E714", "$.plant.machines[2].speed", "2 decimals"]),
    (PLANT.replace('name = "y"', 'name = "y'), ["E712", "test.toml:", "malformed TOML"]),
])
def test_config_errors_name_the_key(text: str, expected: list[str]) -> None:
    with pytest.raises(SchedcError) as caught:
        parse_config(f"{text}\n[scale]\nhorizon = 100\n[targets]\nutilisation = 0.8\n", "test.toml")
    message = str(caught.value)
    for part in expected:
        assert part in message


def test_config_errors_for_missing_keys_bad_values_and_files(tmp_path: Path) -> None:
    with pytest.raises(SchedcError, match=r"\$\.scale: missing required key|\$\.scale\.horizon"):
        parse_config(f"{PLANT}\n[scale]\njobs = 3\n[targets]\nutilisation = 0.8\n")
    with pytest.raises(SchedcError, match=r"\$\.targets\.bottlenecks\[0\]: expected 0 ≤ start < end"):
        parse_config(f"{PLANT}\n[scale]\nhorizon = 100\n[targets]\nutilisation = 0.8\n"
                     'bottlenecks = [{ start = 50, end = 200, group = "a", utilisation = 0.9 }]\n')
    with pytest.raises(SchedcError, match=r"\$\.scenarios\.cancel: expected a probability"):
        parse_config(f"{PLANT}\n[scale]\nhorizon = 100\n[targets]\nutilisation = 0.8\n[scenarios]\ncancel = 1.5\n")
    with pytest.raises(SchedcError, match="E711"):
        load_config(tmp_path / "absent.toml")


# --------------------------------------------------------------------------- generator statistics


def test_generator_statistics_match_targets_for_large_n() -> None:
    """Calibration off, ~2,900 jobs: the realised metrics are the targets up to sampling noise."""
    p = point(BASE, "horizon = 50000")
    metrics = compute_metrics(generate(p))
    assert metrics.jobs > 2500
    errors = error_vector(metrics, p.targets)
    assert abs(errors["utilisation"]) < 0.05
    assert abs(errors["arrival_scv"]) < 0.10
    assert abs(errors["processing_scv"]) < 0.10
    assert abs(errors["tightness"]) < 0.02
    assert abs(errors["disturbance"]) < 1e-3


def test_fixed_job_count_and_bottleneck_window() -> None:
    window = '\nbottlenecks = [{ start = 100, end = 300, group = "b", utilisation = 0.95 }]'
    p = point(BASE.replace("0.05", "0.15") + window, "horizon = 400\njobs = 60")
    world = generate(p)
    metrics = compute_metrics(world, p.targets.bottlenecks)
    assert len(world.jobs) == 60
    assert abs(error_vector(metrics, p.targets)["bottleneck[0]"]) < 0.02
    assert abs(metrics.disturbance - 0.15) < 1e-3


@pytest.mark.parametrize("pattern", ["pattern = 'periodic'\namplitude = 0.6\nperiod = 500",
                                     "pattern = 'trend'\namplitude = 0.8"])
def test_time_warp_is_monotone_and_modulates(pattern: str) -> None:
    q = point(BASE, "horizon = 2000", extra=f"[arrivals]\n{pattern}")
    u = np.sort(np.random.default_rng(1).uniform(0, 2000, 5000))
    t = warp(u, q)
    assert np.all(np.diff(t) >= 0) and t[0] >= 0 and t[-1] <= 2000
    assert warp(np.array([0.0, 2000.0]), q).tolist() == pytest.approx([0.0, 2000.0])
    releases = np.array([j.release for j in generate(q).jobs])
    assert np.all(np.diff(releases) >= 0)
    if "trend" in pattern:  # rate 1 − A at the start, 1 + A at the end
        assert (releases >= 1000).sum() > 2 * (releases < 1000).sum()
    else:  # high rate in the first half period, low in the second
        assert ((releases % 500) < 250).sum() > 1.5 * ((releases % 500) >= 250).sum()


# --------------------------------------------------------------------------- determinism and streams


def test_same_seed_same_world_and_different_seed_different_world() -> None:
    p = point(BASE, extra=SCENARIOS)
    assert generate(p) == generate(p)
    assert generate(p) != generate(msgspec.structs.replace(p, seed=p.seed + 1))


def _releases(world: World) -> list[int]:
    return sorted(j.release for j in (*world.jobs, *world.cancelled))


def test_components_draw_from_independent_streams() -> None:
    p = point(BASE, extra=SCENARIOS)
    world = generate(p)
    more_downtime = generate(msgspec.structs.replace(p, targets=msgspec.structs.replace(p.targets, disturbance=0.15)))
    assert _releases(more_downtime) == _releases(world)
    assert [j.operations for j in more_downtime.jobs] == [j.operations for j in world.jobs]
    assert more_downtime.outages != world.outages
    other_work = msgspec.structs.replace(p.targets, processing_scv=1.0)
    assert _releases(generate(msgspec.structs.replace(p, targets=other_work))) == _releases(world)
    # probabilities that do not enter the rate (cancel, rework and processing-time changes do) leave
    # arrivals and work alone
    calm = msgspec.structs.replace(p.scenarios, priority_change=0.0, due_date_change=0.0)
    quiet = generate(msgspec.structs.replace(p, scenarios=calm))
    assert _releases(quiet) == _releases(world)
    assert [j.operations for j in quiet.jobs] == [j.operations for j in world.jobs]


# --------------------------------------------------------------------------- the realised world


def test_world_follows_the_event_semantics() -> None:
    p = point(BASE, extra=SCENARIOS)
    world = generate(p)
    ops = {op.name: op for job in world.jobs for op in job.operations}
    everyone = sorted((*world.jobs, *world.cancelled), key=lambda j: int(j.name[1:]))
    assert [j.release for j in everyone] == sorted(j.release for j in everyone)
    assert {e.type for e in world.events} >= {"cancel", "rework", "priority_change", "due_date_change",
                                              "processing_time_change", "route_change", "batch_arrival"}
    cancelled = {j.name for j in world.cancelled}
    groups = {m.name: m.group for m in world.machines}
    for e in world.events:
        if e.type == "cancel":
            assert e.job in cancelled
        elif e.type == "rework":
            op = ops[e.op or ""]
            assert op.release == e.time and op.step == len(next(j for j in world.jobs if j.name == e.job).operations)
        elif e.type == "route_change":
            op = ops[e.op or ""]
            assert set(e.old.split()) < {m for m, _ in op.durations}
            assert {groups[m] for m, _ in op.durations} == {op.group, e.new}
        elif e.type == "processing_time_change":
            assert [pair.split(":")[0] for pair in e.old.split()] == [m for m, _ in ops[e.op or ""].durations]
    assert all(d >= 1 for op in ops.values() for _, d in op.durations)
    assert all(round(m.speed * 100) == m.speed * 100 for m in world.machines)
    assert all(0 <= o.start < o.end <= world.horizon for o in world.outages)


def test_discrete_multipliers_promotion_tightening_and_random_maintenance_lengths() -> None:
    extra = SCENARIOS + ("processing_multiplier_set = [0.7, 0.9, 1.2, 1.5]\npriority_mode = \"promote\"\n"
                         "due_date_multiplier = [0.5, 0.5]\nmaintenance_duration_sd = 1.0\n")
    p = point(BASE, extra=extra.replace("maintenance_duration = 3", "maintenance_duration = 5"))
    world = generate(p)
    jobs = {j.name: j for j in (*world.jobs, *world.cancelled)}
    ops = {op.name: op for job in world.jobs for op in job.operations}
    kinds = {e.type: [x for x in world.events if x.type == e.type] for e in world.events}
    for e in kinds["priority_change"]:
        assert jobs[e.job or ""].weight == int(e.old) + 1
    halved = [job.due - job.release == round((int(e.old) - job.release) / 2)
              for e in kinds["due_date_change"] for job in [jobs[e.job or ""]]]
    assert sum(halved) > len(halved) / 2  # the rest are clipped at the job's expected processing time
    rerouted = {e.op for e in kinds["route_change"]}  # opened machines' estimates are derived, not drawn
    for e in (x for x in kinds["processing_time_change"] if x.op not in rerouted):
        true = dict(ops[e.op or ""].durations)
        old = [(m, int(d)) for m, d in (pair.split(":") for pair in e.old.split())]
        assert any(all(true[m] == max(1, round(d * k)) for m, d in old) for k in (0.7, 0.9, 1.2, 1.5)), e
    lengths = {o.end - o.start for o in world.outages
               if o.cause == "maintenance" and 0 < o.start and o.end < world.horizon}
    assert len(lengths) > 1 and all(1 <= n < 100 for n in lengths)
    assert p.scenarios.mean_multiplier() == 1.075


@pytest.mark.parametrize(("scenarios", "expected"), [
    ("processing_multiplier_set = [0.7, 0.0]", "$.scenarios.processing_multiplier_set[1]: expected a positive"),
    ("due_date_multiplier = [0.9, 0.5]", "$.scenarios.due_date_multiplier: expected 0 < lo ≤ hi, got [0.9, 0.5]"),
    ("maintenance_duration_sd = -1.0", "$.scenarios.maintenance_duration_sd: expected a non-negative"),
    ('priority_mode = "demote"', "$.scenarios.priority_mode"),
])
def test_scenario_value_errors(scenarios: str, expected: str) -> None:
    with pytest.raises(SchedcError, match="E71[34]") as caught:
        parse_config(f"{PLANT}\n[scale]\nhorizon = 100\n[targets]\nutilisation = 0.8\n[scenarios]\n{scenarios}\n")
    assert expected in str(caught.value)


def test_array_metrics_equal_world_metrics() -> None:
    p = point(BASE + '\nbottlenecks = [{ start = 100, end = 200, group = "a", utilisation = 1.0 }]',
              extra=SCENARIOS)
    d = draft(p)
    assert metrics_from_arrays(d.arrays(), p.targets.bottlenecks) == compute_metrics(build_world(d),
                                                                                    p.targets.bottlenecks)


# --------------------------------------------------------------------------- SSI


def test_ssi_is_monotone_in_utilisation_and_tightness() -> None:
    def ssi(utilisation: float, tightness: float) -> float:
        p = point(f"utilisation = {utilisation}\ntightness = {tightness}\ndisturbance = 0.05", "horizon = 2000")
        return stress_index(compute_metrics(generate(p))).index

    by_load = [ssi(u, 3.0) for u in (0.5, 0.7, 0.9)]
    by_pressure = [ssi(0.8, t) for t in (5.0, 3.0, 1.5)]
    assert by_load == sorted(by_load) and by_load[0] < by_load[-1]
    assert by_pressure == sorted(by_pressure) and by_pressure[0] < by_pressure[-1]
    assert all(0 <= s <= 100 for s in by_load + by_pressure)


def test_a_shop_whose_every_job_is_cancelled_is_a_clear_error() -> None:
    with pytest.raises(SchedcError, match="every one of the 3 jobs is cancelled"):
        generate(point(BASE, "horizon = 400\njobs = 3", "[scenarios]\ncancel = 0.999"))
    with pytest.raises(SchedcError, match="expected a probability below 1"):
        point(BASE, extra="[scenarios]\ncancel = 1.0")
