"""Dynamic shops as ordinary instances: world ⇄ dfjsp instance, the CLI commands of the family,
and the solver against the dispatching rules."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedc.backends.cpsat import solve as cpsat_solve
from schedc.backends.cpsat.solve import SolveOptions
from schedc.core.diagnostics import SchedcError
from schedc.dynamic.api import load_world, world_json
from schedc.dynamic.rules import best_rule, simulate
from schedc.dynamic.spec import instance_to_world, world_to_instance
from schedc.dynamic.world import Event, Job, Machine, Operation, Outage, World
from schedc.ir import equal_ignoring_spans
from schedc.lang.family import load_family
from schedc.lang.load import load_instance
from schedc.lang.parser import parse_instance_text
from schedc.lang.printer import print_instance
from schedc.verify.evaluate import evaluate, make_context
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "dfjsp_small.sched"
runner = CliRunner()


def tiny_world() -> World:
    """Two groups, three machines, three jobs; a rework step, a route change, an estimate, a cancellation."""
    machines = (Machine("M1", "cut", 1.0), Machine("M2", "cut", 1.25), Machine("M3", "weld", 0.8))
    j1 = Job("J1", 0, 20, 1, "a", (Operation("J1.1", "J1", 1, "cut", (("M1", 5), ("M2", 4))),
                                   Operation("J1.2", "J1", 2, "weld", (("M3", 6), ("M1", 7)))))
    j2 = Job("J2", 3, 18, 2, "b", (Operation("J2.1", "J2", 1, "weld", (("M3", 4),)),
                                   Operation("J2.2", "J2", 2, "cut", (("M1", 3), ("M2", 2))),
                                   Operation("J2.3", "J2", 3, "cut", (("M1", 2), ("M2", 2)), release=9)))
    gone = Job("J3", 2, 30, 1, "a", (Operation("J3.1", "J3", 1, "cut", (("M1", 6), ("M2", 5))),))
    events = (Event(4, "cancel", job="J3"), Event(9, "rework", job="J2", op="J2.3"),
              Event(5, "route_change", job="J1", op="J1.2", old="M3", new="cut"),
              Event(6, "processing_time_change", job="J2", op="J2.2", old="M1:2 M2:1"),
              Event(7, "due_date_change", job="J1", old="16"), Event(8, "priority_change", job="J2", old="1"))
    return World("tiny", machines, (j1, j2), (Outage("M2", 10, 14, "breakdown"), Outage("M1", 30, 33, "maintenance")),
                 events, (gone,), horizon=10, seed=3)


def test_a_world_becomes_a_valid_instance_and_comes_back() -> None:
    world = tiny_world()
    instance = world_to_instance(world)
    text = print_instance(instance)
    assert equal_ignoring_spans(parse_instance_text(text), instance)
    back = instance_to_world(parse_instance_text(text))
    assert back.jobs == tuple(dataclasses.replace(j, template="") for j in world.jobs)  # templates are not carried
    assert back.machines == world.machines and back.outages == world.outages
    assert back.horizon == world.horizon and back.objective == world.objective
    assert [j.name for j in back.cancelled] == ["J3"] and back.cancelled[0].operations == ()
    assert {(e.type, e.op or e.job) for e in back.events} == {(e.type, e.op or e.job) for e in world.events}
    estimate = next(e for e in back.events if e.type == "processing_time_change")
    assert estimate.old == "M1:2 M2:1"
    route = next(e for e in back.events if e.type == "route_change")
    assert (route.old, route.new) == ("M3", "cut")


def test_world_json_round_trip_is_exact(tmp_path: Path) -> None:
    world = tiny_world()
    path = tmp_path / "tiny.world.json"
    path.write_bytes(world_json(world))
    assert load_world(path) == world


def test_the_example_instance_reads_as_a_world() -> None:
    world = instance_to_world(load_instance(EXAMPLE))
    assert [j.release for j in world.jobs] == [0, 2, 5]
    assert world.jobs[2].operations[-1].release == 12 and world.outages == (Outage("M2", 8, 12, "breakdown"),)


def test_events_about_withdrawn_work_are_not_logged() -> None:
    world = tiny_world()
    extra = Event(5, "processing_time_change", job="J3", op="J3.1", old="M1:4 M2:3")
    instance = world_to_instance(dataclasses.replace(world, events=(*world.events, extra)))
    subjects = [e.attrs["subject"] for e in instance.entities if e.cls == "event"]
    assert "J3.1" not in subjects and "J3" in subjects


def test_bad_worlds_and_instances_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(SchedcError, match="E801"):
        world_to_instance(dataclasses.replace(tiny_world(), machines=(Machine("M1", "cut", 1.005),)))
    with pytest.raises(SchedcError, match="dynamic worlds are read from dfjsp instances"):
        instance_to_world(load_instance(ROOT / "examples" / "ft06.sched"))
    bad = tmp_path / "bad.world.json"
    bad.write_text('{"name": 3}')
    with pytest.raises(SchedcError, match="not a dynamic shop world"):
        load_world(bad)


def test_every_rule_rollout_of_the_example_verifies() -> None:
    world = instance_to_world(load_instance(EXAMPLE))
    instance = load_instance(EXAMPLE)
    ctx = make_context(instance, load_family("dfjsp"))
    for rule in ("SPT+LIT", "MWKR+LWL", "LOPNR+SPT", "RANDOM"):
        rollout = simulate(world, rule, seed=1)
        verdict = evaluate(ctx, rollout.solution)
        assert verdict.feasible, verdict.violations
        assert verdict.objective == rollout.makespan


def test_cpsat_is_no_worse_than_the_best_rule() -> None:
    world = tiny_world()
    instance = world_to_instance(world)
    family = load_family("dfjsp")
    name, best = best_rule(world)
    result = cpsat_solve(instance, family, SolveOptions(time_limit=10, workers=2))
    assert result.status == "optimal"
    assert result.objective <= best.makespan, name
    assert evaluate(make_context(instance, family), result.solution).feasible


def test_cli_simulate_writes_an_answer_that_check_accepts(tmp_path: Path) -> None:
    from schedc.cli import app

    answer = tmp_path / "answer.txt"
    done = runner.invoke(app, ["simulate", str(EXAMPLE), "--rule", "mwkr+lit", "-o", str(answer), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["rollouts"][0]["rule"] == "MWKR+LIT"
    checked = runner.invoke(app, ["check", str(EXAMPLE), str(answer)])
    assert checked.exit_code == 0 and "FEASIBLE" in checked.output


def test_cli_ssi_plot_and_errors(tmp_path: Path) -> None:
    from schedc.cli import app

    done = runner.invoke(app, ["ssi", str(EXAMPLE), "--json"])
    assert done.exit_code == 0 and 0 <= json.loads(done.output)["ssi"]["index"] <= 100
    answer = tmp_path / "a.txt"
    runner.invoke(app, ["simulate", str(EXAMPLE), "-o", str(answer)])
    image = tmp_path / "gantt.png"
    done = runner.invoke(app, ["plot", str(EXAMPLE), str(answer), "-o", str(image)])
    assert done.exit_code == 0 and image.read_bytes().startswith(b"\x89PNG") and image.stat().st_size > 5000
    done = runner.invoke(app, ["plot", str(EXAMPLE), "-o", str(tmp_path / "t.svg"), "--view", "timeline"])
    assert done.exit_code == 0 and "<svg" in (tmp_path / "t.svg").read_text()
    done = runner.invoke(app, ["simulate", str(EXAMPLE), "--rule", "FAST+LIT"])
    assert done.exit_code == 2 and "unknown dispatching rule" in done.output
    done = runner.invoke(app, ["plot", str(EXAMPLE), "-o", str(tmp_path / "x.png"), "--view", "sideways"])
    assert done.exit_code == 2 and "'sideways' is not one of" in " ".join(done.output.split())


def test_cpsat_warm_started_by_the_best_rule_keeps_or_improves_it_on_a_generated_shop() -> None:
    from schedc.dynamic.api import points_of
    from schedc.dynamic.realise import realise

    world, _report = realise(points_of(ROOT / "examples" / "dfjsp" / "small.toml")[0])
    world = dataclasses.replace(world, objective="makespan")
    instance, family = world_to_instance(world), load_family("dfjsp")
    _name, best = best_rule(world)
    result = cpsat_solve(instance, family, SolveOptions(time_limit=3, workers=2), start=best.solution)
    assert result.solution is not None and evaluate(make_context(instance, family), result.solution).feasible
    assert result.objective <= best.makespan


def test_a_generated_shop_renders_faithfully_in_every_variant() -> None:
    from schedc.dynamic.api import points_of
    from schedc.dynamic.realise import realise
    from schedc.render import render
    from tests.test_render import audit

    world, _report = realise(points_of(ROOT / "examples" / "dfjsp" / "small.toml")[0])
    instance, family = world_to_instance(world), load_family("dfjsp")
    assert {e.attrs["kind"] for e in instance.entities if e.cls == "event"} >= {"cancel", "estimate", "due"}
    for variant in ("v1", "v2", "v3a", "v3b", "v4"):
        for seed in (42, 7):
            assert audit(render(instance, family, variant, seed), instance, family) == [], (variant, seed)


def test_cli_generate_writes_instances_worlds_and_a_manifest(tmp_path: Path) -> None:
    from schedc.cli import app

    done = runner.invoke(app, ["generate", str(ROOT / "examples" / "dfjsp" / "small.toml"), "-o", str(tmp_path)])
    assert done.exit_code == 0, done.output
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert [m["instance"] for m in manifest] == ["dfjsp_small"]
    assert manifest[0]["calibration"]["l2_after"] <= manifest[0]["calibration"]["l2_before"]
    spec, world = tmp_path / "dfjsp_small.sched", tmp_path / "dfjsp_small.world.json"
    assert [j.operations for j in load_world(world).jobs] == [j.operations for j in load_world(spec).jobs]
    done = runner.invoke(app, ["calibrate", str(ROOT / "examples" / "dfjsp" / "small.toml"), "--json"])
    assert done.exit_code == 0 and json.loads(done.output)[0]["sesc"]["method"] == "sesc"
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[plant]\nmachines = 3\n')
    done = runner.invoke(app, ["generate", str(bad), "-o", str(tmp_path / "out")])
    assert done.exit_code == 2 and "E71" in done.output and not (tmp_path / "out").exists()


def test_generate_writes_identical_bytes_across_processes_and_hash_seeds(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    config = ROOT / "examples" / "dfjsp" / "small.toml"
    folders = []
    for hash_seed in ("0", "4242"):
        out = tmp_path / hash_seed
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run([sys.executable, "-c", "from schedc.cli import main; main()", "generate", str(config),
                        "-o", str(out)], env=env, check=True, capture_output=True)
        folders.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert folders[0] == folders[1] and len(folders[0]) == 3


def test_hand_written_shops_without_machine_rows_or_window_simulate(tmp_path: Path) -> None:
    text = EXAMPLE.read_text()
    start = text.index("machine (group speed) table")
    end = text.index("end\n", start) + len("end\n")
    plain = tmp_path / "plain.sched"
    plain.write_text(text[:start] + text[end:])
    world = load_world(plain)
    assert [(m.group, m.speed) for m in world.machines] == [("M1", 1.0), ("M2", 1.0), ("M3", 1.0), ("M4", 1.0)]
    assert world.horizon == 6  # the time after the last release (J3 at 5)
    assert simulate(world, "SPT+LIT").makespan > 0


@pytest.mark.parametrize(("edit", "message"), [
    (("E2 14 due J3 22", "E2 14 dew J3 22"), ":27:3: error[E803]: event E2: unknown kind 'dew'"),
    (("M4 mill 80", "M9 mill 80"), ":23:3: error[E804]: machine rows name no unary resource: M9"),
])
def test_bad_dynamic_rows_are_positioned_errors(tmp_path: Path, edit: tuple[str, str], message: str) -> None:
    bad = tmp_path / "bad.sched"
    bad.write_text(EXAMPLE.read_text().replace(*edit))
    with pytest.raises(SchedcError) as exc:
        load_world(bad)
    assert f"{bad}{message}" in str(exc.value)
