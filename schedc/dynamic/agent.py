"""``schedc agent``: an LLM dispatches a dynamic flexible job shop online, one decision epoch at a time.

An episode walks the simulator (:mod:`schedc.dynamic.simulator`) from its first decision point to
the end. At every epoch the agent gets the admissible actions as an observation at level L1, L2 or
L3 (:mod:`schedc.dynamic.agent_obs`), in text or XML, inside the prompt of its mode
(:mod:`schedc.dynamic.agent_prompts`; optionally after fixed few-shot worked examples), and
answers with one action ID (:mod:`schedc.dynamic.agent_llm`: direct, chain-of-thought or tool-augmented; reflection or
best-of-N on top). When it gives no admissible ID — an answer without an ID (*unparseable*), an
ID outside the table (*inadmissible*), a request that failed after its retries (*transport*), or
tool calls past the round limit (*tool-rounds*) — the **fallback rule** (``SPT+LIT`` unless
configured; :mod:`schedc.dynamic.rules`) decides that epoch, and the reason is counted. Every
episode therefore ends with a complete schedule of the realised instance, written in the family's
answer format and verified like any other answer.

The episode record holds the objective values, decisions, fallbacks by reason, tool calls,
token usage (sums of the endpoint's ``usage`` fields over every request), requests and wall time,
and the requests the endpoint did not answer with the last reason (an episode in which the endpoint
answered nothing at all is :attr:`Episode.unanswered`: ``schedc agent`` then exits 3).
The transcript (``--transcript``, JSON Lines, written as the episode runs) has one line per epoch:
time, number of actions, the messages exchanged, the action taken and the fallback reason if any.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedc.bench.run import Settings
from schedc.core.diagnostics import SchedcError
from schedc.dynamic.agent_llm import Decider, LlmOptions
from schedc.dynamic.agent_obs import FORMATS, LEVELS, EventCounter, Priors, encode
from schedc.dynamic.agent_prompts import (
    FEW_SHOT_LIMIT,
    MODES,
    VARIANTS,
    few_shot_messages,
    messages,
    system_prompt,
    user_prompt,
)
from schedc.dynamic.agent_tools import ToolContext
from schedc.dynamic.rules import Rollout, parse_rule, rollout_of
from schedc.dynamic.simulator import Simulator
from schedc.dynamic.world import World

FALLBACK_REASONS = ("unparseable", "inadmissible", "transport", "tool-rounds")


@dataclass(frozen=True)
class AgentConfig:
    """An agent: observation level and format, prompt variants, few-shot examples, the LLM options and
    the fallback rule."""

    llm: LlmOptions
    level: str = "L1"
    format: str = "text"
    variants: tuple[str, ...] = ()
    fallback: str = "SPT+LIT"
    few_shot: int = 0  # worked examples before each observation (agent_prompts.few_shot_messages)

    def check(self) -> None:
        """Reject a configuration the loop cannot run, naming the option."""
        o = self.llm
        for value, allowed, what in ((self.level, LEVELS, "--level"), (o.mode, MODES, "--mode"),
                                     (self.format, FORMATS, "--format")):
            if value not in allowed:
                raise SchedcError.at("E906", f"unknown {what} {value!r}", hint="one of " + ", ".join(allowed))
        for variant in self.variants:
            if variant not in VARIANTS:
                raise SchedcError.at("E906", f"unknown --variant {variant!r}", hint="one of " + ", ".join(VARIANTS))
        if o.reflection and o.best_of > 1:
            raise SchedcError.at("E906", "--reflection and --best-of exclude each other")
        if o.reflection < 0 or o.best_of < 1 or o.max_tool_rounds < 0:
            raise SchedcError.at("E906", "--reflection must be ≥ 0, --best-of ≥ 1, --max-tool-rounds ≥ 0")
        if not 0 <= self.few_shot <= FEW_SHOT_LIMIT:
            raise SchedcError.at("E906", f"--few-shot {self.few_shot}: schedc has {FEW_SHOT_LIMIT} worked examples",
                                 hint=f"0 … {FEW_SHOT_LIMIT}")
        if o.top_p is not None and not 0 < o.top_p <= 1:
            raise SchedcError.at("E906", f"--top-p {o.top_p}: expected 0 < top_p ≤ 1")
        parse_rule(self.fallback)


@dataclass
class Episode:
    """The outcome of one agent episode (see the module docstring)."""

    instance: str
    rollout: Rollout
    config: dict[str, Any]
    fallbacks: dict[str, int] = field(default_factory=dict)
    tool_calls: int = 0
    tool_errors: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    failed_requests: int = 0  # requests the endpoint did not answer (after their retries)
    transport_error: str | None = None  # why the last of them failed

    @property
    def unanswered(self) -> bool:
        """True when the endpoint answered no request at all: every decision was the fallback rule's."""
        return self.failed_requests > 0 and self.usage.get("requests", 0) == 0

    def record(self) -> dict[str, Any]:
        """The JSON summary the CLI prints."""
        r = self.rollout
        return {"instance": self.instance, "makespan": r.makespan, "weighted_tardiness": r.weighted_tardiness,
                "decisions": r.decisions, "aborts": r.aborts, "fallbacks": self.fallbacks,
                "fallback_total": sum(self.fallbacks.values()), "tool_calls": self.tool_calls,
                "tool_errors": self.tool_errors, "usage": self.usage, "seconds": round(self.seconds, 3),
                "failed_requests": self.failed_requests, "transport_error": self.transport_error,
                "config": self.config}


