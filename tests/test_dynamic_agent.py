"""The LLM scheduling agent against a local fake endpoint that answers with a fixed rule's choice.

The oracle is independent of the agent: it reads the rule's own trajectory (``simulate`` → the
``dispatch`` entries of its log) and, for each request, finds in the prompt's action table the ID of
the (operation, machine) pair the rule took at that decision. An agent that shows the table, reads
the answers and applies them correctly must therefore reproduce the rule's schedule exactly.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from schedc.bench.run import Settings
from schedc.core.diagnostics import SchedcError
from schedc.dynamic.agent import AgentConfig, count_violations, run_episode
from schedc.dynamic.agent_llm import LlmOptions
from schedc.dynamic.api import generate_dir, load_world, rollout_answer
from schedc.dynamic.rules import simulate
from schedc.dynamic.world import World
from tests.fake_server import FakeServer

RULE = "LPT+LWL"  # not the fallback (SPT+LIT): a fallback decision could not pass for the rule's
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
_TEXT_ROW = re.compile(r"^\| (\d+) \| (\S+) \| \S+ \| \d+ \| \S+ \| (\S+) \|", re.MULTILINE)
_XML_ROW = re.compile(r'<action action_id="(\d+)" op="([^"]+)"[^>]* machine="([^"]+)"')
_DECISION = re.compile(r'Decision (\d+) at time|decision="(\d+)"')


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    out = tmp_path_factory.mktemp("shop")
    config = out / "shop.toml"  # the small example with 6 jobs instead of 24: ~20 decisions, every level's data
    config.write_text((EXAMPLES / "dfjsp" / "small.toml").read_text().replace("jobs = 24", "jobs = 6"))
    generate_dir(config, out, calibrate=False)
    return load_world(out / "dfjsp_small.world.json")


def rule_choices(world: World, rule: str = RULE) -> list[tuple[str, str]]:
    """The (operation, machine) pair of every decision of the rule's rollout, in order."""
    return [(e.op, e.machine) for e in simulate(world, rule).log if e.kind == "dispatch"]


def table(body: dict[str, Any]) -> tuple[int, dict[tuple[str, str], int]]:
    """(decision number, {(op, machine): action ID}) from the observation message of a request."""
    text = body["messages"][1]["content"]
    found = _DECISION.search(text)
    assert found, text[:200]
    rows = _TEXT_ROW.findall(text) or _XML_ROW.findall(text)
    return int(found.group(1) or found.group(2)), {(op, m): int(i) for i, op, m in rows}


class Oracle:
    """The fake model: answers with the rule's action ID in the style of the request's mode."""

    def __init__(self, world: World, style: str = "direct", wrong_seeds: tuple[int, ...] = ()):
        self.choices, self.style, self.wrong_seeds = rule_choices(world), style, wrong_seeds
        self.tool_replies: list[dict[str, Any]] = []

    def right(self, body: dict[str, Any]) -> tuple[int, int]:
        decision, ids = table(body)
        return ids[self.choices[decision - 1]], len(ids)

    def __call__(self, body: dict[str, Any]) -> str | dict[str, Any]:
        action, count = self.right(body)
        last = body["messages"][-1]
        if body.get("seed") in self.wrong_seeds:
            action = action % count + 1  # a minority sample that disagrees (when there are two actions or more)
        if "tools" in body and body.get("tool_choice") != "none" and last["role"] == "user":
            calls = [{"id": "c1", "type": "function",
                      "function": {"name": "simulate_action", "arguments": json.dumps({"action_id": action})}},
                     {"id": "c2", "type": "function",
                      "function": {"name": "inspect_action_details", "arguments": json.dumps({"action_id": action})}}]
            return {"role": "assistant", "content": None, "tool_calls": calls}
        if last["role"] == "tool":
            self.tool_replies.append(json.loads(last["content"]))
        if self.style == "cot":
            return f'Option "action_id": {count + 5} is out of range, so I pick the other.\n{{"action_id": {action}}}'
        return json.dumps({"action_id": action})


def config(level: str, mode: str, **llm: Any) -> AgentConfig:
    fmt = llm.pop("format", "text")
    variants = llm.pop("variants", ())
    return AgentConfig(LlmOptions(model="fake", mode=mode, **llm), level=level, format=fmt, variants=variants)


def settings(server: FakeServer, retries: int = 0, timeout: float = 5.0) -> Settings:
    return Settings(endpoint=server.url, retries=retries, backoff=0.001, max_backoff=0.01, timeout=timeout)


