"""Agent presets (the paper's protocols) and the few-shot / top_p options, against the local fake endpoint.

Every assertion is on the request bodies the fake server received: what a preset says it sends is
what goes over the wire.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from schedc.cli import app
from schedc.core.diagnostics import SchedcError
from schedc.dynamic.agent import run_episode
from schedc.dynamic.agent_prompts import _INSTRUCTIONS
from schedc.dynamic.agent_run import run_presets
from schedc.dynamic.api import generate_dir, load_world, world_json
from schedc.dynamic.presets import DEFAULTS, PRESETS, agent_config, resolve
from schedc.dynamic.rules import RULE_NAMES, simulate
from schedc.dynamic.world import World
from tests.fake_server import FakeServer
from tests.test_dynamic_agent import RULE, Oracle, settings

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
runner = CliRunner()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    out = tmp_path_factory.mktemp("shop")
    config = out / "shop.toml"  # the small example with 4 jobs: a few decisions, calibration targets in the world
    config.write_text((EXAMPLES / "dfjsp" / "small.toml").read_text().replace("jobs = 24", "jobs = 4"))
    generate_dir(config, out, calibrate=False)
    return load_world(out / "dfjsp_small.world.json")


@pytest.fixture(scope="module")
def spec(world: World, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("spec") / "shop.world.json"
    path.write_bytes(world_json(world))
    return path


def observation(body: dict[str, Any]) -> str:
    """The episode's own observation in a request (not a worked example, not an audit)."""
    users = [m["content"] for m in body["messages"] if m["role"] == "user"]
    return next(u for u in users if not u.startswith("Worked example") and "audit" not in u)


def first_id(body: dict[str, Any]) -> str | dict[str, Any]:
    """A model that always takes action 1; in tool mode it calls one tool first."""
    last = body["messages"][-1]
    if "tools" in body and body.get("tool_choice") != "none" and last["role"] == "user":
        call = {"id": "c1", "type": "function",
                "function": {"name": "simulate_action", "arguments": json.dumps({"action_id": 1})}}
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    return "I take the first.\n" + json.dumps({"action_id": 1})


def on_the_rule(world: World) -> Callable[[dict[str, Any]], str | dict[str, Any]]:
    """The rule-following fake model of test_dynamic_agent, reading the episode's observation wherever
    it stands in the conversation (after the few-shot exchanges)."""
    oracle = Oracle(world)

    def reply(body: dict[str, Any]) -> str | dict[str, Any]:
        messages = body["messages"]
        start = next(i for i, m in enumerate(messages) if m["role"] == "user" and m["content"] == observation(body))
        return oracle({**body, "messages": [messages[0], *messages[start:]]})

    return reply


@pytest.mark.parametrize("name", list(PRESETS))
def test_each_preset_sends_what_it_says(world: World, name: str) -> None:
    p = PRESETS[name]
    with FakeServer(reply=first_id) as server:
        episode = run_episode(world, agent_config(resolve(name, {}), "fake"), settings(server))
    n, bodies = episode.rollout.decisions, server.requests
    assert n > 1 and sum(episode.fallbacks.values()) == 0
    per_decision = (1 + p.reflection) * p.best_of * (2 if p.mode == "tool" else 1)
    assert len(bodies) == per_decision * n == episode.usage["requests"]
    for body in bodies:
        system, obs = body["messages"][0]["content"], observation(body)
        assert system.endswith(_INSTRUCTIONS[p.mode]), name
        assert ("tools" in body) == (p.mode == "tool")
        assert (f'level="{p.level}"' in obs) if p.format == "xml" else (f"({p.level} observation)" in obs)
        assert body["temperature"] == (p.vote_temperature if p.best_of > 1 else p.temperature)
        assert body.get("top_p") == p.top_p and ("top_p" in body) == (p.top_p is not None)
        shots = [m for m in body["messages"] if m["role"] == "user" and m["content"].startswith("Worked example")]
        assert len(shots) == p.few_shot
        targets = (p.level == "L3" or "targets" in p.variants) and "xml-priors" not in p.variants
        assert ("Calibration targets" in obs) == targets
        assert ("bottleneck_score" in obs) == (p.level == "L3" or "bottleneck" in p.variants)
        assert ("<Global_Priors>" in obs) == ("xml-priors" in p.variants)
        assert ("Note (background" in obs) == ("padding" in p.variants)
    audits = [b for b in bodies if "audit" in b["messages"][-1]["content"]]
    assert len(audits) == p.reflection * n
    if p.best_of > 1:
        assert sorted({b["seed"] for b in bodies}) == list(range(p.best_of))
    else:
        assert all("seed" not in b for b in bodies)
    assert episode.record()["config"]["few_shot"] == p.few_shot and episode.record()["config"]["top_p"] == p.top_p