def run_episode(world: World, config: AgentConfig, settings: Settings,
                transcript: Callable[[dict[str, Any]], None] | None = None) -> Episode:
    """Dispatch ``world`` with the agent; ``transcript`` receives one record per epoch."""
    config.check()
    return asyncio.run(_episode(world, config, settings, transcript or (lambda record: None)))


async def _episode(world: World, config: AgentConfig, settings: Settings,
                   transcript: Callable[[dict[str, Any]], None]) -> Episode:
    started = time.monotonic()
    sim = Simulator(world)
    fallback = parse_rule(config.fallback)
    needs_l3 = config.level == "L3" or config.llm.mode == "tool" or bool(config.variants)
    priors = Priors.of(sim) if needs_l3 else None
    system = system_prompt(config.llm.mode, config.level, world.objective, "bottleneck" in config.variants)
    shots = few_shot_messages(config.few_shot, config.level, config.format, config.llm.mode, config.variants)
    decider = Decider(config.llm, settings, asyncio.Event())
    counter, reasons = EventCounter(), Counter[str]()
    tool_calls = tool_errors = 0
    state = sim.reset()
    try:
        while not state.done:
            events = counter.update(state)
            obs = encode(sim, state, config.level, events, priors, "bottleneck" in config.variants)
            l3 = encode(sim, state, "L3", events, priors) if needs_l3 else None
            prompt = user_prompt(obs, config.format, config.variants, l3)
            ctx = ToolContext(sim, state, l3 or obs, fallback)
            outcome = await decider.decide(messages(system, prompt, shots), len(obs.actions), ctx)
            tool_calls, tool_errors = tool_calls + outcome.tool_calls, tool_errors + outcome.tool_errors
            if outcome.action is None:
                reasons[outcome.reason or "unparseable"] += 1
                op, machine = fallback.choose(sim, state)
            else:
                op, machine = obs.actions[outcome.action - 1]
            transcript({"decision": state.decisions + 1, "time": state.time, "actions": len(obs.actions),
                        "action_id": outcome.action, "fallback": outcome.reason,
                        "op": sim.ops[op].name, "machine": sim.machine_names[machine],
                        "messages": outcome.transcript})
            state = sim.step(state, op, machine)
    finally:
        await decider.close()
    usage = decider.usage
    return Episode(world.name, rollout_of(sim, state, f"agent-{config.llm.mode}-{config.level}"),
                   _describe(config), {k: reasons.get(k, 0) for k in FALLBACK_REASONS}, tool_calls, tool_errors,
                   {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
                    "total_tokens": usage.total_tokens, "requests": usage.requests},
                   time.monotonic() - started, decider.failed_requests, decider.last_error)


def _describe(config: AgentConfig) -> dict[str, Any]:
    o = config.llm
    return {"model": o.model, "level": config.level, "mode": o.mode, "format": config.format,
            "variants": list(config.variants), "reflection": o.reflection, "best_of": o.best_of,
            "temperature": o.temperature, "top_p": o.top_p, "few_shot": config.few_shot,
            "fallback": config.fallback, "seed": o.seed}


def agent_file(spec: Path, config: AgentConfig, settings: Settings, out: Path | None = None,
               transcript: Path | None = None) -> tuple[Episode, str, int]:
    """``schedc agent``: run one episode on a ``.sched`` / ``.world.json`` shop; (episode, answer text,
    number of violations the verifier finds in it). The answer and the transcript are written when asked."""
    from schedc.dynamic.api import load_world, rollout_answer
    from schedc.importers.common import write_atomic

    world = load_world(spec)
    if transcript is None:
        episode = run_episode(world, config, settings)
    else:
        transcript.parent.mkdir(parents=True, exist_ok=True)
        with transcript.open("w", encoding="utf-8") as stream:  # line by line: an interrupted episode keeps its epochs

            def write(record: dict[str, Any]) -> None:
                stream.write(json.dumps(record, ensure_ascii=False) + "\n")
                stream.flush()

            episode = run_episode(world, config, settings, write)
    answer = rollout_answer(world, episode.rollout)
    violations = count_violations(world, answer)
    if out is not None:
        write_atomic(out, answer)
    return episode, answer, violations


def count_violations(world: World, answer: str) -> int:
    """Violations of ``answer`` against the realised instance (what ``schedc check`` reports)."""
    from schedc.dynamic.spec import world_to_instance
    from schedc.lang.family import load_family
    from schedc.verify.verifier import Verifier

    report = Verifier(world_to_instance(world), load_family("dfjsp")).check(answer)
    return report.hard_violations + (report.coverage < 1.0)