def assert_reproduces(world: World, episode: Any) -> None:
    expected = simulate(world, RULE)
    assert episode.rollout.solution == expected.solution
    assert (episode.rollout.makespan, episode.rollout.weighted_tardiness) == (expected.makespan,
                                                                             expected.weighted_tardiness)
    assert count_violations(world, rollout_answer(world, episode.rollout)) == 0


@pytest.mark.parametrize("level", ["L1", "L2", "L3"])
@pytest.mark.parametrize("mode", ["direct", "cot", "tool"])
def test_agent_reproduces_the_rule(world: World, level: str, mode: str) -> None:
    oracle = Oracle(world, "cot" if mode == "cot" else "direct")
    with FakeServer(reply=oracle) as server:
        episode = run_episode(world, config(level, mode), settings(server))
    assert_reproduces(world, episode)
    decisions = episode.rollout.decisions
    assert sum(episode.fallbacks.values()) == 0
    per_decision = 2 if mode == "tool" else 1
    assert episode.usage["requests"] == decisions * per_decision == len(server.requests)
    assert episode.usage["total_tokens"] == 2 * episode.usage["requests"]  # the fake's usage: 2 per reply
    if mode == "tool":
        assert episode.tool_calls == 2 * decisions and episode.tool_errors == 0
        sims = [r for r in oracle.tool_replies if "completion" in r]
        assert all(r["completion"] >= 0 and r["horizon_time"] >= 0 for r in sims)
    assert all(("tools" in body) == (mode == "tool") for body in server.requests)


def test_levels_show_what_they_promise(world: World) -> None:
    bodies: dict[str, str] = {}
    for level in ("L1", "L2", "L3"):
        with FakeServer(reply=Oracle(world)) as server:
            run_episode(world, config(level, "direct"), settings(server))
        bodies[level] = server.requests[-1]["messages"][1]["content"]
    assert "slack" not in bodies["L1"] and "slack" in bodies["L2"] and "bottleneck_score" not in bodies["L2"]
    assert re.search(r"Events so far: .*arrivals \d+", bodies["L2"])
    assert "bottleneck_score" in bodies["L3"] and "Calibration targets: utilisation 0.8" in bodies["L3"]


def test_xml_format_and_variants(world: World) -> None:
    for fmt, variants in (("xml", ()), ("text", ("padding",)), ("text", ("targets", "bottleneck")),
                          ("text", ("xml-priors",))):
        level = "L3" if variants == ("xml-priors",) else "L2"
        with FakeServer(reply=Oracle(world)) as server:
            episode = run_episode(world, config(level, "direct", format=fmt, variants=variants), settings(server))
        assert_reproduces(world, episode)
        first = server.requests[0]["messages"][1]["content"]
        if fmt == "xml":
            assert first.startswith('<observation level="L2"')
        if "padding" in variants:
            with FakeServer(reply=Oracle(world)) as l3:
                run_episode(world, config("L3", "direct"), settings(l3))
            assert len(first) == len(l3.requests[0]["messages"][1]["content"])
        if "targets" in variants:
            assert "Calibration targets" in first and "bottleneck_score" in first
        if "xml-priors" in variants:
            assert "<Global_Priors>" in first and "<utilisation>0.8</utilisation>" in first


def test_reflection_and_best_of_n(world: World) -> None:
    with FakeServer(reply=Oracle(world)) as server:
        episode = run_episode(world, config("L2", "direct", reflection=2), settings(server))
    assert_reproduces(world, episode)
    assert episode.usage["requests"] == 3 * episode.rollout.decisions
    assert sum("audit" in b["messages"][-1]["content"] for b in server.requests) == 2 * episode.rollout.decisions
    with FakeServer(reply=Oracle(world)) as server:  # tools, then one audit that may not call them
        episode = run_episode(world, config("L3", "tool", reflection=1), settings(server))
    assert_reproduces(world, episode)
    audits = [b for b in server.requests if b.get("tool_choice") == "none"]
    assert len(audits) == episode.rollout.decisions and all(b["messages"][-2]["role"] == "assistant" for b in audits)
    # 5 samples, 2 of which (seeds 1 and 3) disagree: the majority is the rule's choice
    with FakeServer(reply=Oracle(world, wrong_seeds=(1, 3))) as server:
        episode = run_episode(world, config("L1", "direct", best_of=5), settings(server))
    assert_reproduces(world, episode)
    assert sorted({b["seed"] for b in server.requests}) == [0, 1, 2, 3, 4]
    assert {b["temperature"] for b in server.requests} == {0.7}