def test_few_shot_examples_precede_the_observation(world: World) -> None:
    """Two worked exchanges, then the shop's own observation: the answers still apply to the right table."""
    with FakeServer(reply=on_the_rule(world)) as server:
        episode = run_episode(world, agent_config(resolve("table5-l1-direct", {}), "fake"), settings(server))
    assert episode.rollout.solution == simulate(world, RULE).solution
    roles = [m["role"] for m in server.requests[0]["messages"]]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    first = server.requests[0]["messages"]
    assert first[2]["content"] == '{"action_id": 2}' and first[4]["content"] == '{"action_id": 1}'
    assert "(L1 observation)" in first[1]["content"] and "slack" not in first[1]["content"]
    with FakeServer(reply=on_the_rule(world)) as server:  # CoT at L2: reasoning in the examples' answers
        run_episode(world, agent_config(resolve("l2-cot", {"few_shot": 1, "format": "xml"}), "fake"), settings(server))
    shot = server.requests[0]["messages"][1:3]
    assert shot[0]["content"].splitlines()[1].startswith('<observation level="L2"')
    assert shot[1]["content"].startswith("Actions 2 and 3") and shot[1]["content"].endswith('\n{"action_id": 2}')


def test_resolve_layers_defaults_preset_and_explicit_options() -> None:
    assert resolve(None, {}) == DEFAULTS
    values = resolve("l2-best-of-n", {"best_of": 3, "level": "L1"})
    assert (values["best_of"], values["level"], values["mode"], values["vote_temperature"]) == (3, "L1", "cot", 0.7)
    with pytest.raises(ValueError, match="not preset options"):
        resolve("v1", {"model": "m"})


def test_an_explicit_option_beats_the_preset(world: World, spec: Path, tmp_path: Path) -> None:
    args = ["agent", str(spec), "--model", "fake", "-o", str(tmp_path / "a.txt"), "--json", "--retries", "0"]
    with FakeServer(reply=first_id) as server:
        result = runner.invoke(app, [*args, "--endpoint", server.url, "--preset", "l2-best-of-n", "--best-of", "3",
                                     "--level", "L1", "--vote-temperature", "0.2"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["preset"] == "l2-best-of-n"
    config = json.loads(result.stdout)["config"]
    assert (config["best_of"], config["level"], config["mode"]) == (3, "L1", "cot")  # mode: still the preset's
    assert sorted({b["seed"] for b in server.requests}) == [0, 1, 2]
    assert {b["temperature"] for b in server.requests} == {0.2}
    assert all("(L1 observation)" in observation(b) for b in server.requests)
    with FakeServer(reply=first_id) as server:
        result = runner.invoke(app, [*args, "--endpoint", server.url, "--preset", "table5-l1-direct",
                                     "--few-shot", "1", "--top-p", "0.9", "--mode", "cot"])
    assert result.exit_code == 0, result.output
    body = server.requests[0]
    assert body["top_p"] == 0.9 and body["temperature"] == 0.0
    assert sum(m["content"].startswith("Worked example") for m in body["messages"] if m["role"] == "user") == 1
    assert body["messages"][0]["content"].endswith(_INSTRUCTIONS["cot"])
    with FakeServer(reply=first_id) as server:  # no preset: the defaults, nothing sent that was not asked for
        result = runner.invoke(app, [*args, "--endpoint", server.url])
    assert result.exit_code == 0, result.output
    assert all("top_p" not in b and b["temperature"] == 0.0 and len(b["messages"]) == 2 for b in server.requests)


def test_presets_are_listed_and_a_bad_name_is_a_clean_error(spec: Path, tmp_path: Path) -> None:
    listed = runner.invoke(app, ["agent", "--list-presets"])
    assert listed.exit_code == 0, listed.output
    for p in PRESETS.values():
        assert f"| {p.name} | {p.source} |" in listed.stdout
    bad = runner.invoke(app, ["agent", str(spec), "--endpoint", "http://127.0.0.1:9/v1", "--model", "m",
                              "-o", str(tmp_path / "a.txt"), "--preset", "l4-cot"])
    assert bad.exit_code == 2 and bad.exc_info is not None and isinstance(bad.exc_info[1], SystemExit)
    said = " ".join(bad.stderr.replace("│", " ").split())
    assert "Invalid value for '--preset'" in said and "'l4-cot' is not one of 'l1-direct', 'l1-cot'," in said
    assert "Traceback" not in bad.output
    with pytest.raises(SchedcError, match="unknown preset 'l4-cot'") as caught:  # the library's own check
        resolve("l4-cot", {})
    assert "one of l1-direct, l1-cot" in str(caught.value)
    few = runner.invoke(app, ["agent", str(spec), "--endpoint", "http://127.0.0.1:9/v1", "--model", "m",
                              "-o", str(tmp_path / "a.txt"), "--few-shot", "3"])
    assert few.exit_code == 2 and "--few-shot 3: schedc has 2 worked examples" in few.stderr


# --------------------------------------------------------------------------- schedc agent-run


@pytest.fixture()
def shops(spec: Path, tmp_path: Path) -> Path:
    """Two instances: the generated 4-job world (its group 'mill' renamed 'grind', so that no group is
    shared) and the hand-written example (a .sched)."""
    folder = tmp_path / "shops"
    folder.mkdir()
    (folder / "gen.world.json").write_text(spec.read_text().replace('"mill"', '"grind"'))
    (folder / "small.sched").write_text((EXAMPLES / "dfjsp_small.sched").read_text())
    return folder


def rule_follower(shops: Path) -> Callable[[dict[str, Any]], str | dict[str, Any]]:
    """A fake model that follows RULE on whichever of the two shops a request is about (told apart by
    the machine groups in the observation: the shops have none in common)."""
    worlds = {"gen": load_world(shops / "gen.world.json"), "small": load_world(shops / "small.sched")}
    groups = {key: {m.group for m in world.machines} for key, world in worlds.items()}
    assert not groups["gen"] & groups["small"]
    oracles = {key: on_the_rule(world) for key, world in worlds.items()}

    def reply(body: dict[str, Any]) -> str | dict[str, Any]:
        shown = set(re.findall(r"^\| \d+ \| \S+ \| \S+ \| \d+ \| (\S+) \|", observation(body), re.MULTILINE))
        (key,) = [k for k, names in groups.items() if shown <= names]
        return oracles[key](body)

    return reply


def test_agent_run_writes_each_pair_once_and_resumes(shops: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["agent-run", str(shops), "--model", "fake", "-o", str(out), "--retries", "0", "--json"]
    with FakeServer(reply=rule_follower(shops)) as server:
        first = runner.invoke(app, [*args, "--endpoint", server.url, "--preset", "l1-direct", "--preset", "l2-cot"])
    assert first.exit_code == 0, first.output
    lines = (out / "episodes.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert sorted((r["instance"], r["preset"]) for r in records) == [
        ("gen", "l1-direct"), ("gen", "l2-cot"), ("small", "l1-direct"), ("small", "l2-cot")]
    assert len(server.requests) == sum(r["decisions"] for r in records)
    # the fake model follows RULE: each gap is RULE's own, computed here from the rules' rollouts
    for r in records:
        spans = [simulate(load_world(Path(r["file"])), rule).makespan for rule in RULE_NAMES]
        own = simulate(load_world(Path(r["file"])), RULE).makespan
        assert r["makespan"] == own and r["gap"] == pytest.approx(100 * (own - min(spans)) / min(spans))
        assert r["tokens"] == 2 * r["decisions"] and r["violations"] == 0 and r["fallback_total"] == 0
    summary = json.loads(first.stdout)
    assert (summary["ran"], summary["skipped"], summary["instances"]) == (4, 0, 2)
    by_preset = {row["preset"]: row for row in summary["presets"]}
    gen, small = ({x["instance"]: x["gap"] for x in records if x["preset"] == "l2-cot"}[k] for k in ("gen", "small"))
    assert by_preset["l2-cot"]["mean"] == pytest.approx((gen + small) / 2) and by_preset["l2-cot"]["n"] == 2

    # a rerun with one preset more: only the new pairs reach the endpoint; a line cut short is dropped
    with (out / "episodes.jsonl").open("a") as stream:
        stream.write('{"instance": "gen", "pre')
    with FakeServer(reply=rule_follower(shops)) as server:
        again = runner.invoke(app, [*args, "--endpoint", server.url, "--preset", "l1-direct", "--preset", "l2-cot",
                                    "--preset", "v1"])
    assert again.exit_code == 0, again.output
    after = (out / "episodes.jsonl").read_text().splitlines()
    assert after[:4] == lines and len(after) == 6 and {json.loads(x)["preset"] for x in after[4:]} == {"v1"}
    assert len(server.requests) == sum(json.loads(x)["decisions"] for x in after[4:])
    assert all("(L2 observation)" in observation(b) for b in server.requests)
    assert len((out / "rules.jsonl").read_text().splitlines()) == 2
    assert json.loads(again.stdout)["skipped"] == 4
    with FakeServer(reply=rule_follower(shops)) as server:  # everything done: nothing is sent
        done = runner.invoke(app, [*args, "--endpoint", server.url, "--preset", "v1"])
    assert done.exit_code == 0 and server.requests == [] and "| v1 |" in (out / "summary.md").read_text()


def test_summary_gaps_and_paired_tests_by_hand() -> None:
    from schedc.dynamic.agent_run import summary_of

    rules = [{"instance": "a", "makespans": {"R1": 100, "R2": 110, "R3": 120}},
             {"instance": "b", "makespans": {"R1": 220, "R2": 200, "R3": 200}}]
    episodes = [{"instance": "a", "preset": "P", "makespan": 105, "tokens": 30, "fallback_total": 1},
                {"instance": "b", "preset": "P", "makespan": 230, "tokens": 12, "fallback_total": 0}]
    s = summary_of(rules, episodes)
    # rule gaps: a 0 / 10 / 20, b 10 / 0 / 0 → means 5, 5, 10: best R1 (first of equals), median R2, worst R3
    assert {k: v["rule"] for k, v in s["rules"].items()} == {"best": "R1", "median": "R2", "worst": "R3"}
    (row,) = s["presets"]
    # P: a (105 − 100)/100 = 5 %, b (230 − 200)/200 = 15 %
    assert (row["n"], row["mean"], row["p50"], row["p90"], row["p95"]) == (2, 10.0, 10.0, 14.0, 14.5)
    assert row["se"] == pytest.approx(5.0) and (row["tokens"], row["fallbacks"]) == (42, 1)
    assert row["vs_best"] == {"delta": 5.0, "p": 0.5}  # differences vs R1: 5, 5 (exact two-sided p: 2 · 1/4)
    assert row["vs_median"] == {"delta": 5.0, "p": 1.0}  # vs R2: −5, +15


def test_agent_run_refuses_a_bad_preset_and_stops_on_a_dead_endpoint(shops: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    with FakeServer(reply=first_id) as server:
        bad = runner.invoke(app, ["agent-run", str(shops), "--preset", "l1-direct", "--preset", "v7", "--endpoint",
                                  server.url, "--model", "m", "-o", str(out)])
    assert bad.exit_code == 2 and "'v7' is not one of" in " ".join(bad.stderr.replace("│", " ").split())
    assert "Traceback" not in bad.output and server.requests == [] and not out.exists()
    with pytest.raises(SchedcError, match="unknown preset 'v7'"):  # the library checks every name before it runs
        run_presets(shops, ["l1-direct", "v7"], "m", settings(server), out)
    assert not out.exists()
    with FakeServer(reply=first_id, plan=lambda key, attempt: "500") as server:
        dead = runner.invoke(app, ["agent-run", str(shops / "small.sched"), "--preset", "l1-direct", "--endpoint",
                                   server.url, "--model", "m", "-o", str(out), "--retries", "0"])
    assert dead.exit_code == 3, dead.output
    assert "answered no request of small / l1-direct" in dead.stderr
    assert not (out / "episodes.jsonl").exists() and (out / "rules.jsonl").exists()