def test_best_of_n_tie_goes_to_the_first_leader(world: World) -> None:
    def reply(body: dict[str, Any]) -> str:  # 2 samples, one vote each: seed 0 names the last ID, seed 1 the first
        count = len(table(body)[1])
        return json.dumps({"action_id": count if body["seed"] == 0 else 1})

    records: list[dict[str, Any]] = []
    with FakeServer(reply=reply) as server:
        run_episode(world, config("L1", "direct", best_of=2), settings(server), records.append)
    assert any(r["actions"] > 1 for r in records), "the shop has decisions with several actions"
    assert all(r["action_id"] == r["actions"] and r["fallback"] is None for r in records)


def test_unusable_answers_fall_back_and_are_counted(world: World) -> None:
    choices = rule_choices(world)

    def reply(body: dict[str, Any]) -> str:
        decision, ids = table(body)
        if decision % 3 == 0:
            return "I would rather not say."
        if decision % 3 == 1:
            return '{"action_id": 999}'
        return json.dumps({"action_id": ids[choices[decision - 1]]})

    with FakeServer(reply=reply) as server:
        agent = AgentConfig(LlmOptions(model="fake"), level="L1", fallback=RULE)  # the fallback is the rule itself
        episode = run_episode(world, agent, settings(server))
    n = episode.rollout.decisions
    assert_reproduces(world, episode)
    assert episode.fallbacks == {"unparseable": n // 3, "inadmissible": (n + 2) // 3, "transport": 0,
                                 "tool-rounds": 0}


def test_tool_errors_and_round_limit(world: World) -> None:
    wrong = (("simulate_action", '{"action_id": 0}'), ("teleport", "{}"), ("inspect_action_details", "not json"))

    def bad_calls(body: dict[str, Any]) -> dict[str, Any]:
        calls = [{"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": args}}
                 for i, (name, args) in enumerate(wrong)]
        return {"role": "assistant", "content": None, "tool_calls": calls}

    with FakeServer(reply=bad_calls) as server:
        episode = run_episode(world, config("L1", "tool", max_tool_rounds=1), settings(server))
    n = episode.rollout.decisions
    assert episode.fallbacks["tool-rounds"] == n and episode.tool_errors == episode.tool_calls == 3 * 2 * n
    replies = [json.loads(m["content"]) for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert [r["error"][:20] for r in replies] == ["action_id 0 is out o", "unknown tool 'telepo",
                                                  "arguments are not JS"]
    assert episode.rollout.solution == simulate(world, "SPT+LIT").solution  # the fallback decided every epoch


def test_simulate_action_matches_the_rollout(world: World) -> None:
    from schedc.dynamic.agent_obs import EventCounter, Priors, encode
    from schedc.dynamic.agent_tools import ToolContext, simulate_action
    from schedc.dynamic.rules import parse_rule, run_policy
    from schedc.dynamic.simulator import Simulator

    sim, rule = Simulator(world), parse_rule(RULE)
    ends = {sim.ops[run.op].name: run.end for run in run_policy(sim, rule).completed}
    state, checked = sim.reset(), 0
    while not state.done:
        obs = encode(sim, state, "L3", EventCounter().update(state), Priors.of(sim))
        op, machine = rule.choose(sim, state)
        result = simulate_action(ToolContext(sim, state, obs, rule), obs.actions.index((op, machine)) + 1, 200)
        if result["steps_simulated"] < 200:
            # the look-ahead follows the same rule on the same simulator: it is a prefix of the rollout
            assert result["completion"] == ends[sim.ops[op].name]
            checked += 1
        state = sim.step(state, op, machine)
    assert checked >= 0.9 * state.decisions


def test_transport_faults_are_retried_and_then_fall_back(world: World) -> None:
    with FakeServer(reply=Oracle(world), rate=0.5, faulty_attempts=2, slow=0.3, seed=3) as server:
        episode = run_episode(world, config("L2", "tool"), settings(server, retries=2, timeout=0.2))
    assert sum(server.injected.values()) > 5 and len(server.injected) >= 4  # several kinds of fault met
    assert_reproduces(world, episode)  # every fault met its retry: nothing was lost
    assert sum(episode.fallbacks.values()) == 0

    with FakeServer(reply=Oracle(world), plan=lambda key, attempt: "500") as server:
        episode = run_episode(world, config("L1", "direct", reflection=1), settings(server, retries=1))
    n = episode.rollout.decisions
    assert episode.fallbacks["transport"] == n and len(server.requests) == 2 * n  # 1 retry each, no reflection
    assert episode.usage["requests"] == 0
    assert episode.rollout.solution == simulate(world, "SPT+LIT").solution


def test_cli_writes_a_checkable_answer_and_transcript(world: World, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from schedc.cli import app
    from schedc.dynamic.api import world_json

    spec = tmp_path / "shop.world.json"
    spec.write_bytes(world_json(world))
    answer, transcript = tmp_path / "answer.txt", tmp_path / "episode.jsonl"
    runner = CliRunner()
    with FakeServer(reply=Oracle(world, "cot")) as server:
        result = runner.invoke(app, ["agent", str(spec), "--endpoint", server.url, "--model", "fake", "--level", "L3",
                                     "--mode", "cot", "--best-of", "3", "-o", str(answer), "--transcript",
                                     str(transcript), "--json", "--retries", "0"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["violations"] == 0 and record["fallback_total"] == 0
    assert record["usage"]["requests"] == 3 * record["decisions"]
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert len(lines) == record["decisions"] and all(len(r["messages"]) == 3 for r in lines)
    assert answer.read_text() == rollout_answer(world, simulate(world, RULE))
    from schedc.dynamic.spec import world_to_instance
    from schedc.lang.printer import print_instance

    sched = tmp_path / "shop.sched"
    sched.write_text(print_instance(world_to_instance(world)))
    checked = runner.invoke(app, ["check", str(sched), str(answer)])
    assert checked.exit_code == 0, checked.output
    bad = runner.invoke(app, ["agent", str(spec), "--endpoint", server.url, "--model", "m", "--level", "L4",
                              "-o", str(answer)])
    assert bad.exit_code == 2 and "'L4' is not one of" in bad.output


def test_cli_choices_are_the_registries() -> None:
    from schedc.cli.dynamic import Level, Mode, ObsFormat, PromptVariant
    from schedc.dynamic.agent_obs import FORMATS, LEVELS
    from schedc.dynamic.agent_prompts import MODES, VARIANTS

    assert [v.value for v in Level] == list(LEVELS) and [v.value for v in Mode] == list(MODES)
    assert [v.value for v in ObsFormat] == list(FORMATS) and [v.value for v in PromptVariant] == list(VARIANTS)
    bad = AgentConfig(LlmOptions(model="m", mode="tool", reflection=1, best_of=2))
    with pytest.raises(SchedcError, match="exclude each other"):
        bad.check()
    with pytest.raises(SchedcError, match="unknown --level 'L9'"):
        AgentConfig(LlmOptions(model="m"), level="L9").check()


def test_an_endpoint_that_answers_nothing_fails_the_episode(world: World, tmp_path: Path) -> None:
    """Every decision made by the fallback rule is no answer of the model: exit 3 and a message saying
    so (before: exit 0 and an all-fallback schedule reported like any other episode)."""
    from typer.testing import CliRunner

    from schedc.cli import app
    from schedc.dynamic.api import world_json

    spec = tmp_path / "shop.world.json"
    spec.write_bytes(world_json(world))
    runner = CliRunner()
    args = ["agent", str(spec), "--model", "m", "-o", str(tmp_path / "a.txt"), "--retries", "0", "--backoff", "0.001"]
    with FakeServer(reply=Oracle(world), plan=lambda key, attempt: "500") as server:
        dead = runner.invoke(app, [*args, "--endpoint", server.url, "--json"])
    assert dead.exit_code == 3, dead.output
    record = json.loads(dead.stdout)
    assert record["usage"]["requests"] == 0 and record["failed_requests"] == record["decisions"] > 0
    assert record["fallbacks"]["transport"] == record["decisions"] and record["transport_error"].startswith("HTTP 500")
    assert f"{server.url} answered none of {record['decisions']} requests" in dead.stderr
    assert "fallback rule SPT+LIT" in dead.stderr

    # an endpoint that fails once only: a warning, and the episode stands
    failed: list[str] = []

    def once(key: str, attempt: int) -> str | None:
        if failed:
            return None
        failed.append(key)
        return "500"

    with FakeServer(reply=lambda body: "Action: 1", plan=once) as server:  # always the first admissible action
        flaky = runner.invoke(app, [*args, "--endpoint", server.url])
    assert flaky.exit_code == 0, flaky.output
    assert "did not answer 1 of " in flaky.stderr and "; 1 decisions fell back" in flaky.stderr
